package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRound writes a Claude Code session of n requests, its ids those of
// round r alone: each round read again from the top drops the last
// round's rows.
func writeRound(t *testing.T, home string, r, n int) {
	t.Helper()
	dir := filepath.Join(home, ".claude", "projects", "-home-u-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for j := range n {
		fmt.Fprintf(&b, `{"type":"assistant","cwd":"/home/u/p","sessionId":"s%d","timestamp":"2026-11-20T10:%02d:%02d.000Z","requestId":"r%d-%d","message":{"id":"m%d-%d","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":%d,"output_tokens":5}}}`+"\n",
			r, r%60, j%60, r, j, r, j, 10+j)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sharedCount(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRemovedBounded: pushes that each drop every row of the last one
// (a file rewritten from the top) keep the shared store's log of
// removals within max(its rows, pgRemovedMin); a mirror brought up to
// date after each push reads them incrementally; one that fell behind
// the pruned point is built again and ends equal to the source, and a
// mirror exactly at the pruned point is not.
func TestRemovedBounded(t *testing.T) {
	defer func(old int64) { pgRemovedMin = old }(pgRemovedMin)
	pgRemovedMin = 30
	const rounds, perRound = 40, 10
	u := pgDatabase(t)
	home := t.TempDir()
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	writeRound(t, home, 0, perRound)
	ingest(t, s, home)
	if _, err := s.Push(context.Background(), u, pushOpts("laptop")); err != nil {
		t.Fatal(err)
	}
	behind := filepath.Join(t.TempDir(), "behind.db")
	current := filepath.Join(t.TempDir(), "current.db")
	for _, p := range []string{behind, current} {
		m, _ := mirror(t, u, p)
		m.Close()
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var most int64
	for r := 1; r <= rounds; r++ {
		writeRound(t, home, r, perRound)
		ingest(t, s, home)
		st, err := s.Push(context.Background(), u, pushOpts("laptop"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Dropped == 0 {
			t.Fatalf("round %d: %+v, want the last round's rows dropped", r, st)
		}
		logged := sharedCount(t, db, `SELECT count(*) FROM removed`)
		live := sharedCount(t, db, `SELECT (SELECT count(*) FROM requests) + (SELECT count(*) FROM tool_calls)
			+ (SELECT count(*) FROM sessions) + (SELECT count(*) FROM compactions)`)
		most = max(most, logged)
		if logged > max(live, pgRemovedMin) {
			t.Fatalf("round %d: %d removals logged, over max(%d rows, %d)", r, logged, live, pgRemovedMin)
		}
		m, mst := mirror(t, u, current)
		if mst.Full || mst.Removed == 0 {
			t.Errorf("round %d: the mirror brought up to date after each push: %+v, want removals read incrementally", r, mst)
		}
		if got, want := reportTotals(t, m, Filter{}), reportTotals(t, s, Filter{}); got != want {
			t.Errorf("round %d: the mirror reports\n%s\nwant the source's\n%s", r, got, want)
		}
		m.Close()
	}
	t.Logf("at most %d removals logged over %d pushes that dropped %d rows each", most, rounds, perRound)
	pruned := sharedCount(t, db, `SELECT removed_pruned FROM store_info`)
	if pruned == 0 {
		t.Fatal("nothing pruned: the test tests nothing")
	}

	want := reportTotals(t, s, Filter{})
	m, st := mirror(t, u, behind)
	if !st.Full || !st.Behind {
		t.Errorf("the mirror that fell behind: %+v, want it built again", st)
	}
	if got := reportTotals(t, m, Filter{}); got != want {
		t.Errorf("the mirror that fell behind reports\n%s\nwant the source's\n%s", got, want)
	}
	m.Close()

	// A mirror's position set at the pruned point and just before it: it
	// holds every removal after the first, not the second.
	for _, tc := range []struct {
		name string
		seq  int64
		full bool
	}{
		{"at the pruned point", pruned, false},
		{"before it", pruned - 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := mirror(t, u, current)
			if _, err := m.db.Exec(`UPDATE meta SET value = ? WHERE key = 'mirror_seq'`, tc.seq); err != nil {
				t.Fatal(err)
			}
			m.Close()
			m, st := mirror(t, u, current)
			if st.Full != tc.full || st.Behind != tc.full {
				t.Errorf("a mirror at seq %d (pruned to %d): %+v, want full %v", tc.seq, pruned, st, tc.full)
			}
			if got := reportTotals(t, m, Filter{}); got != want {
				t.Errorf("the mirror reports\n%s\nwant the source's\n%s", got, want)
			}
		})
	}
}
