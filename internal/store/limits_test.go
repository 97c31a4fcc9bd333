package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestUsageLimits: Claude Code's placeholders for a request refused at the
// usage limit are kept with their reset (and no request, no session span);
// a file read again from the top keeps each once; one appended to is read
// on.
func TestUsageLimits(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-home-u-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s1.jsonl")
	request := `{"type":"assistant","cwd":"/home/u/p","sessionId":"s1","version":"2.1.97","timestamp":"2026-11-20T10:00:00.000Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":10,"output_tokens":5}}}` + "\n"
	limit := func(ts, reset string) string {
		return `{"type":"assistant","cwd":"/home/u/p","sessionId":"s1","version":"2.1.97","timestamp":"` + ts + `","isApiErrorMessage":true,"message":{"id":"e` + ts + `","model":"<synthetic>","content":[{"type":"text","text":"Claude AI usage limit reached|` + reset + `"}],"usage":{"input_tokens":0,"output_tokens":0}}}` + "\n"
	}
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	check := func(want ...UsageLimit) {
		t.Helper()
		got, err := s.UsageLimits(context.Background(), Filter{Source: "claude"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("usage limits %v, want %v", got, want)
		}
	}
	write(request + limit("2026-11-20T12:00:00.000Z", "1795000000"))
	st := ingest(t, s, home)
	check(UsageLimit{TS: 1795176000000, Reset: 1795000000000})
	if st.Requests != 1 {
		t.Errorf("%d requests, want 1 (a placeholder is none)", st.Requests)
	}
	var first, last int64
	if err := s.db.QueryRow(`SELECT first_ts, last_ts FROM sessions WHERE session_id = 's1'`).Scan(&first, &last); err != nil || first != last || first != 1795168800000 {
		t.Errorf("the session spans %d to %d (%v): its request alone", first, last, err)
	}

	write(request + limit("2026-11-20T12:00:00.000Z", "1795000000") + limit("2026-11-20T12:30:00.000Z", "1795000001"))
	ingest(t, s, home)
	check(UsageLimit{1795176000000, 1795000000000}, UsageLimit{1795177800000, 1795000001000})

	// Rewritten from the top: read again, each kept once.
	write(request + limit("2026-11-20T12:10:00.000Z", "1795000002"))
	ingest(t, s, home)
	check(UsageLimit{1795176600000, 1795000002000})
}

// TestLongNamesBounded: a name over transcript.MaxName (a rollout's
// working folder, session and model, carried from its session_meta and
// turn_context to every line after them; a Claude Code line's folder,
// carried to the lines that name none) is stored shortened in every row
// and in the saved reader state, and two such names that differ only
// past the cut stay two.
func TestLongNamesBounded(t *testing.T) {
	home := t.TempDir()
	long := func(c string) string { return "/" + strings.Repeat(c, 1<<20) }
	rollout := func(name, cwd string) {
		t.Helper()
		var b strings.Builder
		fmt.Fprintf(&b, `{"timestamp":"2026-11-03T10:00:00Z","type":"session_meta","payload":{"id":%q,"cwd":%q}}`+"\n", long("i")+name, cwd)
		fmt.Fprintf(&b, `{"timestamp":"2026-11-03T10:00:00Z","type":"turn_context","payload":{"model":%q}}`+"\n", "gpt-"+long("m"))
		for i := range 50 {
			fmt.Fprintf(&b, `{"timestamp":"2026-11-03T10:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c%d"}}`+"\n", i)
			fmt.Fprintf(&b, `{"timestamp":"2026-11-03T10:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"output_tokens":1,"total_tokens":%d}}}}`+"\n", 10*(i+1), 10*(i+1)+1)
		}
		dir := filepath.Join(home, ".codex", "sessions", "2026", "11", "03")
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rollout("rollout-2026-11-03T10-00-00-0199aaaa-bbbb-cccc-dddd-eeeeffff0001.jsonl", long("a")+"x")
	rollout("rollout-2026-11-03T10-00-00-0199aaaa-bbbb-cccc-dddd-eeeeffff0002.jsonl", long("a")+"y")
	claude := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(claude, 0o755)
	line := func(cwd string, i int) string {
		return fmt.Sprintf(`{"type":"assistant","cwd":%q,"sessionId":"s1","timestamp":"2026-11-20T10:00:%02d.000Z","requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":5}}}`+"\n", cwd, i, i, i, i)
	}
	text := line(long("c"), 0)
	for i := 1; i < 50; i++ {
		text += line("", i)
	}
	if err := os.WriteFile(filepath.Join(claude, "s1.jsonl"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	st := ingest(t, s, home)
	if st.Requests != 150 { // 50 a file
		t.Errorf("%d requests, want 150", st.Requests)
	}
	for _, q := range []string{
		`SELECT max(length(CAST(project AS BLOB))) FROM tool_calls`,
		`SELECT max(length(CAST(session_id AS BLOB))) FROM tool_calls`,
		`SELECT max(length(CAST(project AS BLOB))) FROM requests`,
		`SELECT max(length(CAST(model AS BLOB))) FROM requests`,
		`SELECT max(length(CAST(session_id AS BLOB))) FROM requests`,
		`SELECT max(length(CAST(project AS BLOB))) FROM sessions`,
		`SELECT max(length(state)) / 4 FROM files`,
	} {
		var n int
		if err := s.db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > transcript.MaxName {
			t.Errorf("%s: %d bytes, over %d", q, n, transcript.MaxName)
		}
	}
	var projects int
	if err := s.db.QueryRow(`SELECT count(DISTINCT project) FROM tool_calls WHERE source = 'codex'`).Scan(&projects); err != nil || projects != 2 {
		t.Errorf("%d projects (%v), want 2", projects, err)
	}
}

// TestPushUsageLimits: the usage-limit placeholders are pushed and
// mirrored, so that a mirror lists those the local store lists, by
// machine too; a store that pushed before they were sends them on its
// next push, incrementally; one rewritten from the top takes its old
// placeholders out of the shared store and the mirror.
func TestPushUsageLimits(t *testing.T) {
	u := pgDatabase(t)
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-home-u-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	request := `{"type":"assistant","cwd":"/home/u/p","sessionId":"s1","timestamp":"2026-11-20T10:00:00.000Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":10,"output_tokens":5}}}` + "\n"
	limit := func(ts, reset string) string {
		return `{"type":"assistant","cwd":"/home/u/p","sessionId":"s1","timestamp":"` + ts + `","isApiErrorMessage":true,"message":{"id":"e` + ts + `","model":"<synthetic>","content":[{"type":"text","text":"Claude AI usage limit reached|` + reset + `"}],"usage":{"input_tokens":0,"output_tokens":0}}}` + "\n"
	}
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	s.SetSelf("laptop", "dev")
	path := filepath.Join(t.TempDir(), "mirror.db")
	check := func(step string, n int) {
		t.Helper()
		m, _ := mirror(t, u, path)
		defer m.Close()
		for _, f := range []Filter{{Source: "claude"}, {Source: "claude", Machine: "laptop"}, {Source: "claude", Machine: "desk"}} {
			want, err := s.UsageLimits(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.UsageLimits(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: %+v: the mirror lists %v, the local store %v", step, f, got, want)
			}
			if f.Machine != "desk" && len(want) != n {
				t.Errorf("%s: %+v: the local store lists %v, want %d", step, f, want, n)
			}
		}
	}
	write(request + limit("2026-11-20T12:00:00.000Z", "1795000000") + limit("2026-11-20T12:30:00.000Z", "1795000001"))
	ingest(t, s, home)
	if _, err := s.Push(context.Background(), u, pushOpts("laptop")); err != nil {
		t.Fatal(err)
	}
	check("first push", 2)

	// As if pushed by an mcpcost that did not send them.
	db, err := OpenShared(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`DELETE FROM usage_limits`, `DELETE FROM held WHERE tbl = 5`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.Exec(`UPDATE push_state SET usage_limits = 0`); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	st, err := s.Push(context.Background(), u, pushOpts("laptop"))
	if err != nil || st.Full || st.Rows != 2 || st.Added != 2 {
		t.Errorf("the next push of a store that pushed none: %+v, %v; want its 2 placeholders sent incrementally", st, err)
	}
	check("pushed after", 2)

	// Rewritten from the top: the old placeholders go.
	write(request + limit("2026-11-20T12:10:00.000Z", "1795000002"))
	ingest(t, s, home)
	st, err = s.Push(context.Background(), u, pushOpts("laptop"))
	if err != nil || !st.Full || st.Dropped == 0 {
		t.Errorf("push after a rewrite: %+v, %v; want a full push that drops rows", st, err)
	}
	m, mst := mirror(t, u, path)
	if mst.Full || mst.Removed == 0 {
		t.Errorf("the mirror after the rewrite: %+v, want removals read incrementally", mst)
	}
	m.Close()
	check("rewritten", 1)
}
