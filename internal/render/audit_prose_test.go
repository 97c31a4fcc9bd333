package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/audit"
)

// TestAuditProseTakesTheWidth checks that the audit's paragraphs wrap at
// the screen's width, as the other commands' prose does (80 columns when
// the width is not known), not at 80 columns always.
func TestAuditProseTakesTheWidth(t *testing.T) {
	r := &audit.Report{MethodologyVersion: "1", Encoding: "o200k_base", ContextWindow: 200000,
		Launch: &audit.LaunchInfo{Note: strings.Repeat("the servers were launched because --launch was given ", 4)},
		Configs: []audit.Config{{Client: "claude-code", Path: "/home/me/.claude.json", Scope: "user", ToolCount: 3,
			PostureText: []string{strings.Repeat("every tool definition is loaded up front at session start ", 4)}}}}
	for _, tc := range []struct {
		width, want int
	}{{0, 80}, {60, 60}, {100, 100}, {140, 140}} {
		var b bytes.Buffer
		if err := AuditText(&b, r, Screen{Width: tc.width}); err != nil {
			t.Fatal(err)
		}
		for _, start := range []string{"launch: ", "Tokens: ", "  every tool definition"} {
			widest := 0
			for _, l := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(l, start) {
					widest = max(widest, Width(l))
				}
			}
			if widest == 0 {
				t.Fatalf("no line starts with %q:\n%s", start, b.String())
			}
			if widest > tc.want || widest < tc.want-20 {
				t.Errorf("at width %d the paragraph %q wraps at %d, want about %d:\n%s", tc.width, start, widest, tc.want, b.String())
			}
		}
	}
}
