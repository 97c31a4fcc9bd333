// Package num formats numbers, plurals, durations and lists for people:
// every report and message writes 12,345 tokens, 1 tool, 1.5s and "a, b
// and c" the same way.
package num

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Int formats n with thousands separators: 12345 -> "12,345".
func Int[T ~int | ~int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	b := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		b = append(b, '-')
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// Signed formats n as [Int] does, with a plus sign when it is above 0.
func Signed(n int) string {
	if n > 0 {
		return "+" + Int(n)
	}
	return Int(n)
}

// Plural returns one when n is 1, many otherwise.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count says n things: "1 tool", "12,345 tools" (the plural adds an s).
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Int(n) + " " + word + "s"
}

// JoinAnd lists names as a sentence does: "" for none, "a", "a and b",
// "a, b and c". The names are written as they are, neither quoted nor cut.
func JoinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Seconds formats d in milliseconds below a second ("850ms"), otherwise
// in seconds with one decimal ("1.5s", "75.0s").
func Seconds(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// Duration formats d as [Seconds] does below a minute; from a minute up, a
// whole number of minutes in words ("5 minutes"), otherwise rounded to the
// second ("1m15s").
func Duration(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return Count(int(d/time.Minute), "minute")
	case d >= time.Minute:
		return d.Round(time.Second).String()
	}
	return Seconds(d)
}

// Setting formats d the way a user sets it in a flag: whole seconds as
// "30s", anything finer as Go writes it ("1.5s", "250ms").
func Setting(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}
