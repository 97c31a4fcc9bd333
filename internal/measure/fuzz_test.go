package measure

import (
	"os"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

func addSeeds(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}}]}`,
		`[{"name":"a"},{"name":"b","title":"B","_meta":{"anthropic/alwaysLoad":true}}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x"}]}}` + "\n" + `{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"m"}}`,
		`{"methodologyVersion":"1.0","rawToolsCapture":[{"name":"x"}],"totalTokens":1,"toolCount":1,"canonicalSha256":"00"}`,
		"\ufeff[]", "", "[1]", `{"tools":{}}`,
	} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile("testdata/corpus/hello-world/wire.jsonl"); err == nil {
		f.Add(b)
	}
	// Documents of every shape around the slab sizes, as files, as
	// JSON-RPC results, and the measurement.json of 118 tools.
	for _, s := range canontest.Seeds() {
		f.Add(s)
	}
	for _, s := range canontest.SeedLines() {
		f.Add([]byte(`{"jsonrpc":"2.0","id":2,"result":` + string(s) + "}\n"))
	}
	c, err := ParseInput("seed", canontest.Tools(118))
	if err != nil {
		f.Fatal(err)
	}
	b, err := NewFile(Tools(c.Tools, nil), "measured", "seed", "mcpcost test", time.Unix(0, 0)).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

// FuzzParseInput: no panic; on success every tool is an object, the
// measurement is consistent (per-tool counts present, total counted once)
// and its canonical form parses back to the same tools.
func FuzzParseInput(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseInput("fuzz", data)
		if err != nil {
			if c != nil {
				t.Fatal("capture returned with an error")
			}
			return
		}
		for _, tool := range c.Tools {
			if tool.Kind() != canon.Object {
				t.Fatalf("a tool of kind %v", tool.Kind())
			}
		}
		r := Tools(c.Tools, nil)
		if r.ToolCount != len(c.Tools) || len(r.Tools) != len(c.Tools) {
			t.Fatalf("tool count %d of %d", r.ToolCount, len(c.Tools))
		}
		back, err := canon.Transform(r.Canonical)
		if err != nil || string(back) != string(r.Canonical) {
			t.Fatalf("canonical form does not re-canonicalize to itself: %v", err)
		}
	})
}

// FuzzVerify: no panic; a file that verifies OK has no problems and its
// re-derived numbers equal the stored ones.
func FuzzVerify(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Verify("fuzz", data, nil)
		if err != nil {
			return
		}
		if v.OK && (len(v.Problems) > 0 || v.RederivedTokens == nil || v.StoredTokens == nil || *v.RederivedTokens != *v.StoredTokens || v.RederivedSha != v.StoredSha) {
			t.Fatalf("OK with problems or mismatched numbers: %+v", v)
		}
	})
}
