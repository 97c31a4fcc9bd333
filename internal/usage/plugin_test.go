package usage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// pluginLines is a session whose assistant calls name server github
// through a plugin (acme) or not (a config file's server of the same
// name), one call each.
func pluginLines(session, tool string, n int) string {
	ts := "2026-11-01T10:00:0" + string(rune('0'+n))
	return `{"type":"assistant","sessionId":"` + session + `","cwd":"/home/u/p","uuid":"a` + session + `","timestamp":"` + ts + `.000Z","requestId":"req_` + session + `","message":{"id":"msg_` + session + `","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_` + session + `","name":"` + tool + `","input":{}}],"usage":{"input_tokens":1,"output_tokens":1}}}
{"type":"user","sessionId":"` + session + `","cwd":"/home/u/p","uuid":"u` + session + `","timestamp":"` + ts + `.500Z","message":{"role":"user","content":[{"tool_use_id":"toolu_` + session + `","type":"tool_result","content":"two issues"}]}}
`
}

// A server that some calls reach through a plugin and others not is named
// with its plugin the same way whichever of them the store holds first:
// the report does not depend on the order the files were read in.
func TestServerPluginWhateverTheOrder(t *testing.T) {
	ctx := context.Background()
	report := func(first, second string) []usage.ToolRow {
		t.Helper()
		home := t.TempDir()
		dir := filepath.Join(home, ".claude", "projects", "-home-u-p")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// Files are read in name order: a.jsonl's call is stored first.
		if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(pluginLines("sa", first, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(pluginLines("sb", second, 2)), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := st.Ingest(ctx, store.IngestOptions{ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")}, Count: token.O200k().Count}); err != nil {
			t.Fatal(err)
		}
		rep, err := usage.Build(ctx, st, usage.Options{By: "server"})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Tools
	}
	const plugin, plain = "mcp__plugin_acme_github__list_issues", "mcp__github__list_issues"
	for _, order := range [][2]string{{plugin, plain}, {plain, plugin}} {
		rows := report(order[0], order[1])
		var got []string
		for _, r := range rows {
			got = append(got, r.Server+"/"+r.Plugin)
		}
		if len(rows) != 1 || rows[0].Server != "github" || rows[0].Plugin != "acme" || rows[0].Calls != 2 {
			t.Errorf("stored first %s: rows %s, want one github row of 2 calls named with plugin acme", order[0], strings.Join(got, ", "))
		}
	}
}
