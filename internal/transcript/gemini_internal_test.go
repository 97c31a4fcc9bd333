package transcript

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestRawString: a string read without encoding/json (written without
// escapes) has the value encoding/json gives it, and anything else is
// left to encoding/json.
func TestRawString(t *testing.T) {
	for _, v := range []string{`""`, `"a"`, `"gemini-2.5-flash"`, `"é ü 日本"`, `"a\"b"`, `"\u0041"`, `"a\nb"`,
		"\"a\x01b\"", "\"\xff\"", "\"a\xc3\"", `"`, `"a`, `a"`, `"a"b"`, `"a" `, `1`, `null`, ``} {
		want := ""
		if json.Valid([]byte(v)) {
			json.Unmarshal([]byte(v), &want)
		}
		if got := rawString(json.RawMessage(v)); got != want {
			t.Errorf("%q: %q, want %q", v, got, want)
		}
	}
}

// TestLineCounter: the lines at increasing offsets (and at a smaller one
// after them) are lineAt's, each byte counted once while the offsets
// increase.
func TestLineCounter(t *testing.T) {
	data := []byte("a\n\nbc\nd\n\n\nefg\n")
	c := lineCounter{data: data}
	for _, off := range []int{-1, 0, 1, 2, 3, 5, 6, 6, 9, 14, 99, 4, 0, 13} {
		before := c.off
		if got, want := c.at(off), lineAt(data, off); got != want {
			t.Errorf("at %d: line %d, want %d", off, got, want)
		}
		if o := max(0, min(off, len(data))); o >= before && c.off != o {
			t.Errorf("at %d: counted to %d", off, c.off)
		}
	}
	if c.at(len(data)) != 1+bytes.Count(data, []byte{'\n'}) {
		t.Error("the last line")
	}
}
