package token

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate o200k_base.tokens and testdata golden files")

// TestVocabularyFile checks the embedded vocabulary against
// github.com/tiktoken-go/tokenizer rank by rank; with -update it writes the
// file from it.
func TestVocabularyFile(t *testing.T) {
	ref := refO200k(t)
	var want []string
	for r := 0; ; r++ {
		s, err := ref.Decode([]uint{uint(r)})
		if err != nil {
			break
		}
		want = append(want, s)
	}
	if len(want) != 199998 {
		t.Fatalf("reference has %d ordinary tokens, want 199998", len(want))
	}
	if *update {
		var b strings.Builder
		for r, s := range want {
			if len(s) == 0 || len(s) > maxTokenLen {
				t.Fatalf("token %d has %d bytes", r, len(s))
			}
			b.WriteByte(byte(len(s)))
			b.WriteString(s)
		}
		if err := os.WriteFile("o200k_base.tokens", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("o200k_base.tokens regenerated; run the tests again without -update")
	}
	v := o200kCounter().v
	if v.size() != len(want) {
		t.Fatalf("embedded vocabulary has %d tokens, want %d", v.size(), len(want))
	}
	for r, s := range want {
		if got := v.token(r); got != s {
			t.Fatalf("token %d = %q, want %q", r, got, s)
		}
		if got := v.rank(s, hashString(s)); got != r {
			t.Fatalf("rank(%q) = %d, want %d", s, got, r)
		}
	}
	for _, s := range []string{"", strings.Repeat("a", maxTokenLen+1), strings.Repeat(" ", 4096), "<|endoftext|>", "\x00\x00\x00\x00\x00\x00\x00\x00\x00", "zzzzqqqqxxxx"} {
		if got := v.rank(s, hashString(s)); got >= 0 {
			t.Errorf("rank(%q) = %d, want none", s, got)
		}
	}
}

func TestNewVocabErrors(t *testing.T) {
	for name, file := range map[string]string{
		"truncated": "\x03ab",
		"empty":     "\x00",
		"duplicate": "\x01a\x01a",
	} {
		if _, err := newVocab(file); err == nil {
			t.Errorf("%s: newVocab(%q) succeeded", name, file)
		}
	}
}
