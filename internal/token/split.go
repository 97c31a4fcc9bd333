package token

import (
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// The o200k_base pre-tokenizer splits text with this pattern before the
// byte-pair merge (tiktoken's o200k_base.pat_str):
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// splitter implements it by hand with the same leftmost-first backtracking
// semantics as the regular expression engines of tiktoken (fancy-regex) and
// of regexp2's interpreter. Every character starts some alternative, so the
// pieces cover the text without gaps.
type splitter struct{ cls *classes }

// class returns the class bits and the byte width of the character at s[i].
// s must be valid UTF-8.
func (sp splitter) class(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	return sp.classRune(s, i)
}

func (sp splitter) classRune(s string, i int) (uint8, int) {
	r, n := utf8.DecodeRuneInString(s[i:])
	return sp.cls[r], n
}

// run returns the end of the run of characters from i whose class has a
// bit of want, or any class when want is 0, and no bit of avoid.
func (sp splitter) run(s string, i int, want, avoid uint8) int {
	for i < len(s) {
		var g uint8
		n := 1
		if b := s[i]; b < utf8.RuneSelf {
			g = asciiClass[b]
		} else {
			g, n = sp.classRune(s, i)
		}
		if (want != 0 && g&want == 0) || g&avoid != 0 {
			return i
		}
		i += n
	}
	return i
}

// notLetterNumberNewline reports [^\r\n\p{L}\p{N}].
func notLetterNumberNewline(f uint8) bool { return f&(cLetter|cNumber|cNewline) == 0 }

// next returns the end of the piece that starts at s[p], p < len(s).
func (sp splitter) next(s string, p int) int {
	if s[p] < utf8.RuneSelf {
		if e := asciiNext(s, p); e > 0 {
			return e
		}
	}
	return sp.nextRune(s, p)
}

// nextRune is next for any text: it decides with the class of every
// character, ASCII or not.
func (sp splitter) nextRune(s string, p int) int {
	if e := asciiWord(s, p); e > 0 {
		return e
	}
	f, w := sp.class(s, p)
	if f&(cUpper|cLower) != 0 {
		return sp.letters(s, p, f, w)
	}
	if notLetterNumberNewline(f) && p+w < len(s) {
		if g, _ := sp.class(s, p+w); g&(cUpper|cLower) != 0 {
			return sp.letters(s, p, f, w)
		}
	}
	if f&cNumber != 0 { // \p{N}{1,3}
		i := p + w
		for k := 1; k < 3 && i < len(s); k++ {
			g, n := sp.class(s, i)
			if g&cNumber == 0 {
				break
			}
			i += n
		}
		return i
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
	q := p
	if s[p] == ' ' {
		q++
	}
	i := sp.run(s, q, 0, cSpace|cLetter|cNumber)
	if i > q {
		for i < len(s) && (s[i] == '\r' || s[i] == '\n' || s[i] == '/') {
			i++
		}
		return i
	}
	// Here s[p] is whitespace. Scan the run once for the three whitespace
	// alternatives.
	lastNewline, lastStart := -1, p
	i = p
	for i < len(s) {
		g, n := sp.class(s, i)
		if g&cSpace == 0 {
			break
		}
		if g&cNewline != 0 {
			lastNewline = i
		}
		lastStart = i
		i += n
	}
	switch {
	case lastNewline >= 0: // \s*[\r\n]+ backtracks to the last line break
		return lastNewline + 1
	case i == len(s): // \s+(?!\S) at the end of the text
		return i
	case lastStart > p: // \s+(?!\S) leaves the last space to the next piece
		return lastStart
	default: // \s+
		return i
	}
}

// asciiWord is the letter alternatives for an ASCII word: an ASCII letter
// at s[p], or a byte of [^\r\n\p{L}\p{N}] followed by one, then capitals
// [A-Z]* and small letters [a-z]*, followed by ASCII or the end. It
// returns the piece's end, or 0 when the piece is not of that form (a
// non-ASCII character after the letters may be a letter or a mark, which
// letters decides).
//
// The pieces are those of letters: after capitals, the first alternative
// needs small letters (a capital is never also small); without them, the
// second takes the capitals alone. Either way the contraction follows.
func asciiWord(s string, p int) int {
	q := p
	if b := s[p]; b|0x20 < 'a' || b|0x20 > 'z' {
		if b >= utf8.RuneSelf || asciiClass[b]&(cLetter|cNumber|cNewline) != 0 || p+1 >= len(s) {
			return 0
		}
		if c := s[p+1] | 0x20; c < 'a' || c > 'z' {
			return 0
		}
		q = p + 1
	}
	i := q
	for i < len(s) && 'A' <= s[i] && s[i] <= 'Z' {
		i++
	}
	j := i
	for j < len(s) && 'a' <= s[j] && s[j] <= 'z' {
		j++
	}
	if j < len(s) && s[j] >= utf8.RuneSelf {
		return 0
	}
	return contraction(s, j)
}

// letters matches the first two alternatives at s[p], whose class is f and
// width w. The caller has checked that one of them matches.
func (sp splitter) letters(s string, p int, f uint8, w int) int {
	// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
	for take := 1; take >= 0; take-- {
		q := p
		if take == 1 {
			if !notLetterNumberNewline(f) {
				continue
			}
			q += w
		}
		i, lastLower := q, -1
		for i < len(s) {
			g, n := sp.class(s, i)
			if g&cUpper == 0 {
				break
			}
			if g&cLower != 0 {
				lastLower = i + n
			}
			i += n
		}
		if i < len(s) {
			if g, n := sp.class(s, i); g&cLower != 0 {
				return contraction(s, sp.lowerRun(s, i+n))
			}
		}
		if lastLower >= 0 {
			// The upper run gives back characters until one of them is
			// also lowercase; the lowercase run then ends after it.
			return contraction(s, lastLower)
		}
	}
	// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
	for take := 1; take >= 0; take-- {
		q := p
		if take == 1 {
			if !notLetterNumberNewline(f) {
				continue
			}
			q += w
		}
		i := sp.run(s, q, cUpper, 0)
		if i > q {
			return contraction(s, sp.lowerRun(s, i))
		}
	}
	// Unreachable when the caller's precondition holds; consume one
	// character so that counting always advances.
	return p + w
}

// lowerRun returns the end of the run of [\p{Ll}\p{Lm}\p{Lo}\p{M}] from i.
func (sp splitter) lowerRun(s string, i int) int {
	return sp.run(s, i, cLower, 0)
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d)? at s[i].
// Case-insensitive "s" also matches U+017F LATIN SMALL LETTER LONG S, as
// Unicode simple case folding has it.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return i + 2
	case 'r', 'R', 'v', 'V':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l', 'L':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	case 0xc5: // ſ is C5 BF
		if i+2 < len(s) && s[i+2] == 0xbf {
			return i + 3
		}
	}
	return i
}

// Kinds of ASCII bytes for asciiNext. In ASCII the pattern's classes
// reduce to these: a capital is [\p{Lu}...] and not [\p{Ll}...], a small
// letter the reverse, and kPunct is [^\s\p{L}\p{N}].
const (
	kPunct   = iota
	kUpper   // [A-Z]
	kLower   // [a-z]
	kDigit   // [0-9]
	kSpace   // \s but not [\r\n]: space, \t, \v, \f
	kNewline // [\r\n]
	kHigh    // a byte of a multi-byte character, or invalid
)

var asciiKind = func() (k [256]uint8) {
	for b := range 256 {
		switch {
		case b >= utf8.RuneSelf:
			k[b] = kHigh
		case 'A' <= b && b <= 'Z':
			k[b] = kUpper
		case 'a' <= b && b <= 'z':
			k[b] = kLower
		case '0' <= b && b <= '9':
			k[b] = kDigit
		case b == '\r' || b == '\n':
			k[b] = kNewline
		case unicode.IsSpace(rune(b)):
			k[b] = kSpace
		default:
			k[b] = kPunct
		}
	}
	return k
}()

// asciiNext is next for a piece that starts with an ASCII byte and whose
// end is decided by ASCII bytes alone. It returns 0 when the decision
// depends on a character that is not ASCII (it may be a letter, a digit, a
// space or a mark), which nextRune then makes.
func asciiNext(s string, p int) int {
	k := asciiKind[s[p]]
	switch k {
	case kUpper, kLower:
		return asciiLetters(s, p)
	case kDigit: // \p{N}{1,3}
		i := p + 1
		for ; i < len(s) && i < p+3; i++ {
			if d := asciiKind[s[i]]; d != kDigit {
				if d == kHigh {
					return 0
				}
				return i
			}
		}
		return i
	case kNewline:
		return asciiSpaces(s, p)
	}
	// s[p] is [^\r\n\p{L}\p{N}]: a letter after it joins the piece.
	if p+1 < len(s) {
		switch asciiKind[s[p+1]] {
		case kUpper, kLower:
			return asciiLetters(s, p+1)
		case kHigh:
			return 0
		case kPunct:
			if s[p] == ' ' { // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
				return asciiPunct(s, p+1)
			}
		}
	}
	if k == kPunct {
		return asciiPunct(s, p)
	}
	return asciiSpaces(s, p)
}

// asciiLetters is asciiWord's scan from the first letter at s[q].
func asciiLetters(s string, q int) int {
	i := q
	if asciiKind[s[i]] == kUpper {
		i = byteRun(s, i+1, 'A', 'Z')
	}
	i = byteRun(s, i, 'a', 'z')
	if i < len(s) && s[i] >= utf8.RuneSelf {
		return 0
	}
	return contraction(s, i)
}

// asciiPunct matches `[^\s\p{L}\p{N}]+[\r\n/]*` from s[q], a byte of the
// first class.
func asciiPunct(s string, q int) int {
	i := q + 1
	for i < len(s) && asciiKind[s[i]] == kPunct {
		i++
	}
	if i < len(s) && s[i] >= utf8.RuneSelf {
		return 0
	}
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || s[i] == '/') {
		i++
	}
	return i
}

// asciiSpaces is the whitespace alternatives of nextRune for a run of
// ASCII whitespace from s[p] followed by ASCII or the end.
func asciiSpaces(s string, p int) int {
	lastNewline := -1
	i := p
scan:
	for ; i < len(s); i++ {
		switch asciiKind[s[i]] {
		case kSpace:
		case kNewline:
			lastNewline = i
		case kHigh:
			return 0
		default:
			break scan
		}
	}
	switch {
	case lastNewline >= 0:
		return lastNewline + 1
	case i == len(s):
		return i
	case i-1 > p:
		return i - 1
	default:
		return i
	}
}

// byteRun returns the end of the run of bytes in [lo, hi] from s[i], an
// ASCII range, testing eight bytes at a time.
func byteRun(s string, i int, lo, hi byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		w := le64(s[i:])
		x := w &^ highs // no carries between bytes below
		// the high bit of each byte: set where x >= lo, and where x > hi
		ge := x + ones*uint64(0x80-lo)
		gt := x + ones*uint64(0x7f-hi)
		if out := (^ge | gt | w) & highs; out != 0 {
			return i + bits.TrailingZeros64(out)/8
		}
	}
	for i < len(s) && lo <= s[i] && s[i] <= hi {
		i++
	}
	return i
}
