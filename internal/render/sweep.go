package render

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/badge"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/sweep"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// LeaderboardColumns are leaderboard.csv's columns: mcp-context-cost's, in
// its order, then mcpcost's.
var LeaderboardColumns = []string{
	"name", "tokens", "toolCount", "status", "category", "metric", "metricSource", "claudeTokens", "claudeModel",
	"sessionStartTokens", "sessionStartIsFloor", "toolNameTokens", "instructionsTokens",
	// mcpcost's
	"package", "packageVersion", "serverName", "serverVersion", "canonicalSha256", "measuredAt", "isolation", "timeoutMs", "launchCommand", "notes",
}

func intCell(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

// npmName is a scoped npm package name, which starts with '@' and is
// no formula: no parenthesis, operator or '|' can follow.
var npmName = regexp.MustCompile(`^@[a-z0-9._~-]+/[a-z0-9._~-]+$`)

// negative is a plain negative number, which a spreadsheet reads as the
// number it is.
var negative = regexp.MustCompile(`^-[0-9]+(\.[0-9]+)?$`)

// csvCell keeps a spreadsheet from reading a stranger's text as a formula,
// as OWASP advises: text that starts with = + - @ (or a tab or a carriage
// return, which textsafe.Text escapes first) gets a leading quote, but a
// plain negative number or a scoped npm package name does not. It bounds
// the text as a sentence (see csvName for a name).
func csvCell(s string) string {
	s = textsafe.Text(sentence(s))
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) && !npmName.MatchString(s) && !negative.MatchString(s) {
		return "'" + s
	}
	return s
}

// csvName is csvCell of a name, bounded as a name.
func csvName(s string) string { return csvCell(name(s)) }

// LeaderboardCSV is leaderboard.csv: one row per entry, in the file's
// order, empty cells where a value is unknown.
func LeaderboardCSV(entries []sweep.Entry) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(LeaderboardColumns)
	for _, e := range entries {
		f := e.File
		fig := e.Figures()
		row := make([]string, 0, len(LeaderboardColumns))
		var tokens, tools string
		if e.Measured() {
			tokens, tools = strconv.Itoa(e.Tokens()), intCell(f.ToolCount)
		}
		floor := ""
		if fig.SessionStart != nil {
			floor = strconv.FormatBool(fig.Floor)
		}
		row = append(row, e.Server.Name, tokens, tools, csvName(e.Status), csvCell(e.Server.Category), csvCell(e.Server.Metric), csvCell(e.Server.MetricSource),
			intCell(fig.Claude), csvCell(fig.ClaudeModel), intCell(fig.SessionStart), floor, intCell(fig.NameTokens), intCell(fig.Instructions))
		if f == nil {
			row = append(row, csvCell(e.Server.Package), "", "", "", "", "", "", "", csvCell(e.Server.CommandLine), csvCell(e.Note))
		} else {
			sha, iso, timeout := "", "", ""
			if f.CanonicalSha256 != nil {
				sha = *f.CanonicalSha256
			}
			iso = isolationWord(f.Isolation)
			if f.TimeoutMs > 0 {
				timeout = strconv.Itoa(f.TimeoutMs)
			}
			pkg := f.Package
			if pkg == "" {
				pkg = e.Server.Package
			}
			row = append(row, csvName(pkg), csvName(f.PackageVersion), csvName(f.ServerName), csvName(f.ServerVersion), csvName(sha), csvName(f.MeasuredAt), csvName(iso), timeout, csvCell(f.LaunchCommand), csvCell(clipRunes(f.Notes, 700)))
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}

func isolationWord(i *measure.Isolation) string {
	switch {
	case i == nil:
		return ""
	case i.Mode != "" && i.Image != "":
		return i.Mode + ":" + i.Image
	case i.Mode != "":
		return i.Mode
	case i.Docker && i.Image != "":
		return "docker:" + i.Image
	case i.Docker:
		return "docker"
	}
	return sweep.IsolationHost
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// mdNote is a note in a Markdown table: one line, escaped, cut to 160
// characters.
func mdNote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return md(clipRunes(s, 160))
}

func dash(p *int) string {
	if p == nil {
		return "—"
	}
	return num.Int(*p)
}

func sessionWord(f sweep.Figures) string {
	if f.SessionStart == nil {
		return "—"
	}
	if f.Floor {
		return "≥" + num.Int(*f.SessionStart)
	}
	return num.Int(*f.SessionStart)
}

func largestTool(f *measure.File) (string, int) {
	name, top := "", -1
	for _, t := range f.Tools {
		if t.Tokens > top {
			name, top = t.Name, t.Tokens
		}
	}
	return name, top
}

// LeaderboardMarkdown is leaderboard.md: the measured servers by tokens,
// with their session-start and Claude figures, then those not measured
// and why.
func LeaderboardMarkdown(entries []sweep.Entry, date string) []byte {
	measured, not := sweep.Ranked(entries)
	var b strings.Builder
	b.WriteString("# MCP server context cost\n\n")
	fmt.Fprintf(&b, "Tokens = o200k_base count of the canonical tools/list bytes (methodology %s). Measured %d/%d candidates; swept %s.\n\n", measure.MethodologyVersion, len(measured), len(entries), md(date))
	b.WriteString("Session start = what a client that defers tool definitions loads up front: the tool names and the server's instructions (≥ where the instructions were never captured). Claude = the published count_tokens figure of this exact capture, where there is one.\n\n")
	b.WriteString("| # | server | tokens | session start | claude | tools | largest tool | status | category |\n|---:|---|---:|---:|---:|---:|---|---|---|\n")
	for i, e := range measured {
		fig := e.Figures()
		lt := "—"
		if n, t := largestTool(e.File); t >= 0 {
			lt = md(name(n)) + " (" + num.Int(t) + ")"
		}
		fmt.Fprintf(&b, "| %d | [%s](servers/%s.md) | %s | %s | %s | %s | %s | %s | %s |\n", i+1, md(e.Server.Name), e.Server.Name, num.Int(e.Tokens()), sessionWord(fig), dash(fig.Claude), dash(e.File.ToolCount), lt, md(name(e.Status)), md(name(e.Server.Category)))
	}
	if len(measured) == 0 {
		b.WriteString("\nNo server was measured.\n")
	}
	b.WriteString("\n## Not measured (and why)\n\n")
	if len(not) == 0 {
		b.WriteString("Every server was measured.\n")
	} else {
		b.WriteString("| server | status | note |\n|---|---|---|\n")
		for _, e := range not {
			fmt.Fprintf(&b, "| [%s](servers/%s.md) | %s | %s |\n", md(e.Server.Name), e.Server.Name, md(name(e.Status)), mdNote(e.Note))
		}
	}
	return []byte(b.String())
}

// Sparkline is a small line of values, oldest first, as inline SVG with
// its figures in a tooltip; "" for fewer than two values.
func Sparkline(values []int, label string) string {
	if len(values) < 2 {
		return ""
	}
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	const w, h, pad = 96.0, 20.0, 2.0
	var pts []string
	var lastX, lastY float64
	for i, v := range values {
		x := pad + (w-2*pad)*float64(i)/float64(len(values)-1)
		y := h / 2
		if hi > lo {
			y = pad + (h-2*pad)*(1-float64(v-lo)/float64(hi-lo))
		}
		pts = append(pts, f2(x)+","+f2(y))
		lastX, lastY = x, y
	}
	words := make([]string, len(values))
	for i, v := range values {
		words[i] = num.Int(v)
	}
	title := label + ": " + strings.Join(words, " → ")
	return fmt.Sprintf(`<svg class="spark" viewBox="0 0 %g %g" preserveAspectRatio="none" role="img" aria-label="%s"><title>%s</title><polyline points="%s"/><circle cx="%s" cy="%s" r="1.8"/></svg>`,
		w, h, esc(title), esc(title), strings.Join(pts, " "), f2(lastX), f2(lastY))
}

func trendValues(rows []sweep.HistoryRow) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.Tokens
	}
	return out
}

func bandOf(e sweep.Entry) badge.Band {
	if !e.Measured() {
		return badge.Unknown
	}
	return badge.BandFor(e.Tokens())
}

// SweepIndexHTML is the sweep's dashboard: the servers in a sortable
// table with their trend, the distribution of costs by band, and a
// treemap of every measured server's tools.
func SweepIndexHTML(entries []sweep.Entry, date string) []byte {
	measured, not := sweep.Ranked(entries)
	var b strings.Builder
	PageStart(&b, "MCP server context cost")
	b.WriteString("<h1>MCP server context cost</h1>\n")
	b.WriteString(`<p class="sub">` + esc(fmt.Sprintf("o200k_base tokens of each server's tools/list definitions (methodology %s); %d of %d servers measured; swept %s.", measure.MethodologyVersion, len(measured), len(entries), date)) + "</p>\n")
	var total int
	for _, e := range measured {
		total += e.Tokens()
	}
	b.WriteString(`<ul class="headline">`)
	card := func(big, what string) {
		b.WriteString(`<li><span class="big">` + esc(big) + `</span><span class="what">` + esc(what) + "</span></li>")
	}
	card(num.Int(len(measured)), "servers measured of "+num.Int(len(entries)))
	if len(measured) > 0 {
		// The median by nearest rank, as mcp-context-cost's figures are
		// (its p90 of 11,836 over 69 servers is the 63rd value, not an
		// interpolation): of an even count, the lower of the two middle.
		what := "median tokens"
		if len(measured)%2 == 0 {
			what = "median tokens (the lower middle of " + num.Int(len(measured)) + ", by nearest rank)"
		}
		card(num.Int(measured[len(measured)/2].Tokens()), what)
		card(num.Int(measured[0].Tokens()), "most tokens: "+measured[0].Server.Name)
	}
	card(num.Int(len(not)), "not measured")
	b.WriteString("</ul>\n")

	b.WriteString(`<h2 id="servers">Servers</h2>` + "\n")
	t := HTMLTable{ID: "servers-table", Caption: "Measured servers by tokens (click a heading to sort)", Sortable: true,
		Columns: []Column{{Head: "server"}, {Head: "tokens", Num: true}, {Head: "session start", Num: true}, {Head: "claude", Num: true}, {Head: "tools", Num: true}, {Head: "band"}, {Head: "category"}, {Head: "trend"}}}
	for _, e := range measured {
		fig := e.Figures()
		num1 := func(p *int, word string) Cell {
			if p == nil {
				return Cell{Text: "—", Sort: -1}
			}
			return Cell{Text: word, Sort: float64(*p)}
		}
		tools := 0
		if e.File.ToolCount != nil {
			tools = *e.File.ToolCount
		}
		t.Rows = append(t.Rows, []Cell{
			{Text: e.Server.Name, Href: "servers/" + e.Server.Name + ".html"},
			NumCell(int64(e.Tokens())),
			num1(fig.SessionStart, sessionWord(fig)),
			num1(fig.Claude, dash(fig.Claude)),
			NumCell(int64(tools)),
			TextCell(bandOf(e).Label),
			TextCell(name(e.Server.Category)),
			{Raw: Sparkline(trendValues(e.Trend), e.Server.Name+" tokens over time")},
		})
	}
	WriteTable(&b, t)

	b.WriteString(`<h2 id="distribution">The distribution of costs</h2>` + "\n")
	labels := make([]string, len(badge.Bands))
	counts := make([]float64, len(badge.Bands))
	for i, band := range badge.Bands {
		labels[i] = band.Label
	}
	for _, e := range measured {
		band := badge.BandFor(e.Tokens())
		for i := range badge.Bands {
			if badge.Bands[i].Color == band.Color {
				counts[i]++
			}
		}
	}
	WriteBarChart(&b, BarChart{ID: "bands", Title: "Servers by band of tokens (<1,000 lean, <5,000 light, <15,000 moderate, <30,000 heavy, more very heavy)", Labels: labels, Series: []Series{{Name: "servers", Values: counts}}, Unit: "servers", LabelHead: "band"})
	if len(measured) > 0 {
		b.WriteString(`<p class="muted">Each box's area is a server's tokens; click one to see its tools.</p>` + "\n")
		root := TreeNode{Label: "all servers", Kind: "root"}
		for _, e := range measured {
			n := ServerTree(e.Server.Name, e.Status, e.File.TotalTokens, fileTools(e.File))
			root.Children = append(root.Children, n)
			root.Value += n.Value
		}
		Treemap(&b, root, TreemapOptions{ID: "tm", Title: "Definitions of the measured servers", Depth: 2, ZoomKinds: []string{"server"}, HueKind: "server"})
	}

	b.WriteString(`<h2 id="not-measured">Not measured (and why)</h2>` + "\n")
	if len(not) == 0 {
		b.WriteString("<p>Every server was measured.</p>\n")
	} else {
		nt := HTMLTable{ID: "not-measured-table", Columns: []Column{{Head: "server"}, {Head: "status"}, {Head: "note"}}, Sortable: true}
		for _, e := range not {
			nt.Rows = append(nt.Rows, []Cell{{Text: e.Server.Name, Href: "servers/" + e.Server.Name + ".html"}, TextCell(name(e.Status)), TextCell(clipRunes(e.Note, 300))})
		}
		WriteTable(&b, nt)
	}
	b.WriteString(`<p class="muted foot">Generated by mcpcost. Anyone can check a number: <code>mcpcost verify results/NAME/measurement.json</code>.</p>` + "\n")
	PageEnd(&b)
	return []byte(b.String())
}

func fileTools(f *measure.File) []findings.ToolSize {
	out := make([]findings.ToolSize, 0, len(f.Tools))
	for _, t := range f.Tools {
		out = append(out, findings.ToolSize{Name: t.Name, Tokens: t.Tokens, Parts: t.Parts})
	}
	return out
}
