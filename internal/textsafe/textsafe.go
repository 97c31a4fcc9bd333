// Package textsafe escapes text that strangers control (config keys,
// server-reported names, versions and descriptions, launch arguments,
// transcript tool names, error messages that quote them) before mcpcost
// prints it, so that it can neither drive a terminal nor break the
// structure of a Markdown comment.
//
// # What is escaped
//
// [Text] makes a string one printable line: control characters (C0, DEL,
// C1), Unicode format characters (bidi embeddings, overrides and isolates,
// U+200E/F, U+061C, U+FEFF and the rest of category Cf, except the
// zero-width joiner and non-joiner that some scripts and emoji need), the
// line and paragraph separators U+2028/U+2029, the noncharacters
// U+FDD0..U+FDEF and bytes that are not UTF-8
// are written visibly: \n, \r, \t, \x1b, \u202e, \xff. [Lines] does the
// same but keeps line feeds, for a whole rendered report.
//
// [Markdown] escapes text for GitHub-flavoured Markdown, in a paragraph, a
// list item, a heading, a table cell or an HTML block such as <summary>:
// [Text] first, then character references for the characters that start
// Markdown or HTML syntax, and a zero-width space after every @, so that no
// one is mentioned. [Code] is the same inside a <code> element, [CodeBlock]
// a fenced block that no line of its content can close.
//
// Each function is applied once, where data meets its output format;
// applying [Text] or [Lines] again changes nothing.
package textsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r is a rune that [Text] escapes: a control
// character, a format character other than U+200C and U+200D, or U+2028 or
// U+2029. utf8.RuneError stands for itself here; [Text] escapes the bytes
// of invalid UTF-8 separately.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true
	case r == 0x200c || r == 0x200d:
		return false
	case r == 0x2028 || r == 0x2029:
		return true
	case r >= 0xfdd0 && r <= 0xfdef:
		// Noncharacters: never text to show, and the colour marks of
		// mcpcost's renderers.
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Text returns s as one printable line, every unsafe rune and every byte of
// invalid UTF-8 written as a visible escape.
func Text(s string) string { return escape(s, false) }

// Lines is [Text] that keeps line feeds: for a rendered report whose data
// was escaped already, as a last guard.
func Lines(s string) string { return escape(s, true) }

func escape(s string, keepLF bool) string {
	i := firstUnsafe(s, keepLF)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' && keepLF {
			b.WriteByte(c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			writeControl(&b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			writeHex(&b, uint32(c), 2)
		case Unsafe(r):
			writeRune(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// firstUnsafe is the index of the first byte that needs escaping, or len(s).
func firstUnsafe(s string, keepLF bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' && keepLF {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return i
		}
		i += n
	}
	return len(s)
}

func writeControl(b *strings.Builder, c byte) {
	switch c {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		b.WriteString(`\x`)
		writeHex(b, uint32(c), 2)
	}
}

func writeRune(b *strings.Builder, r rune) {
	if r > 0xffff {
		b.WriteString(`\U`)
		writeHex(b, uint32(r), 8)
		return
	}
	b.WriteString(`\u`)
	writeHex(b, uint32(r), 4)
}

func writeHex(b *strings.Builder, v uint32, digits int) {
	h := strconv.FormatUint(uint64(v), 16)
	b.WriteString(strings.Repeat("0", digits-len(h)))
	b.WriteString(h)
}

// MaxQuoted is the most of an input, in runes, that an error quotes.
const MaxQuoted = 80

// MaxName is the most of a name a report shows, in runes: a model, a
// project path, a server or tool name copied from a transcript, which can
// be a megabyte long. [Cut] and [Clip] cut a name to it.
const MaxName = 512

// MaxProse is the most of a sentence a report shows, in runes: a warning,
// a finding or a note that quotes names, or an error a server sent.
const MaxProse = 4 * MaxName

// Quote is s as an error quotes what it was given: Go-quoted (control
// characters, invisible runes and bytes of invalid UTF-8 escaped) and,
// when it is longer than MaxQuoted runes, cut to its start, followed by
// "… (N bytes)". An input of megabytes is named, never echoed.
func Quote(s string) string {
	start, cut := prefix(s)
	if !cut {
		return strconv.Quote(s)
	}
	return strconv.Quote(start) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Short is Quote without the quotes: [Text] of s, cut as Quote cuts it;
// for a path or a name shown as it is.
func Short(s string) string { return Clip(s, MaxQuoted) }

// Clip is [Text] of s cut to its first n runes, followed by "… (N bytes)"
// when it was cut: for a message that repeats an input, or holds one.
func Clip(s string, n int) string {
	start, cut := prefixN(s, n)
	if !cut {
		return Text(s)
	}
	return Text(start) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Cut is s cut to its first n runes, followed by "… (N bytes)" when it was
// cut, as [Clip] cuts it but not escaped: for a string that a structured
// result carries whole up to a bound, whose encoder escapes it. The cut
// falls between runes, so that valid UTF-8 stays valid.
func Cut(s string, n int) string {
	start, cut := prefixN(s, n)
	if !cut {
		return s
	}
	return start + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// MaxListed is how many names a sentence lists; [CutList] counts the rest.
const MaxListed = 10

// CutList joins the first MaxListed of list with ", ", each [Cut] to
// MaxName runes, and counts the rest ("a, b and 3 more"): for a sentence
// that names what a stranger may make a hundred thousand of.
func CutList(list []string) string {
	shown := make([]string, 0, min(len(list), MaxListed))
	for _, s := range list[:min(len(list), MaxListed)] {
		shown = append(shown, Cut(s, MaxName))
	}
	out := strings.Join(shown, ", ")
	if more := len(list) - len(shown); more > 0 {
		out += " and " + strconv.Itoa(more) + " more"
	}
	return out
}

// prefix is the first MaxQuoted runes of s, and whether that is less than s.
func prefix(s string) (string, bool) { return prefixN(s, MaxQuoted) }

// prefixN is the first n runes of s, and whether that is less than s.
func prefixN(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	k := 0
	for i := range s {
		if k == n {
			return s[:i], true
		}
		k++
	}
	return s, false
}
