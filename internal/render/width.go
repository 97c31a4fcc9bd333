package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Width is the number of terminal columns s takes: two for an East Asian
// wide or fullwidth character (and the emoji terminals draw wide), none
// for a combining mark, a zero-width joiner or a colour mark, one for the
// rest. Measure text after escaping it ([textsafe.Text]): an escape such as
// \x1b is its four visible characters.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case isMark(r):
		return 0
	case unicode.In(r, unicode.Mn, unicode.Me) || r == 0x200b || r == 0x200c || r == 0x200d || r == 0x2060 || (r >= 0x1160 && r <= 0x11ff):
		return 0
	case wide(r):
		return 2
	}
	return 1
}

// wideRanges are the East Asian Wide and Fullwidth ranges of Unicode 15
// (EastAsianWidth.txt, W and F), with the emoji presented wide, merged.
var wideRanges = [][2]rune{
	{0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec}, {0x23f0, 0x23f0}, {0x23f3, 0x23f3},
	{0x25fd, 0x25fe}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267f, 0x267f}, {0x2693, 0x2693}, {0x26a1, 0x26a1},
	{0x26aa, 0x26ab}, {0x26bd, 0x26be}, {0x26c4, 0x26c5}, {0x26ce, 0x26ce}, {0x26d4, 0x26d4}, {0x26ea, 0x26ea},
	{0x26f2, 0x26f3}, {0x26f5, 0x26f5}, {0x26fa, 0x26fa}, {0x26fd, 0x26fd}, {0x2705, 0x2705}, {0x270a, 0x270b},
	{0x2728, 0x2728}, {0x274c, 0x274c}, {0x274e, 0x274e}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
	{0x27b0, 0x27b0}, {0x27bf, 0x27bf}, {0x2b1b, 0x2b1c}, {0x2b50, 0x2b50}, {0x2b55, 0x2b55}, {0x2e80, 0x303e},
	{0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff}, {0xa000, 0xa4cf}, {0xa960, 0xa97f}, {0xac00, 0xd7a3},
	{0xf900, 0xfaff}, {0xfe10, 0xfe19}, {0xfe30, 0xfe6f}, {0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x16fe0, 0x16fe4},
	{0x17000, 0x18cff}, {0x1b000, 0x1b2ff}, {0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e},
	{0x1f191, 0x1f19a}, {0x1f200, 0x1f202}, {0x1f210, 0x1f23b}, {0x1f240, 0x1f248}, {0x1f250, 0x1f251},
	{0x1f260, 0x1f265}, {0x1f300, 0x1f320}, {0x1f32d, 0x1f335}, {0x1f337, 0x1f37c}, {0x1f37e, 0x1f393},
	{0x1f3a0, 0x1f3ca}, {0x1f3cf, 0x1f3d3}, {0x1f3e0, 0x1f3f0}, {0x1f3f4, 0x1f3f4}, {0x1f3f8, 0x1f43e},
	{0x1f440, 0x1f440}, {0x1f442, 0x1f4fc}, {0x1f4ff, 0x1f53d}, {0x1f54b, 0x1f54e}, {0x1f550, 0x1f567},
	{0x1f57a, 0x1f57a}, {0x1f595, 0x1f596}, {0x1f5a4, 0x1f5a4}, {0x1f5fb, 0x1f64f}, {0x1f680, 0x1f6c5},
	{0x1f6cc, 0x1f6cc}, {0x1f6d0, 0x1f6d2}, {0x1f6d5, 0x1f6d7}, {0x1f6dc, 0x1f6df}, {0x1f6eb, 0x1f6ec},
	{0x1f6f4, 0x1f6fc}, {0x1f7e0, 0x1f7eb}, {0x1f7f0, 0x1f7f0}, {0x1f90c, 0x1f93a}, {0x1f93c, 0x1f945},
	{0x1f947, 0x1f9ff}, {0x1fa70, 0x1faff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
}

func wide(r rune) bool {
	lo, hi := 0, len(wideRanges)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < wideRanges[m][0]:
			hi = m
		case r > wideRanges[m][1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// Truncate cuts s to at most w columns ([Width]), ending a cut text with an
// ellipsis. Marks that follow the last kept character (combining marks,
// joiners) stay with it. An escape of textsafe's (\x07, \u202e) is kept
// whole or not at all: "\x0" would name another character.
func Truncate(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	n, end := 0, len(s)
	for i, r := range s {
		rw := runeWidth(r)
		if n+rw > w-1 && !(rw == 0 && n > 0) {
			end = i
			break
		}
		n += rw
	}
	if i, j := escapeAround(s, end); i < end && end < j {
		end = i
	}
	return s[:end] + "…"
}

// escapeAround is the escape of textsafe's (\xHH, \uHHHH, \UHHHHHHHH,
// \r, \n, \t) in s whose bytes [i, j) hold offset at, or i == j == at
// when none does.
func escapeAround(s string, at int) (i, j int) {
	for k := at - 1; k >= 0 && k >= at-9; k-- {
		if s[k] != '\\' {
			continue
		}
		if n := escapeLen(s[k:]); n > 0 && k+n > at {
			return k, k + n
		}
		break
	}
	return at, at
}

// escapeLen is the length of the escape s starts with, 0 for none.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != '\\' {
		return 0
	}
	digits := 0
	switch s[1] {
	case 'r', 'n', 't':
		return 2
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	default:
		return 0
	}
	if len(s) < 2+digits {
		return 0
	}
	for _, c := range []byte(s[2 : 2+digits]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0
		}
	}
	return 2 + digits
}

// TruncateLeft cuts s to at most w columns ([Width]) from the left,
// starting a cut text with an ellipsis: the end of a path stays, from a
// folder's separator where what is kept holds one. Marks
// stay with the character they follow, or go with it.
func TruncateLeft(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	n, start := 0, len(s)
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:start])
		rw := runeWidth(r)
		if n+rw > w-1 {
			break
		}
		n += rw
		start -= size
	}
	// A mark whose character was cut off goes with it.
	for start < len(s) {
		r, size := utf8.DecodeRuneInString(s[start:])
		if runeWidth(r) != 0 {
			break
		}
		start += size
	}
	// An escape the cut falls inside goes with what is cut off.
	if _, j := escapeAround(s, start); j > start {
		start = j
	}
	// Start at a folder where one is in what is kept: "…/api-server",
	// not "…v/src/api-server".
	if i := strings.IndexAny(s[start:], "/\\"); i > 0 && start+i+1 < len(s) {
		start += i
	}
	return "…" + s[start:]
}

// padRight fills s with spaces to w columns.
func padRight(s string, w int) string { return s + strings.Repeat(" ", max(0, w-Width(s))) }

// Wrap breaks text (escaped already) into lines of at most width columns:
// at spaces, and inside a word longer than a line. The first line starts
// with head, the others with indent; a width narrower than the indent and a
// few characters is widened to hold them.
func Wrap(head, text, indent string, width int) []string {
	if width <= 0 {
		return []string{strings.TrimRight(head+strings.Join(strings.Fields(text), " "), " ")}
	}
	width = max(width, Width(head)+1, Width(indent)+1)
	var lines []string
	line, lw, empty := head, Width(head), true
	flush := func() {
		lines = append(lines, strings.TrimRight(line, " "))
		line, lw, empty = indent, Width(indent), true
	}
	for _, word := range wrapWords(text) {
		ww := Width(word)
		if !empty && lw+1+ww > width {
			flush()
		}
		if !empty {
			line += " "
			lw++
		}
		// A word longer than a line is broken where the line ends.
		for lw+ww > width {
			part, rest := cutWidth(word, width-lw)
			if part == "" && empty {
				part, rest = cutWidth(word, 1)
				if part == "" {
					_, n := utf8.DecodeRuneInString(word)
					part, rest = word[:n], word[n:]
				}
			}
			line += part
			empty = false
			flush()
			// Less the part's width, not the rest's measured again: a
			// word of megabytes is broken in time linear in its length.
			word, ww = rest, ww-Width(part)
			if word == "" {
				break
			}
		}
		if word != "" {
			line += word
			lw += ww
			empty = false
		}
	}
	if !empty || len(lines) == 0 {
		lines = append(lines, strings.TrimRight(line, " "))
	}
	return lines
}

// units are the units Wrap keeps on the line of the number before them:
// "2 KB" is never "2" at a line's end and "KB" at the next one's start.
var units = map[string]bool{
	"B": true, "KB": true, "MB": true, "GB": true, "TB": true, "KiB": true, "MiB": true, "GiB": true, "TiB": true,
	"bytes": true, "ms": true, "s": true, "min": true, "h": true, "%": true, "×": true,
}

// wrapWords are text's words, a number and the unit after it one word.
func wrapWords(text string) []string {
	words := strings.Fields(text)
	out := words[:0]
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) && isNumber(words[i]) && units[strings.TrimRight(words[i+1], ",.;:)]")] {
			out = append(out, words[i]+" "+words[i+1])
			i++
			continue
		}
		out = append(out, words[i])
	}
	return out
}

// isNumber reports whether w is written as a number: digits with their
// separators, after a sign or bracket ("1,234", "0.5", "(2", "≥51").
func isNumber(w string) bool {
	w = strings.TrimLeft(w, "([~≈≥≤<>+-−$")
	digits := false
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r == ',' || r == '.':
		default:
			return false
		}
	}
	return digits
}

// cutWidth splits s after its first w columns.
func cutWidth(s string, w int) (string, string) {
	n := 0
	for i, r := range s {
		rw := runeWidth(r)
		if n+rw > w && !(rw == 0 && i > 0) {
			return s[:i], s[i:]
		}
		n += rw
	}
	return s, ""
}
