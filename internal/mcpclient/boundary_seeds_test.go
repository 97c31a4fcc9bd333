package mcpclient

import (
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// The boundary documents of canontest as seeds: results whose arrays and
// objects have every size around the parser's slabs, flat and deep.

// addBoundaryLines adds stdout streams of JSON-RPC responses, one per
// line, whose results are the boundary documents, after a banner line.
func addBoundaryLines(f *testing.F) {
	for _, s := range canontest.SeedLines() {
		f.Add([]byte("banner\n" + `{"jsonrpc":"2.0","id":2,"result":` + string(s) + "}\n"))
	}
}

// addBoundarySSE adds SSE streams of one message event each carrying such
// a response.
func addBoundarySSE(f *testing.F) {
	for _, s := range canontest.SeedLines() {
		f.Add([]byte("event: message\ndata: " + `{"jsonrpc":"2.0","id":2,"result":` + string(s) + "}\n\n"))
	}
}

// addBoundaryPages adds the boundary documents as tools/list pages.
func addBoundaryPages(f *testing.F) {
	for _, s := range canontest.Seeds() {
		f.Add(s, "tools")
	}
}
