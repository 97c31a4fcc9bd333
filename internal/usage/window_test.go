package usage

import (
	"os"
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

func TestWeekStartAndPeriodStart(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	at := func(y int, m time.Month, d, h int, loc *time.Location) time.Time {
		return time.Date(y, m, d, h, 0, 0, 0, loc)
	}
	for _, tc := range []struct {
		t     time.Time
		loc   *time.Location
		first time.Weekday
		want  string
	}{
		{at(2026, 11, 1, 12, time.UTC), time.UTC, time.Sunday, "2026-11-01"}, // a Sunday
		{at(2026, 11, 1, 12, time.UTC), time.UTC, time.Monday, "2026-10-26"},
		{at(2026, 11, 2, 0, time.UTC), time.UTC, time.Monday, "2026-11-02"},   // the first instant
		{at(2026, 11, 1, 23, time.UTC), time.UTC, time.Monday, "2026-10-26"},  // the last hour before it
		{at(2026, 11, 2, 3, time.UTC), ny, time.Monday, "2026-10-26"},         // still Sunday in New York
		{at(2026, 11, 2, 5, time.UTC), ny, time.Monday, "2026-11-02"},         // Monday, after DST ended
		{at(2026, 1, 1, 12, time.UTC), time.UTC, time.Saturday, "2025-12-27"}, // across a year
		{at(2026, 3, 1, 12, time.UTC), time.UTC, time.Tuesday, "2026-02-24"},  // across February
	} {
		got := WeekStart(tc.t, tc.loc, tc.first)
		if got.Format("2006-01-02") != tc.want || got.Hour() != 0 || got.Weekday() != tc.first {
			t.Errorf("WeekStart(%s in %s, %s) = %s, want %s at midnight", tc.t, tc.loc, tc.first, got, tc.want)
		}
	}
	now := at(2026, 3, 10, 1, time.UTC) // Monday 9 March in New York
	for _, tc := range []struct {
		by   string
		n    int
		want time.Time
	}{
		{"day", 1, at(2026, 3, 9, 0, ny)},
		{"day", 10, at(2026, 2, 28, 0, ny)},
		{"week", 1, at(2026, 3, 9, 0, ny)},
		{"week", 2, at(2026, 3, 2, 0, ny)},
		{"month", 1, at(2026, 3, 1, 0, ny)},
		{"month", 3, at(2026, 1, 1, 0, ny)},
		{"month", 4, at(2025, 12, 1, 0, ny)},
		{"month", 15, at(2025, 1, 1, 0, ny)},
	} {
		if got := PeriodStart(tc.by, now, ny, time.Monday, tc.n); !got.Equal(tc.want) {
			t.Errorf("PeriodStart(%s, %d) = %s, want %s", tc.by, tc.n, got, tc.want)
		}
	}
	for i, name := range Weekdays {
		if d, ok := ParseWeekday(strings.ToUpper(name)); !ok || d != time.Weekday(i) {
			t.Errorf("ParseWeekday(%s) = %v %v", name, d, ok)
		}
	}
	for _, bad := range []string{"", "mon", "sundays", "7"} {
		if _, ok := ParseWeekday(bad); ok {
			t.Errorf("ParseWeekday(%q) reads a day", bad)
		}
	}
}

func TestPeriod(t *testing.T) {
	since := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		a    WindowArgs
		want string
	}{
		{WindowArgs{}, "all history"},
		{WindowArgs{Days: 1}, "today (2026-11-25)"},
		{WindowArgs{Days: 7}, "the last 7 days (from 2026-11-25)"},
		{WindowArgs{Days: 7, Until: "2026-11-30"}, "the last 7 days (from 2026-11-25 to 2026-11-30 inclusive)"},
		{WindowArgs{Since: "2026-01-01", Until: "2026-01-31"}, "from 2026-01-01 to 2026-01-31 inclusive"},
		{WindowArgs{Since: "20260101", Until: "20260131"}, "from 20260101 to 20260131 inclusive"},
		{WindowArgs{Since: "2026-01-01"}, "since 2026-01-01"},
		{WindowArgs{Until: "2026-01-31"}, "until 2026-01-31 inclusive"},
		// An instant is not included: it is shown as typed, no more.
		{WindowArgs{Until: "2026-02-01T00:00:00Z"}, "until 2026-02-01T00:00:00Z"},
	} {
		if got := c.a.Period(since); got != c.want {
			t.Errorf("%+v: %q, want %q", c.a, got, c.want)
		}
	}
}

func TestZoneName(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	data, err := os.ReadFile("/usr/share/zoneinfo/Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	// A zone known only as the system's: time.Local's name.
	local, err := time.LoadLocationFromTZData("Local", data)
	if err != nil {
		t.Fatal(err)
	}
	kolkata, _ := time.LoadLocationFromTZData("Local", mustRead(t, "/usr/share/zoneinfo/Asia/Kolkata"))
	winter := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	summer := time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		loc  *time.Location
		at   time.Time
		want string
	}{
		{paris, winter, "Europe/Paris"},
		{time.UTC, winter, "UTC"},
		{nil, winter, "UTC"},
		{local, winter, "CET, UTC+01:00"},
		{local, summer, "CEST, UTC+02:00"},
		{kolkata, winter, "IST, UTC+05:30"},
		{time.FixedZone("Local", -3*3600-1800), winter, "UTC-03:30"},
		{time.FixedZone("Local", 0), winter, "UTC+00:00"},
		{time.FixedZone("", 7200), winter, "UTC+02:00"},
		{time.FixedZone("Local", 0), summer, "UTC+00:00"},
		{mustZone(t, "Local", "UTC", 0), winter, "UTC"}, // time.Local without a zoneinfo file
		{mustZone(t, "Local", "+03", 3*3600), winter, "UTC+03:00"},
	} {
		if got := ZoneName(c.loc, c.at); got != c.want {
			t.Errorf("%v at %v: %q, want %q", c.loc, c.at, got, c.want)
		}
	}
}

// mustZone is a zone named name whose abbreviation is abbr: time.Local's
// shape, which FixedZone cannot give (its abbreviation is its name).
func mustZone(t *testing.T, name, abbr string, off int) *time.Location {
	t.Helper()
	loc, err := time.LoadLocationFromTZData(name, tzif(abbr, off))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// tzif is a TZif file of one zone: no transitions, one type.
func tzif(abbr string, off int) []byte {
	be32 := func(n int) []byte { return []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)} }
	var b []byte
	b = append(b, "TZif"...)
	b = append(b, 0) // version 1
	b = append(b, make([]byte, 15)...)
	// isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
	for _, n := range []int{0, 0, 0, 0, 1, len(abbr) + 1} {
		b = append(b, be32(n)...)
	}
	b = append(b, be32(off)...)
	b = append(b, 0, 0) // isdst, abbreviation index
	b = append(b, abbr...)
	return append(b, 0)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	return b
}
