package transcript

import (
	"encoding/json"
	"sort"
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
