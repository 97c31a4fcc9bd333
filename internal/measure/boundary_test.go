package measure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/canon/canontest"
	"github.com/mcpcost/mcpcost/internal/token"
)

// TestBoundaryToolLists measures tools/list results of the boundary sizes
// (to 1025) of tools, enum values and properties, as a file and as JSON-RPC lines, and
// verifies the measurement.json written for each, in mcpcost's form and in
// mcp-context-cost's (without mcpcost's additions).
func TestBoundaryToolLists(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, shape := range []string{"tools", "enum", "properties"} {
		for _, n := range append([]int{118}, canontest.Sizes...) {
			if n > 1025 {
				continue // beyond every slab; canon's own tests cover them
			}
			name := fmt.Sprintf("%s-%d", shape, n)
			doc := canontest.Shape(shape, n, 0)
			wantTools := n
			if shape != "tools" {
				wantTools = 1
			}
			// The canonical tools array, by the streaming path.
			streamed, err := canon.Transform(doc)
			if err != nil {
				t.Fatalf("%s: Transform: %v", name, err)
			}
			wantCanonical := bytes.TrimSuffix(bytes.TrimPrefix(streamed, []byte(`{"tools":`)), []byte(`}`))
			// A JSON-RPC line holds no line break: the document in
			// canonical form.
			wire := []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"b","version":"1"}}}` + "\n" +
				`{"jsonrpc":"2.0","id":2,"result":` + string(streamed) + "}\n")
			for _, in := range []struct {
				kind string
				data []byte
			}{{"file", doc}, {"wire", wire}} {
				c, err := ParseInput(name, in.data)
				if err != nil {
					t.Fatalf("%s %s: ParseInput: %v", name, in.kind, err)
				}
				r := Tools(c.Tools, nil)
				if r.ToolCount != wantTools || len(r.Tools) != wantTools {
					t.Fatalf("%s %s: %d tools, want %d", name, in.kind, r.ToolCount, wantTools)
				}
				if !bytes.Equal(r.Canonical, wantCanonical) {
					t.Fatalf("%s %s: canonical tools array differs from Transform's", name, in.kind)
				}
				if want := token.O200k().Count(string(wantCanonical)); r.TotalTokens != want {
					t.Errorf("%s %s: %d tokens, the canonical array counts %d", name, in.kind, r.TotalTokens, want)
				}
				if in.kind == "wire" {
					continue
				}
				b, err := NewFile(r, "measured", name, "mcpcost test", at).Marshal()
				if err != nil {
					t.Fatal(err)
				}
				// mcp-context-cost's measurement.json lacks mcpcost's fields.
				var m map[string]json.RawMessage
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				for _, k := range []string{"generator", "schema", "canonicalBytes"} {
					delete(m, k)
				}
				theirs, err := json.MarshalIndent(m, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				for form, file := range map[string][]byte{"mcpcost": b, "mcp-context-cost": theirs} {
					v, err := Verify(name+".json", file, nil)
					if err != nil {
						t.Fatalf("%s: Verify of the %s form: %v", name, form, err)
					}
					if !v.OK || v.ToolsChecked != wantTools || *v.RederivedTokens != r.TotalTokens {
						t.Errorf("%s: Verify of the %s form: ok %v, %d tools checked, problems %q", name, form, v.OK, v.ToolsChecked, v.Problems)
					}
				}
			}
		}
	}
}
