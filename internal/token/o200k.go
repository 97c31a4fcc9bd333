package token

import (
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// counter is the o200k_base counter: a hand-written pre-tokenizer, a hash
// table over the vocabulary and a byte-pair merge that only counts.
type counter struct {
	v     *vocab
	split splitter
	pool  sync.Pool // *state
}

// state is per-goroutine scratch: sync.Pool keeps one per P, so counting on
// several cores shares no cache lines and takes no locks.
type state struct {
	cache [cacheSlots]cacheEntry
	nodes []mergeNode
	heap  []mergeCandidate
}

const (
	cacheSlots  = 16384 // direct-mapped, so the cache is bounded
	cacheKeyMax = 30
)

// cacheEntry remembers the token count of a piece that is not itself a
// token. The key is copied: callers' bytes are never retained.
type cacheEntry struct {
	n     uint8 // key length, 0 for an empty slot
	count uint8
	key   [cacheKeyMax]byte
}

func newCounter() (*counter, error) {
	v, err := newVocab(o200kTokens)
	if err != nil {
		return nil, err
	}
	c := &counter{v: v, split: splitter{cls: newClasses()}}
	c.pool.New = func() any { return new(state) }
	return c, nil
}

// Count returns the number of o200k_base tokens in text, encoded as ordinary
// text.
func (c *counter) Count(text string) int {
	if text == "" {
		return 0
	}
	if !utf8.ValidString(text) {
		text = replaceInvalid(text)
	}
	st := c.pool.Get().(*state)
	n := c.count(text, st)
	c.pool.Put(st)
	return n
}

// CountBytes is Count for a byte slice, without copying it.
func (c *counter) CountBytes(b []byte) int {
	return c.Count(unsafe.String(unsafe.SliceData(b), len(b)))
}

func (c *counter) count(s string, st *state) int {
	total := 0
	for p := 0; p < len(s); {
		e := c.split.next(s, p)
		total += c.pieceCount(s[p:e], st)
		p = e
	}
	return total
}

// pieceCount returns the number of tokens of one pre-tokenized piece. Most
// pieces are tokens themselves; the counts of the others, which need a
// merge, go through the per-goroutine cache.
func (c *counter) pieceCount(piece string, st *state) int {
	if len(piece) == 1 {
		return 1 // every byte is a token
	}
	h := hashString(piece)
	if c.v.rank(piece, h) >= 0 {
		return 1
	}
	if len(piece) > cacheKeyMax {
		return c.mergeCount(piece, st)
	}
	e := &st.cache[(h>>20)&(cacheSlots-1)]
	if int(e.n) == len(piece) && string(e.key[:len(piece)]) == piece {
		return int(e.count)
	}
	n := c.mergeCount(piece, st)
	e.n = uint8(len(piece))
	e.count = uint8(n)
	copy(e.key[:], piece)
	return n
}

// replaceInvalid replaces every byte that is not part of a valid UTF-8
// sequence with U+FFFD, one replacement per byte, as a Go []rune conversion
// does. github.com/tiktoken-go/tokenizer counts invalid input this way.
func replaceInvalid(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
