package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRecordedCost keeps the costUSD of the copy of a message that is
// kept (the one with the largest total), and NULL where none was recorded.
func TestRecordedCost(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(dir, 0o755)
	lines := `{"type":"assistant","sessionId":"s","timestamp":"2026-11-01T10:00:00.000Z","requestId":"req_1","costUSD":0.01,"message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":5}}}
{"type":"assistant","sessionId":"s","timestamp":"2026-11-01T10:00:01.000Z","requestId":"req_1","costUSD":0.02,"message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":500}}}
{"type":"assistant","sessionId":"s","timestamp":"2026-11-01T10:00:02.000Z","requestId":"req_2","message":{"id":"msg_2","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":7}}}
`
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(lines), 0o644)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	rows, err := s.db.Query(`SELECT message_id, output, cost_usd FROM requests ORDER BY message_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type row struct {
		id   string
		out  int64
		cost sql.NullFloat64
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.out, &r.cost); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := []row{{"msg_1", 500, sql.NullFloat64{Float64: 0.02, Valid: true}}, {"msg_2", 7, sql.NullFloat64{}}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("requests %+v, want %+v", got, want)
	}
}

// TestRecordedCostBounds stores a request whose costUSD is out of range
// without its cost, with a file:line warning, and reads a cost out of
// range that a store written before this check holds as none: in the
// rows, and in the rollups (whose sum then falls back to the rows).
func TestRecordedCostBounds(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(dir, 0o755)
	line := func(n int, cost string) string {
		return fmt.Sprintf(`{"type":"assistant","sessionId":"s","timestamp":"2026-11-01T10:00:0%d.000Z","requestId":"req_%d","costUSD":%s,"message":{"id":"msg_%d","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":5}}}`+"\n", n, n, cost, n)
	}
	path := filepath.Join(dir, "s.jsonl")
	os.WriteFile(path, []byte(line(1, "0.5")+line(2, "1e308")+line(3, "-5")+line(4, "100000")), 0o644)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	st := ingest(t, s, home)
	want := []string{path + ":2: costUSD is negative or over $100,000; cost ignored", path + ":3: costUSD is negative or over $100,000; cost ignored"}
	if !slices.Equal(st.Warnings, want) || st.Requests != 4 {
		t.Errorf("warnings %q, %d requests; want %q, 4", st.Warnings, st.Requests, want)
	}
	costs := func() []any {
		var got []any
		for r, err := range s.Requests(context.Background(), Filter{Order: ByTime}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, deref(r.CostUSD))
		}
		return got
	}
	sum := func() (float64, error) {
		var c float64
		for r, err := range s.RequestSums(context.Background(), Filter{}) {
			if err != nil {
				return 0, err
			}
			c += r.CostUSD
		}
		return c, nil
	}
	if got, want := costs(), []any{0.5, nil, nil, 100000.0}; !slices.Equal(got, want) {
		t.Errorf("costs %v, want %v", got, want)
	}
	if c, err := sum(); err != nil || c != 100000.5 {
		t.Errorf("rollup cost %v %v, want 100000.5", c, err)
	}
	// A store written before: the costs as they were read then.
	for id, c := range map[string]float64{"msg_2": 1e308, "msg_3": -5, "msg_4": math.Inf(1)} {
		if _, err := s.db.Exec(`UPDATE requests SET cost_usd = ? WHERE message_id = ?`, c, id); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := costs(), []any{0.5, nil, nil, nil}; !slices.Equal(got, want) {
		t.Errorf("stored before: costs %v, want %v", got, want)
	}
	if _, err := sum(); !errors.Is(err, ErrNoRollup) {
		t.Errorf("stored before: rollup sums %v, want ErrNoRollup", err)
	}
	// Refilled, the rollups hold the checked costs.
	if _, err := s.db.Exec(fillRollups); err != nil {
		t.Fatal(err)
	}
	if c, err := sum(); err != nil || c != 0.5 {
		t.Errorf("refilled: rollup cost %v %v, want 0.5", c, err)
	}
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// TestOldReaderRowsReread: a store whose rows were read before times and
// costs were checked (reader 4) reads its files again on the next ingest:
// a time out of range and a cost out of range are gone from its rows.
func TestOldReaderRowsReread(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(`{"type":"assistant","sessionId":"s","timestamp":"2026-11-01T10:00:00.000Z","requestId":"req_1","costUSD":0.5,"message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":5}}}
`), 0o644)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	// As an older reader left them: a cost and a time it did not check.
	for _, q := range []string{`UPDATE requests SET cost_usd = 1e308, ts = 253402300799000`, `UPDATE files SET reader = 4`} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ingest(t, s, home)
	var ts int64
	var cost float64
	if err := s.db.QueryRow(`SELECT ts, cost_usd FROM requests`).Scan(&ts, &cost); err != nil || ts != 1793527200000 || cost != 0.5 {
		t.Errorf("request at %d costing %v (%v); want it read again: at 1793527200000, costing 0.5", ts, cost, err)
	}
}
