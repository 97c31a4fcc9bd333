package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// sweepProbe measures the dashboard in the browser.
const sweepProbe = `(function () {
var d = document.documentElement;
var r = {ScrollWidth: d.scrollWidth, InnerWidth: innerWidth, Overflowing: [],
  Resources: performance.getEntriesByType("resource").map(function (e) { return e.name; }), Violations: window.cspViolations,
  Rows: document.querySelectorAll("#servers-table tbody tr").length,
  Sparks: document.querySelectorAll("#servers-table svg.spark polyline").length,
  Bars: document.querySelectorAll("#bands svg rect").length,
  Markup: document.querySelectorAll("img, [onload], [onerror]").length};
document.querySelectorAll("body *").forEach(function (e) {
  if (e.closest(".scroll") || e.closest("svg") || e.closest("script")) return;
  var b = e.getBoundingClientRect(); if (b.width > 0 && b.right > innerWidth + 0.5) r.Overflowing.push(e.tagName + "." + e.className + " " + Math.round(b.right)); });
var th = document.querySelectorAll("#servers-table thead th")[1];
th.querySelector("button").click();
var first = function () { return Array.prototype.map.call(document.querySelectorAll("#servers-table tbody tr td:nth-child(2)"), function (c) { return +c.getAttribute("data-v"); }); };
r.Sorted1 = first();
th.querySelector("button").click();
r.Sorted2 = first();
return r;
})()`

type sweepLayout struct {
	ScrollWidth, InnerWidth int
	Overflowing             []string
	Resources, Violations   []string
	Rows, Sparks, Bars      int
	Markup                  int
	Sorted1, Sorted2        []float64
}

func sorted(xs []float64, desc bool) bool {
	for i := 1; i < len(xs); i++ {
		if desc && xs[i] > xs[i-1] || !desc && xs[i] < xs[i-1] {
			return false
		}
	}
	return true
}

// TestSweepDashboardInChromium sweeps Go test servers beside published
// measurements (read as the previous results) and a history, then loads
// index.html in headless Chromium: no request, no overflow at 420 px, a
// sparkline per server with a history, the distribution drawn, and the
// table sorts by tokens.
func TestSweepDashboardInChromium(t *testing.T) {
	chrome := testpeers.NewChromium(t)
	pub := filepath.Join(testpeers.Shared(t), "published")
	bins := t.TempDir()
	stdio := filepath.Join(bins, "stdioserver")
	if out, err := exec.Command("go", "build", "-o", stdio, "../mcpclient/testdata/stdioserver").CombinedOutput(); err != nil {
		t.Fatalf("building stdioserver: %v\n%s", err, out)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "site")
	var yaml strings.Builder
	yaml.WriteString("servers:\n")
	published := []string{"github", "notion", "memory", "filesystem", "time", "fetch", "sentry", "postgres", "azure", "stripe"}
	var hist strings.Builder
	hist.WriteString("date,server,tokens,toolCount,status,isolation\n")
	for _, n := range published {
		b, err := os.ReadFile(filepath.Join(pub, n, "measurement.json"))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(out, "results", n), 0o755)
		os.WriteFile(filepath.Join(out, "results", n, "measurement.json"), b, 0o644)
		fmt.Fprintf(&yaml, "  - name: %s\n    command: npx -y %s-server\n    category: community\n", n, n)
	}
	fmt.Fprintf(&yaml, "  - name: go-ok\n    command: [%q, ok]\n    repo: \"<img src=x onerror=alert(1)>\"\n", stdio)
	fmt.Fprintf(&yaml, "  - name: go-many\n    command: [%q, many-tools]\n", stdio)
	fmt.Fprintf(&yaml, "  - name: go-crash\n    command: [%q, crash]\n", stdio)
	hist.WriteString("2026-11-29,go-ok,70,3,measured,host\n2026-11-30,go-ok,75,3,measured,host\n2026-11-30,go-many,9000,500,measured,host\n")
	os.WriteFile(filepath.Join(out, "history.csv"), []byte(hist.String()), 0o644)
	file := filepath.Join(dir, "servers.yaml")
	os.WriteFile(file, []byte(yaml.String()), 0o644)

	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
		Now: func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }}
	if code := Run(env, []string{"sweep", file, "--out", out, "--only", "go-ok,go-many,go-crash", "--date", "2026-12-01"}); code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "[3/3]") || !strings.Contains(stdout.String(), "go-crash: startup-failure") {
		t.Errorf("stdout %q\nstderr %q", stdout.String(), stderr.String())
	}
	page := filepath.Join(out, "index.html")
	br := chrome.Browser()
	for _, size := range [][2]int{{420, 900}, {1400, 1000}} {
		w := size[0]
		br.Load(page, size[0], size[1])
		if len(br.Requests) != 1 || br.Requests[0] != "file://"+page {
			t.Errorf("%d px: the page made requests: %v", w, br.Requests)
		}
		var l sweepLayout
		br.Eval(sweepProbe, &l)
		if l.InnerWidth != w {
			t.Fatalf("the window is %d px wide, want %d", l.InnerWidth, w)
		}
		if l.ScrollWidth > l.InnerWidth || len(l.Overflowing) > 0 {
			t.Errorf("%d px: the page is %d px wide: %v", w, l.ScrollWidth, l.Overflowing)
		}
		if len(l.Resources) > 0 || len(l.Violations) > 0 || l.Markup > 0 {
			t.Errorf("%d px: resources %v, CSP violations %v, %d elements of markup from strangers", w, l.Resources, l.Violations, l.Markup)
		}
		// The published measured servers (azure and stripe failed) and
		// the two Go servers that answer.
		if l.Rows != 10 || l.Sparks != 2 || l.Bars < 2 {
			t.Errorf("%d px: %d rows, %d sparklines, %d bars", w, l.Rows, l.Sparks, l.Bars)
		}
		if len(l.Sorted1) != l.Rows || sorted(l.Sorted1, true) == sorted(l.Sorted1, false) || !sorted(l.Sorted2, !sorted(l.Sorted1, true)) {
			t.Errorf("%d px: sorting by tokens: %v then %v", w, l.Sorted1, l.Sorted2)
		}
	}
	for _, n := range []string{"go-ok", "github"} {
		br.Load(filepath.Join(out, "servers", n+".html"), 420, 900)
		var l sweepLayout
		br.Eval(`(function () { var d = document.documentElement; return {ScrollWidth: d.scrollWidth, InnerWidth: innerWidth, Markup: document.querySelectorAll("img, [onload], [onerror]").length}; })()`, &l)
		if l.ScrollWidth > l.InnerWidth || l.Markup > 0 {
			t.Errorf("servers/%s.html at 420 px: %d px wide, %d elements of markup", n, l.ScrollWidth, l.Markup)
		}
	}
}
