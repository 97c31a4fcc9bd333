package transcript

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestClaudeLineAllocs bounds the allocations of a line like Claude
// Code's usual ones, parsed after one of the same response: the record,
// its request and calls are new; the message, its usage, its blocks and
// the values repeated from the line before (ids, model, session, project)
// are not.
func TestClaudeLineAllocs(t *testing.T) {
	for _, tt := range []struct {
		line string
		max  float64
	}{
		{`{"parentUuid":"a","isSidechain":false,"cwd":"/p","sessionId":"s","version":"2.1.97","type":"assistant","requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":16,"cache_creation_input_tokens":1211,"cache_read_input_tokens":12176,"output_tokens":5,"cache_creation":{"ephemeral_5m_input_tokens":1211,"ephemeral_1h_input_tokens":0},"service_tier":"standard"}},"uuid":"u","timestamp":"2026-10-14T23:46:47.124Z"}`, 2},
		{`{"parentUuid":"a","isSidechain":false,"cwd":"/p","sessionId":"s","version":"2.1.97","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"a result\nof two lines"}]},"uuid":"u","timestamp":"2026-10-14T23:46:47.124Z","toolUseResult":{"stdout":"a result\nof two lines","stderr":""}}`, 4},
	} {
		p := &ClaudeParser{ReuseText: true}
		line := []byte(tt.line)
		if rec, err := p.ParseLine(line); err != nil || rec == nil {
			t.Fatalf("%s: %v, %v", line, rec, err)
		}
		if n := testing.AllocsPerRun(100, func() { p.ParseLine(line) }); n > tt.max {
			t.Errorf("%.60s: %v allocations a line, want at most %v", line, n, tt.max)
		}
	}
}

// TestGeminiNestedResultBytes bounds the bytes a tool result nested to
// geminiMaxDepth lists costs to read (Gemini CLI's, opencode's): its
// text once, not a copy of it at each level.
func TestGeminiNestedResultBytes(t *testing.T) {
	const size = 4 << 20
	nest := func(levels int) string {
		return strings.Repeat("[", levels) + `"` + strings.Repeat("a ", size/2) + `"` + strings.Repeat("]", levels)
	}
	for _, doc := range []string{nest(geminiMaxDepth), `{"functionResponse":{"response":{"output":` + nest(geminiMaxDepth-3) + `}}}`} {
		var r ToolResult
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		geminiParts(&r, json.RawMessage(doc), 0)
		runtime.ReadMemStats(&after)
		if r.Bytes != size || r.NonText != 0 {
			t.Fatalf("%.30s: %d bytes of text, %d other blocks", doc, r.Bytes, r.NonText)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 3*size {
			t.Errorf("%.30s: %d MB allocated for %d MB of text", doc, got>>20, size>>20)
		}
	}
}
