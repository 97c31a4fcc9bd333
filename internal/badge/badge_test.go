package badge

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
