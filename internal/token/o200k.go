package token

import (
	"encoding/binary"
	"runtime"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// counter is the o200k_base counter: a hand-written pre-tokenizer, a hash
// table over the vocabulary and a byte-pair merge that only counts.
type counter struct {
	v     *vocab
	split splitter
	pool  statePool
}

// state is per-goroutine scratch, taken from the counter's pool for one
// count, so counting on several cores shares no cache lines and takes no
// locks while it runs.
type state struct {
	short [shortSlots]shortEntry
	cache [cacheSlots]cacheEntry
	nodes []mergeNode
	heap  []mergeCandidate
}

const (
	cacheSlots  = 16384 // direct-mapped, so the cache is bounded
	cacheKeyMax = 30
)

// The short cache has shortSlots slots of 16 bytes, in sets of two: a piece
// may sit in either slot of its set, and a new one takes the first slot and
// moves the older one to the second.
const (
	shortBits  = 15
	shortSlots = 1 << shortBits
)

// shortEntry remembers the token count of a piece of 2 to shortMax bytes,
// keyed by its bytes packed into two words (see packShort). The count sits
// in the top 4 bits of k1; a zero k1 marks an empty slot.
type shortEntry struct{ k0, k1 uint64 }

// shortMax is the longest piece the short cache holds: 8 bytes in k0, 7 in
// k1, and the length and the count in k1's top byte.
const shortMax = 15

// packShort packs a piece of 2 to shortMax bytes into two words that are
// equal for two pieces exactly when the pieces are: the bytes in order,
// little-endian, and the length in bits 56 to 59 of k1.
func packShort(s string) (k0, k1 uint64) {
	n := len(s)
	switch {
	case n >= 8:
		k0 = le64(s)
		if n > 8 {
			k1 = le64(s[n-8:]) >> (8 * (16 - n)) // bytes 8 to n-1
		}
	case n >= 4:
		k0 = uint64(le32(s)) | uint64(le32(s[n-4:]))<<(8*(n-4))
	default:
		k0 = uint64(s[0]) | uint64(s[1])<<8 | uint64(s[n-1])<<(8*(n-1))
	}
	return k0, k1 | uint64(n)<<56
}

// packAt is packShort(s[p:p+n]) for 2 <= n <= shortMax and p+16 <= len(s):
// it reads whole words and masks off the bytes after the piece.
func packAt(s string, p, n int) (k0, k1 uint64) {
	b := unsafe.Slice(unsafe.StringData(s[p:p+16]), 16)
	w := binary.LittleEndian.Uint64(b)
	if n <= 8 {
		return w & (^uint64(0) >> (64 - 8*n)), uint64(n) << 56
	}
	return w, binary.LittleEndian.Uint64(b[8:])&(^uint64(0)>>(128-8*n)) | uint64(n)<<56
}

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
	c.pool.free = make(chan *state, runtime.GOMAXPROCS(0))
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
	st := c.pool.get()
	n := c.count(text, st)
	c.pool.put(st)
	return n
}

// statePool keeps up to one state per core between counts. Unlike a
// sync.Pool it is not emptied by the garbage collector, so the caches stay
// warm while the rest of the program allocates; it holds a bounded number
// of states, each of a fixed size.
type statePool struct{ free chan *state }

func (p *statePool) get() *state {
	select {
	case st := <-p.free:
		return st
	default:
		return new(state)
	}
}

func (p *statePool) put(st *state) {
	select {
	case p.free <- st:
	default: // enough are kept
	}
}

// CountBytes is Count for a byte slice, without copying it.
func (c *counter) CountBytes(b []byte) int {
	return c.Count(unsafe.String(unsafe.SliceData(b), len(b)))
}

func (c *counter) count(s string, st *state) int {
	total := 0
	for p := 0; p < len(s); {
		// splitter.next and pieceCount, by hand: the calls they make
		// cost as much as the work for the commonest pieces
		e := 0
		if s[p] < utf8.RuneSelf {
			e = asciiNext(s, p)
		}
		if e == 0 {
			e = c.split.nextRune(s, p)
		}
		switch n := e - p; {
		case n == 1:
			total++ // every byte is a token
		case n <= shortMax && p+16 <= len(s):
			// the short cache, with the key read from the text in
			// whole words
			k0, k1 := packAt(s, p, n)
			set := st.shortSet(k0, k1)
			if x := set[0]; x.k0 == k0 && x.k1&^(0xf<<60) == k1 {
				total += int(x.k1 >> 60)
			} else if x := set[1]; x.k0 == k0 && x.k1&^(0xf<<60) == k1 {
				total += int(x.k1 >> 60)
			} else {
				total += c.shortMiss(s[p:e], k0, k1, set, st)
			}
		default:
			total += c.pieceCount(s[p:e], st)
		}
		p = e
	}
	return total
}

// pieceCount returns the number of tokens of one pre-tokenized piece. Most
// pieces are short and repeat, so their counts come from the per-goroutine
// short cache, which compares two words instead of hashing the piece and
// reading the vocabulary. Of the others, most are tokens themselves; the
// counts of the rest, which need a merge, go through the merge cache.
func (c *counter) pieceCount(piece string, st *state) int {
	if len(piece) == 1 {
		return 1 // every byte is a token
	}
	if len(piece) > shortMax {
		return c.lookupCount(piece, st)
	}
	k0, k1 := packShort(piece)
	set := st.shortSet(k0, k1)
	if e := set[0]; e.k0 == k0 && e.k1&^(0xf<<60) == k1 {
		return int(e.k1 >> 60)
	}
	if e := set[1]; e.k0 == k0 && e.k1&^(0xf<<60) == k1 {
		return int(e.k1 >> 60)
	}
	return c.shortMiss(piece, k0, k1, set, st)
}

// shortSet returns the set of the short cache that the piece packed into
// k0 and k1 belongs to.
func (st *state) shortSet(k0, k1 uint64) *[2]shortEntry {
	h := (k0 ^ k1*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	return (*[2]shortEntry)(st.short[h>>(64-shortBits)&^1:])
}

// shortMiss counts a short piece that is not in its set and puts it there.
func (c *counter) shortMiss(piece string, k0, k1 uint64, set *[2]shortEntry, st *state) int {
	n := c.lookupCount(piece, st)
	set[1] = set[0]
	set[0] = shortEntry{k0, k1 | uint64(n)<<60}
	return n
}

// lookupCount is pieceCount without the short cache: one vocabulary
// lookup, then the merge cache or a merge.
func (c *counter) lookupCount(piece string, st *state) int {
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
