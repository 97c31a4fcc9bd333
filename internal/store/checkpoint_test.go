package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointAside: the checkpoint copies what was committed into the
// store's file (which a reader of that file alone, ignoring the log,
// then sees) while another connection goes on writing, and loses none
// of what that one writes meanwhile.
func TestCheckpointAside(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.db")
	s := open(t, path)
	count := func(db *sql.DB) int {
		t.Helper()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM meta WHERE key LIKE 'test-%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	write := func(from, to int) {
		t.Helper()
		if err := s.tx(t.Context(), func(tx *sql.Tx) error {
			for i := from; i < to; i++ {
				if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, fmt.Sprintf("test-%05d", i), make([]byte, 500)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	fileOnly := func() int {
		t.Helper()
		db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro&immutable=1")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		err = db.QueryRow(`SELECT count(*) FROM meta WHERE key LIKE 'test-%'`).Scan(&n)
		if err != nil && strings.Contains(err.Error(), "no such table") {
			return 0 // the schema too is only in the log
		}
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	write(0, 2000)
	if n := fileOnly(); n != 0 {
		t.Fatalf("before any checkpoint the store's file holds %d of the rows, want 0 (all in the log)", n)
	}
	wait := s.checkpointAside(t.Context())
	write(2000, 4000) // beside the checkpoint
	wait()
	if n := fileOnly(); n < 2000 {
		t.Errorf("after the checkpoint the store's file holds %d rows, want at least the 2000 committed before it", n)
	}
	if n := count(s.db); n != 4000 {
		t.Errorf("the store holds %d rows, want 4000", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := fileOnly(); n != 4000 {
		t.Errorf("after Close the store's file holds %d rows, want 4000", n)
	}
}
