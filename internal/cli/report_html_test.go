package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// reportHome is a fake home: generated Claude Code and Codex transcripts,
// a user config whose servers the transcripts call (and two they never
// call, one with a name made to break HTML), a remote server never
// measured, and the measurement cache holding their tools.
type reportHome struct {
	home, cache, db string
	vars            map[string]string
	now             time.Time
	// tools per server name, as cached.
	tools map[string][]fakeTool
}

type fakeTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
	Output      map[string]any `json:"outputSchema,omitempty"`
	Annotations map[string]any `json:"annotations,omitempty"`
}

// evilServer is a server name that would be markup, and a tool name
// that would end an attribute, if either reached the page unescaped.
const (
	evilServer = `<img src=x onerror=alert(1)>&amp;"srv"`
	evilTool   = `"><svg onload=alert(2)>` + "\u202e" + `tool`
)

func newReportHome(t *testing.T) *reportHome {
	t.Helper()
	root := t.TempDir()
	h := &reportHome{home: filepath.Join(root, "home"), cache: filepath.Join(root, "cache"), db: filepath.Join(root, "usage.db"),
		now: time.Date(2026, 11, 5, 12, 0, 0, 0, time.UTC), tools: map[string][]fakeTool{}}
	h.vars = map[string]string{"HOME": h.home, "MCPCOST_CACHE_DIR": h.cache, "ENABLE_TOOL_SEARCH": "false", "TZ": "UTC"}
	if _, err := transcripttest.Generate(h.home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	// The sessions of one generated project are this folder's, the one
	// report reads the configs of (a client's session is its servers in
	// the project folder).
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(h.home, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, bytes.ReplaceAll(b, []byte(`"/home/dev/src/web-app"`), []byte(strconv.Quote(cwd))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Servers the generated transcripts call, two they never call, and a
	// remote one not in the cache.
	sizes := map[string]int{"github": 26, "playwright": 21, "postgres": 3, "context7": 2, "sentry": 7, "memory": 9, evilServer: 2}
	servers := map[string]any{}
	for name := range sizes {
		servers[name] = map[string]any{"command": "/nonexistent/" + fmt.Sprintf("%x", name)}
	}
	servers["remote-docs"] = map[string]any{"type": "http", "url": "https://mcp.example.invalid/mcp"}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(filepath.Join(h.home, ".claude.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, n := range sizes {
		var tools []fakeTool
		for i := range n {
			ft := fakeTool{
				Name:        fmt.Sprintf("%s_tool_%02d", strings.ToLower(name[:min(len(name), 6)]), i),
				Description: strings.Repeat(fmt.Sprintf("Does thing %d of %s with care. ", i, name), 1+(i*7)%13),
				InputSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}
			props := ft.InputSchema["properties"].(map[string]any)
			for p := range 1 + i%6 {
				props[fmt.Sprintf("arg%d", p)] = map[string]any{"type": "string", "description": strings.Repeat("an argument ", 1+p)}
			}
			if i%3 == 0 {
				ft.Output = map[string]any{"type": "object", "properties": map[string]any{"result": map[string]any{"type": "string"}}}
			}
			if i%4 == 1 {
				ft.Annotations = map[string]any{"readOnlyHint": true, "title": "Tool " + fmt.Sprint(i)}
			}
			tools = append(tools, ft)
		}
		if name == evilServer {
			tools[0].Name = evilTool
		}
		h.tools[name] = tools
	}
	getenv := func(k string) string { return h.vars[k] }
	sys, err := clients.Local(getenv, cwd)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := audit.OpenCache(h.cache, audit.DefaultMaxAge)
	if err != nil {
		t.Fatal(err)
	}
	configs, _ := clients.Discover(sys, nil)
	n := 0
	for _, c := range configs {
		for _, s := range c.Servers {
			tools, ok := h.tools[s.Name]
			if !ok {
				continue
			}
			raw, _ := json.Marshal(tools)
			if err := cache.Put(s.LaunchKey(cache.Key()), &audit.Entry{MeasuredAt: h.now.Add(-time.Hour), Status: "measured", ServerName: s.Name, Transport: "stdio", Tools: raw}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if n != len(sizes) {
		t.Fatalf("%d servers cached, want %d", n, len(sizes))
	}
	return h
}

func (h *reportHome) run(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return h.vars[k] }, Environ: func() []string { return nil },
		Now: func() time.Time { return h.now }}
	if args[0] == "report" {
		args = append(args, "--db", h.db)
	}
	if code := Run(env, args); code != ExitOK {
		t.Fatalf("mcpcost %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String(), stderr.String()
}

// layout is what the probe measures in the browser.
type layout struct {
	ScrollWidth, ScrollHeight, InnerWidth int
	MainLeft, MainRight                   float64
	Resources, Violations                 []string
	ServerRects, ToolRects                []string
	ServerBoxes                           []float64 // the server rects' areas, in their order
	TreemapWidth, TreemapTop              float64
	Wide, Narrow                          bool // which layout shows
	Overflowing                           []string
	FirstScreen                           string
	Scripts                               int
	FindingsSummaryTop, FirstFindingTop   float64
	SortedFirst                           string // the servers table's first row after sorting by tokens
	Markup                                int    // elements a stranger's name would make
}

const layoutProbe = `(function () {
var d = document.documentElement, m = document.querySelector("main").getBoundingClientRect();
var view = document.querySelector(".tm-root");
var shown = Array.prototype.filter.call(view.querySelectorAll("svg"), function (s) { return getComputedStyle(s).display !== "none"; })[0];
var r = {ScrollWidth: d.scrollWidth, ScrollHeight: d.scrollHeight, InnerWidth: innerWidth, MainLeft: m.left, MainRight: m.right,
  Resources: performance.getEntriesByType("resource").map(function (e) { return e.name; }), Violations: window.cspViolations,
  ServerRects: [], ToolRects: [], ServerBoxes: [],
  Wide: getComputedStyle(view.querySelector("svg.tm-wide")).display !== "none", Narrow: getComputedStyle(view.querySelector("svg.tm-narrow")).display !== "none",
  Overflowing: [], Scripts: document.scripts.length};
var tb = view.getBoundingClientRect(); r.TreemapWidth = tb.width; r.TreemapTop = tb.top;
shown.querySelectorAll("g.tm-server").forEach(function (g) {
  var t = g.querySelector("title").textContent; r.ServerRects.push(t.split(":")[0]);
  var b = g.querySelector("rect").getBoundingClientRect(); r.ServerBoxes.push(b.width * b.height); });
shown.querySelectorAll("g.tm-tool").forEach(function (g) { r.ToolRects.push(g.querySelector("title").textContent.split(":")[0]); });
document.querySelectorAll("body *").forEach(function (e) {
  if (e.closest(".scroll") || e.closest("svg") || e.closest("script")) return;
  var b = e.getBoundingClientRect(); if (b.width > 0 && b.right > innerWidth + 0.5) r.Overflowing.push(e.tagName + "." + e.className + " " + Math.round(b.right)); });
var seen = [];
document.querySelectorAll("h1, h2, .headline li, .tm-trail").forEach(function (e) { var b = e.getBoundingClientRect(); if (b.top < innerHeight && b.bottom > 0) seen.push(e.textContent.trim()); });
r.FirstScreen = seen.join(" | ");
function topOf(e) { return e ? e.getBoundingClientRect().top : -1; }
r.FindingsSummaryTop = topOf(document.getElementById("findings-summary"));
r.FirstFindingTop = topOf(document.querySelector("details.finding"));
r.Markup = document.querySelectorAll("img, [onload], [onerror]").length;
var tok = Array.prototype.filter.call(document.querySelectorAll("#servers thead th"), function (th) { return th.textContent.indexOf("tokens") === 0; })[0];
tok.querySelector("button").click();
r.SortedFirst = document.querySelector("#servers tbody tr th").textContent;
return r;
})()`

// TestReportHTMLOfFakeHome renders the report of a fake home and checks
// it in headless Chromium: a treemap box per measured server and tool,
// the report's figures in the page's text, no horizontal overflow at 420
// px, the width used at 1400 px, nothing loaded from the network, the
// stranger-controlled names inert. Its screenshots at 420 and 1400 px are
// kept in the test's artifact folder (go test -artifacts).
func TestReportHTMLOfFakeHome(t *testing.T) {
	h := newReportHome(t)
	chrome := testpeers.NewChromium(t)
	out := t.ArtifactDir()
	page := filepath.Join(out, "report.html")
	stdout, stderr := h.run(t, "report", "--html", page, "--days", "30")
	if stdout != "" || !strings.Contains(stderr, "mcpcost: wrote "+page) {
		t.Fatalf("stdout: %q, stderr: %q", stdout, stderr)
	}
	js, _ := h.run(t, "report", "--json", "--days", "30", "--no-ingest")
	var ov findings.Overview
	if err := json.Unmarshal([]byte(js), &ov); err != nil {
		t.Fatal(err)
	}
	if len(ov.Configs) != 1 || len(ov.Days) < 3 || len(ov.Sessions) == 0 || len(ov.Projects) == 0 {
		t.Fatalf("the fake home's report: %d configs, %d days, %d sessions, %d projects", len(ov.Configs), len(ov.Days), len(ov.Sessions), len(ov.Projects))
	}

	// The page's text holds the report's figures; strangers' names are
	// text, not markup.
	dom := chrome.DOM(page, 1400, 1000)
	for _, want := range wantFigures(&ov) {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	for _, bad := range []string{"<img src=x", "<svg onload"} {
		if strings.Contains(dom, bad) {
			t.Errorf("a stranger's name became markup: %q in the DOM", bad)
		}
	}

	br := chrome.Browser()
	// The check of requests sees: a page with an image requests it.
	control := testpeers.WriteFile(t, t.TempDir(), "control.html", []byte(`<!DOCTYPE html><img src="http://mcpcost-probe.invalid/x.png">`))
	br.Load(control, 800, 600)
	if len(br.Requests) < 2 {
		t.Errorf("the control page's requests: %v, want the page and its image", br.Requests)
	}
	var measured, tools int
	for _, c := range ov.Configs {
		for _, s := range c.Servers {
			if s.Tokens != nil {
				measured++
				tools += len(s.Tools)
			}
		}
	}
	for _, size := range [][2]int{{420, 900}, {1400, 1000}} {
		w := size[0]
		br.Load(page, size[0], size[1])
		if len(br.Requests) != 1 || br.Requests[0] != "file://"+page {
			t.Errorf("%d px: the page made requests: %v", w, br.Requests)
		}
		var l layout
		br.Eval(layoutProbe, &l)
		t.Logf("%d px: scrollWidth %d, main %.0f–%.0f, treemap %.0f px wide at %.0f; first screen: %s", w, l.ScrollWidth, l.MainLeft, l.MainRight, l.TreemapWidth, l.TreemapTop, l.FirstScreen)
		if l.InnerWidth != w {
			t.Fatalf("the window is %d px wide, want %d", l.InnerWidth, w)
		}
		if l.ScrollWidth > l.InnerWidth {
			t.Errorf("%d px: the page is %d px wide (overflows by %d): %v", w, l.ScrollWidth, l.ScrollWidth-l.InnerWidth, l.Overflowing)
		}
		if len(l.Overflowing) > 0 {
			t.Errorf("%d px: elements past the window's right edge: %v", w, l.Overflowing)
		}
		if len(l.Resources) > 0 || len(l.Violations) > 0 {
			t.Errorf("%d px: resources %v, CSP violations %v", w, l.Resources, l.Violations)
		}
		if l.Markup > 0 {
			t.Errorf("%d px: %d elements made of a stranger's name (img, onload, onerror)", w, l.Markup)
		}
		if len(l.ServerRects) != measured || len(l.ToolRects) != tools {
			t.Errorf("%d px: %d server boxes and %d tool boxes, want %d and %d", w, len(l.ServerRects), len(l.ToolRects), measured, tools)
		}
		if l.Wide == (w < 640) || l.Narrow == (w >= 640) {
			t.Errorf("%d px: wide layout shown %v, narrow %v", w, l.Wide, l.Narrow)
		}
		// Server boxes as drawn are in proportion to their tokens.
		tok := map[string]int{}
		var sum float64
		for _, c := range ov.Configs {
			for _, s := range c.Servers {
				if s.Tokens != nil {
					tok["server "+configTitle(c)+" › "+s.Name] = *s.Tokens
					sum += float64(*s.Tokens)
				}
			}
		}
		var area float64
		for _, a := range l.ServerBoxes {
			area += a
		}
		for i, name := range l.ServerRects {
			want, ok := tok[name]
			if !ok {
				t.Errorf("%d px: a server box %q of no server", w, name)
				continue
			}
			if d := l.ServerBoxes[i]/area - float64(want)/sum; d > 0.002 || d < -0.002 {
				t.Errorf("%d px: %s covers %.4f of the servers' area, holds %.4f of their tokens", w, name, l.ServerBoxes[i]/area, float64(want)/sum)
			}
		}
		if l.FindingsSummaryTop < 0 || l.FindingsSummaryTop >= l.FirstFindingTop {
			t.Errorf("%d px: the findings' summary table is not above the findings (%.0f, %.0f)", w, l.FindingsSummaryTop, l.FirstFindingTop)
		}
		if l.SortedFirst != "github" {
			t.Errorf("%d px: sorted by tokens, the servers table starts with %q, want github (the heaviest)", w, l.SortedFirst)
		}
		if l.Scripts != 1 {
			t.Errorf("%d px: %d scripts in the page, want one", w, l.Scripts)
		}
		switch w {
		case 420:
			if l.MainRight-l.MainLeft < 400 {
				t.Errorf("420 px: the content is %.0f px wide", l.MainRight-l.MainLeft)
			}
		case 1400:
			if l.TreemapWidth < 1200 {
				t.Errorf("1400 px: the treemap is %.0f px wide: the width is not used", l.TreemapWidth)
			}
			if !strings.Contains(l.FirstScreen, "What is paid before typing") {
				t.Errorf("1400 px: the first screen does not reach the treemap: %s", l.FirstScreen)
			}
		}
		// A click on a server's box zooms in: its view alone shows, with
		// a box per tool; the back link shows the whole map again.
		var zoom struct {
			Shown    []string
			Tools    int
			Back     bool
			Server   string
			Tip      string
			TipRight float64
		}
		const zoomProbe = `(function () {
var views = function () { return Array.prototype.filter.call(document.querySelectorAll(".tm-view"), function (v) { return getComputedStyle(v).display !== "none"; }); };
var first = Array.prototype.filter.call(document.querySelectorAll(".tm-root a[href^='#tm-']"), function (a) { return a.querySelector(":scope > g.tm-server"); })[0];
first.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}));
var shown = views();
var svg = Array.prototype.filter.call(shown[0].querySelectorAll("svg"), function (s) { return getComputedStyle(s).display !== "none"; })[0];
var r = {Shown: shown.map(function (v) { return v.id; }), Tools: svg.querySelectorAll("g.tm-tool").length, Server: first.querySelector("title").textContent.split(":")[0]};
var part = svg.querySelector("g.tm-part rect"), pb = part.getBoundingClientRect();
part.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window, clientX: pb.left + 2, clientY: pb.top + 2}));
var tip = document.querySelector(".tm-tip");
r.Tip = tip.hidden ? "" : tip.textContent;
r.TipRight = tip.getBoundingClientRect().right;
shown[0].querySelector(".tm-trail a").dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}));
r.Back = views().length === 1 && views()[0].id === "tm-0";
return r; })()`
		br.Eval(zoomProbe, &zoom)
		name := strings.TrimPrefix(zoom.Server, "server "+configTitle(ov.Configs[0])+" › ")
		if len(zoom.Shown) != 1 || zoom.Shown[0] == "tm-0" || zoom.Tools != len(h.tools[name]) || !zoom.Back {
			t.Errorf("%d px: zooming into %s shows %v with %d tool boxes (want %d), back to the whole map %v", w, name, zoom.Shown, zoom.Tools, len(h.tools[name]), zoom.Back)
		}
		// A tap on a part's box shows its figures, inside the window.
		if !strings.HasPrefix(zoom.Tip, "part ") || !strings.Contains(zoom.Tip, " tokens (") || zoom.TipRight > float64(w) {
			t.Errorf("%d px: the tap's tooltip %q ends at %.0f px", w, zoom.Tip, zoom.TipRight)
		}
		br.Eval(`location.hash = ""; 0`, nil)

		shot := filepath.Join(out, fmt.Sprintf("report-%d.png", w))
		br.Screenshot(shot, size[0], size[1])
		checkShot(t, shot, size[0], size[1])
		full := filepath.Join(out, fmt.Sprintf("report-%d-long.png", w))
		br.Screenshot(full, size[0], min(l.ScrollHeight, 9000))
		checkShot(t, full, size[0], min(l.ScrollHeight, 9000))
	}
	// Dark: the page follows the system's theme.
	br.Dark(true)
	br.Load(page, 1400, 1000)
	var bg string
	br.Eval(`getComputedStyle(document.body).backgroundColor`, &bg)
	if bg != "rgb(20, 23, 29)" {
		t.Errorf("dark theme: the page's background is %s", bg)
	}
	br.Screenshot(filepath.Join(out, "report-1400-dark.png"), 1400, 1000)
	br.Dark(false)
	t.Logf("screenshots and the page in %s", out)
}

// configTitle is a config's (or session's) name in the treemap.
func configTitle(c findings.ConfigUse) string {
	if c.Scope == "" {
		return c.ClientTitle + " session (" + filepath.Base(c.Path) + ")"
	}
	return c.ClientTitle + " " + c.Scope + " (" + filepath.Base(c.Path) + ")"
}

// wantFigures are figures of the report that its page must show.
func wantFigures(o *findings.Overview) []string {
	out := []string{"What is paid before typing", "Over time", "remote-docs"}
	for _, c := range o.Configs {
		out = append(out, num.Int(c.TotalTokens))
		for _, s := range c.Servers {
			if s.Tokens != nil {
				out = append(out, num.Int(*s.Tokens), num.Int(int(s.CarriedTokens)))
			}
		}
	}
	for _, f := range o.Findings {
		out = append(out, f.ID)
	}
	for _, d := range o.Days {
		out = append(out, d.Day)
	}
	return out
}

// checkShot decodes a screenshot and requires its size and more than a
// flat page: several colours, some of them the treemap's.
func checkShot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
	colours := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 5 {
		for x := b.Min.X; x < b.Max.X; x += 5 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
		}
	}
	if len(colours) < 12 {
		t.Errorf("%s has %d colours: little was painted", path, len(colours))
	}
}

// TestMeasureHTML: measure --html draws one server's treemap, a box per
// tool and per part, in headless Chromium, with its per-tool table, at
// 420 px without overflow.
func TestMeasureHTML(t *testing.T) {
	h := newReportHome(t)
	chrome := testpeers.NewChromium(t)
	out := t.ArtifactDir()
	tools, _ := json.Marshal(map[string]any{"tools": h.tools["github"]})
	file := testpeers.WriteFile(t, t.TempDir(), "github.json", tools)
	page := filepath.Join(out, "measure.html")
	stdout, _ := h.run(t, "measure", file, "--html", page, "--name", "github", "--json")
	var rep struct {
		TotalTokens int
		Tools       []struct {
			Name  string
			Parts []struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	parts := 0
	for _, tl := range rep.Tools {
		parts += len(tl.Parts)
	}
	br := chrome.Browser()
	for _, w := range []int{420, 1400} {
		br.Load(page, w, 900)
		var l struct {
			ScrollWidth, Tools, Parts, Rows int
			Text                            string
		}
		br.Eval(`(function () {
var svg = Array.prototype.filter.call(document.querySelectorAll(".tm-root svg"), function (s) { return getComputedStyle(s).display !== "none"; })[0];
return {ScrollWidth: document.documentElement.scrollWidth, Tools: svg.querySelectorAll("g.tm-tool").length, Parts: svg.querySelectorAll("g.tm-part").length,
  Rows: document.querySelectorAll("#tool-table tbody tr").length, Text: document.body.innerText}; })()`, &l)
		if l.ScrollWidth > w {
			t.Errorf("%d px: the page is %d px wide", w, l.ScrollWidth)
		}
		if l.Tools != len(rep.Tools) || l.Parts != parts || l.Rows != len(rep.Tools) {
			t.Errorf("%d px: %d tool boxes, %d part boxes, %d table rows; want %d, %d, %d", w, l.Tools, l.Parts, l.Rows, len(rep.Tools), parts, len(rep.Tools))
		}
		if !strings.Contains(l.Text, num.Int(rep.TotalTokens)+" tokens in "+num.Int(len(rep.Tools))+" tools") {
			t.Errorf("%d px: the headline is missing from the page's text", w)
		}
		if len(br.Requests) != 1 {
			t.Errorf("%d px: requests %v", w, br.Requests)
		}
		br.Screenshot(filepath.Join(out, fmt.Sprintf("measure-%d.png", w)), w, 900)
	}
}
