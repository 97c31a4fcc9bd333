package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWarningsDeterministic ingests files of different sizes, each with
// corrupt lines, with several readers, more warnings than are listed: the
// warnings listed are the first of all in the order of the files' paths
// and lines, whichever reader finished first, in every run.
func TestWarningsDeterministic(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	good := func(f, n int) string {
		return fmt.Sprintf(`{"type":"assistant","sessionId":"s%d","timestamp":"2026-11-01T10:00:00.000Z","requestId":"req_%d_%d","message":{"id":"msg_%d_%d","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":5}}}`+"\n", f, f, n, f, n)
	}
	var all []string
	for f := range 12 {
		// The files' sizes differ so that readers take them in another
		// order than their paths'; the last file has the most lines.
		var b strings.Builder
		path := filepath.Join(dir, fmt.Sprintf("f%02d.jsonl", f))
		for n := range 40 + 300*f {
			if n%7 == 3 {
				b.WriteString("{not json\n")
				all = append(all, fmt.Sprintf("%s:%d:", path, n+1))
				continue
			}
			b.WriteString(good(f, n))
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := all[:20]
	for run := range 6 {
		s := open(t, filepath.Join(t.TempDir(), "usage.db"))
		o := options(home)
		o.Workers = 4
		st, err := s.Ingest(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if st.Corrupt != len(all) {
			t.Fatalf("run %d: %d corrupt lines, want %d", run, st.Corrupt, len(all))
		}
		var got []string
		for _, w := range st.Warnings {
			got = append(got, w[:strings.Index(w, ": ")+1])
		}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: warnings\n%q\nwant\n%q", run, got, want)
		}
	}
}
