package serve

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditConfigConsent: audit_config with launch does not launch the
// project's unapproved .mcp.json servers, and does with trust_project;
// the user-scope server launches either way.
func TestAuditConfigConsent(t *testing.T) {
	f := newFixture(t, false)
	cs, _ := connect(t, f.opts)
	mcp := filepath.Join(f.project, ".mcp.json")
	for _, trust := range []bool{false, true} {
		var got AuditResult
		text := call(t, cs, toolAudit, map[string]any{"client": "claude-code", "launch": true, "trust_project": trust}, &got)
		if says := strings.Contains(text, "trust_project: true launches them"); says == trust {
			t.Errorf("trust_project %v: text:\n%s", trust, text)
		}
		seen := 0
		for _, c := range got.Configs {
			for _, s := range c.Servers {
				want := "measured"
				if c.Path == mcp && !trust {
					want = "needs-approval"
				}
				if want == "needs-approval" && !strings.Contains(s.Hint, "enabledMcpjsonServers") {
					t.Errorf("%s: hint %q", s.Name, s.Hint)
				}
				if s.Status != want {
					t.Errorf("trust_project %v: %s in %s is %s (%s), want %s", trust, s.Name, c.Path, s.Status, s.Detail, want)
				}
				seen++
			}
		}
		if seen != 3 {
			t.Errorf("trust_project %v: %d servers, want 3: %+v", trust, seen, got)
		}
	}
}
