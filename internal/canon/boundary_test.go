package canon

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// TestBoundaryDocsNode compares Transform and Marshal(Parse) with Node's
// JSON.stringify(JSON.parse(x)) on every boundary document: every shape of
// canontest at every size and depth.
func TestBoundaryDocsNode(t *testing.T) {
	n := startNode(t)
	docs := canontest.Docs()
	inputs := make([][]byte, len(docs))
	size := 0
	for i, d := range docs {
		inputs[i] = d.JSON
		size += len(d.JSON)
	}
	start := time.Now()
	want := n.canonAll(t, inputs)
	t.Logf("node canonicalized %d documents (%d bytes) in %v", len(docs), size, time.Since(start))
	for i, d := range docs {
		if want[i].status != 0 {
			t.Fatalf("%s: node rejects the document: %s", d.Name, want[i].out)
		}
		t.Run(d.Name, func(t *testing.T) { checkNodeResult(t, d.JSON, want[i]) })
	}
}

// TestBoundaryDocsSizes checks that the generator's documents have the
// sizes they claim: the shape's array or object, under its depth levels,
// has n members.
func TestBoundaryDocsSizes(t *testing.T) {
	for _, depth := range canontest.Depths {
		for _, n := range canontest.Sizes {
			for _, shape := range canontest.Shapes {
				doc := canontest.Shape(shape, n, depth)
				if !json.Valid(doc) {
					t.Fatalf("%s/%d/%d: not valid JSON", shape, n, depth)
				}
				v, err := Parse(doc)
				if err != nil {
					t.Fatalf("%s/%d/%d: %v", shape, n, depth, err)
				}
				for d := range depth {
					if d%2 == 0 {
						v = v.Get("in")
					} else {
						v = v.Elems()[1]
					}
				}
				var got *Value
				switch shape {
				case "enum":
					got = v.Get("tools").Elems()[0].Get("inputSchema").Get("properties").Get("mode").Get("enum")
				case "properties":
					got = v.Get("tools").Elems()[0].Get("inputSchema").Get("properties")
				case "tools":
					got = v.Get("tools")
				default:
					got = v
				}
				if got.Len() != n {
					t.Errorf("%s/%d/%d: %d members", shape, n, depth, got.Len())
				}
			}
		}
	}
}
