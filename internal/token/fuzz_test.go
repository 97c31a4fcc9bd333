package token

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// FuzzO200k compares the counter with github.com/tiktoken-go/tokenizer on
// arbitrary strings, invalid UTF-8 included. Where tiktoken-go's generated
// matcher is known to split differently from tiktoken (see
// TestGeneratedSplitBug), it compares with the slow independent count
// instead. For valid UTF-8 it also compares the pieces with regexp2's
// interpreter.
func FuzzO200k(f *testing.F) {
	// the slow count is cubic in the length of a piece; keep each input fast
	const fuzzSlowMax = 512
	for _, v := range hardVectors() {
		if len(v.text) <= 256 {
			f.Add(v.text)
		}
	}
	for _, s := range canontest.Seeds() {
		f.Add(string(s))
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := O200k().Count(s)
		if generatedSplitDiffers(t, s) {
			if len(s) <= fuzzSlowMax {
				if want := slowCount(t, s); got != want {
					t.Fatalf("Count(%q) = %d, slow count %d", s, got, want)
				}
			}
		} else if want := refCount(t, s); got != want {
			t.Fatalf("Count(%q) = %d, tiktoken-go counts %d", s, got, want)
		}
		if utf8.ValidString(s) {
			if ours, want := ourPieces(s), regexpPieces(t, refSplitInterpreted, s); !slices.Equal(ours, want) {
				t.Fatalf("split %q:\n ours %q\n want %q", s, ours, want)
			}
		}
	})
}
