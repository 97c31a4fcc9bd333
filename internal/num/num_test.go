package num

import (
	"math"
	"testing"
	"time"
)

func TestInt(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12345, "12,345"},
		{123456, "123,456"}, {1234567, "1,234,567"}, {-1, "-1"}, {-999, "-999"},
		{-1000, "-1,000"}, {-123456, "-123,456"}, {-1234567, "-1,234,567"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	}
	for _, tt := range tests {
		if got := Int(tt.n); got != tt.want {
			t.Errorf("Int(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if tt.n >= math.MinInt && tt.n <= math.MaxInt {
			if got := Int(int(tt.n)); got != tt.want {
				t.Errorf("Int(int %d) = %q, want %q", tt.n, got, tt.want)
			}
		}
	}
}

func TestSignedPluralCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 1: "+1", 1500: "+1,500", -1500: "-1,500"} {
		if got := Signed(n); got != want {
			t.Errorf("Signed(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{0: "tools", 1: "tool", 2: "tools"} {
		if got := Plural(n, "tool", "tools"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{0: "0 tools", 1: "1 tool", 1234: "1,234 tools"} {
		if got := Count(n, "tool"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDurations(t *testing.T) {
	tests := []struct {
		d                 time.Duration
		seconds, duration string
	}{
		{0, "0ms", "0ms"},
		{850 * time.Millisecond, "850ms", "850ms"},
		{time.Second, "1.0s", "1.0s"},
		{1500 * time.Millisecond, "1.5s", "1.5s"},
		{time.Minute, "60.0s", "1 minute"},
		{5 * time.Minute, "300.0s", "5 minutes"},
		{75*time.Second + 400*time.Millisecond, "75.4s", "1m15s"},
	}
	for _, tt := range tests {
		if got := Seconds(tt.d); got != tt.seconds {
			t.Errorf("Seconds(%v) = %q, want %q", tt.d, got, tt.seconds)
		}
		if got := Duration(tt.d); got != tt.duration {
			t.Errorf("Duration(%v) = %q, want %q", tt.d, got, tt.duration)
		}
	}
}

func TestSetting(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second: "30s", 3 * time.Minute: "180s", 0: "0s",
		1500 * time.Millisecond: "1.5s", 250 * time.Millisecond: "250ms",
	} {
		if got := Setting(d); got != want {
			t.Errorf("Setting(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestJoinAnd(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{}, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
		{[]string{"a", "b", "c", "d", "e", "f"}, "a, b, c, d, e and f"},
		{[]string{"", ""}, " and "},
		{[]string{"a, b", "c and d"}, "a, b and c and d"},
	}
	for _, tt := range tests {
		if got := JoinAnd(tt.names); got != tt.want {
			t.Errorf("JoinAnd(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}
