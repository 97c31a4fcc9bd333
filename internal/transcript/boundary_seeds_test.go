package transcript_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// Seeds from canontest's boundary documents, whose arrays and objects have
// every size around the JSON parser's slabs, flat and deep.

// boundaryInputs returns the boundary documents on one line each, and the
// tool input {"1":[0,...,99]}.
func boundaryInputs() [][]byte {
	in := []byte(`{"1":[`)
	for i := range 100 {
		if i > 0 {
			in = append(in, ',')
		}
		in = strconv.AppendInt(in, int64(i), 10)
	}
	return append(canontest.SeedLines(), append(in, "]}"...))
}

// addBoundaryClaudeLines adds assistant lines whose tool_use input is a
// boundary document.
func addBoundaryClaudeLines(f *testing.F) {
	for _, s := range boundaryInputs() {
		f.Add([]byte(`{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-11-01T10:00:01.000Z","uuid":"a1","requestId":"r1",` +
			`"message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",` +
			`"content":[{"type":"tool_use","id":"toolu_1","name":"mcp__s__t","input":` + string(s) + `}],` +
			`"usage":{"input_tokens":1,"output_tokens":1}}}`))
	}
}

// addBoundaryCodexLines adds function_call lines whose arguments are a
// boundary document.
func addBoundaryCodexLines(f *testing.F) {
	for _, s := range boundaryInputs() {
		args, err := json.Marshal(string(s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(`{"timestamp":"2026-11-02T08:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__s__t","arguments":` +
			string(args) + `,"call_id":"call_a"}}`))
	}
}
