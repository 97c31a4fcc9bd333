package transcript_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

func TestDiscoverCopilot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "session-state")
	for _, p := range []string{
		"s1/events.jsonl",
		"s1/workspace.yaml",
		"s1/other.jsonl",         // not the session's events
		"s1/sub/events.jsonl",    // too deep
		"flat.jsonl",             // not in a session's folder
		"elsewhere/events.jsonl", // linked to below
	} {
		dir := root
		if strings.HasPrefix(p, "elsewhere/") {
			dir = base
		}
		path := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, nil, 0o644)
	}
	if err := os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(root, "s2")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(root, filepath.Join(root, "loop"))                      // a loop
	os.Symlink("/proc/self", filepath.Join(root, "s3"))                // into a pseudo file system
	os.Symlink(filepath.Join(base, "gone"), filepath.Join(root, "s4")) // dangling
	done := make(chan struct{})
	var files []transcript.File
	var err error
	go func() {
		defer close(done)
		files, err = transcript.DiscoverCopilot([]string{root, root, filepath.Join(base, "missing")})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("discovery did not end: a link loop")
	}
	if _, serr := os.Stat("/proc/self"); serr == nil && (err == nil || !strings.Contains(err.Error(), "s3: a link into a system folder")) {
		t.Errorf("error %v, want one naming the link into /proc", err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, fmt.Sprintf("%s %s session=%s", filepath.ToSlash(rel), f.Source, f.SessionID))
	}
	sort.Strings(got)
	want := []string{"s1/events.jsonl copilot session=s1", "s2/events.jsonl copilot session=s2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCopilotStateResumes: reading a session in pieces, saving the state
// between (as the store does), gives the same requests as reading it
// whole, a resumed session's second shutdown included.
func TestCopilotStateResumes(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.GenerateCopilot(home, 7, 12, 3, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	files, err := transcript.DiscoverCopilot([]string{filepath.Join(home, ".copilot", "session-state")})
	if err != nil || len(files) != 12 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	requests := 0
	for _, f := range files {
		data, _ := os.ReadFile(f.Path)
		read := func(chunks ...[]byte) (out []string) {
			var state []byte
			for _, c := range chunks {
				p, err := transcript.NewParser(f, state)
				if err != nil {
					t.Fatal(err)
				}
				transcript.ScanLines(bytes.NewReader(c), 0, 1, func(l []byte, _ int, _ int64, _ error) error {
					rec, _ := p.ParseLine(l)
					if rec != nil && rec.Request != nil {
						for _, q := range append([]transcript.Request{*rec.Request}, rec.More...) {
							out = append(out, fmt.Sprintf("%s %s %+v", rec.Time, q.Model, q.Usage))
						}
					}
					return nil
				})
				state = transcript.SaveState(p)
			}
			return out
		}
		var cuts [][]byte
		rest := data
		for len(rest) > 0 {
			i := bytes.IndexByte(rest[len(rest)/3:], '\n')
			if i < 0 {
				cuts = append(cuts, rest)
				break
			}
			n := len(rest)/3 + i + 1
			cuts, rest = append(cuts, rest[:n]), rest[n:]
		}
		whole, pieces := read(data), read(cuts...)
		if len(whole) == 0 || strings.Join(whole, "\n") != strings.Join(pieces, "\n") {
			t.Errorf("%s: whole:\n%s\npieces:\n%s", f.SessionID, strings.Join(whole, "\n"), strings.Join(pieces, "\n"))
		}
		requests += len(whole)
	}
	t.Logf("%d requests in %d sessions", requests, len(files))
}

func FuzzCopilotLine(f *testing.F) {
	seed(f, "testdata/copilot.jsonl")
	home := f.TempDir()
	if _, err := transcripttest.GenerateCopilot(home, 3, 4, 2, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		f.Fatal(err)
	}
	files, _ := transcript.DiscoverCopilot([]string{filepath.Join(home, ".copilot", "session-state")})
	for _, file := range files {
		seed(f, file.Path)
	}
	for _, s := range boundaryInputs() {
		// Large and deep arguments, results and metrics.
		f.Add([]byte(`{"type":"tool.execution_start","data":{"toolCallId":"t1","toolName":"gh-x","mcpServerName":"gh","mcpToolName":"x","arguments":` + string(s) + `},"timestamp":"2026-11-01T10:00:00Z"}`))
		f.Add([]byte(`{"type":"tool.execution_complete","data":{"toolCallId":"t1","success":true,"result":{"content":` + string(s) + `}},"timestamp":"2026-11-01T10:00:00Z"}`))
		f.Add([]byte(`{"type":"session.shutdown","data":{"modelMetrics":{"m":` + string(s) + `}},"timestamp":"2026-11-01T10:00:00Z"}`))
	}
	big := `{"type":"session.shutdown","timestamp":"2026-11-01T10:00:00Z","data":{"modelMetrics":{`
	for i := range 500 {
		if i > 0 {
			big += ","
		}
		big += fmt.Sprintf(`"model-%d":{"requests":{"count":%d},"usage":{"inputTokens":9007199254740991,"outputTokens":%d,"cacheReadTokens":9007199254740991}}`, i, i, i)
	}
	f.Add([]byte(big + "}}}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &transcript.CopilotParser{State: transcript.CopilotState{SessionID: "s"}}
		rec, err := p.ParseLine(line)
		if err != nil && rec != nil {
			t.Fatal("a record and an error")
		}
		if rec == nil {
			return
		}
		var all []transcript.Request
		if rec.Request != nil {
			all = append(all, *rec.Request)
		}
		for _, q := range append(all, rec.More...) {
			if q.Usage.Input < 0 || q.Usage.Output < 0 || q.Usage.CacheRead < 0 || q.Usage.CacheCreation < 0 {
				t.Fatalf("negative usage %+v", q.Usage)
			}
		}
		// A second read of the same line adds nothing.
		again, _ := p.ParseLine(line)
		if rec.Request != nil && again != nil && again.Request != nil {
			t.Fatalf("a repeated shutdown counted twice: %+v", again.Request)
		}
	})
}

// TestCopilotModelsBounded: a session's figures are kept for at most
// CopilotMaxModels models, so that its saved state, written with every
// batch of lines after it, stays small; the models past them are not
// counted and the line says so, and those kept go on counting.
func TestCopilotModelsBounded(t *testing.T) {
	shutdown := func(models, tokens int) []byte {
		var b strings.Builder
		b.WriteString(`{"type":"session.shutdown","timestamp":"2026-11-03T10:01:00.000Z","data":{"modelMetrics":{`)
		for i := range models {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"m%05d":{"requests":{"count":1},"usage":{"inputTokens":%d,"outputTokens":1}}`, i, tokens)
		}
		b.WriteString(`}}}`)
		return []byte(b.String())
	}
	p, _ := transcript.NewParser(transcript.File{Source: transcript.Copilot, SessionID: "s"}, nil)
	n := transcript.CopilotMaxModels
	rec, err := p.ParseLine(shutdown(n+500, 10))
	if err != nil || rec == nil || rec.Request == nil || len(rec.More) != n-1 || !strings.Contains(rec.Warning, "500 models not counted") {
		t.Fatalf("%d models: %v, %d requests, warning %q", n+500, err, len(rec.More)+1, rec.Warning)
	}
	if state := transcript.SaveState(p); len(state) > 200*n {
		t.Errorf("state of %d bytes", len(state))
	}
	rec, err = p.ParseLine(shutdown(n+500, 20))
	if err != nil || rec == nil || len(rec.More) != n-1 || rec.Request.Usage.Input != 10 || rec.Warning == "" {
		t.Fatalf("again: %v, %+v", err, rec)
	}
}
