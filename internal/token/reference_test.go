package token

import (
	"slices"
	"sync"
	"testing"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"
	"github.com/tiktoken-go/tokenizer/codec"
)

// The reference implementation, github.com/tiktoken-go/tokenizer, for
// differential tests and benchmarks. It is not linked into the binary.

var (
	refOnce  sync.Once
	refCodec *codec.Codec
)

func refO200k(tb testing.TB) *codec.Codec {
	tb.Helper()
	refOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			panic(err)
		}
		refCodec = c.(*codec.Codec)
	})
	return refCodec
}

func refCount(tb testing.TB, s string) int {
	n, err := refO200k(tb).Count(s)
	if err != nil {
		tb.Fatalf("reference count: %v", err)
	}
	return n
}

// o200kPattern is tiktoken's o200k_base pre-tokenizer pattern.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

var (
	// refSplitGenerated is the matcher tiktoken-go uses: regexp2 finds the
	// code generated for this exact pattern.
	refSplitGenerated = regexp2.MustCompile(o200kPattern, regexp2.None)
	// refSplitInterpreted runs the same pattern, wrapped in a group so that
	// no generated code matches it, on regexp2's backtracking interpreter,
	// which agrees with tiktoken's engine.
	refSplitInterpreted = regexp2.MustCompile(`(?:`+o200kPattern+`)`, regexp2.None)
)

func regexpPieces(tb testing.TB, re *regexp2.Regexp, s string) []string {
	tb.Helper()
	var out []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		tb.Fatalf("regexp2: %v", err)
	}
	return out
}

// ourPieces returns the pieces of our pre-tokenizer.
func ourPieces(s string) []string {
	sp := o200kCounter().split
	var out []string
	for p := 0; p < len(s); {
		e := sp.next(s, p)
		out = append(out, s[p:e])
		p = e
	}
	return out
}

// slowCount is an independent, plain count: regexp2's interpreter splits,
// and each piece is merged by the textbook loop (find the lowest-ranked
// adjacent pair, leftmost first, merge it, repeat) over the vocabulary that
// TestVocabularyFile checks against tiktoken-go.
func slowCount(tb testing.TB, s string) int {
	tb.Helper()
	v := o200kCounter().v
	rank := func(t string) int { return v.rank(t, hashString(t)) }
	n := 0
	for _, piece := range regexpPieces(tb, refSplitInterpreted, s) {
		var parts []string
		for i := range len(piece) {
			parts = append(parts, piece[i:i+1])
		}
		for len(parts) > 1 {
			best, at := -1, -1
			for i := 0; i+1 < len(parts); i++ {
				if r := rank(parts[i] + parts[i+1]); r >= 0 && (best < 0 || r < best) {
					best, at = r, i
				}
			}
			if at < 0 {
				break
			}
			parts[at] += parts[at+1]
			parts = append(parts[:at+1], parts[at+2:]...)
		}
		n += len(parts)
	}
	return n
}

// generatedSplitDiffers reports whether tiktoken-go's generated matcher
// splits s differently from the interpreter: the one known case is a
// whitespace run holding line breaks separated by other whitespace, where
// the generated code backtracks `\s*` to the first line break.
func generatedSplitDiffers(tb testing.TB, s string) bool {
	return !slices.Equal(regexpPieces(tb, refSplitGenerated, s), regexpPieces(tb, refSplitInterpreted, s))
}
