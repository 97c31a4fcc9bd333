// Package canon produces the canonical form of JSON that the context-cost
// measurement hashes and tokenizes: exactly the bytes that JavaScript's
// JSON.stringify(JSON.parse(text)) produces, where text is the input decoded
// the way Node decodes a UTF-8 buffer.
//
// That means ECMAScript semantics, not encoding/json ones:
//
//   - object keys that are canonical array indices ("0", "7", "4294967294")
//     come first in ascending numeric order, all other keys follow in the
//     order of their first occurrence; a duplicate key keeps the last value
//     at the first position;
//   - numbers are IEEE-754 doubles printed by Number::toString (shortest
//     round-trip digits, 1e+21, 1e-7, 0.000001, -0 as 0, overflow as null);
//   - strings escape only '"', '\\' and control characters (short forms
//     \b \f \n \r \t, others as lowercase \u00xx); lone UTF-16 surrogates
//     from \ud800-style escapes are re-emitted as lowercase \udxxx, and
//     everything else, including '<', U+2028 and U+007F, is emitted raw;
//   - invalid UTF-8 is replaced by U+FFFD the way the WHATWG UTF-8 decoder
//     does it (one replacement per maximal subpart).
//
// The grammar is JSON.parse's: no comments, trailing commas, single quotes,
// leading zeros, byte order mark, or control characters inside strings.
// Nesting is limited to MaxDepth levels, so hostile input is an error
// rather than a stack overflow. (Node's JSON.stringify itself overflows its
// stack a few thousand levels deep, so nothing Node can canonicalize is
// rejected.)
package canon

import (
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth is the deepest nesting of arrays and objects that Parse and
// Transform accept. Deeper input is a *SyntaxError.
const MaxDepth = 10000

// Kind is the type of a JSON value.
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "bool", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Value is a parsed JSON value. Values are immutable and safe for
// concurrent reads; a tree may share one Value among equal scalars. The
// zero Value is null.
type Value struct {
	// p points at the string bytes (String), the first *Value (Array)
	// or the first Member (Object). For the kinds without a payload in
	// memory (Null, Bool, Number) and for empty strings, arrays and
	// objects it points at tags[kind] instead; nil is null.
	p unsafe.Pointer
	// n is the float64 bits (Number) or 0/1 (Bool) when p points into
	// tags. Otherwise it holds the kind in its top three bits, the wtf
	// flag, and the length (of the string in bytes, or the number of
	// elements or members).
	//
	// The wtf flag reports that the string, or one of the object's keys,
	// holds lone surrogates, stored as their generalized UTF-8 (WTF-8)
	// three-byte sequences ED A0..BF xx.
	n uint64
}

var tags [Object + 1]byte

const (
	kindShift = 61
	wtfBit    = 1 << 60
	lenMask   = wtfBit - 1
)

func makeScalar(k Kind, n uint64) Value {
	return Value{p: unsafe.Pointer(&tags[k]), n: n}
}

func makeSized(k Kind, p unsafe.Pointer, n int, wtf bool) Value {
	if n == 0 {
		return makeScalar(k, 0)
	}
	v := Value{p: p, n: uint64(k)<<kindShift | uint64(n)}
	if wtf {
		v.n |= wtfBit
	}
	return v
}

func makeString(s string, wtf bool) Value {
	return makeSized(String, unsafe.Pointer(unsafe.StringData(s)), len(s), wtf)
}

func makeArray(elems []*Value) Value {
	return makeSized(Array, unsafe.Pointer(unsafe.SliceData(elems)), len(elems), false)
}

func makeObject(ms []Member, wtf bool) Value {
	return makeSized(Object, unsafe.Pointer(unsafe.SliceData(ms)), len(ms), wtf)
}

// tagged reports whether v.p points into tags, and so which kind v is.
func (v *Value) tagged() (Kind, bool) {
	off := uintptr(v.p) - uintptr(unsafe.Pointer(&tags[0]))
	return Kind(off), off < uintptr(len(tags))
}

func (v *Value) kind() Kind {
	if v.p == nil {
		return Null
	}
	if k, ok := v.tagged(); ok {
		return k
	}
	return Kind(v.n >> kindShift)
}

// size is the length of a string, array or object.
func (v *Value) size() int {
	if _, ok := v.tagged(); ok || v.p == nil {
		return 0
	}
	return int(v.n & lenMask)
}

func (v *Value) wtf() bool {
	if _, ok := v.tagged(); ok || v.p == nil {
		return false
	}
	return v.n&wtfBit != 0
}

// Member is one member of an object.
type Member struct {
	// Key is the decoded key as UTF-8. From the exported accessors a lone
	// surrogate appears as U+FFFD.
	Key   string
	Value *Value
}

// Kind returns the kind of v. A nil *Value is Null.
func (v *Value) Kind() Kind {
	if v == nil {
		return Null
	}
	return v.kind()
}

// Get returns the member of object v named key, or nil if v is not an
// object or has no such member.
func (v *Value) Get(key string) *Value {
	if v.Kind() != Object {
		return nil
	}
	wtf := v.wtf()
	for _, m := range v.members() {
		k := m.Key
		if wtf {
			k = fromWTF8(k)
		}
		if k == key {
			return m.Value
		}
	}
	return nil
}

// Members returns the members of object v in canonical order, or nil if v
// is not an object. The caller must not modify the returned slice.
func (v *Value) Members() []Member {
	if v.Kind() != Object {
		return nil
	}
	ms := v.members()
	if !v.wtf() {
		return ms
	}
	out := make([]Member, len(ms))
	for i, m := range ms {
		out[i] = Member{Key: fromWTF8(m.Key), Value: m.Value}
	}
	return out
}

// Elems returns the elements of array v, or nil if v is not an array. The
// caller must not modify the returned slice.
func (v *Value) Elems() []*Value {
	if v.Kind() != Array {
		return nil
	}
	return v.elems()
}

// Len returns the number of elements of an array, members of an object or
// bytes of a string (as returned by Str), and 0 for other kinds.
func (v *Value) Len() int {
	switch v.Kind() {
	case Array, Object:
		return v.size()
	case String:
		return len(v.Str())
	}
	return 0
}

// Str returns the value of string v as UTF-8, with lone surrogates as
// U+FFFD, or "" if v is not a string.
func (v *Value) Str() string {
	if v.Kind() != String {
		return ""
	}
	if v.wtf() {
		return fromWTF8(v.str())
	}
	return v.str()
}

// Num returns the value of number v, or 0 if v is not a number.
func (v *Value) Num() float64 {
	if v.Kind() != Number {
		return 0
	}
	return math.Float64frombits(v.n)
}

// Bool returns the value of boolean v, or false if v is not a boolean.
func (v *Value) Bool() bool {
	return v.Kind() == Bool && v.n != 0
}

func (v *Value) str() string {
	n := v.size()
	if n == 0 {
		return ""
	}
	return unsafe.String((*byte)(v.p), n)
}

func (v *Value) elems() []*Value {
	n := v.size()
	if n == 0 {
		return nil
	}
	return unsafe.Slice((**Value)(v.p), n)
}

func (v *Value) members() []Member {
	n := v.size()
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*Member)(v.p), n)
}

// NewArray returns an array value holding elems (not copied). A nil element
// is null.
func NewArray(elems []*Value) *Value {
	v := makeArray(elems)
	return &v
}

// NewString returns a string value. Invalid UTF-8 in s is replaced by U+FFFD
// as Node's decoder does.
func NewString(s string) *Value {
	if !utf8.ValidString(s) {
		s = string(appendReplacingInvalid(nil, []byte(s)))
	}
	v := makeString(s, false)
	return &v
}

// NewNumber returns a number value.
func NewNumber(f float64) *Value {
	v := makeScalar(Number, math.Float64bits(f))
	return &v
}

// NewBool returns a boolean value.
func NewBool(b bool) *Value {
	if b {
		return &trueValue
	}
	return &falseValue
}

// fromWTF8 replaces the three-byte encodings of lone surrogates in s by
// U+FFFD.
func fromWTF8(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 {
			b.WriteString("\uFFFD")
			i += 3
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// SizeHint guesses the length of the canonical JSON of an array of vals
// from a sample of up to 64 of them spread over it, with an eighth to
// spare: a capacity for a buffer that should be allocated once.
func SizeHint(vals []*Value) int {
	if len(vals) == 0 {
		return 2
	}
	step := max(1, len(vals)/64)
	sample, n := 0, 0
	for i := 0; i < len(vals); i += step {
		sample += len(Marshal(vals[i])) + 1
		n++
	}
	est := sample * len(vals) / n
	return est + est/8 + 2
}
