package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// MeasureText writes a measure report for a terminal: a summary line, the
// canonical form's size and hash, and the tools heaviest first with their
// parts.
func MeasureText(w io.Writer, r *measure.Report, scr Screen) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %s (%s, methodology %s)\n",
		textsafe.Text(name(r.Server)), num.Count(r.TotalTokens, "token"), num.Count(r.ToolCount, "tool"), textsafe.Text(r.Encoding), textsafe.Text(r.MethodologyVersion))
	if status.Status(r.Status) != status.Measured {
		fmt.Fprintf(&b, "  status: %s", scr.Paint(Warn, textsafe.Text(r.Status)))
		if r.Detail != "" {
			fmt.Fprintf(&b, ": %s", textsafe.Text(sentence(r.Detail)))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  canonical JSON: %s bytes, sha256 %s\n", num.Int(r.CanonicalBytes), textsafe.Text(r.CanonicalSha256))
	if s := r.Source; s != nil {
		fmt.Fprintf(&b, "  source: %s\n", textsafe.Text(sentence(sourceLine(s))))
	}
	if r.ServerVersion != "" {
		fmt.Fprintf(&b, "  server version: %s (as the server reports it)\n", textsafe.Text(name(r.ServerVersion)))
	}
	if len(r.ChangedTools) > 0 {
		fmt.Fprintf(&b, "  dynamic: tools/list differed between two captures; changed: %s; the number is the first capture's\n", textsafe.Text(listNames(r.ChangedTools)))
	}
	if x := r.Extras; x != nil {
		fmt.Fprintf(&b, "  also in context: instructions %s; prompts %s (%s); resources %s (%s); resource templates %s (%s)\n",
			num.Count(x.InstructionsTokens, "token"), num.Int(x.Prompts), num.Count(x.PromptsTokens, "token"), num.Int(x.Resources), num.Count(x.ResourcesTokens, "token"), num.Int(x.ResourceTemplates), num.Count(x.ResourceTemplatesTokens, "token"))
		fmt.Fprintf(&b, "  session start for a client that defers tools (names + instructions): %s\n", num.Count(x.SessionStartTokens, "token"))
	}
	if c := r.Claude; c != nil {
		wrap(&b, fmt.Sprintf("what Claude Code sends for these tools (%s names%s, descriptions cut to 2 KB, input_schema only): %s in o200k_base, a different number from the headline",
			textsafe.Text(name(claude.ToolName(c.Server, "tool"))), nameFrom(c.ServerFrom), num.Count(c.Request.Tokens, "token")), "  ", scr.Width)
		if p := c.Published; p != nil && p.ClaudeTokens != nil {
			wrap(&b, fmt.Sprintf("published Claude count of this exact capture: %s (%s, %s, %s)", num.Count(*p.ClaudeTokens, "token"), p.ClaudeModel, p.ClaudeMethod, p.MeasuredDate), "  ", scr.Width)
		}
		if cl := c.Claude; cl != nil {
			wrap(&b, fmt.Sprintf("Claude's own count (count_tokens, %s): %s, including the tool-use system prompt of any request with tools", cl.Model, num.Count(cl.Tokens, "token")), "  ", scr.Width)
		}
	}
	for _, wmsg := range r.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", textsafe.Text(sentence(wmsg)))
	}
	if len(r.Tools) > 0 {
		b.WriteString("\n")
		parts := r.PartsPresent()
		t := Table{Header: append([]string{"tool", "tokens", "share"}, parts...), Indent: "  ", Min: []int{16}, Keep: 32}
		t.Fit(scr)
		t.Align = make([]Align, len(t.Header))
		for i := 1; i < len(t.Align); i++ {
			t.Align[i] = Right
		}
		t.Drop = partDrops(r.Tools, parts)
		tools := r.Tools
		if r.Top > 0 && r.Top < len(tools) {
			tools = tools[:r.Top]
		}
		for _, tool := range tools {
			row := []string{name(tool.Name), num.Int(tool.Tokens), Percent(tool.Share)}
			for _, p := range parts {
				if n := tool.PartTokens(p); n > 0 {
					row = append(row, num.Int(n))
				} else {
					row = append(row, "-")
				}
			}
			t.Add(row...)
		}
		t.Write(&b)
		if n := len(r.Tools) - len(tools); n > 0 {
			fmt.Fprintf(&b, "  … %s not listed (--top %d); the total counts every tool\n", num.Count(n, "more tool"), r.Top)
		}
		b.WriteString("\n")
		wrap(&b, capitalize(r.Note)+". Parts count each field with its key (\"description\":\"...\"), so a tool's parts add up to about its count.", "  ", scr.Width)
	}
	if g := r.Budget; g != nil {
		b.WriteString("\n")
		if g.Pass {
			fmt.Fprintf(&b, "%s: %s, within %s\n", scr.Paint(Good, "budget ok"), num.Count(r.TotalTokens, "token"), num.Int(g.Limit))
		} else {
			fmt.Fprintf(&b, "%s: %s, over the budget of %s by %s\n", scr.Paint(Bad, "BUDGET FAIL"), num.Count(r.TotalTokens, "token"), num.Int(g.Limit), num.Int(g.Over))
		}
	}
	return scr.Emit(w, b.String())
}

// partDrops ranks the columns of measure's table for a narrow terminal:
// the parts go first, the lightest first (by their tokens over every
// tool; the last first of equals), then the share; never the tool or its
// tokens.
func partDrops(tools []measure.Tool, parts []string) []int {
	total := make([]int, len(parts))
	for _, tool := range tools {
		for i, p := range parts {
			total[i] += tool.PartTokens(p)
		}
	}
	order := make([]int, len(parts)) // the heaviest first
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(total[b], total[a]) })
	drop := make([]int, 3+len(parts))
	drop[2] = 1
	for rank, i := range order {
		drop[3+i] = 2 + rank
	}
	return drop
}

func sourceLine(s *measure.Source) string {
	var parts []string
	switch {
	case s.File != "":
		parts = append(parts, s.File)
	case s.URL != "":
		parts = append(parts, s.URL)
	case s.Command != "":
		parts = append(parts, s.Command)
	}
	kind := map[measure.InputKind]string{
		measure.KindToolsResult: "tools/list result",
		measure.KindToolsArray:  "array of tools",
		measure.KindRPC:         "JSON-RPC stream",
		measure.KindMeasurement: "measurement.json",
		measure.KindLive:        "live server",
	}[s.Kind]
	detail := kind
	if s.Transport != "" {
		detail += " over " + s.Transport
	}
	if s.ProtocolVersion != "" {
		detail += ", protocol " + s.ProtocolVersion
	}
	if s.Pages > 0 {
		detail += fmt.Sprintf(", %d %s", s.Pages, num.Plural(s.Pages, "page", "pages"))
	}
	if detail != "" {
		parts = append(parts, "("+strings.TrimPrefix(detail, ", ")+")")
	}
	return strings.Join(parts, " ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// wrap writes text, escaped with [textsafe.Text], as lines of at most
// width columns (0 for no limit), each with indent.
// nameFrom words where the server's part of Claude's tool names came
// from (in a client, the config's key).
func nameFrom(from string) string {
	return map[string]string{"--name": ", by --name", "serverInfo": ", by the server's serverInfo name", "serverName": ", by the measurement's serverName",
		"command": ", guessed from the command", "url": ", by the URL's host", "file": ", by the file name"}[from]
}

func wrap(b *strings.Builder, text, indent string, width int) {
	if strings.TrimSpace(text) == "" {
		return
	}
	for _, l := range Wrap(indent, textsafe.Text(text), indent, width) {
		b.WriteString(l + "\n")
	}
}
