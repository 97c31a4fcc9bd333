package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHugeStoredStrings: a transcript whose model name, project path,
// server and tool names are a megabyte each (a stranger's transcript, or a
// forged line) gets answers of a few kilobytes from every usage tool, over
// the MCP protocol: each such string is cut, with a marker naming its
// length, and stays valid UTF-8, in the text and in the structured result.
func TestHugeStoredStrings(t *testing.T) {
	f := newFixture(t, false)
	const mb = 1 << 20
	// Multi-byte runes and controls, so that a cut in the middle of a rune
	// or an escape would show.
	big := func(c string) string { return strings.Repeat(c, mb/len(c)) }
	model := "claude-" + big("é\x1b")
	project := "/p/" + big("ü")
	server, tool := big("s"), big("ẗ")
	dir := filepath.Join(f.home, ".claude", "projects", "-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	js := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var lines []string
	for i := range 2 {
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant","sessionId":"5e550000-0000-4000-8000-000000000000","cwd":%s,"timestamp":"2026-11-20T09:0%d:00.000Z","requestId":"r%d","message":{"id":"m%d","model":%s,"content":[{"type":"tool_use","id":"t%d","name":%s,"input":{}}],"usage":{"input_tokens":10,"output_tokens":20}}}`,
				js(project), i, i, i, js(model), i, js("mcp__"+server+"__"+tool)),
			fmt.Sprintf(`{"type":"user","sessionId":"5e550000-0000-4000-8000-000000000000","cwd":%s,"timestamp":"2026-11-20T09:0%d:30.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"ok"}]}}`, js(project), i, i))
	}
	if err := os.WriteFile(filepath.Join(dir, "5e550000-0000-4000-8000-000000000000.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, f.opts)
	tests := []struct {
		tool string
		args map[string]any
	}{
		{toolUsage, map[string]any{"by": "model", "days": 0}},
		{toolUsage, map[string]any{"by": "project", "days": 0}},
		{toolUsage, map[string]any{"by": "server", "days": 0}},
		{toolUsage, map[string]any{"by": "tool", "days": 0}},
		{toolUsage, map[string]any{"by": "session", "days": 0}},
		{toolRecent, map[string]any{}},
		{toolSession, map[string]any{}},
		{toolFindings, map[string]any{"days": 0}},
		{toolBlocks, map[string]any{}},
	}
	for _, tt := range tests {
		name := tt.tool + fmt.Sprint(tt.args)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := resultText(res)
		if res.IsError {
			t.Fatalf("%s: tool error: %.300s", name, text)
		}
		structured, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if len(text) > 64<<10 || len(structured) > 64<<10 {
			t.Errorf("%s: %d bytes of text, %d of structured content; want each under 64 KiB", name, len(text), len(structured))
		}
		if !utf8.ValidString(text) || !utf8.Valid(structured) {
			t.Errorf("%s: not valid UTF-8", name)
		}
		if strings.Contains(text, "\x1b") {
			t.Errorf("%s: a raw escape in the text", name)
		}
		if tt.tool != toolFindings && tt.tool != toolBlocks && !strings.Contains(text, "bytes)") {
			t.Errorf("%s: no truncation marker in %.300q", name, text)
		}
	}
}
