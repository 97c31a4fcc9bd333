package measure

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/mcpclient"
)

// nestedResponse is a tools/list response nesting depth levels (at least
// 6): the message, its result, the tools array, the tool, its inputSchema,
// then arrays or objects down to depth; and the result and the tools
// array it holds.
func nestedResponse(depth int, objects bool) (message, result, tools string) {
	k := depth - 5
	nest := strings.Repeat("[", k) + strings.Repeat("]", k)
	if objects {
		nest = strings.Repeat(`{"a":`, k-1) + "{}" + strings.Repeat("}", k-1)
	}
	tools = `[{"name":"deep","inputSchema":{"type":"object","x":` + nest + `}}]`
	result = `{"tools":` + tools + `}`
	return `{"jsonrpc":"2.0","id":2,"result":` + result + `}`, result, tools
}

// TestFileDepthLimit: a file of tools is read as the tools/list response
// it stands for, with the limit every transport has: a response nesting
// mcpclient.MaxDepth levels is measured whatever form the file has (the
// response itself, a JSON-RPC stream, its result, a measurement.json's
// capture, the bare tools array), one level deeper is refused naming the
// file and the limit, and a file 10,000 or 1,000,000 levels deep is
// refused the same way, the process standing.
func TestFileDepthLimit(t *testing.T) {
	const init = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"b","version":"1"}}}`
	want := fmt.Sprintf("deeper than the %d levels", mcpclient.MaxDepth)
	max := mcpclient.MaxDepth
	for _, depth := range []int{max - 1, max, max + 1, max + 2, 10000, 1000000} {
		for _, objects := range []bool{false, true} {
			message, result, tools := nestedResponse(depth, objects)
			for _, form := range []struct{ name, doc string }{
				{"message", message},
				{"stream", init + "\n" + message + "\n"},
				{"result", result},
				{"measurement", `{"methodologyVersion":"1.0","serverName":"deep","rawToolsCapture":` + tools + `}`},
				{"array", tools},
			} {
				name := fmt.Sprintf("%s/%d", form.name, depth)
				if objects {
					name += "/objects"
				}
				t.Run(name, func(t *testing.T) {
					c, err := ParseInput("x.json", []byte(form.doc))
					if depth <= max {
						if err != nil || len(c.Tools) != 1 {
							t.Fatalf("%v, want one tool measured: the limit is %d", err, max)
						}
						return
					}
					var ie *InputError
					if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "x.json:") || !strings.Contains(err.Error(), want) {
						t.Fatalf("%v, want an error naming x.json and saying %q", err, want)
					}
					// The response's levels, or where a deep object is
					// not parsed (a result or a measurement.json), the
					// file's own.
					levels := depth
					if (form.name == "result" || form.name == "measurement") && depth > max+1 {
						levels = depth - 1
					}
					if !strings.Contains(err.Error(), fmt.Sprintf("(%d levels)", levels)) {
						t.Errorf("%v, want %d levels named", err, levels)
					}
				})
			}
		}
	}
}

// TestVerifyDepthLimit: verify reads a measurement.json with the limit
// measure reads it with, so that it passes no file measure refuses: its
// capture stands where a tools/list result's tools array does, and the
// response nesting mcpclient.MaxDepth levels is read, one level deeper
// refused with measure's own error, and a file far deeper refused before
// it is parsed.
func TestVerifyDepthLimit(t *testing.T) {
	max := mcpclient.MaxDepth
	for _, depth := range []int{max - 1, max, max + 1, max + 2, 10000, 1000000} {
		for _, objects := range []bool{false, true} {
			name := fmt.Sprint(depth)
			if objects {
				name += "/objects"
			}
			t.Run(name, func(t *testing.T) {
				_, _, tools := nestedResponse(depth, objects)
				doc := []byte(`{"methodologyVersion":"1.0","serverName":"deep","rawToolsCapture":` + tools + `}`)
				_, merr := ParseInput("m.json", doc)
				v, err := Verify("m.json", doc, nil)
				if depth <= max {
					if err != nil || v.ToolCount == nil || *v.ToolCount != 1 {
						t.Fatalf("%v, want the capture's one tool re-derived: the limit is %d", err, max)
					}
					return
				}
				var ie *InputError
				if !errors.As(err, &ie) || merr == nil || err.Error() != merr.Error() {
					t.Fatalf("verify: %v\nmeasure: %v\nwant measure's error", err, merr)
				}
			})
		}
	}
}
