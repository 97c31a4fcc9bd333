package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPushNUL: PostgreSQL's text holds no NUL (0x00), which a transcript
// may write (\u0000 in a cwd, a tool name, a model). Such a character is
// pushed as U+FFFD, each row keeping its identity (a second push sends
// nothing, and two rows that differ only there stay two); a recorded
// cost out of range, stored before ingest checked it, is pushed as none.
func TestPushNUL(t *testing.T) {
	u := pgDatabase(t)
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(dir, 0o755)
	lines := `{"type":"assistant","cwd":"/home/u/nul\u0000x","sessionId":"s1","version":"2.1.97","timestamp":"2026-11-01T10:00:00.000Z","requestId":"req_1","message":{"id":"msg_1","model":"claude-sonnet-4-5\u0000","content":[{"type":"tool_use","id":"tu_1","name":"mcp__srv\u0000__to\u0000l","input":{}}],"usage":{"input_tokens":3,"output_tokens":5}}}
{"type":"assistant","cwd":"/home/u/nul\ufffdx","sessionId":"s1","version":"2.1.97","timestamp":"2026-11-01T10:00:01.000Z","requestId":"req_2","message":{"id":"msg_2","model":"claude-sonnet-4-5\ufffd","content":[{"type":"tool_use","id":"tu_2","name":"mcp__srv\ufffd__to\ufffdl","input":{}}],"usage":{"input_tokens":3,"output_tokens":5}}}
{"type":"user","cwd":"/home/u/nul\u0000x","sessionId":"s1","version":"2.1.97","timestamp":"2026-11-01T10:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_1","content":"ok"}]}}
`
	os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(lines), 0o644)
	// Invalid UTF-8, as written (JSON is UTF-8; a broken writer's is not).
	os.WriteFile(filepath.Join(dir, "s2.jsonl"), []byte(`{"type":"assistant","cwd":"/home/u/bad`+"\xff"+`y","sessionId":"s2","version":"2.1.97","timestamp":"2026-11-01T11:00:00.000Z","requestId":"req_3","message":{"id":"msg_3","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}
`), 0o644)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	if _, err := s.db.Exec(`UPDATE requests SET cost_usd = 1e308 WHERE message_id = 'msg_2'`); err != nil {
		t.Fatal(err)
	}
	st, err := s.Push(context.Background(), u, pushOpts("laptop"))
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	if st.Added == 0 {
		t.Errorf("push %+v; want rows added", st)
	}
	st, err = s.Push(context.Background(), u, pushOpts("laptop"))
	if err != nil || st.Added != 0 {
		t.Errorf("push again: %+v %v; want nothing added", st, err)
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	strs := func(q string) []string {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var v sql.NullString
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v.String)
		}
		return out
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{`SELECT model FROM requests ORDER BY message_id`, []string{"claude-sonnet-4-5\ufffd", "claude-sonnet-4-5\ufffd", "m"}},
		{`SELECT project FROM requests ORDER BY message_id`, []string{"/home/u/nul\ufffdx", "/home/u/nul\ufffdx", "/home/u/bad\ufffdy"}},
		{`SELECT coalesce(CAST(cost_usd AS TEXT), 'none') FROM requests ORDER BY message_id`, []string{"none", "none", "none"}},
		{`SELECT name || ' ' || server || ' ' || tool FROM tool_calls ORDER BY call_id`, []string{"mcp__srv\ufffd__to\ufffdl srv\ufffd to\ufffdl", "mcp__srv\ufffd__to\ufffdl srv\ufffd to\ufffdl"}},
		{`SELECT project FROM sessions ORDER BY session_id`, []string{"/home/u/nul\ufffdx", "/home/u/bad\ufffdy"}},
	} {
		if got := strs(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.q, got, c.want)
		}
	}
}

// TestOneLine: a driver's error over several lines, as pgx writes one for
// each address it tried, is one line with each attempt said once.
func TestOneLine(t *testing.T) {
	refused := "127.0.0.1:1 (127.0.0.1): dial error: dial tcp 127.0.0.1:1: connect: connection refused"
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"failed to connect to `user=u database=db`:\n\t" + refused + "\n\t" + refused,
			"failed to connect to `user=u database=db`: " + refused},
		{"failed to connect to `user=u database=db`:\n\t::1:1 (::1): refused\n\t127.0.0.1:1 (127.0.0.1): refused",
			"failed to connect to `user=u database=db`: ::1:1 (::1): refused; 127.0.0.1:1 (127.0.0.1): refused"},
		{"a\n\nb\n", "a; b"},
	} {
		if got := oneLine(c.in); got != c.want {
			t.Errorf("oneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
