package badge

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/textsafe/textsafetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\ngot:  %s\nwant: %s", name, got, want)
	}
}

// The golden vector of mcp-context-cost's fixtures: 196 tokens.
func TestGoldenVector(t *testing.T) {
	n := 196
	got := string(New("", &n, false).JSON())
	want := `{"schemaVersion":1,"label":"context cost","message":"196 tokens","color":"brightgreen","cacheSeconds":3600}` + "\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestBands(t *testing.T) {
	tests := []struct {
		tokens  int
		color   string
		message string
	}{
		{0, "brightgreen", "0 tokens"},
		{999, "brightgreen", "999 tokens"},
		{1000, "green", "1,000 tokens"},
		{2378, "green", "2,378 tokens"},
		{4999, "green", "4,999 tokens"},
		{5000, "yellow", "5,000 tokens"},
		{14999, "yellow", "14,999 tokens"},
		{15000, "orange", "15,000 tokens"},
		{29999, "orange", "29,999 tokens"},
		{30000, "red", "30,000 tokens"},
		{54422, "red", "54,422 tokens"},
		{1234567, "red", "1,234,567 tokens"},
	}
	for _, tt := range tests {
		n := tt.tokens
		e := New("", &n, false)
		if e.Color != tt.color || e.Message != tt.message {
			t.Errorf("%d: %s %q, want %s %q", n, e.Color, e.Message, tt.color, tt.message)
		}
	}
	n2378 := 2378
	golden(t, "2378.json", New("", &n2378, false).JSON())
	golden(t, "unknown.json", New("", nil, false).JSON())
	if e := New("x", nil, false); e.Color != "lightgrey" || e.Message != "unknown" || e.Label != "x" {
		t.Errorf("unmeasured: %+v", e)
	}
	n := 1200
	if e := New("", &n, true); e.Message != "≥1,200 tokens" || e.Color != "green" {
		t.Errorf("lower bound: %+v", e)
	}
}

type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	Width   int      `xml:"width,attr"`
	Title   string   `xml:"title"`
	Link    struct {
		Href  string `xml:"href,attr"`
		Rects []struct {
			Fill string `xml:"fill,attr"`
		} `xml:"g>rect"`
		Texts []string `xml:"g>text"`
	} `xml:"a"`
}

func TestSVG(t *testing.T) {
	for _, tt := range []struct {
		tokens int
		hex    string
		file   string
	}{
		{196, "#4c1", "196.svg"},
		{2378, "#97ca00", "2378.svg"},
		{7000, "#dfb317", "7000.svg"},
		{20000, "#fe7d37", "20000.svg"},
		{54422, "#e05d44", "54422.svg"},
	} {
		n := tt.tokens
		e := New("", &n, false)
		b := e.SVG("https://example.com/m.json?a=1&b=2", "")
		golden(t, tt.file, b)
		// Well-formed XML all the way through.
		dec := xml.NewDecoder(bytes.NewReader(b))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: not well-formed XML: %v", tt.file, err)
			}
		}
		var doc svgDoc
		if err := xml.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Title != "context cost: "+e.Message {
			t.Errorf("title %q", doc.Title)
		}
		if doc.Link.Href != "https://example.com/m.json?a=1&b=2" {
			t.Errorf("link %q", doc.Link.Href)
		}
		if len(doc.Link.Rects) != 3 || doc.Link.Rects[0].Fill != "#555" || doc.Link.Rects[1].Fill != tt.hex {
			t.Errorf("%s: rects %+v, want the message on %s", tt.file, doc.Link.Rects, tt.hex)
		}
		want := []string{"context cost", "context cost", e.Message, e.Message}
		if strings.Join(doc.Link.Texts, "|") != strings.Join(want, "|") {
			t.Errorf("texts %q", doc.Link.Texts)
		}
		if doc.Width < 100 || doc.Width > 200 {
			t.Errorf("width %d", doc.Width)
		}
	}
}

func TestSVGEscapes(t *testing.T) {
	e := New(`a<b>&"c"`, nil, false)
	b := e.SVG("", "")
	var doc struct {
		Title string   `xml:"title"`
		Texts []string `xml:"g>text"`
		Links []string `xml:"a"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if doc.Title != `a<b>&"c": unknown` || doc.Texts[0] != `a<b>&"c"` || len(doc.Links) != 0 {
		t.Errorf("%+v", doc)
	}
	if !strings.Contains(string(b), `fill="#9f9f9f"`) {
		t.Error("unknown is not lightgrey")
	}
}

// Widths from the Verdana table: shields.io's own label widths are the
// reference (its "build" label box is 37 px: 27 of text and 10 of padding).
func TestTextWidth(t *testing.T) {
	if w := TextWidth("build"); w < 26 || w > 28 {
		t.Errorf("build: %.1f px", w)
	}
	if TextWidth("WWW") <= TextWidth("iii")*2 {
		t.Error("W is not wider than i")
	}
	if TextWidth("") != 0 {
		t.Error("empty text has width")
	}
}

// hostile is a server name that attacks a terminal and XML: C0 controls
// (ESC, BEL, CR, LF, NUL), DEL, a C1 CSI, bidi overrides, U+2028, the
// noncharacters U+FFFE and U+FFFF, bytes that are not UTF-8, and markup.
const hostile = "evil\x1b[2J\x1b]0;pwned\x07\r\nmcpcost: all OK\x00\x7f\u009b\u202e\u2066\u2028\ufffe\uffff\xff\xfe <script>&amp;</script> \"'"

// checkSVG fails unless b is well-formed XML holding no character XML 1.0
// forbids and no unsafe one (textsafe), whose title and texts read as the
// label, message and title shown visibly.
func checkSVG(t *testing.T, b []byte, label, message, title string) {
	t.Helper()
	if err := textsafetest.CheckText(string(b)); err != nil {
		t.Fatalf("%v", err)
	}
	if strings.ContainsAny(string(b), "\ufffe\uffff") {
		t.Fatalf("a noncharacter is written raw")
	}
	// The texts of <title> and of each <text>, wherever they are.
	texts := map[string][]string{}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var open string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			open = tok.Name.Local
		case xml.CharData:
			texts[open] = append(texts[open], string(tok))
		case xml.EndElement:
			open = ""
		}
	}
	short := func(s string) string {
		if len(s) > 200 {
			return s[:200] + "..."
		}
		return s
	}
	got := texts["text"]
	if len(got) != 4 || got[0] != visible(label) || got[2] != visible(message) || len(texts["title"]) != 1 || texts["title"][0] != visible(title) {
		t.Fatalf("the texts do not read as shown: %q %q", short(strings.Join(texts["title"], "")), short(strings.Join(got, " | ")))
	}
}

// A hostile name (the title mcpcost badge writes) and label make a badge
// that is well-formed XML, drawn with the escapes textsafe shows.
func TestSVGHostile(t *testing.T) {
	n := 1234
	e := New(hostile, &n, false)
	title := hostile + ": " + e.Label + ": " + e.Message
	b := e.SVG("https://e.example/"+hostile, title)
	checkSVG(t, b, hostile, e.Message, title)
	if !strings.Contains(string(b), `evil\x1b[2J\x1b]0;pwned\x07\r\nmcpcost: all OK\x00\x7f\u009b\u202e\u2066\u2028\ufffe\uffff\xff\xfe &lt;script&gt;&amp;amp;&lt;/script&gt; &quot;&#39;`) {
		t.Errorf("the name is not shown with its escapes:\n%s", b)
	}
	// The width is that of the text drawn.
	if want := int(math.Round(TextWidth(visible(hostile)))) + 10 + int(math.Round(TextWidth(e.Message))) + 10; !strings.Contains(string(b), fmt.Sprintf(`width="%d"`, want)) {
		t.Errorf("the badge is not %d wide", want)
	}
}

func FuzzSVG(f *testing.F) {
	for _, seed := range []string{
		"", "context cost", hostile, strings.Repeat(hostile, 2000), strings.Repeat("\x00\x1b\ufffe", 50000),
		strings.Repeat("\xed\xa0\x80", 1000), // an encoded surrogate: not UTF-8
		strings.Repeat("<&>", 30000) + "\x1b",
	} {
		f.Add(seed, seed)
	}
	f.Fuzz(func(t *testing.T, label, title string) {
		n := len(label)
		e := New(label, &n, true)
		if title == "" {
			title = e.Label + ": " + e.Message
		}
		checkSVG(t, e.SVG(label, title), e.Label, e.Message, title)
	})
}
