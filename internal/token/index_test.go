package token

import (
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// checkIndex compares, for text, the index's total and the counts of n
// random spans and of n random strings made of spans and short literals
// with the direct count.
func checkIndex(t *testing.T, text []byte, rng *rand.Rand, n int) {
	t.Helper()
	c := o200kCounter()
	x := c.Index(text)
	if got, want := x.Total(), c.CountBytes(text); got != want {
		t.Fatalf("Total = %d, direct count %d (%d bytes)", got, want, len(text))
	}
	if len(text) == 0 {
		return
	}
	// spans of at most 64 KiB, so that the direct counts stay quick
	charStart := func(i int) int {
		for i > 0 && i < len(text) && text[i]&0xc0 == 0x80 {
			i--
		}
		return i
	}
	span := func() (int, int) {
		a := charStart(rng.IntN(len(text) + 1))
		b := charStart(min(len(text), a+rng.IntN(min(len(text), 64<<10)+1)))
		return a, b
	}
	for range n {
		a, b := span()
		if got, want := x.Span(a, b), c.CountBytes(text[a:b]); got != want {
			t.Fatalf("Span(%d, %d) = %d, direct count %d: %q", a, b, got, want, text[a:b])
		}
	}
	literals := []string{"", ",", `{"name":`, `,"description":`, `,"input_schema":`, "}", " ", "a", "\n", "'s", "é", "0"}
	for range n {
		var buf []byte
		var regions []Region
		for range 1 + rng.IntN(4) {
			buf = append(buf, literals[rng.IntN(len(literals))]...)
			a, b := span()
			regions = append(regions, Region{At: len(buf), From: a, Len: b - a})
			buf = append(buf, text[a:b]...)
		}
		buf = append(buf, literals[rng.IntN(len(literals))]...)
		if got, want := x.Count(buf, regions), c.CountBytes(buf); got != want {
			t.Fatalf("Count of %d regions = %d, direct count %d: %q", len(regions), got, want, buf)
		}
	}
}

// TestIndexCorpus derives spans of every corpus capture, and of all of
// them in one text, which is long enough to be counted on several cores.
func TestIndexCorpus(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all []byte
	for _, s := range loadCorpus(t, filepath.Join("testdata", "corpus")) {
		checkIndex(t, []byte(s.canonical), rng, 300)
		all = append(all, s.canonical...)
	}
	for len(all) < 2<<20 {
		all = append(all, all...)
	}
	checkIndex(t, all, rng, 300)
}

// TestIndexParallel checks that the chunks counted apart on several cores
// give the pieces of one pass, on texts with and without places to cut.
func TestIndexParallel(t *testing.T) {
	c := o200kCounter()
	var docs [][]byte
	for _, s := range loadCorpus(t, filepath.Join("testdata", "corpus")) {
		docs = append(docs, []byte(s.canonical))
	}
	var json []byte
	for len(json) < 3<<20 {
		for _, d := range docs {
			json = append(json, d...)
		}
	}
	texts := [][]byte{
		json,
		[]byte(strings.Repeat("\u00e9\u0301 ", 1<<19)),          // no place to cut
		[]byte(strings.Repeat(`{"x":"Ab\u0301Cd'll"},`, 1<<17)), // cuts at every key
	}
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	for i, text := range texts {
		runtime.GOMAXPROCS(max(procs, 2))
		par := c.Index(text)
		if wantParts := 2; i != 1 && par.parts < wantParts {
			t.Errorf("text %d: counted in %d chunks on two cores, want %d", i, par.parts, wantParts)
		}
		runtime.GOMAXPROCS(1)
		seq := c.Index(text)
		if par.total != seq.total {
			t.Fatalf("text %d: total %d on two cores, %d on one", i, par.total, seq.total)
		}
		for w := range seq.ends {
			if par.ends[w] != seq.ends[w] || par.multi[w] != seq.multi[w] || par.cum[w] != seq.cum[w] {
				t.Fatalf("text %d: word %d: ends %x cum %d on two cores, %x %d on one", i, w, par.ends[w], par.cum[w], seq.ends[w], seq.cum[w])
			}
		}
	}
}

// TestIndexBoundaries derives spans of the generated boundary documents
// (the fuzz seeds, large and deep),
// as they are and in canonical form, and of texts made to defeat the
// shortcuts: long whitespace runs with line breaks, and long runs of
// letters and marks, which the splitter reads to their end.
func TestIndexBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range canontest.Seeds() {
		checkIndex(t, d, rng, 20)
		checkIndex(t, canontest.Compact(d), rng, 20)
	}
	for _, s := range []string{
		strings.Repeat(" ", 300) + "\n" + strings.Repeat(" ", 300) + "x",
		strings.Repeat("a\n  \n", 200),
		strings.Repeat("A\u0301B", 300) + " end",
		strings.Repeat("\u4e00", 400) + "abc",
		strings.Repeat("x'S ", 200),
		strings.Repeat("1234567 ", 100),
		strings.Repeat("\u00a0", 250) + "y" + strings.Repeat("\u2028", 100),
		strings.Repeat("ABC", 200) + "def",
		strings.Repeat(`"},{"`, 100) + "name",
	} {
		checkIndex(t, []byte(s), rng, 300)
	}
}

// TestIndexRegionsChecked gives regions that lie: out of order, out of
// bounds, other bytes. The counts stay exact.
func TestIndexRegionsChecked(t *testing.T) {
	c := o200kCounter()
	text := []byte(strings.Repeat(`{"name":"read_file","description":"Reads a file."},`, 20))
	x := c.Index(text)
	buf := append([]byte("xx"), text[10:400]...)
	want := c.CountBytes(buf)
	for _, regions := range [][]Region{
		{{At: 2, From: 10, Len: 390}},
		{{At: 2, From: 11, Len: 390}},
		{{At: 3, From: 10, Len: 390}},
		{{At: 2, From: 10, Len: 10000}},
		{{At: -5, From: 10, Len: 390}},
		{{At: 2, From: -1, Len: 390}},
		{{At: 100, From: 108, Len: 200}, {At: 2, From: 10, Len: 390}},
	} {
		if got := x.Count(buf, regions); got != want {
			t.Errorf("Count(%v) = %d, want %d", regions, got, want)
		}
	}
	bad := c.Index([]byte("ab\xffcd"))
	if got, want := bad.Total(), c.Count("ab\xffcd"); got != want {
		t.Errorf("invalid UTF-8: Total = %d, want %d", got, want)
	}
}

// FuzzIndex compares derived counts with direct ones on arbitrary texts,
// spans and concatenations.
func FuzzIndex(f *testing.F) {
	for _, s := range canontest.Seeds() {
		f.Add(s, uint64(len(s)))
		f.Add(canontest.Compact(s), uint64(7))
	}
	f.Add([]byte(strings.Repeat("A\u0301B", 100)+" x"), uint64(1))
	f.Fuzz(func(t *testing.T, text []byte, seed uint64) {
		checkIndex(t, text, rand.New(rand.NewPCG(seed, 5)), 20)
	})
}

// TestIndexRunsAtTheEnd ends a region at every position of texts whose
// pieces the splitter decides by reading a long run to its end, and
// follows it with bytes that decide otherwise: a line break after
// whitespace, a lowercase letter after capitals and marks.
func TestIndexRunsAtTheEnd(t *testing.T) {
	c := o200kCounter()
	lead := strings.Repeat("words before it, ", 5)
	for _, text := range []string{
		"the word\n" + strings.Repeat(" ", 150) + "x and more words after it",
		"the word \u00a0\n\u2028" + strings.Repeat("\u00a0 ", 80) + "x and more",
		"some text A\u0301" + strings.Repeat("B", 150) + " 1 and more",
		"some text " + strings.Repeat("\u4e00A", 80) + ". and more",
		"some text " + strings.Repeat("A\u0301", 80) + "? and more",
	} {
		text = lead + text
		x := c.Index([]byte(text))
		for to := minDerived; to <= len(text); to++ {
			if !utf8.RuneStart(text[to%len(text)]) {
				continue
			}
			for _, lit := range []string{"", "\n", "c", " ", "'s", "1", "\u0301"} {
				buf := []byte(text[:to] + lit)
				if got, want := x.Count(buf, []Region{{At: 0, From: 0, Len: to}}), c.CountBytes(buf); got != want {
					t.Fatalf("%q: Count = %d, direct count %d", buf, got, want)
				}
			}
		}
	}
}
