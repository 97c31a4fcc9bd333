package canon

import "encoding/binary"

// Scanning eight bytes at a time: plain reports whether none of the eight
// bytes of w needs attention inside a string, that is none is a control
// character, '"' or '\\' (and, when ascii is set, none is above 0x7F).

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasZero reports whether some byte of w is zero.
func hasZero(w uint64) bool { return (w-lsb)&^w&msb != 0 }

// hasLess reports whether some byte of w is below n (n ≤ 128).
func hasLess(w uint64, n byte) bool { return (w-lsb*uint64(n))&^w&msb != 0 }

func plain(w uint64, ascii bool) bool {
	if ascii {
		return plainASCII(w)
	}
	return !hasLess(w, 0x20) && !hasZero(w^(lsb*'"')) && !hasZero(w^(lsb*'\\'))
}

// special returns, for a word of string bytes, a non-zero value if some
// byte is a control character, '"', '\\' or above 0x7F. A subtraction sets
// the top bit of a byte that is below the subtrahend, or of a byte at or
// above 0x80 (flagged anyway by w itself), or borrows from a lower byte
// that was below it; so the result is exact as a whole.
func special(w uint64) uint64 {
	return ((w - lsb*0x20) | ((w ^ (lsb * '"')) - lsb) | ((w ^ (lsb * '\\')) - lsb) | w) & msb
}

func plainASCII(w uint64) bool { return special(w) == 0 }

// skipPlain returns the first index from i at which the eight-byte word
// starting there is not plain; the bytes before it need no attention.
func skipPlain(s []byte, i int, ascii bool) int {
	if ascii {
		for i+16 <= len(s) && special(binary.LittleEndian.Uint64(s[i:]))|special(binary.LittleEndian.Uint64(s[i+8:])) == 0 {
			i += 16
		}
		for i+8 <= len(s) && special(binary.LittleEndian.Uint64(s[i:])) == 0 {
			i += 8
		}
		return i
	}
	for i+8 <= len(s) && plain(binary.LittleEndian.Uint64(s[i:]), false) {
		i += 8
	}
	return i
}

// skipPlainString is skipPlain for a string.
func skipPlainString(s string, i int, ascii bool) int {
	for i+8 <= len(s) {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if !plain(w, ascii) {
			break
		}
		i += 8
	}
	return i
}
