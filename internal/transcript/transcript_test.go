package transcript_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestParseToolName(t *testing.T) {
	tests := []struct {
		in   string
		want transcript.Tool
	}{
		{"Read", transcript.Tool{Name: "Read", BuiltIn: true}},
		{"mcp__github__search_issues", transcript.Tool{Server: "github", Name: "search_issues"}},
		{"mcp__context7__get-library-docs", transcript.Tool{Server: "context7", Name: "get-library-docs"}},
		{"mcp__my_server__do__thing", transcript.Tool{Server: "my_server", Name: "do__thing"}},
		{"mcp__plugin_acme_linear__list_issues", transcript.Tool{Server: "linear", Plugin: "acme", Name: "list_issues"}},
		{"mcp__plugin:x:y__tool", transcript.Tool{Server: "plugin:x:y", Name: "tool"}},
		{"mcp__", transcript.Tool{Name: "mcp__", BuiltIn: true}},
		{"mcp__server", transcript.Tool{Name: "mcp__server", BuiltIn: true}},
		{"mcp____tool", transcript.Tool{Name: "mcp____tool", BuiltIn: true}},
		{"shell", transcript.Tool{Name: "shell", BuiltIn: true}},
	}
	for _, tt := range tests {
		if got := transcript.ParseToolName(tt.in); got != tt.want {
			t.Errorf("ParseToolName(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestImageTokens(t *testing.T) {
	tests := []struct{ w, h, want int }{
		{750, 1, 1},
		{200, 200, 54},
		{1000, 1000, 1334},
		{1568, 1568, 1534}, // scaled to 1.15 MP
		{4000, 3000, 1534}, // scaled to the long edge, then to 1.15 MP
		{0, 0, transcript.ImageTokensUnknown},
	}
	for _, tt := range tests {
		if got := transcript.ImageTokens(tt.w, tt.h); got != tt.want {
			t.Errorf("ImageTokens(%d, %d) = %d, want %d", tt.w, tt.h, got, tt.want)
		}
	}
}

func TestScanLines(t *testing.T) {
	type line struct {
		text string
		no   int
		end  int64
		err  bool
	}
	tests := []struct {
		name  string
		in    string
		start int64
		want  []line
		off   int64
	}{
		{"empty", "", 0, nil, 0},
		{"complete", "a\nbb\n", 0, []line{{"a", 1, 2, false}, {"bb", 2, 5, false}}, 5},
		{"partial last line", "a\nbb", 0, []line{{"a", 1, 2, false}}, 2},
		{"crlf", "a\r\nb\r\n", 0, []line{{"a", 1, 3, false}, {"b", 2, 6, false}}, 6},
		{"from an offset", "xyz\n", 10, []line{{"xyz", 1, 14, false}}, 14},
		{"blank lines", "\n\n", 0, []line{{"", 1, 1, false}, {"", 2, 2, false}}, 2},
		{"a whole object without its newline", "a\n{\"x\":[1]} \r", 0, []line{{"a", 1, 2, false}, {`{"x":[1]}`, 2, 13, false}}, 13},
		{"an object cut short", "a\n{\"x\":[1]", 0, []line{{"a", 1, 2, false}}, 2},
		{"a value that is not an object", "a\n123", 0, []line{{"a", 1, 2, false}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []line
			off, n, err := transcript.ScanLines(strings.NewReader(tt.in), tt.start, 1, func(l []byte, no int, end int64, err error) error {
				got = append(got, line{string(l), no, end, err != nil})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || off != tt.off || n != len(tt.want) {
				t.Errorf("got %v off %d n %d, want %v off %d", got, off, n, tt.want, tt.off)
			}
		})
	}
}

// TestScanLinesLongLastLine: a last line over the line buffer, without
// its newline, is passed whole when it is a JSON object, from a file and
// from a plain reader.
func TestScanLinesLongLastLine(t *testing.T) {
	in := "a\n{\"x\":\"" + strings.Repeat("y", 3<<20) + "\"}"
	path := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(path, []byte(in), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range []io.Reader{f, strings.NewReader(in)} {
		var last string
		off, n, err := transcript.ScanLines(r, 0, 1, func(l []byte, _ int, _ int64, _ error) error {
			last = string(l)
			return nil
		})
		if err != nil || n != 2 || off != int64(len(in)) || last != in[2:] {
			t.Errorf("%T: %d lines, offset %d, %v; want 2 lines, offset %d", r, n, off, err, len(in))
		}
	}
}

// TestSkipNewline: reading goes on past the newline written after a last
// line read without one, and only there.
func TestSkipNewline(t *testing.T) {
	for _, c := range []struct {
		in     string
		offset int64
		want   int64
	}{
		{"{}\n{}", 3, 3}, {"{}\n{}", 2, 3}, {"{}\r\n{}", 2, 4}, {"{}{}", 2, 2}, {"{}", 2, 2}, {"\n", 0, 0},
	} {
		if got := transcript.SkipNewline(strings.NewReader(c.in), c.offset); got != c.want {
			t.Errorf("SkipNewline(%q, %d) = %d, want %d", c.in, c.offset, got, c.want)
		}
	}
}

func TestScanLinesLong(t *testing.T) {
	// A line far longer than the reader's buffer is passed whole.
	long := strings.Repeat("x", 3<<20)
	in := "a\n" + long + "\nb\n"
	var got []int
	off, _, err := transcript.ScanLines(strings.NewReader(in), 0, 1, func(l []byte, no int, end int64, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, len(l))
		return nil
	})
	if err != nil || off != int64(len(in)) || fmt.Sprint(got) != fmt.Sprint([]int{1, len(long), 1}) {
		t.Errorf("got %v off %d err %v", got, off, err)
	}
}

// TestGolden parses hand-written lines of every record type and compares
// the records with testdata/*.golden.json.
func TestGolden(t *testing.T) {
	for _, src := range []transcript.Source{transcript.Claude, transcript.Codex, transcript.Copilot} {
		t.Run(string(src), func(t *testing.T) {
			in := filepath.Join("testdata", string(src)+".jsonl")
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			p, err := transcript.NewParser(transcript.File{Path: in, Source: src, SessionID: "from-path"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			type out struct {
				Line   int                `json:"line"`
				Record *transcript.Record `json:"record,omitempty"`
				Texts  []string           `json:"texts,omitempty"`
				Args   []string           `json:"args,omitempty"`
				Error  string             `json:"error,omitempty"`
			}
			var got []out
			_, _, err = transcript.ScanLines(bytes.NewReader(data), 0, 1, func(l []byte, no int, _ int64, err error) error {
				rec, perr := p.ParseLine(l)
				if perr != nil {
					if rec != nil {
						t.Errorf("line %d: a record and an error", no)
					}
					got = append(got, out{Line: no, Error: perr.Error()})
					return nil
				}
				if rec == nil {
					return nil
				}
				o := out{Line: no, Record: rec}
				for _, r := range rec.Results {
					o.Texts = append(o.Texts, r.Texts...)
				}
				for _, c := range rec.Calls {
					o.Args = append(o.Args, string(c.Args))
				}
				got = append(got, o)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.MarshalIndent(got, "", "  ")
			b = append(b, '\n')
			golden := filepath.Join("testdata", string(src)+".golden.json")
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
		})
	}
}

// reading is the result of reading a whole generated tree the simple way.
type reading struct {
	requests []transcript.Record
	results  map[string]transcript.ToolResult
	calls    map[string]transcript.Record
	corrupt  []string
	compact  int
}

func readTree(t *testing.T, home string) reading {
	t.Helper()
	cf, err := transcript.DiscoverClaude([]string{filepath.Join(home, ".claude", "projects")})
	if err != nil {
		t.Fatal(err)
	}
	xf, err := transcript.DiscoverCodex([]string{filepath.Join(home, ".codex", "sessions")})
	if err != nil {
		t.Fatal(err)
	}
	r := reading{results: map[string]transcript.ToolResult{}, calls: map[string]transcript.Record{}}
	for _, f := range append(cf, xf...) {
		p, err := transcript.NewParser(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(home, f.Path)
		_, _, err = transcript.ScanLines(fh, 0, 1, func(l []byte, no int, _ int64, lineErr error) error {
			rec, err := p.ParseLine(l)
			if lineErr != nil || err != nil {
				r.corrupt = append(r.corrupt, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), no))
				return nil
			}
			if rec == nil {
				return nil
			}
			if rec.Request != nil {
				r.requests = append(r.requests, *rec)
			}
			for _, c := range rec.Calls {
				one := *rec
				one.Calls = []transcript.ToolCall{c}
				r.calls[c.ID] = one
			}
			for _, res := range rec.Results {
				r.results[res.ID] = res
			}
			if rec.Compaction != nil {
				r.compact++
			}
			return nil
		})
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(r.corrupt)
	return r
}

// dedup keeps one copy per message the way ccusage does: key on message id
// and request id; a sidechain copy of a message matches on the message id
// alone; the non-sidechain copy wins, then the larger total.
func dedup(recs []transcript.Record) []transcript.Record {
	var out []transcript.Record
	byKey := map[string]int{}
	byMsg := map[string][]int{}
	for _, r := range recs {
		q := r.Request
		if q.MessageID == "" {
			out = append(out, r)
			continue
		}
		key := r.SessionID + "\x00" + q.MessageID + "\x00" + q.RequestID
		idx, ok := byKey[key]
		if !ok {
			idx = -1
			for _, i := range byMsg[q.MessageID] {
				if r.Sidechain || out[i].Sidechain {
					idx = i
					break
				}
			}
		}
		if idx >= 0 {
			e := out[idx]
			replace := false
			if r.Sidechain != e.Sidechain {
				replace = e.Sidechain
			} else {
				replace = q.Usage.Total() > e.Request.Usage.Total()
			}
			if replace {
				out[idx] = r
			}
			byKey[key] = idx
			continue
		}
		byKey[key] = len(out)
		byMsg[q.MessageID] = append(byMsg[q.MessageID], len(out))
		out = append(out, r)
	}
	return out
}

func TestGeneratedTree(t *testing.T) {
	home := t.TempDir()
	m, err := transcripttest.Generate(home, transcripttest.Small())
	if err != nil {
		t.Fatal(err)
	}
	r := readTree(t, home)
	if len(m.CorruptLines) == 0 || len(m.Truncated) == 0 {
		t.Fatalf("the small tree should have defects: %d corrupt, %d truncated", len(m.CorruptLines), len(m.Truncated))
	}
	if fmt.Sprint(r.corrupt) != fmt.Sprint(m.CorruptLines) {
		t.Errorf("corrupt lines %v, want %v", r.corrupt, m.CorruptLines)
	}
	if r.compact != m.Compactions {
		t.Errorf("%d compactions, want %d", r.compact, m.Compactions)
	}

	// Requests after de-duplication equal the manifest's, one by one.
	got := dedup(r.requests)
	key := func(source, session, model string, tm string, in, out, c5, c1, cr int64, agent string) string {
		return fmt.Sprintf("%s %s %s %s in=%d out=%d c5=%d c1=%d cr=%d agent=%s", source, session, model, tm, in, out, c5, c1, cr, agent)
	}
	var gotKeys, wantKeys []string
	for _, g := range got {
		u := g.Request.Usage
		if u.CacheWrite5m+u.CacheWrite1h != u.CacheCreation {
			t.Errorf("cache split %d+%d != %d", u.CacheWrite5m, u.CacheWrite1h, u.CacheCreation)
		}
		gotKeys = append(gotKeys, key(string(sourceOf(g)), g.SessionID, g.Request.Model, g.Time.Format("15:04:05.000"), u.Input, u.Output, u.CacheWrite5m, u.CacheWrite1h, u.CacheRead, g.AgentID))
	}
	for _, w := range m.Requests {
		agent := w.AgentID
		wantKeys = append(wantKeys, key(w.Source, w.SessionID, w.Model, w.Time.Format("15:04:05.000"), w.Input, w.Output, w.Cache5m, w.Cache1h, w.CacheRead, agent))
	}
	sort.Strings(gotKeys)
	sort.Strings(wantKeys)
	if strings.Join(gotKeys, "\n") != strings.Join(wantKeys, "\n") {
		t.Errorf("requests differ:\ngot\n%s\nwant\n%s", strings.Join(gotKeys, "\n"), strings.Join(wantKeys, "\n"))
	}

	// Every call is found with its result, its texts, images and errors.
	if len(r.calls) != len(m.Calls) {
		t.Errorf("%d calls, want %d", len(r.calls), len(m.Calls))
	}
	for _, c := range m.Calls {
		rec, ok := r.calls[c.ID]
		if !ok {
			t.Errorf("call %s (%s) not found", c.ID, c.Name)
			continue
		}
		call := rec.Calls[0]
		if call.Name != c.Name || rec.SessionID != c.SessionID {
			t.Errorf("call %s: %s in %s, want %s in %s", c.ID, call.Name, rec.SessionID, c.Name, c.SessionID)
		}
		var canon bytes.Buffer
		if err := json.Compact(&canon, call.Args); err != nil || canon.String() != c.Args {
			t.Errorf("call %s args %s, want %s", c.ID, call.Args, c.Args)
		}
		res, ok := r.results[c.ID]
		if !ok {
			t.Errorf("call %s has no result", c.ID)
			continue
		}
		if strings.Join(res.Texts, "|") != strings.Join(c.Texts, "|") {
			t.Errorf("call %s result texts differ", c.ID)
		}
		if res.IsError != c.IsError || res.NonText != c.Images || res.Spilled != c.Spilled {
			t.Errorf("call %s: error %v images %d spilled %v, want %v %d %v", c.ID, res.IsError, res.NonText, res.Spilled, c.IsError, c.Images, c.Spilled)
		}
		if c.Images > 0 && res.EstimatedTokens != transcript.ImageTokens(64, 48) {
			t.Errorf("call %s: image estimate %d, want %d", c.ID, res.EstimatedTokens, transcript.ImageTokens(64, 48))
		}
	}
}

func sourceOf(r transcript.Record) transcript.Source {
	if r.Request != nil && r.Request.MessageID == "" && r.Request.Turn > 0 {
		return transcript.Codex
	}
	return transcript.Claude
}

func TestDiscoverLayouts(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		"-home-u-p/sess-1.jsonl",
		"-home-u-p/sess-1/subagents/agent-abc.jsonl",
		"-home-u-p/sess-1/subagents/workflows/wf1/agent-def.jsonl",
		"-home-u-p/sess-1/tool-results/toolu_1.jsonl",
		"-home-u-p/agent-old.jsonl",
		"-home-u-p/notes.txt",
	} {
		path := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, nil, 0o644)
	}
	files, err := transcript.DiscoverClaude([]string{root, root, filepath.Join(root, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, fmt.Sprintf("%s session=%s agent=%s", filepath.ToSlash(rel), f.SessionID, f.AgentID))
	}
	sort.Strings(got)
	want := []string{
		"-home-u-p/agent-old.jsonl session= agent=agent-old",
		"-home-u-p/sess-1.jsonl session=sess-1 agent=",
		"-home-u-p/sess-1/subagents/agent-abc.jsonl session=sess-1 agent=agent-abc",
		"-home-u-p/sess-1/subagents/workflows/wf1/agent-def.jsonl session=sess-1 agent=agent-def",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCodexStateResumes(t *testing.T) {
	// Reading a rollout in two halves, saving the state between, gives the
	// same requests as reading it whole.
	home := t.TempDir()
	o := transcripttest.Small()
	o.Sessions = 0
	o.Codex = 1
	if _, err := transcripttest.Generate(home, o); err != nil {
		t.Fatal(err)
	}
	files, _ := transcript.DiscoverCodex([]string{filepath.Join(home, ".codex", "sessions")})
	data, _ := os.ReadFile(files[0].Path)
	read := func(chunks ...[]byte) (out []string) {
		var state []byte
		for _, c := range chunks {
			p, _ := transcript.NewParser(files[0], state)
			transcript.ScanLines(bytes.NewReader(c), 0, 1, func(l []byte, _ int, _ int64, _ error) error {
				if rec, _ := p.ParseLine(l); rec != nil && rec.Request != nil {
					out = append(out, fmt.Sprintf("%+v", *rec.Request))
				}
				return nil
			})
			state = transcript.SaveState(p)
		}
		return out
	}
	cut := bytes.Index(data[len(data)/2:], []byte("\n")) + len(data)/2 + 1
	whole, halves := read(data), read(data[:cut], data[cut:])
	if len(whole) != 5 || strings.Join(whole, "\n") != strings.Join(halves, "\n") {
		t.Errorf("whole:\n%s\nhalves:\n%s", strings.Join(whole, "\n"), strings.Join(halves, "\n"))
	}
}

func TestLineError(t *testing.T) {
	err := &transcript.LineError{Path: "a.jsonl", Line: 3, Err: errors.New("invalid JSON")}
	if err.Error() != "a.jsonl:3: invalid JSON" {
		t.Error(err)
	}
}

func FuzzClaudeLine(f *testing.F) {
	seed(f, "testdata/claude.jsonl")
	addBoundaryClaudeLines(f)
	// A placeholder for a request refused at the usage limit.
	f.Add([]byte(`{"type":"assistant","sessionId":"s1","timestamp":"2026-11-20T10:00:00.000Z","isApiErrorMessage":true,"message":{"id":"e","model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0},"content":[{"type":"text","text":"Claude AI usage limit reached|9223372036854775"}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &transcript.ClaudeParser{}
		rec, err := p.ParseLine(line)
		if err != nil && rec != nil {
			t.Fatal("a record and an error")
		}
		if rec != nil && (rec.LimitReset < 0 || rec.LimitReset%1000 != 0) {
			t.Fatalf("a usage limit's reset of %d ms", rec.LimitReset)
		}
	})
}

func FuzzCodexLine(f *testing.F) {
	seed(f, "testdata/codex.jsonl")
	seed(f, "testdata/codex-local-shell.jsonl")
	addBoundaryCodexLines(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &transcript.CodexParser{State: transcript.CodexState{SessionID: "s"}}
		rec, err := p.ParseLine(line)
		if err != nil && rec != nil {
			t.Fatal("a record and an error")
		}
	})
}

func seed(f *testing.F, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		f.Add(l)
	}
}

// TestLineErrorsEchoNoValue: the error of a corrupt line names what is
// wrong, never a value from the line (a line may hold anything, secrets
// included).
func TestLineErrorsEchoNoValue(t *testing.T) {
	const canary = "sk-canary-31415"
	claude := []string{
		`{"type":"assistant","sessionId":"s","timestamp":"` + canary + `","message":{"id":"m","model":"x","usage":{"input_tokens":1}}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m","model":"x","usage":{"input_tokens":"` + canary + `"}}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m","model":"x","usage":{"input_tokens":31415.5}}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m","model":"x","usage":{"input_tokens":1e31415}}}`,
	}
	for _, line := range claude {
		p := &transcript.ClaudeParser{SessionID: "s"}
		_, err := p.ParseLine([]byte(line))
		if err == nil {
			t.Errorf("no error for %s", line)
			continue
		}
		if strings.Contains(err.Error(), canary) || strings.Contains(err.Error(), "31415") {
			t.Errorf("the error repeats a value of the line: %v", err)
		}
	}
	codex := []string{
		`{"timestamp":"` + canary + `","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1}}}}`,
		`{"timestamp":"2026-01-01T00:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":31415.5}}}}`,
	}
	for _, line := range codex {
		p := &transcript.CodexParser{State: transcript.CodexState{SessionID: "s"}}
		_, err := p.ParseLine([]byte(line))
		if err != nil && (strings.Contains(err.Error(), canary) || strings.Contains(err.Error(), "31415")) {
			t.Errorf("the error repeats a value of the line: %v", err)
		}
	}
}

// TestDiscoverSymlinks: a projects folder, a project folder or a
// transcript that is a link is followed; loops end, dangling links are
// skipped (and reported when named like a transcript), and a file reached
// by two paths is listed once.
func TestDiscoverSymlinks(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	elsewhere := filepath.Join(base, "elsewhere")
	for _, p := range []string{
		"real/-home-u-a/s1.jsonl",
		"real/-home-u-a/s1/subagents/agent-x.jsonl",
		"elsewhere/-home-u-b/s2.jsonl",
		"elsewhere/loose/s3.jsonl",
	} {
		path := filepath.Join(base, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, nil, 0o644)
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(name))); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	link(real, "projects")                                        // the root itself
	link(filepath.Join(elsewhere, "-home-u-b"), "real/-home-u-b") // a project folder
	link(filepath.Join(elsewhere, "loose", "s3.jsonl"), "real/-home-u-a/s3.jsonl")
	link(filepath.Join(real, "-home-u-a", "s1.jsonl"), "real/-home-u-a/s1-again.jsonl") // a second name of s1
	link(real, "real/-home-u-a/loop")                                                   // a loop
	link("..", "real/-home-u-b-loop")                                                   // another, relative
	link(filepath.Join(base, "missing.jsonl"), "real/-home-u-a/gone.jsonl")             // dangling, a transcript's name
	link(filepath.Join(base, "missing"), "real/-home-u-a/gone")                         // dangling, anything else

	root := filepath.Join(base, "projects")
	done := make(chan struct{})
	var files []transcript.File
	var err error
	go func() {
		defer close(done)
		files, err = transcript.DiscoverClaude([]string{root, real})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("discovery did not end: a link loop")
	}
	if err == nil || !strings.Contains(err.Error(), "gone.jsonl: a link that leads nowhere") || strings.Contains(err.Error(), "gone:") {
		t.Errorf("error %v, want one naming gone.jsonl only", err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, fmt.Sprintf("%s session=%s agent=%s", filepath.ToSlash(rel), f.SessionID, f.AgentID))
	}
	sort.Strings(got)
	want := []string{
		"-home-u-a/s1.jsonl session=s1 agent=",
		"-home-u-a/s1/subagents/agent-x.jsonl session=s1 agent=agent-x",
		"-home-u-a/s3.jsonl session=s3 agent=",
		"-home-u-b/s2.jsonl session=s2 agent=",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Codex's sessions folder as a link.
	sessions := filepath.Join(base, "codex-real", "2026", "01", "02")
	os.MkdirAll(sessions, 0o755)
	os.WriteFile(filepath.Join(sessions, "rollout-2026-01-02T03-04-05-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"), nil, 0o644)
	link(filepath.Join(base, "codex-real"), "sessions")
	cfiles, err := transcript.DiscoverCodex([]string{filepath.Join(base, "sessions")})
	if err != nil || len(cfiles) != 1 || cfiles[0].SessionID != "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000" {
		t.Errorf("codex through a link: %+v %v", cfiles, err)
	}
}

// TestTokenBounds: a count that is negative or over MaxTokens skips its
// line with an error (ccusage skips such lines too); MaxTokens itself is
// taken.
func TestTokenBounds(t *testing.T) {
	claude := func(field string, n string) string {
		u := map[string]string{"input_tokens": "1", "output_tokens": "1", "cache_creation_input_tokens": "0", "cache_read_input_tokens": "0"}
		u[field] = n
		return `{"type":"assistant","sessionId":"a","timestamp":"2026-11-20T10:00:00.000Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-20250514","content":[],"usage":{"input_tokens":` + u["input_tokens"] +
			`,"output_tokens":` + u["output_tokens"] + `,"cache_creation_input_tokens":` + u["cache_creation_input_tokens"] + `,"cache_read_input_tokens":` + u["cache_read_input_tokens"] + `}}}`
	}
	max := strconv.FormatInt(transcript.MaxTokens, 10)
	over := strconv.FormatInt(transcript.MaxTokens+1, 10)
	for _, field := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		for _, n := range []string{"-5", "-1", over, "9223372036854775807"} {
			rec, err := (&transcript.ClaudeParser{}).ParseLine([]byte(claude(field, n)))
			if err == nil || rec != nil {
				t.Errorf("%s %s: got %v, %v; want the line skipped with an error", field, n, rec, err)
			}
		}
		rec, err := (&transcript.ClaudeParser{}).ParseLine([]byte(claude(field, max)))
		if err != nil || rec == nil || rec.Request == nil {
			t.Errorf("%s %s: got %v, %v; want a request", field, max, rec, err)
		}
	}
	rec, err := (&transcript.ClaudeParser{}).ParseLine([]byte(strings.Replace(claude("input_tokens", "1"), `"cache_read_input_tokens":0`, `"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":-3,"ephemeral_1h_input_tokens":0}`, 1)))
	if err == nil || rec != nil {
		t.Errorf("a negative cache write: got %v, %v", rec, err)
	}
	codex := func(total string) string {
		return `{"timestamp":"2026-11-20T10:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":` + total + `,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":1}}}}`
	}
	for _, n := range []string{"-5", over} {
		p := &transcript.CodexParser{State: transcript.CodexState{SessionID: "s"}}
		if rec, err := p.ParseLine([]byte(codex(n))); err == nil || rec != nil {
			t.Errorf("codex %s: got %v, %v; want the line skipped with an error", n, rec, err)
		}
	}
	p := &transcript.CodexParser{State: transcript.CodexState{SessionID: "s"}}
	if rec, err := p.ParseLine([]byte(codex(max))); err != nil || rec == nil || rec.Request == nil {
		t.Errorf("codex %s: got %v, %v; want a request", max, rec, err)
	}
}

// TestDiscoverBounds: the walk goes no deeper than Claude Code's and
// Codex's layouts (a link to a deep tree, or to /, is not walked to its
// bottom), and never into /proc through a link.
func TestDiscoverBounds(t *testing.T) {
	base := t.TempDir()
	deep := filepath.Join(base, "deep")
	var want []string
	for n := 1; n <= 9; n++ {
		// p/s/subagents/d4/d5/.../f<n>.jsonl, n names below the root.
		parts := []string{"p", "s", "subagents"}
		for i := 4; i < n; i++ {
			parts = append(parts, fmt.Sprintf("d%d", i))
		}
		parts = append(parts[:min(n-1, len(parts))], fmt.Sprintf("f%d.jsonl", n))
		path := filepath.Join(append([]string{deep}, parts...)...)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, nil, 0o644)
		if n <= transcript.ClaudeDepth {
			want = append(want, strings.Join(parts, "/"))
		}
	}
	// Beside subagents/, a session's other folders hold no transcripts.
	os.MkdirAll(filepath.Join(deep, "p", "s", "other"), 0o755)
	os.WriteFile(filepath.Join(deep, "p", "s", "other", "x.jsonl"), nil, 0o644)
	projects := filepath.Join(base, "projects")
	os.MkdirAll(projects, 0o755)
	if err := os.Symlink(deep, filepath.Join(projects, "deep")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	files, err := transcript.DiscoverClaude([]string{deep})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(deep, f.Path)
		got = append(got, filepath.ToSlash(rel))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Through a link, one level down, the layout counts from the root:
	// deep is a project, p a session, and s not its subagents/.
	files, err = transcript.DiscoverClaude([]string{projects})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, f := range files {
		rel, _ := filepath.Rel(projects, f.Path)
		got = append(got, filepath.ToSlash(rel))
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "deep/f1.jsonl deep/p/f2.jsonl" {
		t.Errorf("through the link: %v", got)
	}

	// Codex: YYYY/MM/DD only.
	sessions := filepath.Join(base, "sessions")
	for _, p := range []string{"2026/01/02/r1.jsonl", "2026/01/02/03/r2.jsonl", "other/01/02/r3.jsonl", "r4.jsonl"} {
		path := filepath.Join(sessions, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, nil, 0o644)
	}
	cfiles, err := transcript.DiscoverCodex([]string{sessions})
	if err != nil || len(cfiles) != 2 {
		t.Errorf("codex: %+v %v; want 2026/01/02/r1.jsonl and r4.jsonl", cfiles, err)
	}

	if _, err := os.Stat("/proc/self/task"); err != nil {
		return
	}
	// A link to /proc: not followed, and said.
	proc := filepath.Join(base, "proc-projects")
	os.MkdirAll(proc, 0o755)
	os.Symlink("/proc", filepath.Join(proc, "proc"))
	os.Symlink("/proc/self/task", filepath.Join(proc, "tasks"))
	start := time.Now()
	files, err = transcript.DiscoverClaude([]string{proc, "/proc/self"})
	if len(files) != 0 {
		t.Errorf("files under /proc: %v", files)
	}
	for _, name := range []string{"proc-projects/proc: a link into a system folder", "proc-projects/tasks: a link into a system folder", "/proc/self: a system folder"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v; want one naming %s", err, name)
		}
	}
	t.Logf("%v", time.Since(start))
}

// TestLineErrorsWordedForUsers: a line's unexpected value is named by
// its JSON kinds, never by a Go type.
func TestLineErrorsWordedForUsers(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"type":"assistant","timestamp":"2026-11-20T10:00:00Z","message":{"usage":"x"}}`, "is a string, want an object"},
		{`{"type":"assistant","timestamp":"2026-11-20T10:00:00Z","message":{"usage":[1]}}`, "is an array, want an object"},
		{`{"type":"assistant","timestamp":"2026-11-20T10:00:00Z","message":{"usage":{"input_tokens":"1"}}}`, "is a string, want an integer"},
		{`{"type":"assistant","timestamp":"2026-11-20T10:00:00Z","message":{"usage":{"input_tokens":1.5}}}`, "is a number, want an integer"},
		{`{"type":"system","subtype":"compact_boundary","timestamp":"2026-11-20T10:00:00Z","compactMetadata":true}`, "is true or false, want an object"},
	} {
		_, err := (&transcript.ClaudeParser{}).ParseLine([]byte(c.line))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "transcript.") || strings.Contains(err.Error(), "int64") {
			t.Errorf("%s: %v; want %q", c.line, err, c.want)
		}
	}
}

// TestCodexLocalShell reads a rollout of an older Codex (codex-mini-latest,
// the Responses API's local shell tool): each local_shell_call is a call of
// local_shell, joined to its output by call_id (by id where it has no
// call_id), with the exit code and run time its output records; one with
// neither id is no call.
func TestCodexLocalShell(t *testing.T) {
	path := filepath.Join("testdata", "codex-local-shell.jsonl")
	p, err := transcript.NewParser(transcript.File{Path: path, Source: transcript.Codex, SessionID: "from-path"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		name, args string
		result     bool
		isError    bool
		durationMs int64
	}
	calls := map[string]*got{}
	var order []string
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		rec, err := p.ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if rec == nil {
			continue
		}
		for _, c := range rec.Calls {
			if !c.Tool.BuiltIn || c.Tool.Name != "local_shell" || rec.SessionID != "0196f0aa-2222-7333-8444-955556666777" {
				t.Errorf("line %d: call %+v in %s", i+1, c, rec.SessionID)
			}
			calls[c.ID] = &got{name: c.Name, args: string(c.Args)}
			order = append(order, c.ID)
		}
		for _, r := range rec.Results {
			g := calls[r.ID]
			if g == nil {
				t.Fatalf("line %d: a result of %s, which was not called", i+1, r.ID)
			}
			g.result, g.isError = true, r.IsError
			if r.DurationMs != nil {
				g.durationMs = *r.DurationMs
			}
		}
	}
	want := map[string]got{
		"call_ls1": {name: "local_shell", args: `{"type":"exec","command":["bash","-lc","ls -la"],"timeout_ms":10000,"working_directory":"/home/u/old-proj","env":{},"user":null}`, result: true, durationMs: 200},
		"call_ls2": {name: "local_shell", args: `{"type":"exec","command":["bash","-lc","go test ./..."],"timeout_ms":null,"working_directory":null,"env":null,"user":null}`, result: true, isError: true, durationMs: 12500},
		"lsh_0a1d": {name: "local_shell", args: `{"type":"exec","command":["cat","go.mod"]}`, result: true, durationMs: 0},
	}
	if len(order) != len(want) {
		t.Errorf("calls %q, want %d", order, len(want))
	}
	for id, w := range want {
		if g := calls[id]; g == nil || *g != w {
			t.Errorf("%s: %+v, want %+v", id, g, w)
		}
	}
}

// FuzzClaudeLineReuse checks that a parser that decodes tool results'
// texts into a reused buffer (ReuseText) gives what the copying parser
// gives, text for text, or the same error, also after a previous line
// has filled the buffer.
func FuzzClaudeLineReuse(f *testing.F) {
	data, err := os.ReadFile("testdata/claude.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		f.Add(lines[(i+len(lines)-1)%len(lines)], l)
	}
	for _, text := range []string{`plain`, `a\nb\t\"c\"`, `\u00e9\ud83d\ude00 \ud800 x`, "raw \x01 control", `bad \x escape`, `\/tool-results\/x`, `C:\\tool-results\\x`, "\xff invalid", ``} {
		line := `{"type":"user","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","message":{"role":"user","content":[` +
			`{"type":"tool_result","tool_use_id":"t1","content":"` + text + `"},` +
			`{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"` + text + `"},{"type":"text","text":"` + text + text + `"}]}]}}`
		f.Add([]byte(line), []byte(line))
	}
	f.Fuzz(func(t *testing.T, prev, line []byte) {
		want, werr := (&transcript.ClaudeParser{}).ParseLine(bytes.Clone(line))
		p := &transcript.ClaudeParser{ReuseText: true}
		p.ParseLine(bytes.Clone(prev))
		got, gerr := p.ParseLine(line)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("errors: copying %v, reusing %v", werr, gerr)
		}
		if (want == nil) != (got == nil) {
			t.Fatalf("records: copying %v, reusing %v", want, got)
		}
		if want == nil {
			return
		}
		if len(want.Results) != len(got.Results) {
			t.Fatalf("results: copying %d, reusing %d", len(want.Results), len(got.Results))
		}
		for i := range want.Results {
			w, g := want.Results[i], got.Results[i]
			if strings.Join(w.Texts, "\x00|") != strings.Join(g.Texts, "\x00|") || len(w.Texts) != len(g.Texts) {
				t.Fatalf("result %d texts: copying %q, reusing %q", i, w.Texts, g.Texts)
			}
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if !bytes.Equal(wj, gj) {
			t.Fatalf("copying %s\nreusing %s", wj, gj)
		}
	})
}
