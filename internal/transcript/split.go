package transcript

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Transcript lines are large (tool results, often twice: Claude Code
// repeats them in toolUseResult) and only a few of their fields matter.
// splitObject finds the top-level members of a line's object with a fast
// skipper (strings are crossed with IndexByte, not a byte-at-a-time state
// machine), so that only the members wanted are decoded. It checks the
// structure (strings closed, brackets balanced, one object); the members
// it skips are not otherwise validated.

var (
	errTruncated = errors.New("truncated JSON")
	errSyntax    = errors.New("invalid JSON")
)

// splitObject calls fn for every member of the object in b, with its key
// and its raw value. A key written without escapes is a view of b, valid
// only while b is unchanged: fn copies what it keeps.
func splitObject(b []byte, fn func(key string, val []byte) error) error {
	return splitObjectMemo(b, nil, fn)
}

// splitObjectMemo is splitObject, with the ends of the values it crosses
// found in m, and recorded there when m records the member (nil: none).
func splitObjectMemo(b []byte, m *strMemo, fn func(key string, val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		if skipSpace(b, i+1) != len(b) {
			return errSyntax
		}
		return nil
	}
	for {
		if i >= len(b) {
			return errTruncated
		}
		if b[i] != '"' {
			return errSyntax
		}
		end, err := m.skipString(b, i)
		if err != nil {
			return err
		}
		rawKey := b[i:end]
		key := keyString(rawKey[1 : len(rawKey)-1])
		if !plainKey(rawKey) {
			if key, err = decodeKey(rawKey); err != nil {
				return errSyntax
			}
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return errTruncated
		}
		if b[i] != ':' {
			return errSyntax
		}
		i = skipSpace(b, i+1)
		vend, err := m.skipMember(key, b, i)
		if err != nil {
			return err
		}
		if err := fn(key, b[i:vend]); err != nil {
			return err
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return errTruncated
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			if skipSpace(b, i+1) != len(b) {
				return errSyntax
			}
			return nil
		default:
			return errSyntax
		}
	}
}

// keyString is a member's key as a string, without an allocation: a view
// of the line's bytes, which callers only compare, or copy into an error.
func keyString(k []byte) string {
	return unsafe.String(unsafe.SliceData(k), len(k))
}

// decodeKey decodes a quoted key with escapes or non-ASCII bytes (apart,
// so that the usual key does not escape to the heap).
func decodeKey(raw []byte) (string, error) {
	var key string
	err := json.Unmarshal(raw, &key)
	return key, err
}

// plainKey reports whether a quoted key needs no decoding: ASCII without
// escapes.
func plainKey(k []byte) bool {
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// splitArray calls fn for every element of the array in b, through m as
// splitObjectMemo.
func splitArray(b []byte, m *strMemo, fn func(val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		if skipSpace(b, i+1) != len(b) {
			return errSyntax
		}
		return nil
	}
	for {
		end, err := m.skipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return errTruncated
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			if skipSpace(b, i+1) != len(b) {
				return errSyntax
			}
			return nil
		default:
			return errSyntax
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// A strMemo remembers where the strings and the objects and arrays of one
// line's message end, so that the splitters, which cross a member's value
// once to find its end and again to split it (the message, its content,
// each block, a result's content), scan each of them once. The first
// crossing of the value of the member named deep (the top-level message:
// the only member split further) records every string and every object
// and array in it, to maxDepth levels, in the order they start; a later
// skip of one of them is a look-up, most often at the entry after the
// one found before. An end recorded from the line is the end a scan from
// the same start finds in every slice of the line that holds it, and a
// slice that ends before it gets the scan's own answer. A nil *strMemo
// remembers nothing. The line's bytes must not change between reset and
// the last use.
type strMemo struct {
	// deep is the key of the members whose values are recorded.
	deep string
	ents []memoEnt
	// until is the end of the last value recorded: no value that starts
	// there or past it is in ents.
	until uintptr
	// next and child are the likeliest entries of the next look-up: the
	// one after the last value found (its next sibling), and the one
	// after its start (its first member, when it was an object or array).
	next, child int
}

// A memoEnt is one value's start and end, and the index of the entry
// after its members (the next entry for a string).
type memoEnt struct {
	start, end uintptr
	after      int
}

const (
	// maxDepth is how deep in the recorded value objects and arrays (and
	// the strings in them) are recorded; maxEnts is the most entries
	// recorded for one line, and keepEnts the most kept from one line to
	// the next.
	maxDepth = 8
	maxEnts  = 1 << 16
	keepEnts = 1 << 12
)

// reset forgets the values of the previous line.
func (m *strMemo) reset() {
	if m != nil {
		if cap(m.ents) > keepEnts {
			m.ents = nil
		}
		m.ents, m.until, m.next, m.child = m.ents[:0], 0, 0, 0
	}
}

// lookup returns the end of the value starting at b[i] that m recorded;
// false when it recorded none, or one that ends past b.
func (m *strMemo) lookup(b []byte, i int) (int, bool) {
	if m == nil {
		return 0, false
	}
	start := uintptr(unsafe.Pointer(&b[i]))
	if start >= m.until {
		return 0, false
	}
	ents := m.ents
	// Past the last entry (the entries were full before the value's end):
	// none to search for, which a line of more values than maxEnts would
	// otherwise pay for each of the rest.
	if len(ents) == 0 || start > ents[len(ents)-1].start {
		return 0, false
	}
	k := m.next
	if k >= len(ents) || ents[k].start != start {
		k = m.child
		if k >= len(ents) || ents[k].start != start {
			var found bool
			k, found = slices.BinarySearchFunc(ents, start, func(e memoEnt, s uintptr) int {
				return cmp.Compare(e.start, s)
			})
			if !found {
				return 0, false
			}
		}
	}
	e := ents[k]
	// An object or array left open (entries were full) has no end.
	if e.end <= start || e.end-start > uintptr(len(b)-i) {
		return 0, false
	}
	m.next, m.child = e.after, k+1
	return i + int(e.end-start), true
}

// skipString returns the index just past the string starting at b[i] ('"').
func (m *strMemo) skipString(b []byte, i int) (int, error) {
	if end, ok := m.lookup(b, i); ok {
		return end, nil
	}
	return skipString(b, i)
}

// skipString returns the index just past the string starting at b[i] ('"').
// (IndexByte's vector search for the quote is faster on transcripts'
// texts than a word-at-a-time search for quotes and backslashes.)
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errTruncated
		}
		q := j + k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// ones has a 1 in every byte of a word.
const ones = 0x0101010101010101

// zeroBytes has the high bit set in the lowest zero byte of x (least
// significant first), and possibly in higher bytes; 0 when x has no zero
// byte. Bytes above the lowest zero may be flagged wrongly, so only the
// lowest flag is to be used.
func zeroBytes(x uint64) uint64 { return (x - ones) &^ x & (ones * 0x80) }

// copyPlain copies the run from b[j] of bytes appendUnquote copies as
// they are (none is a control character, '"', the backslash or a byte of
// a multi-byte sequence) to out[n:], and returns the ends of the run in
// out and in b. It scans and copies in one pass, a word at a time: each
// word is written before it is looked at, which is safe because out is
// as long as what remains of b after j (n-j never grows: no decoding is
// longer than its escape) and the bytes written past the run are
// overwritten by what follows it.
func copyPlain(out []byte, n int, b []byte, j int) (int, int) {
	for ; j+8 <= len(b); j, n = j+8, n+8 {
		x := binary.LittleEndian.Uint64(b[j:])
		binary.LittleEndian.PutUint64(out[n:], x)
		// A byte under 0x20 borrows in x - 0x20 per byte: like a zero
		// byte, its flag is exact where it is the lowest.
		m := ((x-ones*0x20)&^x | x) & (ones * 0x80)
		m |= zeroBytes(x^(ones*'"')) | zeroBytes(x^(ones*'\\'))
		if m != 0 {
			k := bits.TrailingZeros64(m) / 8
			return n + k, j + k
		}
	}
	for j < len(b) && !unquoteSpecial[b[j]] {
		out[n] = b[j]
		n, j = n+1, j+1
	}
	return n, j
}

// skipValue returns the index just past the value starting at b[i],
// through the memo.
func (m *strMemo) skipValue(b []byte, i int) (int, error) {
	return m.skipMember("", b, i)
}

// skipMember is skipValue for the value of the member named key (""
// for an array's element), which is recorded when it is m's deep member
// and not yet recorded.
func (m *strMemo) skipMember(key string, b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errTruncated
	}
	switch c := b[i]; {
	case c == '"':
		return m.skipString(b, i)
	case c == '{' || c == '[':
		if end, ok := m.lookup(b, i); ok {
			return end, nil
		}
		if m != nil && key == m.deep && key != "" && uintptr(unsafe.Pointer(&b[i])) >= m.until {
			return m.record(b, i)
		}
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := m.skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
				if depth < 0 {
					return 0, errSyntax
				}
			}
		}
		return 0, errTruncated
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		lit := b[i:j]
		if c == 't' || c == 'f' || c == 'n' {
			if string(lit) != "true" && string(lit) != "false" && string(lit) != "null" {
				return 0, errSyntax
			}
		}
		return j, nil
	}
	return 0, errSyntax
}

// record skips the object or array starting at b[i] as skipMember does,
// recording it and the strings, objects and arrays in it (to maxDepth
// levels, up to maxEnts entries in all).
func (m *strMemo) record(b []byte, i int) (int, error) {
	base := uintptr(unsafe.Pointer(&b[0]))
	n0 := len(m.ents)
	var open [maxDepth]int // the entries of the objects and arrays open
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, err := skipString(b, j)
			if err != nil {
				m.ents = m.ents[:n0]
				return 0, err
			}
			if depth <= maxDepth && len(m.ents) < maxEnts {
				m.ents = append(m.ents, memoEnt{base + uintptr(j), base + uintptr(end), len(m.ents) + 1})
			}
			j = end - 1
		case '{', '[':
			depth++
			if depth <= maxDepth && len(m.ents) < maxEnts {
				open[depth-1] = len(m.ents)
				m.ents = append(m.ents, memoEnt{start: base + uintptr(j)})
			} else if depth <= maxDepth {
				open[depth-1] = -1
			}
		case '}', ']':
			if depth <= maxDepth && depth > 0 && open[depth-1] >= 0 {
				e := &m.ents[open[depth-1]]
				e.end, e.after = base+uintptr(j+1), len(m.ents)
			}
			depth--
			if depth == 0 {
				m.until = base + uintptr(j+1)
				return j + 1, nil
			}
		}
	}
	m.ents = m.ents[:n0]
	return 0, errTruncated
}

// decodeField decodes one member's value, naming the member on error.
func decodeField(key string, val []byte, v any) error {
	if err := json.Unmarshal(val, v); err != nil {
		var ue *json.UnmarshalTypeError
		if errors.As(err, &ue) {
			// ue.Error() quotes numbers ("number 1e999"): name the kinds only.
			kind, _, _ := strings.Cut(ue.Value, " ")
			where := key
			if ue.Field != "" {
				where += "." + ue.Field
			}
			return errors.New("unexpected JSON: " + where + " is " + article(kind) + ", want " + jsonKind(ue.Type))
		}
		return errors.New("invalid JSON in " + key)
	}
	return nil
}

// jsonKind names the JSON value that decodes into t, for a user: "an
// object", "a number".
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another value"
}

// article puts "a" or "an" before a JSON kind ("an object").
func article(kind string) string {
	if kind == "bool" {
		return "true or false"
	}
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// unquote decodes a JSON string (with its quotes) the way encoding/json
// does, quickly. It reports false for anything unusual (invalid UTF-8,
// control characters, bad escapes), which callers hand to encoding/json.
func unquote(b []byte) (string, bool) {
	out, ok := appendUnquote(make([]byte, 0, len(b)), b)
	if !ok {
		return "", false
	}
	// out is not used again: the string takes it over, as a
	// strings.Builder's String does.
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// appendUnquote appends the decoding of the JSON string b (with its
// quotes) to dst, as unquote decodes it, in one pass: runs of plain ASCII
// are copied whole, and each other byte is looked at once. On false,
// dst's bytes past len(dst) may have been written and the result is dst
// unchanged.
func appendUnquote(dst, b []byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return dst, false
	}
	b = b[1 : len(b)-1]
	// No decoding is longer than its string (an escape is at least as
	// long as what it stands for): the buffer grows once, and is written
	// by index.
	out := slices.Grow(dst, len(b))[:len(dst)+len(b)]
	n := len(dst)
	for i := 0; i < len(b); {
		var j int
		n, j = copyPlain(out, n, b, i)
		if j == len(b) {
			break
		}
		c := b[j]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				return dst, false
			}
			for k := range size {
				out[n+k] = b[j+k]
			}
			n += size
			i = j + size
			continue
		}
		if c != '\\' || j+1 == len(b) {
			return dst, false // a control character or '"'; a lone backslash
		}
		e := b[j+1]
		switch e {
		case '"', '\\', '/':
		case 'b':
			e = '\b'
		case 'f':
			e = '\f'
		case 'n':
			e = '\n'
		case 'r':
			e = '\r'
		case 't':
			e = '\t'
		case 'u':
			r, ok := hex4(b[j+2:])
			if !ok {
				return dst, false
			}
			i = j + 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if r2, ok2 := hex4(b[i+2:]); ok2 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							n += utf8.EncodeRune(out[n:], dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			n += utf8.EncodeRune(out[n:], r)
			continue
		default:
			return dst, false
		}
		out[n] = e
		n++
		i = j + 2
	}
	return out[:n], true
}

// unquoteSpecial marks the bytes appendUnquote stops at: control
// characters, '"', the backslash and every byte of a multi-byte sequence.
var unquoteSpecial = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf
	}
	return t
}()

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
