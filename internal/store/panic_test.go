package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// poisonLines are a session whose second line is a tool result the test's
// token counter panics on.
var poisonLines = []string{
	`{"isSidechain":false,"cwd":"/home/u/p","sessionId":"sess-poison","type":"assistant","requestId":"req_p1","timestamp":"2026-11-01T10:00:00Z","message":{"id":"msg_p1","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_p1","name":"mcp__x__y","input":{"q":1}}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
	`{"isSidechain":false,"cwd":"/home/u/p","sessionId":"sess-poison","type":"user","timestamp":"2026-11-01T10:00:01Z","message":{"role":"user","content":[{"tool_use_id":"toolu_p1","type":"tool_result","content":"POISON-PILL"}]}}`,
	`{"isSidechain":false,"cwd":"/home/u/p","sessionId":"sess-poison","type":"assistant","requestId":"req_p2","timestamp":"2026-11-01T10:00:02Z","message":{"id":"msg_p2","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":20,"output_tokens":7}}}`,
}

// TestPanicInWorker: a panic while reading a line (here in the token
// counter) becomes a warning naming the file and line; the line is
// skipped, the rest of the file and every other file are ingested, and
// the next ingest does not meet the line again.
func TestPanicInWorker(t *testing.T) {
	write := func(home string, lines []string) {
		t.Helper()
		if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, ".claude", "projects", "-home-u-p", "sess-poison.jsonl")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// What a correct ingest keeps: everything but the poison line.
	clean := t.TempDir()
	write(clean, []string{poisonLines[0], "", poisonLines[2]})
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, clean)
	want := totals(t, ref)

	home := t.TempDir()
	write(home, poisonLines)
	poison := filepath.Join(home, ".claude", "projects", "-home-u-p", "sess-poison.jsonl")
	count := token.O200k().Count
	o := options(home)
	o.Count = func(s string) int {
		if strings.Contains(s, "POISON") {
			var none []int
			return none[len(s)] // index out of range
		}
		return count(s)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	st, err := s.Ingest(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range st.Warnings {
		if strings.HasPrefix(w, poison+":2: internal error (runtime error: index out of range") {
			found = true
		}
		if strings.Contains(w, "POISON") {
			t.Errorf("a warning repeats the line: %s", w)
		}
	}
	if !found {
		t.Errorf("no warning naming %s:2: %q", poison, st.Warnings)
	}
	if got := totals(t, s); got != want {
		t.Errorf("after a panic:\n%s\nwant:\n%s", got, want)
	}
	// The next ingest starts past the line: it reads only what was added,
	// with no warning.
	f, _ := os.OpenFile(poison, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(strings.ReplaceAll(poisonLines[2], "_p2", "_p3") + "\n")
	f.Close()
	st, err = s.Ingest(context.Background(), o)
	if err != nil || len(st.Warnings) != 0 || st.Corrupt != 0 || st.FilesRead != 1 || st.Requests != 1 || st.Lines != 1 {
		t.Errorf("the next ingest met the line again: %+v %v", st, err)
	}
}

// TestPanicInCanon: a tool call whose arguments once crashed canonical
// JSON (an array of 65–511 members) ends no ingest.
func TestPanicInCanon(t *testing.T) {
	home := t.TempDir()
	arr := "[" + strings.Repeat("0,", 99) + "0]"
	line := strings.Replace(poisonLines[0], `"input":{"q":1}`, `"input":{"1":`+arr+`}`, 1)
	path := filepath.Join(home, ".claude", "projects", "-home-u-p", "sess-poison.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(line+"\n"+poisonLines[2]+"\n"), 0o644)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	st := ingest(t, s, home)
	// Either the call is stored, or its line is reported and skipped; the
	// line after it counts in both cases.
	if n := countRows(t, s, "requests"); n < 1 || (n == 1 && len(st.Warnings) != 1) {
		t.Errorf("%d requests, warnings %q", n, st.Warnings)
	}
	t.Logf("warnings %q", st.Warnings)
}

// TestPanicInWorkerOutsideLines: a panic in a worker outside the reading
// of a line skips that file, with a warning naming it; the other files
// are ingested and the file is read on the next ingest.
func TestPanicInWorkerOutsideLines(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, home)
	want := totals(t, ref)

	var victim string
	defer func(old func(string)) { testOnlyBeforeRead = old }(testOnlyBeforeRead)
	testOnlyBeforeRead = func(path string) {
		if victim == "" || path == victim {
			victim = path
			panic(errors.New("a value of the file"))
		}
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	o := options(home)
	o.Workers = 1 // victim is set without a lock
	st, err := s.Ingest(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range st.Warnings {
		if w == victim+": internal error; skipped" {
			found = true
		}
	}
	if !found || st.FilesRead != st.Files-1 {
		t.Errorf("read %d of %d files, warnings %q, want one naming %s", st.FilesRead, st.Files, st.Warnings, victim)
	}
	testOnlyBeforeRead = func(string) {}
	st = ingest(t, s, home)
	if st.FilesRead != 1 {
		t.Errorf("the skipped file was not read next time: %+v", st)
	}
	if got := totals(t, s); got != want {
		t.Errorf("after the skipped file was read:\n%s\nwant:\n%s", got, want)
	}
}
