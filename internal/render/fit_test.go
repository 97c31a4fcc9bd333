package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// wideHostile is long data a terminal draws wide or narrow: CJK, emoji,
// combining marks, and the escapes of hostile.
var wideHostile = strings.Repeat("名前", 12) + "e\u0301\u0301 🚀🚀 " + hostile + strings.Repeat("x", 90)

var sgrRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// checkFits fails when a line of out is wider than width, colour escapes
// aside.
func checkFits(t *testing.T, what string, width int, out string) {
	t.Helper()
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := Width(sgrRE.ReplaceAllString(l, "")); w > width {
			t.Errorf("%s at %d columns: line %d is %d wide: %q", what, width, i+1, w, l)
			return
		}
	}
}

// Every line of every text renderer's output fits widths from 40 to 200
// columns on hostile and long data, in colour or not.
func TestRenderersFitTheWidth(t *testing.T) {
	d := hostileDiff(t)
	renderers := []struct {
		name string
		fn   func(*bytes.Buffer, Screen) error
	}{
		{"AuditText", func(b *bytes.Buffer, s Screen) error { return AuditText(b, hostileAudit(), s) }},
		{"MeasureText", func(b *bytes.Buffer, s Screen) error { return MeasureText(b, hostileMeasure(), s) }},
		{"DiffText", func(b *bytes.Buffer, s Screen) error { return DiffText(b, d, s) }},
		{"FindingsText", func(b *bytes.Buffer, s Screen) error { return FindingsText(b, hostileFindings(), s, false) }},
		{"FindingsText verbose", func(b *bytes.Buffer, s Screen) error { return FindingsText(b, hostileFindings(), s, true) }},
		{"ReportText", func(b *bytes.Buffer, s Screen) error { return ReportText(b, hostileOverview(), s) }},
		{"Table", func(b *bytes.Buffer, s Screen) error { return s.Emit(b, hostileTable(s).String()) }},
	}
	for _, r := range renderers {
		for width := 40; width <= 200; width++ {
			for _, color := range []bool{false, true} {
				var b bytes.Buffer
				if err := r.fn(&b, Screen{Width: width, Color: color}); err != nil {
					t.Fatalf("%s: %v", r.name, err)
				}
				checkFits(t, r.name, width, b.String())
				if !color && strings.Contains(b.String(), "\x1b") {
					t.Fatalf("%s without colour writes an escape", r.name)
				}
			}
		}
	}
}

func hostileTable(s Screen) *Table {
	t := &Table{Header: []string{"NAME", "PROJECT", "CALLS", "RESULT TOKENS", "COST"}, Align: []Align{Left, Left, Right, Right, Right},
		Min: []int{10, 8}, Drop: []int{0, 2, 0, 1, 0}, Indent: "  "}
	t.Fit(s)
	t.Tint = func(_, col int, _ string) Tint { return Tint(col % 5) }
	t.Add(wideHostile, wideHostile, "1,234", "12,345,678", "$1.23")
	t.Add("short", "-", "1", "2", "$0.00")
	t.Footer = [][]string{{"TOTAL", "", "1,235", "12,345,680", "$1.23"}}
	return t
}

// A table narrows the way ccusage's do: it fits whole at its natural
// width; a little narrower its headers wrap; then its cut columns are cut
// with an ellipsis, by display width; then it leaves columns out, the
// highest rank first, and says which; below the narrowest column layout it
// prints a block per row (12 columns here).
func TestTableNarrows(t *testing.T) {
	mk := func(width int) string {
		tb := Table{Header: []string{"NAME", "CACHE READ", "TOTAL"}, Align: []Align{Left, Right, Right}, Min: []int{6}, Drop: []int{0, 1, 0}, Width: width}
		tb.Add("名前名前名前", "1,000", "2,000")
		tb.Add("a\u0301bc", "10", "20")
		tb.Footer = [][]string{{"TOTAL", "1,010", "2,020"}}
		return tb.String()
	}
	for _, c := range []struct {
		width int
		want  string
	}{
		{0, "NAME          CACHE READ  TOTAL\n名前名前名前       1,000  2,000\na\u0301bc                   10     20\n------------  ----------  -----\nTOTAL              1,010  2,020\n"},
		{27, "              CACHE\nNAME           READ  TOTAL\n名前名前名前  1,000  2,000\na\u0301bc              10     20\n------------  -----  -----\nTOTAL         1,010  2,020\n"},
		{23, "           CACHE\nNAME        READ  TOTAL\n名前名前…  1,000  2,000\na\u0301bc           10     20\n---------  -----  -----\nTOTAL      1,010  2,020\n"},
		{20, "        CACHE\nNAME     READ  TOTAL\n名前…   1,000  2,000\na\u0301bc        10     20\n------  -----  -----\nTOTAL   1,010  2,020\n"},
		{16, "NAME       TOTAL\n名前名前…  2,000\na\u0301bc           20\n---------  -----\nTOTAL      2,020\nLeft out at this\nwidth: cache\nread (a wider\nterminal or\n--json shows\nthem).\n"},
		{12, "NAME  名前名\n      前名前\nCAC…  1,000\nTOT…  2,000\n\nNAME  a\u0301bc\nCAC…  10\nTOT…  20\n\nNAME  TOTAL\nCAC…  1,010\nTOT…  2,020\n"},
	} {
		if got := mk(c.width); got != c.want {
			t.Errorf("width %d: got\n%s\nwant\n%s", c.width, got, c.want)
		}
		if c.width > 0 {
			checkFits(t, "table", c.width, mk(c.width))
		}
	}
}

func TestWidthAndTruncate(t *testing.T) {
	for s, want := range map[string]int{"abc": 3, "名前": 4, "e\u0301": 1, "🚀": 2, "\\x1b": 4, "a\u200db": 2, "": 0} {
		if got := Width(s); got != want {
			t.Errorf("Width(%q) = %d, want %d", s, got, want)
		}
	}
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"abcdef", 6, "abcdef"}, {"abcdef", 5, "abcd…"}, {"名前名前", 5, "名前…"}, {"名前名前", 4, "名…"},
		{"e\u0301e\u0301e\u0301", 2, "e\u0301…"}, {"abc", 1, "…"}, {"abc", 0, ""},
	} {
		if got := Truncate(c.in, c.w); got != c.want || Width(got) > max(c.w, 0) {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// Colour is written as escapes only for a screen in colour, and data can
// forge none: its escapes and the noncharacters used as colour marks are
// escaped before they reach the screen.
func TestColourMarks(t *testing.T) {
	forged := "x\uFDD1red\uFDD0 \x1b[31m"
	tb := Table{Header: []string{"LEVEL", "NAME"}, Tint: func(_, col int, cell string) Tint {
		if col == 0 {
			return LevelTint(cell)
		}
		return Plain
	}}
	tb.Add("HIGH", forged)
	for _, color := range []bool{false, true} {
		tb.Screen = Screen{Color: color}
		var b bytes.Buffer
		if err := tb.Screen.Emit(&b, tb.String()); err != nil {
			t.Fatal(err)
		}
		want := "LEVEL  NAME\nHIGH   x\\ufdd1red\\ufdd0 \\x1b[31m\n"
		if color {
			want = "LEVEL  NAME\n\x1b[1;31mHIGH\x1b[0m   x\\ufdd1red\\ufdd0 \\x1b[31m\n"
		}
		if b.String() != want {
			t.Errorf("colour %v: got %q, want %q", color, b.String(), want)
		}
	}
}

// The line under a table names the columns left out as their headers
// read: a header in capitals in lower case, any other as written
// (measure's "outputSchema", a part's name).
func TestLeftOutNames(t *testing.T) {
	for _, c := range []struct {
		header []string
		want   string
	}{
		{[]string{"NAME", "CACHE READ"}, "Left out at this width: cache read"},
		{[]string{"tool", "outputSchema"}, "Left out at this width: outputSchema"},
		{[]string{"tool", "_meta"}, "Left out at this width: _meta"},
	} {
		tb := Table{Header: c.header, Drop: []int{0, 1}, Width: 40}
		tb.Add("a", strings.Repeat("9", 45))
		if got := tb.String(); !strings.Contains(got, c.want+" (") {
			t.Errorf("%q: got\n%s\nwant %q", c.header, got, c.want)
		}
	}
}
