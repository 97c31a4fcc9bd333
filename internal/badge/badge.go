// Package badge makes the context-cost badge of a measurement: a shields.io
// endpoint JSON (schemaVersion, label, message, color, cacheSeconds) and a
// self-contained SVG that mcpcost renders itself, so a badge needs no
// third-party service.
//
// # Colour bands (frozen)
//
// The colour follows the token count, in the bands of mcp-context-cost
// (frozen on 2026-08-16 against its first sweep of 57 servers: p25 581,
// median 2,636, p75 5,258, p90 10,426). They do not change; a change would
// be a new methodology version.
//
//	tokens          colour        meaning
//	< 1,000         brightgreen   lean
//	1,000–4,999     green         light
//	5,000–14,999    yellow        moderate
//	15,000–29,999   orange        heavy
//	≥ 30,000        red           very heavy
//	not measured    lightgrey     message "unknown"
//
// The message is "N tokens" with en-US thousands separators ("2,378
// tokens"), or "≥N tokens" when the number is a lower bound (a config with
// servers that could not be measured).
package badge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// Band is one colour band: counts from Min up to the next band's Min.
type Band struct {
	Min   int    `json:"min"`
	Color string `json:"color"` // shields.io colour name
	Hex   string `json:"hex"`   // the colour shields.io draws for it
	Label string `json:"label"`
}

// Bands are the frozen colour bands, lightest first.
var Bands = []Band{
	{0, "brightgreen", "#4c1", "lean"},
	{1000, "green", "#97ca00", "light"},
	{5000, "yellow", "#dfb317", "moderate"},
	{15000, "orange", "#fe7d37", "heavy"},
	{30000, "red", "#e05d44", "very heavy"},
}

// Unknown is the colour of a badge without a number.
var Unknown = Band{-1, "lightgrey", "#9f9f9f", "unknown"}

// DefaultLabel is the badge's left-hand text.
const DefaultLabel = "context cost"

// CacheSeconds is how long shields.io may cache the endpoint.
const CacheSeconds = 3600

// BandFor returns the band of a token count.
func BandFor(tokens int) Band {
	b := Bands[0]
	for _, x := range Bands {
		if tokens >= x.Min {
			b = x
		}
	}
	return b
}

// Endpoint is a shields.io endpoint JSON, with mcp-context-cost's key
// order.
type Endpoint struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
	CacheSeconds  int    `json:"cacheSeconds"`
}

// New makes the badge of a count: tokens nil for a server or config that
// could not be measured; lowerBound when the count leaves out servers that
// could not be measured. An empty label is DefaultLabel.
func New(label string, tokens *int, lowerBound bool) Endpoint {
	if label == "" {
		label = DefaultLabel
	}
	e := Endpoint{SchemaVersion: 1, Label: label, CacheSeconds: CacheSeconds}
	if tokens == nil {
		e.Message, e.Color = "unknown", Unknown.Color
		return e
	}
	e.Message = num.Int(*tokens) + " tokens"
	if lowerBound {
		e.Message = "≥" + e.Message
	}
	e.Color = BandFor(*tokens).Color
	return e
}

// JSON is the endpoint as mcp-context-cost writes it: compact, then a
// newline.
func (e Endpoint) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(e) // a struct of strings and ints cannot fail
	return b.Bytes()
}

// Hex is the colour the SVG draws.
func (e Endpoint) Hex() string {
	for _, b := range append([]Band{Unknown}, Bands...) {
		if b.Color == e.Color {
			return b.Hex
		}
	}
	return Unknown.Hex
}

// SVG renders the badge in the flat style of shields.io, self-contained:
// text widths come from a built-in table of Verdana 11px advance widths, so
// it looks right without any font lookup. link, when not empty, makes the
// whole badge a link to it (the measurement the badge came from); title is
// the tooltip (by default "label: message").
//
// Every text (label, message, title, link) is written as [textsafe.Text]
// shows it, so that no character XML 1.0 forbids (C0 controls, U+FFFE,
// U+FFFF) and no C1 control, DEL or bidi override reaches the file: the
// SVG stays well-formed XML and reads as it is drawn.
func (e Endpoint) SVG(link, title string) []byte {
	if title == "" {
		title = e.Label + ": " + e.Message
	}
	label, message := visible(e.Label), visible(e.Message)
	const pad = 5 // each side of a text
	lw := int(math.Round(TextWidth(label))) + 2*pad
	mw := int(math.Round(TextWidth(message))) + 2*pad
	w := lw + mw
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="%d" height="20" role="img" aria-label="%s">`, w, esc(title))
	fmt.Fprintf(&b, "<title>%s</title>", esc(title))
	if link != "" {
		fmt.Fprintf(&b, `<a target="_blank" href="%s" xlink:href="%s">`, esc(link), esc(link))
	}
	b.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&b, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`, w)
	fmt.Fprintf(&b, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`, lw, lw, mw, e.Hex(), w)
	b.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">`)
	text := func(s string, x10, width int) {
		// Drawn at ten times the size and scaled down, as shields.io does,
		// for sub-pixel placement; textLength pins the width.
		fmt.Fprintf(&b, `<text aria-hidden="true" x="%d" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="%d">%s</text>`, x10, (width-2*pad)*10, esc(s))
		fmt.Fprintf(&b, `<text x="%d" y="140" transform="scale(.1)" fill="#fff" textLength="%d">%s</text>`, x10, (width-2*pad)*10, esc(s))
	}
	// x is the centre of each text, in tenths of a pixel.
	text(label, lw*5, lw)
	text(message, lw*10+mw*5, mw)
	b.WriteString("</g>")
	if link != "" {
		b.WriteString("</a>")
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// esc writes s for XML text or an attribute value: visible, then with
// XML's special characters escaped.
func esc(s string) string {
	return xmlEscaper.Replace(visible(s))
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// visible is s as textsafe.Text shows it, with the noncharacters U+FFFE
// and U+FFFF, which XML 1.0 does not allow either, written as escapes.
func visible(s string) string { return nonCharacters.Replace(textsafe.Text(s)) }

var nonCharacters = strings.NewReplacer("\uFFFE", `\ufffe`, "\uFFFF", `\uffff`)

// TextWidth is the width in pixels of s in Verdana at 11px.
func TextWidth(s string) float64 {
	units := 0
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7f:
			units += verdana[r-0x20]
		case r == '≥' || r == '≤':
			units += 1675
		default:
			units += 1303 // a typical glyph
		}
	}
	return float64(units) * 11 / 2048
}

// verdana holds the advance widths of Verdana's printable ASCII glyphs
// (U+0020 to U+007E) in font units of 2048 per em.
var verdana = [95]int{
	720, 821, 942, 1675, 1303, 2215, 1495, 548, 909, 909, 1303, 1675, 745, 942, 745, 1303, // space to /
	1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, // 0 to 9
	909, 909, 1675, 1675, 1675, 1117, 2048, // : to @
	1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 862, 931, 1423, 1141, 1718, // A to M
	1532, 1612, 1235, 1612, 1424, 1399, 1245, 1503, 1401, 2025, 1403, 1237, 1404, // N to Z
	909, 1303, 909, 1675, 1303, 1303, // [ to `
	1229, 1276, 1067, 1276, 1220, 723, 1276, 1296, 563, 700, 1205, 563, 1986, // a to m
	1296, 1243, 1276, 1276, 874, 1064, 807, 1296, 1205, 1675, 1200, 1205, 1073, // n to z
	1300, 909, 1300, 1675, // { to ~
}
