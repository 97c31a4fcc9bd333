package canon

import "unicode/utf8"

// Invalid UTF-8 is replaced the way the WHATWG UTF-8 decoder (and so Node's
// buf.toString("utf8")) does: each maximal subpart of an ill-formed
// sequence becomes one U+FFFD. A maximal subpart is a valid lead byte
// followed by as many bytes as still fit a well-formed sequence; any other
// invalid byte is a subpart of its own.

// invalidLen returns the length of the maximal subpart of the ill-formed
// sequence at the start of b. The caller has checked that b does not start
// with a valid encoding.
func invalidLen(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		need = 3
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(b) && b[n] >= lo && b[n] <= hi {
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

// appendReplacingInvalid appends b to dst with every maximal subpart of an
// ill-formed sequence replaced by U+FFFD.
func appendReplacingInvalid(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			dst = append(dst, b[i:i+size]...)
			i += size
			continue
		}
		dst = append(dst, "\uFFFD"...)
		i += invalidLen(b[i:])
	}
	return dst
}

// ReplaceInvalidUTF8 returns b with invalid UTF-8 replaced by U+FFFD exactly
// as Node's UTF-8 decoder does. It returns b itself when b is valid.
func ReplaceInvalidUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return appendReplacingInvalid(make([]byte, 0, len(b)+len(b)/2), b)
}
