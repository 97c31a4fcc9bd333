package canon

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Marshal returns the canonical bytes of v.
func Marshal(v *Value) []byte {
	return Append(nil, v)
}

// Append appends the canonical bytes of v (JSON.stringify of it) to dst. A
// nil *Value is null.
func Append(dst []byte, v *Value) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	switch v.kind() {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.n != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		return AppendNumber(dst, math.Float64frombits(v.n))
	case String:
		return appendString(dst, v.str(), v.wtf())
	case Array:
		dst = append(dst, '[')
		for i, e := range v.elems() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = Append(dst, e)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		wtf := v.wtf()
		for i, m := range v.members() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, m.Key, wtf)
			dst = append(dst, ':')
			dst = Append(dst, m.Value)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// AppendString appends s as JSON.stringify writes a string. s must be UTF-8;
// invalid bytes are written as U+FFFD.
func AppendString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = string(appendReplacingInvalid(nil, []byte(s)))
	}
	return appendString(dst, s, false)
}

const hexDigits = "0123456789abcdef"

// safe[c] is true for the ASCII bytes JSON.stringify writes unchanged.
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString writes s, which is UTF-8 except that, when wtf is set, lone
// surrogates appear as their three-byte generalized encoding (ED A0..BF xx).
func appendString(dst []byte, s string, wtf bool) []byte {
	dst = append(dst, '"')
	last := 0
	for i := 0; i < len(s); {
		i = skipPlainString(s, i, wtf)
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			dst = append(dst, s[last:i]...)
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			last = i
			continue
		}
		if wtf && c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 {
			// A lone surrogate: JSON.stringify escapes it.
			u := uint16(c&0x0F)<<12 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F)
			dst = append(dst, s[last:i]...)
			dst = append(dst, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
			i += 3
			last = i
			continue
		}
		i++
	}
	dst = append(dst, s[last:]...)
	return append(dst, '"')
}

// AppendNumber appends f as JSON.stringify writes a number: ECMAScript
// Number::toString, with NaN and the infinities as null.
func AppendNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0')
	}
	// Integers below 2^53 are printed exactly, and their shortest
	// round-trip digits are the integer itself.
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	var buf [32]byte
	// 'e' with precision -1 gives the shortest digits that round-trip,
	// as d.ddde±xx.
	b := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	if b[0] == '-' {
		dst = append(dst, '-')
		b = b[1:]
	}
	e := 0
	for i := range b {
		if b[i] == 'e' {
			// e±dd or e±ddd
			for _, c := range b[i+2:] {
				e = e*10 + int(c-'0')
			}
			if b[i+1] == '-' {
				e = -e
			}
			b = b[:i]
			break
		}
	}
	// digits d1..dk, value = 0.d1..dk × 10^n
	var digits [24]byte
	k := 0
	for _, c := range b {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	n := e + 1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits[:k]...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:k]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits[:k]...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:k]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// A MemberSpan is where one member of an object stands in the bytes
// [AppendSpans] wrote: its key (quoted) from Key, its value from Value to
// End.
type MemberSpan struct{ Key, Value, End int }

// AppendSpans is [Append], and when v is an object it also appends to spans
// where each of its members stands in dst, in the order of [Value.Members].
func AppendSpans(dst []byte, v *Value, spans []MemberSpan) ([]byte, []MemberSpan) {
	if v.Kind() != Object {
		return Append(dst, v), spans
	}
	dst = append(dst, '{')
	wtf := v.wtf()
	for i, m := range v.members() {
		if i > 0 {
			dst = append(dst, ',')
		}
		key := len(dst)
		dst = appendString(dst, m.Key, wtf)
		dst = append(dst, ':')
		val := len(dst)
		dst = Append(dst, m.Value)
		spans = append(spans, MemberSpan{Key: key, Value: val, End: len(dst)})
	}
	return append(dst, '}'), spans
}
