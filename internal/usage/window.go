package usage

import (
	"fmt"
	"strings"
	"time"
)

// MaxDays is the longest window named in days: 100 years.
const MaxDays = 36525

// WindowArgs name the period a report covers, as the command line
// (--days, --since, --until) and the MCP tools (days) take it:
//
//   - Days: the last Days days, today included, in the report's time
//     zone; 0 for no lower bound (all history); otherwise 1 to [MaxDays].
//   - Since: from a date (YYYY-MM-DD, YYYYMMDD or RFC 3339); not with Days.
//   - Until: to a date, its whole day included for a day.
//
// The window must not be empty: Since before Until.
type WindowArgs struct {
	Days         int
	Since, Until string
}

// Window resolves the arguments at now in loc into Since (inclusive) and
// Until (exclusive), zero for an open end. Errors name the argument,
// prefix before its name ("--" for flags, "" for tool arguments).
func (a WindowArgs) Window(now time.Time, loc *time.Location, prefix string) (since, until time.Time, err error) {
	if a.Days < 0 || a.Days > MaxDays {
		return since, until, fmt.Errorf("%sdays must be from 0 (all history) to %d (100 years), not %d", prefix, MaxDays, a.Days)
	}
	if a.Days > 0 {
		if a.Since != "" {
			return since, until, fmt.Errorf("%sdays and %ssince exclude each other", prefix, prefix)
		}
		now = now.In(loc)
		since = time.Date(now.Year(), now.Month(), now.Day()-(a.Days-1), 0, 0, 0, 0, loc)
	}
	if a.Since != "" {
		if since, err = ParseDate(a.Since, loc, false); err != nil {
			return since, until, fmt.Errorf("%ssince: %v", prefix, err)
		}
	}
	if a.Until != "" {
		if until, err = ParseDate(a.Until, loc, true); err != nil {
			return since, until, fmt.Errorf("%suntil: %v", prefix, err)
		}
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		from := fmt.Sprintf("%ssince %s", prefix, a.Since)
		if a.Since == "" {
			from = fmt.Sprintf("the last %d days (from %s)", a.Days, since.Format("2006-01-02"))
		}
		return time.Time{}, time.Time{}, fmt.Errorf("%s is not before %suntil %s: the window is empty", from, prefix, a.Until)
	}
	return since, until, nil
}

// ParseDate reads YYYY-MM-DD, YYYYMMDD (in loc) or RFC 3339. A day given
// as the end of a period (end) includes the whole day.
func ParseDate(s string, loc *time.Location, end bool) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02", "20060102"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			if end {
				t = t.AddDate(0, 0, 1)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (YYYY-MM-DD, YYYYMMDD or RFC 3339)", s)
}

// WeekStart is the midnight in loc that starts t's week, weeks starting
// on first.
func WeekStart(t time.Time, loc *time.Location, first time.Weekday) time.Time {
	d := t.In(loc)
	back := (int(d.Weekday()) - int(first) + 7) % 7
	return time.Date(d.Year(), d.Month(), d.Day()-back, 0, 0, 0, 0, loc)
}

// PeriodStart is the start of the n-th last period by by (day, week or
// month) at now in loc, the current one being the first: n = 1 is today's
// midnight, the start of this week or the first of this month.
func PeriodStart(by string, now time.Time, loc *time.Location, first time.Weekday, n int) time.Time {
	d := now.In(loc)
	switch by {
	case "week":
		w := WeekStart(now, loc, first)
		return time.Date(w.Year(), w.Month(), w.Day()-7*(n-1), 0, 0, 0, 0, loc)
	case "month":
		return time.Date(d.Year(), d.Month()-time.Month(n-1), 1, 0, 0, 0, 0, loc)
	}
	return time.Date(d.Year(), d.Month(), d.Day()-(n-1), 0, 0, 0, 0, loc)
}

// Weekdays names the days a week can start on, as --start-of-week takes
// them.
var Weekdays = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// ParseWeekday reads a day's name (Weekdays, any case).
func ParseWeekday(s string) (time.Weekday, bool) {
	for i, d := range Weekdays {
		if strings.EqualFold(s, d) {
			return time.Weekday(i), true
		}
	}
	return 0, false
}

// Period words the window as it was asked for: "all history", "the last 7
// days (from 2026-11-25)", "from 2026-01-01 to 2026-01-31 inclusive" (the
// dates as typed, the last day included), "until 2026-02-01T00:00:00Z" (an
// instant, not included). since is the resolved start (for Days).
func (a WindowArgs) Period(since time.Time) string {
	until := ""
	if a.Until != "" {
		until = a.Until
		if _, err := time.Parse(time.RFC3339, a.Until); err != nil {
			until += " inclusive"
		}
	}
	switch {
	case a.Days == 1:
		s := "today (" + since.Format("2006-01-02") + ")"
		if until != "" {
			s += ", until " + until
		}
		return s
	case a.Days > 0:
		s := fmt.Sprintf("the last %d days (from %s", a.Days, since.Format("2006-01-02"))
		if until != "" {
			return s + " to " + until + ")"
		}
		return s + ")"
	case a.Since != "" && until != "":
		return "from " + a.Since + " to " + until
	case a.Since != "":
		return "since " + a.Since
	case until != "":
		return "until " + until
	}
	return "all history"
}

// ZoneName names loc as a person reads it: its IANA name ("Europe/Paris",
// "UTC"), or, for a zone known only as the system's (time.Local without a
// name), its abbreviation and offset at t ("CET, UTC+01:00"); never
// "Local".
func ZoneName(loc *time.Location, t time.Time) string {
	if loc == nil {
		return "UTC"
	}
	if name := loc.String(); name != "Local" && name != "" {
		return name
	}
	abbr, off := t.In(loc).Zone()
	if abbr == "UTC" && off == 0 {
		return "UTC"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	utc := fmt.Sprintf("UTC%s%02d:%02d", sign, off/3600, off%3600/60)
	if abbr == "" || abbr == "Local" || abbr == utc || abbr[0] == '+' || abbr[0] == '-' {
		return utc
	}
	return abbr + ", " + utc
}
