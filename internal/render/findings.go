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

// FindingsText writes the findings for a terminal.
func FindingsText(w io.Writer, r *findings.Report) error {
	var b strings.Builder
	b.WriteString(textsafe.Text(findingsHeadline(r)) + "\n")
	b.WriteString(windowLine(r.Window) + "\n")
	for _, n := range r.Notes {
		wrapHanging(&b, "note: ", n, "      ", 100)
	}
	if len(r.Findings) == 0 {
		b.WriteString("\nNo findings: nothing crossed a threshold in this window.\n")
		return write(w, b.String())
	}
	for _, f := range r.Findings {
		b.WriteString("\n")
		writeFindingText(&b, f)
	}
	return write(w, b.String())
}

func writeFindingText(b *strings.Builder, f findings.Finding) {
	// The title stays on one line, whole: it is what people search for.
	fmt.Fprintf(b, "%-4s  %s  %s\n", strings.ToUpper(f.Level), textsafe.Text(f.ID), textsafe.Text(f.Title))
	const ind = "      "
	for _, fact := range f.Facts {
		wrapHanging(b, ind+"- ", fact, ind+"  ", 100)
	}
	wrapHanging(b, ind+"do: ", f.Recommendation, ind+"    ", 100)
	if s := f.EstimatedSaving; s != nil {
		wrapHanging(b, ind+"saving (estimate): ", savingWords(s)+"; "+s.Assumption, ind+"    ", 100)
	}
	wrapHanging(b, ind+"confidence: ", f.Confidence+" ("+f.ConfidenceRule+")", ind+"    ", 100)
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
	case w.Since != "" && w.Until != "":
		s = "from " + w.Since + " to " + w.Until
	case w.Since != "":
		s = "since " + w.Since
	case w.Until != "":
		s = "until " + w.Until
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
// wrapping at width with later lines indented by indent.
func wrapHanging(b *strings.Builder, head, text, indent string, width int) {
	text = textsafe.Text(text)
	line := head
	first := true
	for _, w := range strings.Fields(text) {
		if !first && len(line)+1+len(w) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent + w
			continue
		}
		if !first {
			line += " "
		}
		line += w
		first = false
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
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
