package render

import (
	"io"
	"slices"
	"strings"

	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// Align is a column's alignment.
type Align int

const (
	Left Align = iota
	Right
)

// A Table is rows of cells printed in aligned columns, fitted to a width
// as ccusage fits its tables: headers wrap onto more lines first, then the
// columns that may be cut are cut (with an ellipsis), then the columns that
// may be left out are left out, least needed first, and a line under the
// table names them. A table that does not fit even so is printed as one
// block of "HEADER  value" lines per row.
type Table struct {
	Header []string
	Align  []Align // per column; missing columns align left
	Rows   [][]string
	// Footer rows are printed under the rows, after a rule: a TOTAL row.
	Footer [][]string
	// Indent is printed before every line.
	Indent string

	// Width is the widest a line may be, in columns; 0 for no limit.
	Width int
	// Drop ranks, per column, the columns a narrow width leaves out: the
	// highest first; 0 (or a missing entry) is never left out.
	Drop []int
	// Compact, above 0, leaves out every column ranked Compact or higher
	// in Drop at any width, with no note under the table: a narrow table
	// asked for (ccusage's --compact). A narrower width leaves out more.
	Compact int
	// Min is, per column, the narrowest its cells may be cut to; 0 (or a
	// missing entry) is never cut. Cut cells end in an ellipsis.
	Min []int
	// Keep, above 0, keeps each cut column at least as wide as any
	// narrower width shows it, up to Keep columns: the table leaves out
	// one more column rather than show less of a name on a wider
	// terminal (measure's tools). 0 cuts before it leaves out, at each
	// width on its own (a finding's title, a project's path).
	Keep int
	// CutLeft reports whether a cell, given its row (as Tint's) and
	// column, is cut from the left, keeping its end: a path, whose last
	// folders tell rows apart ("…/api-server", not "/home/dev/sr…"). Nil
	// cuts every cell from the right. [PathColumns] makes one.
	CutLeft func(row, col int) bool
	// Wrap is, per column, whether a cell too wide for its column goes on
	// over more lines (a finding's title) rather than being cut.
	Wrap []bool
	// Tint colours a cell, given its row (an index into Rows, then into
	// Footer after them) and column; nil for none. Colour shows only when
	// Screen.Color is set.
	Tint   func(row, col int, cell string) Tint
	Screen Screen
}

// PathColumns is a CutLeft that cuts from the left every cell of the
// columns named.
func PathColumns(cols ...int) func(row, col int) bool {
	return func(_, col int) bool { return slices.Contains(cols, col) }
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Fit sets the table's width and colour from s.
func (t *Table) Fit(s Screen) *Table {
	t.Width, t.Screen = s.Width, s
	return t
}

func at[T any](xs []T, i int) T {
	var zero T
	if i < len(xs) {
		return xs[i]
	}
	return zero
}

// layout is a fitted table: the columns kept, in order, their widths, and
// whether the headers wrap.
type layout struct {
	cols    []int
	width   []int
	wrapped bool
	dropped []int
}

// Write prints the table with two spaces between columns and no trailing
// spaces. Cells are escaped with [textsafe.Text], and measured escaped
// ([Width]).
func (t *Table) Write(w io.Writer) error {
	_, err := io.WriteString(w, t.String())
	return err
}

// String is the table as [Table.Write] prints it.
func (t *Table) String() string {
	var b strings.Builder
	t.render(func(_ int, line string) { b.WriteString(line + "\n") })
	return b.String()
}

// RowLines are the lines of each row as [Table.Write] prints them, without
// the header, the rule and the note under the table: for a report that
// writes more under some rows.
func (t *Table) RowLines() [][]string {
	out := make([][]string, len(t.Rows)+len(t.Footer))
	t.render(func(row int, line string) {
		if row >= 0 {
			out[row] = append(out[row], line)
		}
	})
	return out
}

// render fits the table and gives each line to emit with its row: an index
// into Rows then Footer, -1 for the header, the rule and the note.
func (t *Table) render(emit func(row int, line string)) {
	header := escapeCells(t.Header)
	n := len(header)
	rows := make([][]string, 0, len(t.Rows)+len(t.Footer))
	for _, r := range slices.Concat(t.Rows, t.Footer) {
		rows = append(rows, escapeCells(r))
		n = max(n, len(r))
	}
	natural := make([]int, n)   // the widest cell
	headerW := make([]int, n)   // the header on one line
	headerMin := make([]int, n) // the header's longest word
	for i := range n {
		h := at(header, i)
		headerW[i] = Width(h)
		for _, word := range strings.Fields(h) {
			headerMin[i] = max(headerMin[i], Width(word))
		}
	}
	for _, r := range rows {
		for i, c := range r {
			natural[i] = max(natural[i], Width(c))
		}
	}
	l, ok := t.fit(n, natural, headerW, headerMin)
	if !ok {
		t.writeBlocks(emit, header, rows)
		return
	}
	t.writeColumns(emit, l, header, rows)
	if len(l.dropped) > 0 {
		var names []string
		for _, c := range l.dropped {
			h := at(header, c)
			if h == strings.ToUpper(h) {
				h = strings.ToLower(h) // "CACHE READ"; "outputSchema" stays
			}
			names = append(names, h)
		}
		note := "Left out at this width: " + strings.Join(names, ", ") + " (a wider terminal or --json shows them)."
		for _, line := range Wrap(t.Indent, note, t.Indent, t.Width) {
			emit(-1, t.Screen.Paint(Dim, line))
		}
	}
}

// fit chooses the columns and their widths: the fewest columns left out
// that fit, and with Keep, whose cut columns are each at least as wide as
// a narrower width shows them (up to Keep), so that widening a terminal
// never shows less of a name.
func (t *Table) fit(n int, natural, headerW, headerMin []int) (layout, bool) {
	var cols []int
	for i := range n {
		if t.Compact <= 0 || at(t.Drop, i) < t.Compact {
			cols = append(cols, i)
		}
	}
	// levels[k] leaves out the k least needed columns: the highest rank
	// first, the rightmost of equals.
	levels := []layout{{cols: cols}}
	for {
		cur := levels[len(levels)-1]
		k := -1
		for j, c := range cur.cols {
			if d := at(t.Drop, c); d > 0 && (k < 0 || d >= at(t.Drop, cur.cols[k])) {
				k = j
			}
		}
		if k < 0 {
			break
		}
		dropped := slices.Sorted(slices.Values(append(slices.Clone(cur.dropped), cur.cols[k])))
		levels = append(levels, layout{cols: slices.Delete(slices.Clone(cur.cols), k, k+1), dropped: dropped})
	}
	levelAt := func(k, width int) (layout, bool) { return t.fitLevel(levels[k], width, natural, headerW, headerMin) }
	first := func(width int, floor *layout) (layout, bool) {
		for k := range levels {
			if l, ok := levelAt(k, width); ok && (floor == nil || t.noNarrower(l, *floor)) {
				return l, true
			}
		}
		return layout{}, false
	}
	l, ok := first(t.Width, nil)
	if !ok || t.Width <= 0 || t.Keep <= 0 || !t.cut(l, natural, headerW) {
		return l, ok
	}
	// A name is cut: fit each width from the narrowest the table fits
	// in columns up, each no narrower than the one before.
	var prev layout
	found := false
	for w := t.narrowest(levels[len(levels)-1], natural, headerMin); w <= t.Width; w++ {
		var floor *layout
		if found {
			floor = &prev
		}
		if l, ok := first(w, floor); ok {
			prev, found = l, true
		}
	}
	return prev, found
}

// fitLevel fits the columns of lv to width: whole, else with its headers
// on more lines, else with its cut columns cut, the widest first.
func (t *Table) fitLevel(lv layout, width int, natural, headerW, headerMin []int) (layout, bool) {
	total := func(ws []int) int {
		s := Width(t.Indent) + 2*max(0, len(ws)-1)
		for _, x := range ws {
			s += x
		}
		return s
	}
	cols := lv.cols
	ws := make([]int, len(cols))
	for j, c := range cols {
		ws[j] = max(natural[c], headerW[c])
	}
	if width <= 0 || total(ws) <= width {
		return layout{cols: cols, width: ws, dropped: lv.dropped}, true
	}
	// Headers on more lines.
	for j, c := range cols {
		ws[j] = max(natural[c], headerMin[c])
	}
	if total(ws) <= width {
		return layout{cols: cols, width: ws, wrapped: true, dropped: lv.dropped}, true
	}
	// Cut the columns that may be cut, the widest first (the first of
	// equals), to the next widest at once where it stands alone.
	for over := total(ws) - width; over > 0; {
		k, next := -1, 0
		for j, c := range cols {
			m := at(t.Min, c)
			if m <= 0 || ws[j] <= m {
				continue
			}
			switch {
			case k < 0 || ws[j] > ws[k]:
				if k >= 0 {
					next = max(next, ws[k])
				}
				k = j
			default:
				next = max(next, ws[j])
			}
		}
		if k < 0 {
			break
		}
		step := 1
		if next < ws[k] {
			step = min(over, ws[k]-max(next, at(t.Min, cols[k])))
		}
		ws[k] -= step
		over -= step
	}
	if total(ws) <= width {
		return layout{cols: cols, width: ws, wrapped: true, dropped: lv.dropped}, true
	}
	return layout{}, false
}

// cut reports whether l shows a column that may be cut narrower than its
// widest cell or header.
func (t *Table) cut(l layout, natural, headerW []int) bool {
	for j, c := range l.cols {
		if at(t.Min, c) > 0 && l.width[j] < max(natural[c], headerW[c]) {
			return true
		}
	}
	return false
}

// noNarrower reports whether l shows each column that may be cut, of
// those floor shows, at least as wide as floor does (or Keep columns).
func (t *Table) noNarrower(l, floor layout) bool {
	for j, c := range floor.cols {
		if at(t.Min, c) <= 0 {
			continue
		}
		i := slices.Index(l.cols, c)
		if i < 0 || l.width[i] < min(floor.width[j], t.Keep) {
			return false
		}
	}
	return true
}

// narrowest is the width of lv's columns cut as far as they may be, with
// their headers on more lines.
func (t *Table) narrowest(lv layout, natural, headerMin []int) int {
	s := Width(t.Indent) + 2*max(0, len(lv.cols)-1)
	for _, c := range lv.cols {
		w := max(natural[c], headerMin[c])
		if m := at(t.Min, c); m > 0 {
			w = min(w, m)
		}
		s += w
	}
	return max(s, 1)
}

func (t *Table) writeColumns(emit func(int, string), l layout, header []string, rows [][]string) {
	line := func(cells []string, row int, rule bool) {
		// A cell of a wrapping column takes as many lines as it needs.
		parts := make([][]string, len(l.cols))
		height := 1
		for j, c := range l.cols {
			cell := at(cells, c)
			switch {
			case rule:
				parts[j] = []string{strings.Repeat("-", l.width[j])}
			case row >= 0 && at(t.Wrap, c) && Width(cell) > l.width[j]:
				parts[j] = Wrap("", cell, "", l.width[j])
			case row >= 0 && t.CutLeft != nil && t.CutLeft(row, c):
				parts[j] = []string{TruncateLeft(cell, l.width[j])}
			default:
				parts[j] = []string{Truncate(cell, l.width[j])}
			}
			height = max(height, len(parts[j]))
		}
		for k := range height {
			var s strings.Builder
			s.WriteString(t.Indent)
			for j, c := range l.cols {
				if j > 0 {
					s.WriteString("  ")
				}
				cell := at(parts[j], k)
				var tint Tint
				if t.Tint != nil && row >= 0 && !rule {
					tint = t.Tint(row, c, at(t.rowAt(row), c))
				}
				if at(t.Align, c) == Right {
					s.WriteString(strings.Repeat(" ", l.width[j]-Width(cell)) + t.Screen.Paint(tint, cell))
				} else {
					s.WriteString(t.Screen.Paint(tint, cell) + strings.Repeat(" ", l.width[j]-Width(cell)))
				}
			}
			emit(row, strings.TrimRight(s.String(), " "))
		}
	}
	if len(header) > 0 {
		if !l.wrapped {
			line(header, -1, false)
		} else {
			// Each header on as many lines as it needs, the last lines
			// aligned: a column's name ends on the line above its cells.
			parts := make([][]string, len(header))
			height := 0
			for _, c := range l.cols {
				parts[c] = Wrap("", at(header, c), "", l.width[slices.Index(l.cols, c)])
				height = max(height, len(parts[c]))
			}
			for i := range height {
				cells := make([]string, len(header))
				for _, c := range l.cols {
					if k := i - (height - len(parts[c])); k >= 0 {
						cells[c] = parts[c][k]
					}
				}
				line(cells, -1, false)
			}
		}
	}
	for i, r := range rows {
		if i == len(t.Rows) && len(t.Footer) > 0 {
			line(nil, -1, true)
		}
		line(r, i, false)
	}
}

func (t *Table) rowAt(i int) []string {
	if i < len(t.Rows) {
		return t.Rows[i]
	}
	return at(t.Footer, i-len(t.Rows))
}

// writeBlocks prints each row as lines of "HEADER  value", for a width no
// column layout fits.
func (t *Table) writeBlocks(emit func(int, string), header []string, rows [][]string) {
	label := 0
	for _, h := range header {
		label = max(label, Width(h))
	}
	label = min(label, max(4, t.Width/3))
	for i, r := range rows {
		if i > 0 {
			emit(-1, "")
		}
		for c, cell := range r {
			if t.Compact > 0 && at(t.Drop, c) >= t.Compact {
				continue
			}
			head := padRight(Truncate(at(header, c), label), label) + "  "
			indent := strings.Repeat(" ", label+2)
			var tint Tint
			if t.Tint != nil {
				tint = t.Tint(i, c, at(t.rowAt(i), c))
			}
			for k, l := range Wrap(t.Indent+head, cell, t.Indent+indent, t.Width) {
				l = Truncate(l, t.Width)
				if k == 0 && tint != Plain {
					pre := t.Indent + head
					if strings.HasPrefix(l, pre) {
						l = pre + t.Screen.Paint(tint, l[len(pre):])
					}
				}
				emit(i, l)
			}
		}
	}
}

func escapeCells(r []string) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = textsafe.Text(c)
	}
	return out
}
