package transcripttest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CopilotCall is a tool call GenerateCopilot wrote.
type CopilotCall struct {
	Session, ID, Name, Server, Tool string
	IsError                         bool
	Result                          string // what the model was shown
}

// CopilotManifest is what GenerateCopilot wrote: the sessions' ids and
// their tool calls (tokens are left to ccusage to total).
type CopilotManifest struct {
	Sessions []string
	Calls    []CopilotCall
}

// copilotModels are model names as GitHub Copilot CLI writes them.
var copilotModels = []string{"claude-sonnet-4.5", "claude-opus-4.5", "claude-haiku-4.5", "gpt-5", "gpt-5-mini", "gpt-4.1"}

// GenerateCopilot writes n GitHub Copilot CLI sessions under home
// (.copilot/session-state/<id>/events.jsonl), deterministically from
// seed, starting within days days of start.
//
// The events are shaped as Copilot CLI 0.0.3xx-0.0.4xx writes them (the
// Copilot SDK's persisted session events: an envelope {type, data, id,
// timestamp, parentId}; session.start with its context, user and assistant
// messages, tool.execution_start with mcpServerName and mcpToolName for MCP
// tools, tool.execution_complete with result.content or error.message,
// compactions, and session.shutdown with modelMetrics per model). A
// session may be resumed (a session.resume and a second shutdown whose
// figures include the first's), repeat its shutdown, switch models, write
// a corrupt line, a shutdown without a timestamp, and a final line cut
// short.
func GenerateCopilot(home string, seed uint64, n, days int, start time.Time) (*CopilotManifest, error) {
	r := rand.New(rand.NewPCG(seed, seed^0xc0b1107))
	m := &CopilotManifest{}
	root := filepath.Join(home, ".copilot", "session-state")
	for i := range n {
		id := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
		m.Sessions = append(m.Sessions, id)
		dir := filepath.Join(root, id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		at := start.Add(time.Duration(r.IntN(days*24*60)) * time.Minute)
		var lines []string
		seq := 0
		ev := func(typ string, data any) {
			seq++
			b, _ := json.Marshal(map[string]any{"type": typ, "data": data, "id": fmt.Sprintf("%s-e%d", id[:8], seq),
				"timestamp": ts(at), "parentId": nil})
			lines = append(lines, string(b))
			at = at.Add(time.Duration(1+r.IntN(90)) * time.Second)
		}
		ev("session.start", map[string]any{"sessionId": id, "version": 1, "producer": "copilot-agent", "copilotVersion": "0.0.407",
			"startTime": ts(at), "context": map[string]any{"cwd": fmt.Sprintf("/home/dev/proj%d", i%3), "branch": "main"}})
		metrics := map[string]map[string]int64{}
		model := copilotModels[r.IntN(len(copilotModels))]
		runs := 1 + r.IntN(2) // a second run is a resumed session
		for run := range runs {
			if run > 0 {
				at = at.Add(time.Duration(1+r.IntN(40)) * time.Hour)
				ev("session.resume", map[string]any{"resumeTime": ts(at), "eventCount": seq})
			}
			turns := 1 + r.IntN(5)
			for range turns {
				if r.IntN(4) == 0 {
					model = copilotModels[r.IntN(len(copilotModels))]
					ev("session.model_change", map[string]any{"newModel": model})
				}
				ev("user.message", map[string]any{"content": "fix the failing test", "attachments": []any{}})
				ev("assistant.turn_start", map[string]any{"turnId": fmt.Sprint(seq)})
				mm := metrics[model]
				if mm == nil {
					mm = map[string]int64{}
					metrics[model] = mm
				}
				for range 1 + r.IntN(3) {
					in := int64(2000 + r.IntN(60000))
					read := in * int64(r.IntN(90)) / 100
					write := int64(0)
					if strings.HasPrefix(model, "claude-") {
						write = int64(r.IntN(4000))
					}
					mm["in"] += in + read + write
					mm["read"] += read
					mm["write"] += write
					mm["out"] += int64(50 + r.IntN(3000))
					mm["count"]++
					call := CopilotCall{Session: id, ID: fmt.Sprintf("toolu_vrtx_%s%d", id[:6], seq)}
					switch r.IntN(3) {
					case 0:
						call.Name, call.Tool = "bash", "bash"
					case 1:
						call.Server, call.Tool = "github-mcp-server", []string{"list_issues", "get_file_contents", "search_code"}[r.IntN(3)]
						call.Name = call.Server + "-" + call.Tool
					default:
						call.Server, call.Tool = "playwright", "browser_snapshot"
						call.Name = call.Server + "-" + call.Tool
					}
					args := map[string]any{"command": "go test ./...", "n": r.IntN(100)}
					ev("assistant.message", map[string]any{"messageId": fmt.Sprintf("m%d", seq), "content": "",
						"toolRequests": []any{map[string]any{"toolCallId": call.ID, "name": call.Name, "arguments": args, "type": "function"}}})
					start := map[string]any{"toolCallId": call.ID, "toolName": call.Name, "arguments": args}
					if call.Server != "" {
						start["mcpServerName"], start["mcpToolName"] = call.Server, call.Tool
					}
					ev("tool.execution_start", start)
					call.Result = strings.Repeat("result line for the model\n", 1+r.IntN(40))
					if r.IntN(6) == 0 {
						call.IsError, call.Result = true, "MCP error -32603: rate limited"
						ev("tool.execution_complete", map[string]any{"toolCallId": call.ID, "success": false,
							"error": map[string]any{"message": call.Result, "code": "failure"}})
					} else {
						ev("tool.execution_complete", map[string]any{"toolCallId": call.ID, "success": true,
							"result": map[string]any{"content": call.Result, "detailedContent": call.Result + "\n(detail)"}, "toolTelemetry": map[string]any{}})
					}
					m.Calls = append(m.Calls, call)
				}
				ev("assistant.turn_end", map[string]any{"turnId": fmt.Sprint(seq)})
				if r.IntN(8) == 0 {
					ev("session.compaction_start", map[string]any{})
					ev("session.compaction_complete", map[string]any{"success": true})
				}
			}
			if r.IntN(10) == 0 {
				lines = append(lines, `{"type":"assistant.message","data":{"content":"cut`) // a corrupt line mid-file
			}
			shutdown := map[string]any{}
			premium := int64(0)
			for name, mm := range metrics {
				shutdown[name] = map[string]any{"requests": map[string]any{"count": mm["count"], "cost": mm["count"]},
					"usage": map[string]any{"inputTokens": mm["in"], "outputTokens": mm["out"], "cacheReadTokens": mm["read"], "cacheWriteTokens": mm["write"]}}
				premium += mm["count"]
			}
			data := map[string]any{"shutdownType": "routine", "totalPremiumRequests": premium, "totalApiDurationMs": 1000 * premium,
				"sessionStartTime": at.UnixMilli(), "codeChanges": map[string]any{"linesAdded": 3, "linesRemoved": 1, "filesModified": []string{"a.go"}},
				"modelMetrics": shutdown, "currentModel": model}
			ev("session.shutdown", data)
			if r.IntN(5) == 0 {
				ev("session.shutdown", data) // written twice
			}
		}
		if r.IntN(12) == 0 {
			lines = append(lines, `{"type":"session.shutdown","data":{"modelMetrics":{"gpt-5":{"usage":{"inputTokens":999999}}}}}`)
		}
		body := strings.Join(lines, "\n") + "\n"
		if r.IntN(10) == 0 {
			body += `{"type":"session.shutdown","timestamp":"` + ts(at) + `","data":{"modelMetr` // cut short
		}
		if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(body), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "workspace.yaml"), []byte("id: "+id+"\ncwd: /home/dev\n"), 0o644); err != nil {
			return nil, err
		}
	}
	return m, nil
}
