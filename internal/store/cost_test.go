package store

import (
	"database/sql"
	"os"
	"path/filepath"
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
