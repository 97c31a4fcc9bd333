package render

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// TreeNode is one box of a treemap: what it is, the tokens it stands for,
// and the boxes inside it. Any caller fills it (the report's configs or
// sessions, a server's tools, a sweep's servers); [Treemap] draws it.
type TreeNode struct {
	Label string
	// Kind names the level ("session", "config", "server", "tool",
	// "part"): it is said in the tooltip and is the box's class.
	Kind string
	// Value is the node's tokens: the area of its box among its siblings.
	// A node of Value 0 gets no box; Missing says why it has no number
	// ("not measured: timeout"), and the treemap lists it under the map.
	Value   int64
	Missing string
	// Note is a line more for the tooltip.
	Note     string
	Children []TreeNode
}

// Rect is a box in the treemap's coordinates.
type Rect struct{ X, Y, W, H float64 }

// Area is the box's area.
func (r Rect) Area() float64 { return r.W * r.H }

// Squarify lays values out in r by the squarified algorithm (Bruls,
// Huizing and van Wijk, 2000): each box's area is its value's share of
// r's, exactly, and boxes are kept near square. out[i] is values[i]'s box;
// a value of zero or less gets an empty box. The layout depends only on
// the values and their order (ties keep it), so it is the same every run.
func Squarify(values []float64, r Rect) []Rect {
	out := make([]Rect, len(values))
	idx := make([]int, 0, len(values))
	total := 0.0
	for i, v := range values {
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			idx = append(idx, i)
			total += v
		}
	}
	if len(idx) == 0 || r.W <= 0 || r.H <= 0 {
		for i := range out {
			out[i] = Rect{X: r.X, Y: r.Y}
		}
		return out
	}
	sort.SliceStable(idx, func(a, b int) bool { return values[idx[a]] > values[idx[b]] })
	for i := range out {
		out[i] = Rect{X: r.X, Y: r.Y}
	}
	// Areas in r's units.
	scale := r.Area() / total
	area := func(i int) float64 { return values[i] * scale }
	free := r
	row := []int{}
	rowSum := 0.0
	// worst is the worst aspect ratio of a row of the given sum laid
	// along a side of length side.
	worst := func(row []int, sum, side float64) float64 {
		lo, hi := math.Inf(1), 0.0
		for _, i := range row {
			a := area(i)
			lo, hi = min(lo, a), max(hi, a)
		}
		s2, w2 := sum*sum, side*side
		return max(w2*hi/s2, s2/(w2*lo))
	}
	place := func(row []int, sum float64, last bool) {
		if free.W >= free.H {
			// A column along the left side.
			w := sum / free.H
			if last {
				w = free.W
			}
			y := free.Y
			for k, i := range row {
				h := area(i) / w
				if k == len(row)-1 {
					h = free.Y + free.H - y
				}
				out[i] = Rect{X: free.X, Y: y, W: w, H: h}
				y += h
			}
			free.X += w
			free.W -= w
		} else {
			// A row along the top.
			h := sum / free.W
			if last {
				h = free.H
			}
			x := free.X
			for k, i := range row {
				w := area(i) / h
				if k == len(row)-1 {
					w = free.X + free.W - x
				}
				out[i] = Rect{X: x, Y: free.Y, W: w, H: h}
				x += w
			}
			free.Y += h
			free.H -= h
		}
		free.W, free.H = max(free.W, 0), max(free.H, 0)
	}
	for k := 0; k < len(idx); {
		i := idx[k]
		side := min(free.W, free.H)
		if len(row) == 0 || worst(append(row, i), rowSum+area(i), side) <= worst(row, rowSum, side) {
			row = append(row, i)
			rowSum += area(i)
			k++
			continue
		}
		place(row, rowSum, false)
		row, rowSum = row[:0], 0
	}
	if len(row) > 0 {
		place(row, rowSum, true)
	}
	return out
}

// TreemapOptions shape a treemap's drawing.
type TreemapOptions struct {
	// ID prefixes the ids of the views (ID-0 the whole map, ID-1... one per
	// zoomable node); unique in the page.
	ID string
	// Title names the whole map ("What is paid before typing").
	Title string
	// Depth is how many levels below the root each view draws (2: the
	// root's children and theirs).
	Depth int
	// ZoomKinds are the kinds of node a click zooms into, each a view of
	// its own.
	ZoomKinds []string
	// Unit words the values ("tokens").
	Unit string
	// HueKind is the kind of node that takes a colour of its own (its
	// boxes inside it share it); "" for the root's children.
	HueKind string
}

// treemap layouts: one wide, one narrow; CSS shows the one that fits.
var treemapSizes = []struct {
	class string
	w, h  float64
}{{"tm-wide", 1000, 540}, {"tm-narrow", 400, 520}}

const (
	minBox   = 0.25 // a box thinner than this is not drawn
	tmFont   = 12.0
	tmHeader = 17.0 // the strip a parent's label takes
	tmPad    = 2.0
)

// Treemap writes root as a zoomable treemap: one view of the whole map
// and one per node of a ZoomKinds kind, each in two layouts (wide and
// narrow). Every box has its tooltip (an SVG <title>), a label where it
// fits, and links to its zoomed view; views switch by the URL's fragment
// (CSS :target), so zooming needs no script. The nodes without a number
// are listed under the map. The caller supplies the table of the same
// figures.
func Treemap(b *strings.Builder, root TreeNode, o TreemapOptions) {
	if o.Depth <= 0 {
		o.Depth = 2
	}
	if o.Unit == "" {
		o.Unit = "tokens"
	}
	type view struct {
		node  *TreeNode
		path  []string
		id    string
		index int
	}
	zoom := map[string]bool{}
	for _, k := range o.ZoomKinds {
		zoom[k] = true
	}
	views := []view{{node: &root, id: o.ID + "-0"}}
	ids := map[*TreeNode]string{}
	var walk func(n *TreeNode, path []string)
	walk = func(n *TreeNode, path []string) {
		for i := range n.Children {
			c := &n.Children[i]
			p := append(append([]string(nil), path...), c.Label)
			if zoom[c.Kind] && c.Value > 0 && len(c.Children) > 0 {
				id := o.ID + "-" + strconv.Itoa(len(views))
				ids[c] = id
				views = append(views, view{node: c, path: p, id: id, index: len(views)})
			}
			walk(c, p)
		}
	}
	walk(&root, nil)
	// Colours: each node of HueKind (or each child of the root) by its
	// place among them, the same in every view.
	hues := map[*TreeNode]int{}
	next := 0
	var paint func(n *TreeNode, depth, hue int)
	paint = func(n *TreeNode, depth, hue int) {
		for i := range n.Children {
			c := &n.Children[i]
			h := hue
			if (o.HueKind == "" && depth == 0) || c.Kind == o.HueKind {
				h = next % 8
				next++
			}
			hues[c] = h
			paint(c, depth+1, h)
		}
	}
	paint(&root, 0, 0)

	b.WriteString(`<div class="treemap" id="` + o.ID + `">` + "\n")
	for vi, v := range views {
		cls := "tm-view"
		if vi == 0 {
			cls += " tm-root"
		}
		fmt.Fprintf(b, `<div class="%s" id="%s">`+"\n", cls, v.id)
		// The trail back up.
		b.WriteString(`<p class="tm-trail">`)
		if vi == 0 {
			b.WriteString(esc(o.Title) + ": " + esc(num.Int(int(root.Value))) + " " + esc(o.Unit))
		} else {
			b.WriteString(`<a href="#` + o.ID + `-0">` + esc(o.Title) + `</a>`)
			for _, p := range v.path {
				b.WriteString(" › " + esc(p))
			}
			b.WriteString(": " + esc(num.Int(int(v.node.Value))) + " " + esc(o.Unit))
		}
		b.WriteString("</p>\n")
		for _, sz := range treemapSizes {
			fmt.Fprintf(b, `<svg class="%s" viewBox="0 0 %g %g" role="group" aria-label="%s">`, sz.class, sz.w, sz.h, esc(treemapAria(o, v.node, v.path)))
			tm := &tmDraw{b: b, ids: ids, unit: o.Unit, self: v.node, hues: hues, hueKind: o.HueKind}
			tm.children(v.node, Rect{0, 0, sz.w, sz.h}, 0, o.Depth, v.path)
			b.WriteString("</svg>\n")
		}
		var missing []string
		var collect func(n *TreeNode, path []string)
		collect = func(n *TreeNode, path []string) {
			for i := range n.Children {
				c := &n.Children[i]
				p := append(append([]string(nil), path...), c.Label)
				if c.Missing != "" {
					missing = append(missing, strings.Join(p, " › ")+" ("+c.Missing+")")
				}
				collect(c, p)
			}
		}
		collect(v.node, nil)
		if len(missing) > 0 {
			b.WriteString(`<p class="tm-missing"><span class="badge">no number</span> Not in the map: ` + esc(strings.Join(missing, "; ")) + ".</p>\n")
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("</div>\n")
}

func treemapAria(o TreemapOptions, n *TreeNode, path []string) string {
	s := o.Title
	if len(path) > 0 {
		s += ", " + strings.Join(path, " › ")
	}
	s += ": " + num.Int(int(n.Value)) + " " + o.Unit + "; the table below gives the same figures"
	return s
}

type tmDraw struct {
	b       *strings.Builder
	ids     map[*TreeNode]string
	unit    string
	self    *TreeNode
	hues    map[*TreeNode]int
	hueKind string
}

// children lays n's children out in r and draws them, down to depth.
func (t *tmDraw) children(n *TreeNode, r Rect, depth, maxDepth int, path []string) {
	values := make([]float64, len(n.Children))
	for i, c := range n.Children {
		values[i] = float64(max(c.Value, 0))
	}
	boxes := Squarify(values, r)
	for i := range n.Children {
		c := &n.Children[i]
		if c.Value <= 0 || boxes[i].W < minBox || boxes[i].H < minBox {
			continue // no box, or one too small to see: the table has it
		}
		t.box(c, n, boxes[i], depth, maxDepth, append(append([]string(nil), path...), c.Label), t.hues[c])
	}
}

func (t *tmDraw) box(c, parent *TreeNode, r Rect, depth, maxDepth int, path []string, hue int) {
	b := t.b
	link := t.ids[c]
	if link != "" && c != t.self {
		b.WriteString(`<a href="#` + link + `">`)
	}
	fmt.Fprintf(b, `<g class="tm-node tm-%s" data-kind="%s" data-value="%d">`, cssName(c.Kind), esc(cssName(c.Kind)), c.Value)
	tip := strings.Join(path, " › ") + ": " + num.Int(int(c.Value)) + " " + t.unit
	if parent.Value > 0 {
		tip += " (" + Percent(float64(c.Value)/float64(parent.Value)) + " of " + parent.Label + ")"
	}
	if c.Kind != "" {
		tip = c.Kind + " " + tip
	}
	if c.Note != "" {
		tip += "\n" + c.Note
	}
	if link != "" && c != t.self {
		tip += "\nclick to zoom in"
	}
	fmt.Fprintf(b, `<title>%s</title>`, escLines(tip))
	nested := depth+1 < maxDepth && len(c.Children) > 0
	inner := Rect{r.X + tmPad, r.Y + tmHeader, r.W - 2*tmPad, r.H - tmHeader - tmPad}
	if nested && (inner.W < 8 || inner.H < 8) {
		nested = false
	}
	shape := "leaf"
	if nested {
		shape = "parent"
	}
	fmt.Fprintf(b, `<rect class="h%d d%d %s" x="%s" y="%s" width="%s" height="%s"/>`, hue, depth, shape, f2(r.X), f2(r.Y), f2(r.W), f2(r.H))
	t.label(c, r, nested)
	if nested {
		t.children(c, inner, depth+1, maxDepth, path)
	}
	b.WriteString("</g>")
	if link != "" && c != t.self {
		b.WriteString("</a>")
	}
	b.WriteString("\n")
}

// label writes the box's name and tokens where they fit: in the header
// strip of a box with children drawn, else at its top left, the tokens on
// a second line when there is room.
func (t *tmDraw) label(c *TreeNode, r Rect, header bool) {
	name := textsafe.Text(c.Label)
	figure := num.Int(int(c.Value))
	fits := func(s string, w float64) bool { return textWidth(s, tmFont) <= w-8 }
	if header {
		if r.H < tmHeader || r.W < 20 {
			return
		}
		line := name + " " + figure
		switch {
		case fits(line, r.W):
		case fits(name, r.W):
			line = name
		default:
			return
		}
		fmt.Fprintf(t.b, `<text x="%s" y="%s">%s</text>`, f2(r.X+4), f2(r.Y+tmFont+1), esc(line))
		return
	}
	if r.H < tmFont+6 || !fits(name, r.W) {
		return
	}
	fmt.Fprintf(t.b, `<text x="%s" y="%s">%s`, f2(r.X+4), f2(r.Y+tmFont+2), esc(name))
	if r.H >= 2*tmFont+10 && fits(figure, r.W) {
		fmt.Fprintf(t.b, `<tspan class="fig" x="%s" dy="%g">%s</tspan>`, f2(r.X+4), tmFont+3, esc(figure))
	}
	t.b.WriteString("</text>")
}

// textWidth is a generous estimate of s's width in a sans-serif font of
// size px: wide letters and digits at 0.62 em, narrow ones at 0.3.
func textWidth(s string, px float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("iljtf.,:;'|!I ()[]", r):
			w += 0.32
		case r >= 0x1100: // wide scripts, emoji
			w += 1.05
		case strings.ContainsRune("mwMW@%", r):
			w += 0.9
		default:
			w += 0.62
		}
	}
	return w * px
}

// cssName keeps a kind to the letters a class name may hold.
func cssName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "node"
	}
	return b.String()
}

// f2 writes a coordinate with two decimals at most.
func f2(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// esc escapes text for HTML and SVG alike (element content and quoted
// attributes), after textsafe has made control and bidi characters
// visible. Characters XML 1.0 forbids never reach the page.
func esc(s string) string { return html.EscapeString(xmlChars.Replace(textsafe.Text(s))) }

// escLines is [esc] that keeps line feeds (a tooltip's lines).
func escLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = esc(l)
	}
	return strings.Join(lines, "\n")
}

// xmlChars writes visibly the two characters valid UTF-8 holds that XML
// 1.0 forbids, so that the SVG stays well-formed XML as well as HTML.
var xmlChars = strings.NewReplacer("\uFFFE", `\ufffe`, "\uFFFF", `\uffff`)
