package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// FindingsText writes the findings for a terminal: the headline and the
// window, then one line per finding (level, id, title, estimated saving)
// and how to see more; with verbose, each finding's evidence, rule,
// recommendation and confidence instead.
func FindingsText(w io.Writer, r *findings.Report, s Screen, verbose bool) error {
	var b strings.Builder
	for _, l := range Wrap("", textsafe.Text(findingsHeadline(r)), "  ", s.Width) {
		b.WriteString(l + "\n")
	}
	for _, l := range Wrap("", windowLine(r.Window), "  ", s.Width) {
		b.WriteString(l + "\n")
	}
	for _, n := range r.Notes {
		wrapHanging(&b, "note: ", n, "      ", s.Width)
	}
	if len(r.Findings) == 0 {
		b.WriteString("\nNo findings: nothing crossed a threshold in this window.\n")
		return s.Emit(w, b.String())
	}
	if verbose {
		for _, f := range r.Findings {
			b.WriteString("\n")
			writeFindingText(&b, f, s)
		}
		return s.Emit(w, b.String())
	}
	b.WriteString("\n")
	t := Table{Header: []string{"LEVEL", "ID", "FINDING", "SAVING (ESTIMATE)"}, Min: []int{0, 0, 16, 12}, Drop: []int{0, 0, 0, 1}}
	t.Fit(s)
	t.Tint = func(_, col int, cell string) Tint {
		if col == 0 {
			return LevelTint(cell)
		}
		return Plain
	}
	for _, f := range r.Findings {
		saving := "-"
		if f.EstimatedSaving != nil {
			saving = savingWords(f.EstimatedSaving)
		}
		t.Add(strings.ToUpper(f.Level), f.ID, f.Title, saving)
	}
	b.WriteString(t.String())
	b.WriteString("\n")
	for _, l := range Wrap("", "'mcpcost findings show ID' gives a finding's evidence, rule and confidence; 'mcpcost findings --verbose' gives every finding's.", "", s.Width) {
		b.WriteString(l + "\n")
	}
	return s.Emit(w, b.String())
}

// FindingText writes one finding whole: its evidence, recommendation,
// saving, confidence and the rules of its level and confidence.
func FindingText(w io.Writer, f findings.Finding, s Screen) error {
	var b strings.Builder
	writeFindingText(&b, f, s)
	return s.Emit(w, b.String())
}

func writeFindingText(b *strings.Builder, f findings.Finding, s Screen) {
	level := strings.ToUpper(f.Level)
	head := s.Paint(LevelTint(level), level) + strings.Repeat(" ", max(0, 4-len(level))) + "  " + textsafe.Text(f.ID) + "  "
	for _, l := range Wrap(head, textsafe.Text(f.Title), "      ", s.Width) {
		b.WriteString(l + "\n")
	}
	const ind = "      "
	for _, fact := range f.Facts {
		wrapHanging(b, ind+"- ", fact, ind+"  ", s.Width)
	}
	wrapHanging(b, ind+"do: ", f.Recommendation, ind+"    ", s.Width)
	if sv := f.EstimatedSaving; sv != nil {
		wrapHanging(b, ind+"saving (estimate): ", savingWords(sv)+"; "+sv.Assumption, ind+"    ", s.Width)
	}
	if f.LevelRule != "" {
		wrapHanging(b, ind+"level: ", f.Level+" ("+f.LevelRule+")", ind+"    ", s.Width)
	}
	wrapHanging(b, ind+"confidence: ", f.Confidence+" ("+f.ConfidenceRule+")", ind+"    ", s.Width)
}

func savingWords(s *findings.Saving) string {
	out := num.Int(int(s.Tokens)) + " tokens"
	if s.USD != nil {
		out += ", " + USD(*s.USD)
	}
	return out
}

// USD formats a cost: cents from a dollar up, four decimals below.
func USD(v float64) string {
	if v >= 1 || v == 0 {
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	}
	return "$" + strconv.FormatFloat(v, 'f', 4, 64)
}

func findingsHeadline(r *findings.Report) string {
	c := r.Counts
	return fmt.Sprintf("Findings, %s: %d high, %d warn, %d info%s", periodWords(r.Window), c.High, c.Warn, c.Info, partialWord(r.Partial))
}

func partialWord(p bool) string {
	if p {
		return " (partial)"
	}
	return ""
}

func periodWords(w findings.Window) string {
	s := "all history"
	switch {
	case w.Period != "":
		s = w.Period
	case w.Since != nil && w.Until != nil:
		s = "from " + *w.Since + " to " + *w.Until
	case w.Since != nil:
		s = "since " + *w.Since
	case w.Until != nil:
		s = "until " + *w.Until
	}
	if w.Project != "" {
		s += ", project " + w.Project
	}
	return s
}

func windowLine(w findings.Window) string {
	return fmt.Sprintf("%s (%s in main conversations) in %s, %s; %s, %s to MCP servers",
		num.Count(w.Requests, "request"), num.Int(w.MainRequests), num.Count(w.Sessions, "session"), USD(w.Cost), num.Count(w.ToolCalls, "tool call"), num.Int(w.MCPCalls))
}

// wrapHanging writes text, escaped with [textsafe.Text], after head,
// wrapping at width (display columns; 0 for no limit) with later lines
// indented by indent.
func wrapHanging(b *strings.Builder, head, text, indent string, width int) {
	for _, l := range Wrap(head, textsafe.Text(text), indent, width) {
		b.WriteString(l + "\n")
	}
}

// FindingsMarkdown writes the findings as Markdown, for a pull request or
// an issue.
func FindingsMarkdown(w io.Writer, r *findings.Report) error {
	var b strings.Builder
	b.WriteString("## " + md(findingsHeadline(r)) + "\n\n")
	b.WriteString(md(windowLine(r.Window)) + "\n\n")
	for _, n := range r.Notes {
		b.WriteString("> " + md(n) + "\n\n")
	}
	writeFindingsMarkdown(&b, r.Findings, "###")
	return write(w, b.String())
}

func writeFindingsMarkdown(b *strings.Builder, fs []findings.Finding, h string) {
	if len(fs) == 0 {
		b.WriteString("No findings: nothing crossed a threshold in this window.\n")
		return
	}
	b.WriteString("| LEVEL | ID | FINDING | SAVING (ESTIMATE) |\n|---|---|---|---|\n")
	for _, f := range fs {
		saving := "—"
		if f.EstimatedSaving != nil {
			saving = savingWords(f.EstimatedSaving)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", md(f.Level), textsafe.Code(f.ID), md(f.Title), md(saving))
	}
	for _, f := range fs {
		fmt.Fprintf(b, "\n%s %s %s\n\n", h, textsafe.Code(f.ID), md(f.Title))
		for _, fact := range f.Facts {
			b.WriteString("- " + md(fact) + "\n")
		}
		b.WriteString("\n**Do:** " + md(f.Recommendation) + "\n\n")
		if s := f.EstimatedSaving; s != nil {
			b.WriteString("**Saving (estimate):** " + md(savingWords(s)+"; "+s.Assumption) + "\n\n")
		}
		b.WriteString("**Confidence:** " + md(f.Confidence) + " (" + md(f.ConfidenceRule) + "). **Level:** " + md(f.Level) + " (" + md(f.LevelRule) + ").\n")
	}
}
