package clients

import "testing"

func TestApprovals(t *testing.T) {
	a := approvals{allow: []string{"mcp__github", "mcp__browser__navigate", " mcp__db__* ", "Bash(ls:*)"}}
	for _, c := range []struct {
		server, tool string
		want         bool
	}{
		{"github", "search_code", true},
		{"browser", "navigate", true},
		{"browser", "click", false},
		{"db", "query", true},
		{"git", "status", false},
		{"githubx", "a", false},
	} {
		if got := a.allows(c.server, c.tool); got != c.want {
			t.Errorf("%s/%s: %v, want %v", c.server, c.tool, got, c.want)
		}
	}
	if !(approvals{bypass: true}).allows("any", "tool") {
		t.Error("bypassPermissions does not allow")
	}
}
