package usage

import (
	"strings"
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	loc := time.FixedZone("X", -5*3600)
	now := time.Date(2026, 3, 10, 1, 30, 0, 0, time.UTC) // 9 March in loc
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, loc) }
	tests := []struct {
		args         WindowArgs
		since, until time.Time
		err          string
	}{
		{args: WindowArgs{}},
		{args: WindowArgs{Days: 1}, since: day(2026, 3, 9)},
		{args: WindowArgs{Days: 3}, since: day(2026, 3, 7)},
		{args: WindowArgs{Days: MaxDays}, since: day(2026, 3, 9).AddDate(0, 0, 1-MaxDays)},
		{args: WindowArgs{Days: MaxDays + 1}, err: "--days must be from 0 (all history) to 36525 (100 years), not 36526"},
		{args: WindowArgs{Days: -3}, err: "--days must be from 0 (all history) to 36525 (100 years), not -3"},
		{args: WindowArgs{Days: 1e18}, err: "not 1000000000000000000"},
		{args: WindowArgs{Days: -1 << 63}, err: "--days must be from 0"},
		{args: WindowArgs{Days: 2, Since: "2026-01-01"}, err: "--days and --since exclude each other"},
		{args: WindowArgs{Since: "2026-01-01", Until: "2026-01-01"}, since: day(2026, 1, 1), until: day(2026, 1, 2)},
		{args: WindowArgs{Since: "20260101", Until: "20260131"}, since: day(2026, 1, 1), until: day(2026, 2, 1)},
		{args: WindowArgs{Since: "2026-01-02", Until: "2026-01-01"}, err: "--since 2026-01-02 is not before --until 2026-01-01: the window is empty"},
		{args: WindowArgs{Since: "2026-01-01T10:00:00Z", Until: "2026-01-01T10:00:00Z"}, err: "the window is empty"},
		{args: WindowArgs{Since: "2026-01-01T10:00:00Z", Until: "2026-01-01T10:00:01Z"}, since: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), until: time.Date(2026, 1, 1, 10, 0, 1, 0, time.UTC)},
		{args: WindowArgs{Days: 3, Until: "2026-03-06"}, err: "the last 3 days (from 2026-03-07) is not before --until 2026-03-06"},
		{args: WindowArgs{Days: 3, Until: "2026-03-07"}, since: day(2026, 3, 7), until: day(2026, 3, 8)},
		{args: WindowArgs{Until: "2026-03-07"}, until: day(2026, 3, 8)},
		{args: WindowArgs{Since: "yesterday"}, err: `--since: "yesterday" is not a date`},
		{args: WindowArgs{Until: "2026-13-01"}, err: `--until: "2026-13-01" is not a date`},
	}
	for _, tt := range tests {
		since, until, err := tt.args.Window(now, loc, "--")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%+v: error %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || !since.Equal(tt.since) || !until.Equal(tt.until) {
			t.Errorf("%+v: %v, %v, %v; want %v, %v", tt.args, since, until, err, tt.since, tt.until)
		}
	}
	// Tool arguments are named without dashes.
	if _, _, err := (WindowArgs{Days: -1}).Window(now, loc, ""); err == nil || !strings.HasPrefix(err.Error(), "days must be") {
		t.Errorf("tool argument: %v", err)
	}
}
