package store

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// rollupSums are the rollups' sums and the rows' sums of the same
// columns.
func rollupSums(t *testing.T, s *Store) (rollups, rows [2][4]int64) {
	t.Helper()
	err := s.db.QueryRow(`SELECT coalesce(sum(requests), 0), coalesce(sum(input), 0), coalesce(sum(output), 0), coalesce(sum(cache_read), 0) FROM request_rollup`).
		Scan(&rollups[0][0], &rollups[0][1], &rollups[0][2], &rollups[0][3])
	if err == nil {
		err = s.db.QueryRow(`SELECT coalesce(sum(calls), 0), coalesce(sum(errors), 0), coalesce(sum(result_tokens), 0), count(*) > 0 FROM tool_rollup`).
			Scan(&rollups[1][0], &rollups[1][1], &rollups[1][2], &rollups[1][3])
	}
	if err == nil {
		err = s.db.QueryRow(`SELECT count(*), coalesce(sum(input), 0), coalesce(sum(output), 0), coalesce(sum(cache_read), 0) FROM requests`).
			Scan(&rows[0][0], &rows[0][1], &rows[0][2], &rows[0][3])
	}
	if err == nil {
		err = s.db.QueryRow(`SELECT count(*), coalesce(sum(coalesce(is_error, 0) <> 0), 0), coalesce(sum(coalesce(result_tokens, 0)), 0), count(*) > 0 FROM tool_calls`).
			Scan(&rows[1][0], &rows[1][1], &rows[1][2], &rows[1][3])
	}
	if err != nil {
		t.Fatal(err)
	}
	return rollups, rows
}

// TestRollupsDeferred checks that a first ingest fills the rollups at its
// end, and that Open fills them where the one before it did not get there
// (killed, or a store of the schema before the rollups), while the
// queries read the rows in the meantime.
func TestRollupsDeferred(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "usage.db")
	s := open(t, path)
	ingest(t, s, home)
	got, want := rollupSums(t, s)
	if got != want || want[0][0] == 0 || want[1][0] == 0 {
		t.Fatalf("after a first ingest: rollups %v, rows %v", got, want)
	}
	if deferred, err := s.rollupsDeferred(t.Context()); err != nil || deferred {
		t.Fatalf("after a first ingest: deferred %v (%v)", deferred, err)
	}
	// As a first ingest killed before its end leaves it.
	if _, err := s.db.Exec(`DELETE FROM request_rollup; DELETE FROM tool_rollup; INSERT INTO meta (key, value) VALUES ('rollups_deferred', x'01')`); err != nil {
		t.Fatal(err)
	}
	for _, err := range s.RequestSums(t.Context(), Filter{}) {
		if err == nil || !errors.Is(err, ErrNoRollup) {
			t.Fatalf("deferred rollups answered a query (%v)", err)
		}
	}
	s.Close()
	s = open(t, path)
	if got, want := rollupSums(t, s); got != want {
		t.Fatalf("after Open: rollups %v, rows %v", got, want)
	}
	n := 0
	for _, err := range s.RequestSums(t.Context(), Filter{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no rollups after Open")
	}
}
