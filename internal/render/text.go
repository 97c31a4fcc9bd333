// Package render turns mcpcost's plain report data into text, JSON,
// Markdown and HTML. Renderers are pure functions of their input.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Int formats n with thousands separators: 12345 -> "12,345".
func Int(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

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
// spaces.
func (t *Table) Write(w io.Writer) error {
	n := len(t.Header)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	width := make([]int, n)
	measure := func(r []string) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	measure(t.Header)
	for _, r := range t.Rows {
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
	if len(t.Header) > 0 {
		line(t.Header)
	}
	for _, r := range t.Rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON writes v as indented JSON without HTML escaping, ending in a newline.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	return nil
}
