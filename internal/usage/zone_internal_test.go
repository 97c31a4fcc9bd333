package usage

import (
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
)

// TestZoneSpans checks the offsets a query by day is given: one span
// without a change of offset, one per change in a zone with summer time,
// and none where a quarter hour may straddle two days.
func TestZoneSpans(t *testing.T) {
	load := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	ms := func(s string) int64 {
		x, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return x.UnixMilli()
	}
	h := time.Hour.Milliseconds()
	z := func(from string, offset int64) store.ZoneSpan { return store.ZoneSpan{From: ms(from), Offset: offset} }
	for _, c := range []struct {
		loc         *time.Location
		first, last string
		want        []store.ZoneSpan
		ok          bool
	}{
		{time.UTC, "2026-01-01T00:00:00Z", "2026-12-31T23:45:00Z", []store.ZoneSpan{z("2026-01-01T00:00:00Z", 0)}, true},
		{load("Asia/Kathmandu"), "2026-01-01T00:00:00Z", "2026-12-31T23:45:00Z",
			[]store.ZoneSpan{z("2026-01-01T00:00:00Z", 5*h+45*time.Minute.Milliseconds())}, true},
		{load("America/New_York"), "2026-01-01T00:00:00Z", "2026-12-31T23:45:00Z", []store.ZoneSpan{
			z("2026-01-01T00:00:00Z", -5*h), z("2026-03-08T07:00:00Z", -4*h), z("2026-11-01T06:00:00Z", -5*h)}, true},
		// The change is at the end of the last quarter hour: not in it.
		{load("America/New_York"), "2026-01-01T00:00:00Z", "2026-03-08T06:45:00Z", []store.ZoneSpan{z("2026-01-01T00:00:00Z", -5*h)}, true},
		{load("America/New_York"), "2026-01-01T00:00:00Z", "2026-03-08T07:00:00Z", []store.ZoneSpan{
			z("2026-01-01T00:00:00Z", -5*h), z("2026-03-08T07:00:00Z", -4*h)}, true},
		{time.FixedZone("+05:10", 5*3600+10*60), "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", nil, false},
		// Amsterdam kept its local mean time (+00:19:32) until 1937.
		{load("Europe/Amsterdam"), "1936-01-01T00:00:00Z", "1938-01-01T00:00:00Z", nil, false},
	} {
		got, ok := zoneSpans(c.loc, ms(c.first), ms(c.last))
		if ok != c.ok || len(got) != len(c.want) {
			t.Errorf("%s, %s to %s: got %v, %v, want %v, %v", c.loc, c.first, c.last, got, ok, c.want, c.ok)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s, %s to %s: got %v, want %v", c.loc, c.first, c.last, got, c.want)
				break
			}
		}
	}
}
