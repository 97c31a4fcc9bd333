package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// ReportText writes the combined report for a terminal.
func ReportText(w io.Writer, o *findings.Overview, scr Screen) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpcost report, %s%s\n", textsafe.Text(periodWords(o.Window)), partialWord(o.Partial))
	b.WriteString(windowLine(o.Window) + "\n")
	for _, n := range o.Notes {
		wrapHanging(&b, "note: ", n, "      ", scr.Width)
	}
	for _, p := range o.Problems {
		wrapHanging(&b, "problem: ", p.Path+": "+p.Error, "         ", scr.Width)
	}
	if len(o.Configs) == 0 && !slices.Contains(o.Notes, findings.NoConfigNote) && !slices.Contains(o.Notes, findings.NoStaticNote) {
		// Said once: a note above says it already, with what to do.
		b.WriteString("\nNo MCP config with servers was found for this project.\n")
	}
	for _, c := range o.Configs {
		b.WriteString("\n" + textsafe.Text(configHeading(c)) + "\n")
		b.WriteString("  before typing: " + textsafe.Text(beforeTyping(c, o.ContextWindow)) + "\n")
		b.WriteString("  used: " + textsafe.Text(usedWords(c)) + "\n")
		t := &Table{
			Header: []string{"SERVER", "TOKENS", "TOOLS", "PER REQUEST", "CALLS", "SESSIONS", "RESULT TOKENS", "CARRIED", "CARRIED $"},
			Align:  []Align{Left, Right, Right, Right, Right, Right, Right, Right, Right},
			Indent: "  ",
			Min:    []int{12},
			Drop:   []int{0, 0, 0, 2, 0, 3, 4, 1, 0},
		}
		t.Fit(scr)
		for _, s := range c.Servers {
			t.Add(serverCells(c, s)...)
		}
		if err := writeTable(&b, t); err != nil {
			return err
		}
	}
	if len(o.ServersCalled) > 0 {
		b.WriteString("\nMCP servers called in the window\n")
		t := &Table{Header: []string{"SERVER", "AGENT", "CALLS", "ERRORS", "SESSIONS", "TOOLS", "RESULT TOKENS", "IN A CONFIG"},
			Align: []Align{Left, Left, Right, Right, Right, Right, Right, Left}, Indent: "  ",
			Min: []int{12}, Drop: []int{0, 1, 0, 0, 2, 3, 0, 0}}
		t.Fit(scr)
		for _, s := range o.ServersCalled {
			t.Add(ServerName(s.Server, s.Plugin), agentName(s.Source), num.Int(s.Calls), num.Int(s.Errors), num.Int(s.Sessions), num.Int(s.Tools), ResultTokens(s.ResultTokens, s.EstimatedTokens), yesNo(s.Configured))
		}
		if err := writeTable(&b, t); err != nil {
			return err
		}
		if estimated(o.ServersCalled) {
			for _, l := range Wrap("  ", EstimatedNote, "    ", scr.Width) {
				b.WriteString(l + "\n")
			}
		}
	}
	fmt.Fprintf(&b, "\nFindings: %d high, %d warn, %d info\n", o.Counts.High, o.Counts.Warn, o.Counts.Info)
	if len(o.Findings) == 0 {
		b.WriteString("  none: nothing crossed a threshold in this window\n")
	}
	for _, f := range o.Findings {
		level := strings.ToUpper(f.Level)
		head := "  " + scr.Paint(LevelTint(level), level) + strings.Repeat(" ", max(0, 4-len(level))) + "  " + textsafe.Text(f.ID) + "  "
		for _, l := range Wrap(head, textsafe.Text(f.Title), "        ", scr.Width) {
			b.WriteString(l + "\n")
		}
		wrapHanging(&b, "        do: ", f.Recommendation, "            ", scr.Width)
		if s := f.EstimatedSaving; s != nil {
			wrapHanging(&b, "        saving (estimate): ", savingWords(s), "            ", scr.Width)
		}
	}
	if len(o.Findings) > 0 {
		b.WriteString("\n")
		for _, l := range Wrap("", "'mcpcost findings --verbose' shows the evidence, confidence and assumptions of each.", "", scr.Width) {
			b.WriteString(l + "\n")
		}
	}
	return scr.Emit(w, b.String())
}

func writeTable(b *strings.Builder, t *Table) error {
	var sb strings.Builder
	if err := t.Write(&sb); err != nil {
		return err
	}
	b.WriteString(sb.String())
	return nil
}

func configHeading(c findings.ConfigUse) string {
	if c.Client == clients.Explicit {
		return c.Path + " (" + clients.ExplicitWords + ")"
	}
	s := c.ClientTitle
	if s == "" {
		s = c.Client
	}
	if c.Scope == "" {
		// A session: the client's servers in its project folder.
		return s + " session in " + c.Path
	}
	s += "  " + c.Path
	if c.Scope != c.Client {
		s += " (" + c.Scope + " scope)"
	}
	return s
}

// beforeTyping says what a config's client pays before anything is
// typed: the tokens, of its definitions, and why, in its PostureWords.
func beforeTyping(c findings.ConfigUse, window int) string {
	total := num.Count(c.TotalTokens, "token") + " of definitions"
	if c.LowerBound {
		total = "at least " + total + " (some servers not measured)"
	}
	if c.UpFrontTokens == nil {
		return "up to " + total + ": " + c.PostureWords()
	}
	s := num.Count(*c.UpFrontTokens, "token")
	if window > 0 {
		s += " (" + Percent(float64(*c.UpFrontTokens)/float64(window)) + " of a " + num.Int(window) + "-token window)"
	}
	return s + " of " + total + ": " + c.PostureWords()
}

func usedWords(c findings.ConfigUse) string {
	if c.Source == "" {
		return c.AppliesTo
	}
	s := fmt.Sprintf("%s, %s (%s)", num.Count(c.Sessions, "session"), num.Count(c.Requests, "main-conversation request"), c.AppliesTo)
	if c.Requests > 0 {
		s += fmt.Sprintf("; %s of their input read from the cache", Percent(c.CacheReadShare))
	}
	return s
}

func serverCells(c findings.ConfigUse, s findings.ServerUse) []string {
	tokens, tools, per := s.Status, "", ""
	if s.Tokens != nil {
		tokens = num.Int(*s.Tokens)
		per = num.Int(s.PerRequestTokens)
	}
	if s.ToolCount != nil {
		tools = num.Int(*s.ToolCount)
	}
	if c.Source == "" || overridden(s) {
		// An overridden entry never runs: its name's calls are the
		// winning entry's, on that entry's row.
		return []string{s.Name, tokens, tools, per, "", "", "", "", ""}
	}
	carried, usd := "", ""
	if s.Tokens != nil {
		carried, usd = num.Int(int(s.CarriedTokens)), USD(s.CarriedUSD)
	}
	return []string{s.Name, tokens, tools, per, num.Int(s.Calls), num.Int(s.Sessions), num.Int(int(s.ResultTokens)), carried, usd}
}

func overridden(s findings.ServerUse) bool { return status.Status(s.Status) == status.Overridden }

func agentName(source string) string {
	switch source {
	case "claude":
		return "Claude Code"
	case "codex":
		return "Codex"
	case "copilot":
		return "GitHub Copilot CLI"
	case "goose":
		return "Goose"
	case "gemini":
		return "Gemini CLI"
	case "opencode":
		return "opencode"
	}
	return source
}

// estimated reports whether any server's results have estimated tokens.
func estimated(calls []findings.ServerCalls) bool {
	for _, s := range calls {
		if s.EstimatedTokens > 0 {
			return true
		}
	}
	return false
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// ReportMarkdown writes the combined report as Markdown.
func ReportMarkdown(w io.Writer, o *findings.Overview) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## mcpcost report, %s%s\n\n", md(periodWords(o.Window)), partialWord(o.Partial))
	b.WriteString(md(windowLine(o.Window)) + "\n\n")
	for _, n := range o.Notes {
		b.WriteString("> " + md(n) + "\n\n")
	}
	for _, p := range o.Problems {
		b.WriteString("> problem: " + md(p.Path+": "+p.Error) + "\n\n")
	}
	for _, c := range o.Configs {
		b.WriteString("### " + md(configHeading(c)) + "\n\n")
		b.WriteString("- **Before typing:** " + md(beforeTyping(c, o.ContextWindow)) + "\n")
		b.WriteString("- **Used:** " + md(usedWords(c)) + "\n\n")
		b.WriteString("| SERVER | TOKENS | TOOLS | PER REQUEST | CALLS | SESSIONS | RESULT TOKENS | CARRIED | CARRIED $ |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, s := range c.Servers {
			cells := serverCells(c, s)
			for i := range cells {
				cells[i] = md(cells[i])
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
		b.WriteString("\n")
	}
	if len(o.ServersCalled) > 0 {
		b.WriteString("### MCP servers called in the window\n\n| SERVER | AGENT | CALLS | ERRORS | SESSIONS | TOOLS | RESULT TOKENS | IN A CONFIG |\n|---|---|--:|--:|--:|--:|--:|---|\n")
		for _, s := range o.ServersCalled {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", md(ServerName(s.Server, s.Plugin)), md(agentName(s.Source)), num.Int(s.Calls), num.Int(s.Errors), num.Int(s.Sessions), num.Int(s.Tools), ResultTokens(s.ResultTokens, s.EstimatedTokens), yesNo(s.Configured))
		}
		b.WriteString("\n")
		if estimated(o.ServersCalled) {
			b.WriteString(md(sentence(EstimatedNote)) + ".\n\n")
		}
	}
	fmt.Fprintf(&b, "### Findings: %d high, %d warn, %d info\n\n", o.Counts.High, o.Counts.Warn, o.Counts.Info)
	writeFindingsMarkdown(&b, o.Findings, "####")
	return write(w, b.String())
}
