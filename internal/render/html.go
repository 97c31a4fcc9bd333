package render

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/num"
)

// The pieces of mcpcost's HTML pages, over plain data: a page, a table,
// a bar chart; [Treemap] the treemap. The report and the measurement
// pages are made of them.

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// pageCSP lets the page run its one inline script (by its hash) and its
// inline styles, and nothing else: no fetch, no image, no font, no form.
var pageCSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + scriptHash(pageJS) + "'; base-uri 'none'; form-action 'none'"

func scriptHash(js string) string {
	h := sha256.Sum256([]byte(js))
	return base64.StdEncoding.EncodeToString(h[:])
}

// PageStart writes the head of a self-contained page and opens its body:
// inline CSS (light and dark, print), a Content-Security-Policy that loads
// nothing.
func PageStart(b *strings.Builder, title string) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="` + pageCSP + `">` + "\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	b.WriteString(`<meta name="color-scheme" content="light dark">` + "\n")
	b.WriteString("<title>" + esc(title) + "</title>\n<style>\n" + pageCSS + "</style>\n</head>\n<body>\n")
	// The hatching that marks every other series of a chart, so that
	// colour is not what tells two series apart.
	b.WriteString(`<svg class="defs" width="0" height="0" aria-hidden="true"><defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect class="hatch-line" width="2" height="6"/></pattern></defs></svg>` + "\n<main>\n")
}

// PageEnd closes the page, with its one script: it sorts the tables and
// shows a treemap box's figures on a tap (where no hover shows its
// tooltip). The page reads the same without it.
func PageEnd(b *strings.Builder) {
	b.WriteString("</main>\n<script>" + pageJS + "</script>\n</body>\n</html>\n")
}

// Column is a table's column: its heading and whether it holds numbers
// (right-aligned, sorted by value).
type Column struct {
	Head string
	Num  bool
}

// Cell is one table cell: its text, the value it sorts by (numbers), a
// link to an anchor of the page ("#id"), and a class.
type Cell struct {
	Text  string
	Sort  float64
	Href  string
	Class string
	// Raw is markup made by this package (a [Sparkline]) written after
	// Text; never text from elsewhere.
	Raw string
}

// TextCell is a cell of text.
func TextCell(s string) Cell { return Cell{Text: s} }

// NumCell is a count, written with thousands separators.
func NumCell(n int64) Cell { return Cell{Text: num.Int(int(n)), Sort: float64(n)} }

// USDCell is a cost in USD.
func USDCell(v float64) Cell { return Cell{Text: USD(v), Sort: v} }

// HTMLTable is a table of data: a caption, columns, rows.
type HTMLTable struct {
	ID      string
	Caption string
	Columns []Column
	Rows    [][]Cell
	// Sortable adds sort buttons to the headings (the page's script);
	// without script the rows stay in their order.
	Sortable bool
	// Foot is a last row (totals), not sorted.
	Foot []Cell
}

// WriteTable writes t as real table markup inside a box that scrolls
// sideways on its own when the table is wider than the page.
func WriteTable(b *strings.Builder, t HTMLTable) {
	b.WriteString(`<div class="scroll">`)
	cls := ""
	if t.Sortable {
		cls = ` class="sortable"`
	}
	id := ""
	if t.ID != "" {
		id = ` id="` + esc(t.ID) + `"`
	}
	b.WriteString("<table" + id + cls + ">")
	if t.Caption != "" {
		b.WriteString("<caption>" + esc(t.Caption) + "</caption>")
	}
	b.WriteString("<thead><tr>")
	for _, c := range t.Columns {
		cl := ""
		if c.Num {
			cl = ` class="n"`
		}
		b.WriteString(`<th scope="col"` + cl + `>` + esc(c.Head) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	row := func(cells []Cell) {
		b.WriteString("<tr>")
		for i, c := range cells {
			var cl []string
			if i < len(t.Columns) && t.Columns[i].Num {
				cl = append(cl, "n")
			}
			if c.Class != "" {
				cl = append(cl, cssName(c.Class))
			}
			tag := "td"
			if i == 0 {
				tag = "th"
			}
			b.WriteString("<" + tag)
			if i == 0 {
				b.WriteString(` scope="row"`)
			}
			if len(cl) > 0 {
				b.WriteString(` class="` + strings.Join(cl, " ") + `"`)
			}
			if i < len(t.Columns) && t.Columns[i].Num {
				b.WriteString(` data-v="` + strconv.FormatFloat(c.Sort, 'g', -1, 64) + `"`)
			}
			b.WriteString(">")
			if c.Href != "" {
				b.WriteString(`<a href="` + esc(c.Href) + `">` + esc(c.Text) + "</a>")
			} else {
				b.WriteString(esc(c.Text))
			}
			b.WriteString(c.Raw)
			b.WriteString("</" + tag + ">")
		}
		b.WriteString("</tr>\n")
	}
	for _, r := range t.Rows {
		row(r)
	}
	b.WriteString("</tbody>\n")
	if t.Foot != nil {
		b.WriteString("<tfoot>")
		row(t.Foot)
		b.WriteString("</tfoot>\n")
	}
	b.WriteString("</table></div>\n")
}

// Series is one stack of a bar chart: its name and one value per bar.
type Series struct {
	Name   string
	Values []float64
}

// BarChart is bars over labels (days), stacked by series.
type BarChart struct {
	ID    string
	Title string
	// Labels name the bars; Series stack on them, first at the bottom.
	Labels []string
	Series []Series
	// Format writes a value ("1,234", "$0.12").
	Format func(float64) string
	// Unit is the values' unit in the table's heading ("tokens", "USD").
	Unit string
	// LabelHead heads the table's column of labels: "day" when empty.
	LabelHead string
}

const (
	chartW, chartH = 640.0, 220.0
	chartLeft      = 64.0
	chartBottom    = 26.0
	chartTop       = 10.0
)

// WriteBarChart writes c as an SVG bar chart, a legend (each series by
// its name and a pattern as well as a colour), and the table of the same
// figures under it.
func WriteBarChart(b *strings.Builder, c BarChart) {
	if c.Format == nil {
		c.Format = func(v float64) string { return num.Int(int(math.Round(v))) }
	}
	n := len(c.Labels)
	totals := make([]float64, n)
	for _, s := range c.Series {
		for i := 0; i < n && i < len(s.Values); i++ {
			totals[i] += max(s.Values[i], 0)
		}
	}
	top := 0.0
	for _, t := range totals {
		top = max(top, t)
	}
	step := niceStep(top / 4)
	ceil := step * math.Ceil(top/step)
	if ceil <= 0 {
		ceil, step = 1, 1
	}
	b.WriteString(`<figure class="chart" id="` + esc(c.ID) + `">` + "\n")
	b.WriteString("<figcaption>" + esc(c.Title) + "</figcaption>\n")
	fmt.Fprintf(b, `<svg viewBox="0 0 %g %g" role="img" aria-label="%s">`, chartW, chartH, esc(c.Title+"; the table below gives the same figures"))
	plotH := chartH - chartBottom - chartTop
	plotW := chartW - chartLeft - 8
	y := func(v float64) float64 { return chartTop + plotH - v/ceil*plotH }
	for v := 0.0; v <= ceil+step/2; v += step {
		fmt.Fprintf(b, `<line class="grid" x1="%g" x2="%g" y1="%s" y2="%s"/>`, chartLeft, chartW-8, f2(y(v)), f2(y(v)))
		fmt.Fprintf(b, `<text class="axis" x="%g" y="%s" text-anchor="end">%s</text>`, chartLeft-6, f2(y(v)+4), esc(c.Format(v)))
	}
	if n > 0 {
		slot := plotW / float64(n)
		bw := max(slot*0.72, 1)
		every := int(math.Ceil(float64(n) * 70 / plotW)) // a label per 70 units
		for i := range n {
			x := chartLeft + slot*float64(i) + (slot-bw)/2
			base := 0.0
			for si, s := range c.Series {
				v := 0.0
				if i < len(s.Values) {
					v = max(s.Values[i], 0)
				}
				if v == 0 {
					continue
				}
				fmt.Fprintf(b, `<g><title>%s</title><rect class="s%d" x="%s" y="%s" width="%s" height="%s"/>`,
					esc(c.Labels[i]+", "+s.Name+": "+c.Format(v)), si%8, f2(x), f2(y(base+v)), f2(bw), f2(y(base)-y(base+v)))
				if si%2 == 1 {
					fmt.Fprintf(b, `<rect class="hatch" x="%s" y="%s" width="%s" height="%s"/>`, f2(x), f2(y(base+v)), f2(bw), f2(y(base)-y(base+v)))
				}
				b.WriteString("</g>")
				base += v
			}
			if i%every == 0 {
				fmt.Fprintf(b, `<text class="axis" x="%s" y="%g" text-anchor="middle">%s</text>`, f2(x+bw/2), chartH-8, esc(shortDay(c.Labels[i])))
			}
		}
	}
	b.WriteString("</svg>\n")
	if len(c.Series) > 1 {
		b.WriteString(`<ul class="legend">`)
		for si, s := range c.Series {
			hatch := ""
			if si%2 == 1 {
				hatch = `<rect class="hatch" width="14" height="14"/>`
			}
			fmt.Fprintf(b, `<li><svg viewBox="0 0 14 14" aria-hidden="true"><rect class="s%d" width="14" height="14"/>%s</svg>%s</li>`, si%8, hatch, esc(s.Name))
		}
		b.WriteString("</ul>\n")
	}
	// The same figures as a table: a row per bar, a column per series.
	head := c.LabelHead
	if head == "" {
		head = "day"
	}
	t := HTMLTable{Columns: []Column{{Head: head}}}
	for _, s := range c.Series {
		t.Columns = append(t.Columns, Column{Head: s.Name, Num: true})
	}
	if len(c.Series) > 1 {
		t.Columns = append(t.Columns, Column{Head: "total", Num: true})
	}
	for i, l := range c.Labels {
		row := []Cell{TextCell(l)}
		for _, s := range c.Series {
			v := 0.0
			if i < len(s.Values) {
				v = s.Values[i]
			}
			row = append(row, Cell{Text: c.Format(v), Sort: v})
		}
		if len(c.Series) > 1 {
			row = append(row, Cell{Text: c.Format(totals[i]), Sort: totals[i]})
		}
		t.Rows = append(t.Rows, row)
	}
	b.WriteString("<details class=\"figures\"><summary>The figures (" + esc(c.Unit) + ")</summary>\n")
	WriteTable(b, t)
	b.WriteString("</details>\n</figure>\n")
}

// shortDay writes 2026-11-05 as 11-05.
func shortDay(s string) string {
	if len(s) == 10 && s[4] == '-' {
		return s[5:]
	}
	return s
}

// niceStep rounds v up to 1, 2 or 5 times a power of ten.
func niceStep(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
