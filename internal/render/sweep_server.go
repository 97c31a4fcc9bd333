package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/sweep"
)

// serverFacts are a server page's facts, label and value, in order, each
// name in them cut to textsafe.MaxName characters and each value to
// textsafe.MaxProse: what a server sent, or a measurement.json holds, can
// be a megabyte.
func serverFacts(e sweep.Entry) [][2]string {
	facts := rawFacts(e)
	for i := range facts {
		facts[i][1] = sentence(facts[i][1])
	}
	return facts
}

func rawFacts(e sweep.Entry) [][2]string {
	s, f := e.Server, e.File
	facts := [][2]string{{"status", name(e.Status)}}
	if f != nil {
		facts = append(facts, [2]string{"self-reported server", selfReported(e)})
		facts = append(facts, [2]string{"tokenizer", name(f.Provider) + " " + name(f.Encoding) + ", methodology " + name(f.MethodologyVersion)})
	}
	launch := s.CommandLine
	if s.URL != "" {
		launch = s.URL
	}
	if f != nil && f.LaunchCommand != "" {
		launch = f.LaunchCommand
	}
	facts = append(facts, [2]string{"launch", launch})
	if f != nil {
		facts = append(facts, [2]string{"isolation", isolationText(f.Isolation)})
		pkg := f.Package
		if pkg == "" {
			pkg = s.Package
		}
		if pkg != "" {
			v := f.PackageVersion
			if v == "" {
				v = "unknown"
			}
			facts = append(facts, [2]string{"package", name(pkg) + " " + name(v)})
		}
		if len(f.EnvVarNames) > 0 {
			facts = append(facts, [2]string{"env vars (dummy values)", listNames(f.EnvVarNames)})
		}
		if f.CanonicalSha256 != nil {
			facts = append(facts, [2]string{"canonical sha256", name(*f.CanonicalSha256)})
		}
		facts = append(facts, [2]string{"measured at", name(f.MeasuredAt)})
		if f.TimeoutMs > 0 {
			facts = append(facts, [2]string{"timeout", num.Int(f.TimeoutMs) + " ms"})
		}
	} else if s.Package != "" {
		facts = append(facts, [2]string{"package", s.Package})
	}
	if s.Category != "" {
		facts = append(facts, [2]string{"category", s.Category})
	}
	if s.Repo != "" {
		facts = append(facts, [2]string{"source", s.Repo})
	}
	if e.Note != "" {
		facts = append(facts, [2]string{"notes", e.Note})
	}
	return facts
}

// selfReported is the name and version the server sent. A failed
// measurement records the sweep's own name for the server, which it
// never sent: the page says why there is none.
func selfReported(e sweep.Entry) string {
	st := status.Status(e.File.Status)
	switch {
	case st.OK():
		return strings.TrimSpace(name(e.File.ServerName) + " " + name(e.File.ServerVersion))
	case st == status.StartupFailure:
		return "none: the server did not start (" + name(e.File.Status) + ")"
	}
	return "none: the measurement failed (" + name(e.File.Status) + ")"
}

// failedRun says that the server's last run failed, and when: the
// history keeps only measured and dynamic rows, so that without it a
// failure reads as nothing run, or as the last row still standing.
func failedRun(e sweep.Entry) string {
	if e.File == nil || status.Status(e.File.Status).OK() {
		return ""
	}
	day := e.File.MeasuredAt
	if len(day) >= 10 {
		day = day[:10]
	}
	when := "when last run"
	if day != "" {
		when = "on " + name(day)
	}
	return "The measurement failed " + when + " (" + name(e.File.Status) + "); the history keeps measurements only."
}

// serverFiles are the files the sweep publishes for a server, label and
// link from its page in servers/: its measurement.json, where it has
// one, and its badge.
func serverFiles(e sweep.Entry) [][2]string {
	var out [][2]string
	if e.File != nil {
		out = append(out, [2]string{"measurement.json", "../results/" + e.Server.Name + "/measurement.json"})
	}
	return append(out, [2]string{"badge (SVG)", "../badges/" + e.Server.Name + ".svg"}, [2]string{"badge (shields endpoint)", "../badges/" + e.Server.Name + ".json"})
}

func isolationText(i *measure.Isolation) string {
	if i == nil {
		return "not recorded"
	}
	w := name(isolationWord(i))
	if i.Network != "" {
		w += ", network " + name(i.Network)
	}
	if i.Note != "" {
		w += " (" + sentence(i.Note) + ")"
	}
	return w
}

func headline(e sweep.Entry) string {
	if !e.Measured() {
		return e.Server.Name + ": not measured (" + name(e.Status) + ")"
	}
	tools := 0
	if e.File.ToolCount != nil {
		tools = *e.File.ToolCount
	}
	return fmt.Sprintf("%s: %s tokens across %s", e.Server.Name, num.Int(e.Tokens()), num.Count(tools, "tool"))
}

// toolRows are a measured server's tools by tokens, most first.
func toolRows(f *measure.File) []measure.FileTool {
	ts := append([]measure.FileTool(nil), f.Tools...)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Tokens > ts[j].Tokens })
	return ts
}

func share(part, whole int) string {
	if whole <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

// SweepServerHTML is servers/<name>.html: the headline and band, the
// facts, the tools, the figures over time with a sparkline, and the
// Claude figure when it is of this exact capture.
func SweepServerHTML(e sweep.Entry, date string) []byte {
	var b strings.Builder
	PageStart(&b, e.Server.Name+": MCP context cost")
	b.WriteString(`<p><a href="../index.html">All servers</a></p>` + "\n")
	b.WriteString("<h1>" + esc(headline(e)) + "</h1>\n")
	band := bandOf(e)
	b.WriteString(`<p class="sub"><span class="band band-` + band.Color + `">` + esc(band.Label) + "</span> " + esc("o200k_base tokens of its tools/list definitions, as of "+date) + "</p>\n")
	ft := HTMLTable{ID: "facts", Caption: "Facts", Columns: []Column{{Head: "fact"}, {Head: "value"}}}
	for _, f := range serverFacts(e) {
		ft.Rows = append(ft.Rows, []Cell{TextCell(f[0]), TextCell(f[1])})
	}
	WriteTable(&b, ft)
	b.WriteString("<p>Files:")
	for i, l := range serverFiles(e) {
		if i > 0 {
			b.WriteString(" ·")
		}
		b.WriteString(` <a href="` + esc(l[1]) + `">` + esc(l[0]) + "</a>")
	}
	b.WriteString("</p>\n")
	if e.Measured() {
		total := e.Tokens()
		b.WriteString(`<h2 id="tools">Tools</h2>` + "\n")
		b.WriteString(`<p class="muted">Each tool counted alone; the parts do not sum exactly to the whole (tokens merge differently at the joins).</p>` + "\n")
		Treemap(&b, ServerTree(e.Server.Name, e.Status, e.File.TotalTokens, fileTools(e.File)), TreemapOptions{ID: "tm", Title: "Definitions of " + e.Server.Name, Depth: 2, ZoomKinds: []string{"tool"}, HueKind: "tool"})
		tt := HTMLTable{ID: "tools-table", Sortable: true, Columns: []Column{{Head: "tool"}, {Head: "tokens", Num: true}, {Head: "share", Num: true}, {Head: "description", Num: true}, {Head: "inputSchema", Num: true}}}
		for _, t := range toolRows(e.File) {
			tt.Rows = append(tt.Rows, []Cell{TextCell(name(t.Name)), NumCell(int64(t.Tokens)), {Text: share(t.Tokens, total), Sort: float64(t.Tokens)}, NumCell(int64(t.DescriptionTokens)), NumCell(int64(t.InputSchemaTokens))})
		}
		WriteTable(&b, tt)
	}
	b.WriteString(`<h2 id="over-time">Over time</h2>` + "\n")
	if why := failedRun(e); why != "" {
		b.WriteString("<p>" + esc(why) + "</p>\n")
	}
	if len(e.Trend) == 0 {
		b.WriteString("<p>No measurement in the history yet.</p>\n")
	} else {
		if sp := Sparkline(trendValues(e.Trend), e.Server.Name+" tokens over time"); sp != "" {
			b.WriteString("<p>" + sp + "</p>\n")
		}
		ht := HTMLTable{ID: "history", Columns: []Column{{Head: "date"}, {Head: "tokens", Num: true}, {Head: "tools", Num: true}, {Head: "status"}, {Head: "isolation"}}}
		for _, r := range e.Trend {
			iso := r.Isolation
			if iso == "" {
				iso = "not recorded"
			}
			ht.Rows = append(ht.Rows, []Cell{TextCell(r.Date), NumCell(int64(r.Tokens)), NumCell(int64(r.ToolCount)), TextCell(name(r.Status)), TextCell(name(iso))})
		}
		WriteTable(&b, ht)
	}
	if fig := e.Figures(); fig.Claude != nil {
		b.WriteString(`<h2 id="claude">Claude</h2>` + "\n")
		b.WriteString("<p>" + esc(fmt.Sprintf("%s tokens on %s (count_tokens, published for this exact capture).", num.Int(*fig.Claude), fig.ClaudeModel)) + "</p>\n")
	}
	PageEnd(&b)
	return []byte(b.String())
}

// SweepServerMarkdown is servers/<name>.md, the same page in Markdown.
func SweepServerMarkdown(e sweep.Entry, date string) []byte {
	var b strings.Builder
	b.WriteString("# " + md(headline(e)) + "\n\n")
	fmt.Fprintf(&b, "Band: **%s** (o200k_base tokens of its tools/list definitions, as of %s).\n\n", md(bandOf(e).Label), md(date))
	b.WriteString("| fact | value |\n|---|---|\n")
	for _, f := range serverFacts(e) {
		b.WriteString("| " + md(f[0]) + " | " + mdNote(f[1]) + " |\n")
	}
	b.WriteString("\nFiles:")
	for i, l := range serverFiles(e) {
		if i > 0 {
			b.WriteString(" ·")
		}
		b.WriteString(" [" + md(l[0]) + "](" + l[1] + ")")
	}
	b.WriteString("\n")
	if e.Measured() {
		total := e.Tokens()
		b.WriteString("\n## Tools\n\nEach tool counted alone; the parts do not sum exactly to the whole.\n\n| tool | tokens | share | description | inputSchema |\n|---|---:|---:|---:|---:|\n")
		rows := toolRows(e.File)
		for i, t := range rows {
			if i == 30 {
				fmt.Fprintf(&b, "\n%s more in the HTML page and measurement.json.\n", num.Count(len(rows)-30, "tool"))
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", md(name(t.Name)), num.Int(t.Tokens), share(t.Tokens, total), num.Int(t.DescriptionTokens), num.Int(t.InputSchemaTokens))
		}
	}
	b.WriteString("\n## Over time\n\n")
	if why := failedRun(e); why != "" {
		b.WriteString(md(why) + "\n\n")
	}
	if len(e.Trend) == 0 {
		b.WriteString("No measurement in the history yet.\n")
	} else {
		b.WriteString("| date | tokens | tools | status | isolation |\n|---|---:|---:|---|---|\n")
		for _, r := range e.Trend {
			iso := r.Isolation
			if iso == "" {
				iso = "not recorded"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", md(r.Date), num.Int(r.Tokens), num.Int(r.ToolCount), md(name(r.Status)), md(name(iso)))
		}
	}
	if fig := e.Figures(); fig.Claude != nil {
		fmt.Fprintf(&b, "\n## Claude\n\n%s tokens on %s (count_tokens, published for this exact capture).\n", num.Int(*fig.Claude), md(fig.ClaudeModel))
	}
	return []byte(b.String())
}
