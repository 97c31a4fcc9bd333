package store

import (
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/token"
)

// TestCountCache checks the cached counts against direct ones: texts on
// both sides of the shortest cached length, texts repeated, texts that
// differ in one byte or in length only, and more distinct texts than the
// cache holds, so that it starts over.
func TestCountCache(t *testing.T) {
	direct := token.O200k().Count
	calls := 0
	c := newCountCache(func(s string) int { calls++; return direct(s) })
	var texts []string
	for _, n := range []int{0, 1, countCacheMin - 1, countCacheMin, countCacheMin + 1, 5000} {
		texts = append(texts, strings.Repeat("ab ", n)[:n], strings.Repeat("é", n/2))
	}
	base := strings.Repeat("the same result text, ", 10)
	texts = append(texts, base, base+" ", base[:len(base)-1]+"!", " "+base[1:])
	for round := 0; round < 3; round++ {
		for _, s := range texts {
			if got, want := c.Count(s), direct(s); got != want {
				t.Fatalf("round %d: Count(%.40q…) = %d, want %d", round, s, got, want)
			}
		}
	}
	// Each distinct cached text is counted once, each shorter one every time.
	want, seen := 0, map[string]bool{}
	for _, s := range texts {
		switch {
		case len(s) < countCacheMin:
			want += 3
		case !seen[s]:
			want++
			seen[s] = true
		}
	}
	if calls != want {
		t.Errorf("%d counts of %d texts (%d distinct cached) over 3 rounds, want %d", calls, len(texts), len(seen), want)
	}
	for i := 0; i < countCacheMax+10; i++ {
		s := strings.Repeat("x", countCacheMin) + strings.Repeat(" y", i%7) + string(rune('a'+i%26)) + strings.Repeat("z", i/26)
		if got, want := c.Count(s), direct(s); got != want {
			t.Fatalf("text %d: %d, want %d", i, got, want)
		}
		if len(c.m) > countCacheMax {
			t.Fatalf("%d entries, over %d", len(c.m), countCacheMax)
		}
	}
}
