// Package canontest generates JSON documents whose arrays and objects have
// every size around the powers of two, for the tests and fuzz seeds of the
// packages that parse, canonicalize and count JSON.
//
// Each document is valid JSON but not in canonical form: it has whitespace,
// escapes, numbers in other spellings, array-index keys out of order and a
// duplicate key, so that canonicalizing it does some work. The documents are
// the same on every call.
package canontest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Sizes are the member counts of the boundary documents: both sides of each
// power of two from 8 to 1024, and a few more.
var Sizes = []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129,
	255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2049, 4097}

// Depths are the nesting levels the shapes are wrapped in.
var Depths = []int{0, 2, 129}

// Shapes are the names of the document shapes, in the order Docs returns
// them.
var Shapes = []string{"enum", "properties", "scalars", "index-keys", "nested-arrays", "mixed", "tools"}

// A Doc is one generated document.
type Doc struct {
	Name string // shape/size/depth, such as "enum/100/depth2"
	JSON []byte
}

// Docs returns every shape at every size in Sizes and every depth in Depths.
func Docs() []Doc {
	var docs []Doc
	for _, depth := range Depths {
		for _, n := range Sizes {
			for _, shape := range Shapes {
				docs = append(docs, Doc{fmt.Sprintf("%s/%d/depth%d", shape, n, depth), Shape(shape, n, depth)})
			}
		}
	}
	return docs
}

// SeedSizes are the sizes of the documents Seeds returns: both sides of
// the parser's first slabs, of 512 and of 1024.
var SeedSizes = []int{0, 1, 64, 65, 100, 129, 511, 513, 1025}

// Seeds returns a selection of the documents for fuzz targets: every
// shape at every size in SeedSizes, at depth 0 and at the deepest of
// Depths.
func Seeds() [][]byte {
	var seeds [][]byte
	for _, depth := range []int{0, Depths[len(Depths)-1]} {
		for _, n := range SeedSizes {
			for _, shape := range Shapes {
				seeds = append(seeds, Shape(shape, n, depth))
			}
		}
	}
	return seeds
}

// SeedLines returns Seeds with the whitespace between tokens removed, so
// that each fits on one line of JSON Lines or JSON-RPC over stdio.
func SeedLines() [][]byte {
	seeds := Seeds()
	for i, s := range seeds {
		seeds[i] = Compact(s)
	}
	return seeds
}

// Compact returns doc, a valid JSON document, without the whitespace
// between its tokens.
func Compact(doc []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		panic("canontest: compacting a document that is not JSON: " + err.Error())
	}
	return b.Bytes()
}

// Shape returns the document of the named shape (one of Shapes) with n
// members, wrapped in depth levels of alternating objects and arrays:
//
//   - enum: a tools/list result whose one tool has a property with an enum
//     of n strings;
//   - properties: a tools/list result whose one tool has n properties, half
//     of them required;
//   - scalars: an object of n members, each a scalar in a spelling that
//     canonicalizing changes (escapes, exponents, -0, 1.0);
//   - index-keys: an object of n distinct keys, most of them array indices
//     in a scrambled order, some escaped, some that only look like one
//     ("07", "-7", "7.0", "4294967295"), then the first key again;
//   - nested-arrays: an array of n values, each in arrays up to four deep;
//   - mixed: an array of n values of every kind, containers included;
//   - tools: a tools/list result of n tools.
//
// It panics on an unknown shape.
func Shape(shape string, n, depth int) []byte {
	var w writer
	for d := range depth {
		// Each level holds a member or element before the next one, so
		// that the parser's stacks are not empty when the shape starts.
		if d%2 == 0 {
			fmt.Fprintf(&w, `{"level":%d,"in":`, d)
		} else {
			fmt.Fprintf(&w, `[%d,`, d)
		}
		w.ws(d)
	}
	switch shape {
	case "enum":
		w.toolsList(1, func(int) { w.enumTool(n) })
	case "properties":
		w.toolsList(1, func(int) { w.propertiesTool(n) })
	case "scalars":
		w.scalars(n)
	case "index-keys":
		w.indexKeys(n)
	case "nested-arrays":
		w.nestedArrays(n)
	case "mixed":
		w.mixed(n)
	case "tools":
		w.toolsList(n, w.tool)
	default:
		panic("canontest: unknown shape " + shape)
	}
	for d := depth - 1; d >= 0; d-- {
		w.ws(d + 1)
		if d%2 == 0 {
			w.raw("}")
		} else {
			w.raw("]")
		}
	}
	return w.b
}

// Tools returns a tools/list result of n tools, the input of a measurement.
func Tools(n int) []byte { return Shape("tools", n, 0) }

// ToolsArray returns the tools array of Tools(n) alone, as a
// measurement.json's rawToolsCapture holds it.
func ToolsArray(n int) []byte {
	var w writer
	w.list("[", "]", n, w.tool)
	return w.b
}

type writer struct {
	b []byte
}

func (w *writer) raw(s string) { w.b = append(w.b, s...) }

// ws writes whitespace chosen by i: none most of the time, else each of
// JSON's four whitespace characters in turn.
func (w *writer) ws(i int) {
	switch i % 7 {
	case 1:
		w.raw(" ")
	case 3:
		w.raw("\n  ")
	case 5:
		w.raw("\r\n\t")
	}
}

// list writes n items between open and close, separated by commas and
// varied whitespace.
func (w *writer) list(open, close string, n int, item func(i int)) {
	w.raw(open)
	for i := range n {
		if i > 0 {
			w.raw(",")
		}
		w.ws(i)
		item(i)
	}
	w.ws(n)
	w.raw(close)
}

func (w *writer) toolsList(n int, tool func(i int)) {
	w.raw(`{"tools":`)
	w.list("[", "]", n, tool)
	w.raw(`}`)
}

// tool writes a small tool, varied by i: one in five has annotations, one
// in seven a title written with escapes, one in three a required
// argument.
func (w *writer) tool(i int) {
	fmt.Fprintf(w, `{"name":"tool_%d","description":"Reads item %d.\nUse it for \"%d\".",`, i, i, i)
	if i%7 == 3 {
		fmt.Fprintf(w, `"title":"T\u00f6\u00f6l %d \ud83d\ude00",`, i)
	}
	w.raw(`"inputSchema":{"type":"object","properties":{"id":{"type":"integer","maximum":1.0E3}}`)
	if i%3 == 0 {
		w.raw(`,"required":["id"]`)
	}
	w.raw("}")
	if i%5 == 1 {
		w.raw(`,"annotations":{"readOnlyHint":true}`)
	}
	w.raw("}")
}

func (w *writer) enumTool(n int) {
	w.raw(`{"name":"choose","description":"Pick one mode.","inputSchema":{"type":"object","properties":{"mode":{"type":"string","enum":`)
	w.list("[", "]", n, func(i int) {
		switch i % 4 {
		case 1:
			fmt.Fprintf(w, `"mode-%d\u002d\u00e9"`, i)
		case 3:
			fmt.Fprintf(w, `"%d"`, i)
		default:
			fmt.Fprintf(w, `"mode-%d"`, i)
		}
	})
	w.raw(`,"default":"mode-0"}},"required":["mode"]}}`)
}

func (w *writer) propertiesTool(n int) {
	w.raw(`{"name":"configure","description":"Set many options at once.","inputSchema":{"type":"object","properties":`)
	w.list("{", "}", n, func(i int) {
		switch i % 3 {
		case 0:
			fmt.Fprintf(w, `"opt_%d":{"type":"string","description":"Option %d, a string."}`, i, i)
		case 1:
			fmt.Fprintf(w, `"opt_%d":{"type":"number","minimum":-1e1,"default":%d.0}`, i, i)
		default:
			fmt.Fprintf(w, `"opt_%d":{"type":"array","items":{"type":"boolean"}}`, i)
		}
	})
	w.raw(`,"required":`)
	w.list("[", "]", (n+1)/2, func(i int) { fmt.Fprintf(w, `"opt_%d"`, 2*i) })
	w.raw(`}}`)
}

// scalarSpellings are scalars in spellings that canonicalizing changes, or
// keeps, in turn; %d is replaced by the member's index.
var scalarSpellings = []string{
	`%d`, `%d.0`, `-%de-3`, `%dE+2`, `"s%d"`, `"\u0073%d\n\t\"\\\/"`, `true`, `false`, `null`,
	`-0`, `1e21`, `5e-324`, `0.1`, `1e-7`, `123456789012345678901`, `"\ud800%d"`, `"<%d>&\u2028"`, `1e400`,
}

func (w *writer) scalars(n int) {
	w.list("{", "}", n, func(i int) {
		fmt.Fprintf(w, `"m%d":`, i)
		w.scalar(i)
	})
}

func (w *writer) scalar(i int) {
	s := scalarSpellings[i%len(scalarSpellings)]
	if strings.Contains(s, "%d") {
		s = strings.ReplaceAll(s, "%d", strconv.Itoa(i))
	}
	w.raw(s)
}

// indexKey returns the i-th key of an object of n distinct keys: a
// scrambled order of the array indices 0..n-1, some of them with an
// escaped first digit, and in every sixth place a key that is not one or
// is far beyond n: the largest index 4294967294, the smallest non-index
// 4294967295, and ones that only look like an index ("07", "-7", "7.0",
// " 7").
func indexKey(i, n int) string {
	if i%6 == 5 {
		switch {
		case i == 5:
			return "4294967294"
		case i == 11:
			return "4294967295"
		}
		return fmt.Sprintf([]string{"0%d", "-%d", "%d.0", " %d"}[i/6%4], i)
	}
	// 7919 is a prime above every size, so this is a permutation.
	k := strconv.Itoa((i*7919 + 13) % n)
	if i%12 == 2 {
		return `\u003` + k[:1] + k[1:]
	}
	return k
}
func (w *writer) indexKeys(n int) {
	m := n
	if n > 0 {
		m++ // the duplicate
	}
	w.list("{", "}", m, func(i int) {
		k := indexKey(i%n, n)
		if i == n {
			fmt.Fprintf(w, `"%s":"last"`, k)
			return
		}
		fmt.Fprintf(w, `"%s":%d`, k, i)
	})
}

func (w *writer) nestedArrays(n int) {
	w.list("[", "]", n, func(i int) {
		d := i % 5
		for range d {
			w.raw("[")
		}
		w.scalar(i)
		for range d {
			w.raw(",[]]")
		}
	})
}

func (w *writer) mixed(n int) {
	w.list("[", "]", n, func(i int) {
		switch i % 6 {
		case 0:
			w.scalar(i)
		case 1:
			fmt.Fprintf(w, `{"b":%d,"a":[%d,"x"],"%d":{},"b":"dup"}`, i, i, i%10)
		case 2:
			fmt.Fprintf(w, `[%d,{"k":[]},"\u00e9\ud83d\ude00",[[null]]]`, i)
		case 3:
			w.raw(`{}`)
		case 4:
			w.raw(`[]`)
		default:
			fmt.Fprintf(w, `{"name":"v%d","value":%d.50,"tags":["a","b"]}`, i, i)
		}
	})
}

// Write makes a writer an io.Writer for fmt.Fprintf.
func (w *writer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
