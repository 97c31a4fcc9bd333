package findings

import (
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
)

// TestAppliesToNamesWhatIsRead checks the wording of a config whose
// sessions are not matched: it names the client, never a stale list of
// the sources mcpcost reads.
func TestAppliesToNamesWhatIsRead(t *testing.T) {
	for _, tc := range []struct {
		client, want string
	}{
		{clients.Gemini, "no sessions: mcpcost does not match Gemini CLI's sessions to its configs yet"},
		{clients.Goose, "no sessions: mcpcost does not match Goose's sessions to its configs yet"},
		{clients.Cursor, "no sessions: mcpcost reads no transcripts of Cursor"},
	} {
		_, words := appliesTo(audit.Config{Client: tc.client, Scope: "user", Path: "/home/me/x.json"}, "/home/me")
		if words != tc.want {
			t.Errorf("%s: %q, want %q", tc.client, words, tc.want)
		}
		if strings.Contains(words, "Claude Code and Codex") {
			t.Errorf("%s: stale source list in %q", tc.client, words)
		}
	}
}
