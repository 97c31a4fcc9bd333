package canon

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// SyntaxError reports input that JSON.parse rejects.
type SyntaxError struct {
	Offset int64  // byte offset in the input where the problem is
	Line   int    // 1-based line of Offset
	Column int    // 1-based column of Offset, in characters
	Msg    string // what is wrong, without the position
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at line %d, column %d", e.Msg, e.Line, e.Column)
}

// Parse parses data with JSON.parse semantics, after replacing invalid UTF-8
// as Node's decoder does. Object members are in canonical order with
// duplicate keys resolved. The result does not reference data.
func Parse(data []byte) (*Value, error) {
	p := parser{data: data}
	return p.parse()
}

type parser struct {
	data  []byte
	pos   int
	depth int
	// alias lets strings point into data.
	alias bool

	scratch []byte     // the decoded form of the current string
	mstack  []Member   // members of the objects being parsed
	estack  []*Value   // elements of the arrays being parsed
	idx     []indexKey // array-index keys of the object being finished
	spans   []span     // keys of the objects being written by Transform

	// Slabs the tree is carved from, to allocate in bulk.
	vals  []Value
	mems  []Member
	ptrs  []*Value
	arena []byte
	keys  map[string]string
	strs  map[string]*Value
	nums  map[uint64]*Value
}

type indexKey struct {
	n uint32
	m Member
}

const (
	slabMax     = 1024
	arenaChunk  = 32 << 10
	arenaLarge  = 1 << 10
	maxInterned = 1 << 14
)

func (p *parser) parse() (*Value, error) {
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(p.data) {
		return nil, p.unexpected(p.pos, " after the top-level value")
	}
	return v, nil
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) newValue() *Value {
	return &carve(&p.vals, 1, 16)[0]
}

func (p *parser) allocMembers(n int) []Member { return carve(&p.mems, n, 64) }

func (p *parser) allocPtrs(n int) []*Value { return carve(&p.ptrs, n, 64) }

// carve returns n zero items cut from *slab. When the slab lacks room, a
// new one replaces it, twice the size of the last, from first up to slabMax
// items, and never smaller than n; n of slabMax/2 or more get an allocation
// of their own, so that starting a slab never wastes more than half of one.
func carve[T any](slab *[]T, n, first int) []T {
	s := *slab
	if n > cap(s)-len(s) {
		if n >= slabMax/2 {
			return make([]T, n)
		}
		s = make([]T, 0, max(min(max(2*cap(s), first), slabMax), n))
	}
	out := s[len(s) : len(s)+n : len(s)+n]
	*slab = s[:len(s)+n]
	return out
}

// keep returns a string with the bytes of b that outlives the parse.
func (p *parser) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) >= arenaLarge {
		return string(b)
	}
	if len(b) > cap(p.arena)-len(p.arena) {
		p.arena = make([]byte, 0, arenaChunk)
	}
	start := len(p.arena)
	p.arena = append(p.arena, b...)
	return unsafe.String(&p.arena[start], len(b))
}

// raw returns data[i:j] as a string that outlives the parse.
func (p *parser) raw(i, j int) string {
	if i == j {
		return ""
	}
	if p.alias {
		return unsafe.String(&p.data[i], j-i)
	}
	return p.keep(p.data[i:j])
}

// key returns b as a key string, sharing storage between equal short keys.
func (p *parser) key(b []byte, i, j int) string {
	if p.alias && b == nil {
		return unsafe.String(unsafe.SliceData(p.data[i:j]), j-i)
	}
	if b == nil {
		b = p.data[i:j]
	}
	if len(b) > 64 {
		return p.keep(b)
	}
	if s, ok := p.keys[string(b)]; ok {
		return s
	}
	s := p.keep(b)
	if p.keys == nil {
		p.keys = make(map[string]string)
	}
	if len(p.keys) < maxInterned {
		p.keys[s] = s
	}
	return s
}

func (p *parser) value() (*Value, error) {
	if p.pos >= len(p.data) {
		return nil, p.unexpected(p.pos, "")
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return p.stringValue()
	case 't':
		return p.literal("true", &trueValue)
	case 'f':
		return p.literal("false", &falseValue)
	case 'n':
		return p.literal("null", &nullValue)
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return p.number()
		}
		return nil, p.unexpected(p.pos, "")
	}
}

// Values are immutable, so a tree shares one Value among all its equal
// literals, short strings and numbers.
var (
	trueValue  = makeScalar(Bool, 1)
	falseValue = makeScalar(Bool, 0)
	nullValue  = makeScalar(Null, 0)
)

// maxShared is the longest string whose Value is shared.
const maxShared = 32

func (p *parser) literal(word string, v *Value) (*Value, error) {
	for i := 0; i < len(word); i++ {
		if p.pos+i >= len(p.data) || p.data[p.pos+i] != word[i] {
			return nil, p.unexpected(p.pos+i, "")
		}
	}
	p.pos += len(word)
	return v, nil
}

func (p *parser) stringValue() (*Value, error) {
	start := p.pos + 1
	dec, wtf, verbatim, err := p.scanString()
	if err != nil {
		return nil, err
	}
	if verbatim {
		dec = p.data[start : p.pos-1]
	}
	if len(dec) <= maxShared {
		if v, ok := p.strs[string(dec)]; ok {
			return v, nil
		}
	}
	var s string
	if verbatim {
		s = p.raw(start, p.pos-1)
	} else {
		s = p.keep(dec)
	}
	v := p.newValue()
	*v = makeString(s, wtf)
	if len(s) <= maxShared && len(p.strs) < maxInterned {
		if p.strs == nil {
			p.strs = make(map[string]*Value)
		}
		p.strs[s] = v
	}
	return v, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) number() (*Value, error) {
	f, _, err := p.scanNumber()
	if err != nil {
		return nil, err
	}
	bits := math.Float64bits(f)
	if v, ok := p.nums[bits]; ok {
		return v, nil
	}
	v := p.newValue()
	*v = makeScalar(Number, bits)
	if len(p.nums) < maxInterned {
		if p.nums == nil {
			p.nums = make(map[uint64]*Value)
		}
		p.nums[bits] = v
	}
	return v, nil
}

// scanNumber scans the number at p.pos and moves past it. When verbatim is
// set, the number's text is its canonical form.
func (p *parser) scanNumber() (f float64, verbatim bool, err error) {
	d := p.data
	start := p.pos
	i := p.pos
	neg := false
	if d[i] == '-' {
		neg = true
		i++
	}
	if i >= len(d) || !isDigit(d[i]) {
		return 0, false, p.unexpected(i, " in number (expected a digit)")
	}
	var mant uint64
	simple := true
	if d[i] == '0' {
		i++
		if i < len(d) && isDigit(d[i]) {
			return 0, false, p.errAt(i, "leading zero in number")
		}
	} else {
		for i < len(d) && isDigit(d[i]) {
			mant = mant*10 + uint64(d[i]-'0')
			i++
		}
		if i-start > 15 {
			simple = false
		}
	}
	if i < len(d) && d[i] == '.' {
		simple = false
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return 0, false, p.unexpected(i, " in number (expected a digit after the decimal point)")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		simple = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return 0, false, p.unexpected(i, " in number (expected a digit in the exponent)")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	p.pos = i
	if simple {
		// At most 15 digits: exact, and printed as written, except -0.
		f = float64(mant)
		if neg {
			f = -f
		}
		return f, mant != 0 || !neg, nil
	}
	f, err = strconv.ParseFloat(unsafe.String(&d[start], i-start), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false, p.errAt(start, "invalid number")
	}
	return f, false, nil
}

// keyString parses the object key at p.pos. Equal short keys share their
// storage.
func (p *parser) keyString() (string, bool, error) {
	start := p.pos + 1
	dec, wtf, verbatim, err := p.scanString()
	if err != nil {
		return "", false, err
	}
	if verbatim {
		return p.key(nil, start, p.pos-1), false, nil
	}
	return p.key(dec, 0, 0), wtf, nil
}

// scanString scans the string literal at p.pos and moves past it. When
// verbatim is set, the string's value is the text between the quotes, valid
// UTF-8 without escapes, which is also its canonical form. Otherwise dec
// holds the decoded value (in p.scratch, valid until the next call), with
// lone surrogates in their generalized UTF-8 form when wtf is set.
func (p *parser) scanString() (dec []byte, wtf, verbatim bool, err error) {
	d := p.data
	start := p.pos + 1
	i := start
	for i < len(d) {
		i = skipPlain(d, i, true)
		if i >= len(d) {
			break
		}
		c := d[i]
		if c == '"' {
			p.pos = i + 1
			return nil, false, true, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(d[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	// Slow path: escapes, invalid UTF-8 or an error.
	b := append(p.scratch[:0], d[start:i]...)
	for {
		if i >= len(d) {
			p.scratch = b
			return nil, false, false, p.unexpected(i, " in string")
		}
		// Copy a run of bytes that need no decoding.
		if j := skipPlain(d, i, true); j > i {
			b = append(b, d[i:j]...)
			i = j
			continue
		}
		c := d[i]
		switch {
		case c == '"':
			p.scratch = b
			p.pos = i + 1
			return b, wtf, false, nil
		case c < 0x20:
			p.scratch = b
			return nil, false, false, p.errAt(i, fmt.Sprintf("control character U+%04X in string", c))
		case c == '\\':
			if i+1 >= len(d) {
				p.scratch = b
				return nil, false, false, p.unexpected(i+1, " in string")
			}
			e := d[i+1]
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				u, ok := hex4(d, i+2)
				if !ok {
					p.scratch = b
					return nil, false, false, p.badUnicodeEscape(i)
				}
				i += 6
				if u >= 0xD800 && u <= 0xDBFF && i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
					if lo, ok := hex4(d, i+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						b = utf8.AppendRune(b, 0x10000+(rune(u)-0xD800)<<10+(rune(lo)-0xDC00))
						i += 6
						continue
					}
				}
				if u >= 0xD800 && u <= 0xDFFF {
					b = append(b, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
					wtf = true
				} else {
					b = utf8.AppendRune(b, rune(u))
				}
				continue
			default:
				p.scratch = b
				return nil, false, false, p.errAt(i, "invalid escape "+quoteChar(d, i+1, `\`)+" in string")
			}
			i += 2
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(d) && d[j] < utf8.RuneSelf && d[j] >= 0x20 && d[j] != '"' && d[j] != '\\' {
				j++
			}
			b = append(b, d[i:j]...)
			i = j
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\uFFFD"...)
				i += invalidLen(d[i:])
				continue
			}
			b = append(b, d[i:i+size]...)
			i += size
		}
	}
}

func (p *parser) badUnicodeEscape(i int) error {
	d := p.data
	for j := i + 2; j < i+6; j++ {
		if j >= len(d) {
			return p.unexpected(j, " in string")
		}
		if unhex(d[j]) < 0 {
			return p.errAt(j, "bad \\u escape in string: "+quoteChar(d, j, "")+" is not a hex digit")
		}
	}
	return p.errAt(i, "bad \\u escape in string")
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func hex4(d []byte, i int) (uint16, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var u int
	for _, c := range d[i : i+4] {
		h := unhex(c)
		if h < 0 {
			return 0, false
		}
		u = u<<4 | h
	}
	return uint16(u), true
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errAt(p.pos, fmt.Sprintf("nesting deeper than %d levels", MaxDepth))
	}
	return nil
}

func (p *parser) array() (*Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++
	start := len(p.estack)
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
	} else {
		for {
			e, err := p.value()
			if err != nil {
				return nil, err
			}
			p.estack = append(p.estack, e)
			p.ws()
			if p.pos >= len(p.data) {
				return nil, p.unexpected(p.pos, "")
			}
			if c := p.data[p.pos]; c == ']' {
				p.pos++
				break
			} else if c != ',' {
				return nil, p.unexpected(p.pos, " in array (expected ',' or ']')")
			}
			p.pos++
			p.ws()
			if p.pos < len(p.data) && p.data[p.pos] == ']' {
				return nil, p.errAt(p.pos, "trailing comma before ']'")
			}
		}
	}
	p.depth--
	n := len(p.estack) - start
	v := p.newValue()
	if n > 0 {
		elems := p.allocPtrs(n)
		copy(elems, p.estack[start:])
		clear(p.estack[start:])
		p.estack = p.estack[:start]
		*v = makeArray(elems)
	} else {
		*v = makeArray(nil)
	}
	return v, nil
}

// linearKeys is how many members an object may have before duplicate keys
// are found through a map instead of a scan.
const linearKeys = 16

func (p *parser) object() (*Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++
	start := len(p.mstack)
	var index map[string]int
	wtf := false
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
	} else {
		for {
			if p.pos >= len(p.data) {
				return nil, p.unexpected(p.pos, "")
			}
			if p.data[p.pos] != '"' {
				return nil, p.unexpected(p.pos, " in object (expected a string key)")
			}
			k, kw, err := p.keyString()
			if err != nil {
				return nil, err
			}
			wtf = wtf || kw
			p.ws()
			if p.pos >= len(p.data) {
				return nil, p.unexpected(p.pos, "")
			}
			if p.data[p.pos] != ':' {
				return nil, p.unexpected(p.pos, " in object (expected ':' after the key)")
			}
			p.pos++
			p.ws()
			e, err := p.value()
			if err != nil {
				return nil, err
			}
			// A duplicate key keeps its first position and takes the
			// last value.
			ms := p.mstack[start:]
			dup := -1
			if index != nil {
				if j, ok := index[k]; ok {
					dup = j
				}
			} else {
				for j := range ms {
					if ms[j].Key == k {
						dup = j
						break
					}
				}
			}
			if dup >= 0 {
				ms[dup].Value = e
			} else {
				p.mstack = append(p.mstack, Member{Key: k, Value: e})
				if index != nil {
					index[k] = len(ms)
				} else if len(ms)+1 > linearKeys {
					index = make(map[string]int, 2*linearKeys)
					for j, m := range p.mstack[start:] {
						index[m.Key] = j
					}
				}
			}
			p.ws()
			if p.pos >= len(p.data) {
				return nil, p.unexpected(p.pos, "")
			}
			if c := p.data[p.pos]; c == '}' {
				p.pos++
				break
			} else if c != ',' {
				return nil, p.unexpected(p.pos, " in object (expected ',' or '}')")
			}
			p.pos++
			p.ws()
			if p.pos < len(p.data) && p.data[p.pos] == '}' {
				return nil, p.errAt(p.pos, "trailing comma before '}'")
			}
		}
	}
	p.depth--
	ms := p.mstack[start:]
	v := p.newValue()
	if len(ms) > 0 {
		out := p.allocMembers(len(ms))
		p.order(out, ms)
		clear(ms)
		p.mstack = p.mstack[:start]
		*v = makeObject(out, wtf)
	} else {
		*v = makeObject(nil, false)
	}
	return v, nil
}

// order copies ms to out in canonical order: array-index keys first in
// ascending numeric order, then the others in insertion order.
func (p *parser) order(out, ms []Member) {
	idx := p.idx[:0]
	for _, m := range ms {
		if n, ok := arrayIndex(m.Key); ok {
			idx = append(idx, indexKey{n, m})
		}
	}
	if len(idx) == 0 {
		copy(out, ms)
		return
	}
	slices.SortFunc(idx, func(a, b indexKey) int {
		switch {
		case a.n < b.n:
			return -1
		case a.n > b.n:
			return 1
		}
		return 0
	})
	for i, k := range idx {
		out[i] = k.m
	}
	j := len(idx)
	for _, m := range ms {
		if _, ok := arrayIndex(m.Key); !ok {
			out[j] = m
			j++
		}
	}
	clear(idx)
	p.idx = idx[:0]
}

// arrayIndex reports whether k is a canonical array index (the decimal form
// of an integer from 0 to 2^32-2 without leading zeros), which
// ECMAScript orders before all other keys.
func arrayIndex(k string) (uint32, bool) {
	if len(k) == 0 || len(k) > 10 || k[0] < '0' || k[0] > '9' || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxUint32-1 {
		return 0, false
	}
	return uint32(n), true
}

// errAt returns a *SyntaxError at byte offset off.
func (p *parser) errAt(off int, msg string) error {
	line, col := position(p.data, off)
	return &SyntaxError{Offset: int64(off), Line: line, Column: col, Msg: msg}
}

// unexpected reports the character at off (or the end of the input).
func (p *parser) unexpected(off int, where string) error {
	if off >= len(p.data) {
		return p.errAt(off, "unexpected end of input"+where)
	}
	c := p.data[off]
	if c >= utf8.RuneSelf {
		if r, _ := utf8.DecodeRune(p.data[off:]); r == utf8.RuneError {
			return p.errAt(off, fmt.Sprintf("invalid UTF-8 byte 0x%02x%s", c, where))
		}
	}
	return p.errAt(off, "unexpected character "+quoteChar(p.data, off, "")+where)
}

// quoteChar describes the character at d[i] for an error message.
func quoteChar(d []byte, i int, prefix string) string {
	r, _ := utf8.DecodeRune(d[i:])
	switch {
	case r == utf8.RuneError:
		return fmt.Sprintf("byte 0x%02x", d[i])
	case !unicode.IsPrint(r) || unicode.IsSpace(r):
		return fmt.Sprintf("U+%04X", r)
	case r == '\'':
		return `"` + prefix + `'"`
	}
	return "'" + prefix + string(r) + "'"
}

// position returns the 1-based line and column (in characters) of byte
// offset off in d. Lines end at LF, CR LF or a lone CR.
func position(d []byte, off int) (line, col int) {
	off = min(off, len(d))
	line = 1
	ls := 0
	for i := 0; i < off; i++ {
		switch d[i] {
		case '\n':
			line++
			ls = i + 1
		case '\r':
			if i+1 < len(d) && d[i+1] == '\n' {
				continue
			}
			line++
			ls = i + 1
		}
	}
	return line, utf8.RuneCount(d[ls:off]) + 1
}
