package render

import (
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/num"
)

// ReportHTML writes the combined report as one self-contained HTML file:
// the headline figures; a treemap of what is paid before typing (config,
// server, tool, part); the findings (a summary table, then each kind's
// findings together, their evidence folded); the window over time (bar
// charts, each with its table); sortable tables of servers, sessions and
// projects. Inline CSS and SVG, one small script that sorts tables (the
// page reads without it), a Content-Security-Policy that loads nothing.
// Every string from configs, servers and transcripts is escaped for HTML
// and SVG alike, after [textsafe.Text] has written control and bidi
// characters visibly. Before that a name (a config's, a server's, a
// tool's, a model's, a project's) is cut as [name] cuts it, and a
// sentence that quotes names (a finding's title, facts and advice, a note,
// a problem) as [sentence] does: a server or a transcript can hold a name
// of a megabyte.
func ReportHTML(w io.Writer, o *findings.Overview) error {
	var b strings.Builder
	PageStart(&b, "mcpcost report")
	b.WriteString("<h1>mcpcost report</h1>\n")
	b.WriteString(`<p class="sub">` + esc(sentence(periodWords(o.Window)+partialWord(o.Partial))) + ". " + esc(windowLine(o.Window)) + ".</p>\n")
	reportHeadline(&b, o)
	for _, n := range o.Notes {
		b.WriteString(`<p class="note"><span class="badge">note</span> ` + esc(sentence(n)) + "</p>\n")
	}
	for _, p := range o.Problems {
		b.WriteString(`<p class="note"><span class="badge">problem</span> ` + esc(sentence(p.Path+": "+p.Error)) + "</p>\n")
	}

	b.WriteString(`<h2 id="before-typing">What is paid before typing</h2>` + "\n")
	if len(o.Configs) == 0 {
		b.WriteString("<p>No MCP config with servers was found for this project.</p>\n")
	} else {
		b.WriteString(`<p class="muted">Each box's area is its definitions' tokens (o200k_base) among its neighbours. Hover for the figures; click a server to see its tools and their parts (description, inputSchema, ...).</p>` + "\n")
		Treemap(&b, ReportTree(o), TreemapOptions{ID: "tm", Title: "Definitions of the servers", Depth: 3, ZoomKinds: []string{"session", "config", "server"}, HueKind: "server"})
		for _, c := range o.Configs {
			b.WriteString(`<p><strong>` + esc(sentence(configHeading(c))) + `:</strong> ` + esc(sentence(beforeTyping(c, o.ContextWindow))) + ". Used: " + esc(sentence(usedWords(c))) + ".</p>\n")
		}
		WriteTable(&b, configServersTable(o))
	}

	reportFindings(&b, o.Findings, o.Counts)
	reportOverTime(&b, o)
	reportTables(&b, o)
	b.WriteString(`<p class="muted foot">Generated ` + esc(o.GeneratedAt.Format("2006-01-02 15:04 UTC")) + " by mcpcost; prices as of " + esc(o.PricesUpdated) +
		". Token counts of definitions and results are o200k_base; USD figures are list-price estimates.</p>\n")
	PageEnd(&b)
	return write(w, b.String())
}

// reportHeadline writes the figures a reader looks for first.
func reportHeadline(b *strings.Builder, o *findings.Overview) {
	var defs int64
	servers, missing := 0, 0
	var carried int64
	var carriedUSD float64
	for _, c := range o.Configs {
		defs += int64(c.TotalTokens)
		for _, s := range c.Servers {
			servers++
			if s.Tokens == nil {
				missing++
			}
			carried += s.CarriedTokens
			carriedUSD += s.CarriedUSD
		}
	}
	card := func(big, what string) {
		b.WriteString(`<li><span class="big">` + esc(big) + `</span><span class="what">` + esc(what) + "</span></li>")
	}
	b.WriteString(`<ul class="headline">`)
	w := "tokens of definitions in " + num.Count(len(o.Configs), topWord(o)) + ", " + num.Count(servers, "server")
	if missing > 0 {
		w += " (" + num.Int(missing) + " not measured)"
	}
	card(num.Int(int(defs)), w)
	card(num.Int(int(carried)), "definition tokens carried on requests, about "+USD(carriedUSD))
	card(num.Int(o.Window.Requests), "requests in "+num.Count(o.Window.Sessions, "session")+", "+USD(o.Window.Cost))
	card(num.Int(o.Window.MCPCalls), "MCP tool calls of "+num.Int(o.Window.ToolCalls))
	card(num.Int(len(o.Findings)), "findings: "+strconv.Itoa(o.Counts.High)+" high, "+strconv.Itoa(o.Counts.Warn)+" warn, "+strconv.Itoa(o.Counts.Info)+" info")
	b.WriteString("</ul>\n")
}

// ReportTree is the treemap's data of a report: a node per config, then
// per server, tool and part. The top level is a plain node, so that any
// grouping (a session, a client) can stand there.
func ReportTree(o *findings.Overview) TreeNode {
	root := TreeNode{Label: "all " + topWord(o) + "s", Kind: "root"}
	for _, c := range o.Configs {
		cn := TreeNode{Label: name(configLabel(c)), Kind: topWord(o), Note: name(c.Path)}
		for _, s := range c.Servers {
			sn := ServerTree(s.Name, s.Status, s.Tokens, s.Tools)
			cn.Children = append(cn.Children, sn)
			cn.Value += sn.Value
		}
		root.Children = append(root.Children, cn)
		root.Value += cn.Value
	}
	return root
}

// ServerTree is one server's node: its tools and their parts. tokens nil
// is a server without a number (status says why). The server's name and
// its tools' and parts' names are as they came: it cuts each as [name]
// does.
func ServerTree(server, status string, tokens *int, tools []findings.ToolSize) TreeNode {
	n := TreeNode{Label: name(server), Kind: "server"}
	if tokens == nil {
		n.Missing = "not measured: " + name(status)
		return n
	}
	n.Value = int64(*tokens)
	var sum int64
	for _, t := range tools {
		tn := TreeNode{Label: name(t.Name), Kind: "tool", Value: int64(t.Tokens)}
		for _, p := range t.Parts {
			tn.Children = append(tn.Children, TreeNode{Label: name(p.Name), Kind: "part", Value: int64(p.Tokens)})
		}
		sum += tn.Value
		n.Children = append(n.Children, tn)
	}
	if len(tools) > 0 && sum != n.Value {
		n.Note = "its tools count " + num.Int(int(sum)) + " tokens each alone: tokens merge differently at the joins between tools"
	}
	return n
}

// topWord names the report's top level: "session" when its configs are
// clients' sessions in the project folder (Scope empty), else "config".
func topWord(o *findings.Overview) string {
	for _, c := range o.Configs {
		if c.Scope != "" {
			return "config"
		}
	}
	if len(o.Configs) == 0 {
		return "config"
	}
	return "session"
}

func configLabel(c findings.ConfigUse) string {
	s := c.ClientTitle
	if s == "" {
		s = c.Client
	}
	if c.Client == clients.Explicit {
		return filepath.Base(c.Path) + " (" + clients.ExplicitWords + ")"
	}
	if c.Scope == "" {
		// A client's session in a folder.
		return s + " session (" + filepath.Base(c.Path) + ")"
	}
	if c.Scope != c.Client {
		s += " " + c.Scope
	}
	return s + " (" + filepath.Base(c.Path) + ")"
}

func configServersTable(o *findings.Overview) HTMLTable {
	t := HTMLTable{ID: "servers", Caption: "Servers of the configs", Sortable: true, Columns: []Column{
		{Head: "server"}, {Head: "config"}, {Head: "status"}, {Head: "tokens", Num: true}, {Head: "tools", Num: true}, {Head: "per request", Num: true},
		{Head: "calls", Num: true}, {Head: "sessions", Num: true}, {Head: "result tokens", Num: true}, {Head: "carried", Num: true}, {Head: "carried $", Num: true}}}
	for _, c := range o.Configs {
		for _, s := range c.Servers {
			row := []Cell{TextCell(name(s.Name)), TextCell(name(configLabel(c))), TextCell(name(s.Status))}
			if s.Tokens != nil {
				row = append(row, NumCell(int64(*s.Tokens)))
			} else {
				row = append(row, Cell{Text: "not measured", Sort: -1})
			}
			tools := Cell{Text: "", Sort: -1}
			if s.ToolCount != nil {
				tools = NumCell(int64(*s.ToolCount))
			}
			if overridden(s) {
				// It never runs: the calls are the winning entry's.
				none := Cell{Text: "", Sort: -1}
				row = append(row, tools, none, none, none, none, none, none)
				t.Rows = append(t.Rows, row)
				continue
			}
			row = append(row, tools, NumCell(int64(s.PerRequestTokens)), NumCell(int64(s.Calls)), NumCell(int64(s.Sessions)), NumCell(s.ResultTokens), NumCell(s.CarriedTokens), USDCell(s.CarriedUSD))
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// findingKinds words each kind of finding, one and many.
var findingKinds = map[string][2]string{
	findings.TypeIdleServer:        {"idle server", "idle servers"},
	findings.TypeOversizedResults:  {"tool with oversized results", "tools with oversized results"},
	findings.TypeRepeatedCalls:     {"repeated call", "repeated calls"},
	findings.TypeSlowTool:          {"slow tool", "slow tools"},
	findings.TypeExpensiveSession:  {"expensive session", "expensive sessions"},
	findings.TypeCacheInefficiency: {"day of cache writes well above reads", "days of cache writes well above reads"},
	findings.TypeHeavyDefinition:   {"heavy definition", "heavy definitions"},
}

func kindWords(typ string, n int) string {
	w, ok := findingKinds[typ]
	if !ok {
		w = [2]string{typ, typ}
	}
	return num.Int(n) + " " + num.Plural(n, w[0], w[1])
}

// reportFindings writes the findings: a summary table, then each kind's
// findings together, each with its evidence folded.
func reportFindings(b *strings.Builder, fs []findings.Finding, c findings.Counts) {
	b.WriteString(`<h2 id="findings">Findings: ` + esc(strconv.Itoa(c.High)+" high, "+strconv.Itoa(c.Warn)+" warn, "+strconv.Itoa(c.Info)+" info") + "</h2>\n")
	if len(fs) == 0 {
		b.WriteString("<p>None: nothing crossed a threshold in this window.</p>\n")
		return
	}
	t := HTMLTable{ID: "findings-summary", Caption: "Findings, highest level and largest saving first", Sortable: true,
		Columns: []Column{{Head: "level"}, {Head: "finding"}, {Head: "kind"}, {Head: "saving (tokens)", Num: true}, {Head: "saving (USD)", Num: true}}}
	for _, f := range fs {
		tok, usd := Cell{Text: "", Sort: -1}, Cell{Text: "", Sort: -1}
		if s := f.EstimatedSaving; s != nil {
			tok = NumCell(s.Tokens)
			if s.USD != nil {
				usd = USDCell(*s.USD)
			}
		}
		lvl := Cell{Text: strings.ToUpper(f.Level), Class: "lvl-" + f.Level, Sort: float64(findings.LevelRank(f.Level))}
		t.Rows = append(t.Rows, []Cell{lvl, {Text: sentence(f.Title), Href: "#" + name(f.ID)}, TextCell(name(f.Type)), tok, usd})
	}
	WriteTable(b, t)
	// Kinds in the order of their first finding (the ranking's).
	var kinds []string
	byKind := map[string][]findings.Finding{}
	for _, f := range fs {
		if _, ok := byKind[f.Type]; !ok {
			kinds = append(kinds, f.Type)
		}
		byKind[f.Type] = append(byKind[f.Type], f)
	}
	for _, k := range kinds {
		group := byKind[k]
		b.WriteString(`<h3 id="kind-` + cssName(name(k)) + `">` + esc(kindWords(name(k), len(group))) + "</h3>\n")
		for _, f := range group {
			b.WriteString(`<details class="finding" id="` + esc(name(f.ID)) + `"><summary><span class="level ` + cssName(f.Level) + `">` + esc(strings.ToUpper(f.Level)) + "</span> " + esc(sentence(f.Title)) + "</summary>\n<ul>")
			for _, fact := range f.Facts {
				b.WriteString("<li>" + esc(sentence(fact)) + "</li>")
			}
			b.WriteString("</ul>\n<p><strong>Do:</strong> " + esc(sentence(f.Recommendation)) + "</p>\n")
			if s := f.EstimatedSaving; s != nil {
				b.WriteString("<p><strong>Saving (estimate):</strong> " + esc(savingWords(s)) + "; " + esc(sentence(s.Assumption)) + "</p>\n")
			}
			b.WriteString(`<p class="muted"><code>` + esc(name(f.ID)) + "</code> · " + esc(name(f.Type)) + " · confidence " + esc(name(f.Confidence)) + ": " + esc(sentence(f.ConfidenceRule)) + " · level: " + esc(sentence(f.LevelRule)) + "</p>\n</details>\n")
		}
	}
}

// reportOverTime writes the window's charts: tokens and cost per day by
// model, requests per day, MCP result tokens per server, and the
// definitions carried (those of never-called servers apart).
func reportOverTime(b *strings.Builder, o *findings.Overview) {
	days := o.Days
	b.WriteString(`<h2 id="over-time">Over time</h2>` + "\n")
	if len(days) == 0 {
		b.WriteString("<p>No requests in this window.</p>\n")
		return
	}
	labels := make([]string, len(days))
	for i, d := range days {
		labels[i] = d.Day
	}
	// Models and servers by their totals, the first 6 by name, the rest
	// as "other".
	models := topKeys(days, func(d findings.DayUse) map[string]float64 {
		m := map[string]float64{}
		for _, x := range d.Models {
			m[displayModelName(x.Model)] += float64(x.Tokens)
		}
		return m
	})
	// Cost by the same models, in the same order and colours.
	costs := make([]Series, len(models))
	for i, sr := range models {
		costs[i] = Series{Name: sr.Name, Values: make([]float64, len(days))}
	}
	for di, d := range days {
		for _, x := range d.Models {
			k := len(costs) - 1 // "other" (or the one series)
			for i, sr := range costs {
				if sr.Name == displayModelName(x.Model) {
					k = i
				}
			}
			costs[k].Values[di] += x.Cost
		}
	}
	servers := topKeys(days, func(d findings.DayUse) map[string]float64 {
		m := map[string]float64{}
		for _, x := range d.Results {
			m[x.Server] += float64(x.Tokens)
		}
		return m
	})
	// A model's or a server's name is cut once the series are summed,
	// so that two names alike in their first runes stay apart.
	for _, ss := range [][]Series{models, costs, servers} {
		for i := range ss {
			ss[i].Name = name(ss[i].Name)
		}
	}
	b.WriteString(`<div class="grid2">` + "\n")
	WriteBarChart(b, BarChart{ID: "chart-tokens", Title: "Tokens per day, by model", Labels: labels, Series: models, Unit: "tokens", Format: compact})
	WriteBarChart(b, BarChart{ID: "chart-cost", Title: "Cost per day, by model (USD, estimated)", Labels: labels, Series: costs, Unit: "USD", Format: USD})
	main, sub := make([]float64, len(days)), make([]float64, len(days))
	carried, idle := make([]float64, len(days)), make([]float64, len(days))
	for i, d := range days {
		main[i], sub[i] = float64(d.MainRequests), float64(d.Requests-d.MainRequests)
		idle[i], carried[i] = float64(d.IdleTokens), float64(d.CarriedTokens-d.IdleTokens)
	}
	WriteBarChart(b, BarChart{ID: "chart-requests", Title: "Requests per day", Labels: labels, Unit: "requests",
		Series: []Series{{Name: "main conversation", Values: main}, {Name: "sub-agents", Values: sub}}})
	WriteBarChart(b, BarChart{ID: "chart-results", Title: "MCP result tokens per day, by server", Labels: labels, Series: servers, Unit: "tokens", Format: compact})
	WriteBarChart(b, BarChart{ID: "chart-idle", Title: "Definitions carried per day: never-called servers (the idle tax) and the rest", Labels: labels, Unit: "tokens", Format: compact,
		Series: []Series{{Name: "never-called servers", Values: idle}, {Name: "servers called", Values: carried}}})
	b.WriteString("</div>\n")
}

// topKeys turns per-day maps into series: the six largest keys by their
// total (ties by name), the rest summed as "other".
func topKeys(days []findings.DayUse, of func(findings.DayUse) map[string]float64) []Series {
	per := make([]map[string]float64, len(days))
	total := map[string]float64{}
	for i, d := range days {
		per[i] = of(d)
		for k, v := range per[i] {
			total[k] += v
		}
	}
	keys := make([]string, 0, len(total))
	for k := range total {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if total[keys[i]] != total[keys[j]] {
			return total[keys[i]] > total[keys[j]]
		}
		return keys[i] < keys[j]
	})
	const most = 6
	var out []Series
	other := Series{Name: "other", Values: make([]float64, len(days))}
	for ki, k := range keys {
		vals := make([]float64, len(days))
		for i := range days {
			vals[i] = per[i][k]
		}
		if ki < most || len(keys) == most+1 {
			out = append(out, Series{Name: k, Values: vals})
			continue
		}
		for i := range vals {
			other.Values[i] += vals[i]
		}
	}
	if len(keys) > most+1 {
		out = append(out, other)
	}
	if len(out) == 0 {
		out = []Series{{Name: "none", Values: make([]float64, len(days))}}
	}
	return out
}

func displayModelName(m string) string {
	if m == "" {
		return "(unknown model)"
	}
	return m
}

// compact writes a token count as 1.2M, 34k or 567.
func compact(v float64) string {
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', 1, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	}
	return num.Int(int(v))
}

// maxSessionRows bounds the sessions table; the JSON has them all.
const maxSessionRows = 200

func reportTables(b *strings.Builder, o *findings.Overview) {
	b.WriteString(`<h2 id="usage">Servers, sessions and projects</h2>` + "\n")
	if len(o.ServersCalled) > 0 {
		t := HTMLTable{ID: "servers-called", Caption: "MCP servers called in the window", Sortable: true, Columns: []Column{
			{Head: "server"}, {Head: "agent"}, {Head: "calls", Num: true}, {Head: "errors", Num: true}, {Head: "sessions", Num: true},
			{Head: "tools", Num: true}, {Head: "result tokens", Num: true}, {Head: "in a config"}}}
		for _, s := range o.ServersCalled {
			t.Rows = append(t.Rows, []Cell{TextCell(name(ServerName(s.Server, s.Plugin))), TextCell(name(agentName(s.Source))), NumCell(int64(s.Calls)), NumCell(int64(s.Errors)), NumCell(int64(s.Sessions)), NumCell(int64(s.Tools)),
				{Text: ResultTokens(s.ResultTokens, s.EstimatedTokens), Sort: float64(s.ResultTokens)}, TextCell(yesNo(s.Configured))})
		}
		WriteTable(b, t)
	}
	if len(o.Sessions) > 0 {
		caption := "Sessions, most expensive first"
		rows := o.Sessions
		if len(rows) > maxSessionRows {
			caption = "The " + num.Int(maxSessionRows) + " most expensive of " + num.Int(len(rows)) + " sessions (the JSON report has them all)"
			rows = rows[:maxSessionRows]
		}
		t := HTMLTable{ID: "sessions", Caption: caption, Sortable: true, Columns: []Column{
			{Head: "session"}, {Head: "agent"}, {Head: "project"}, {Head: "start"}, {Head: "requests", Num: true}, {Head: "tokens", Num: true},
			{Head: "cost", Num: true}, {Head: "MCP calls", Num: true}, {Head: "result tokens", Num: true}}}
		for _, s := range rows {
			t.Rows = append(t.Rows, []Cell{TextCell(shortID(s.Session)), TextCell(name(agentName(s.Source))), TextCell(name(s.Project)), TextCell(name(shortTime(s.Start))), NumCell(int64(s.Requests)), NumCell(s.Tokens), USDCell(s.Cost), NumCell(int64(s.MCPCalls)), NumCell(s.ResultTokens)})
		}
		WriteTable(b, t)
	}
	if len(o.Projects) > 0 {
		t := HTMLTable{ID: "projects", Caption: "Projects, most expensive first", Sortable: true, Columns: []Column{
			{Head: "project"}, {Head: "sessions", Num: true}, {Head: "requests", Num: true}, {Head: "tokens", Num: true},
			{Head: "cost", Num: true}, {Head: "MCP calls", Num: true}, {Head: "result tokens", Num: true}}}
		for _, p := range o.Projects {
			project := name(p.Project)
			if project == "" {
				project = "(no project)"
			}
			t.Rows = append(t.Rows, []Cell{TextCell(project), NumCell(int64(p.Sessions)), NumCell(int64(p.Requests)), NumCell(p.Tokens), USDCell(p.Cost), NumCell(int64(p.MCPCalls)), NumCell(p.ResultTokens)})
		}
		WriteTable(b, t)
	}
}

// shortID keeps the first 8 characters of a session id.
func shortID(s string) string {
	if r := []rune(s); len(r) > 8 {
		return string(r[:8])
	}
	return s
}

// shortTime writes an RFC 3339 time as "2006-01-02 15:04".
func shortTime(s string) string {
	if len(s) >= 16 && s[10] == 'T' {
		return s[:10] + " " + s[11:16]
	}
	return s
}
