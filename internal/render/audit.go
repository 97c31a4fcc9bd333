package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// AuditText writes an audit for a terminal: per client session in the
// project folder (when the configs were discovered) its servers, total,
// verdict, trim, what is not counted and the files it reads; else per
// config file its servers, total and share of the context window, who
// pays, the heaviest tools, a trim suggestion, what was not measured; then
// the gates.
func AuditText(w io.Writer, r *audit.Report, scr Screen) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpcost audit · methodology %s · %s · context window %s\n", textsafe.Text(r.MethodologyVersion), textsafe.Text(r.Encoding), num.Int(r.ContextWindow))
	if len(r.Configs) == 0 {
		b.WriteString("\nNo config with an MCP server was found.\n")
	}
	for _, s := range r.Sessions {
		b.WriteString("\n")
		auditSessionText(&b, r, s, scr)
	}
	exceptionsText(&b, r.Sessions, scr)
	for _, c := range r.Configs {
		if len(r.Sessions) > 0 {
			break // the sessions' files are the breakdown
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "%s  %s%s\n", textsafe.Text(clientLabel(c)), textsafe.Text(c.Path), textsafe.Text(scopeLabel(c)))
		total := auditServersText(&b, r, c, scr)
		b.WriteString("\n")
		auditCostText(&b, r, c, total, prose(scr))
		auditTrimText(&b, c, prose(scr))
		auditUnmeasuredText(&b, c)
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "  note: %s\n", textsafe.Text(sentence(n)))
		}
	}
	if len(r.EmptyConfigs) > 0 {
		b.WriteString("\nconfigs with no server\n")
		for _, e := range r.EmptyConfigs {
			if e.Client == clients.Explicit {
				fmt.Fprintf(&b, "  %s (%s)\n", textsafe.Text(e.Path), clients.ExplicitWords)
			} else {
				fmt.Fprintf(&b, "  %s  %s\n", textsafe.Text(clients.Title(e.Client)), textsafe.Text(e.Path))
			}
			for _, n := range e.Notes {
				wrapHanging(&b, "    note: ", sentence(n), "      ", prose(scr))
			}
		}
	}
	if len(r.Problems) > 0 {
		b.WriteString("\nproblems\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "  %s\n", textsafe.Text(sentence(p.Error)))
		}
	}
	auditGates(&b, r, scr)
	if r.Claude != nil {
		b.WriteString("\n")
		wrap(&b, "claude: "+r.Claude.Note+".", "", prose(scr))
	}
	if r.Launch != nil {
		b.WriteString("\n")
		wrap(&b, "launch: "+r.Launch.Note+".", "", prose(scr))
	}
	b.WriteString("\n")
	wrap(&b, "Tokens: o200k_base counts of each server's canonical tools/list, as sent on the wire; what a model is billed differs by provider and client.", "", prose(scr))
	return scr.Emit(w, b.String())
}

// auditServersText writes a config's table of servers, with its total
// row, and returns the total as the table shows it.
func auditServersText(b *strings.Builder, r *audit.Report, c audit.Config, scr Screen) string {
	t := Table{Header: []string{"server", "transport", "tools", "tokens", "share", "status"}, Align: []Align{Left, Left, Right, Right, Right, Left}, Indent: "  ",
		Min: []int{12}, Drop: []int{0, 1}}
	t.Fit(scr)
	t.Tint = statusTint(len(t.Header) - 1)
	if r.Claude != nil {
		t.Header = []string{"server", "transport", "tools", "tokens", "claude", "share", "status"}
		t.Align = []Align{Left, Left, Right, Right, Right, Right, Left}
	}
	for _, s := range c.Servers {
		tools, tokens, share := auditCells(s, "-")
		status := s.Status
		if s.Cached {
			status += " (cached)"
		}
		if s.Filter != nil && s.UnfilteredToolCount != nil && s.ToolCount != nil && *s.UnfilteredToolCount != *s.ToolCount {
			status += fmt.Sprintf(", %d of %d tools after the client's filter", *s.ToolCount, *s.UnfilteredToolCount)
		}
		if r.Claude != nil {
			cl := "-"
			if s.ClaudeTokens != nil {
				cl = num.Int(*s.ClaudeTokens)
			}
			t.Add(name(s.Name), s.Transport, tools, tokens, cl, share, status)
			continue
		}
		t.Add(name(s.Name), s.Transport, tools, tokens, share, status)
	}
	total := totalCell(c)
	if r.Claude != nil {
		cl := "-"
		if c.ClaudeTokens != nil {
			cl = num.Int(*c.ClaudeTokens)
		}
		t.Add("total", "", num.Int(c.ToolCount), total, cl, "", "")
	} else {
		t.Add("total", "", num.Int(c.ToolCount), total, "", "")
	}
	t.Write(b)
	return total
}

// auditCells are a server's tools, tokens and share as table cells, with
// none where it has no number.
func auditCells(s audit.Server, none string) (tools, tokens, share string) {
	tools, tokens, share = none, none, none
	if s.ToolCount != nil {
		tools = num.Int(*s.ToolCount)
	}
	if s.Tokens != nil {
		tokens = num.Int(*s.Tokens)
	}
	if s.Share != nil {
		share = Percent(*s.Share)
	}
	return tools, tokens, share
}

// auditCostText says what a config's tool definitions cost: of the
// context window, under the client's posture at session start, and as an
// Anthropic request.
func auditCostText(b *strings.Builder, r *audit.Report, c audit.Config, total string, width int) {
	if nothingMeasured(c) {
		wrap(b, fmt.Sprintf("No tool definitions measured: %s; the list below says what each would run.", unmeasuredWords(c)), "  ", width)
		return
	}
	lead := fmt.Sprintf("%s of tool definitions: %s of a %s-token context window.", tokenWords(total), Percent(c.ContextShare), num.Int(r.ContextWindow))
	if c.LowerBound {
		lead += fmt.Sprintf(" A lower bound: not measured, %s.", unmeasuredWords(c))
	}
	wrap(b, lead, "  ", width)
	paragraphs(b, c.PostureText, "  ", width)
	switch {
	case c.UpFrontTokens == nil:
		wrap(b, fmt.Sprintf("What is paid at session start cannot be said under this posture: between %s (tool names and instructions, if deferred) and %s (everything up front).", num.Count(c.SessionStartTokens, "token"), total), "  ", width)
	case *c.UpFrontTokens == c.TotalTokens:
		wrap(b, fmt.Sprintf("A client that defers tool definitions would load only the tool names and instructions at session start: %s.", num.Count(c.SessionStartTokens, "token")), "  ", width)
	default:
		wrap(b, fmt.Sprintf("Paid at session start under this posture: %s (the full definitions of servers loaded up front; tool names and instructions of the deferred ones).", num.Count(*c.UpFrontTokens, "token")), "  ", width)
	}
	if c.RequestShapeTokens > 0 {
		wrap(b, fmt.Sprintf("As an Anthropic request (name, description cut to 2 KB, input_schema; no annotations, output schemas or _meta) the same tools count %s: a different number from the one above.", num.Count(c.RequestShapeTokens, "token")), "  ", width)
	}
}

// auditTrimText lists a config's heaviest tools and what trimming them
// would recover.
func auditTrimText(b *strings.Builder, c audit.Config, width int) {
	if len(c.HeaviestTools) > 0 {
		b.WriteString("\n  heaviest tools\n")
		ht := Table{Align: []Align{Left, Right}, Indent: "    "}
		for _, h := range c.HeaviestTools {
			ht.Add(name(h.Server)+" · "+name(h.Tool), num.Int(h.Tokens))
		}
		ht.Write(b)
	}
	if c.Trim != nil {
		var names []string
		for _, t := range c.Trim.Tools {
			names = append(names, name(t.Server)+" · "+name(t.Tool))
		}
		b.WriteString("\n")
		wrap(b, fmt.Sprintf("trim: if your client supports per-tool filtering, turning off %d %s (%s) would recover %s (%s of this config).",
			len(c.Trim.Tools), num.Plural(len(c.Trim.Tools), "tool", "tools"), strings.Join(names, ", "), num.Count(c.Trim.RecoverableTokens, "token"), Percent(c.Trim.RecoverableShare)), "  ", width)
	}
}

// auditUnmeasuredText lists a config's servers without a number, in the
// groups of missingGroups.
func auditUnmeasuredText(b *strings.Builder, c audit.Config) {
	for _, g := range missingGroups(c) {
		b.WriteString("\n  " + g.head + "\n")
		for _, s := range g.servers {
			fmt.Fprintf(b, "    %s: %s\n", textsafe.Text(name(s.Name)), textsafe.Text(sentence(serverWhy(s))))
			if s.Hint != "" && !status.Status(s.Status).Off() {
				fmt.Fprintf(b, "      hint: %s\n", textsafe.Text(sentence(s.Hint)))
			}
		}
	}
}

func auditGates(b *strings.Builder, r *audit.Report, scr Screen) {
	if g := r.Budget; g != nil {
		b.WriteString("\n")
		of := gateOf(g.Of)
		if g.Pass {
			fmt.Fprintf(b, "%s: every %s is within %s tokens\n", scr.Paint(Good, "budget ok"), of, num.Int(g.Limit))
		} else {
			fmt.Fprintf(b, "%s: limit %s tokens per %s\n", scr.Paint(Bad, "BUDGET FAIL"), num.Int(g.Limit), of)
			for _, c := range g.Configs {
				for _, reason := range c.Reasons {
					fmt.Fprintf(b, "  %s: %s\n", textsafe.Text(c.Path), textsafe.Text(sentence(reason)))
				}
			}
			if !g.AllowUnmeasured {
				for _, c := range g.Configs {
					if len(c.Reasons) > 0 && c.Total <= g.Limit {
						b.WriteString("  (--allow-unmeasured passes on what was measured, when a lower bound is enough)\n")
						break
					}
				}
			}
		}
	}
	if g := r.Threshold; g != nil {
		b.WriteString("\n")
		of := gateOf(g.Of)
		if g.Pass {
			fmt.Fprintf(b, "%s: no tool of a %s is over %s tokens\n", scr.Paint(Good, "threshold ok"), of, num.Int(g.Limit))
		} else {
			fmt.Fprintf(b, "%s: %d %s of the %ss over %s tokens\n", scr.Paint(Bad, "THRESHOLD FAIL"), len(g.Tools), num.Plural(len(g.Tools), "tool", "tools"), of, num.Int(g.Limit))
			for _, t := range g.Tools {
				fmt.Fprintf(b, "  %s · %s  %s\n", textsafe.Text(name(t.Server)), textsafe.Text(name(t.Tool)), num.Int(t.Tokens))
			}
		}
	}
}

// AuditMarkdown writes an audit as Markdown that fits a pull-request
// comment: a summary line per config, then details.
func AuditMarkdown(w io.Writer, r *audit.Report) error {
	var b strings.Builder
	b.WriteString("### MCP context cost\n\n")
	for _, s := range r.Sessions {
		total := num.Int(s.TotalTokens)
		if s.LowerBound {
			total = "≥" + total
		}
		fmt.Fprintf(&b, "- **%s** session in %s: **%s tokens** of tool definitions from %s (%s of a %s-token window)", md(clientLabel(s.Config)), textsafe.Code(s.Path), total,
			num.Count(s.ServerCount, "server"), Percent(s.ContextShare), num.Int(r.ContextWindow))
		if s.UpFrontTokens != nil {
			fmt.Fprintf(&b, "; paid at session start: %s", num.Int(*s.UpFrontTokens))
		}
		b.WriteString("\n")
	}
	for _, c := range r.Configs {
		if len(r.Sessions) > 0 {
			break
		}
		total := num.Int(c.TotalTokens)
		if c.LowerBound {
			total = "≥" + total
		}
		fmt.Fprintf(&b, "- **%s** %s: **%s tokens** of tool definitions in %d %s (%s of a %s-token window)", md(clientLabel(c)), textsafe.Code(c.Path), total,
			c.ServerCount, num.Plural(c.ServerCount, "server", "servers"), Percent(c.ContextShare), num.Int(r.ContextWindow))
		if c.UpFrontTokens != nil {
			fmt.Fprintf(&b, "; paid at session start: %s", num.Int(*c.UpFrontTokens))
		}
		b.WriteString("\n")
	}
	if len(r.Configs) == 0 {
		b.WriteString("No config with an MCP server was found.\n")
	}
	var gates strings.Builder
	auditGates(&gates, r, Screen{})
	if gates.Len() > 0 {
		b.WriteString("\n" + textsafe.CodeBlock(strings.TrimSpace(gates.String())))
	}
	units, session := r.Configs, len(r.Sessions) > 0
	if session {
		units = make([]audit.Config, len(r.Sessions))
		for i, s := range r.Sessions {
			units[i] = s.Config
		}
	}
	for _, c := range units {
		what := ""
		if session {
			what = " session in"
		}
		fmt.Fprintf(&b, "\n<details><summary>%s%s %s</summary>\n\n", md(clientLabel(c)), what, textsafe.Code(c.Path))
		if session {
			b.WriteString("| server | scope | transport | tools | tokens | share | status |\n|---|---|---|--:|--:|--:|---|\n")
		} else {
			b.WriteString("| server | transport | tools | tokens | share | status |\n|---|---|--:|--:|--:|---|\n")
		}
		for _, s := range c.Servers {
			tools, tokens, share := auditCells(s, "–")
			status := s.Status
			if s.Detail != "" && s.Tokens == nil {
				status += ": " + s.Detail
			}
			if session {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", md(name(s.Name)), md(s.Scope), md(s.Transport), tools, tokens, share, md(sentence(status)))
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", md(name(s.Name)), md(s.Transport), tools, tokens, share, md(sentence(status)))
		}
		if len(c.HeaviestTools) > 0 {
			b.WriteString("\nHeaviest tools: ")
			var parts []string
			for _, h := range c.HeaviestTools {
				parts = append(parts, textsafe.Code(name(h.Server)+" · "+name(h.Tool))+" "+num.Int(h.Tokens))
			}
			b.WriteString(strings.Join(parts, ", ") + ".\n")
		}
		switch {
		case session:
			total := totalCell(c)
			b.WriteString("\n" + md(strings.Join(sessionVerdict(r, c, total), " ")) + "\n")
		case len(c.PostureText) > 0:
			b.WriteString("\n" + md(strings.TrimSpace(c.PostureText[0])) + "\n")
		}
		b.WriteString("\n</details>\n")
	}
	if len(r.Problems) > 0 {
		b.WriteString("\n**Problems**\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "- %s\n", md(sentence(p.Error)))
		}
	}
	return write(w, b.String())
}

// prose is the width the audit's paragraphs wrap at: the screen's, as
// the other commands' prose; 80 columns when it is not known.
func prose(scr Screen) int {
	if scr.Width <= 0 {
		return 80
	}
	return scr.Width
}

// statusTint colours a servers table's status column: a server without a
// number stands out.
func statusTint(col int) func(row, c int, cell string) Tint {
	return func(_, c int, cell string) Tint {
		if c != col || cell == "" || strings.HasPrefix(cell, string(status.Measured)) {
			return Plain
		}
		return Warn
	}
}

// gateOf names what a gate judged, in the singular.
func gateOf(of string) string {
	if of == audit.OfSessions {
		return "session"
	}
	return "config"
}

// paragraphs writes lines as wrapped paragraphs; a line that starts with
// two spaces is a list item.
func paragraphs(b *strings.Builder, lines []string, indent string, width int) {
	for _, l := range lines {
		if strings.HasPrefix(l, "  ") {
			wrap(b, "- "+strings.TrimSpace(l), indent+"  ", width)
			continue
		}
		wrap(b, l, indent, width)
	}
}

// clientLabel names a config's client; a file given with --config whose
// client cannot be told is "config".
func clientLabel(c audit.Config) string {
	if c.Client == "explicit" || c.ClientTitle == "" {
		return "config"
	}
	return c.ClientTitle
}

func scopeLabel(c audit.Config) string {
	if c.Scope == "" || c.Scope == c.Client {
		return ""
	}
	return " (" + c.Scope + " scope)"
}

// tokenWords is a total as a count of tokens: "1 token", "≥1,234 tokens".
func tokenWords(total string) string {
	if total == "1" {
		return "1 token"
	}
	return total + " tokens"
}
