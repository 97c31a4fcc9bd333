package store

import "hash/maphash"

// A countCache counts each distinct tool-result text once: agents repeat
// a result (the same file read, the same listing) within and across
// sessions. One belongs to one reader goroutine. A text is known by two
// independent 64-bit hashes and its length, so that two texts taken for
// one are as likely as a 128-bit collision. It holds at most
// countCacheMax entries and starts over when full, so that its memory is
// bounded (about 40 bytes an entry) whatever the history's size.
type countCache struct {
	count  func(string) int
	s1, s2 maphash.Seed
	m      map[countKey]int
}

type countKey struct {
	h1, h2 uint64
	n      int
}

const (
	// countCacheMax is how many counts a cache keeps.
	countCacheMax = 1 << 14
	// countCacheMin is the shortest text cached: a shorter one costs
	// about as much to count as to hash twice.
	countCacheMin = 64
)

func newCountCache(count func(string) int) *countCache {
	return &countCache{count: count, s1: maphash.MakeSeed(), s2: maphash.MakeSeed(), m: map[countKey]int{}}
}

// Count returns count(text), from the cache when text was counted before.
// It never keeps text itself, which may be a view of a reused buffer.
func (c *countCache) Count(text string) int {
	if len(text) < countCacheMin {
		return c.count(text)
	}
	k := countKey{maphash.String(c.s1, text), maphash.String(c.s2, text), len(text)}
	if n, ok := c.m[k]; ok {
		return n
	}
	n := c.count(text)
	if len(c.m) >= countCacheMax {
		clear(c.m)
	}
	c.m[k] = n
	return n
}
