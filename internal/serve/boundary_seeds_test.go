package serve

import (
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// addBoundaryArguments adds canontest's boundary documents, whose arrays
// and objects have every size around the JSON parser's slabs, as the
// arguments of the first tools tools in turn (each document once, to keep
// the seeds quick).
func addBoundaryArguments(f *testing.F, tools int) {
	for i, s := range canontest.SeedLines() {
		f.Add(uint8(i%tools), string(s))
	}
}

// addBoundaryStrings adds the boundary documents as strings.
func addBoundaryStrings(f *testing.F) {
	for _, s := range canontest.SeedLines() {
		f.Add(string(s))
	}
}
