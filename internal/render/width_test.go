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

// TestWrapNumberUnit: a number and its unit stay on one line, wherever
// the line would break between them.
func TestWrapNumberUnit(t *testing.T) {
	text := "As an Anthropic request (name, description cut to 2 KB, input_schema; no annotations) the same tools count 1,234 tokens, in 3.5 s (2 MB)."
	for width := 20; width <= 140; width++ {
		lines := Wrap("  ", text, "  ", width)
		for i, l := range lines {
			for _, n := range []string{"2", "3.5", "(2"} {
				if strings.HasSuffix(l, " "+n) && i+1 < len(lines) {
					t.Errorf("width %d: line %d ends with the number %q, its unit on the next line:\n%s", width, i, n, strings.Join(lines, "\n"))
				}
			}
			if Width(l) > width {
				t.Errorf("width %d: line %d is %d columns", width, i, Width(l))
			}
		}
		if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); got != text {
			t.Errorf("width %d: the words are not the text again: %q", width, got)
		}
	}
}

// TestTruncateLeft: a path cut to a width keeps its end, from a folder's
// separator where it keeps one, and never more columns than asked.
func TestTruncateLeft(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"/home/dev/src/api-server", 30, "/home/dev/src/api-server"},
		{"/home/dev/src/api-server", 13, "…/api-server"},
		{"/home/dev/src/api-server", 17, "…/src/api-server"},
		{"/home/dev/src/api-server", 11, "…api-server"},
		{"/home/dev/src/api-server", 1, "…"},
		{"/home/dev/src/api-server", 0, ""},
		{`C:\Users\dev\api`, 8, `…\api`},
		{"/a/中文件夹", 6, "…件夹"},
		{"/a/e\u0301tude", 5, "…tude"},
	} {
		got := TruncateLeft(c.s, c.w)
		if got != c.want || Width(got) > max(c.w, 0) {
			t.Errorf("TruncateLeft(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// TestTruncateKeepsEscapesWhole: a cut never falls inside an escape of a
// control character or an invisible rune (textsafe's \x07, \u202e,
// \U0001f600, \r), which would name another character ("\x0" is not
// "\x07"); it falls before the escape, or after it from the left.
func TestTruncateKeepsEscapesWhole(t *testing.T) {
	escapes := []string{`\x07`, `\x1b`, `\u202e`, `\U000e0041`, `\r`, `\n`, `\t`}
	for _, e := range escapes {
		s := "abcdef" + e + "ghijkl"
		j := strings.Index(s, e)
		for w := 1; w <= Width(s)+1; w++ {
			got := Truncate(s, w)
			kept := strings.TrimSuffix(got, "…")
			if Width(got) > w || !strings.HasPrefix(s, kept) {
				t.Errorf("Truncate(%q, %d) = %q", s, w, got)
			}
			if len(kept) > j && len(kept) < j+len(e) {
				t.Errorf("Truncate(%q, %d) = %q: cut inside %s", s, w, got, e)
			}
			left := TruncateLeft(s, w)
			rest := strings.TrimPrefix(left, "…")
			if Width(left) > w || !strings.HasSuffix(s, rest) {
				t.Errorf("TruncateLeft(%q, %d) = %q", s, w, left)
			}
			if start := len(s) - len(rest); start > j && start < j+len(e) {
				t.Errorf("TruncateLeft(%q, %d) = %q: starts inside %s", s, w, left, e)
			}
		}
	}
	if got := Truncate(`/tmp/canary.sh\x1b]0;title\x07`, 29); got != `/tmp/canary.sh\x1b]0;title…` {
		t.Errorf("Truncate = %q", got)
	}
}
