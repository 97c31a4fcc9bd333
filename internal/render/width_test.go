package render

import (
	"strings"
	"testing"
)

// TestWrapLongWord: a word of a megabyte (a hostile model name) is broken
// into lines of the width, every byte kept, and a word of marks and wide
// runes is itself again when its lines are joined. (Each break subtracts
// the part's width instead of measuring the rest again, which took 37 s
// for a 2 MB name.)
func TestWrapLongWord(t *testing.T) {
	word := strings.Repeat("A", 1<<20)
	lines := Wrap("* ", word, "  ", 80)
	if len(lines) != (1<<20+77)/78 {
		t.Fatalf("%d lines", len(lines))
	}
	total := 0
	for i, l := range lines {
		if Width(l) > 80 {
			t.Fatalf("line %d is %d columns", i, Width(l))
		}
		total += len(strings.TrimLeft(strings.TrimPrefix(l, "* "), " "))
	}
	if total != 1<<20 {
		t.Errorf("%d of the word's %d bytes kept", total, 1<<20)
	}
	for _, w := range []string{"é" + strings.Repeat("x\u0301", 100) + "中文" + strings.Repeat("y", 300)} {
		got := strings.Join(Wrap("", w, "", 7), "")
		if got != w {
			t.Errorf("a word broken into lines is not itself again")
		}
	}
}
