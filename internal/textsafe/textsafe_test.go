package textsafe

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are the strings every test and fuzz target starts from.
var hostile = []string{
	"",
	"plain_tool-name.v2",
	"\x1b[2J\x1b[H",    // clear the screen
	"\x1b]0;pwned\x07", // window title, ended by BEL
	"\x1b]8;;https://evil.example\x1b\\x\x1b]8;;\x1b\\", // hyperlink
	"ok\rmcpcost: all servers OK\n",
	"\u202egnp.exe",
	"a\u2066b\u2069c\u200ed\u200ff\u061cg",
	"line\u2028sep\u2029para\u0085nel",
	"\u009b31m C1 CSI",
	"\x7fdel",
	"bad \xff\xfe utf-8 \xc3",
	"zwj \u200d and zwnj \u200c stay, zwsp \u200b and bom \ufeff do not",
	"tag \U000e0041 char",
	"`code` and ``` fence",
	"a | b || c",
	"<script>alert(1)</script>",
	"@everyone @here and mail@example.com",
	"[link](https://evil.example) ![img](https://evil.example/x.png)",
	`back\slash \| and \@ and &#64;everyone &lt;`,
	"*bold* ~strike~ $x$ _under_",
	"日本語のツール 😀",
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[2J", `\x1b[2J`},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"ok\rmcpcost: all servers OK\n", `ok\rmcpcost: all servers OK\n`},
		{"a\tb", `a\tb`},
		{"\u202egnp", `\u202egnp`},
		{"\u2066\u2069\u200e\u200f\u061c", `\u2066\u2069\u200e\u200f\u061c`},
		{"\u2028\u2029", `\u2028\u2029`},
		{"\u0085\u009b", `\u0085\u009b`},
		{"\x7f", `\x7f`},
		{"\xff\xc3", `\xff\xc3`},
		{"\ufeff\u200b", `\ufeff\u200b`},
		{"\U000e0041", `\U000e0041`},
		{"zwj\u200dzwnj\u200c", "zwj\u200dzwnj\u200c"},
		{"日本 😀 é", "日本 😀 é"},
		{`C:\Users\x`, `C:\Users\x`},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := Lines("a\x1b\nb\r\n"), "a\\x1b\nb\\r\n"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

func TestMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"add_note", "add_note"},
		{"a | b", "a &#124; b"},
		{"`x`", "&#96;x&#96;"},
		{"<script>", "&lt;script&gt;"},
		{"@everyone", "@&#8203;everyone"},
		{"&#64;everyone", "&amp;#64;everyone"},
		{"[a](b)", "&#91;a&#93;(b)"},
		{"x\ny", `x\ny`},
		{"\x1b[2J", `\x1b&#91;2J`},
		{`a\|b`, "a&#92;&#124;b"},
		{"$5 *x* ~y~", "$5 &#42;x&#42; &#126;y&#126;"},
	}
	for _, tt := range tests {
		if got := Markdown(tt.in); got != tt.want {
			t.Errorf("Markdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := Code("a`b|c"), "<code>a&#96;b&#124;c</code>"; got != want {
		t.Errorf("Code = %q, want %q", got, want)
	}
}

func TestCodeBlock(t *testing.T) {
	tests := []struct{ in, want string }{
		{"gate ok\n", "```\ngate ok\n```\n"},
		{"a\n```\nb", "````\na\n```\nb\n````\n"},
		{"x `````` y", "```````\nx `````` y\n```````\n"},
		{"a\x1b[2J\r\nb", "```\na\\x1b[2J\\r\nb\n```\n"},
	}
	for _, tt := range tests {
		if got := CodeBlock(tt.in); got != tt.want {
			t.Errorf("CodeBlock(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	for _, s := range hostile {
		if !utf8.ValidString(s) {
			continue // encoding/json replaces invalid UTF-8
		}
		b, err := json.Marshal(map[string]string{s: s})
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(b)
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("JSON(%q) is not valid JSON: %v: %s", s, err, out)
		}
		if !reflect.DeepEqual(got, map[string]string{s: s}) {
			t.Errorf("JSON(%q) decodes to %q", s, got)
		}
		if i := firstUnsafe(string(out), true); i != len(out) {
			t.Errorf("JSON(%q) = %q keeps an unsafe rune at %d", s, out, i)
		}
	}
	if got, want := string(JSON([]byte(`"a`+"\x7f\u202e\U000e0041"+`"`))), `"a\u007f\u202e\udb40\udc41"`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

// large builds inputs of a few hundred kilobytes from the hostile strings,
// so that the fuzz targets start from long documents too.
func large() []string {
	all := strings.Join(hostile, "")
	return []string{strings.Repeat(all, 1000), strings.Repeat("`", 70000) + "|" + strings.Repeat("\x1b", 70000)}
}

// checkPrintable fails when s holds an unsafe rune or invalid UTF-8; a line
// feed is allowed when lf is true.
func checkPrintable(t *testing.T, what, s string, lf bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s is not UTF-8: %q", what, s)
	}
	for _, r := range s {
		if r == '\n' && lf {
			continue
		}
		if Unsafe(r) {
			t.Fatalf("%s holds %U: %q", what, r, s)
		}
	}
}

func FuzzText(f *testing.F) {
	for _, s := range append(hostile, large()...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		checkPrintable(t, "Text", out, false)
		if Text(out) != out {
			t.Fatalf("Text is not idempotent on %q", s)
		}
		if firstUnsafe(s, false) == len(s) && out != s {
			t.Fatalf("Text changed a safe string %q to %q", s, out)
		}
		lines := Lines(s)
		checkPrintable(t, "Lines", lines, true)
		if strings.Count(lines, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Lines changed the number of lines of %q", s)
		}
		if Lines(lines) != lines {
			t.Fatalf("Lines is not idempotent on %q", s)
		}
	})
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range append(hostile, large()...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Markdown(s)
		checkPrintable(t, "Markdown", out, false)
		if i := strings.IndexAny(out, "|`<>[]\"*~"); i >= 0 {
			t.Fatalf("Markdown(%q) keeps %q: %q", s, out[i], out)
		}
		// A backslash is only ever the start of a visible escape, a
		// letter after it: it escapes nothing.
		for i := 0; i < len(out); i++ {
			if out[i] == '\\' && (i+1 == len(out) || !strings.ContainsRune("xuUnrt", rune(out[i+1]))) {
				t.Fatalf("Markdown(%q) has a bare backslash: %q", s, out)
			}
		}
		for i, c := range []byte(out) {
			switch c {
			case '@':
				if !strings.HasPrefix(out[i:], "@&#8203;") {
					t.Fatalf("Markdown(%q) leaves a live @: %q", s, out)
				}
			case '&':
				if !markdownEntity(out[i:]) {
					t.Fatalf("Markdown(%q) leaves a bare &: %q", s, out)
				}
			}
		}
		// In a table row, the escaped text is one cell.
		row := "| " + Markdown(s) + " | " + Code(s) + " |"
		if n := strings.Count(row, "|"); n != 3 {
			t.Fatalf("a table row of %q has %d pipes", s, n)
		}
	})
}

// markdownEntity reports whether s starts with a reference Markdown writes.
func markdownEntity(s string) bool {
	for _, e := range []string{"&amp;", "&lt;", "&gt;", "&quot;", "&#96;", "&#124;", "&#91;", "&#93;", "&#92;", "&#42;", "&#126;", "&#8203;"} {
		if strings.HasPrefix(s, e) {
			return true
		}
	}
	return false
}

func FuzzCodeBlock(f *testing.F) {
	for _, s := range append(hostile, large()...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := CodeBlock(s)
		checkPrintable(t, "CodeBlock", out, true)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		fence := lines[0]
		if len(fence) < 3 || strings.Trim(fence, "`") != "" || lines[len(lines)-1] != fence {
			t.Fatalf("CodeBlock(%q) is not fenced: %q", s, out)
		}
		// No line inside opens with a run of backticks as long as the fence.
		for _, l := range lines[1 : len(lines)-1] {
			if strings.HasPrefix(strings.TrimLeft(l, " "), fence) {
				t.Fatalf("CodeBlock(%q): the line %q closes the block", s, l)
			}
		}
	})
}

func FuzzJSON(f *testing.F) {
	for _, s := range append(hostile, large()...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal([]string{s})
		if err != nil {
			t.Skip()
		}
		out := JSON(b)
		var got, want []string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("JSON(%s) is not valid: %v", b, err)
		}
		json.Unmarshal(b, &want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("JSON changed %q to %q", want, got)
		}
		checkPrintable(t, "JSON", string(out), true)
	})
}

func TestQuote(t *testing.T) {
	long := strings.Repeat("é", MaxQuoted) + "\x1btail"
	for _, c := range []struct{ in, quote, short string }{
		{"abc", `"abc"`, "abc"},
		{"a\x1b[31m\r\n", `"a\x1b[31m\r\n"`, `a\x1b[31m\r\n`},
		{"bad\xff", `"bad\xff"`, `bad\xff`},
		{long, `"` + strings.Repeat("é", MaxQuoted) + `"… (` + strconv.Itoa(len(long)) + ` bytes)`, strings.Repeat("é", MaxQuoted) + "… (" + strconv.Itoa(len(long)) + " bytes)"},
	} {
		if got := Quote(c.in); got != c.quote {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.quote)
		}
		if got := Short(c.in); got != c.short {
			t.Errorf("Short(%q) = %s, want %s", c.in, got, c.short)
		}
	}
	huge := strings.Repeat("\u202e", 5<<20)
	if n := len(Quote(huge)); n > 1000 {
		t.Errorf("Quote of 5 MB is %d bytes", n)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc… (4 bytes)"},
		{"\x1b[2J", 2, "\x1b[… (4 bytes)"}, // not escaped: the encoder escapes
		{"ééé", 2, "éé… (6 bytes)"},        // between runes
		{"ééé", 3, "ééé"},
		{strings.Repeat("ẗ", 1<<20), 4, "ẗẗẗẗ… (3145728 bytes)"},
	}
	for _, tt := range tests {
		if got := Cut(tt.s, tt.n); got != tt.want {
			t.Errorf("Cut(%.20q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
	for _, s := range hostile {
		for n := range 8 {
			if got := Cut(s, n); utf8.ValidString(s) && !utf8.ValidString(got) {
				t.Errorf("Cut(%q, %d) = %q: not valid UTF-8", s, n, got)
			}
		}
	}
}

// TestCutList lists up to MaxListed names, each cut, and counts the rest,
// on both sides of the bound.
func TestCutList(t *testing.T) {
	n := func(k int) []string {
		var l []string
		for i := range k {
			l = append(l, strconv.Itoa(i))
		}
		return l
	}
	long := strings.Repeat("é", MaxName+1)
	for _, tc := range []struct {
		list []string
		want string
	}{
		{nil, ""},
		{n(1), "0"},
		{n(MaxListed), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9"},
		{n(MaxListed + 1), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 1 more"},
		{n(100000), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 99990 more"},
		{[]string{long, "b"}, strings.Repeat("é", MaxName) + "… (1026 bytes), b"},
	} {
		if got := CutList(tc.list); got != tc.want {
			t.Errorf("CutList of %d names = %.80q, want %.80q", len(tc.list), got, tc.want)
		}
	}
}
