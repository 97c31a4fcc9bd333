package measure

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/canon"
)

func parseTools(t *testing.T, s string) []*canon.Value {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.Elems()
}

func TestRepeatedNamesWarning(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	tests := []struct {
		name, server, tools string
		want                []string // substrings; none when empty
		not                 []string
	}{
		{name: "distinct", server: "s", tools: `[{"name":"a"},{"name":"b"},{},{"name":1}]`},
		{name: "unnamed twice", server: "s", tools: `[{},{}]`},
		{name: "pair", server: "docs", tools: `[{"name":"a"},{"name":"b"},{"name":"a"}]`,
			want: []string{`server "docs" lists tools that share a name: "a" (2 tools);`, "Anthropic API rejects"}},
		{name: "sorted", server: "s", tools: `[{"name":"b"},{"name":"a"},{"name":"b"},{"name":"a"},{"name":"a"}]`,
			want: []string{`"a" (3 tools), "b" (2 tools);`}},
		{name: "escaped", server: "s\x1b[31m", tools: `[{"name":"\u001b]0;x\u0007"},{"name":"\u001b]0;x\u0007"}]`,
			want: []string{`"s\x1b[31m"`, `"\x1b]0;x\a" (2 tools)`}, not: []string{"\x1b", "\a"}},
		{name: "long", server: long, tools: `[{"name":"` + long + `"},{"name":"` + long + `"}]`,
			want: []string{"(1048576 bytes)"}},
		{name: "many", server: "s", tools: `[` + strings.Repeat(`{"name":"a"},{"name":"a"},{"name":"b"},{"name":"b"},{"name":"c"},{"name":"c"},{"name":"d"},{"name":"d"},`, 3) + `{"name":"z"}]`,
			want: []string{`"d" (6 tools)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RepeatedNamesWarning(tt.server, parseTools(t, tt.tools))
			if len(tt.want) == 0 && got != "" {
				t.Fatalf("got %q, want no warning", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to contain %q", got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("got %q, want no %q", got, n)
				}
			}
			if len(got) > 4096 || !utf8.ValidString(got) {
				t.Errorf("warning of %d bytes (valid UTF-8: %v)", len(got), utf8.ValidString(got))
			}
		})
	}
	var b strings.Builder
	b.WriteString("[")
	for i := range 30 {
		for range 2 {
			if b.Len() > 1 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"name":"t%02d"}`, i)
		}
	}
	b.WriteString("]")
	got := RepeatedNamesWarning("s", parseTools(t, b.String()))
	if !strings.Contains(got, " and 20 more;") || strings.Contains(got, `"t10"`) {
		t.Errorf("30 repeated names: got %q, want the first 10 and \"and 20 more\"", got)
	}
}
