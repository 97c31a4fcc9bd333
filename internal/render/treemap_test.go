package render

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/measure"
)

// Each box's area is its value's share of the whole exactly, the boxes
// tile the rectangle without overlapping, and the same values give the
// same layout.
func TestSquarify(t *testing.T) {
	r := Rect{X: 3, Y: 5, W: 1000, H: 540}
	cases := map[string][]float64{
		"one":           {42},
		"two equal":     {1, 1},
		"skewed":        {10_000, 1},
		"mcp servers":   {3831, 3003, 1169, 956, 349, 282, 207},
		"ties":          {5, 5, 5, 5, 5, 5, 5},
		"zeros skipped": {0, 7, 0, 3, -2},
		"many small":    append([]float64{5000}, repeat(1, 300)...),
		"ascending":     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
	}
	for name, values := range cases {
		t.Run(name, func(t *testing.T) {
			boxes := Squarify(values, r)
			if len(boxes) != len(values) {
				t.Fatalf("%d boxes for %d values", len(boxes), len(values))
			}
			total := 0.0
			for _, v := range values {
				total += max(v, 0)
			}
			for i, v := range values {
				b := boxes[i]
				if v <= 0 {
					if b.Area() != 0 {
						t.Errorf("value %g has a box of area %g", v, b.Area())
					}
					continue
				}
				if got, want := b.Area()/r.Area(), v/total; math.Abs(got-want) > 1e-9*want+1e-12 {
					t.Errorf("value %g: area share %.12f, want %.12f", v, got, want)
				}
				if b.X < r.X-1e-9 || b.Y < r.Y-1e-9 || b.X+b.W > r.X+r.W+1e-9 || b.Y+b.H > r.Y+r.H+1e-9 || b.W < 0 || b.H < 0 {
					t.Errorf("value %g: box %+v outside %+v", v, b, r)
				}
				for j := range i {
					o := boxes[j]
					ix := math.Min(b.X+b.W, o.X+o.W) - math.Max(b.X, o.X)
					iy := math.Min(b.Y+b.H, o.Y+o.H) - math.Max(b.Y, o.Y)
					if ix > 1e-6 && iy > 1e-6 {
						t.Errorf("boxes %d and %d overlap by %g", i, j, ix*iy)
					}
				}
			}
			again := Squarify(values, r)
			for i := range boxes {
				if boxes[i] != again[i] {
					t.Fatalf("two layouts of the same values differ at %d", i)
				}
			}
		})
	}
	// Boxes stay near square: the worst aspect ratio of a typical set.
	worst := 0.0
	for _, b := range Squarify([]float64{3831, 3003, 1169, 956, 349, 282, 207}, r) {
		worst = max(worst, max(b.W/b.H, b.H/b.W))
	}
	if worst > 4 {
		t.Errorf("worst aspect ratio %.2f", worst)
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// The treemap draws a box per node with a number, a view per zoomable
// node linked from its box, labels only where they fit, and lists the
// nodes without a number.
func TestTreemap(t *testing.T) {
	small := TreeNode{Label: "a-very-long-tool-name-that-cannot-fit", Kind: "tool", Value: 60}
	root := TreeNode{Label: "all", Kind: "root", Value: 10_060, Children: []TreeNode{
		{Label: "big", Kind: "server", Value: 10_000, Children: []TreeNode{
			{Label: "t1", Kind: "tool", Value: 6000, Children: []TreeNode{{Label: "description", Kind: "part", Value: 5000}, {Label: "inputSchema", Kind: "part", Value: 1000}}},
			{Label: "t2", Kind: "tool", Value: 4000},
		}},
		{Label: "tiny", Kind: "server", Value: 60, Children: []TreeNode{small}},
		{Label: "down", Kind: "server", Missing: "not measured: timeout"},
	}}
	var b strings.Builder
	Treemap(&b, root, TreemapOptions{ID: "x", Title: "T", Depth: 2, ZoomKinds: []string{"server"}})
	page := b.String()
	// Views: the whole map, big and tiny; down has no number, no view.
	for _, id := range []string{`id="x-0"`, `id="x-1"`, `id="x-2"`} {
		if !strings.Contains(page, id) {
			t.Errorf("no view %s", id)
		}
	}
	if strings.Contains(page, `id="x-3"`) {
		t.Error("a view of a server without a number")
	}
	if !strings.Contains(page, `<a href="#x-1"><g class="tm-node tm-server" data-kind="server" data-value="10000">`) {
		t.Error("big's box does not link to its view")
	}
	// Two layouts of each view: 3 server boxes (2 in each layout of the
	// whole map) and the tools.
	if n := strings.Count(page, `class="tm-node tm-server"`); n != 4 {
		t.Errorf("%d server boxes, want 2 per layout of the whole map", n)
	}
	whole := page[:strings.Index(page, `id="x-1"`)]
	if strings.Contains(whole, ">a-very-long-tool-name-that-cannot-fit<") {
		t.Error("a label drawn in a box too small for it")
	}
	if zoomed := page[strings.Index(page, `id="x-2"`):]; !strings.Contains(zoomed, ">a-very-long-tool-name-that-cannot-fit<") {
		t.Error("no label in the zoomed view, where the box is large")
	}
	if !strings.Contains(page, "a-very-long-tool-name-that-cannot-fit: 60 tokens") {
		t.Error("the small box has no tooltip")
	}
	if !strings.Contains(page, "down (not measured: timeout)") {
		t.Error("the server without a number is not listed")
	}
	checkSVGs(t, page)
}

var dataValue = regexp.MustCompile(`data-kind="server" data-value="(\d+)"><title>[^<]*</title><rect class="[^"]*" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"`)

// The areas drawn in the report's SVG are the tokens' shares.
func TestReportTreemapAreas(t *testing.T) {
	var b bytes.Buffer
	if err := ReportHTML(&b, overview()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	whole := page[strings.Index(page, `id="tm-0"`):strings.Index(page, `id="tm-1"`)]
	m := dataValue.FindAllStringSubmatch(whole, -1)
	if len(m) != 4 { // filesystem and memory, in two layouts
		t.Fatalf("%d server boxes, want 4", len(m))
	}
	for _, layout := range [][]([]string){m[:2], m[2:]} {
		var tok, area []float64
		for _, x := range layout {
			v, _ := strconv.ParseFloat(x[1], 64)
			w, _ := strconv.ParseFloat(x[4], 64)
			h, _ := strconv.ParseFloat(x[5], 64)
			tok, area = append(tok, v), append(area, w*h)
		}
		if got, want := area[0]/area[1], tok[0]/tok[1]; math.Abs(got/want-1) > 0.002 {
			t.Errorf("area ratio %.4f, token ratio %.4f", got, want)
		}
	}
}

// checkSVGs parses a fragment's SVG drawings as XML.
func checkSVGs(t *testing.T, s string) {
	t.Helper()
	checkPage(t, "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';\"></head><body><script>"+pageJS+"</script>"+s+"</body></html>")
}

// FuzzReportHTML renders a report whose names, titles and figures come
// from the fuzzer: the page always parses, balances, loads nothing and
// keeps its SVG well-formed, and the names never become markup.
func FuzzReportHTML(f *testing.F) {
	f.Add("filesystem", "read_text_file", "a title", uint32(2823), uint32(14))
	f.Add(`<script>alert(1)</script>`, `"><svg onload=alert(1)>`, "&amp; ]]> <!-- -->", uint32(1), uint32(0))
	f.Add("\x00\x1b[2J\u202e\uFFFE\uFFFF", "\xff\xfe", "\u2028\n\r", uint32(0), uint32(1<<31))
	f.Fuzz(func(t *testing.T, server, tool, title string, tokens, calls uint32) {
		o := overview()
		tok := int(tokens % 10_000_000)
		c := &o.Configs[0]
		c.Path = "/p/" + server + "/.mcp.json"
		c.Servers[0].Name = server
		c.Servers[0].Tokens = &tok
		c.Servers[0].Calls = int(calls % 1_000_000)
		c.Servers[0].Tools[0].Name = tool
		c.Servers[0].Tools[0].Tokens = tok
		o.Findings[0].Title = title
		o.Findings[1].ID = "f-" + title
		o.ServersCalled[0].Server = server
		o.Days[0].Results[0].Server = server
		o.Days[0].Models[0].Model = tool
		o.Sessions[0].Project = server
		var b bytes.Buffer
		if err := ReportHTML(&b, o); err != nil {
			t.Fatal(err)
		}
		checkPage(t, b.String())
		var mb bytes.Buffer
		if err := MeasureHTML(&mb, hostileMeasureNamed(server, tool, tok)); err != nil {
			t.Fatal(err)
		}
		checkPage(t, mb.String())
	})
}

func hostileMeasureNamed(server, tool string, tokens int) *measure.Report {
	r := hostileMeasure()
	r.Server, r.TotalTokens = server, tokens
	r.Tools = []measure.Tool{{Name: tool, Tokens: tokens, Share: 1, Parts: []measure.Part{{Name: "description", Tokens: tokens / 2}, {Name: "inputSchema", Tokens: tokens - tokens/2}}}}
	return r
}

// A report with nothing in it still makes a whole page, and says so.
func TestReportHTMLEmpty(t *testing.T) {
	o := findings.NewOverview(&findings.Report{Findings: []findings.Finding{}}, nil)
	var b bytes.Buffer
	if err := ReportHTML(&b, o); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkPage(t, page)
	for _, want := range []string{"No MCP config with servers was found", "No requests in this window", "None: nothing crossed a threshold"} {
		if !strings.Contains(page, want) {
			t.Errorf("the empty page does not say %q", want)
		}
	}
}

// A server of 2,000 tools: every tool's box is drawn in the whole map's
// wide layout, or is too small to see; the page grows with the tools, not
// faster.
func TestTreemapManyTools(t *testing.T) {
	size := func(n int) (int, int) {
		srv := TreeNode{Label: "big", Kind: "server"}
		for i := range n {
			v := int64(50 + i%400)
			srv.Children = append(srv.Children, TreeNode{Label: "tool_" + strconv.Itoa(i), Kind: "tool", Value: v,
				Children: []TreeNode{{Label: "description", Kind: "part", Value: v / 2}, {Label: "inputSchema", Kind: "part", Value: v - v/2}}})
			srv.Value += v
		}
		var b strings.Builder
		Treemap(&b, TreeNode{Label: "all", Value: srv.Value, Children: []TreeNode{srv}}, TreemapOptions{ID: "m", Title: "T", Depth: 2, ZoomKinds: []string{"server"}})
		return b.Len(), strings.Count(b.String(), `class="tm-node tm-tool"`)
	}
	small, _ := size(200)
	large, boxes := size(2000)
	if large > 12*small {
		t.Errorf("200 tools: %d bytes; 2,000 tools: %d bytes", small, large)
	}
	if boxes < 2*2000 { // the whole map and the server's view, in the wide layout at least
		t.Errorf("%d tool boxes of 2,000 tools", boxes)
	}
}
