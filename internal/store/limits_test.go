package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
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
