package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// FuzzSplitObject checks the fast member splitter against encoding/json:
// every valid object splits without error into the same members, and
// nothing panics on any input.
func FuzzSplitObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":"x\"}","b":[1,{"c":"]"}],"d":null}`, ` {"k\u0041":"\\\\"} `, `{"a":tru}`, `{"a":"\\"}`, `{"a":1,}`, `[1]`, `{"a"`} {
		f.Add([]byte(s))
	}
	addBoundaryObjects(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var keys []string
		err := splitObject(b, func(key string, val []byte) error {
			keys = append(keys, key)
			if !json.Valid(val) && json.Valid(b) {
				t.Fatalf("member %q value %q is not valid JSON in a valid object", key, val)
			}
			return nil
		})
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m == nil {
			return
		}
		if err != nil {
			t.Fatalf("valid object %q: %v", b, err)
		}
		uniq := map[string]bool{}
		for _, k := range keys {
			uniq[k] = true
		}
		var got, want []string
		for k := range uniq {
			got = append(got, k)
		}
		for k := range m {
			want = append(want, k)
		}
		sort.Strings(got)
		sort.Strings(want)
		if len(got) != len(want) {
			t.Fatalf("keys %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("keys %q, want %q", got, want)
			}
		}
	})
}

// FuzzUnquote checks the fast string decoder against encoding/json.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"a\nb"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, `"\"\\\/\b\f\r\t"`, `"\x"`, "\"\xff\"", `"tab\tend"`} {
		f.Add([]byte(s))
	}
	addBoundaryStrings(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := unquote(b)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("unquote accepted %q, encoding/json: %v", b, err)
		}
		if got != want {
			t.Fatalf("unquote(%q) = %q, encoding/json %q", b, got, want)
		}
	})
}

// FuzzSplitMemo checks the splitters through a strMemo against the
// reference's (the splitters before the memo): the members and elements
// of the input and of every object and array in it, split as the parser
// splits them (each value while its parent is split, then the top
// level's values again after), with the member named deep recorded, are the same values with
// the same errors; and after that a skip from a value's start, in the
// whole input and cut before and after the value's end, ends where the
// reference's does.
func FuzzSplitMemo(f *testing.F) {
	for _, s := range []string{`{}`, `{"message":{"content":[{"type":"text","text":"a\"b"},{"c":[1,{"d":"]"}]}],"usage":{"n":1}},"x":"y"}`,
		`{"message":[[[[[[[[[[["deep"]]]]]]]]]]],"b":1}`, `{"message":{"a":1"},"b":"x"}`, `{"message":{"a":[}]},"b":2}`,
		`{"message":{"a":"\\"}`, `{"message":{"a":tru}}`, `{"message":"s","message":{"k":{}}}`, `{"message":{"message":{"k":[1]}}}`} {
		f.Add([]byte(s), "message")
	}
	f.Add([]byte(`{"a":[1,[2,[3]],{"b":"\u005c"}]}`), "a")
	deep := `{"message":` + strings.Repeat(`{"k":[`, 12) + `"x"` + strings.Repeat(`]}`, 12) + `}`
	f.Add([]byte(deep), "message")
	f.Add([]byte(deep[:len(deep)-7]), "message")
	for _, l := range referenceSeeds(f) {
		if len(l) <= 1<<14 {
			f.Add(l, "message")
		}
	}
	addBoundaryObjectsWith(f, "message")
	f.Fuzz(func(t *testing.T, b []byte, deep string) {
		m := &strMemo{deep: deep}
		m.reset()
		got := walkMemo(b, m, 0)
		want := walkRef(b, 0)
		if got != want {
			t.Fatalf("%q (deep %q):\n got %s\nwant %s", b, deep, got, want)
		}
		// From each of the first starts, cut at the end and around the
		// value's end, where a remembered end lies past the cut.
		starts := 0
		for i, c := range b {
			if c != '"' && c != '{' && c != '[' {
				continue
			}
			if starts++; starts > 512 {
				break
			}
			end, _ := refSkipValue(b, i)
			for _, cut := range []int{len(b), end + 1, end, end - 1, end - 2, i + 1, (i + end) / 2} {
				if cut <= i || cut > len(b) {
					continue
				}
				gend, gerr := m.skipValue(b[:cut], i)
				wend, werr := refSkipValue(b[:cut], i)
				if gend != wend || fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("%q (deep %q) from %d cut at %d: %d, %v; reference %d, %v", b, deep, i, cut, gend, gerr, wend, werr)
				}
			}
		}
	})
}

// walkLimit is how deep walkMemo and walkRef go.
const walkLimit = 16

func walkMemo(b []byte, m *strMemo, depth int) string {
	var s strings.Builder
	var vals [][]byte
	visit := func(v []byte) {
		fmt.Fprintf(&s, "%q ", v)
		vals = append(vals, v)
		if depth < walkLimit && len(v) > 0 && (v[0] == '{' || v[0] == '[') {
			s.WriteString("(" + walkMemo(v, m, depth+1) + ")")
		}
	}
	var err error
	switch {
	case len(b) > 0 && b[0] == '[':
		err = splitArray(b, m, func(v []byte) error { visit(v); return nil })
	default:
		err = splitObjectMemo(b, m, func(k string, v []byte) error { s.WriteString(k + "="); visit(v); return nil })
	}
	fmt.Fprintf(&s, "err %v", err)
	if depth > 0 {
		return s.String()
	}
	s.WriteString("; again ")
	for _, v := range vals {
		if depth < walkLimit && len(v) > 0 && (v[0] == '{' || v[0] == '[') {
			s.WriteString("(" + walkMemo(v, m, depth+1) + ")")
		}
	}
	return s.String()
}

func walkRef(b []byte, depth int) string {
	var s strings.Builder
	var vals [][]byte
	visit := func(v []byte) {
		fmt.Fprintf(&s, "%q ", v)
		vals = append(vals, v)
		if depth < walkLimit && len(v) > 0 && (v[0] == '{' || v[0] == '[') {
			s.WriteString("(" + walkRef(v, depth+1) + ")")
		}
	}
	var err error
	switch {
	case len(b) > 0 && b[0] == '[':
		err = refSplitArray(b, func(v []byte) error { visit(v); return nil })
	default:
		err = refSplitObject(b, func(k string, v []byte) error { s.WriteString(k + "="); visit(v); return nil })
	}
	fmt.Fprintf(&s, "err %v", err)
	if depth > 0 {
		return s.String()
	}
	s.WriteString("; again ")
	for _, v := range vals {
		if depth < walkLimit && len(v) > 0 && (v[0] == '{' || v[0] == '[') {
			s.WriteString("(" + walkRef(v, depth+1) + ")")
		}
	}
	return s.String()
}

// FuzzIndexNull checks indexNull against bytes.Index.
func FuzzIndexNull(f *testing.F) {
	for _, s := range []string{``, `:`, `":null`, `":nul`, `x":null`, `":nul":null`, `::null`, `"":null`, `{"a":1,"b":null}`, `:null":null`, `"::null":null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := indexNull(b), bytes.Index(b, patNull); got != want {
			t.Fatalf("indexNull(%q) = %d, want %d", b, got, want)
		}
	})
}
