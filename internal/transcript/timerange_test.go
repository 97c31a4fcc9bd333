package transcript_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestTimeRange skips, in every reader, a line whose time is outside
// [2000-01-01, 2100-01-01) UTC, with an error (the caller reports the
// file and line); both sides of each bound, and offsets that cross them.
func TestTimeRange(t *testing.T) {
	times := []struct {
		ts   string
		unix int64 // the same instant, for Goose's Unix seconds; 0 for none
		ok   bool
	}{
		{"0000-01-01T00:00:00Z", 0, false},
		{"1970-01-01T00:00:00Z", 0, false},
		{"1999-12-31T23:59:59.999Z", 946684799, false},
		{"2000-01-01T00:59:59+01:00", 946684799, false},
		{"2000-01-01T00:00:00Z", 946684800, true},
		{"1999-12-31T12:00:00-12:00", 946684800, true},
		{"2026-11-01T10:00:00Z", 1793527200, true},
		{"2099-12-31T23:59:59.999Z", 4102444799, true},
		{"2100-01-01T13:59:59+14:00", 4102444799, true},
		{"2100-01-01T00:00:00Z", 4102444800, false},
		{"2099-12-31T23:00:00-01:00", 4102444800, false},
		{"9999-12-31T23:59:59Z", 0, false},
	}
	readers := []struct {
		name string
		file transcript.File
		line func(ts string) string
	}{
		{"claude", transcript.File{Source: transcript.Claude}, func(ts string) string {
			return `{"type":"assistant","sessionId":"s","timestamp":"` + ts + `","message":{"id":"m","model":"claude-sonnet-4-5","usage":{"input_tokens":1,"output_tokens":1}}}`
		}},
		{"codex", transcript.File{Source: transcript.Codex, SessionID: "s"}, func(ts string) string {
			return `{"timestamp":"` + ts + `","type":"response_item","payload":{"type":"function_call","name":"mcp__s__t","arguments":"{}","call_id":"c1"}}`
		}},
		{"copilot", transcript.File{Source: transcript.Copilot, SessionID: "s"}, func(ts string) string {
			return `{"type":"tool.execution_start","data":{"toolCallId":"t1","toolName":"gh-x","mcpServerName":"gh","mcpToolName":"x","arguments":{}},"timestamp":"` + ts + `"}`
		}},
		{"copilot shutdown", transcript.File{Source: transcript.Copilot, SessionID: "s"}, func(ts string) string {
			return `{"type":"session.shutdown","data":{"modelMetrics":{"m":{"requests":{"count":1},"usage":{"inputTokens":1,"outputTokens":1}}}},"timestamp":"` + ts + `"}`
		}},
		{"gemini", transcript.File{Source: transcript.Gemini, SessionID: "s"}, func(ts string) string {
			return `{"id":"m","type":"gemini","model":"gemini-2.5-pro","timestamp":"` + ts + `","tokens":{"input":10,"output":1}}`
		}},
	}
	for _, r := range readers {
		for _, tt := range times {
			p, err := transcript.NewParser(r.file, nil)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := p.ParseLine([]byte(r.line(tt.ts)))
			if tt.ok && (err != nil || rec == nil) {
				t.Errorf("%s %s: %+v %v; want a record", r.name, tt.ts, rec, err)
			}
			if !tt.ok && (err == nil || !strings.Contains(err.Error(), "time out of range")) {
				t.Errorf("%s %s: %+v %v; want the line refused, its time out of range", r.name, tt.ts, rec, err)
			}
		}
	}
	// opencode: milliseconds since the epoch, in a message and a part.
	for _, tt := range times {
		if tt.unix == 0 || strings.Contains(tt.ts, ".") {
			continue
		}
		ms := strconv.FormatInt(tt.unix*1000, 10)
		rec, err := transcript.ParseOpencodeMessage([]byte(`{"id":"m","sessionID":"s","role":"assistant","modelID":"x","time":{"created":`+ms+`},"tokens":{"input":1,"output":1}}`), "", "")
		call, _, perr := transcript.ParseOpencodePart([]byte(`{"sessionID":"s","type":"tool","callID":"c","tool":"t","state":{"status":"running","time":{"start":`+ms+`}}}`), "")
		if tt.ok && (err != nil || rec == nil || perr != nil || call == nil) {
			t.Errorf("opencode %s: %v %v; want records", tt.ts, err, perr)
		}
		if !tt.ok && (err == nil || perr == nil || !strings.Contains(err.Error(), "time out of range") || !strings.Contains(perr.Error(), "time out of range")) {
			t.Errorf("opencode %s: %v %v; want both refused, their time out of range", tt.ts, err, perr)
		}
	}
	goose := []struct {
		name string
		line func(ts string, unix int64) string
	}{
		{"goose message", func(ts string, unix int64) string {
			return `{"kind":"message","row":1,"session_id":"s","content_json":"[{\"type\":\"toolRequest\",\"id\":\"c1\",\"toolCall\":{\"status\":\"success\",\"value\":{\"name\":\"dev__shell\",\"arguments\":{}}}}]","created_timestamp":` + stamp(ts, unix) + `}`
		}},
		{"goose session", func(ts string, unix int64) string {
			return `{"kind":"session","row":1,"id":"s","model_config_json":"{\"model_name\":\"gpt-4o\"}","input_tokens":3,"output_tokens":2,"total_tokens":5,"created_at":` + stamp(ts, unix) + `}`
		}},
	}
	for _, g := range goose {
		for _, tt := range times {
			p, _ := transcript.NewParser(transcript.File{Source: transcript.Goose}, nil)
			rec, err := p.ParseLine([]byte(g.line(tt.ts, tt.unix)))
			if tt.ok && (err != nil || rec == nil) {
				t.Errorf("%s %s: %+v %v; want a record", g.name, tt.ts, rec, err)
			}
			if !tt.ok && (err == nil || !strings.Contains(err.Error(), "time out of range")) {
				t.Errorf("%s %s: %+v %v; want the line refused, its time out of range", g.name, tt.ts, rec, err)
			}
		}
	}
}

// stamp is a Goose time: the Unix seconds when there are some (and the
// instant is whole seconds), else the RFC 3339 text.
func stamp(ts string, unix int64) string {
	if unix != 0 && !strings.Contains(ts, ".") {
		return strconv.FormatInt(unix, 10)
	}
	return `"` + ts + `"`
}
