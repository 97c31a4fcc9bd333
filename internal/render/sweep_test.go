package render

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/sweep"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

func sweepGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "sweep", name)
	if updating() {
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

var pageLink = regexp.MustCompile(`\[([A-Za-z0-9._-]+)\]\(servers/[A-Za-z0-9._-]+\.md\)`)

// fileLink is a server page's link to a file the sweep publishes.
var fileLink = regexp.MustCompile(`\[([A-Za-z. ()]+)\]\(\.\./(?:results/[A-Za-z0-9._-]+/measurement\.json|badges/[A-Za-z0-9._-]+\.(?:svg|json))\)`)

// publishedFile reports whether href, on servers/<server>.html, is a file
// the sweep publishes for that server.
func publishedFile(server, href string) bool {
	return href == "../results/"+server+"/measurement.json" || href == "../badges/"+server+".svg" || href == "../badges/"+server+".json"
}

func ip(n int) *int { return &n }

func sp(s string) *string { return &s }

// sweepEntries: two measured servers (one with a history across an
// isolation change), a failure whose note is hostile Markdown and HTML,
// a remote entry behind its wall and one not yet run.
func sweepEntries() []sweep.Entry {
	hostile := "exited: <img src=x onerror=alert(1)> | `code` [link](javascript:x)\nsecond line\x1b[31m"
	servers := []sweep.Server{
		{Name: "small", CommandLine: "node small.js", Category: "community", Package: "=HYPERLINK(\"http://x\")", Metric: "+1 stars"},
		{Name: "big", CommandLine: "npx -y @scope/big", Package: "@scope/big", Category: "vendor-official", Repo: "https://example.com/big"},
		{Name: "broken", CommandLine: "broken --flag <script>", Category: "community"},
		{Name: "walled", Remote: true},
		{Name: "later", CommandLine: "later"},
	}
	files := map[string]*measure.File{
		"small": {MethodologyVersion: "1.0", Provider: "tiktoken", Encoding: "o200k_base", Status: "measured", TotalTokens: ip(81), ToolCount: ip(2),
			Tools:           []measure.FileTool{{Name: "alpha", Tokens: 50, DescriptionTokens: 10, InputSchemaTokens: 30}, {Name: "beta<b>", Tokens: 29, DescriptionTokens: 5, InputSchemaTokens: 20}},
			CanonicalSha256: sp("aa"), MeasuredAt: "2026-12-01T00:00:00.000Z", ServerName: "small-server", ServerVersion: "1.0.0", LaunchCommand: "node small.js",
			Isolation: &measure.Isolation{Mode: "host"}, TimeoutMs: 60000, Extras: &measure.Extras{SessionStartTokens: 9, InstructionsTokens: 4}},
		"big": {MethodologyVersion: "1.0", Provider: "tiktoken", Encoding: "o200k_base", Status: "dynamic", TotalTokens: ip(12345), ToolCount: ip(1),
			Tools:           []measure.FileTool{{Name: "only", Tokens: 12343}},
			CanonicalSha256: sp("bb"), MeasuredAt: "2026-12-01T00:00:00.000Z", ServerName: "big", LaunchCommand: "npx -y @scope/big", Package: "@scope/big", PackageVersion: "unknown",
			Notes: "tools/list differed between two runs", Isolation: &measure.Isolation{Docker: true, Mode: "docker", Image: "node:22-slim", Network: "bridge"}, TimeoutMs: 120000},
		"broken": {MethodologyVersion: "1.0", Status: "startup-failure", Tools: []measure.FileTool{}, MeasuredAt: "2026-12-01T00:00:00.000Z", ServerName: "broken", Notes: hostile},
	}
	history := []sweep.HistoryRow{
		{Date: "2026-11-29", Server: "big", Tokens: 9000, ToolCount: 1, Status: "measured", Isolation: "host"},
		{Date: "2026-11-30", Server: "big", Tokens: 12000, ToolCount: 1, Status: "measured", Isolation: "docker"},
		{Date: "2026-12-01", Server: "big", Tokens: 12345, ToolCount: 1, Status: "dynamic", Isolation: "docker"},
		{Date: "2026-11-30", Server: "small", Tokens: 80, ToolCount: 2, Status: "measured", Isolation: ""},
		{Date: "2026-12-01", Server: "small", Tokens: 81, ToolCount: 2, Status: "measured", Isolation: "host"},
	}
	return sweep.Entries(servers, files, history)
}

func TestLeaderboardGolden(t *testing.T) {
	entries := sweepEntries()
	md := LeaderboardMarkdown(entries, "2026-12-01")
	sweepGolden(t, "leaderboard.md", md)
	// The only links are to the servers' pages, by names safe as file
	// names; the rest is Markdown that links and runs nothing.
	checkMarkdown(t, "leaderboard.md", pageLink.ReplaceAllString(string(md), "$1"))
	c := LeaderboardCSV(entries)
	sweepGolden(t, "leaderboard.csv", c)
	recs, err := csv.NewReader(bytes.NewReader(c)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	upstream := strings.Split("name,tokens,toolCount,status,category,metric,metricSource,claudeTokens,claudeModel,sessionStartTokens,sessionStartIsFloor,toolNameTokens,instructionsTokens", ",")
	for i, col := range upstream {
		if recs[0][i] != col {
			t.Errorf("column %d is %q, want mcp-context-cost's %q", i, recs[0][i], col)
		}
	}
	if len(recs) != 6 {
		t.Errorf("%d rows, want one per entry", len(recs)-1)
	}
	for _, r := range recs[1:] {
		for _, cell := range r {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) && cell != "@scope/big" {
				t.Errorf("a cell a spreadsheet reads as a formula: %q", cell)
			}
		}
	}
	for _, e := range entries {
		sm := SweepServerMarkdown(e, "2026-12-01")
		sweepGolden(t, "server-"+e.Server.Name+".md", sm)
		checkMarkdown(t, e.Server.Name+".md", fileLink.ReplaceAllString(string(sm), "$1"))
	}
}

func TestSweepPages(t *testing.T) {
	entries := sweepEntries()
	toPage := func(prefix string) func(string) bool {
		return func(h string) bool {
			name, ok := strings.CutPrefix(h, prefix)
			name, ok2 := strings.CutSuffix(name, ".html")
			return h == "../index.html" || ok && ok2 && sweep.CheckName(name) == ""
		}
	}
	index := string(SweepIndexHTML(entries, "2026-12-01"))
	ids := checkPage(t, index, toPage("servers/"))
	for _, id := range []string{"servers-table", "bands", "not-measured-table", "tm-0"} {
		if !ids[id] {
			t.Errorf("index.html has no #%s", id)
		}
	}
	for _, want := range []string{`<table id="servers-table" class="sortable">`, `class="spark"`, "big tokens over time: 12,000 → 12,345", "exited: &lt;img src=x"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	// The trend starts where the isolation changed.
	if strings.Contains(index, "9,000 →") {
		t.Error("the trend crosses an isolation change")
	}
	for _, e := range entries {
		page := string(SweepServerHTML(e, "2026-12-01"))
		checkPage(t, page, toPage(""), func(h string) bool { return publishedFile(e.Server.Name, h) })
		if strings.Contains(page, "<img src=x") || strings.Contains(page, "<script>") && strings.Count(page, "<script>") != 1 {
			t.Errorf("%s: a stranger's text became markup", e.Server.Name)
		}
	}
	big := string(SweepServerHTML(entries[1], "2026-12-01"))
	for _, want := range []string{"big: 12,345 tokens across 1 tool", "band-yellow", "moderate", "@scope/big unknown", "docker:node:22-slim", `id="history"`, `class="spark"`} {
		if !strings.Contains(big, want) {
			t.Errorf("big.html lacks %q", want)
		}
	}
}

func TestSparkline(t *testing.T) {
	if Sparkline([]int{5}, "x") != "" {
		t.Error("one value draws no line")
	}
	s := Sparkline([]int{1, 3, 2}, `a"<b>`)
	if !strings.Contains(s, `points="2,18 48,2 94,10"`) || !strings.Contains(s, "a&#34;&lt;b&gt;: 1 → 3 → 2") {
		t.Errorf("sparkline %s", s)
	}
	if flat := Sparkline([]int{4, 4}, "f"); !strings.Contains(flat, `points="2,10 94,10"`) {
		t.Errorf("a flat line %s", flat)
	}
	checkSVGs(t, s)
}

// TestSweepHostileSizes: what a server sent or a measurement.json holds
// can be a megabyte: a server's name and version, a tool's name, a
// package, a launch command, an isolation, a note. The leaderboard (CSV
// and Markdown), the dashboard and the server's pages cut a name to 512
// characters and a note or other sentence to 2,048, with the mark naming
// the length, and stay small.
func TestSweepHostileSizes(t *testing.T) {
	const n = 1 << 20
	big := func(c string) string { return strings.Repeat(c, n) }
	mark := "… (1048576 bytes)"
	servers := []sweep.Server{{Name: "measured", CommandLine: "x"}, {Name: "failed", CommandLine: "y"}}
	files := map[string]*measure.File{
		"measured": {MethodologyVersion: "1.0", Provider: "tiktoken", Encoding: "o200k_base", Status: "measured", TotalTokens: ip(81), ToolCount: ip(1),
			Tools:      []measure.FileTool{{Name: big("t"), Tokens: 81}},
			ServerName: big("n"), ServerVersion: big("v"), LaunchCommand: big("l"), Package: big("p"), PackageVersion: big("q"), MeasuredAt: big("m"),
			CanonicalSha256: sp(big("s")), Isolation: &measure.Isolation{Mode: "docker", Image: big("i"), Network: big("w"), Note: big("o")}},
		"failed": {MethodologyVersion: "1.0", Status: "startup-failure", ServerName: big("n"), Notes: big("e")},
	}
	history := []sweep.HistoryRow{{Date: "2026-12-01", Server: "measured", Tokens: 81, ToolCount: 1, Status: "measured", Isolation: big("h")}}
	entries := sweep.Entries(servers, files, history)
	outs := map[string]string{
		"leaderboard.csv": string(LeaderboardCSV(entries)),
		"leaderboard.md":  string(LeaderboardMarkdown(entries, "2026-12-01")),
		"index.html":      string(SweepIndexHTML(entries, "2026-12-01")),
	}
	for _, e := range entries {
		outs[e.Server.Name+".html"] = string(SweepServerHTML(e, "2026-12-01"))
		outs[e.Server.Name+".md"] = string(SweepServerMarkdown(e, "2026-12-01"))
	}
	for name, s := range outs {
		if len(s) > 200_000 {
			t.Errorf("%s: %d bytes", name, len(s))
		}
		for _, c := range "ntvlpqmsiwoeh" {
			if strings.Contains(s, strings.Repeat(string(c), textsafe.MaxProse+1)) {
				t.Errorf("%s: a run of %d %c, not cut", name, textsafe.MaxProse+1, c)
			}
		}
	}
	for _, name := range []string{"leaderboard.csv", "measured.html", "measured.md", "failed.html"} {
		if !strings.Contains(outs[name], mark) {
			t.Errorf("%s: no mark of a cut", name)
		}
	}
	if !strings.Contains(outs["measured.html"], strings.Repeat("n", textsafe.MaxName)+mark) {
		t.Error("measured.html: the server's name is not cut to 512 characters")
	}
	r := csv.NewReader(strings.NewReader(outs["leaderboard.csv"]))
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	if got := rows[1][col["serverName"]]; got != strings.Repeat("n", textsafe.MaxName)+mark {
		t.Errorf("leaderboard.csv's serverName: %d bytes: %.40q…", len(got), got)
	}
	// Notes keep mcp-context-cost's cap, 700 characters.
	if got := rows[2][col["notes"]]; !strings.HasSuffix(got, "…") || len([]rune(got)) > 700 {
		t.Errorf("leaderboard.csv's notes: %d bytes: %.40q…", len(got), got)
	}
}

// TestLeaderboardCSVFormulas: no cell of leaderboard.csv starts a
// spreadsheet formula: text starting with = + - @ gets a leading quote
// (OWASP's advice), tabs and carriage returns are escaped; a plain
// negative number and a scoped npm package name stay as they are.
func TestLeaderboardCSVFormulas(t *testing.T) {
	hostile := []string{"=1+1", "+1", "-1+1", "@SUM(1)", "-Inf", "+Inf", "-0x1p3", "-1e5", "+5", "=cmd|' /C calc'!A0", "\t=1", "\r=1", "-", "@"}
	var servers []sweep.Server
	files := map[string]*measure.File{}
	for i, h := range hostile {
		n := fmt.Sprintf("s%d", i)
		servers = append(servers, sweep.Server{Name: n, CommandLine: h, Metric: h, MetricSource: h, Package: h})
		files[n] = &measure.File{MethodologyVersion: "1.0", Status: h, TotalTokens: ip(-5), ToolCount: ip(1), Tools: []measure.FileTool{{Name: "t", Tokens: 1}},
			ServerName: h, ServerVersion: h, PackageVersion: h, LaunchCommand: h, MeasuredAt: h, CanonicalSha256: sp(h), Notes: h, Isolation: &measure.Isolation{Mode: h}}
	}
	servers = append(servers, sweep.Server{Name: "plain", CommandLine: "x", Package: "@scope/pkg", Metric: "-12.5"})
	rows, err := csv.NewReader(bytes.NewReader(LeaderboardCSV(sweep.Entries(servers, files, nil)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		for i, c := range row {
			if c == "" || !strings.ContainsRune("=+-@\t\r", rune(c[0])) {
				continue
			}
			if c == "-5" || c == "-12.5" || c == "@scope/pkg" {
				continue
			}
			t.Errorf("%s's %s starts a formula: %q", row[0], rows[0][i], c)
		}
	}
	last := rows[len(rows)-1]
	if last[13] != "@scope/pkg" || last[5] != "-12.5" {
		t.Errorf("a package name or a negative number was changed: %q", last)
	}
}

// TestSweepIndexBandsAndMedian: the figures under the band chart are
// headed by the band, and the median of an even count says which middle
// it is.
func TestSweepIndexBandsAndMedian(t *testing.T) {
	index := string(SweepIndexHTML(sweepEntries(), "2026-12-01"))
	_, figures, ok := strings.Cut(index, `<summary>The figures (servers)</summary>`)
	if !ok {
		t.Fatal("index.html has no figures of the bands")
	}
	figures, _, _ = strings.Cut(figures, "</thead>")
	if !strings.Contains(figures, ">band</th>") || strings.Contains(figures, ">day</th>") {
		t.Errorf("the bands' figures are not headed by the band:\n%s", figures)
	}
	if !strings.Contains(index, `<span class="big">81</span><span class="what">median tokens (the lower middle of 2, by nearest rank)</span>`) {
		t.Error("the median of two servers does not say it is the lower middle")
	}
}

// TestSweepServerFiles: a server's page links, relative to servers/, the
// measurement.json and badge the sweep publishes for it, and a server
// that did not start has no self-reported name.
func TestSweepServerFiles(t *testing.T) {
	for _, e := range sweepEntries() {
		page := string(SweepServerHTML(e, "2026-12-01"))
		mdPage := string(SweepServerMarkdown(e, "2026-12-01"))
		n := e.Server.Name
		for _, f := range []string{"../badges/" + n + ".svg", "../badges/" + n + ".json"} {
			if !strings.Contains(page, `href="`+f+`"`) || !strings.Contains(mdPage, "]("+f+")") {
				t.Errorf("%s: no link to %s", n, f)
			}
		}
		m := "../results/" + n + "/measurement.json"
		if linked := strings.Contains(page, `href="`+m+`"`) && strings.Contains(mdPage, "]("+m+")"); linked != (e.File != nil) {
			t.Errorf("%s: linked to its measurement.json %v, has one %v", n, linked, e.File != nil)
		}
	}
	broken := string(SweepServerMarkdown(sweepEntries()[2], "2026-12-01"))
	if !strings.Contains(broken, "| self-reported server | none: the server did not start (startup-failure) |") {
		t.Errorf("broken.md shows a self-reported name it never sent:\n%s", broken)
	}
}

// TestSweepServerFailedRun: the history holds measurements only, so the
// page of a server that failed says it failed, and when, over its
// history or the lack of one.
func TestSweepServerFailedRun(t *testing.T) {
	entries := sweepEntries()
	broken := entries[2]
	want := "The measurement failed on 2026-12-01 (startup-failure); the history keeps measurements only."
	if !strings.Contains(string(SweepServerMarkdown(broken, "2026-12-01")), "## Over time\n\n"+want+"\n\nNo measurement in the history yet.") {
		t.Errorf("broken.md does not say that it failed")
	}
	if !strings.Contains(string(SweepServerHTML(broken, "2026-12-01")), "<p>"+want+"</p>") {
		t.Errorf("broken.html does not say that it failed")
	}
	for _, e := range []sweep.Entry{entries[0], entries[3], entries[4]} {
		if strings.Contains(string(SweepServerMarkdown(e, "2026-12-01")), "measurement failed") {
			t.Errorf("%s: says a measurement failed", e.Server.Name)
		}
	}
}
