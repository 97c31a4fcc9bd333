package token

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// An Indexer counts a text once, recording where its pieces end, and then
// counts spans of it, and strings made of spans of it joined by other
// bytes, without splitting and merging those spans again. The counter
// returned by O200k implements it.
type Indexer interface {
	BytesCounter
	// Index counts text, which must not change while the Index is in use.
	Index(text []byte) *Index
}

// An Index is one text counted once: where each of its pieces (the
// pre-tokenizer's splits) ends, and the running token count. Counting a
// span of the text alone gives the same pieces as the text itself except
// near the span's two ends, so a span's count is the running count
// between two piece ends found near them, plus the few pieces at each end
// split again on their own. The count is exact: where the two splits do
// not meet, the span is counted directly.
//
// Why the pieces agree: the splitter decides where the piece that starts
// at p ends from the bytes at p and after it, never before it. Its
// decision for a piece ending at e reads at most 8 bytes past e, except
// through a run of whitespace, or of characters of the pattern's first
// class ([\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]), that starts at e, which it may
// read to its end and 4 bytes beyond (see reach). So a piece of the text
// is also a piece of a span that holds the bytes it reads; and once the
// span's own split starts a piece where the text's split does, the two
// go on alike.
//
// An Index is safe for concurrent use.
type Index struct {
	c     *counter
	text  string
	valid bool     // text is valid UTF-8; otherwise every count is direct
	parts int      // how many chunks were counted apart
	ends  []uint64 // bit p%64 of ends[p/64]: a piece ends at p (0 included)
	multi []uint64 // the same bit: the piece that ends at p is more than one token
	cum   []uint32 // cum[w]: the tokens of the pieces that end at or before 64w
	total int
}

// minDerived is the shortest region that is worth deriving; shorter ones
// are counted directly, which costs less than finding their ends.
const minDerived = 96

// Index counts text once; see [Index]. Long texts are counted on every
// core.
func (c *counter) Index(text []byte) *Index {
	s := unsafe.String(unsafe.SliceData(text), len(text))
	x := &Index{c: c, text: s}
	if !utf8.ValidString(s) {
		x.total = c.Count(s)
		return x
	}
	x.valid = true
	words := len(s)/64 + 2
	x.ends = make([]uint64, words)
	x.multi = make([]uint64, words)
	x.cum = make([]uint32, words)
	x.ends[0] = 1
	cuts := chunkCuts(s, runtime.GOMAXPROCS(0))
	totals := make([]int, len(cuts)-1)
	ok := make([]bool, len(cuts)-1)
	if len(cuts) == 2 {
		totals[0], ok[0] = x.scan(cuts[0], cuts[1])
	} else {
		var wg sync.WaitGroup
		for k := range totals {
			wg.Go(func() { totals[k], ok[k] = x.scan(cuts[k], cuts[k+1]) })
		}
		wg.Wait()
	}
	for k := range ok {
		if !ok[k] {
			// A cut that is not a piece end (chunkCuts says why it
			// always is): count the whole text in one pass instead.
			clear(x.ends)
			clear(x.multi)
			clear(x.cum)
			x.ends[0] = 1
			x.total, _ = x.scan(0, len(s))
			x.parts = 1
			return x
		}
	}
	x.parts = len(totals)
	offset := 0
	for k := range totals {
		if offset > 0 {
			// the words whose start is in (cuts[k], cuts[k+1]] were written by chunk k
			for w := cuts[k]/64 + 1; w <= cuts[k+1]/64; w++ {
				x.cum[w] += uint32(offset)
			}
		}
		offset += totals[k]
	}
	x.total = offset
	return x
}

// scan splits and counts x.text[from:to], where from is a piece end, and
// records its pieces. ok is false when to is not a piece end.
func (x *Index) scan(from, to int) (total int, ok bool) {
	c, s := x.c, x.text
	st := c.pool.get()
	defer c.pool.put(st)
	curW, curBits, curMulti := -1, uint64(0), uint64(0)
	flush := func() {
		if curW >= 0 {
			// the words at the cuts are shared
			atomic.OrUint64(&x.ends[curW], curBits)
			if curMulti != 0 {
				atomic.OrUint64(&x.multi[curW], curMulti)
			}
		}
	}
	p := from
	for p < to {
		e := c.split.next(s, p)
		n := c.pieceCount(s[p:e], st)
		for ws := p | 63 + 1; ws < e; ws += 64 {
			x.cum[ws>>6] = uint32(total)
		}
		total += n
		if e&63 == 0 {
			x.cum[e>>6] = uint32(total)
		}
		if w := e >> 6; w != curW {
			flush()
			curW, curBits, curMulti = w, 0, 0
		}
		curBits |= 1 << (e & 63)
		if n > 1 {
			curMulti |= 1 << (e & 63)
		}
		p = e
	}
	flush()
	return total, p == to
}

// chunkCuts returns the ends of up to n chunks of s to count apart: 0,
// piece ends, len(s). A cut is placed at an ASCII letter after two of the
// punctuation bytes in cutPunct (in JSON, at the start of a key, such as
// {"name"), which always ends a piece: the piece holding the first of the
// two bytes is a punctuation run (a letter piece holds a non-letter only
// as its first character, followed by a letter), which takes the second
// and stops at the letter.
func chunkCuts(s string, n int) []int {
	const minChunk = 256 << 10
	n = min(n, len(s)/minChunk)
	cuts := []int{0}
	for k := 1; k < n; k++ {
		i := max(k*len(s)/n, cuts[len(cuts)-1]+2)
		for lim := min(len(s), i+minChunk/2); i < lim; i++ {
			if b := s[i]; ('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z') && cutPunct[s[i-1]] && cutPunct[s[i-2]] {
				cuts = append(cuts, i)
				break
			}
		}
	}
	return append(cuts, len(s))
}

// cutPunct holds the ASCII bytes outside \s, \p{L} and \p{N} that the
// splitter never takes after a punctuation run ('/') or into a letter
// piece's ending (the apostrophe).
var cutPunct = func() (t [256]bool) {
	for b := byte(0x21); b < 0x7f; b++ {
		letterOrDigit := 'a' <= b|0x20 && b|0x20 <= 'z' || '0' <= b && b <= '9'
		t[b] = !letterOrDigit && b != '/' && b != '\''
	}
	return t
}()

// Total returns the token count of the whole text.
func (x *Index) Total() int { return x.total }

// Len returns the length of the text in bytes.
func (x *Index) Len() int { return len(x.text) }

// Span returns the token count of text[from:to] counted on its own.
func (x *Index) Span(from, to int) int {
	if from == 0 && to == len(x.text) {
		return x.total
	}
	b := unsafe.Slice(unsafe.StringData(x.text[from:to]), to-from)
	return x.Count(b, []Region{{At: 0, From: from, Len: to - from}})
}

// A Region says that s[At:At+Len] holds the same bytes as the indexed
// text's [From:From+Len].
type Region struct{ At, From, Len int }

// Count returns the token count of s, whose regions, in order and not
// overlapping, are spans of the indexed text. A region that is out of
// order, out of bounds or not the same bytes is counted as s's other
// bytes are, so the count is exact whatever the regions say.
func (x *Index) Count(b []byte, regions []Region) int {
	c := x.c
	if len(b) == 0 {
		return 0
	}
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if !x.valid || !utf8.ValidString(s) {
		return c.Count(s)
	}
	st := c.pool.get()
	defer c.pool.put(st)
	total, p := 0, 0
	for _, r := range regions {
		if r.Len < minDerived || r.At < p || r.At+r.Len > len(s) || r.From < 0 || r.From+r.Len > len(x.text) ||
			s[r.At:r.At+r.Len] != x.text[r.From:r.From+r.Len] {
			continue
		}
		end := r.From + r.Len
		q, ok := x.tailSync(r.From, end)
		if !ok {
			continue
		}
		// Split s on its own until one of its pieces ends where one of the
		// text's does, then take the text's pieces up to q.
		qAt := r.At + q - r.From
		for p < qAt {
			if t := r.From + p - r.At; p >= r.At && x.isEnd(t) {
				total += x.cumAt(q, st) - x.cumAt(t, st)
				p = qAt
				break
			}
			e := c.split.next(s, p)
			total += c.pieceCount(s[p:e], st)
			p = e
		}
	}
	for p < len(s) {
		e := c.split.next(s, p)
		total += c.pieceCount(s[p:e], st)
		p = e
	}
	return total
}

// isEnd reports whether a piece of the text ends at t.
func (x *Index) isEnd(t int) bool { return x.ends[t>>6]>>(t&63)&1 != 0 }

// prevEnd returns the last piece end at or before t.
func (x *Index) prevEnd(t int) int {
	w := t >> 6
	m := x.ends[w] & (2<<(t&63) - 1)
	for m == 0 {
		w--
		m = x.ends[w] // ends[0] has bit 0, so this stops
	}
	return w<<6 + 63 - bits.LeadingZeros64(m)
}

// cumAt returns the tokens of the pieces of the text that end at or
// before t, a piece end: the count at the start of t's word, one for each
// piece that ends in the word up to t, and what the pieces of more than
// one token among them count beyond one.
func (x *Index) cumAt(t int, st *state) int {
	w := t >> 6
	m := x.ends[w] & (2<<(t&63) - 1) &^ 1 // the ends in (64w, t]
	n := int(x.cum[w]) + bits.OnesCount64(m)
	for mm := m & x.multi[w]; mm != 0; mm &= mm - 1 {
		e := w<<6 + bits.TrailingZeros64(mm)
		n += x.c.pieceCount(x.text[x.prevEnd(e-1):e], st) - 1
	}
	return n
}

// tailSync returns the last piece end q in (from, to-8] whose pieces up to
// it the splitter decides from bytes before to alone: q plus 8 and the end
// of the run of whitespace or of first-class characters starting at q
// plus 4 are at most to. Every piece end before q then has the same
// property (a run starting there either ends before q, or goes on past q
// as q's own run), so the text's pieces between from and q are pieces of
// any string that holds text[from:to] and continues with other bytes.
func (x *Index) tailSync(from, to int) (int, bool) {
	if to-from < minDerived {
		return 0, false
	}
	lo := from + minDerived/2
	for q := x.prevEnd(to - 8); q > lo; q = x.prevEnd(q - 1) {
		if x.runEnd(q, to-3) <= to-4 {
			return q, true
		}
	}
	return 0, false
}

// runEnd returns the end of the run of whitespace, or of first-class
// characters, that starts at t (t itself when the character at t is
// neither), or limit once the run reaches it.
func (x *Index) runEnd(t, limit int) int {
	s, sp := x.text, x.c.split
	if t >= len(s) {
		return t
	}
	f, _ := sp.class(s, t)
	want := f & (cSpace | cUpper)
	if want == 0 {
		return t
	}
	for t < limit && t < len(s) {
		g, n := sp.class(s, t)
		if g&want == 0 {
			return t
		}
		t += n
	}
	return t
}
