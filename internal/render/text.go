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
	"strings"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// Int formats n with thousands separators, as [num.Int] does: 12345 ->
// "12,345".
func Int(n int) string { return num.Int(n) }

// Percent formats a fraction (0.123) as "12.3%".
func Percent(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}

// Align is a column's alignment.
type Align int

const (
	Left Align = iota
	Right
)

// A Table is rows of cells printed in aligned columns.
type Table struct {
	Header []string
	Align  []Align // per column; missing columns align left
	Rows   [][]string
	// Indent is printed before every line.
	Indent string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Write prints the table with two spaces between columns and no trailing
// spaces. Cells are escaped with [textsafe.Text], and measured escaped.
func (t *Table) Write(w io.Writer) error {
	header := escapeCells(t.Header)
	rows := make([][]string, len(t.Rows))
	n := len(header)
	for i, r := range t.Rows {
		rows[i] = escapeCells(r)
		n = max(n, len(r))
	}
	width := make([]int, n)
	measure := func(r []string) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	measure(header)
	for _, r := range rows {
		measure(r)
	}
	var b strings.Builder
	line := func(r []string) {
		var l strings.Builder
		l.WriteString(t.Indent)
		for i := 0; i < n; i++ {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				l.WriteString("  ")
			}
			if i < len(t.Align) && t.Align[i] == Right {
				l.WriteString(pad + c)
			} else {
				l.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	if len(header) > 0 {
		line(header)
	}
	for _, r := range rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func escapeCells(r []string) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = textsafe.Text(c)
	}
	return out
}

// md escapes data for Markdown: see [textsafe.Markdown].
func md(s string) string { return textsafe.Markdown(s) }

// write writes a rendering through [textsafe.Lines]: whatever data a
// renderer left unescaped cannot reach a terminal raw.
func write(w io.Writer, s string) error {
	_, err := io.WriteString(w, textsafe.Lines(s))
	return err
}

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
