package token

import (
	"unicode"
	"unicode/utf8"
)

// Character classes of the o200k_base pre-tokenizer pattern, one bit each.
const (
	cUpper   = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower               // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cLetter              // \p{L}
	cNumber              // \p{N}
	cSpace               // \s (unicode.IsSpace, the White_Space property)
	cNewline             // [\r\n]
)

// asciiClass is the ASCII part of classes, for the splitter's fast path.
var asciiClass [utf8.RuneSelf]uint8

func init() {
	for r := range rune(utf8.RuneSelf) {
		var f uint8
		if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
			f |= cUpper
		}
		if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
			f |= cLower
		}
		if unicode.IsLetter(r) {
			f |= cLetter
		}
		if unicode.IsNumber(r) {
			f |= cNumber
		}
		if unicode.IsSpace(r) {
			f |= cSpace
		}
		if r == '\r' || r == '\n' {
			f |= cNewline
		}
		asciiClass[r] = f
	}
}

// classes maps every code point to its class bits. It is built once, from
// the unicode package's range tables, when the counter is first used.
type classes [utf8.MaxRune + 1]uint8

func newClasses() *classes {
	t := new(classes)
	set := func(tab *unicode.RangeTable, bits uint8) {
		for _, r := range tab.R16 {
			for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
				t[c] |= bits
			}
		}
		for _, r := range tab.R32 {
			for c := r.Lo; c <= r.Hi; c += r.Stride {
				t[c] |= bits
			}
		}
	}
	set(unicode.Lu, cUpper|cLetter)
	set(unicode.Lt, cUpper|cLetter)
	set(unicode.Lm, cUpper|cLower|cLetter)
	set(unicode.Lo, cUpper|cLower|cLetter)
	set(unicode.Ll, cLower|cLetter)
	set(unicode.M, cUpper|cLower)
	set(unicode.N, cNumber)
	set(unicode.White_Space, cSpace)
	t['\r'] |= cNewline
	t['\n'] |= cNewline
	return t
}
