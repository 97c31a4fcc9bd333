package findings

import (
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/measure"
)

// The advice for a heavy tool names its heaviest part, whichever it is:
// memory's read_graph is mostly output schema (210 of 291 tokens), which
// the description-or-input-schema comparison called an input schema.
func TestHeaviestPartAdvice(t *testing.T) {
	parts := func(p ...measure.Part) []measure.Part { return p }
	for _, tt := range []struct {
		name string
		tool measure.Tool
		want string
	}{
		{"output schema", measure.Tool{DescriptionTokens: 10, InputSchemaTokens: 27, Parts: parts(
			measure.Part{Name: "name", Tokens: 400}, measure.Part{Name: "description", Tokens: 12},
			measure.Part{Name: "inputSchema", Tokens: 29}, measure.Part{Name: "outputSchema", Tokens: 210})}, "output schema (210 tokens)"},
		{"input schema", measure.Tool{Parts: parts(measure.Part{Name: "description", Tokens: 30}, measure.Part{Name: "inputSchema", Tokens: 31})}, "the input schema"},
		{"description", measure.Tool{Parts: parts(measure.Part{Name: "description", Tokens: 90}, measure.Part{Name: "inputSchema", Tokens: 31})}, "the description"},
		{"annotations", measure.Tool{Parts: parts(measure.Part{Name: "annotations", Tokens: 90})}, "the annotations (90"},
		{"meta", measure.Tool{Parts: parts(measure.Part{Name: "_meta", Tokens: 90})}, "_meta (90"},
		{"other", measure.Tool{OtherFields: []string{"examples"}, Parts: parts(measure.Part{Name: "other", Tokens: 90})}, "outside the MCP tool schema (90 tokens: examples)"},
		{"no parts: input schema", measure.Tool{DescriptionTokens: 5, InputSchemaTokens: 50}, "the input schema"},
		{"no parts: description", measure.Tool{DescriptionTokens: 50, InputSchemaTokens: 5}, "the description"},
	} {
		if got := heaviestPartAdvice(tt.tool); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want it to name %q", tt.name, got, tt.want)
		}
	}
}
