package store

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// interruptedFirstIngest makes a store as a first ingest killed before
// its end leaves it: rows, but no bulk indexes. It returns the store
// (still open, so that its -wal and -shm files stay, as after a kill) and
// the totals of a complete one.
func interruptedFirstIngest(t *testing.T) (s *Store, path, want string) {
	t.Helper()
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "usage.db")
	s = open(t, path)
	ingest(t, s, home)
	want = totals(t, s)
	for _, ix := range bulkIndexes {
		if _, err := s.db.Exec(`DROP INDEX ` + ix.name); err != nil {
			t.Fatal(err)
		}
	}
	return s, path, want
}

func fileHashes(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{path, path + "-wal"} {
		data, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %x\n", filepath.Base(p), sha256.Sum256(data))
	}
	return b.String()
}

// TestOpenReadOnly: a reader opens a store left without its indexes and
// gets complete answers without writing a byte (the indexes stay
// missing, the files unchanged), and cannot ingest.
func TestOpenReadOnly(t *testing.T) {
	s, path, want := interruptedFirstIngest(t)
	before := fileHashes(t, path)
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := totals(t, r); got != want {
		t.Errorf("read-only totals:\n%s\nwant:\n%s", got, want)
	}
	if missing, err := r.missingIndexes(t.Context()); err != nil || !missing {
		t.Errorf("opening read-only built the indexes (missing %v, %v)", missing, err)
	}
	if _, err := r.db.Exec(`DELETE FROM requests`); err == nil {
		t.Error("a read-only store took a write")
	}
	if _, err := r.Ingest(t.Context(), options(t.TempDir())); err == nil {
		t.Error("a read-only store ingested")
	}
	if after := fileHashes(t, path); after != before {
		t.Errorf("opening read-only wrote to the store:\n%s\nwant:\n%s", after, before)
	}
	if len(r.key) != 32 || !bytes.Equal(r.key, s.key) {
		t.Error("the arguments' key was not read")
	}
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "none.db")); err == nil {
		t.Error("a missing store opened read-only")
	}
}
