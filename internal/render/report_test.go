package render

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/measure"
)

// overview is a report with a config, a server called outside it, and
// two findings, one of them with characters HTML must escape.
func overview() *findings.Overview {
	tokFS, tokMem, nFS, nMem := 2823, 2378, 14, 9
	up, upFront := true, 5201
	usd := 0.0215
	r := &findings.Report{
		Schema:        findings.Schema,
		GeneratedAt:   time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		Window:        findings.Window{Since: new("2026-11-01T00:00:00Z"), Requests: 24, MainRequests: 24, Sessions: 3, ToolCalls: 30, MCPCalls: 26, Cost: 0.3151},
		PricesUpdated: "2026-11-29",
		Counts:        findings.Counts{Warn: 1, Info: 1},
		Notes:         []string{"models without a price (claude-mystery-9) count no cost: USD figures are lower bounds"},
		Configs: []findings.ConfigUse{{
			ConfigRef:   findings.ConfigRef{Client: "claude-code", Path: "/home/u/proj/.mcp.json", Scope: "project"},
			ClientTitle: "Claude Code", TotalTokens: 5201, UpFrontTokens: &upFront, Posture: "up-front", Source: "claude",
			AppliesTo: "Claude Code sessions in /home/u/proj", Sessions: 3, Requests: 24, CacheReadShare: 0.978,
			Servers: []findings.ServerUse{
				{Name: "filesystem", Status: "measured", Tokens: &tokFS, ToolCount: &nFS, LoadsUpFront: &up, PerRequestTokens: 2823, Calls: 24, Sessions: 3, ResultTokens: 756, ToolsCalled: []string{"read_text_file"}, CarriedTokens: 67752, CarriedUSD: 0.0256},
				{Name: "memory", Status: "measured", Tokens: &tokMem, ToolCount: &nMem, LoadsUpFront: &up, PerRequestTokens: 2378, ToolsCalled: []string{}, CarriedTokens: 57072, CarriedUSD: usd},
				{Name: "remote", Status: "not-cached", ToolsCalled: []string{}},
			},
		}, {
			// The user scope defines filesystem too: the project's entry
			// wins, and the calls are its own.
			ConfigRef:   findings.ConfigRef{Client: "claude-code", Path: "/home/u/.claude.json", Scope: "user"},
			ClientTitle: "Claude Code", Posture: "up-front", Source: "claude",
			AppliesTo: "every Claude Code session (user scope)", Sessions: 3, Requests: 24, CacheReadShare: 0.978,
			Servers: []findings.ServerUse{{Name: "filesystem", Status: "overridden", ToolsCalled: []string{}}},
		}},
		ServersCalled: []findings.ServerCalls{
			{Server: "filesystem", Source: "claude", Calls: 24, Sessions: 3, Tools: 3, ResultTokens: 756, Configured: true},
			{Server: "github", Source: "codex", Calls: 2, Errors: 1, Sessions: 1, Tools: 1, ResultTokens: 120},
		},
		Findings: []findings.Finding{
			{ID: "idle-0123abcd", Type: findings.TypeIdleServer, Level: findings.LevelWarn,
				Title:           "memory was never called in 3 sessions: its definitions rode on 24 requests, 57,072 tokens in all",
				Facts:           []string{"2,378 tokens on each of 24 main-conversation requests in 3 sessions"},
				Confidence:      "medium",
				ConfidenceRule:  "the config is assumed to have been as it is now",
				LevelRule:       "warn when never called",
				Recommendation:  "Never called in these sessions: remove it from /home/u/proj/.mcp.json.",
				EstimatedSaving: &findings.Saving{Tokens: 57072, USD: &usd, Assumption: "if the server were disabled"}},
			{ID: "rep-4567ef01", Type: findings.TypeRepeatedCalls, Level: findings.LevelInfo,
				Title:           `github/search_code <script>alert("x")</script> was called again with identical arguments 2 times`,
				Facts:           []string{"2 repeats of 3 calls & more"},
				Confidence:      "high",
				ConfidenceRule:  "exact",
				LevelRule:       "info below 5 repeats",
				Recommendation:  "Reuse the earlier result.",
				EstimatedSaving: &findings.Saving{Tokens: 80, Assumption: "if reused; not priced"}},
		},
	}
	r.Timeline = &findings.Timeline{
		Days: []findings.DayUse{
			{Day: "2026-11-27", Requests: 10, MainRequests: 10, Tokens: 210_000, Cost: 0.12, Models: []findings.ModelUse{{Model: "claude-sonnet-4-5", Tokens: 210_000, Cost: 0.12}},
				MCPCalls: 10, Results: []findings.ServerTotal{{Server: "filesystem", Tokens: 300}}, CarriedTokens: 52_010, IdleTokens: 23_780},
			{Day: "2026-11-28", Results: []findings.ServerTotal{}, Models: []findings.ModelUse{}},
			{Day: "2026-11-29", Requests: 14, MainRequests: 14, Tokens: 380_000, Cost: 0.1951, Models: []findings.ModelUse{{Model: "claude-sonnet-4-5", Tokens: 300_000, Cost: 0.17}, {Model: "claude-haiku-4-5", Tokens: 80_000, Cost: 0.0251}},
				MCPCalls: 16, Results: []findings.ServerTotal{{Server: "filesystem", Tokens: 456}, {Server: "github", Tokens: 120}}, CarriedTokens: 72_814, IdleTokens: 33_292},
		},
		Sessions: []findings.SessionUse{{Source: "claude", Session: "5e550000-0000-4000-8000-000000000000", Project: "/home/u/proj", Start: "2026-11-29T09:00:00Z", End: "2026-11-29T10:00:00Z", Requests: 14, Tokens: 380_000, Cost: 0.1951, MCPCalls: 16, ResultTokens: 576}},
		Projects: []findings.ProjectUse{{Project: "/home/u/proj", Sessions: 3, Requests: 24, Tokens: 590_000, Cost: 0.3151, MCPCalls: 26, ResultTokens: 876}},
	}
	part := func(n ...int) []measure.Part {
		names := []string{"name", "description", "inputSchema"}
		var out []measure.Part
		for i, v := range n {
			out = append(out, measure.Part{Name: names[i], Tokens: v})
		}
		return out
	}
	static := &audit.Report{ContextWindow: 200_000, Problems: []audit.Problem{}, Configs: []audit.Config{{Client: "claude-code", Path: "/home/u/proj/.mcp.json", Scope: "project",
		Servers: []audit.Server{
			{Name: "filesystem", Tools: []measure.Tool{{Name: "read_text_file", Tokens: 1500, Parts: part(8, 900, 590)}, {Name: "write_file", Tokens: 1323, Parts: part(7, 700, 614)}}},
			{Name: "memory", Tools: []measure.Tool{{Name: "create_entities", Tokens: 2000, Parts: part(8, 1200, 790)}, {Name: "read_graph", Tokens: 378, Parts: part(7, 300, 70)}}},
			{Name: "remote"},
		}}, {Client: "claude-code", Path: "/home/u/.claude.json", Scope: "user", Servers: []audit.Server{{Name: "filesystem", Status: "overridden"}}}}}
	return findings.NewOverview(r, static)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "report", name)
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// An overridden entry never runs: its row says so and shows no calls,
// which are the winning entry's, in text, Markdown and HTML.
func TestReportOverriddenRow(t *testing.T) {
	o := overview()
	var txt, mdb, html bytes.Buffer
	if err := ReportText(&txt, o, Screen{Width: 120}); err != nil {
		t.Fatal(err)
	}
	if err := ReportMarkdown(&mdb, o); err != nil {
		t.Fatal(err)
	}
	if err := ReportHTML(&html, o); err != nil {
		t.Fatal(err)
	}
	_, user, ok := strings.Cut(txt.String(), "/home/u/.claude.json")
	user, _, _ = strings.Cut(user, "MCP servers called")
	if !ok {
		t.Fatalf("no user config:\n%s", txt.String())
	}
	for _, l := range strings.Split(user, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "filesystem" {
			if strings.Join(f, " ") != "filesystem overridden" {
				t.Errorf("text: overridden row %q", l)
			}
		}
	}
	if !strings.Contains(mdb.String(), "| filesystem | overridden |  |  |  |  |  |  |  |\n") {
		t.Errorf("markdown: no overridden row without calls:\n%s", mdb.String())
	}
	if strings.Count(html.String(), "<td>overridden</td>") != 1 {
		t.Errorf("html: the overridden row's status")
	}
}

func TestReportGolden(t *testing.T) {
	o := overview()
	fr := &findings.Report{Window: o.Window, Counts: o.Counts, Findings: o.Findings, Notes: o.Notes}
	for name, write := range map[string]func(io.Writer) error{
		"report.txt":   func(w io.Writer) error { return ReportText(w, o, Screen{Width: 80}) },
		"report.md":    func(w io.Writer) error { return ReportMarkdown(w, o) },
		"report.html":  func(w io.Writer) error { return ReportHTML(w, o) },
		"findings.txt": func(w io.Writer) error { return FindingsText(w, fr, Screen{Width: 80}, false) },
		"findings.md":  func(w io.Writer) error { return FindingsMarkdown(w, fr) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden(t, name, b.Bytes())
	}
}

// The HTML file stands alone: it parses, its elements balance, its one
// script is the page's own, it links only within itself, and text is
// escaped.
func TestReportHTML(t *testing.T) {
	var b bytes.Buffer
	if err := ReportHTML(&b, overview()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	ids := checkPage(t, page)
	for _, id := range []string{"idle-0123abcd", "rep-4567ef01", "tm", "tm-0", "servers", "findings-summary"} {
		if !ids[id] {
			t.Errorf("no element with id %s", id)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;") || !strings.Contains(page, "<style>") {
		t.Error("the title is not escaped, or the CSS is not inline")
	}
}

func allowed(allow []func(string) bool, href string) bool {
	for _, f := range allow {
		if f(href) {
			return true
		}
	}
	return false
}

// checkPage parses an HTML page and fails when its elements do not
// balance, it loads or links anything outside itself, it has an event
// handler or a script other than the page's own, or one of its SVG
// drawings is not well-formed XML. It returns the page's ids. A link that
// an allow function accepts (another page of a set) may leave the page.
func checkPage(t testing.TB, page string, allow ...func(href string) bool) map[string]bool {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	var stack []string
	ids := map[string]bool{}
	var hrefs []string
	scripts := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the page does not parse: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(e.Name.Local)
			switch name {
			case "script":
				scripts++
			case "link", "img", "iframe", "object", "embed", "image", "use", "foreignobject", "base", "form":
				t.Errorf("the page has a <%s> element", name)
			}
			for _, a := range e.Attr {
				switch k := strings.ToLower(a.Name.Local); {
				case k == "src" || k == "srcset" || k == "action" || k == "formaction" || k == "style":
					t.Errorf("the page has %s=%q", k, a.Value)
				case k == "href" && allowed(allow, a.Value):
				case k == "href":
					if !strings.HasPrefix(a.Value, "#") {
						t.Errorf("the page links outside itself: %s", a.Value)
					}
					hrefs = append(hrefs, a.Value[min(1, len(a.Value)):])
				case k == "id":
					if ids[a.Value] {
						t.Errorf("two elements with id %q", a.Value)
					}
					ids[a.Value] = true
				case strings.HasPrefix(k, "on"):
					t.Errorf("the page has an event handler %s", a.Name.Local)
				}
			}
			if name != "meta" && name != "br" {
				stack = append(stack, name)
			}
		case xml.EndElement:
			name := strings.ToLower(e.Name.Local)
			if name == "meta" || name == "br" {
				continue
			}
			if len(stack) == 0 || stack[len(stack)-1] != name {
				t.Fatalf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Errorf("unclosed elements: %v", stack)
	}
	if scripts != 1 || strings.Count(page, "<script>"+pageJS+"</script>") != 1 {
		t.Errorf("%d scripts, want the page's one", scripts)
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`) {
		t.Error("no Content-Security-Policy that loads nothing")
	}
	for _, h := range hrefs {
		if !ids[h] {
			t.Errorf("a link to #%s, which is not in the page", h)
		}
	}
	// Each SVG drawing is well-formed XML on its own.
	for rest := page; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		if j < 0 {
			t.Fatal("an <svg> without its end")
		}
		svg := rest[i : i+j+len("</svg>")]
		sd := xml.NewDecoder(strings.NewReader(svg))
		sd.Entity = map[string]string{}
		for {
			_, err := sd.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("an SVG drawing is not well-formed XML: %v\n%s", err, svg[:min(len(svg), 400)])
			}
		}
		rest = rest[i+j:]
	}
	return ids
}

// A real browser renders the page: headless Chromium parses it (the DOM
// it dumps holds the report's servers and figures) and paints it (the
// screenshot is a PNG that is not one flat colour). Under scripts/test
// (MCPCOST_REQUIRE_PEERS set), which installs Chromium, a missing browser
// fails the test.
func TestReportHTMLInBrowser(t *testing.T) {
	bin := "/usr/bin/chromium"
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("MCPCOST_REQUIRE_PEERS") != "" {
			t.Fatal("chromium is not installed at /usr/bin/chromium (scripts/test installs it)")
		}
		t.Skip("chromium is not installed at /usr/bin/chromium")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := ReportHTML(&b, overview()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	chromium := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + filepath.Join(dir, "profile")}
		cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
		}
		return out.Bytes()
	}
	dom := string(chromium("--dump-dom", "file://"+page))
	for _, want := range []string{"filesystem", "memory", "5,201", "Claude Code"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM Chromium rendered lacks %q", want)
		}
	}
	shot := filepath.Join(dir, "shot.png")
	chromium("--screenshot="+shot, "--window-size=1200,1600", "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[[4]uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 7 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 7 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 3 {
		t.Errorf("the screenshot has %d colours: nothing was painted", len(colours))
	}
}

// TestReportSaysOnceInWords: a project with no config says so once (the
// findings' note, which says what to do), and the posture of a config is
// said in words a user reads, with what to do where it is not known; no
// mode names ("client-unknown posture").
func TestReportSaysOnceInWords(t *testing.T) {
	o := overview()
	o.Configs, o.Notes = nil, []string{findings.NoConfigNote}
	var b bytes.Buffer
	if err := ReportText(&b, o, Screen{Width: 80}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.ToLower(b.String()), "no mcp config"); n != 1 {
		t.Errorf("no config said %d times, not once:\n%s", n, b.String())
	}

	n, up := 340, 340
	for _, tt := range []struct {
		mode string
		up   *int
		want string
	}{
		{clients.ModeUnknownClient, &up, "340 tokens (0.2% of a 200,000-token window) of 340 tokens of definitions: which client reads this file is not known, so all are counted as loaded up front (--client NAME reads it as that client does)"},
		{clients.ModeUnresolved, nil, "up to 340 tokens of definitions: whether Claude Code defers them cannot be told from its settings ('mcpcost audit' says which setting, and where)"},
		{clients.ModeUpFront, &up, "340 tokens (0.2% of a 200,000-token window) of 340 tokens of definitions: Claude Code loads them up front (tool search off)"},
		{clients.ModeNoRecord, &up, "340 tokens (0.2% of a 200,000-token window) of 340 tokens of definitions: no deferral is on record for Claude Code, so all are counted as loaded up front"},
	} {
		c := findings.ConfigUse{ConfigRef: findings.ConfigRef{Client: clients.ClaudeCode}, ClientTitle: "Claude Code", TotalTokens: n, UpFrontTokens: tt.up, Posture: tt.mode}
		got := beforeTyping(c, 200000)
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.mode, got, tt.want)
		}
		if strings.Contains(got, "posture") || strings.Contains(got, tt.mode) {
			t.Errorf("%s: a mode's name in %q", tt.mode, got)
		}
	}
}

// TestReportServerNames: a plugin's server is named as usage names it,
// "linear (plugin acme)", and result tokens estimated (images and other
// blocks) are shown as usage shows them, "+10 est.", in text, Markdown
// and HTML.
func TestReportServerNames(t *testing.T) {
	o := overview()
	o.ServersCalled = append(o.ServersCalled, findings.ServerCalls{Server: "linear", Plugin: "acme", Source: "claude", Calls: 1, Sessions: 1, Tools: 1, ResultTokens: 2, EstimatedTokens: 10})
	var txt, mdb, html bytes.Buffer
	if err := ReportText(&txt, o, Screen{Width: 120}); err != nil {
		t.Fatal(err)
	}
	if err := ReportMarkdown(&mdb, o); err != nil {
		t.Fatal(err)
	}
	if err := ReportHTML(&html, o); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^  linear \(plugin acme\) +Claude Code +1 +0 +1 +1 +2 \+10 est\. +no$`).MatchString(txt.String()) {
		t.Errorf("text:\n%s", txt.String())
	}
	if !strings.Contains(mdb.String(), "| linear (plugin acme) | Claude Code | 1 | 0 | 1 | 1 | 2 +10 est. | no |") {
		t.Errorf("markdown:\n%s", mdb.String())
	}
	if !strings.Contains(html.String(), "linear (plugin acme)") {
		t.Errorf("html: no plugin in the server's name")
	}
}
