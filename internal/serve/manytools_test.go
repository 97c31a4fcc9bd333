package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// manyToolsEnv, set in its environment, makes the test binary an MCP
// server over stdio that lists that many tools (see [serveManyTools]).
const manyToolsEnv = "MCPCOST_SERVE_TEST_MANY_TOOLS"

// heavyTool is the one tool of serveManyTools with a long description.
const heavyTool = 7_777

// serveManyTools answers initialize and tools/list with n tools, each
// small but heavyTool, until its input ends.
func serveManyTools(n int) {
	tools := make([]any, n)
	for i := range tools {
		desc := fmt.Sprintf("tool %d", i)
		if i == heavyTool {
			desc = strings.Repeat("a heavy tool ", 100)
		}
		tools[i] = map[string]any{"name": fmt.Sprintf("t%d", i), "description": desc, "inputSchema": map[string]any{"type": "object"}}
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		data, _ := json.Marshal(v)
		out.Write(data)
		out.WriteString("\n")
		out.Flush()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || len(msg.ID) == 0 {
			continue
		}
		switch msg.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{
				"protocolVersion": msg.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "many", "version": "1"}}})
		case "ping":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{}})
		case "tools/list":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"tools": tools}})
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
}

// TestManyTools: a live server that lists 10,000 tools (the most mcpcost reads) gets an answer of
// a few kilobytes from measure_server, over the MCP protocol: the
// structured result lists the maxTools heaviest, heaviest first, and
// counts the rest in moreTools; the totals are of every tool.
func TestManyTools(t *testing.T) {
	f := newFixture(t, false)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const tools = 10_000 // the most a tools/list may hold
	cs, _ := connect(t, f.opts)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolMeasure,
		Arguments: map[string]any{"command": exe, "env": map[string]any{manyToolsEnv: fmt.Sprint(tools)}}})
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	if res.IsError {
		t.Fatalf("tool error: %.300s", text)
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if len(text) > 64<<10 || len(structured) > 64<<10 {
		t.Errorf("%d bytes of text, %d of structured content; want each under 64 KiB", len(text), len(structured))
	}
	var m MeasureResult
	if err := json.Unmarshal(structured, &m); err != nil {
		t.Fatal(err)
	}
	if m.ToolCount != tools || len(m.Tools) != maxTools || m.MoreTools != tools-maxTools {
		t.Fatalf("toolCount %d, %d tools listed, moreTools %d; want %d, %d, %d", m.ToolCount, len(m.Tools), m.MoreTools, tools, maxTools, tools-maxTools)
	}
	if m.Tools[0].Name != fmt.Sprintf("t%d", heavyTool) {
		t.Errorf("the heaviest tool listed is %+v, want t%d", m.Tools[0], heavyTool)
	}
	sum := 0
	for i, tool := range m.Tools {
		if i > 0 && tool.Tokens > m.Tools[i-1].Tokens {
			t.Errorf("tool %d (%+v) is heavier than the one before it (%+v)", i, tool, m.Tools[i-1])
		}
		sum += tool.Tokens
	}
	if m.Tokens <= sum {
		t.Errorf("tokens %d: not the total of every tool (the listed ones alone count %d)", m.Tokens, sum)
	}
	if !strings.HasPrefix(text, "many: ") || !strings.Contains(text, " tokens in 10,000 tools") || !strings.Contains(text, "\n  ... 9990 more") {
		t.Errorf("text: %.500s", text)
	}
}
