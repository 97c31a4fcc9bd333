package transcript_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// The files under testdata/gemini are shaped as Gemini CLI writes them
// (google-gemini/gemini-cli, packages/core/src/services/
// chatRecordingService.ts: ConversationRecord, MessageRecord,
// ToolCallRecord, TokensSummary; MCP tools' displayName from
// packages/core/src/tools/mcp-tool.ts): a session-*.json document, a
// session-*.jsonl file with a message written twice, a broken line, a
// metadata update and counts out of range, a sub-agent's chats/<session>/
// file with snake_case token keys, and a logs.json that holds no usage.

var geminiFileTime = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// TestGeminiGolden reads the fixture tree as the store does (discovery,
// then each file whole) and compares the records with
// testdata/gemini.golden.json.
func TestGeminiGolden(t *testing.T) {
	files, err := transcript.DiscoverGemini([]string{filepath.Join("testdata", "gemini")})
	if err != nil {
		t.Fatal(err)
	}
	type out struct {
		File   string               `json:"file"`
		Line   int                  `json:"line"`
		Record *transcript.Record   `json:"record,omitempty"`
		More   []*transcript.Record `json:"more,omitempty"`
		Texts  []string             `json:"texts,omitempty"`
		Args   []string             `json:"args,omitempty"`
		Error  string               `json:"error,omitempty"`
	}
	var got []out
	wd, _ := os.Getwd()
	for _, f := range files {
		if f.Source != transcript.Gemini {
			t.Errorf("%s: source %q", f.Path, f.Source)
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(wd, f.Path)
		for _, it := range transcript.ReadGemini(data, f.Path, f.SessionID, geminiFileTime) {
			o := out{File: filepath.ToSlash(rel), Line: it.Line, Record: it.Rec, More: it.More}
			if it.Err != nil {
				if it.Rec != nil {
					t.Errorf("%s:%d: a record and an error", rel, it.Line)
				}
				o.Error = it.Err.Error()
			} else {
				for _, r := range it.Rec.Results {
					o.Texts = append(o.Texts, r.Texts...)
				}
				for _, m := range it.More {
					if !m.Time.After(it.Rec.Time) || m.Request != nil || len(m.Results) != 1 {
						t.Errorf("%s:%d: a result's record %+v", rel, it.Line, m)
					}
					o.Texts = append(o.Texts, m.Results[0].Texts...)
				}
				for _, c := range it.Rec.Calls {
					o.Args = append(o.Args, string(c.Args))
				}
			}
			got = append(got, o)
		}
	}
	if len(files) != 3 {
		t.Errorf("%d files found, want the 3 chats (not logs.json)", len(files))
	}
	b, _ := json.MarshalIndent(got, "", "  ")
	b = append(b, '\n')
	golden := filepath.Join("testdata", "gemini.golden.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("records differ from %s (run with -update to see):\n%s", golden, b)
	}
}

// TestGeminiTokens checks the counting rules, each against what ccusage
// 20.0.24 reports for the same message (measured with its binary).
func TestGeminiTokens(t *testing.T) {
	for _, tc := range []struct {
		name, tokens string
		want         transcript.Usage
		none         bool
	}{
		// total = input + output + thoughts + tool: input includes cached.
		{"inclusive", `{"input":1000,"output":200,"cached":300,"thoughts":50,"tool":10,"total":1260}`,
			transcript.Usage{Input: 710, Output: 250, Reasoning: 50, CacheRead: 300}, false},
		// any other total: input is uncached; what total holds beyond the
		// parts is reasoning.
		{"exclusive", `{"input":1000,"output":200,"cached":300,"thoughts":50,"tool":0,"total":99999}`,
			transcript.Usage{Input: 1000, Output: 98699, Reasoning: 98499, CacheRead: 300}, false},
		{"short total", `{"input":100,"output":20,"tool":7,"total":1}`,
			transcript.Usage{Input: 107, Output: 20}, false},
		{"total only", `{"total":654}`, transcript.Usage{Output: 654}, false},
		{"aliases", `{"prompt_tokens":3000,"candidates_tokens":150,"cached_tokens":1024,"thoughts_tokens":40}`,
			transcript.Usage{Input: 3000, Output: 190, Reasoning: 40, CacheRead: 1024}, false},
		{"floats truncated", `{"input":10.9,"output":2.5}`, transcript.Usage{Input: 10, Output: 2}, false},
		{"strings ignored", `{"input":"10","output":3}`, transcript.Usage{Output: 3}, false},
		{"zero", `{"input":0,"output":0,"total":0}`, transcript.Usage{}, true},
		{"not an object", `[1,2]`, transcript.Usage{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &transcript.GeminiParser{SessionID: "s", FileTime: geminiFileTime}
			rec, err := p.ParseLine([]byte(`{"id":"m","type":"gemini","model":"gemini-2.5-pro","timestamp":"2026-11-30T10:00:00Z","tokens":` + tc.tokens + `}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.none {
				if rec != nil {
					t.Errorf("a record: %+v", rec.Request)
				}
				return
			}
			if rec == nil || rec.Request == nil {
				t.Fatal("no request")
			}
			if rec.Request.Usage != tc.want {
				t.Errorf("usage %+v, want %+v", rec.Request.Usage, tc.want)
			}
		})
	}
}

func TestGeminiOutOfRange(t *testing.T) {
	for _, tokens := range []string{`{"input":9007199254740992}`, `{"output":1e30}`, `{"total":1e400}`} {
		p := &transcript.GeminiParser{SessionID: "s"}
		rec, err := p.ParseLine([]byte(`{"type":"gemini","model":"m","timestamp":"2026-11-30T10:00:00Z","tokens":` + tokens + `}`))
		if err == nil || rec != nil {
			t.Errorf("%s: no error (%v)", tokens, rec)
		}
		if err != nil && strings.Contains(err.Error(), "9007199254740992") {
			t.Errorf("the error repeats a value: %v", err)
		}
	}
}

// TestGeminiReplaced: in a JSONL file a message written again replaces
// the first copy, in its place; in a JSON file both count.
func TestGeminiReplaced(t *testing.T) {
	m1 := `{"id":"x","type":"gemini","model":"gemini-2.5-flash","timestamp":"2026-11-30T10:00:00Z","tokens":{"input":10,"output":1}}`
	m2 := `{"id":"x","type":"gemini","model":"gemini-2.5-flash","timestamp":"2026-11-30T10:00:09Z","tokens":{"input":10,"output":5}}`
	other := `{"id":"y","type":"gemini","timestamp":"2026-11-30T10:00:05Z","tokens":{"input":3,"output":3}}`
	jsonl := strings.Join([]string{`{"sessionId":"s1"}`, m1, other, m2}, "\n")
	items := transcript.ReadGemini([]byte(jsonl), "c.jsonl", "c", geminiFileTime)
	if len(items) != 2 || items[0].Rec.Request.Usage.Output != 5 || items[0].Line != 4 || items[1].Rec.Request.Model != "gemini-2.5-flash" {
		t.Errorf("JSONL: %+v", items)
	}
	for _, it := range items {
		if it.Rec.SessionID != "s1" || it.Rec.MessageID != "" {
			t.Errorf("session %q, message id %q", it.Rec.SessionID, it.Rec.MessageID)
		}
	}
	doc := `{"sessionId":"s2","startTime":"2026-11-30T09:00:00Z","messages":[` + m1 + `,` + m2 + `,` + strings.Replace(other, `"timestamp":"2026-11-30T10:00:05Z",`, "", 1) + `]}`
	items = transcript.ReadGemini([]byte(doc), "c.json", "c", geminiFileTime)
	// The third message has no model: a JSON file names none but its
	// messages', so it counts nothing.
	if len(items) != 2 || items[0].Rec.Request.Usage.Output != 1 || items[1].Rec.Request.Usage.Output != 5 {
		t.Errorf("JSON: %+v", items)
	}
}

// TestGeminiDocumentErrors: a broken document is one error that names
// its line; a list (logs.json) or anything else holds nothing.
func TestGeminiDocumentErrors(t *testing.T) {
	items := transcript.ReadGemini([]byte("{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\"type\": \"gemini\",,}\n  ]\n}\n"), "a.json", "a", geminiFileTime)
	if len(items) != 1 || items[0].Err == nil || items[0].Line != 4 {
		t.Errorf("%+v", items)
	}
	for _, doc := range []string{`[{"type":"gemini"}]`, ``, `"text"`, `null`, `{}`, `{"messages":{"a":1}}`, `{"messages":[1,"x",null,[]]}`} {
		if items := transcript.ReadGemini([]byte(doc), "a.json", "a", geminiFileTime); len(items) != 0 {
			t.Errorf("%s: %+v", doc, items)
		}
	}
}

func TestGeminiToolName(t *testing.T) {
	for _, tc := range []struct {
		name, display string
		want          transcript.Tool
	}{
		{"search_issues", "search_issues (github MCP Server)", transcript.Tool{Server: "github", Name: "search_issues"}},
		{"linear__search_issues", "search_issues (linear MCP Server)", transcript.Tool{Server: "linear", Name: "search_issues"}},
		{"q", "q (my (odd) server MCP Server)", transcript.Tool{Server: "odd) server", Name: "q"}},
		{"linear__search", "", transcript.Tool{Server: "linear", Name: "search"}},
		{"mcp__github__get_me", "", transcript.Tool{Server: "github", Name: "get_me"}},
		{"read_file", "ReadFile", transcript.Tool{Name: "read_file", BuiltIn: true}},
		{"run_shell_command", "Shell", transcript.Tool{Name: "run_shell_command", BuiltIn: true}},
		{"__x", "", transcript.Tool{Name: "__x", BuiltIn: true}},
	} {
		if got := transcript.GeminiToolName(tc.name, tc.display); got != tc.want {
			t.Errorf("%q %q: %+v, want %+v", tc.name, tc.display, got, tc.want)
		}
	}
}

// FuzzGeminiLine: no line panics, and no line gives both a record and
// an error.
func FuzzGeminiLine(f *testing.F) {
	seed(f, "testdata/gemini/tmp/4d7e21aa03/chats/session-2026-11-29T14-03-7b9d4c2e.jsonl")
	for _, s := range boundaryInputs() {
		f.Add([]byte(`{"id":"g","type":"gemini","model":"gemini-2.5-pro","timestamp":"2026-11-30T10:00:00Z","tokens":{"input":5,"output":1},` +
			`"toolCalls":[{"id":"c1","name":"t","args":` + string(s) + `,"result":` + string(s) + `,"status":"success"}]}`))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &transcript.GeminiParser{SessionID: "s"}
		rec, err := p.ParseLine(line)
		if err != nil && rec != nil {
			t.Fatal("a record and an error")
		}
		if rec != nil && rec.Request != nil {
			if u := rec.Request.Usage; u.Input < 0 || u.Output < u.Reasoning || u.Total() < 0 {
				t.Fatalf("usage %+v", u)
			}
		}
	})
}

// FuzzGeminiDocument: no document panics; items are in file order.
func FuzzGeminiDocument(f *testing.F) {
	for _, p := range []string{"testdata/gemini/tmp/9f1c0e5a2b/chats/session-2026-11-28T09-12-3f2a1c9e.json",
		"testdata/gemini/tmp/4d7e21aa03/chats/session-2026-11-29T14-03-7b9d4c2e.jsonl"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, strings.HasSuffix(p, ".jsonl"))
	}
	// Large and deep: many messages, and a result nested far down.
	var big bytes.Buffer
	big.WriteString(`{"sessionId":"big","messages":[`)
	for i := range 2000 {
		if i > 0 {
			big.WriteByte(',')
		}
		big.WriteString(`{"type":"gemini","model":"gemini-2.5-flash","timestamp":"2026-11-30T10:00:00Z","tokens":{"input":7,"output":2}}`)
	}
	big.WriteString(`]}`)
	f.Add(big.Bytes(), false)
	deep := strings.Repeat(`[`, 5000) + `{"text":"x"}` + strings.Repeat(`]`, 5000)
	f.Add([]byte(`{"messages":[{"type":"gemini","model":"m","tokens":{"input":1},"toolCalls":[{"id":"c","name":"n","result":`+deep+`}]}]}`), false)
	// Responses within responses, keys in other cases and written twice.
	f.Add([]byte(`{"messages":[{"type":"gemini","model":"m","tokens":{"input":1},"toolCalls":[{"id":"c","name":"n","result":[{"functionResponse":{"RESPONSE":{"output":[{"functionResponse":{"response":{"error":{"text":"e"},"content":[{"type":"text","text":"t"}]}}}]},"response":{"output":"last"}}},{"te\u0078t":"q","text":"r"},{"functionResponse":null},{"functionResponse":"s"}]}]}]}`), false)
	for _, s := range boundaryInputs() {
		f.Add([]byte(`{"messages":[{"type":"gemini","model":"m","tokens":`+string(s)+`,"toolCalls":[{"id":"c","name":"n","args":`+string(s)+`,"result":`+string(s)+`}]}]}`), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) {
		name := "f.json"
		if jsonl {
			name = "f.jsonl"
		}
		last := 0
		for _, it := range transcript.ReadGemini(data, name, "f", geminiFileTime) {
			if (it.Err == nil) == (it.Rec == nil) {
				t.Fatal("an item needs a record or an error, not both")
			}
			if it.Line < 1 || (!jsonl && it.Line < last) {
				t.Fatalf("line %d after %d", it.Line, last)
			}
			last = it.Line
		}
	})
}

// TestGeminiCopies: in a JSONL file the last copy of a message counts,
// in the first one's place, read with the session and model named
// before it (however far from the first); a copy that has no request, or
// is an error, is an item of its own.
func TestGeminiCopies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		jsonl string
		want  string
	}{
		{"far apart", `{"sessionId":"s1"}
{"id":"x","type":"gemini","model":"m1","tokens":{"input":1,"output":1}}
{"id":"y","type":"gemini","tokens":{"input":2,"output":2}}
{"sessionId":"s2","model":"m2"}
{"id":"x","type":"gemini","tokens":{"input":1,"output":9}}
{"id":"y","type":"gemini","model":"m3","tokens":{"input":2,"output":7}}
{"id":"z","type":"gemini","tokens":{"input":3,"output":3}}`,
			"5:s2/m2/9 6:s2/m3/7 7:s2/m3/3"},
		{"three copies", `{"id":"x","type":"gemini","model":"m","tokens":{"input":1,"output":1}}
{"id":"x","type":"gemini","model":"m","tokens":{"input":1,"output":50}}

  {"id":"w","type":"gemini","model":"m","tokens":{"input":1,"output":4}}  ` + "\r" + `
{"id":"x","type":"gemini","model":"m","tokens":{"input":1,"output":5}}
`, "5:f/m/5 4:f/m/4"},
		{"not copies", `{"id":"x","type":"gemini","tokens":{"input":1,"output":1}}
{"id":"x","type":"gemini","model":"m","tokens":{"input":1,"output":2}}
{"id":"x","type":"gemini","toolCalls":[{"id":"c","name":"n"}]}
{"id":"x","type":"gemini","timestamp":"1999-01-01T00:00:00Z","model":"m","tokens":{"input":1,"output":3}}
{"id":"x","type":"gemini","model":"m","tokens":{"input":1e400}}
not json
{"id":"x","type":"gemini","model":"m","tokens":{"input":1,"output":6}}`,
			"7:f/m/6 3:f/m/calls 4:err 5:err 6:err"},
	} {
		var got []string
		for _, it := range transcript.ReadGemini([]byte(tc.jsonl), "f.jsonl", "f", geminiFileTime) {
			s := fmt.Sprint(it.Line, ":")
			switch {
			case it.Err != nil:
				s += "err"
			case it.Rec.Request == nil:
				s += fmt.Sprintf("%s/m/calls", it.Rec.SessionID)
			default:
				s += fmt.Sprintf("%s/%s/%d", it.Rec.SessionID, it.Rec.Request.Model, it.Rec.Request.Usage.Output)
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, g, tc.want)
		}
	}
}

// TestGeminiHeldBytes bounds what reading a large chat file holds while
// its items are passed on: a JSONL file is read as it goes, holding
// neither its bytes nor its items (an ingest sets a soft heap limit of
// 64 MB, under which a heap that grows with the file made the collector
// run over all of it, again and again: 133 s for 100 MB of small
// messages); a JSON document holds its bytes, not its items.
func TestGeminiHeldBytes(t *testing.T) {
	const n = 50000
	var jsonl, doc bytes.Buffer
	jsonl.WriteString(`{"sessionId":"big"}` + "\n")
	doc.WriteString(`{"sessionId":"big","messages":[`)
	for i := range n {
		// Every fourth message is written again two lines later, and the
		// first once more at the end.
		fmt.Fprintf(&jsonl, `{"id":"g-%d","type":"gemini","model":"gemini-2.5-flash","tokens":{"input":10,"output":%d}}`+"\n", i, i%7)
		if i%4 == 2 {
			fmt.Fprintf(&jsonl, `{"id":"g-%d","type":"gemini","model":"gemini-2.5-flash","tokens":{"input":10,"output":%d}}`+"\n", i-2, 100+i)
		}
		if i > 0 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, "\n"+`{"id":"g-%d","type":"gemini","model":"m","tokens":{"input":1}}`, i)
	}
	jsonl.WriteString(`{"id":"g-0","type":"gemini","model":"gemini-2.5-flash","tokens":{"input":10,"output":9999}}` + "\n")
	doc.WriteString("\n]}\n")
	for _, tc := range []struct {
		name  string
		data  []byte
		items int
		held  int // at most this many times the file's size
	}{
		{"c.jsonl", jsonl.Bytes(), n, 0},
		{"c.json", doc.Bytes(), n, 3},
	} {
		path := filepath.Join(t.TempDir(), tc.name)
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		size := int64(len(tc.data))
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base, peak := ms.HeapAlloc, uint64(0)
		items := 0
		err = transcript.ScanGemini(f, size, path, "c", geminiFileTime, func(it transcript.Item) error {
			if it.Err != nil || it.Rec == nil {
				return fmt.Errorf("line %d: %v", it.Line, it.Err)
			}
			if items++; items%(n/8) == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc-min(ms.HeapAlloc, base))
			}
			return nil
		})
		f.Close()
		if err != nil || items != tc.items {
			t.Fatalf("%s: %d items, %v", tc.name, items, err)
		}
		// A JSONL file's reader holds its buffer and the places of its
		// messages' copies: a few bytes a line (its message ids' hashes
		// too, while it looks for the copies).
		limit := uint64(tc.held)*uint64(size) + uint64(size)/2
		if peak > limit {
			t.Errorf("%s: %d KB held while reading %d KB, want at most %d KB", tc.name, peak>>10, size>>10, limit>>10)
		}
	}
}
