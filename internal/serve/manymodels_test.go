package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestManyModelsInOneSession: a forged transcript whose one session uses
// 100,000 models gets answers of a few kilobytes from recent_sessions and
// blocks, over the MCP protocol: each row lists maxListed models and counts
// the rest, in the structured result (and the text says so).
func TestManyModelsInOneSession(t *testing.T) {
	f := newFixture(t, false)
	const models = 100_000
	dir := filepath.Join(f.home, ".claude", "projects", "-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range models {
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":"5e550000-0000-4000-8000-000000000000","cwd":"/p","timestamp":"2026-11-20T09:00:%02d.%03dZ","requestId":"r%d","message":{"id":"m%d","model":"claude-forged-%d","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`+"\n",
			i/1000%60, i%1000, i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "5e550000-0000-4000-8000-000000000000.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, f.opts)
	for _, tt := range []struct {
		tool string
		args map[string]any
		more string // where the structured result counts the models left out
	}{
		{toolRecent, map[string]any{}, `"moreModels":99990`},
		{toolBlocks, map[string]any{}, `"moreModels":99990`},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatalf("%s: %v", tt.tool, err)
		}
		text := resultText(res)
		if res.IsError {
			t.Fatalf("%s: tool error: %.300s", tt.tool, text)
		}
		structured, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if len(text) > 64<<10 || len(structured) > 64<<10 {
			t.Errorf("%s: %d bytes of text, %d of structured content; want each under 64 KiB", tt.tool, len(text), len(structured))
		}
		if !strings.Contains(string(structured), tt.more) {
			t.Errorf("%s: structured result does not count the models left out (%s): %.300s", tt.tool, tt.more, structured)
		}
		if tt.tool == toolBlocks && !strings.Contains(string(structured), `"moreUnpriced":99990`) {
			t.Errorf("blocks: structured result does not count the unpriced models left out: %.300s", structured)
		}
		if !strings.Contains(text, "99,990 more") {
			t.Errorf("%s: text does not count the models left out: %.300s", tt.tool, text)
		}
	}
}
