package usage

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// TestDrawBlocks draws blocks on both sides of each of their limits: a
// request exactly five hours after the block's start or the previous
// request stays in the block, a millisecond later starts the next; a gap
// is listed only after a pause of more than five hours, from five hours
// after the last request to the next one, in the order blocks start.
func TestDrawBlocks(t *testing.T) {
	h := int64(time.Hour / time.Millisecond)
	base := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC).UnixMilli()
	at := func(ms ...int64) []entry {
		var es []entry
		for _, m := range ms {
			es = append(es, entry{ts: base + m, t: Tokens{Input: 1, Total: 1}, priced: true, model: "m"})
		}
		return es
	}
	now := time.UnixMilli(base + 100*h)
	for _, tc := range []struct {
		name string
		es   []entry
		want []string // start-end of each block; "gap " before a gap's
	}{
		{"one", at(30 * 60000), []string{"09:00-14:00"}},
		{"at the end of the block", at(0, 5*h), []string{"09:00-14:00"}},
		{"after the end of the block", at(0, 5*h+1), []string{"09:00-14:00", "gap 14:00-14:00", "14:00-19:00"}},
		{"after the end, not after a pause", at(0, 2*h, 5*h+1), []string{"09:00-14:00", "14:00-19:00"}},
		{"from the middle of an hour", at(59*60000, 5*h+1), []string{"09:00-14:00", "14:00-19:00"}},
		{"five hours after the start", at(2*h, 7*h), []string{"11:00-16:00"}},
		{"a pause of five hours", at(2*h, 3*h, 8*h), []string{"11:00-16:00", "17:00-22:00"}},
		{"a pause of more", at(2*h, 3*h, 8*h+1), []string{"11:00-16:00", "gap 17:00-17:00", "17:00-22:00"}},
		{"a gap after the next block's hour", at(0, 10*60000, 5*h+15*60000+1), []string{"09:00-14:00", "14:00-19:00", "gap 14:10-14:15"}},
		{"a long pause", at(0, 30*h), []string{"09:00-14:00", "gap 14:00-15:00", "15:00-20:00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, b := range drawBlocks(tc.es, BlockLength, now) {
				s := b.StartTime.Format("15:04") + "-" + b.EndTime.Format("15:04")
				if b.IsGap {
					s = "gap " + s
				}
				got = append(got, s)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("blocks %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("blocks %v, want %v", got, tc.want)
					break
				}
			}
		})
	}
}

// TestActiveBlock: a block is active while its five hours last (never
// before they start) and its last request is less than five hours old; its burn rate runs from its
// first request to its last, and its projection to its end.
func TestActiveBlock(t *testing.T) {
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	es := []entry{
		{ts: start.Add(10 * time.Minute).UnixMilli(), t: Tokens{Input: 100, Output: 500, CacheRead: 400, Total: 1000}, cost: 1, priced: true, model: "a"},
		{ts: start.Add(30 * time.Minute).UnixMilli(), t: Tokens{Input: 100, Output: 900, Total: 1000}, cost: 1, priced: true, model: "b"},
	}
	for _, tc := range []struct {
		now    time.Duration // after the start
		active bool
	}{
		{-100 * 365 * 24 * time.Hour, false}, // a block far in the future
		{-time.Millisecond, false},           // not started yet
		{0, true},
		{5 * time.Minute, true}, // started, its first request to come
		{31 * time.Minute, true},
		{5*time.Hour - time.Millisecond, true},
		{5 * time.Hour, false}, // the block is over
	} {
		b := drawBlocks(es, BlockLength, start.Add(tc.now))[0]
		if b.IsActive != tc.active {
			t.Errorf("at +%s: active %v, want %v", tc.now, b.IsActive, tc.active)
		}
	}
	now := start.Add(2 * time.Hour)
	b := drawBlocks(es, BlockLength, now)[0]
	b.BurnRate = burnRate(&b)
	p := project(&b, now)
	// 2,000 tokens in 20 minutes: 100 a minute; 1,600 of input and
	// output; $2 in a third of an hour: $6 an hour. 180 minutes left.
	if br := *b.BurnRate; br.TokensPerMinute != 100 || br.TokensPerMinuteForIndicator != 80 || br.CostPerHour != 6 {
		t.Errorf("burn rate %+v", br)
	}
	if *p != (Projection{TotalTokens: 2000 + 18000, TotalCost: 2 + 18, RemainingMinutes: 180}) {
		t.Errorf("projection %+v", *p)
	}
	if b.Models[0] != "a" || b.Models[1] != "b" || b.Entries != 2 || b.TotalTokens != 2000 {
		t.Errorf("block %+v", b)
	}
	// One request: no duration, no burn rate, no projection.
	one := drawBlocks(es[:1], BlockLength, now)[0]
	if burnRate(&one) != nil {
		t.Error("a block of one request has a burn rate")
	}
}

// TestTokensOf: a projection of 2^63 tokens or more is the largest int64,
// never what converting it would give (2^63 is not an int64).
func TestTokensOf(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		want int64
	}{
		{0, 0}, {1e6, 1_000_000}, {1 << 62, 1 << 62},
		{1 << 63, math.MaxInt64}, {1e19, math.MaxInt64}, {math.Inf(1), math.MaxInt64},
	} {
		if got := tokensOf(tt.f); got != tt.want {
			t.Errorf("tokensOf(%g) = %d, want %d", tt.f, got, tt.want)
		}
	}
}

// TestBlockModels: a block lists each model once, in the order of its
// first request, as ccusage does, among many models each seen twice; a
// request without one is "(unknown model)".
func TestBlockModels(t *testing.T) {
	const models = 20_000
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC).UnixMilli()
	var es []entry
	var want []string
	for i := range models {
		m := fmt.Sprintf("claude-%d", (i*7919)%models)
		if i == models/2 {
			m = ""
		}
		want = append(want, displayModel(m))
		es = append(es, entry{ts: start + int64(i), t: Tokens{Input: 1, Total: 1}, priced: true, model: m})
	}
	for i := range models {
		es = append(es, entry{ts: start + int64(models+i), t: Tokens{Input: 1, Total: 1}, priced: true, model: es[models-1-i].model})
	}
	b := newBlock(start, es, BlockLength.Milliseconds(), time.UnixMilli(start))
	if !slices.Equal(b.Models, want) {
		t.Fatalf("%d models, want %d; the first: %q, want %q", len(b.Models), len(want), b.Models[:min(5, len(b.Models))], want[:5])
	}
}

func BenchmarkBlockModels(b *testing.B) {
	const models = 20_000
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC).UnixMilli()
	es := make([]entry, models)
	for i := range es {
		es[i] = entry{ts: start + int64(i), t: Tokens{Input: 1, Total: 1}, priced: true, model: fmt.Sprintf("claude-%d", i)}
	}
	for b.Loop() {
		newBlock(start, es, BlockLength.Milliseconds(), time.UnixMilli(start))
	}
}
