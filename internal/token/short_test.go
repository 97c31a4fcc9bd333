package token

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestPackShort checks that packShort tells apart every two pieces that
// differ: in one byte at any position, or only in length, zero bytes and
// 0xff bytes included.
func TestPackShort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	type key struct{ k0, k1 uint64 }
	seen := map[key]string{}
	add := func(s string) {
		k0, k1 := packShort(s)
		if k1>>60 != 0 {
			t.Fatalf("packShort(%q) sets the count bits: %#x", s, k1)
		}
		k := key{k0, k1}
		if prev, ok := seen[k]; ok && prev != s {
			t.Fatalf("packShort(%q) = packShort(%q)", s, prev)
		}
		seen[k] = s
	}
	for _, fill := range []byte{0, 0xff, 'a'} {
		for n := 2; n <= shortMax; n++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = fill
			}
			add(string(b))
			for i := range b {
				for _, c := range []byte{0, 1, 0x80, 0xff} {
					d := append([]byte(nil), b...)
					d[i] = c
					add(string(d))
				}
			}
		}
	}
	for range 100000 {
		b := make([]byte, 2+r.IntN(shortMax-1))
		for i := range b {
			b[i] = byte(r.IntN(4)) * 0x55
		}
		add(string(b))
	}
}

// checkPieceCount compares pieceCount, whose caches in st may have seen
// other pieces, with a vocabulary lookup or a merge, which use no cache.
func checkPieceCount(t *testing.T, st *state, piece string) {
	t.Helper()
	c := o200kCounter()
	want := 1
	if len(piece) > 1 && c.v.rank(piece, hashString(piece)) < 0 {
		want = c.mergeCount(piece, st)
	}
	for range 2 {
		if got := c.pieceCount(piece, st); got != want {
			t.Fatalf("pieceCount(%q) = %d, lookupCount %d", piece, got, want)
		}
	}
}

// TestShortCache counts pieces of 1 to 64 bytes, more distinct ones than
// the cache has slots, through the short cache and without it.
func TestShortCache(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	st := new(state)
	sp := o200kCounter().split
	for range 3 * shortSlots {
		s := fastText(r, 1+r.IntN(64))
		if !utf8.ValidString(s) {
			s = replaceInvalid(s)
		}
		// the pieces of s, and also its prefixes, which the splitter
		// would not give
		for p := 0; p < len(s); {
			e := sp.next(s, p)
			checkPieceCount(t, st, s[p:e])
			p = e
		}
		checkPieceCount(t, st, s[:min(len(s), 1+r.IntN(64))])
	}
	for _, alphabet := range []string{"abcdefghijklmnopqrstuvwxyz", "!#$%&()*+,-.:;<=>?@[]^_`{|}~", " \n"} {
		for n := 1; n <= 64; n++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			checkPieceCount(t, st, string(b))
		}
	}
}

func FuzzShortCache(f *testing.F) {
	f.Add("hello", "world")
	f.Add("\x00\x00", "\x00\x00\x00")
	st := new(state)
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, s := range []string{a, b, a + b} {
			if s != "" && len(s) <= 64 {
				checkPieceCount(t, st, s)
			}
		}
	})
}

// TestPackAt checks that packAt, which reads whole words of the text,
// packs every piece of 2 to shortMax bytes as packShort packs it alone.
func TestPackAt(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	b := make([]byte, 64)
	for range 2000 {
		for i := range b {
			b[i] = byte(r.IntN(4)) * 0x55
		}
		s := string(b)
		for p := 0; p+16 <= len(s); p++ {
			for n := 2; n <= shortMax; n++ {
				g0, g1 := packAt(s, p, n)
				w0, w1 := packShort(s[p : p+n])
				if g0 != w0 || g1 != w1 {
					t.Fatalf("packAt(%q, %d, %d) = %#x %#x, packShort %#x %#x", s, p, n, g0, g1, w0, w1)
				}
			}
		}
	}
}
