package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/testpeers"
)

func TestCut(t *testing.T) {
	ascii := func(n int) string { return strings.Repeat("a", n) }
	const emoji = "😀" // U+1F600: 4 bytes, 2 UTF-16 code units
	const e = "é"     // U+00E9: 2 bytes, 1 code unit
	const cjk = "語"   // U+8A9E: 3 bytes, 1 code unit
	tests := []struct {
		name string
		in   string
		want string
		cut  bool
	}{
		{"empty", "", "", false},
		{"short", "hello", "hello", false},
		{"exactly the limit", ascii(CutLimit), ascii(CutLimit), false},
		{"one over", ascii(CutLimit + 1), ascii(CutLimit) + CutMarker, true},
		{"far over", ascii(10 * CutLimit), ascii(CutLimit) + CutMarker, true},
		// Bytes are not the measure: 2048 two-byte characters are 4096
		// bytes and are not cut.
		{"2048 two-byte chars", strings.Repeat(e, CutLimit), strings.Repeat(e, CutLimit), false},
		{"2049 two-byte chars", strings.Repeat(e, CutLimit+1), strings.Repeat(e, CutLimit) + CutMarker, true},
		{"2048 three-byte chars", strings.Repeat(cjk, CutLimit), strings.Repeat(cjk, CutLimit), false},
		{"2049 three-byte chars", strings.Repeat(cjk, CutLimit+1), strings.Repeat(cjk, CutLimit) + CutMarker, true},
		// An astral character counts two code units.
		{"1024 emoji fit", strings.Repeat(emoji, 1024), strings.Repeat(emoji, 1024), false},
		{"1025 emoji", strings.Repeat(emoji, 1025), strings.Repeat(emoji, 1024) + CutMarker, true},
		// The limit falls inside a surrogate pair: the character goes.
		{"pair straddles the limit", ascii(CutLimit-1) + emoji + "b", ascii(CutLimit-1) + CutMarker, true},
		{"pair ends at the limit", ascii(CutLimit-2) + emoji + "b", ascii(CutLimit-2) + emoji + CutMarker, true},
		{"pair ends at the limit, nothing after", ascii(CutLimit-2) + emoji, ascii(CutLimit-2) + emoji, false},
		{"multi-byte straddles the byte 2048", ascii(CutLimit-1) + cjk, ascii(CutLimit-1) + cjk, false},
		// Invalid bytes count one unit each, as U+FFFD does.
		{"invalid bytes", strings.Repeat("\xff", CutLimit+1), strings.Repeat("\xff", CutLimit) + CutMarker, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Cut(tt.in)
			if got != tt.want || cut != tt.cut {
				t.Errorf("Cut: got %d units (cut %v), want %d units (cut %v)", UTF16Len(got), cut, UTF16Len(tt.want), tt.cut)
			}
			if cut && UTF16Len(got) > CutLimit+UTF16Len(CutMarker) {
				t.Errorf("cut string is %d units, more than %d", UTF16Len(got), CutLimit+UTF16Len(CutMarker))
			}
		})
	}
}

func TestUTF16Len(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abc": 3, "é": 1, "語": 1, "😀": 2, "\xff\xfe": 2, CutMarker: 13} {
		if got := UTF16Len(in); got != want {
			t.Errorf("UTF16Len(%q) = %d, want %d", in, got, want)
		}
	}
}

// Differential: Node's String.prototype.slice with the marker, as Claude
// Code writes the cut, gives the same string as Cut for every description
// of the test captures and for strings built to sit on the boundary (where
// no surrogate pair straddles it).
func TestCutMatchesNode(t *testing.T) {
	node := testpeers.Node(t)
	var inputs []string
	for _, name := range []string{"airbnb", "pandoc", "sequential-thinking", "arxiv"} {
		data, err := os.ReadFile(filepath.Join("testdata", "captures", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := canon.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range v.Elems() {
			inputs = append(inputs, tool.Get("description").Str())
		}
	}
	for _, n := range []int{CutLimit - 1, CutLimit, CutLimit + 1} {
		inputs = append(inputs, strings.Repeat("é", n), strings.Repeat("語", n))
	}
	// A pair that ends at the limit, then more: cut after the pair. (A
	// pair across the limit is where Cut and slice differ on purpose; see
	// TestCut.)
	inputs = append(inputs, strings.Repeat("a", CutLimit-2)+"😀", strings.Repeat("a", CutLimit-2)+"😀b", strings.Repeat("😀", 1100))
	in, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	script := `let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{` +
		`const out=JSON.parse(d).map(s=>s.length>2048?s.slice(0,2048)+"… [truncated]":s);` +
		`process.stdout.write(JSON.stringify(out))})`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	cut := 0
	for i, s := range inputs {
		got, ok := Cut(s)
		if ok {
			cut++
		}
		if got != want[i] {
			t.Errorf("input %d (%d units): Cut differs from Node", i, UTF16Len(s))
		}
	}
	if cut < 7 {
		t.Errorf("only %d inputs were cut; the test does not reach the boundary", cut)
	}
}
