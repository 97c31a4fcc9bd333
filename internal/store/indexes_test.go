package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// schema is the store's indexes as SQLite holds them.
func schema(t *testing.T, s *Store) string {
	t.Helper()
	rows, err := s.db.Query(`SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'index' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var name, sql string
		if err := rows.Scan(&name, &sql); err != nil {
			t.Fatal(err)
		}
		b.WriteString(name + ": " + strings.Join(strings.Fields(strings.Replace(sql, " IF NOT EXISTS", "", 1)), " ") + "\n")
	}
	return b.String()
}

func TestBulkIndexes(t *testing.T) {
	dir := t.TempDir()
	fresh := open(t, filepath.Join(dir, "fresh.db"))
	want := schema(t, fresh)
	for _, ix := range bulkIndexes {
		if !strings.Contains(want, ix.name+": ") {
			t.Fatalf("the migrations create no index %s:\n%s", ix.name, want)
		}
	}

	// A first ingest drops the indexes and builds them again, the same.
	home := filepath.Join(dir, "home")
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "usage.db")
	s := open(t, path)
	st := ingest(t, s, home)
	if st.Requests == 0 {
		t.Fatal("nothing ingested")
	}
	if got := schema(t, s); got != want {
		t.Errorf("indexes after the first ingest:\n%s\nwant:\n%s", got, want)
	}
	var plan string
	var id, parent, unused int
	if err := s.db.QueryRow(`EXPLAIN QUERY PLAN SELECT * FROM requests WHERE ts > 0`).Scan(&id, &parent, &unused, &plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "requests_ts") {
		t.Errorf("a query by time does not use requests_ts: %s", plan)
	}

	// A first ingest that stops before its end leaves them dropped: the
	// next Open builds them.
	dropped, err := s.dropIndexesForFirstIngest(context.Background(), true)
	if err != nil || dropped {
		t.Fatalf("indexes of a store with rows dropped: %v, %v", dropped, err)
	}
	for _, ix := range bulkIndexes {
		if _, err := s.db.Exec(`DROP INDEX ` + ix.name); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = open(t, path)
	if got := schema(t, s); got != want {
		t.Errorf("indexes after re-opening:\n%s\nwant:\n%s", got, want)
	}
}
