package transcript

import (
	"encoding/json"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// Seeds from canontest's boundary documents, whose arrays and objects have
// every size around the JSON parser's slabs, flat and deep.

// addBoundaryObjects adds the boundary documents.
func addBoundaryObjects(f *testing.F) {
	for _, s := range canontest.Seeds() {
		f.Add(s)
	}
}

// addBoundaryStrings adds the boundary documents as JSON strings.
func addBoundaryStrings(f *testing.F) {
	for _, s := range canontest.SeedLines() {
		q, err := json.Marshal(string(s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(q)
	}
}

// addBoundaryUsage adds the boundary documents alone and beside the
// token counts of a usage object.
func addBoundaryUsage(f *testing.F) {
	for _, s := range canontest.SeedLines() {
		f.Add(s)
		f.Add([]byte(`{"input_tokens":3,"output_tokens":5,"server_tool_use":` + string(s) + `}`))
	}
}

// addBoundaryObjectsWith adds the boundary documents, each with a second
// argument.
func addBoundaryObjectsWith(f *testing.F, arg string) {
	for _, s := range canontest.Seeds() {
		f.Add(s, arg)
		f.Add([]byte(`{"`+arg+`":`+string(s)+`,"z":[]}`), arg)
	}
}
