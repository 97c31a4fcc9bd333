package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/diff"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// DiffText writes a diff for a terminal or a CI log: per config the totals
// and their share of the context window, a table of servers, tools and
// parts that changed, the verdict, then what could not be established, the
// warnings, and the gate when there is one.
func DiffText(w io.Writer, d *diff.Diff, scr Screen) error {
	var b strings.Builder
	fmt.Fprintf(&b, "diff: %s (%s) → %s (%s)\n", textsafe.Text(d.Base.File), textsafe.Text(docWhen(d.Base)), textsafe.Text(d.Current.File), textsafe.Text(docWhen(d.Current)))
	fmt.Fprintf(&b, "  methodology %s, %s; compared per %s; context window %s tokens\n", textsafe.Text(orDash(d.Current.MethodologyVersion)), textsafe.Text(orDash(d.Current.Encoding)), d.Detail, num.Int(d.ContextWindow))
	for i := range d.ConfigDiffs {
		c := &d.ConfigDiffs[i]
		b.WriteString("\n")
		b.WriteString(textsafe.Text(configTitle(c)) + "\n")
		if line := totalsLine(c, d.ContextWindow); line != "" {
			b.WriteString("  " + textsafe.Text(line) + "\n")
		}
		if len(c.Servers) > 0 {
			t := Table{Header: []string{"server / tool / part", "change", "before", "after", "delta"}, Align: []Align{Left, Left, Right, Right, Right}, Indent: "  ",
				Min: []int{16}, Drop: []int{0, 1, 0, 0, 0}}
			t.Fit(scr)
			t.Tint = func(_, col int, cell string) Tint {
				if col == 4 {
					return deltaTint(cell)
				}
				return Plain
			}
			shown := 0
			for _, s := range c.Servers {
				if s.Change == diff.Unchanged {
					continue
				}
				shown++
				t.Add(name(s.Name), s.Change, tokensOr(s.Before, s.StatusBefore), tokensOr(s.After, s.StatusAfter), signedOr(s.Delta))
				for _, td := range s.Tools {
					t.Add("  "+name(td.Label()), td.Change, optInt(td.Before), optInt(td.After), Signed(td.Delta))
					for _, p := range td.Parts {
						t.Add("    "+name(p.Name), p.Change, optInt(p.Before), optInt(p.After), Signed(p.Delta))
					}
				}
			}
			if shown > 0 {
				t.Write(&b)
			}
			if c.Unchanged > 0 {
				fmt.Fprintf(&b, "  (%d %s unchanged)\n", c.Unchanged, num.Plural(c.Unchanged, "server", "servers"))
			}
			for _, s := range c.Servers {
				if s.Note != "" {
					fmt.Fprintf(&b, "  note: %s: %s\n", textsafe.Text(s.Name), textsafe.Text(s.Note))
				}
				if s.BaseName != "" {
					fmt.Fprintf(&b, "  note: %s was %s in the baseline\n", textsafe.Text(s.Name), textsafe.Text(s.BaseName))
				}
			}
		}
		wrap(&b, verdict(c, compared(d), d.ContextWindow), "  ", scr.Width)
	}
	if len(d.Issues) > 0 && d.Gate == nil {
		fmt.Fprintf(&b, "\nnot established (%d):\n", len(d.Issues))
		for _, is := range d.Issues {
			fmt.Fprintf(&b, "  %s\n", textsafe.Text(is.String()))
		}
	}
	if len(d.Warnings) > 0 {
		b.WriteString("\nwarnings:\n")
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "  %s\n", textsafe.Text(w))
		}
	}
	if d.Gate != nil {
		b.WriteString("\n")
		gateText(&b, d.Gate, compared(d), scr)
	}
	return scr.Emit(w, b.String())
}

// deltaTint colours a signed delta: an increase is a cost, a decrease a
// saving.
func deltaTint(cell string) Tint {
	switch {
	case strings.HasPrefix(cell, "+"):
		return Bad
	case strings.HasPrefix(cell, "-") && cell != "-":
		return Good
	}
	return Plain
}

// GateText writes the gate's verdict: one line when it passes, the line
// and every reason when it fails.
func GateText(b *strings.Builder, g *diff.Gate, scr Screen) { gateText(b, g, "config", scr) }

// gateText is [GateText] of a gate on what compared names: "config",
// "session" or "server".
func gateText(b *strings.Builder, g *diff.Gate, what string, scr Screen) {
	if g.Pass {
		fmt.Fprintf(b, "increase gate: %s: %s, within the %s allowed\n", scr.Paint(Good, "pass"), increaseWords(g.Increase, what), num.Int(g.MaxIncrease))
		return
	}
	fmt.Fprintf(b, "increase gate: %s (max increase %s per request): %d %s\n", scr.Paint(Bad, "FAIL"), num.Int(g.MaxIncrease), len(g.Reasons), num.Plural(len(g.Reasons), "reason", "reasons"))
	for _, r := range g.Reasons {
		fmt.Fprintf(b, "  %s\n", textsafe.Text(r.String()))
	}
}

func increaseWords(inc *int, what string) string {
	switch {
	case inc == nil:
		return "nothing to compare"
	case *inc > 0:
		return "the largest increase is " + Signed(*inc) + " tokens per request"
	case *inc == 0:
		return "no " + what + " got heavier"
	}
	return "every " + what + " got lighter (largest change " + Signed(*inc) + " tokens per request)"
}

// compared names what d pairs, in the singular: "session" (audits of the
// client sessions), "server" (measurements: no config has a path) or
// "config".
func compared(d *diff.Diff) string {
	if d.Of == "sessions" {
		return "session"
	}
	for _, c := range d.ConfigDiffs {
		if c.Path != "" {
			return "config"
		}
	}
	if len(d.ConfigDiffs) == 0 {
		return "config"
	}
	return "server"
}

func docWhen(d *diff.Doc) string {
	s := d.Kind.Title()
	if d.GeneratedAt != "" {
		s += ", " + d.GeneratedAt
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func configTitle(c *diff.ConfigDiff) string {
	s := name(c.Name())
	var extra []string
	switch {
	case c.Client == clients.Explicit:
		extra = append(extra, clients.ExplicitWords)
	case c.Client != "":
		extra = append(extra, c.Client)
	}
	if c.Scope != "" && c.Scope != clients.Explicit {
		extra = append(extra, c.Scope)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	if c.BasePath != "" {
		s += " vs the baseline's " + name(c.BasePath)
	}
	return s
}

func totalsLine(c *diff.ConfigDiff, cw int) string {
	switch {
	case c.Before != nil && c.After != nil:
		s := fmt.Sprintf("%s → %s tokens per request (%s)", num.Int(*c.Before), num.Int(*c.After), Signed(*c.Delta))
		if c.BeforeShare != nil && c.AfterShare != nil && c.ShareDelta != nil {
			s += fmt.Sprintf("; %s → %s of a %s-token context window (%s points)", SharePct(*c.BeforeShare), SharePct(*c.AfterShare), num.Int(cw), signedPoints(*c.ShareDelta))
		}
		return s
	case c.After != nil:
		return fmt.Sprintf("%s tokens per request now; no baseline", num.Int(*c.After))
	case c.Before != nil:
		return fmt.Sprintf("%s tokens per request in the baseline; not found now", num.Int(*c.Before))
	}
	if c.Unreadable != "" {
		return "unreadable: " + c.Unreadable
	}
	return ""
}

func verdict(c *diff.ConfigDiff, what string, cw int) string {
	who := "this client"
	switch {
	case c.Path == "":
		who, what = "a client that loads this server", "server"
	case c.Client == clients.Explicit:
		who = "a client that loads this file"
	case c.Client != "":
		who = c.Client
	}
	switch c.Change {
	case diff.ConfigNew:
		if c.After == nil {
			return "No baseline for this " + what + ", and it could not be read now."
		}
		return fmt.Sprintf("No baseline for this %s: its %s tokens are a total, not a change.", what, num.Int(*c.After))
	case diff.ConfigMissing:
		if c.Before == nil {
			return "Unreadable in this run: what it costs now is unknown."
		}
		return fmt.Sprintf("In the baseline (%s tokens) and not found now: a config that disappeared is not a config that got cheaper.", num.Int(*c.Before))
	}
	d := *c.Delta
	switch c.Bound {
	case "lower":
		s := fmt.Sprintf("Not a clean comparison: the measured total moved %s, but it leaves out servers that could not be measured now, so the true cost is higher", Signed(d))
		if c.Understated > 0 {
			s += fmt.Sprintf("; if they still cost what they did, the true cost is at least %s higher than the %s measured now", num.Int(c.Understated), num.Int(*c.After))
		}
		return s + "."
	case "upper":
		if c.Overstated == 0 {
			return fmt.Sprintf("The measured total moved %s; a server removed that was never measured took off an unknown cost as well: the true change is at most %s.", Signed(d), Signed(d))
		}
		return fmt.Sprintf("The measured total moved %s, but up to %s of that was already paid in the baseline, unmeasured: the true change is at most %s.", Signed(d), num.Int(c.Overstated), Signed(d))
	case "unknown":
		return fmt.Sprintf("Not a clean comparison: the measured total moved %s, and servers not measured in both runs hide a change of unknown size.", Signed(d))
	}
	switch {
	case d == 0:
		return fmt.Sprintf("No change: this %s costs the same %s tokens per request as the baseline.", what, num.Int(*c.After))
	case d > 0:
		return fmt.Sprintf("This change adds %s tokens to every request in %s: %s → %s of a %s-token context window.", num.Int(d), who, SharePct(*c.BeforeShare), SharePct(*c.AfterShare), num.Int(cw))
	}
	return fmt.Sprintf("This change removes %s tokens from every request in %s: %s → %s of a %s-token context window.", num.Int(-d), who, SharePct(*c.BeforeShare), SharePct(*c.AfterShare), num.Int(cw))
}

// Signed formats n with a sign (none for 0) and thousands separators, as
// [num.Signed] does.
func Signed(n int) string { return num.Signed(n) }

// SharePct formats a share of the context window with two decimals:
// 0.00617 -> "0.62%".
func SharePct(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 2, 64) + "%"
}

func signedPoints(f float64) string {
	s := strconv.FormatFloat(f*100, 'f', 2, 64)
	if s == "-0.00" {
		s = "0.00"
	}
	if f > 0 && s != "0.00" {
		s = "+" + s
	}
	return s
}

func optInt(p *int) string {
	if p == nil {
		return "-"
	}
	return num.Int(*p)
}

func tokensOr(p *int, status string) string {
	if p != nil {
		return num.Int(*p)
	}
	if status != "" {
		return "? (" + status + ")"
	}
	return "-"
}

func signedOr(p *int) string {
	if p == nil {
		return "?"
	}
	return Signed(*p)
}

// Limits that keep a diff within one pull-request comment.
const (
	maxMarkdownRows  = 150
	maxMarkdownBytes = 60_000
)

// DiffMarkdown writes a diff as a pull-request comment: one summary line
// with the verdict first, the gate's reasons when it fails, then per config
// a collapsible section with the servers, tools and parts that changed.
func DiffMarkdown(w io.Writer, d *diff.Diff) error {
	var b strings.Builder
	b.WriteString(summaryLine(d) + "\n")
	if g := d.Gate; g != nil && !g.Pass {
		b.WriteString("\n")
		for _, r := range g.Reasons {
			b.WriteString(issueMarkdown(r))
		}
	} else if len(d.Issues) > 0 {
		b.WriteString("\nNot established:\n\n")
		for _, r := range d.Issues {
			b.WriteString(issueMarkdown(r))
		}
	}
	for i := range d.ConfigDiffs {
		c := &d.ConfigDiffs[i]
		b.WriteString("\n<details>\n<summary>")
		b.WriteString(md(configTitle(c)))
		if line := totalsLine(c, d.ContextWindow); line != "" {
			b.WriteString(": " + md(line))
		}
		b.WriteString("</summary>\n\n")
		b.WriteString(md(verdict(c, compared(d), d.ContextWindow)) + "\n")
		var rows []string
		for _, s := range c.Servers {
			if s.Change == diff.Unchanged {
				continue
			}
			rows = append(rows, fmt.Sprintf("| **%s** | %s | %s | %s | %s |", md(s.Name), md(s.Change), md(tokensOr(s.Before, s.StatusBefore)), md(tokensOr(s.After, s.StatusAfter)), signedOr(s.Delta)))
			for _, td := range s.Tools {
				rows = append(rows, fmt.Sprintf("| &nbsp;&nbsp;%s | %s | %s | %s | %s |", md(td.Label()), md(td.Change), optInt(td.Before), optInt(td.After), Signed(td.Delta)))
				for _, p := range td.Parts {
					rows = append(rows, fmt.Sprintf("| &nbsp;&nbsp;&nbsp;&nbsp;↳ %s | %s | %s | %s | %s |", md(p.Name), md(p.Change), optInt(p.Before), optInt(p.After), Signed(p.Delta)))
				}
			}
		}
		if len(rows) > 0 {
			b.WriteString("\n| server / tool / part | change | before | after | Δ |\n|---|---|---:|---:|---:|\n")
			if len(rows) > maxMarkdownRows {
				more := len(rows) - maxMarkdownRows
				rows = append(rows[:maxMarkdownRows], fmt.Sprintf("| … %d more %s: see the text or --json output | | | | |", more, num.Plural(more, "row", "rows")))
			}
			b.WriteString(strings.Join(rows, "\n") + "\n")
		}
		var notes []string
		if c.Unchanged > 0 {
			notes = append(notes, fmt.Sprintf("%d %s unchanged.", c.Unchanged, num.Plural(c.Unchanged, "server", "servers")))
		}
		for _, s := range c.Servers {
			if s.Note != "" {
				notes = append(notes, fmt.Sprintf("%s: %s.", md(s.Name), md(s.Note)))
			}
		}
		if len(notes) > 0 {
			b.WriteString("\n" + strings.Join(notes, "<br>\n") + "\n")
		}
		b.WriteString("\n</details>\n")
	}
	if len(d.Warnings) > 0 {
		b.WriteString("\n")
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "> %s\n>\n", md(sentence(w)))
		}
		s := strings.TrimSuffix(b.String(), ">\n")
		b.Reset()
		b.WriteString(s)
	}
	if b.Len() > maxMarkdownBytes {
		// A pull-request comment holds at most 65,536 characters: keep
		// whole sections.
		cut := strings.LastIndex(b.String()[:maxMarkdownBytes], "\n</details>\n")
		if cut < 0 {
			cut = max(0, strings.LastIndex(b.String()[:maxMarkdownBytes], "\n"))
		} else {
			cut += len("\n</details>\n")
		}
		kept := b.String()[:cut]
		b.Reset()
		b.WriteString(kept)
		b.WriteString("\n> The rest of the diff is too long for a comment: see the text or --json output.\n")
	}
	fmt.Fprintf(&b, "\n<sub>%s → %s · methodology %s, %s, compared per %s · context window %s tokens</sub>\n",
		md(name(d.Base.File)), md(name(d.Current.File)), md(orDash(d.Current.MethodologyVersion)), md(orDash(d.Current.Encoding)), d.Detail, num.Int(d.ContextWindow))
	return write(w, b.String())
}

// GateFailureMarkdown writes, as a pull-request comment, a gate that failed
// before anything could be compared: the verdict and its reasons.
func GateFailureMarkdown(w io.Writer, g *diff.Gate) error {
	var b strings.Builder
	fmt.Fprintf(&b, "❌ **mcpcost** gate failed: the increase could not be established (%d %s)\n\n", len(g.Reasons), num.Plural(len(g.Reasons), "reason", "reasons"))
	for _, r := range g.Reasons {
		b.WriteString(issueMarkdown(r))
	}
	return write(w, b.String())
}

// issueMarkdown is an issue as a list item: its code, then its message.
func issueMarkdown(r diff.Issue) string {
	return "- " + textsafe.Code(r.Code) + " " + md(sentence(r.Message)) + "\n"
}

func summaryLine(d *diff.Diff) string {
	what := changeWords(d)
	if g := d.Gate; g != nil {
		if g.Pass {
			return fmt.Sprintf("✅ **mcpcost** gate passed: %s, within the %s allowed", what, num.Int(g.MaxIncrease))
		}
		over, other := 0, 0
		for _, r := range g.Reasons {
			if r.Code == diff.IssueOverLimit {
				over++
			} else {
				other++
			}
		}
		if other == 0 {
			return fmt.Sprintf("❌ **mcpcost** gate failed: %s, over the %s allowed", what, num.Int(g.MaxIncrease))
		}
		s := fmt.Sprintf("❌ **mcpcost** gate failed: the increase could not be established (%d %s)", other, num.Plural(other, "reason", "reasons"))
		if over > 0 {
			s += fmt.Sprintf(", and %s, over the %s allowed", what, num.Int(g.MaxIncrease))
		} else if d.Increase != nil {
			s += "; measured: " + what
		}
		return s
	}
	if len(d.Issues) > 0 {
		return fmt.Sprintf("⚠️ **mcpcost**: %s, not a clean comparison (%d %s)", what, len(d.Issues), num.Plural(len(d.Issues), "issue", "issues"))
	}
	return "**mcpcost**: " + what
}

// changeWords says what the diff changed in one phrase: the largest
// change of a compared config.
func changeWords(d *diff.Diff) string {
	var compared []*diff.ConfigDiff
	for i := range d.ConfigDiffs {
		c := &d.ConfigDiffs[i]
		if c.Delta != nil {
			compared = append(compared, c)
		}
	}
	if len(compared) == 0 {
		return "nothing compared"
	}
	worst := compared[0]
	for _, c := range compared[1:] {
		if *c.Delta > *worst.Delta {
			worst = c
		}
	}
	var s string
	if *worst.Delta == 0 {
		s = fmt.Sprintf("no change (%s tokens per request", num.Int(*worst.After))
	} else {
		s = fmt.Sprintf("%s tokens per request (%s → %s", Signed(*worst.Delta), num.Int(*worst.Before), num.Int(*worst.After))
	}
	if len(compared) > 1 {
		s += fmt.Sprintf(" in %s, the largest change of %d configs", md(name(worst.Name())), len(compared))
	}
	return s + ")"
}
