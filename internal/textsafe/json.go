package textsafe

import (
	"unicode/utf16"
	"unicode/utf8"
)

// JSON rewrites encoded JSON so that every unsafe rune (see [Unsafe]) in
// it is a \u escape: the same document to a JSON parser, and nothing in it
// that a terminal would obey when the file is printed. encoding/json
// already escapes C0 controls and U+2028/U+2029, but writes DEL, C1
// controls and bidi overrides raw. Outside strings JSON is ASCII, so a
// rune that needs rewriting is always inside a string. Invalid UTF-8 is
// left as it is (encoding/json never writes any).
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if escapeInJSON(r, n) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf && c != 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if escapeInJSON(r, n) {
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				out = appendU(out, r1)
				out = appendU(out, r2)
			} else {
				out = appendU(out, r)
			}
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// escapeInJSON reports whether a decoded rune (n bytes long) is one that
// JSON rewrites; C0 controls are never raw in valid JSON.
func escapeInJSON(r rune, n int) bool {
	return !(r == utf8.RuneError && n == 1) && Unsafe(r)
}

func appendU(out []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
