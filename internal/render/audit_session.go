package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// auditSessionText writes one client's session in the project folder:
// its servers with the scope each comes from, its total, one verdict
// paragraph, the trim, what is not counted, and the files it is read
// from with what each adds. Each thing is said once.
func auditSessionText(b *strings.Builder, r *audit.Report, s audit.Session, scr Screen) {
	fmt.Fprintf(b, "%s session in %s\n", textsafe.Text(clientLabel(s.Config)), textsafe.Text(s.Path))
	total := auditServersTable(b, r, s.Config, true, scr)
	b.WriteString("\n")
	wrap(b, strings.Join(sessionVerdict(r, s.Config, total), " "), "  ", prose(scr))
	if s.Trim != nil {
		var names []string
		for _, t := range s.Trim.Tools {
			names = append(names, fmt.Sprintf("%s · %s (%s)", t.Server, t.Tool, num.Int(t.Tokens)))
		}
		wrap(b, fmt.Sprintf("Heaviest: %s; turning %s off, where the client filters per tool, would recover %s (%s).",
			num.JoinAnd(names), num.Plural(len(names), "it", "them"), num.Count(s.Trim.RecoverableTokens, "token"), Percent(s.Trim.RecoverableShare)), "  ", prose(scr))
	}
	auditUncountedText(b, s.Config)
	ft := Table{Align: []Align{Left, Left, Left, Right}, Indent: "  ", Min: []int{0, 0, 16}, CutLeft: PathColumns(2)}
	ft.Fit(scr)
	for i, f := range s.Files {
		n := num.Int(f.TotalTokens)
		switch {
		case f.LowerBound && nothingMeasured(s.Config):
			n = "-"
		case f.LowerBound:
			n = "≥" + n
		}
		head := ""
		if i == 0 {
			head = "files"
		}
		ft.Add(head, f.Scope, f.Path, n)
	}
	ft.Write(b)
}

// sessionVerdict says, once, what a session pays at session start and
// why: the posture, where its deciding variable was read, the threshold
// judged on the session's sum, and what Claude receives.
func sessionVerdict(r *audit.Report, c audit.Config, total string) []string {
	if nothingMeasured(c) {
		return []string{fmt.Sprintf("No tool definitions measured: %s; the line of each below says what it would run.", unmeasuredWords(c))}
	}
	out := []string{fmt.Sprintf("%s of tool definitions (%s of a %s-token window).", tokenWords(total), Percent(c.ContextShare), num.Int(r.ContextWindow))}
	if c.LowerBound {
		out = append(out, fmt.Sprintf("A lower bound: not measured, %s.", unmeasuredWords(c)))
	}
	p := c.Posture
	name := clients.Title(p.Client)
	switch p.Mode {
	case clients.ModeNoRecord:
		out = append(out, fmt.Sprintf("No deferral is on record for %s: counted as loaded up front.", name))
	case clients.ModeUnknownClient:
		out = append(out, "The client is not known: counted as loaded up front.")
	case clients.ModeDeferred:
		out = append(out, fmt.Sprintf("%s defers them (tool search; %s).", name, decidedBy(p)))
	case clients.ModeUpFront:
		out = append(out, fmt.Sprintf("%s loads them up front (tool search off; %s).", name, decidedBy(p)))
	case clients.ModeThreshold:
		out = append(out, thresholdWords(p, c.Check))
	default:
		out = append(out, fmt.Sprintf("Whether %s defers them cannot be said: %s.", name, strings.TrimPrefix(p.Summary(), "cannot be said: ")))
	}
	switch {
	case c.UpFrontTokens == nil:
		out = append(out, fmt.Sprintf("Paid at session start: between %s (deferred) and %s (up front).", num.Int(c.SessionStartTokens), total))
	case c.TotalTokens == 0:
		// Nothing measured: neither "all of it" nor a deferred share means
		// anything.
		out = append(out, "Paid at session start: 0 tokens.")
	case *c.UpFrontTokens == c.TotalTokens:
		out = append(out, fmt.Sprintf("Paid at session start: all of it; deferred, it would be %s.", num.Count(c.SessionStartTokens, "token")))
	default:
		out = append(out, fmt.Sprintf("Paid at session start: %s (tool names and instructions%s).", num.Count(*c.UpFrontTokens, "token"), alwaysLoadWords(c)))
	}
	if c.Client == clients.ClaudeCode && c.RequestShapeTokens > 0 {
		out = append(out, fmt.Sprintf("Claude receives them as %s of Anthropic request (name, description cut to 2 KB, input_schema).", num.Count(c.RequestShapeTokens, "token")))
	}
	return out
}

// alwaysLoadWords names the servers loaded in full although the others are
// deferred.
func alwaysLoadWords(c audit.Config) string {
	var names []string
	for _, s := range c.Servers {
		if s.LoadsUpFront != nil && *s.LoadsUpFront {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; " + num.JoinAnd(names) + " in full"
}

// decidedBy names the variable that decided a posture and where it was
// read.
func decidedBy(p clients.Posture) string {
	s := p.Setting
	switch {
	case s == nil || s.Variable == "":
		return "the default"
	case !s.ReadFromMachine:
		return s.Variable + " unset, the default"
	}
	v := s.Variable
	if s.Value != nil {
		v += "=" + *s.Value
	}
	where := s.Source
	for _, src := range p.Sources {
		if src.Decided {
			where = src.Path
			if src.Scope == "shell" {
				where = "the shell"
			}
		}
	}
	if where == "" || where == clients.ShellSource {
		where = "the shell"
	}
	return v + " from " + where
}

// thresholdWords judges a session's sum against the tool-search threshold.
func thresholdWords(p clients.Posture, c *clients.ThresholdCheck) string {
	head := fmt.Sprintf("%s defers them above %d%% of the window (%s)", clients.Title(p.Client), p.ThresholdPercent, decidedBy(p))
	if c == nil {
		return head + "."
	}
	side := fmt.Sprintf("%s–%s", num.Int(c.Low), num.Int(c.High))
	if c.Exact {
		side = num.Int(c.Low)
	}
	lead := fmt.Sprintf("%s: %s; this session's sum is %s on Claude's side.", head, num.Count(c.ThresholdTokens, "token"), side)
	switch {
	case c.Crosses != nil && *c.Crosses:
		return lead + " Over it: deferred."
	case c.Crosses != nil:
		return lead + " Under it: loaded up front."
	case c.Floor:
		return lead + " Which side cannot be said: some servers produced no number."
	}
	return lead + " It straddles the threshold, so which side cannot be said (--claude counts it exactly)."
}

// auditServersTable writes the table of a config's or session's servers
// that the figures count, with a scope column for a session, and its total
// row; it returns the total as shown.
func auditServersTable(b *strings.Builder, r *audit.Report, c audit.Config, session bool, scr Screen) string {
	if !session {
		return auditServersText(b, r, c, scr)
	}
	t := Table{Header: []string{"server", "scope", "transport", "tools", "tokens", "share", "status"}, Align: []Align{Left, Left, Left, Right, Right, Right, Left}, Indent: "  ",
		Min: []int{12}, Drop: []int{0, 1, 2, 0, 0, 3}}
	if r.Claude != nil {
		t.Header = []string{"server", "scope", "transport", "tools", "tokens", "claude", "share", "status"}
		t.Align = []Align{Left, Left, Left, Right, Right, Right, Right, Left}
		t.Drop = []int{0, 1, 2, 0, 0, 0, 3}
	}
	t.Fit(scr)
	t.Tint = statusTint(len(t.Header) - 1)
	for _, s := range c.Servers {
		if !s.Counted {
			continue
		}
		tools, tokens, share := auditCells(s, "-")
		st := s.Status
		if s.Cached {
			st += " (cached)"
		}
		row := []string{name(s.Name), s.Scope, s.Transport, tools, tokens, share, st}
		if r.Claude != nil {
			cl := "-"
			if s.ClaudeTokens != nil {
				cl = num.Int(*s.ClaudeTokens)
			}
			row = []string{name(s.Name), s.Scope, s.Transport, tools, tokens, cl, share, st}
		}
		t.Add(row...)
	}
	total := totalCell(c)
	if r.Claude != nil {
		cl := "-"
		if c.ClaudeTokens != nil {
			cl = num.Int(*c.ClaudeTokens)
		}
		t.Add("total", "", "", num.Int(c.ToolCount), total, cl, "", "")
	} else {
		t.Add("total", "", "", num.Int(c.ToolCount), total, "", "")
	}
	t.Write(b)
	return total
}

// auditUncountedText lists, one line each, a session's servers without a
// number, in the groups of missingGroups, each with its scope.
func auditUncountedText(b *strings.Builder, c audit.Config) {
	for _, g := range missingGroups(c) {
		b.WriteString("  " + g.head + "\n")
		for _, s := range g.servers {
			fmt.Fprintf(b, "    %s (%s): %s\n", textsafe.Text(name(s.Name)), textsafe.Text(s.Scope), textsafe.Text(sentence(serverWhy(s))))
			if s.Hint != "" && !status.Status(s.Status).Off() {
				fmt.Fprintf(b, "      hint: %s\n", textsafe.Text(sentence(s.Hint)))
			}
		}
	}
}

// A missingGroup is one of the lists of servers without a number.
type missingGroup struct {
	head    string
	servers []audit.Server
}

// missingGroups sorts a config's or session's servers without a number
// into what the text lists apart, in this order: counted and not measured
// (a failure, with its hint), counted and not launched by request
// (--no-launch: what each would run), and not counted (disabled,
// overridden, awaiting approval, a problem). Empty groups are left out.
func missingGroups(c audit.Config) []missingGroup {
	groups := []missingGroup{{head: "not measured"}, {head: "not launched, by request"}, {head: "not counted"}}
	for _, s := range c.Servers {
		switch {
		case s.Tokens != nil:
		case !s.Counted:
			groups[2].servers = append(groups[2].servers, s)
		case status.Status(s.Status) == status.NotLaunched:
			groups[1].servers = append(groups[1].servers, s)
		default:
			groups[0].servers = append(groups[0].servers, s)
		}
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.servers) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// exceptionsText says once, for every session whose posture defers, where
// deferral does not apply.
func exceptionsText(b *strings.Builder, sessions []audit.Session, scr Screen) {
	seen := map[string]bool{}
	var list []string
	for _, s := range sessions {
		if s.Posture.Mode != clients.ModeDeferred && s.Posture.Mode != clients.ModeThreshold {
			continue
		}
		for _, e := range s.Posture.Exceptions {
			if !seen[e] {
				seen[e] = true
				list = append(list, e)
			}
		}
	}
	if len(list) == 0 {
		return
	}
	sort.Strings(list)
	b.WriteString("\n")
	wrap(b, "Deferral does not apply to "+strings.Join(list, "; ")+": there the full number is paid.", "", prose(scr))
}

// nothingMeasured is whether a config or session has servers to count and
// a number for none of them: its total is no figure at all.
func nothingMeasured(c audit.Config) bool {
	if !c.LowerBound {
		return false
	}
	for _, s := range c.Servers {
		if s.Counted && s.Tokens != nil {
			return false
		}
	}
	return true
}

// totalCell is a config's total as a cell: its tokens, "≥" before a lower
// bound, "-" where nothing was measured.
func totalCell(c audit.Config) string {
	switch {
	case nothingMeasured(c):
		return "-"
	case c.LowerBound:
		return "≥" + num.Int(c.TotalTokens)
	}
	return num.Int(c.TotalTokens)
}

// unmeasuredWords names, once, the servers that could not be measured and
// why, grouped by status: "fs and mem (not launched: --no-launch)".
func unmeasuredWords(c audit.Config) string {
	var reasons []string
	names := map[string][]string{}
	for _, s := range c.Servers {
		if !s.Counted || s.Tokens != nil {
			continue
		}
		why := s.Status
		switch {
		case strings.HasPrefix(s.Detail, "--no-launch"):
			why = "not launched: --no-launch"
		case status.Status(s.Status) == status.Extension:
			why = "provided by an extension"
		}
		if _, ok := names[why]; !ok {
			reasons = append(reasons, why)
		}
		names[why] = append(names[why], textsafe.Text(name(s.Name)))
	}
	if len(reasons) == 0 {
		return num.JoinAnd(c.Unmeasured)
	}
	parts := make([]string, len(reasons))
	for i, why := range reasons {
		parts[i] = fmt.Sprintf("%s (%s)", num.JoinAnd(names[why]), textsafe.Text(why))
	}
	return strings.Join(parts, "; ")
}

// serverWhy is a server's status and detail on its line. A server left
// unlaunched by --no-launch says only what it would run: the verdict above
// the list names those servers and the reason, once.
func serverWhy(s audit.Server) string {
	if rest, ok := strings.CutPrefix(s.Detail, "--no-launch: "); ok {
		return rest
	}
	if s.Detail == "" {
		return s.Status
	}
	return s.Status + ": " + s.Detail
}
