package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// TestUsageNoIngestWritesNothing: "usage --no-ingest" on a store that an
// interrupted first ingest left without its indexes reports the same
// figures as before, and writes nothing: the store's files are unchanged
// and the indexes are still missing (building them needs a disk with room).
func TestUsageNoIngestWritesNothing(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(root, "usage.db")
	s, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The same database through a second connection, to drop and count
	// its indexes as no mcpcost command would.
	raw, err := sql.Open("sqlite", "file:"+filepath.ToSlash(db))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := s.Ingest(context.Background(), store.IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
	}); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home, "TZ": "UTC"}
	now := time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC)
	run := func() string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return nil }, Now: func() time.Time { return now }}
		if code := Run(env, []string{"usage", "--no-ingest", "--db", db, "--by", "session", "--json"}); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		return stdout.String()
	}
	want := run()
	if !strings.Contains(want, `"requests"`) {
		t.Fatalf("no requests in the report:\n%s", want)
	}
	// As a first ingest killed before its end leaves it (the process's
	// connection still open keeps the -wal and -shm files).
	rows, err := raw.Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND (name LIKE 'requests_%' OR name LIKE 'tool_calls_%')`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	if len(names) == 0 {
		t.Fatal("no indexes to drop")
	}
	for _, n := range names {
		if _, err := raw.Exec(`DROP INDEX ` + n); err != nil {
			t.Fatal(err)
		}
	}
	hashes := func() string {
		var b strings.Builder
		for _, p := range []string{db, db + "-wal"} {
			data, _ := os.ReadFile(p)
			sum := sha256.Sum256(data)
			b.Write(sum[:])
		}
		return b.String()
	}
	before := hashes()
	if got := run(); got != want {
		t.Errorf("without indexes:\n%s\nwant:\n%s", got, want)
	}
	if hashes() != before {
		t.Error("usage --no-ingest wrote to the store")
	}
	var n int
	raw.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND (name LIKE 'requests_%' OR name LIKE 'tool_calls_%')`).Scan(&n)
	if n != 0 {
		t.Errorf("usage --no-ingest built %d indexes", n)
	}
}
