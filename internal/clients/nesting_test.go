package clients

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"
)

func nest(open, close string, n int, inner string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// yamlBlock nests n block mappings, one more space per level.
func yamlBlock(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "b: 1\n")
	return b.String()
}

func TestNestingCaps(t *testing.T) {
	const max = MaxConfigDepth
	tests := []struct {
		name, format, doc string
		refused           bool
	}{
		// JSON and JSONC: at the cap and one over.
		{"arrays", FormatJSON, nest("[", "]", max, ""), false},
		{"arrays over", FormatJSON, nest("[", "]", max+1, ""), true},
		{"objects", FormatJSON, nest(`{"a":`, "}", max-1, "{}"), false},
		{"objects over", FormatJSON, nest(`{"a":`, "}", max, "{}"), true},
		{"brackets in a string", FormatJSON, `{"a": "` + strings.Repeat("[{", max) + `"}`, false},
		{"escaped quote in a string", FormatJSON, `["\"` + strings.Repeat("[", max) + `"]`, false},
		{"brackets in comments", FormatJSONC, "{// " + strings.Repeat("[", max) + "\n/* " + strings.Repeat("{", max) + " */}", false},
		{"trailing commas", FormatJSONC, nest("[", ",]", max, "1"), false},
		{"unclosed", FormatJSONC, strings.Repeat("[", max+1), true},
		// TOML: arrays, inline tables, table names, dotted keys.
		{"toml arrays", FormatTOML, "a = " + nest("[", "]", max-1, "1") + "\n", false},
		{"toml arrays over", FormatTOML, "a = " + nest("[", "]", max, "1") + "\n", true},
		{"toml inline tables over", FormatTOML, "a = " + nest("{b = ", "}", max, "1") + "\n", true},
		{"toml table", FormatTOML, "[a" + strings.Repeat(".a", max-1) + "]\nb = 1\n", false},
		{"toml table over", FormatTOML, "[a" + strings.Repeat(".a", max) + "]\nb = 1\n", true},
		{"toml dotted key over", FormatTOML, "a" + strings.Repeat(".a", max) + " = 1\n", true},
		{"toml dotted inline keys over", FormatTOML, "x = {a" + strings.Repeat(".a", max) + " = 1}\n", true},
		{"toml brackets in strings", FormatTOML, `a = "` + strings.Repeat("[", max+1) + "\"\nb = '" + strings.Repeat("{", max+1) + "'\nc = \"\"\"\n" + strings.Repeat("[", max+1) + "\n\"\"\"\n# " + strings.Repeat("[", max+1) + "\n", false},
		{"toml numbers", FormatTOML, "a = [" + strings.Repeat("1.5, ", 2*max) + "1.5]\n", false},
		// YAML: flow collections, compact sequences, block nesting.
		{"yaml flow", FormatYAML, "a: " + nest("[", "]", max-1, "1") + "\n", false},
		{"yaml flow over", FormatYAML, "a: " + nest("[", "]", max, "1") + "\n", true},
		{"yaml flow over lines", FormatYAML, "a: " + nest("[\n", "]\n", max, "1") + "\n", true},
		{"yaml compact", FormatYAML, "a:\n  " + strings.Repeat("- ", max-2) + "x\n", false},
		{"yaml compact over", FormatYAML, "a:\n  " + strings.Repeat("- ", max) + "x\n", true},
		{"yaml block", FormatYAML, yamlBlock(max - 1), false},
		{"yaml block over", FormatYAML, yamlBlock(max + 1), true},
		{"yaml brackets in scalars", FormatYAML, "a: \"" + strings.Repeat("[", max+1) + "\"\nb: '" + strings.Repeat("{", max+1) + "'\nc: x" + strings.Repeat("[", max+1) + "\nd: |\n  " + strings.Repeat("- [", max+1) + "\n# " + strings.Repeat("[", max+1) + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var le *LimitError
			var err error
			switch tt.format {
			case FormatTOML:
				le = scanTOML([]byte(tt.doc))
				if le == nil {
					_, err = decodeTOML([]byte(tt.doc), "/x")
				}
			case FormatYAML:
				le = scanYAML([]byte(tt.doc))
				if le == nil {
					_, err = decodeYAML([]byte(tt.doc), "/x", nil)
				}
			default:
				le = scanJSON([]byte(tt.doc))
				if le == nil {
					_, err = decodeJSON([]byte(tt.doc), tt.format)
				}
			}
			if (le != nil) != tt.refused {
				t.Fatalf("refused: %v, want %v", le, tt.refused)
			}
			if le != nil && (le.Line < 1 || !strings.Contains(le.Msg, "nested more than 1000 levels deep")) {
				t.Errorf("error %v has no position or reason", le)
			}
			// What is let through parses (the unclosed case aside).
			if !tt.refused && err != nil {
				t.Errorf("the parser refused what the scan let through: %v", err)
			}
		})
	}
}

func TestValueCap(t *testing.T) {
	for _, n := range []int{MaxConfigValues, MaxConfigValues + 1} {
		// One array and n-1 commas: n values.
		doc := "[" + strings.Repeat("0,", n-1) + "0]"
		le := scanJSON([]byte(doc))
		if (le != nil) != (n > MaxConfigValues) {
			t.Errorf("%d values: %v", n, le)
		}
		if le != nil && !strings.Contains(le.Error(), "more than 1,048,576 values") {
			t.Errorf("%d values: %v", n, le)
		}
	}
}

// TOML and YAML are held to a cap on values before they are parsed, as
// JSON is: a 4 MiB flow sequence of two million items is refused at its
// place in the file, not decoded at about 150 times its size.
func TestValueCapTOMLYAML(t *testing.T) {
	tests := []struct {
		name, format string
		n, max       int
		doc          func(n int) string
	}{
		{"toml array", FormatTOML, 0, MaxConfigValues, func(n int) string {
			// A table, a key and an array: 3, then n-3 elements after the first.
			return "[t]\na = [" + strings.Repeat("1,", n-3) + "1]\n"
		}},
		{"toml keys", FormatTOML, 0, MaxConfigValues, func(n int) string { return strings.Repeat("a = 1\n", n) }},
		{"yaml flow", FormatYAML, 0, MaxYAMLValues, func(n int) string {
			// The line, the key's colon and the sequence: 3, then n-3 commas.
			return "a: [" + strings.Repeat("a,", n-3) + "a]\n"
		}},
		{"yaml block", FormatYAML, 0, MaxYAMLValues, func(n int) string {
			// The line "a:" and its colon: 2, then a line and an indicator each.
			return "a:\n" + strings.Repeat("- a\n", (n-2)/2) + strings.Repeat("b: 1\n", (n-2)%2)
		}},
		{"yaml flow mapping", FormatYAML, 0, MaxYAMLValues, func(n int) string {
			// The line and {: 2, then a colon and a comma for each member.
			return "{" + strings.Repeat("a: 1, ", (n-2)/2) + "}\n"
		}},
	}
	for _, tt := range tests {
		for _, n := range []int{tt.max, tt.max + 1, tt.max + 2} {
			doc := []byte(tt.doc(n))
			var got int
			var le *LimitError
			if tt.format == FormatTOML {
				got, le = countTOML(doc)
			} else {
				got, le = countYAML(doc)
			}
			if n <= tt.max && (le != nil || got != n && got != n-1) {
				t.Errorf("%s, %d values: counted %d, %v", tt.name, n, got, le)
			}
			if n > tt.max+1 && (le == nil || le.Line < 1 || !strings.Contains(le.Msg, "more than "+thousands(tt.max)+" values")) {
				t.Errorf("%s, %d values: %v, want a refusal with its position", tt.name, n, le)
			}
		}
	}
	// The file of the report: 4 MiB, two million items.
	doc := "name: x\nversion: 1\nschema: v1\nmcpServers:\n  - name: s\n    command: x\n    args: [" + strings.Repeat("a,", 2<<20-100) + "a]\n"
	_, err := decodeYAML([]byte(doc), "/p/s.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "/p/s.yaml:7:524269: more than 262,144 values") {
		t.Errorf("a 4 MiB flow sequence: %v", err)
	}
}

// YAML's aliases are counted as the nodes they expand to: a small document
// of aliases to a large anchor is refused before the decoder expands it.
func TestYAMLAliases(t *testing.T) {
	anchor := "a: &a [" + strings.Repeat("x,", 999) + "x]\n"
	for _, tt := range []struct {
		name, doc, want string
	}{
		{"few", anchor + "b: [" + strings.Repeat("*a,", 9) + "*a]\n", ""},
		{"bomb", anchor + "b: [" + strings.Repeat("*a,", 299) + "*a]\n", "/x:2:"},
		{"nested", "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n", "/x:6:"},
		{"merge keys", "d: &d {command: x, env: {A: 1}}\ns: {<<: *d, args: [y]}\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if le := scanYAML([]byte(tt.doc)); le != nil {
				t.Fatalf("the pre-scan refused it: %v", le)
			}
			m, err := decodeYAML([]byte(tt.doc), "/x", nil)
			if tt.want == "" {
				if err != nil || m == nil {
					t.Fatalf("%v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !strings.Contains(err.Error(), "aliases expand the document past 262,144 values") {
				t.Fatalf("got %v, want %s... aliases expand", err, tt.want)
			}
		})
	}
	// An alias within its own anchor is the parser's error, with its place.
	_, err := decodeYAML([]byte("a: &a [x, *a]\n"), "/x", nil)
	if pe, ok := err.(*ParseError); !ok || pe.Line != 1 || !strings.Contains(pe.Msg, "its own anchor") {
		t.Errorf("got %v", err)
	}
}

// jsonDepth is the nesting depth of valid JSON, counted from its tokens
// without recursion.
func jsonDepth(b []byte) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, most := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return most, err.Error() == "EOF"
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			most = max(most, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}

// valueDepth is the nesting depth of a decoded value.
func valueDepth(v any) int {
	switch t := v.(type) {
	case map[string]any:
		d := 0
		for _, e := range t {
			d = max(d, valueDepth(e))
		}
		return d + 1
	case []any:
		d := 0
		for _, e := range t {
			d = max(d, valueDepth(e))
		}
		return d + 1
	}
	return 0
}

// FuzzNesting checks the pre-scans against the parsers: for JSON and
// JSONC the scan refuses exactly the documents nested deeper than
// MaxConfigDepth (brackets in strings and comments not counted); for TOML
// and YAML it never lets through a document the parser decodes deeper.
func FuzzNesting(f *testing.F) {
	const max = MaxConfigDepth
	for _, seed := range []string{
		nest("[", "]", max, ""), nest("[", "]", max+1, ""), nest(`{"a":`, "}", max, "1"),
		"[// ]\n" + nest("[", "]", max-1, "") + "]", `["]]]]", "\\"[[["]`, "/* [[[ */ [1]",
		"[" + strings.Repeat(`{"a": [1, "x"]}, `, 5000) + "0]",
		"a = " + nest("[", "]", max, "1"), "[a" + strings.Repeat(".a", max) + "]\n", "x = {a.b.c = {d.e = [1]}}\n",
		"a: " + nest("[", "]", max, "1"), "a:\n  " + strings.Repeat("- ", max) + "x\n", yamlBlock(max + 1),
		"a: |\n  [[[[\nb: [\"]]\", '[[']\n", "[mcp_servers.a]\ncommand = \"x\"\nargs = [\"[\"]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		refused := scanJSON(data) != nil
		if json.Valid(data) {
			if d, ok := jsonDepth(data); ok && refused != (d > max) && len(data) < 2*MaxConfigValues {
				t.Fatalf("JSON of depth %d: refused %v", d, refused)
			}
		}
		if v, err := hujson.Parse(data); err == nil {
			v.Standardize()
			if d, ok := jsonDepth(v.Pack()); ok && refused != (d > max) && len(data) < 2*MaxConfigValues {
				t.Fatalf("JSONC of depth %d: refused %v", d, refused)
			}
		}
		if scanTOML(data) == nil {
			var v map[string]any
			if toml.Unmarshal(data, &v) == nil && valueDepth(v) > max+1 {
				t.Fatalf("TOML of depth %d let through", valueDepth(v))
			}
		}
		if scanYAML(data) == nil {
			var v any
			if yaml.Unmarshal(data, &v) == nil && valueDepth(normalize(v)) > max+1 {
				t.Fatalf("YAML of depth %d let through", valueDepth(normalize(v)))
			}
		}
	})
}

// A number beyond a double's range is read as JSON.parse reads it (±Inf),
// not refused: the client would accept the file.
func TestOutOfRangeNumbers(t *testing.T) {
	for _, format := range []string{FormatJSON, FormatJSONC} {
		doc := `{"mcpServers": {"a": {"command": "x", "timeout": 1e400}}, "n": [-1e999, 1.5, 2e308], "m": 0.1}`
		v, err := decodeJSON([]byte(doc), format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		m := v.(map[string]any)
		a := m["mcpServers"].(map[string]any)["a"].(map[string]any)
		if got := a["timeout"]; got != math.Inf(1) {
			t.Errorf("%s: timeout = %v, want +Inf", format, got)
		}
		n := m["n"].([]any)
		if n[0] != math.Inf(-1) || n[1] != 1.5 || n[2] != math.Inf(1) || m["m"] != 0.1 {
			t.Errorf("%s: numbers = %v, %v", format, n, m["m"])
		}
	}
	// Still refused with a position: a real syntax error after such a number.
	if _, err := decodeJSON([]byte(`{"a": 1e400, }`), FormatJSON); err == nil || !strings.Contains(err.Error(), "1:") {
		t.Errorf("trailing comma after 1e400: %v, want a positioned error", err)
	}
}
