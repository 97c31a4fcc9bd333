package usage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// TestPeriodKeysAtTimeBounds: requests at the edges of the times a line
// may record ([2000-01-01, 2100-01-01) UTC) are kept, those outside are
// skipped and reported by line, and in the zones furthest from UTC the
// period keys stay four-digit dates that sort as dates.
func TestPeriodKeysAtTimeBounds(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "projects", "-p")
	os.MkdirAll(dir, 0o755)
	stamps := []struct {
		ts   string
		kept bool
	}{
		{"0000-01-01T00:00:00Z", false},
		{"1999-12-31T23:59:59.999Z", false},
		{"2000-01-01T00:00:00.000Z", true},
		{"2026-11-01T10:00:00.000Z", true},
		{"2099-12-31T23:59:59.999Z", true},
		{"2100-01-01T00:00:00.000Z", false},
		{"9999-12-31T23:59:59Z", false},
	}
	var b strings.Builder
	var kept []time.Time
	var wantWarn []string
	path := filepath.Join(dir, "s.jsonl")
	for i, s := range stamps {
		fmt.Fprintf(&b, `{"type":"assistant","cwd":"/p","sessionId":"s","version":"2.1.97","message":{"id":"m%d","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":10,"output_tokens":1}},"requestId":"r%d","timestamp":"%s"}`+"\n", i, i, s.ts)
		if s.kept {
			at, _ := time.Parse(time.RFC3339Nano, s.ts)
			kept = append(kept, at)
		} else {
			wantWarn = append(wantWarn, fmt.Sprintf("%s:%d: time out of range (before 2000-01-01 or from 2100-01-01 UTC)", path, i+1))
		}
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	s, err := store.Open(filepath.Join(t.TempDir(), "u.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Ingest(context.Background(), store.IngestOptions{ClaudeRoots: []string{filepath.Join(home, "projects")}, Count: token.O200k().Count})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(st.Warnings, "\n") != strings.Join(wantWarn, "\n") || st.Requests != len(kept) {
		t.Errorf("warnings %q, %d requests; want %q, %d", st.Warnings, st.Requests, wantWarn, len(kept))
	}
	date := regexp.MustCompile(`^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$`)
	for _, zone := range []string{"Pacific/Kiritimati", "Etc/GMT+12", "UTC"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for _, by := range []string{"day", "week", "month"} {
			key := func(at time.Time) string {
				switch by {
				case "day":
					return at.In(loc).Format("2006-01-02")
				case "week":
					return usage.WeekStart(at, loc, time.Monday).Format("2006-01-02")
				}
				return at.In(loc).Format("2006-01")
			}
			var want []string
			for _, at := range kept {
				want = append(want, key(at))
			}
			rep, err := usage.Build(context.Background(), s, usage.Options{By: by, StartOfWeek: time.Monday, Location: loc, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range rep.Usage {
				got = append(got, u.Key)
				if !date.MatchString(u.Key) {
					t.Errorf("%s by %s: key %q is not a date", zone, by, u.Key)
				}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s by %s: keys %v, want %v", zone, by, got, want)
			}
		}
	}
}
