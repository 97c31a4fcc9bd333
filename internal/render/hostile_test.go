package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/diff"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/textsafe/textsafetest"
)

// hostile is what a hostile config or server puts in every name: a screen
// clear, a window title ended by BEL, a carriage return and a forged line,
// bidi overrides, a line separator, DEL and a C1 CSI, and Markdown: code
// spans and fences, a table pipe, raw HTML, a mention and a link.
const hostile = "evil\x1b[2J\x1b[H\x1b]0;pwned\x07\rmcpcost: all servers OK\n\u202eevil\u2066\u2028 `x` | y ``` <script>alert(1)</script> @everyone [a](https://e.example) \x7f\u009b!"

func hostileAudit() *audit.Report {
	n, tok, share := 2, 300, 0.5
	ref := audit.ToolRef{Server: hostile, Tool: hostile, Tokens: 300}
	return &audit.Report{
		Schema: "mcpcost.audit/v1", MethodologyVersion: "1.0", Encoding: "o200k_base", ContextWindow: 200_000,
		Configs: []audit.Config{{
			Client: "claude-code", ClientTitle: "Claude Code", Path: "/p/" + hostile + "/.mcp.json", Scope: "project",
			TotalTokens: 300, ToolCount: 2, ServerCount: 3, Measured: 1, LowerBound: true, Unmeasured: []string{hostile},
			Servers: []audit.Server{
				{Name: hostile, Transport: "stdio", Status: "measured", Tokens: &tok, ToolCount: &n, Share: &share, ServerName: hostile, ServerVersion: hostile},
				{Name: hostile + "2", Transport: "stdio", Status: "startup-failure", Detail: hostile, Hint: hostile},
				{Name: hostile + "3", Transport: "stdio", Status: audit.StatusDisabled, Detail: hostile},
			},
			HeaviestTools: []audit.ToolRef{ref},
			Trim:          &audit.Trim{Tools: []audit.ToolRef{ref}, RecoverableTokens: 300, RecoverableShare: 1},
			PostureText:   []string{hostile},
			Notes:         []string{hostile},
		}},
		EmptyConfigs: []audit.EmptyConfig{{Client: hostile, Path: hostile}},
		Problems:     []audit.Problem{{Path: hostile, Error: hostile}},
		Budget:       &audit.BudgetGate{Limit: 100, Configs: []audit.BudgetConfig{{Path: hostile, Total: 300, Reasons: []string{hostile}}}},
		Threshold:    &audit.ThresholdGate{Limit: 100, Tools: []audit.ToolRef{ref}},
	}
}

func hostileMeasure() *measure.Report {
	return &measure.Report{
		Schema: measure.Schema, Server: hostile, Status: "dynamic", Detail: hostile, MethodologyVersion: "1.0", Encoding: "o200k_base",
		Source:        &measure.Source{Kind: measure.KindLive, Command: hostile, Transport: "stdio", ProtocolVersion: hostile},
		ServerVersion: hostile, TotalTokens: 10, ToolCount: 1, Note: hostile,
		Tools:        []measure.Tool{{Name: hostile, Tokens: 10, Share: 1}},
		ChangedTools: []string{hostile}, Warnings: []string{hostile},
	}
}

func hostileDiff(t *testing.T) *diff.Diff {
	name, _ := json.Marshal(hostile)
	doc := func(server string, tokens int) string {
		return fmt.Sprintf(`{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[{"client":%[1]s,"path":%[1]s,"totalTokens":%[3]d,"servers":[{"name":%[2]s,"status":"measured","tokens":%[3]d,"tools":[{"name":%[1]s,"tokens":%[3]d,"parts":[{"name":%[1]s,"tokens":%[3]d}]}]},{"name":"gone","status":"measured","tokens":5}]}]}`,
			name, server, tokens)
	}
	base, err := diff.Load(hostile, []byte(doc(string(name), 100)))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := diff.Load(hostile, []byte(strings.Replace(doc(string(name), 300), `{"name":"gone","status":"measured","tokens":5}`, `{"name":"gone","status":`+string(name)+`}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	d := diff.Compare(base, cur)
	d.Warnings = append(d.Warnings, hostile)
	d.Check(10)
	return d
}

func hostileOverview() *findings.Overview {
	o := overview()
	o.Notes = append(o.Notes, hostile)
	o.Problems = append(o.Problems, audit.Problem{Path: hostile, Error: hostile})
	o.Window.Project = hostile
	c := &o.Configs[0]
	c.Path, c.ClientTitle, c.AppliesTo = hostile, hostile, hostile
	c.Servers[0].Name = hostile
	o.ServersCalled[1].Server = hostile
	for i := range o.Findings {
		f := &o.Findings[i]
		f.Title, f.Recommendation, f.Facts = hostile, hostile, []string{hostile}
		f.ConfidenceRule = hostile
	}
	return o
}

func hostileFindings() *findings.Report {
	o := hostileOverview()
	return &findings.Report{Window: o.Window, Counts: o.Counts, Findings: o.Findings, Notes: o.Notes}
}

var forged = regexp.MustCompile(`(?m)^\s*mcpcost: all servers OK`)

// checkText fails when out holds a raw control, format or separator
// character, invalid UTF-8, or the forged line at the start of a line.
func checkText(t *testing.T, what, out string) {
	t.Helper()
	if err := textsafetest.CheckText(out); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if loc := forged.FindStringIndex(out); loc != nil {
		t.Errorf("%s: a forged line at byte %d", what, loc[0])
	}
}

// checkMarkdown is checkText and textsafetest.CheckMarkdown.
func checkMarkdown(t *testing.T, what, out string) {
	t.Helper()
	checkText(t, what, out)
	if err := textsafetest.CheckMarkdown(out); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// TestHostileNames renders reports whose every name, path, version,
// description and message is hostile, in every text and Markdown format.
func TestHostileNames(t *testing.T) {
	d := hostileDiff(t)
	renders := []struct {
		name     string
		markdown bool
		render   func(*bytes.Buffer) error
	}{
		{"AuditText", false, func(b *bytes.Buffer) error { return AuditText(b, hostileAudit(), Screen{}) }},
		{"AuditMarkdown", true, func(b *bytes.Buffer) error { return AuditMarkdown(b, hostileAudit()) }},
		{"MeasureText", false, func(b *bytes.Buffer) error { return MeasureText(b, hostileMeasure(), Screen{}) }},
		{"DiffText", false, func(b *bytes.Buffer) error { return DiffText(b, d, Screen{}) }},
		{"DiffMarkdown", true, func(b *bytes.Buffer) error { return DiffMarkdown(b, d) }},
		{"GateFailureMarkdown", true, func(b *bytes.Buffer) error {
			return GateFailureMarkdown(b, diff.LoadFailure(0, errors.New(hostile)))
		}},
		{"GateText", false, func(b *bytes.Buffer) error {
			var sb strings.Builder
			GateText(&sb, diff.LoadFailure(0, errors.New(hostile)), Screen{})
			b.WriteString(sb.String())
			return nil
		}},
		{"FindingsText", false, func(b *bytes.Buffer) error { return FindingsText(b, hostileFindings(), Screen{}, true) }},
		{"FindingsMarkdown", true, func(b *bytes.Buffer) error { return FindingsMarkdown(b, hostileFindings()) }},
		{"ReportText", false, func(b *bytes.Buffer) error { return ReportText(b, hostileOverview(), Screen{}) }},
		{"ReportMarkdown", true, func(b *bytes.Buffer) error { return ReportMarkdown(b, hostileOverview()) }},
		{"ReportHTML", false, func(b *bytes.Buffer) error { return ReportHTML(b, hostileOverview()) }},
		{"MeasureHTML", false, func(b *bytes.Buffer) error { return MeasureHTML(b, hostileMeasure()) }},
	}
	for _, r := range renders {
		t.Run(r.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := r.render(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "evil") {
				t.Fatalf("the hostile names are not in the output:\n%s", out)
			}
			if r.markdown {
				checkMarkdown(t, r.name, out)
			} else {
				checkText(t, r.name, out)
			}
			if strings.HasSuffix(r.name, "Text") && !strings.Contains(out, `evil\x1b[2J\x1b[H\x1b]0;pwned\x07\rmcpcost: all servers OK\n\u202eevil\u2066\u2028`) {
				t.Errorf("the escapes are not visible:\n%s", out)
			}
			if strings.HasSuffix(r.name, "HTML") {
				if strings.Count(out, "<script") != 1 || strings.Contains(out, "<script>alert") {
					t.Errorf("raw HTML from the data")
				}
				checkPage(t, out)
			}
		})
	}
}

// TestHostileJSON checks that JSON keeps every hostile string exactly, and
// holds none of its characters raw.
func TestHostileJSON(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, hostileAudit()); err != nil {
		t.Fatal(err)
	}
	checkText(t, "JSON", b.String())
	var got audit.Report
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not valid JSON: %v", err)
	}
	s := got.Configs[0].Servers[0]
	for _, v := range []string{s.Name, s.ServerName, s.ServerVersion, got.Configs[0].HeaviestTools[0].Tool, got.Problems[0].Error} {
		if v != hostile {
			t.Errorf("JSON changed %q to %q", hostile, v)
		}
	}
}

func TestTableEscapes(t *testing.T) {
	tb := Table{Header: []string{"name", "n"}, Align: []Align{Left, Right}}
	tb.Add("a\x1b[2Jb", "1")
	tb.Add("plain", "22")
	var b strings.Builder
	if err := tb.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "name        n\n" +
		"a\\x1b[2Jb   1\n" +
		"plain      22\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
