package redact

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refScrubber is the Scrubber as it was before it read text in one pass:
// each known value replaced in turn until none is left, and one
// Knuth-Morris-Pratt pass per value for the pieces clipping left. It is
// the reference the Scrubber is compared with.
type refScrubber struct{ values []string } // longest first, as Add keeps them

func (r refScrubber) String(text string) string {
	return r.cut(r.known(Text(r.known(text))))
}

func (r refScrubber) known(text string) string {
	for {
		changed := false
		for _, v := range r.values {
			if strings.Contains(text, v) {
				text = strings.ReplaceAll(text, v, Marker)
				changed = true
			}
		}
		if !changed {
			return text
		}
	}
}

func (r refScrubber) cut(text string) string {
	for _, v := range r.values {
		text = refCutValue(text, v)
	}
	return text
}

func refCutValue(text, v string) string {
	if len(v) < 2 {
		return text
	}
	if k := refOverlap(refReverse(text[:min(len(text), len(v)-1)]), refReverse(v)); k >= minPiece {
		text = Marker + text[k:]
	}
	p := v[:len(v)-1]
	fail := refFailure(p)
	var b strings.Builder
	done, k := 0, 0
	for i := 0; i <= len(text); i++ {
		if i == len(text) || text[i] == '.' && strings.HasPrefix(text[i:], "...") || text[i] == "…"[0] && strings.HasPrefix(text[i:], "…") {
			if from := i - k; k >= MinSecret && from >= done {
				b.WriteString(text[done:from])
				b.WriteString(Marker)
				done = i
			}
		}
		if i == len(text) {
			break
		}
		c := text[i]
		for k > 0 && (k == len(p) || c != p[k]) {
			k = fail[k-1]
		}
		if k < len(p) && c == p[k] {
			k++
		}
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

func refFailure(p string) []int {
	fail := make([]int, len(p))
	for i, k := 1, 0; i < len(p); i++ {
		for k > 0 && p[i] != p[k] {
			k = fail[k-1]
		}
		if p[i] == p[k] {
			k++
		}
		fail[i] = k
	}
	return fail
}

func refOverlap(text, v string) int {
	if len(v) < 2 {
		return 0
	}
	p := v[:len(v)-1]
	fail := refFailure(p)
	k := 0
	for i := max(0, len(text)-len(p)); i < len(text); i++ {
		for k > 0 && (k == len(p) || text[i] != p[k]) {
			k = fail[k-1]
		}
		if k < len(p) && text[i] == p[k] {
			k++
		}
	}
	return k
}

func refReverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// crosses reports whether a and b overlap with neither holding the other.
func crosses(a, b span) bool {
	overlap := a.start < b.end && b.start < a.end
	nested := a.start <= b.start && b.end <= a.end || b.start <= a.start && a.end <= b.end
	return overlap && !nested
}

// occurrences are the places in text of every value, overlapping ones
// included.
func occurrences(text string, values []string) []span {
	var out []span
	for _, v := range values {
		for i := 0; i+len(v) <= len(text); i++ {
			if text[i:i+len(v)] == v {
				out = append(out, span{i, i + len(v)})
			}
		}
	}
	return out
}

// pieces are the places in text of what cut removes, for each value on
// its own: its longest proper end at the start of text, its longest
// proper start before an ellipsis or the end.
func pieces(text string, values []string) []span {
	var out []span
	for _, v := range values {
		for k := min(len(text), len(v)-1); k >= minPiece; k-- {
			if strings.HasSuffix(v, text[:k]) {
				out = append(out, span{0, k})
				break
			}
		}
		for i := 0; i <= len(text); i++ {
			if i < len(text) && !strings.HasPrefix(text[i:], "...") && !strings.HasPrefix(text[i:], "…") {
				continue
			}
			for k := min(i, len(v)-1); k >= MinSecret; k-- {
				if strings.HasPrefix(v, text[i-k:i]) {
					out = append(out, span{i - k, i})
					break
				}
			}
		}
	}
	return out
}

// ambiguous reports whether some two of spans overlap with neither
// holding the other (laminar is false), or, with laminar, overlap at all
// and differ.
func ambiguous(spans []span, laminar bool) bool {
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			if a != b && (crosses(a, b) || !laminar && a.start < b.end && b.start < a.end) {
				return true
			}
		}
	}
	return false
}

// TestScrubberReference: on random small values and texts, Values and
// String give what the reference gives wherever the two rules agree by
// construction: values without '*' (a marker then joins no occurrence),
// occurrences that are disjoint or nested (leftmost-longest takes the
// outer one, as longest-first does), and clipped pieces that are disjoint
// (one value's piece each). Everywhere, neither leaves a known value.
func TestScrubberReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abc."
	word := func(n int, extra string) string {
		var b strings.Builder
		for range n {
			if extra != "" && rng.IntN(6) == 0 {
				b.WriteByte(extra[rng.IntN(len(extra))])
			} else {
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
		}
		return b.String()
	}
	compared, total := 0, 20_000
	for n := range total {
		extra := ""
		switch n % 4 {
		case 1:
			extra = `* %"`
		case 2:
			extra = "*"
		}
		var values []string
		for range 1 + rng.IntN(4) {
			values = append(values, word(1+rng.IntN(7), extra))
		}
		var tb strings.Builder
		for range rng.IntN(10) {
			v := values[rng.IntN(len(values))]
			switch rng.IntN(7) {
			case 0, 1:
				tb.WriteString(v)
			case 2:
				tb.WriteString(v[:rng.IntN(len(v)+1)])
			case 3:
				tb.WriteString(v[rng.IntN(len(v)+1):])
			case 4:
				tb.WriteString([]string{"…", "...", " ", "*", "**"}[rng.IntN(5)])
			default:
				tb.WriteString(word(1+rng.IntN(3), extra))
			}
		}
		text := tb.String()
		s := New(values...)
		ref := refScrubber{s.values}
		gotValues, gotString := s.Values(text), s.String(text)
		for _, v := range s.values {
			if strings.Contains(gotValues, v) || strings.Contains(gotString, v) {
				t.Fatalf("New(%q): %q is left: Values(%q) = %q, String = %q", values, v, text, gotValues, gotString)
			}
		}
		if strings.Contains(strings.Join(s.values, ""), "*") || ambiguous(occurrences(text, s.values), true) {
			continue
		}
		if want := ref.known(text); gotValues != want {
			t.Fatalf("New(%q).Values(%q) = %q, the reference %q", values, text, gotValues, want)
		}
		if ambiguous(pieces(ref.known(Text(ref.known(text))), s.values), false) {
			continue
		}
		if want := ref.String(text); gotString != want {
			t.Fatalf("New(%q).String(%q) = %q, the reference %q", values, text, gotString, want)
		}
		compared++
	}
	t.Logf("%d of %d cases compared", compared, total)
	if compared < total/4 {
		t.Errorf("only %d of %d cases compared", compared, total)
	}
}

// whole reports whether text[i:j] stands as a whole word: neither the
// word it starts with nor the one it ends with goes further.
func whole(text string, i, j int) bool {
	return (i == 0 || !isWord(text[i-1]) || !isWord(text[i])) && (j == len(text) || !isWord(text[j]) || !isWord(text[j-1]))
}

// bruteKnown is Values read the long way: at each place, the longest value
// that starts there, or word that stands whole there.
func bruteKnown(text string, values, words []string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		best := 0
		for _, v := range values {
			if strings.HasPrefix(text[i:], v) {
				best = max(best, len(v))
			}
		}
		for _, w := range words {
			if strings.HasPrefix(text[i:], w) && whole(text, i, i+len(w)) {
				best = max(best, len(w))
			}
		}
		if best > 0 {
			b.WriteString(Marker)
			i += best
		} else {
			b.WriteByte(text[i])
			i++
		}
	}
	return b.String()
}

// bruteCut is cut read the long way: the longest end of a value (or of a
// word, ending where a word does) at the start of text, the longest start
// of a value (or of a word, starting where a word does) before each
// ellipsis and the end.
func bruteCut(text string, values, words []string) string {
	longest := 0
	for _, v := range append(slices.Clone(values), words...) {
		longest = max(longest, len(v))
	}
	start := 0
	for k := 1; k <= min(len(text), longest-1); k++ {
		for i, v := range append(slices.Clone(values), words...) {
			w := i >= len(values)
			if k <= len(v) && strings.HasSuffix(v, text[:k]) && (!w || !isWord(v[len(v)-1]) || edgeAt(text, k)) {
				start = k
			}
		}
	}
	if start >= minPiece {
		text = Marker + text[start:]
	}
	var b strings.Builder
	done := 0
	for p := 0; p <= len(text); p++ {
		if p < len(text) && !strings.HasPrefix(text[p:], "...") && !strings.HasPrefix(text[p:], "…") {
			continue
		}
		piece := 0
		for i, v := range append(slices.Clone(values), words...) {
			w := i >= len(values)
			for k := min(p, len(v)); k > piece; k-- {
				if strings.HasPrefix(v, text[p-k:p]) && (!w || !isWord(v[0]) || edgeAt(text, p-k)) {
					piece = k
					break
				}
			}
		}
		if piece >= MinSecret && p-piece >= done {
			b.WriteString(text[done : p-piece])
			b.WriteString(Marker)
			done = p
		}
	}
	b.WriteString(text[done:])
	return b.String()
}

// TestScrubberWords: with values removed anywhere and words removed where
// they stand whole, Values and String give what the rule read the long
// way gives (bruteKnown, then Text, then bruteCut), on random small
// values, words and texts without '*'; with '*', no value is left.
func TestScrubberWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "ab-. x"
	word := func(n int, extra string) string {
		var b strings.Builder
		for range n {
			if extra != "" && rng.IntN(5) == 0 {
				b.WriteString(extra)
			} else {
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
		}
		return b.String()
	}
	for n := range 20_000 {
		extra := ""
		if n%3 == 0 {
			extra = "*"
		}
		var values, words []string
		for range rng.IntN(3) {
			values = append(values, word(2+rng.IntN(6), extra))
		}
		for range 1 + rng.IntN(3) {
			words = append(words, word(2+rng.IntN(6), extra))
		}
		all := append(slices.Clone(values), words...)
		var tb strings.Builder
		for range rng.IntN(10) {
			v := all[rng.IntN(len(all))]
			switch rng.IntN(6) {
			case 0, 1:
				tb.WriteString(v)
			case 2:
				tb.WriteString(v[:rng.IntN(len(v)+1)])
			case 3:
				tb.WriteString(v[rng.IntN(len(v)+1):])
			case 4:
				tb.WriteString([]string{"…", "...", " ", "**", "a", "-"}[rng.IntN(6)])
			default:
				tb.WriteString(word(1+rng.IntN(3), extra))
			}
		}
		text := tb.String()
		s := &Scrubber{}
		s.add(values, false)
		s.add(words, true)
		s.build()
		gotValues, gotString := s.Values(text), s.String(text)
		for _, v := range s.values {
			if strings.Contains(gotValues, v) || strings.Contains(gotString, v) {
				t.Fatalf("values %q, words %q: %q is left: Values(%q) = %q, String = %q", values, words, v, text, gotValues, gotString)
			}
		}
		if strings.Contains(strings.Join(append(slices.Clone(s.values), s.words...), ""), "*") {
			continue
		}
		known := bruteKnown(text, s.values, s.words)
		if gotValues != known {
			t.Fatalf("values %q, words %q: Values(%q) = %q, want %q", values, words, text, gotValues, known)
		}
		if want := bruteCut(Text(known), s.values, s.words); gotString != want {
			t.Fatalf("values %q, words %q: String(%q) = %q, want %q", values, words, text, gotString, want)
		}
	}
}

// scrubCase is a Scrubber's work: scrub runs it and returns what it read
// (text and values, in bytes).
type scrubCase struct {
	name  string
	bench int // the size BenchmarkScrubber gives
	scrub func(size int) (read int)
}

// secretValues are n made-up credentials, each unique.
func secretValues(n int) map[string]string {
	env := map[string]string{}
	for i := range n {
		env[fmt.Sprintf("SECRET_%04d", i)] = fmt.Sprintf("s3cr3t-%04d-%08x", i, uint32(i)*2654435761)
	}
	return env
}

func valueBytes(values map[string]string) int {
	n := 0
	for _, v := range values {
		n += len(v)
	}
	return n
}

var scrubCases = []scrubCase{
	// size bytes of stderr, a secret in every thousandth line, with 1,000
	// secrets in the launch.
	{"stderr", 1 << 20, func(size int) int {
		env := secretValues(1000)
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "2026-12-01T08:00:00.%03dZ info request id=%d path=/v1/items/%d took 12ms...\n", i%1000, i, i)
			if i%1000 == 999 {
				fmt.Fprintf(&b, "error: bad key %s\n", env[fmt.Sprintf("SECRET_%04d", i/1000%1000)])
			}
		}
		Launch{Env: env}.Scrubber().String(b.String())
		return b.Len() + valueBytes(env)
	}},
	// A launch line of size/25 arguments, shown.
	{"display", 1000 * 25, func(size int) int {
		n := size / 25
		env := secretValues(n)
		args := make([]string, 0, n)
		for i := range n {
			switch i % 3 {
			case 0:
				args = append(args, fmt.Sprintf("--token=tok-%06d-x", i))
			case 1:
				args = append(args, fmt.Sprintf("/srv/data/%06d", i))
			default:
				args = append(args, fmt.Sprintf("--port=%d", 1000+i))
			}
		}
		got := Launch{Command: "node", Args: args, Env: env}.Display()
		return len(got) + valueBytes(env)
	}},
	// A letter and stars: every marker makes another occurrence.
	{"stars", 1 << 20, func(size int) int {
		text := strings.Repeat("a", size) + "**" + strings.Repeat("*a", size/2)
		New("a**", "a*a").String(text)
		return len(text)
	}},
	{"stars-values", 1 << 20, func(size int) int {
		text := strings.Repeat("a", size) + "**"
		New("a**", "a*a").Values(text)
		return len(text)
	}},
	// Each marker goes back to a state deep in a long value of stars,
	// from which the next byte walks every failure link down.
	{"stars-deep", 1 << 20, func(size int) int {
		long := strings.Repeat("*", size/16) + "z"
		text := strings.Repeat("*", size/16) + strings.Repeat("x", size)
		New(long, "***x").Values(text)
		return len(text) + len(long)
	}},
}

// TestScrubberLinear: the work of a Scrubber, counted in automaton steps,
// grows as what it reads: four times as much text (and values) costs at
// most a little over four times the steps, and at most a few steps a byte.
// (Replacing each value in turn until none was left took 5.9 s for 1 MB
// of stderr with 1,000 secrets, and did not end in 10 minutes on stars.)
func TestScrubberLinear(t *testing.T) {
	defer func(h func(int)) { testOnlySteps = h }(testOnlySteps)
	steps := 0
	testOnlySteps = func(n int) { steps += n }
	for _, c := range scrubCases {
		t.Run(c.name, func(t *testing.T) {
			var per [2]float64
			for i, size := range []int{1 << 16, 1 << 18} {
				steps = 0
				read := c.scrub(size)
				if steps == 0 {
					t.Fatalf("no step counted")
				}
				per[i] = float64(steps) / float64(read)
				t.Logf("%d bytes read: %d steps", read, steps)
			}
			if per[1] > 1.1*per[0] || per[1] > 16 {
				t.Errorf("steps a byte read: %.2f, then %.2f with four times as much: want linear, at most 16", per[0], per[1])
			}
		})
	}
}

func BenchmarkScrubber(b *testing.B) {
	for _, c := range scrubCases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.scrub(c.bench)
			}
		})
	}
}
