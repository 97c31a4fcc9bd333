package render

import (
	"io"
	"strings"

	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
)

// MeasureHTML writes one server's measurement as a self-contained HTML
// page: its headline, a treemap of its tools and their parts (click a
// tool to zoom in), and the per-tool table with every part.
//
// A name a server sent (its own, its version's, a tool's) is cut
// as [name] cuts it and a sentence (a status's detail, a warning, the
// source) as [sentence] does, before it is escaped, as in the text: a
// server can send a name of a megabyte.
func MeasureHTML(w io.Writer, r *measure.Report) error {
	var b strings.Builder
	server := name(r.Server)
	PageStart(&b, server+": mcpcost measure")
	b.WriteString("<h1>" + esc(server) + "</h1>\n")
	b.WriteString(`<p class="sub">` + esc(num.Count(r.TotalTokens, "token")+" in "+num.Count(r.ToolCount, "tool")+" ("+r.Encoding+", methodology "+r.MethodologyVersion+")") + "</p>\n")
	if status.Status(r.Status) != status.Measured {
		d := r.Status
		if r.Detail != "" {
			d += ": " + r.Detail
		}
		b.WriteString(`<p class="note"><span class="badge">status</span> ` + esc(sentence(d)) + "</p>\n")
	}
	facts := []string{"canonical JSON: " + num.Int(r.CanonicalBytes) + " bytes, sha256 " + r.CanonicalSha256}
	if s := r.Source; s != nil {
		facts = append(facts, "source: "+sentence(sourceLine(s)))
	}
	if r.ServerVersion != "" {
		facts = append(facts, "server version: "+name(r.ServerVersion)+" (as the server reports it)")
	}
	if len(r.ChangedTools) > 0 {
		facts = append(facts, "dynamic: tools/list differed between two captures; changed: "+listNames(r.ChangedTools)+"; the number is the first capture's")
	}
	if x := r.Extras; x != nil {
		facts = append(facts, "also in context: instructions "+num.Int(x.InstructionsTokens)+" tokens; prompts "+num.Int(x.Prompts)+" ("+num.Int(x.PromptsTokens)+" tokens); resources "+num.Int(x.Resources)+" ("+num.Int(x.ResourcesTokens)+" tokens)",
			"session start for a client that defers tools (names and instructions): "+num.Int(x.SessionStartTokens)+" tokens")
	}
	if c := r.Claude; c != nil {
		facts = append(facts, "what Claude Code sends for these tools: "+num.Int(c.Request.Tokens)+" tokens in o200k_base, a different number from the headline")
	}
	facts = append(facts, r.Note)
	b.WriteString("<ul>")
	for _, f := range facts {
		b.WriteString("<li>" + esc(f) + "</li>")
	}
	for _, wm := range r.Warnings {
		b.WriteString(`<li><span class="badge">warning</span> ` + esc(sentence(wm)) + "</li>")
	}
	b.WriteString("</ul>\n")
	if len(r.Tools) > 0 {
		b.WriteString(`<h2 id="tools">Where the tokens go</h2>` + "\n")
		b.WriteString(`<p class="muted">Each box's area is its tokens among its neighbours. Hover for the figures; click a tool to see its parts.</p>` + "\n")
		tools := make([]findings.ToolSize, len(r.Tools))
		for i, t := range r.Tools {
			tools[i] = findings.ToolSize{Name: t.Name, Tokens: t.Tokens, Parts: t.Parts}
		}
		tokens := r.TotalTokens
		root := TreeNode{Label: server, Kind: "root", Children: []TreeNode{ServerTree(r.Server, r.Status, &tokens, tools)}}
		root.Value = root.Children[0].Value
		Treemap(&b, root, TreemapOptions{ID: "tm", Title: server, Depth: 3, ZoomKinds: []string{"tool"}, HueKind: "tool"})
		parts := r.PartsPresent()
		t := HTMLTable{ID: "tool-table", Caption: "Tools, heaviest first", Sortable: true, Columns: []Column{{Head: "tool"}, {Head: "tokens", Num: true}, {Head: "share", Num: true}}}
		for _, p := range parts {
			t.Columns = append(t.Columns, Column{Head: p, Num: true})
		}
		for _, tl := range r.Tools {
			row := []Cell{TextCell(name(tl.Name)), NumCell(int64(tl.Tokens)), {Text: Percent(tl.Share), Sort: tl.Share}}
			for _, p := range parts {
				row = append(row, NumCell(int64(tl.PartTokens(p))))
			}
			t.Rows = append(t.Rows, row)
		}
		WriteTable(&b, t)
	}
	b.WriteString(`<p class="muted foot">Measured by mcpcost: o200k_base counts of the canonical JSON of the tools/list result. Per-tool counts do not add up to the total: the total counts the whole array once.</p>` + "\n")
	PageEnd(&b)
	return write(w, b.String())
}
