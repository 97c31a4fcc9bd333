package token

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// fastAlphabet mixes every kind of ASCII byte with the characters next to
// which the fast paths must give way: letters, marks, digits and spaces
// that are not ASCII, the long s of the contractions, and invalid bytes.
var fastAlphabet = []string{
	"a", "z", "A", "Z", "s", "S", "l", "L", "e", "t", "r", "v", "m", "d",
	"0", "9", " ", " ", "\t", "\v", "\f", "\r", "\n", "'", "/", ".", "\"", "{", "}", ":", ",", "\x00", "\x7f",
	"é", "É", "\u0301", "\u00a0", "\u0085", "\u2028", "\u3000", "١", "²", "ſ", "日", "ǅ", "\U0001F600",
	"\xff", "\xc5",
}

// fastText returns a random text of about n characters drawn from
// fastAlphabet, with runs of one kind so that pieces get long.
func fastText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		c := fastAlphabet[r.IntN(len(fastAlphabet))]
		for range 1 + r.IntN(4)*r.IntN(4) {
			b.WriteString(c)
		}
	}
	return b.String()
}

// checkASCIINext compares asciiNext with nextRune at every ASCII position
// of s, and returns how many positions the fast path decided.
func checkASCIINext(t *testing.T, s string) int {
	t.Helper()
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	sp := o200kCounter().split
	decided := 0
	for p := range len(s) {
		if s[p] >= utf8.RuneSelf {
			continue
		}
		e := asciiNext(s, p)
		if e == 0 {
			continue
		}
		decided++
		if want := sp.nextRune(s, p); e != want {
			t.Fatalf("asciiNext(%q, %d) = %d (%q), nextRune %d (%q)", s, p, e, s[p:e], want, s[p:want])
		}
	}
	return decided
}

func TestASCIINext(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	decided := 0
	for range 20000 {
		decided += checkASCIINext(t, fastText(r, 1+r.IntN(64)))
	}
	for _, v := range hardVectors() {
		if len(v.text) <= 4096 { // the check is quadratic in a run's length
			decided += checkASCIINext(t, v.text)
		}
	}
	if decided < 100000 {
		t.Fatalf("the fast path decided only %d positions", decided)
	}
}

func FuzzASCIINext(f *testing.F) {
	for _, v := range hardVectors() {
		if len(v.text) <= 1024 {
			f.Add(v.text)
		}
	}
	f.Fuzz(func(t *testing.T, s string) { checkASCIINext(t, s) })
}

// TestASCIIKind checks the byte kinds against the pattern's classes.
func TestASCIIKind(t *testing.T) {
	want := map[uint8]uint8{
		kPunct:   0,
		kUpper:   cUpper | cLetter,
		kLower:   cLower | cLetter,
		kDigit:   cNumber,
		kSpace:   cSpace,
		kNewline: cSpace | cNewline,
	}
	for b := range utf8.RuneSelf {
		if k := asciiKind[b]; asciiClass[b] != want[k] {
			t.Errorf("byte %#x: kind %d, class %06b", b, k, asciiClass[b])
		}
	}
	for b := utf8.RuneSelf; b < 256; b++ {
		if asciiKind[b] != kHigh {
			t.Errorf("byte %#x: kind %d, want kHigh", b, asciiKind[b])
		}
	}
}

// TestByteRun compares byteRun with a byte-at-a-time scan on runs of 0 to
// 64 bytes ended by every byte value, at every alignment.
func TestByteRun(t *testing.T) {
	scan := func(s string, i int, lo, hi byte) int {
		for i < len(s) && lo <= s[i] && s[i] <= hi {
			i++
		}
		return i
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, rg := range [][2]byte{{'a', 'z'}, {'A', 'Z'}} {
		lo, hi := rg[0], rg[1]
		for n := range 65 {
			for end := range 256 {
				b := make([]byte, 0, n+12)
				for range r.IntN(8) {
					b = append(b, byte(r.IntN(256)))
				}
				from := len(b)
				for range n {
					b = append(b, lo+byte(r.IntN(int(hi-lo)+1)))
				}
				b = append(b, byte(end))
				for range r.IntN(8) {
					b = append(b, byte(r.IntN(256)))
				}
				s := string(b)
				for _, s := range []string{s, s[:from+n]} {
					if got, want := byteRun(s, from, lo, hi), scan(s, from, lo, hi); got != want {
						t.Fatalf("byteRun(%q, %d, %q, %q) = %d, want %d", s, from, lo, hi, got, want)
					}
				}
			}
		}
	}
}
