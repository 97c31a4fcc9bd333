package usage

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// table is a report's main table, before it is printed as text or Markdown.
type table struct {
	header []string
	align  []render.Align
	rows   [][]string
	// drop and min are, per column, the rank in which a narrow terminal
	// leaves the column out and how narrow its cells may be cut
	// (render.Table's Drop and Min).
	drop, min []int
	// compact is the lowest of the ranks that --compact leaves out at
	// any width (render.Table's Compact); 0 where it leaves out none.
	compact int
	// path is the column of paths, cut from the left to keep their end
	// (render.Table's CutLeft), -1 for none; sub marks the rows of a
	// breakdown, whose models are cut from the right.
	path int
	sub  map[int]bool
	// total is the TOTAL row, under the tables of days, sessions,
	// projects and models.
	total []string
}

// table is the report's main table. By day, week, month, session, model
// and project, --compact keeps a group's key, input, output, total and
// cost: the columns a narrow terminal leaves out last.
func (r *Report) table() table {
	R, L := render.Right, render.Left
	t := table{path: -1, sub: map[int]bool{}}
	switch r.By {
	case "server", "tool":
		first := []string{"SERVER"}
		al := []render.Align{L}
		if r.By == "tool" {
			first = append(first, "TOOL")
			al = append(al, L)
		} else {
			first = append(first, "TOOLS")
			al = append(al, R)
		}
		t.header = append(first, "CALLS", "ERRORS", "SESSIONS", "RESULT TOKENS", "AVG", "MAX", "P50", "P95")
		t.align = append(al, R, R, R, R, R, R, R, R)
		t.min = []int{14, 14}
		if r.By == "tool" {
			t.drop = []int{0, 0, 0, 3, 5, 0, 7, 4, 6, 0}
		} else {
			t.drop = []int{0, 2, 0, 3, 5, 0, 7, 4, 6, 0}
		}
		for _, x := range r.Tools {
			name := render.ServerName(x.Server, x.Plugin)
			if x.BuiltIn {
				name = "(built-in)"
			}
			row := []string{name}
			if r.By == "tool" {
				row = append(row, x.Tool)
			} else {
				row = append(row, render.Int(x.Tools))
			}
			row = append(row, render.Int(x.Calls), render.Int(x.Errors), render.Int(x.Sessions), render.ResultTokens(x.ResultTokens, x.EstimatedTokens),
				render.Int(int(x.AvgResultTokens+0.5)), render.Int(int(x.MaxResultTokens)), ms(x.LatencyP50Ms), ms(x.LatencyP95Ms))
			t.rows = append(t.rows, row)
		}
	default:
		first := strings.ToUpper(r.By)
		t.header = []string{first, "REQUESTS", "INPUT", "OUTPUT", "CACHE WRITE", "CACHE READ", "TOTAL", "COST", "TOOL CALLS", "RESULT TOKENS"}
		t.align = []render.Align{L, R, R, R, R, R, R, R, R, R}
		// Left out first on a narrow terminal: reasoning, the cache
		// columns, then the requests, the result tokens, the tool calls
		// (all of them with --compact) and the input; never the key, the
		// output, the total or the cost.
		t.drop = []int{0, 4, 1, 0, 6, 5, 0, 0, 2, 3}
		t.compact = 2
		t.min = []int{20}
		if r.By == "project" {
			t.path = 0
		}
		if r.By == "model" {
			t.header = t.header[:8]
			t.drop = t.drop[:8]
		}
		if r.By == "session" {
			t.header = append([]string{"SESSION", "STARTED", "PROJECT"}, t.header[1:]...)
			t.align = append([]render.Align{L, L, L}, t.align[1:]...)
			t.drop = append([]int{0, 0, 0}, t.drop[1:]...)
			t.min = []int{0, 0, 12}
			t.path = 2
		}
		// Reasoning, a part of output, where the agent records it (Codex).
		reasoning := r.Totals.Tokens.Reasoning > 0
		if reasoning {
			i := slices.Index(t.header, "OUTPUT") + 1
			t.header = slices.Insert(t.header, i, "REASONING")
			t.align = slices.Insert(t.align, i, R)
			t.drop = slices.Insert(t.drop, i, 7)
		}
		var ids map[string]string
		if r.By == "session" {
			keys := make([]string, len(r.Usage))
			for i, u := range r.Usage {
				keys[i] = u.Key
			}
			ids = shortIDs(keys)
		}
		for _, u := range r.Usage {
			var row []string
			if r.By == "session" {
				started := ""
				if u.First != nil {
					started = u.First.Format("2006-01-02 15:04")
				}
				row = []string{u.Source + ":" + ids[u.Key], started, u.Project}
			} else {
				row = []string{u.Key}
			}
			row = append(row, render.Int(u.Requests), render.Int(int(u.Tokens.Input)), render.Int(int(u.Tokens.Output)))
			if reasoning {
				row = append(row, render.Int(int(u.Tokens.Reasoning)))
			}
			row = append(row, render.Int(int(u.Tokens.CacheWrite5m+u.Tokens.CacheWrite1h)), render.Int(int(u.Tokens.CacheRead)), render.Int(int(u.Tokens.Total)),
				cost(u.Cost, u.CostPartial))
			if r.By != "model" {
				row = append(row, render.Int(u.ToolCalls), render.Int(int(u.ResultTokens)))
			}
			t.rows = append(t.rows, row)
			// A breakdown's models under their group, in the same columns.
			for _, b := range u.Breakdown {
				mrow := make([]string, len(t.header))
				mrow[0] = "  - " + b.Model
				at := slices.Index(t.header, "REQUESTS")
				cells := []string{render.Int(b.Requests), render.Int(int(b.Tokens.Input)), render.Int(int(b.Tokens.Output))}
				if reasoning {
					cells = append(cells, render.Int(int(b.Tokens.Reasoning)))
				}
				cells = append(cells, render.Int(int(b.Tokens.CacheWrite5m+b.Tokens.CacheWrite1h)), render.Int(int(b.Tokens.CacheRead)),
					render.Int(int(b.Tokens.Total)), cost(b.Cost, b.CostPartial))
				copy(mrow[at:], cells)
				t.sub[len(t.rows)] = true
				t.rows = append(t.rows, mrow)
			}
		}
		if len(r.Usage) > 0 {
			tt := r.Totals
			row := []string{"TOTAL"}
			if r.By == "session" {
				row = append(row, "", "")
			}
			row = append(row, render.Int(tt.Requests), render.Int(int(tt.Tokens.Input)), render.Int(int(tt.Tokens.Output)))
			if reasoning {
				row = append(row, render.Int(int(tt.Tokens.Reasoning)))
			}
			row = append(row, render.Int(int(tt.Tokens.CacheWrite5m+tt.Tokens.CacheWrite1h)), render.Int(int(tt.Tokens.CacheRead)), render.Int(int(tt.Tokens.Total)),
				cost(tt.Cost, tt.CostPartial))
			if r.By != "model" {
				row = append(row, render.Int(tt.ToolCalls), render.Int(int(tt.ResultTokens)))
			}
			t.total = row
		}
	}
	return t
}

// short shortens a session id to its first 8 characters; an older
// sub-agent file's name (agent-<id>) is shown whole.
// shortIDs maps each session key ("claude:ID") to its id cut to the
// shortest prefix, of at least 8 characters, that no other session of its
// source shares; sub-agent ids ("agent-…") stay whole.
func shortIDs(keys []string) map[string]string {
	ids := slices.Clone(keys)
	slices.Sort(ids)
	m := make(map[string]string, len(ids))
	for i, k := range ids {
		src, id, _ := strings.Cut(k, ":")
		if strings.HasPrefix(id, "agent-") {
			m[k] = id
			continue
		}
		n := 8
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(ids) {
				continue
			}
			osrc, other, _ := strings.Cut(ids[j], ":")
			if osrc == src && other != id {
				n = max(n, commonPrefix(id, other)+1)
			}
		}
		if n >= len(id) {
			m[k] = id
			continue
		}
		for n < len(id) && !utf8.RuneStart(id[n]) {
			n++ // never cut a character in two
		}
		m[k] = id[:n]
	}
	return m
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func ms(v *int64) string {
	if v == nil {
		return "-"
	}
	return num.Duration(time.Duration(*v) * time.Millisecond)
}

// cost is a cost cell: "unpriced" when nothing had a price, a * when
// some requests had none.
func cost(c *float64, partial bool) string {
	if c == nil {
		return "unpriced"
	}
	prec := 2
	if *c > 0 && *c < 0.01 {
		prec = 4
	}
	s := "$" + strconv.FormatFloat(*c, 'f', prec, 64)
	if partial {
		s += "*"
	}
	return s
}

// totalCost is the summary's cost, saying when it is partial.
func (t Totals) totalCost() string {
	switch {
	case t.Cost == nil:
		return "unpriced (" + num.Count(t.UnpricedRequests, "request") + " without a price)"
	case t.CostPartial:
		return strings.TrimSuffix(cost(t.Cost, false), "*") + " (partial: " + num.Count(t.UnpricedRequests, "request") + " without a price " + num.Plural(t.UnpricedRequests, "is", "are") + " not in it)"
	}
	return cost(t.Cost, false)
}

func (r *Report) period() string {
	switch {
	case r.Period != "":
		return r.Period
	case r.Since != nil && r.Until != nil:
		return "from " + *r.Since + " to " + *r.Until
	case r.Since != nil:
		return "since " + *r.Since
	case r.Until != nil:
		return "until " + *r.Until
	}
	return "all history"
}

// sourceNames are the transcript sources' names, in the order a header
// lists them.
var sourceNames = []struct{ id, name string }{
	{"claude", "Claude Code"}, {"codex", "Codex"}, {"gemini", "Gemini CLI"}, {"opencode", "opencode"},
	{"copilot", "GitHub Copilot CLI"}, {"goose", "Goose"},
}

// sources names the report's source: the one asked for, else the sources
// that have rows in it ("Claude Code and Codex"), else "all sources".
func (r *Report) sources() string {
	if r.Source != "all" {
		for _, s := range sourceNames {
			if s.id == r.Source {
				return s.name
			}
		}
		return r.Source
	}
	var names []string
	for _, s := range sourceNames {
		if r.read[s.id] {
			names = append(names, s.name)
		}
	}
	if len(names) == 0 {
		return "all sources"
	}
	return num.JoinAnd(names)
}

func (r *Report) summary() []string {
	src := r.sources()
	by := r.By
	if r.StartOfWeek != "" {
		by += " (from " + strings.ToUpper(r.StartOfWeek[:1]) + r.StartOfWeek[1:] + ")"
	}
	if r.Last > 0 {
		by += ", the last " + num.Count(r.Last, r.By)
	}
	head := fmt.Sprintf("Usage by %s, %s (%s), %s", by, r.period(), r.Timezone, src)
	if r.Project != "" {
		head += ", project " + r.Project
	}
	if r.Machine != "" {
		head += ", machine " + r.Machine
	}
	if r.User != "" {
		head += ", user " + r.User
	}
	if r.Store != "" {
		head += ", read from the shared store " + r.Store
	}
	t := r.Totals
	output := render.Int(int(t.Tokens.Output)) + " output"
	if t.Tokens.Reasoning > 0 {
		output += " (" + render.Int(int(t.Tokens.Reasoning)) + " of it reasoning)"
	}
	lines := []string{
		head,
		fmt.Sprintf("%s in %s: %s tokens (%s input, %s, %s cache writes, %s cache reads), cost %s",
			num.Count(t.Requests, "request"), num.Count(t.Sessions, "session"), render.Int(int(t.Tokens.Total)), render.Int(int(t.Tokens.Input)),
			output, render.Int(int(t.Tokens.CacheWrite5m+t.Tokens.CacheWrite1h)), render.Int(int(t.Tokens.CacheRead)),
			t.totalCost()),
		fmt.Sprintf("%s (%s to MCP servers, %s); results %s tokens, of which MCP %s (o200k_base)",
			num.Count(t.ToolCalls, "tool call"), render.Int(t.MCPCalls), num.Count(t.ToolErrors, "error"), render.Int(int(t.ResultTokens)), render.Int(int(t.MCPResultTokens))),
	}
	return lines
}

func (r *Report) notes() []string {
	var n []string
	if r.TokensCapped {
		n = append(n, CappedNote)
	}
	if len(r.Unpriced) > 0 {
		why := "no price in the table"
		if r.Mode == "display" {
			why = "no recorded cost (display mode)"
		}
		n = append(n, fmt.Sprintf("* unpriced models (%s; tokens counted, cost not; a cost marked * is partial): %s", why, nameList(r.Unpriced)))
	}
	p := "prices of " + r.Prices.Updated
	if r.Prices.File != "" {
		p += " from " + r.Prices.File
	}
	switch r.Mode {
	case "auto":
		if k := r.Totals.RecordedRequests; k > 0 {
			p += fmt.Sprintf(" (%s requests at the cost their transcript recorded)", render.Int(k))
		}
	case "calculate":
		p += " (recorded costs ignored)"
	case "display":
		p = "costs as the transcripts recorded them (display mode)"
	}
	if r.By == "server" || r.By == "tool" {
		// The tables with P50 and P95.
		n = append(n, p+"; latency is the run time the transcript records (Codex shell commands), else from a tool call to its result as the agent logged them, including any wait for permission", render.EstimatedNote)
	} else {
		n = append(n, p)
	}
	return n
}

// WriteText prints the report for a terminal, fitted to its width and in
// colour when it has it.
func (r *Report) WriteText(w io.Writer, s render.Screen) error { return r.writeText(w, s, false) }

// WriteCompact prints the report for a narrow terminal: by day, week,
// month, session, model or project, each group's key, input, output,
// total and cost (by server and tool, as WriteText).
func (r *Report) WriteCompact(w io.Writer, s render.Screen) error { return r.writeText(w, s, true) }

func (r *Report) writeText(w io.Writer, s render.Screen, compact bool) error {
	var b strings.Builder
	for i, l := range r.summary() {
		indent := "  "
		if i == 0 {
			indent = ""
		}
		for _, line := range render.Wrap("", textsafe.Text(l), indent, s.Width) {
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("\n")
	t := r.table()
	if len(t.rows) == 0 {
		b.WriteString("Nothing in this period.\n")
	} else {
		tb := render.Table{Header: t.header, Align: t.align, Rows: t.rows, Drop: t.drop, Min: t.min}
		if t.path >= 0 {
			tb.CutLeft = func(row, col int) bool { return col == t.path && !t.sub[row] }
		}
		if compact {
			tb.Compact = t.compact
		}
		if t.total != nil {
			tb.Footer = [][]string{t.total}
		}
		tb.Fit(s)
		tb.Tint = func(_, _ int, cell string) render.Tint {
			if cell == "unpriced" || strings.HasSuffix(cell, "*") {
				return render.Warn
			}
			return render.Plain
		}
		b.WriteString(tb.String())
	}
	b.WriteString("\n")
	for _, n := range r.notes() {
		for _, line := range render.Wrap("", textsafe.Text(n), "  ", s.Width) {
			b.WriteString(line + "\n")
		}
	}
	return s.Emit(w, b.String())
}

// nameList joins names as a note lists them, each cut to
// textsafe.MaxName runes (escaped later, with the note).
func nameList(names []string) string {
	cut := make([]string, len(names))
	for i, s := range names {
		cut[i] = textsafe.Cut(s, textsafe.MaxName)
	}
	return strings.Join(cut, ", ")
}

// WriteMarkdown prints the report as Markdown.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	s := r.summary()
	fmt.Fprintf(&b, "## %s\n\n", textsafe.Markdown(s[0]))
	for _, l := range s[1:] {
		b.WriteString(textsafe.Markdown(l) + "\n\n")
	}
	t := r.table()
	if len(t.rows) == 0 {
		b.WriteString("Nothing in this period.\n")
	} else {
		// A cell is cut as the text's are, though Markdown has no width.
		cell := func(c string) string { return textsafe.Markdown(textsafe.Cut(c, textsafe.MaxName)) }
		b.WriteString("|")
		for _, h := range t.header {
			b.WriteString(" " + cell(h) + " |")
		}
		b.WriteString("\n|")
		for i := range t.header {
			if i < len(t.align) && t.align[i] == render.Right {
				b.WriteString("---:|")
			} else {
				b.WriteString("---|")
			}
		}
		b.WriteString("\n")
		rows := t.rows
		if t.total != nil {
			rows = append(slices.Clip(rows), t.total)
		}
		for _, row := range rows {
			b.WriteString("|")
			for _, c := range row {
				b.WriteString(" " + cell(c) + " |")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	for _, n := range r.notes() {
		b.WriteString("- " + textsafe.Markdown(strings.TrimPrefix(n, "* ")) + "\n")
	}
	_, err := io.WriteString(w, textsafe.Lines(b.String()))
	return err
}
