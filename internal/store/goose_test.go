package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

func gooseOptions(home string) IngestOptions {
	return IngestOptions{GooseRoots: []string{filepath.Join(home, ".local", "share", "goose", "sessions")}, Count: token.O200k().Count}
}

// TestGooseIngest: Goose's database is read through a copy, without a
// byte of it (or of its write-ahead log) changed or a file added beside
// it, while Goose holds a write transaction open on it; a re-run with
// nothing new reads nothing; a change (a new message, a session's grown
// totals) reads the database again, and the store then holds what a
// first read of it would, nothing twice.
func TestGooseIngest(t *testing.T) {
	home := t.TempDir()
	m, err := transcripttest.GenerateGoose(home, 5, 20, 3, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	agent, err := sql.Open("sqlite", "file:"+filepath.ToSlash(m.DB)+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(100)")
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	agent.SetMaxOpenConns(1)
	// Goose mid-write: an open transaction holding the write lock.
	tx, err := agent.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE sessions SET name = 'renamed' WHERE rowid = 1`); err != nil {
		t.Fatal(err)
	}
	listing := func() string {
		entries, _ := os.ReadDir(filepath.Dir(m.DB))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	beforeFiles, beforeHash := listing(), fileHashes(t, m.DB)

	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	done := make(chan struct{})
	var st *IngestStats
	go func() {
		defer close(done)
		st, err = s.Ingest(context.Background(), gooseOptions(home))
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the ingest waits on Goose's open transaction")
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 1 || st.FilesRead != 1 || st.Requests < 10 || st.ToolCalls < 10 {
		t.Fatalf("stats %+v", st)
	}
	if after := fileHashes(t, m.DB); after != beforeHash {
		t.Errorf("Goose's files changed:\n%s\n%s", beforeHash, after)
	}
	if got := listing(); got != beforeFiles {
		t.Errorf("files beside Goose's database: %q, were %q", got, beforeFiles)
	}
	// Goose's own write goes through.
	if err := tx.Commit(); err != nil {
		t.Fatalf("Goose's transaction: %v", err)
	}
	first := totals(t, s)
	if !strings.Contains(first, "goose ") || !strings.Contains(first, "developer") {
		t.Fatalf("no Goose rows:\n%s", first)
	}

	// Nothing new (the commit above changed the log: one read, the same rows).
	s.Ingest(context.Background(), gooseOptions(home))
	if totals(t, s) != first {
		t.Error("a re-read of an unchanged session changed the rows")
	}
	st, err = s.Ingest(context.Background(), gooseOptions(home))
	if err != nil || st.FilesRead != 0 || st.BytesRead != 0 {
		t.Errorf("a run with nothing new read %+v (%v)", st, err)
	}

	// Goose goes on: a session's totals grow, a call is made.
	if _, err := agent.Exec(`UPDATE sessions SET accumulated_input_tokens = accumulated_input_tokens + 1000, input_tokens = input_tokens + 1000 WHERE rowid = 2`); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Exec(`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES ('m-new', ?, 'assistant',
		'[{"type":"toolRequest","id":"toolu_new","toolCall":{"status":"success","value":{"name":"github__search_code","arguments":{"q":"x"}}}}]', 1793800000)`, m.Sessions[1]); err != nil {
		t.Fatal(err)
	}
	st, err = s.Ingest(context.Background(), gooseOptions(home))
	if err != nil || st.FilesRead != 1 || st.FilesReread != 1 {
		t.Fatalf("after a change: %+v (%v)", st, err)
	}
	fresh := open(t, filepath.Join(t.TempDir(), "fresh.db"))
	if _, err := fresh.Ingest(context.Background(), gooseOptions(home)); err != nil {
		t.Fatal(err)
	}
	if got, want := totals(t, s), totals(t, fresh); got != want {
		t.Errorf("after a change, the rows differ from a first read:\n%s\nfresh:\n%s", got, want)
	}
	if got := totals(t, s); got == first || !strings.Contains(got, "toolu_new") {
		t.Error("the change was not read")
	}
}

// TestGooseHostile: a file named sessions.db that is not Goose's, or not
// a database at all, is a warning naming it; it is tried again next time.
func TestGooseHostile(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".local", "share", "goose", "sessions")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "sessions.db"), []byte("not a database\x1b[31m"), 0o644)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	for range 2 {
		st, err := s.Ingest(context.Background(), gooseOptions(home))
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], filepath.Join(dir, "sessions.db")+": ") || strings.Contains(st.Warnings[0], "\x1b") {
			t.Errorf("warnings %q", st.Warnings)
		}
	}
	// Another program's database of that name.
	os.Remove(filepath.Join(dir, "sessions.db"))
	db, _ := sql.Open("sqlite", filepath.Join(dir, "sessions.db"))
	db.Exec(`CREATE TABLE other (x)`)
	db.Close()
	st, err := s.Ingest(context.Background(), gooseOptions(home))
	if err != nil || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "not a Goose session database: no sessions table") {
		t.Errorf("warnings %q (%v)", st.Warnings, err)
	}
}
