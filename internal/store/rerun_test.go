package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// TestRerunWritesNothing: an ingest that finds nothing new leaves the
// store's file and its write-ahead log as they were: it takes no lease.
func TestRerunWritesNothing(t *testing.T) {
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	path := filepath.Join(t.TempDir(), "usage.db")
	s := open(t, path)
	ingest(t, s, home)
	// An expired lease of a crashed process, which a re-run leaves alone.
	if _, err := s.db.Exec(`INSERT INTO ingest_lock (id, owner, pid, expires_at) VALUES (1, 'other', 1, 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, path)
	read := func() [2][]byte {
		var b [2][]byte
		for i, suffix := range []string{"", "-wal"} {
			var err error
			if b[i], err = os.ReadFile(path + suffix); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	before := read()
	if idle, err := s.nothingNew(context.Background(), mustDiscover(t, home)); err != nil || !idle {
		t.Errorf("nothing new: %v, %v", idle, err)
	}
	st := ingest(t, s, home)
	if st.Files == 0 || st.FilesRead != 0 || st.Requests != 0 || len(st.Warnings) != 0 {
		t.Errorf("re-run: %+v", st)
	}
	after := read()
	for i, name := range []string{"store", "write-ahead log"} {
		if !bytes.Equal(before[i], after[i]) {
			t.Errorf("the re-run changed the %s (%d bytes, then %d)", name, len(before[i]), len(after[i]))
		}
	}
}

// TestRerunFileChangedDuringCheck: a file that grows again after the
// check before the lease found it grown is read as it is once the lease
// is held, to its end.
func TestRerunFileChangedDuringCheck(t *testing.T) {
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	o := options(home)
	if _, err := s.Ingest(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	files, err := transcript.DiscoverClaude(o.ClaudeRoots)
	if err != nil || len(files) == 0 {
		t.Fatalf("files %v, %v", files, err)
	}
	grown := files[0].Path
	b, err := os.ReadFile(grown)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	last := append(bytes.TrimSuffix(lines[len(lines)-1], []byte("\n")), '\n')
	appendLast := func() {
		f, err := os.OpenFile(grown, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.Write(last)
		f.Close()
	}
	appendLast()
	checks := 0
	testOnlyAfterCheck = func() {
		checks++
		appendLast()
	}
	defer func() { testOnlyAfterCheck = func() {} }()
	st, err := s.Ingest(context.Background(), o)
	if err != nil || st.FilesRead != 1 || checks != 1 {
		t.Fatalf("stats %+v, %v, %d checks; want the grown file read", st, err, checks)
	}
	fi, err := os.Stat(grown)
	if err != nil {
		t.Fatal(err)
	}
	var offset int64
	if err := s.db.QueryRow(`SELECT offset FROM files WHERE path = ?`, grown).Scan(&offset); err != nil {
		t.Fatal(err)
	}
	if offset != fi.Size() {
		t.Errorf("read to %d of %d bytes: the line written during the check was not read", offset, fi.Size())
	}
	testOnlyAfterCheck = func() {}
	if st := ingest(t, s, home); st.FilesRead != 0 {
		t.Errorf("the next run read again: %+v", st)
	}
}

// TestRerunWaitsForFirstIngestsEnd: a re-run that finds every file read
// but a first ingest's rollups or indexes still to build (another
// process's, perhaps still running) takes the lease, as before.
func TestRerunWaitsForFirstIngestsEnd(t *testing.T) {
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	for name, pending := range map[string]string{
		"rollups deferred": `INSERT INTO meta (key, value) VALUES ('rollups_deferred', x'01')`,
		"index dropped":    `DROP INDEX requests_ts`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "usage.db")
			s := open(t, path)
			ingest(t, s, home)
			if _, err := s.db.Exec(pending); err != nil {
				t.Fatal(err)
			}
			idle, err := s.nothingNew(context.Background(), mustDiscover(t, home))
			if err != nil || idle {
				t.Errorf("nothing new: %v, %v; want the lease taken", idle, err)
			}
		})
	}
}

func mustDiscover(t *testing.T, home string) []transcript.File {
	t.Helper()
	o := options(home)
	claude, err := transcript.DiscoverClaude(o.ClaudeRoots)
	if err != nil {
		t.Fatal(err)
	}
	codex, err := transcript.DiscoverCodex(o.CodexRoots)
	if err != nil {
		t.Fatal(err)
	}
	return append(claude, codex...)
}
