package token

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// TestBoundaryDocsTiktoken counts the canonical form of every boundary
// document (canontest: every shape at every size and depth) and compares
// the counts with npm tiktoken's.
func TestBoundaryDocsTiktoken(t *testing.T) {
	docs := canontest.Docs()
	texts := make([]string, len(docs))
	size := 0
	for i, d := range docs {
		b, err := canon.Transform(d.JSON)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		texts[i] = string(b)
		size += len(b)
	}
	start := time.Now()
	want := tiktokenCounts(t, texts)
	t.Logf("tiktoken counted %d documents (%d bytes) in %v", len(texts), size, time.Since(start))
	c := O200k()
	start = time.Now()
	for i, s := range texts {
		if got := c.Count(s); got != want[i] {
			t.Errorf("%s: Count = %d, tiktoken counts %d", docs[i].Name, got, want[i])
		}
	}
	t.Logf("counted in %v", time.Since(start))
}

// pieceText returns a piece of n bytes that the pre-tokenizer keeps whole
// and that is not a token: random lowercase letters, or random punctuation.
func pieceText(r *rand.Rand, kind string, n int) string {
	alphabet := "abcdefghijklmnopqrstuvwxyz"
	if kind == "punct" {
		alphabet = "!#$%&()*+,-.:;<=>?@[]^_`{|}~"
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// TestPieceLimits counts, against npm tiktoken, pieces on both sides of
// each length limit of the counter: the longest cached piece, the longest
// merged by the quadratic scan, the longest vocabulary token, and texts of
// more distinct pieces than the cache has slots, counted twice.
func TestPieceLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var names, texts []string
	for _, limit := range []int{cacheKeyMax, scanMax, maxTokenLen} {
		for _, n := range []int{limit - 1, limit, limit + 1, limit + 2} {
			for _, kind := range []string{"letters", "punct"} {
				var b strings.Builder
				for i := range 20 {
					b.WriteString(" " + pieceText(r, kind, n-1)) // with its space, n bytes
					if i%4 == 0 {
						b.WriteString("\n")
					}
				}
				names = append(names, fmt.Sprintf("%s of %d bytes", kind, n))
				texts = append(texts, b.String())
			}
		}
	}
	for _, n := range []int{cacheSlots - 1, cacheSlots + 1} {
		pieces := make([]string, n)
		for i := range pieces {
			pieces[i] = " " + pieceText(r, "letters", 4+r.IntN(cacheKeyMax-4))
		}
		text := strings.Join(pieces, "") + strings.Join(pieces, "")
		names = append(names, fmt.Sprintf("%d distinct pieces twice", n))
		texts = append(texts, text)
	}
	want := tiktokenCounts(t, texts)
	c := O200k()
	for i, s := range texts {
		for round := range 2 { // the second count reads the cache
			if got := c.Count(s); got != want[i] {
				t.Errorf("%s (round %d): Count = %d, tiktoken counts %d", names[i], round, got, want[i])
			}
		}
	}
}

// TestMergeScratch checks that a pooled state keeps the merge scratch of
// a piece of up to keepScratch boundaries and lets a longer one's go, and
// that counts after either are those of a fresh state.
func TestMergeScratch(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	c := o200kCounter()
	short := pieceText(r, "letters", 3*scanMax)
	for _, n := range []int{keepScratch - 2, keepScratch - 1, keepScratch, keepScratch + 1} {
		piece := pieceText(r, "letters", n) // n+1 boundaries
		st := new(state)
		got := c.mergeCount(piece, st)
		if kept := st.nodes != nil; kept != (n+1 <= keepScratch) {
			t.Errorf("piece of %d bytes: scratch kept %v, want %v", n, kept, !kept)
		}
		if again := c.mergeCount(piece, st); again != got {
			t.Errorf("piece of %d bytes: %d tokens, then %d with the same state", n, got, again)
		}
		if fresh := c.mergeCount(short, new(state)); c.mergeCount(short, st) != fresh {
			t.Errorf("after a piece of %d bytes: a shorter piece counts differently", n)
		}
	}
}
