package token

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

type vector struct{ name, text string }

// hardVectors are the inputs where a pre-tokenizer or merge is most likely
// to go wrong.
func hardVectors() []vector {
	vs := []vector{
		{"empty", ""},
		{"one byte", "x"},
		{"contractions lower", "he's it't they're we've I'm you'll she'd"},
		{"contractions upper", "HE'S IT'T THEY'RE WE'VE I'M YOU'LL SHE'D"},
		{"contractions mixed", "he'S it'T they'Re we'vE I'M you'lL she'D They'rE"},
		{"contractions alone", "'s 't 're 've 'm 'll 'd 'S 'LL 'x ''s '"},
		{"contractions chained", "it's's don't've y'all'd 1's ABC'S Abc'll"},
		{"contraction long s", "it'ſ x'ſy abc'ſx 'ſ"},
		{"contraction after marks", "e\u0301's Ǆ're ǅ'Ve"},
		{"apostrophes", "'quoted' rock'n'roll l'été '' ''' 'll'll"},
		{"cjk", "日本語のテキストです。中文文本，还有한국어 텍스트도 있습니다。"},
		{"cjk mixed", "Go言語でtokenを数える 2024年11月29日"},
		{"emoji", "👍 👍🏿 👩🏽‍💻 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️ 🇯🇵 ok👌🏼done"},
		{"combining marks", "e\u0301 n\u0303a \u0301x \u0301\u0302 A\u0301B a\u0308\u0304 Z\u0335\u0336"},
		{"marks alone", "\u0301\u0302\u0303 \u0301 !\u0301 1\u0301"},
		{"indic", "नमस्ते दुनिया, हिन्दी में लिखा है। தமிழ் எழுத்து"},
		{"arabic hebrew", "مَرْحَبًا بِالْعَالَم שָׁלוֹם עוֹלָם"},
		{"thai", "สวัสดีชาวโลก ภาษาไทย"},
		{"titlecase", "ǅungla ǈubljana ǋ Ǆ ǆ ᾈ"},
		{"modifier letters", "ʰʲʷ aʰb ˈsɪl.ə.bəl ᵃᵇᶜ ꜰ"},
		{"cased mix", "CamelCaseWords HTTPServer iPhone XMLHttpRequest ÀÉÎõü ΑΒΓαβγ ДОБРОдобро"},
		{"digits", "1 12 123 1234 12345 123456 1234567890123 3.14159 1,000,000 v1.2.3 0x1F"},
		{"unicode digits", "١٢٣٤٥٦٧ ۱۲۳۴ १२३४५ ½¾⅓ Ⅻ ⅷ ① ²³ 12½"},
		{"digits and letters", "a1b22c333d4444 1a 22bb 333ccc 4444dddd x86_64"},
		{"spaces", "a b  c   d    e     f"},
		{"trailing spaces", "x   "},
		{"only spaces", "     "},
		{"spaces then word", "         word"},
		{"newlines", "a\nb\n\nc\n\n\nd"},
		{"blank lines with spaces", "a\n \n  \n b\n\t\n\tc"},
		{"spaces around newlines", "x  \n  y \n\n  z\n \n"},
		{"crlf", "line one\r\nline two\r\n\r\nline four\r\n"},
		{"lone cr", "a\rb\r\rc \r d"},
		{"tabs", "\tindent\n\t\tdeeper\t\tx\t \t y"},
		{"nbsp", "a\u00a0b \u00a0c\u00a0\u00a0d\u00a0 e"},
		{"unicode spaces", "a\u2003b\u2009c\u3000日本\u2028\u2029x\u0085y\u1680z\u202f!\u205f?"},
		{"vertical whitespace", "a\vb\fc \v\f d"},
		{"punctuation", "!!! ??? ... --- *** ### ```go\n}\n}\n]) }); // comment\n/* block */ a/b/c https://example.com/a/b?c=d"},
		{"punct newlines", "!\n/\n/x ;\r\n\r\n/ }\n\n\n\n/\n"},
		{"special tokens", "<|endoftext|> <|endofprompt|> <|fim_prefix|><|fim_middle|><|fim_suffix|> <|im_start|>"},
		{"json", `{"name":"read_file","description":"Read a file.\nUse it when…","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`},
		{"json pretty", "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {\n    \"c\": \"d\"\n  }\n}\n"},
		{"code", "func main() {\n\tfmt.Println(\"hello, world\")\n\tfor i := 0; i < 10; i++ {\n\t\tx += i\n\t}\n}\n"},
		{"markdown", "# Title\n\n- item one\n- item two\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"},
		{"replacement char", "a\uFFFDb \uFFFD\uFFFD"},
		{"control chars", "\x00\x01\x02 \x7f \x1b[31mred\x1b[0m"},
		{"long word", strings.Repeat("a", 12000)},
		{"long pair word", strings.Repeat("ab", 6000)},
		{"long cjk", strings.Repeat("漢字", 4000)},
		{"long digits", strings.Repeat("9876543210", 1200)},
		{"long spaces then word", strings.Repeat(" ", 20000) + "x"},
		{"long spaces", strings.Repeat(" ", 20000)},
		{"long newlines", strings.Repeat("\n", 5000) + strings.Repeat(" \n", 3000)},
		{"long punctuation", strings.Repeat("!?", 6000)},
		{"long base64", base64ish(16000)},
	}
	r := rand.New(rand.NewPCG(1, 2))
	letters := []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüñßøαβγжщ日本語中文한국")
	var word strings.Builder
	for word.Len() < 15000 {
		word.WriteRune(letters[r.IntN(len(letters))])
	}
	vs = append(vs, vector{"long random word", word.String()})
	// Words on both sides of the longest piece whose merge scratch a
	// pooled state keeps, each followed by a shorter one and itself again.
	rw := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{keepScratch - 1, keepScratch, keepScratch + 1} {
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + rw.IntN(26))
		}
		w := string(b)
		vs = append(vs, vector{fmt.Sprintf("word of %d bytes", n), w + " " + w[:300] + " " + w})
	}
	for i := range 4 {
		b := make([]byte, 1024<<i)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		vs = append(vs, vector{fmt.Sprintf("random bytes %d", len(b)), string(b)})
	}
	vs = append(vs,
		vector{"invalid utf8", "a\xffb\xc3(c\xe2\x82 d\xf0\x9f\x98 e\xed\xa0\x80f \xc0\xaf"},
		vector{"truncated at end", "word\xe6\x97"},
	)
	return vs
}

func base64ish(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// slowMax bounds the inputs given to the cubic slowCount.
const slowMax = 2048

const vectorsGolden = "testdata/vectors.golden.json"

// TestHardVectors checks the counter on the hard vectors against the counts
// npm tiktoken 1.0.22 gave (regenerate with -update), against the slow
// independent count, and against tiktoken-go where its split is not known to
// differ.
func TestHardVectors(t *testing.T) {
	vs := hardVectors()
	if *update {
		texts := make([]string, len(vs))
		for i, v := range vs {
			texts[i] = replaceInvalid(v.text)
		}
		counts := tiktokenCounts(t, texts)
		golden := map[string]int{}
		for i, v := range vs {
			golden[v.name] = counts[i]
		}
		b, err := json.MarshalIndent(golden, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorsGolden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(vectorsGolden)
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]int
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatalf("%s: %v", vectorsGolden, err)
	}
	c := O200k()
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			want, ok := golden[v.name]
			if !ok {
				t.Fatalf("no count in %s; run with -update", vectorsGolden)
			}
			got := c.Count(v.text)
			if got != want {
				t.Errorf("Count = %d, tiktoken counts %d", got, want)
			}
			if got := c.(BytesCounter).CountBytes([]byte(v.text)); got != want {
				t.Errorf("CountBytes = %d, tiktoken counts %d", got, want)
			}
			if len(v.text) <= slowMax {
				if slow := slowCount(t, v.text); slow != want {
					t.Errorf("slow count = %d, tiktoken counts %d", slow, want)
				}
			}
			if !generatedSplitDiffers(t, v.text) {
				if ref := refCount(t, v.text); ref != got {
					t.Errorf("Count = %d, tiktoken-go counts %d", got, ref)
				}
			}
			if utf8.ValidString(v.text) {
				if ours, theirs := ourPieces(v.text), regexpPieces(t, refSplitInterpreted, v.text); !slices.Equal(ours, theirs) {
					t.Errorf("pieces differ:\n ours %q\n want %q", ours, theirs)
				}
			}
		})
	}
}

// tiktokenCounts counts texts with npm tiktoken through node.
func tiktokenCounts(t *testing.T, texts []string) []int {
	t.Helper()
	node := testpeers.Node(t)
	pkg := testpeers.NPMPackage(t, "tiktoken")
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "tiktoken_count.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, pkg)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node tiktoken: %v: %s", err, stderr.String())
	}
	var counts []int
	if err := json.Unmarshal(out, &counts); err != nil {
		t.Fatalf("node tiktoken output: %v", err)
	}
	if len(counts) != len(texts) {
		t.Fatalf("node tiktoken gave %d counts for %d texts", len(counts), len(texts))
	}
	return counts
}

// randomText builds text from the character kinds the pattern tells apart,
// in runs, so that every alternative and its backtracking get exercised.
func randomText(r *rand.Rand, n int) string {
	kinds := [][]string{
		{"a", "b", "z", "é", "ß", "ж", "α", "ǆ"},
		{"A", "Z", "É", "Ж", "Ω", "ǅ", "ǈ"},
		{"日", "本", "ا", "ʰ", "ᵃ", "ก"},
		{"\u0301", "\u0308", "\u093f", "\u200d", "\ufe0f"},
		{"0", "1", "9", "١", "½", "Ⅻ", "²"},
		{" ", " ", " ", "\t", "\u00a0", "\u3000", "\u2003"},
		{"\n", "\r", "\r\n", "\n\n"},
		{"'", "'s", "'T", "'re", "'LL", "'d", "'ſ", "'v"},
		{"!", ".", ",", "/", "\"", "{", "}", "<|endoftext|>", "—", "…", "€", "👍", "🏿"},
	}
	var b strings.Builder
	for b.Len() < n {
		k := kinds[r.IntN(len(kinds))]
		for range 1 + r.IntN(4) {
			b.WriteString(k[r.IntN(len(k))])
		}
	}
	return b.String()
}

// TestAgainstTiktoken compares with npm tiktoken, the implementation the
// corpus counts come from, on random texts.
func TestAgainstTiktoken(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	texts := make([]string, 3000)
	for i := range texts {
		texts[i] = randomText(r, 1+r.IntN(120))
	}
	counts := tiktokenCounts(t, texts)
	c := O200k()
	bad := 0
	for i, s := range texts {
		if got := c.Count(s); got != counts[i] {
			t.Errorf("Count(%q) = %d, tiktoken counts %d", s, got, counts[i])
			if bad++; bad > 10 {
				t.FailNow()
			}
		}
	}
}

func TestSplitMatchesRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		s := randomText(r, 1+r.IntN(80))
		if ours, want := ourPieces(s), regexpPieces(t, refSplitInterpreted, s); !slices.Equal(ours, want) {
			t.Fatalf("split %q:\n ours %q\n want %q", s, ours, want)
		}
	}
}

// TestGeneratedSplitBug pins the known difference of tiktoken-go, so that
// the exception in the differential tests stays justified.
func TestGeneratedSplitBug(t *testing.T) {
	s := "\n \n"
	if !generatedSplitDiffers(t, s) {
		t.Skip("tiktoken-go splits \"\\n \\n\" like tiktoken now; drop the exception")
	}
	if got := O200k().Count(s); got != 1 {
		t.Errorf("Count(%q) = %d, want 1 (tiktoken)", s, got)
	}
	if got := refCount(t, s); got != 2 {
		t.Errorf("tiktoken-go counts %q as %d, want its known 2", s, got)
	}
}

func TestClasses(t *testing.T) {
	cls := o200kCounter().split.cls
	for r := rune(0); r <= utf8.MaxRune; r++ {
		var want uint8
		if inClass(r, "upper") {
			want |= cUpper
		}
		if inClass(r, "lower") {
			want |= cLower
		}
		if inClass(r, "letter") {
			want |= cLetter
		}
		if inClass(r, "number") {
			want |= cNumber
		}
		if inClass(r, "space") {
			want |= cSpace
		}
		if r == '\r' || r == '\n' {
			want |= cNewline
		}
		if cls[r] != want {
			t.Fatalf("class of %U = %06b, want %06b", r, cls[r], want)
		}
	}
}

func TestASCIIClass(t *testing.T) {
	cls := o200kCounter().split.cls
	for b := range utf8.RuneSelf {
		if asciiClass[b] != cls[b] {
			t.Errorf("asciiClass[%#x] = %06b, classes has %06b", b, asciiClass[b], cls[b])
		}
	}
}
