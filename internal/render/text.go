// Package render turns mcpcost's plain report data into text, JSON,
// Markdown and HTML. Renderers are pure functions of their input.
//
// # Escaping
//
// The data is raw: names, versions, descriptions, paths and messages as
// configs, servers and transcripts gave them. Each renderer escapes it
// once, where it meets the output format, with package textsafe: text with
// [textsafe.Text] (table cells and wrapped paragraphs are escaped by
// [Table.Write] and the wrapping helpers), Markdown with
// [textsafe.Markdown] and [textsafe.Code], HTML and SVG with one helper
// (textsafe.Text, then HTML's five characters as references, then the two
// characters XML forbids written visibly), through which every piece of
// the pages ([PageStart], [WriteTable], [WriteBarChart], [Treemap]) writes
// its text and attributes. The
// helpers that phrase data into sentences return raw text, for each format
// to escape. Every rendering then passes through [textsafe.Lines] (JSON
// through [textsafe.JSON]) as it is written, a last guard.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// Int formats n with thousands separators, as [num.Int] does: 12345 ->
// "12,345".
func Int(n int) string { return num.Int(n) }

// ServerName names an MCP server as every report of calls names it: a
// Claude Code plugin's with its plugin, "linear (plugin acme)".
func ServerName(server, plugin string) string {
	if plugin == "" {
		return server
	}
	return server + " (plugin " + plugin + ")"
}

// ResultTokens shows tool results' tokens as every report of calls shows
// them: the exact count of their text, then the estimate of their images
// and other blocks where there is one, "1,453 +10 est." ([EstimatedNote]
// says what it is).
func ResultTokens(exact, estimated int64) string {
	s := num.Int(int(exact))
	if estimated > 0 {
		s += " +" + num.Int(int(estimated)) + " est."
	}
	return s
}

// EstimatedNote says, under a table of [ResultTokens], what is exact and
// what is estimated.
const EstimatedNote = "result tokens are exact o200k_base counts of the results' text; images and other blocks are estimated (est.)"

// Percent formats a fraction (0.123) as "12.3%".
func Percent(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}

// name bounds a name that came from a server, a config or a transcript (a
// server, a tool, a version) to [textsafe.MaxName] runes, with the "…
// (N bytes)" of [textsafe.Cut]; it is escaped where it is written. A
// server can send a name of a megabyte.
func name(s string) string { return textsafe.Cut(s, textsafe.MaxName) }

// sentence bounds a sentence that may quote such names (a warning, a
// reason, an error a server sent) to [textsafe.MaxProse] runes alike.
func sentence(s string) string { return textsafe.Cut(s, textsafe.MaxProse) }

// listNames joins the first names of list, each bounded, and counts the
// rest: see [textsafe.CutList].
func listNames(list []string) string { return textsafe.CutList(list) }

// md escapes data for Markdown: see [textsafe.Markdown].
func md(s string) string { return textsafe.Markdown(s) }

// JSON writes v as indented JSON without HTML escaping, ending in a newline.
// Control, format and separator characters in strings are \u escapes
// ([textsafe.JSON]): the same strings to a JSON parser, nothing a terminal
// obeys.
//
// Every slice a report always writes is written as an array: [] when
// empty, never null.
func JSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(emptySlices(v)); err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err := w.Write(textsafe.JSON(b.Bytes()))
	return err
}
