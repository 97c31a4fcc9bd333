package textsafe

import "strings"

// markdownReplacer writes as character references the ASCII characters
// that open Markdown or HTML syntax: raw HTML and entities (& < > "), code
// spans (`), table cells (|), links and images ([ ]), backslash escapes
// (\), emphasis and strikethrough (* ~). A reference is text
// to a Markdown parser (it opens nothing) and to an HTML one, so the same
// escaping is right in a paragraph, a table cell and a <summary>. An @ is
// followed by a zero-width space: GitHub mentions whoever an @ is followed
// by, in text and in HTML alike. Underscores are left alone: they are in
// many tool names, and do not emphasize inside a word.
var markdownReplacer = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`"`, "&quot;",
	"`", "&#96;",
	"|", "&#124;",
	"[", "&#91;",
	"]", "&#93;",
	`\`, "&#92;",
	"*", "&#42;",
	"~", "&#126;",
	"@", "@&#8203;",
)

// Markdown escapes s for GitHub-flavoured Markdown: one line of literal
// text, wherever inline text goes (a paragraph, a list item, a heading, a
// table cell, a <summary>), but not inside a code span or a code block.
func Markdown(s string) string {
	// The references first, then the visible escapes of Text, whose
	// backslash is always followed by a letter and so escapes nothing.
	return Text(markdownReplacer.Replace(s))
}

// Code is s escaped as [Markdown] inside a <code> element: code style that
// no backtick in s can end, valid in a table cell.
func Code(s string) string {
	return "<code>" + Markdown(s) + "</code>"
}

// CodeBlock is body, escaped as [Lines], in a fenced code block whose fence
// is longer than any run of backticks in it, so that no line of body can
// close the block. It ends in a line feed.
func CodeBlock(body string) string {
	body = strings.TrimSuffix(Lines(body), "\n")
	run, longest := 0, 0
	for i := 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + body + "\n" + fence + "\n"
}
