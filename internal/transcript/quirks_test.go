package transcript_test

import (
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// Lines shaped like Claude Code's own (2.0.x), and like what third-party
// writers and gateways leave in the same files.
const (
	typeless = `{"parentUuid":"a1","isSidechain":false,"userType":"external","cwd":"/home/u/p","sessionId":"s-old","version":"2.0.77",` +
		`"message":{"id":"msg_t1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_t","name":"Read","input":{"file_path":"/a"}}],` +
		`"usage":{"input_tokens":12,"cache_creation_input_tokens":200,"cache_read_input_tokens":1000,"output_tokens":28}},"requestId":"req_t1","uuid":"a2","timestamp":"2026-10-01T10:00:00.000Z"}`
	userWithUsage = `{"parentUuid":"a2","isSidechain":false,"cwd":"/home/u/p","sessionId":"s-old","version":"2.0.77","type":"user",` +
		`"message":{"id":"msg_u1","role":"assistant","model":"claude-sonnet-4-5-20250929","content":"ok","usage":{"input_tokens":5,"output_tokens":7}},"uuid":"u9","timestamp":"2026-10-01T10:00:01.000Z"}`
	apiError = `{"parentUuid":"a2","isSidechain":false,"userType":"external","cwd":"/home/u/p","sessionId":"s-old","version":"2.0.77","type":"assistant",` +
		`"uuid":"e1","timestamp":"2026-10-01T10:00:02.000Z","message":{"id":"7a1c0a52-1f7e-4f4e-9d59-4b9ad5c0f1aa","container":null,"model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","stop_sequence":"","type":"message",` +
		`"usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"server_tool_use":{"web_search_requests":0},"service_tier":null,"cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}},` +
		`"content":[{"type":"text","text":"API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}]},"isApiErrorMessage":true}`
	limitReached = `{"parentUuid":"a2","isSidechain":false,"cwd":"/home/u/p","sessionId":"s-old","version":"2.0.77","type":"assistant","uuid":"e2","timestamp":"2026-10-01T10:00:03.000Z",` +
		`"message":{"id":"b9f1","model":"<synthetic>","role":"assistant","type":"message","usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},` +
		`"content":[{"type":"text","text":"Claude AI usage limit reached|1759334400"}]},"isApiErrorMessage":true}`
	// A gateway that answers in ccusage's fixture shape: no request id.
	gateway = `{"cwd":"/home/u/p","sessionId":"s-gw","version":"2.1.1","type":"assistant","message":{"id":"msg_000001","model":"claude-sonnet-4-5","role":"assistant",` +
		`"content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":100,"output_tokens":20}},"uuid":"g1","timestamp":"2026-10-02T09:00:00.000Z"}`
)

func TestClaudeLinesAsCcusageCounts(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		request  bool
		total    int64
		calls    int
		session  string // the line's own sessionId
		noRecord bool
		// limitReset is the reset a usage-limit placeholder names, in Unix
		// milliseconds: its record carries that alone.
		limitReset int64
	}{
		{name: "no type", line: typeless, request: true, total: 1240, calls: 1, session: "s-old"},
		{name: "user line with usage", line: userWithUsage, request: true, total: 12, session: "s-old"},
		{name: "API error placeholder", line: apiError, noRecord: true},
		{name: "usage limit placeholder", line: limitReached, limitReset: 1759334400000},
		{name: "gateway", line: gateway, request: true, total: 120, session: "s-gw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &transcript.ClaudeParser{SessionID: "from-path"}
			rec, err := p.ParseLine([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if tt.noRecord {
				if rec != nil {
					t.Fatalf("record %+v, want none", rec)
				}
				return
			}
			if tt.limitReset != 0 {
				if rec == nil || rec.Request != nil || rec.LimitReset != tt.limitReset || rec.Calls != nil || rec.Results != nil {
					t.Fatalf("record %+v, want a usage limit resetting at %d alone", rec, tt.limitReset)
				}
				return
			}
			if rec == nil || (rec.Request != nil) != tt.request {
				t.Fatalf("record %+v, want a request: %v", rec, tt.request)
			}
			if q := rec.Request; q.Usage.Total() != tt.total || q.Session != tt.session || rec.SessionID != "from-path" {
				t.Errorf("total %d, line session %q, session %q; want %d, %q, from-path", q.Usage.Total(), q.Session, rec.SessionID, tt.total, tt.session)
			}
			if len(rec.Calls) != tt.calls {
				t.Errorf("%d calls, want %d", len(rec.Calls), tt.calls)
			}
		})
	}
	// A placeholder that did carry tokens is counted, as ccusage counts
	// every line with usage.
	p := &transcript.ClaudeParser{}
	rec, err := p.ParseLine([]byte(`{"sessionId":"s","type":"assistant","isApiErrorMessage":true,"timestamp":"2026-10-01T10:00:00Z","message":{"id":"x","model":"<synthetic>","usage":{"input_tokens":3,"output_tokens":4}}}`))
	if err != nil || rec == nil || rec.Request == nil || rec.Request.Usage.Total() != 7 {
		t.Errorf("a placeholder with tokens: %+v, %v", rec, err)
	}
}

// Codex shell output as each version writes it.
func TestCodexShellOutcome(t *testing.T) {
	tests := []struct {
		name     string
		output   string
		isError  bool
		duration int64 // -1: none recorded
	}{
		{"0.47 ok", `"{\"output\":\"README.md\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.2}}"`, false, 200},
		{"0.47 failed", `"{\"output\":\"ls: cannot access 'x': No such file or directory\\n\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":68.4312}}"`, true, 68431},
		{"0.47 object", `{"output":"boom","metadata":{"exit_code":1,"duration_seconds":1.5}}`, true, 1500},
		{"0.63 ok", `"Exit code: 0\nWall time: 3.2 seconds\nOutput:\nok\n"`, false, 3200},
		{"0.63 failed", `"Exit code: 1\nWall time: 0.0512 seconds\nTotal output lines: 1\nOutput:\nFAIL\tgithub.com/x/y\n"`, true, 51},
		{"0.128 exec_command failed", `"Chunk ID: 4f2a\nWall time: 12.0004 seconds\nProcess exited with code 101\nOriginal token count: 8\nOutput:\nerror[E0308]: mismatched types\n"`, true, 12000},
		{"output that quotes an exit code", `"Exit code: 0\nWall time: 1 seconds\nOutput:\nExit code: 1\n"`, false, 1000},
		{"plain text", `"Success. Updated the following files:\nM main.go\n"`, false, -1},
		{"MCP error", `{"content":[{"type":"text","text":"not found"}],"isError":true}`, true, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &transcript.CodexParser{State: transcript.CodexState{SessionID: "s"}}
			rec, err := p.ParseLine([]byte(`{"timestamp":"2025-10-20T06:47:00.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":` + tt.output + `}}`))
			if err != nil || rec == nil || len(rec.Results) != 1 {
				t.Fatalf("%+v, %v", rec, err)
			}
			r := rec.Results[0]
			d := int64(-1)
			if r.DurationMs != nil {
				d = *r.DurationMs
			}
			if r.IsError != tt.isError || d != tt.duration {
				t.Errorf("error %v, duration %d ms; want %v, %d", r.IsError, d, tt.isError, tt.duration)
			}
		})
	}
}

// TestClaudeLinesCcusageDrops: lines whose usage ccusage does not count
// (an empty or null id, a version that is not 1.2.3, a null member it
// reads) are no request; their tool calls still count.
func TestClaudeLinesCcusageDrops(t *testing.T) {
	line := func(ids, usage string) string {
		return `{"cwd":"/home/u/p","sessionId":"s","version":"2.0.77","type":"assistant",` + ids +
			`"message":{"id":"msg_d","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"tool_use","id":"toolu_d","name":"Bash","input":{"command":"ls"}}],` +
			`"usage":{"input_tokens":100,"output_tokens":20` + usage + `}},"uuid":"d1","timestamp":"2026-10-01T10:00:00.000Z"}`
	}
	tests := []struct {
		name    string
		line    string
		counted bool
	}{
		{"both ids", line(`"requestId":"req_d",`, ""), true},
		{"no request id", line("", ""), true},
		{"empty request id", line(`"requestId":"",`, ""), false},
		{"null request id", line(`"requestId":null,`, ""), false},
		{"empty message id", strings.Replace(line("", ""), `"id":"msg_d"`, `"id":""`, 1), false},
		{"null message id", strings.Replace(line("", ""), `"id":"msg_d"`, `"id":null`, 1), false},
		{"empty model", strings.Replace(line("", ""), `"model":"claude-sonnet-4-5"`, `"model":""`, 1), false},
		{"version not semver", strings.Replace(line("", ""), `"version":"2.0.77"`, `"version":"dev"`, 1), false},
		{"null cwd", strings.Replace(line("", ""), `"cwd":"/home/u/p"`, `"cwd":null`, 1), false},
		{"null speed", line("", `,"speed":null`), false},
		{"null cache reads", line("", `,"cache_read_input_tokens":null`), false},
		{"null stop reason", line("", `,"stop_reason":null`), true},
		{"null quoted in a string", strings.Replace(line("", ""), `"command":"ls"`, `"command":"echo '{\"id\":null}'"`, 1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &transcript.ClaudeParser{}
			rec, err := p.ParseLine([]byte(tt.line))
			if err != nil || rec == nil {
				t.Fatalf("%+v, %v", rec, err)
			}
			if (rec.Request != nil) != tt.counted || len(rec.Calls) != 1 {
				t.Errorf("request %+v, %d calls; want counted %v and the call", rec.Request, len(rec.Calls), tt.counted)
			}
		})
	}
}

// TestUsageSkippedReported: a line whose usage is not counted says so,
// alone or with the tool calls it carries.
func TestUsageSkippedReported(t *testing.T) {
	p := &transcript.ClaudeParser{}
	alone := `{"sessionId":"s","version":"2.0.77","type":"assistant","requestId":null,"timestamp":"2026-10-01T10:00:00.000Z","message":{"id":"m","model":"claude-sonnet-4-5","content":"x","usage":{"input_tokens":9,"output_tokens":1}}}`
	rec, err := p.ParseLine([]byte(alone))
	if err != nil || rec == nil || !rec.UsageSkipped || rec.Request != nil || rec.SessionID != "" {
		t.Errorf("alone: %+v, %v", rec, err)
	}
	with := strings.Replace(alone, `"content":"x"`, `"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]`, 1)
	rec, err = p.ParseLine([]byte(with))
	if err != nil || rec == nil || !rec.UsageSkipped || rec.Request != nil || len(rec.Calls) != 1 || rec.SessionID != "s" {
		t.Errorf("with a call: %+v, %v", rec, err)
	}
	rec, err = p.ParseLine([]byte(strings.Replace(alone, `"requestId":null`, `"requestId":"r"`, 1)))
	if err != nil || rec == nil || rec.UsageSkipped || rec.Request == nil {
		t.Errorf("counted: %+v, %v", rec, err)
	}
}

// TestClaudeCountForms: a token count is a JSON number that is an exact
// non-negative integer, in whatever form it is written (1e3, 1000.0,
// 1.0E3 are 1000, as ccusage reads them); a fraction, a negative count,
// and one past MaxTokens (2^53-1) are refused, on each side of each
// limit, through the direct reading and through encoding/json alike (a
// repeated key takes the second).
func TestClaudeCountForms(t *testing.T) {
	const notInt, over = "is a number, want an integer", "a token count is negative or over 2^53-1"
	for _, c := range []struct {
		count string
		want  int64
		err   string
	}{
		{"1000", 1000, ""},
		{"1e3", 1000, ""},
		{"1E3", 1000, ""},
		{"1e+3", 1000, ""},
		{"1000.0", 1000, ""},
		{"1.0E3", 1000, ""},
		{"10000e-1", 1000, ""},
		{"0.1e4", 1000, ""},
		{"0", 0, ""},
		{"-0", 0, ""},
		{"0.0", 0, ""},
		{"0e-400", 0, ""},
		{"-0.0e9", 0, ""},
		{"1e0", 1, ""},
		{"1.5", 0, notInt},
		{"1.5e0", 0, notInt},
		{"15e-1", 0, notInt},
		{"1e-1", 0, notInt},
		{"999.999e0", 0, notInt},
		{"1.0000000000000000000001e3", 0, notInt},
		{"1e-99999999999999999999", 0, notInt},
		{"-1", 0, over},
		{"-1e3", 0, over},
		{"-1.0", 0, over},
		{"9007199254740991", 1<<53 - 1, ""},
		{"9007199254740991.0", 1<<53 - 1, ""},
		{"9.007199254740991e15", 1<<53 - 1, ""},
		{"9007199254740992", 0, over},
		{"9.007199254740992e15", 0, over},
		{"9007199254740992.0", 0, over},
		{"1e16", 0, over},
		{"1e400", 0, over},
		{"1e99999999999999999999", 0, over},
		{"99999999999999999999", 0, over},
		{"01", 0, "invalid JSON"},
		{"1.", 0, "invalid JSON"},
		{".5", 0, "invalid JSON"},
		{"1e", 0, "invalid JSON"},
		{"+1", 0, "invalid JSON"},
		{`"1000"`, 0, "is a string, want an integer"},
	} {
		for _, form := range []struct{ name, usage string }{
			{"direct", `"input_tokens":` + c.count + `,"output_tokens":1`},
			{"encoding/json", `"input_tokens":7,"input_tokens":` + c.count + `,"output_tokens":1`},
			{"cache_creation", `"input_tokens":0,"output_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":` + c.count + `}`},
		} {
			t.Run(c.count+"/"+form.name, func(t *testing.T) {
				line := `{"sessionId":"s","version":"2.0.77","type":"assistant","requestId":"r","timestamp":"2026-10-01T10:00:00.000Z","message":{"id":"m","model":"claude-sonnet-4-5","content":"x","usage":{` + form.usage + `}}}`
				rec, err := (&transcript.ClaudeParser{}).ParseLine([]byte(line))
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) {
						t.Fatalf("%+v, %v; want an error saying %q", rec, err, c.err)
					}
					return
				}
				if err != nil || rec == nil || rec.Request == nil {
					t.Fatalf("%+v, %v; want a request", rec, err)
				}
				got := rec.Request.Usage.Input
				if form.name == "cache_creation" {
					got = rec.Request.Usage.CacheWrite5m
				}
				if got != c.want {
					t.Errorf("count %d, want %d", got, c.want)
				}
			})
		}
	}
}
