package claude

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/token"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// parseTools parses a tools array.
func parseTools(t *testing.T, data []byte) []*canon.Value {
	t.Helper()
	v, err := canon.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind() != canon.Array {
		t.Fatalf("not an array but a %s", v.Kind())
	}
	return v.Elems()
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update and review the diff):\n%s", path, firstDiff(want, got))
	}
}

func firstDiff(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("at byte %d:\nwant …%q…\ngot  …%q…", i, want[lo:min(len(want), i+60)], got[lo:min(len(got), i+60)])
}

// The request shape of four published captures: airbnb (small, nothing
// cut), pandoc, sequential-thinking and arxiv (descriptions over 2 KB,
// non-ASCII text).
func TestRequestShapeGolden(t *testing.T) {
	for _, name := range []string{"airbnb", "pandoc", "sequential-thinking", "arxiv"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "captures", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			s := RequestShape(name, parseTools(t, data))
			golden(t, name+".request.json", append(bytes.Clone(s.JSON), '\n'))
			summary, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".shape.json", append(summary, '\n'))

			// What is sent is canonical JSON: JSON.stringify of itself.
			again, err := canon.Transform(s.JSON)
			if err != nil || !bytes.Equal(again, s.JSON) {
				t.Errorf("the request shape is not canonical JSON (%v)", err)
			}
			if s.Tokens != token.O200k().Count(string(s.JSON)) || s.Bytes != len(s.JSON) {
				t.Errorf("tokens %d bytes %d do not describe JSON", s.Tokens, s.Bytes)
			}
			// Exactly three fields per tool, in order.
			var sent []map[string]json.RawMessage
			if err := json.Unmarshal(s.JSON, &sent); err != nil {
				t.Fatal(err)
			}
			for i, tool := range sent {
				if len(tool) != 3 || tool["name"] == nil || tool["description"] == nil || tool["input_schema"] == nil {
					t.Errorf("tool %d has fields %v", i, keys(tool))
				}
				var n string
				json.Unmarshal(tool["name"], &n)
				if !strings.HasPrefix(n, "mcp__"+normalizeName(name)+"__") {
					t.Errorf("tool %d is named %q", i, n)
				}
			}
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestRequestShapeProjection(t *testing.T) {
	long := strings.Repeat("d", CutLimit+5)
	tests := []struct {
		name    string
		server  string
		tools   string
		want    string
		skipped int
		cut     int
		notes   int
	}{
		{"drops everything but the three fields",
			"srv", `[{"name":"t","title":"T","description":"D","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"anthropic/alwaysLoad":true},"icons":[],"execution":{}}]`,
			`[{"name":"mcp__srv__t","description":"D","input_schema":{"type":"object"}}]`, 0, 0, 0},
		{"defaults for a missing description and schema",
			"srv", `[{"name":"t"}]`,
			`[{"name":"mcp__srv__t","description":"","input_schema":{"type":"object","properties":{}}}]`, 0, 0, 0},
		{"a schema that is not an object",
			"srv", `[{"name":"t","description":7,"inputSchema":"x"}]`,
			`[{"name":"mcp__srv__t","description":"","input_schema":{"type":"object","properties":{}}}]`, 0, 0, 1},
		{"unnamed and non-object entries are not sent",
			"srv", `[{"description":"no name"},{"name":""},{"name":3},"x",null,{"name":"ok"}]`,
			`[{"name":"mcp__srv__ok","description":"","input_schema":{"type":"object","properties":{}}}]`, 5, 0, 0},
		{"names are normalized",
			"my.server v2", `[{"name":"get.user/é"}]`,
			`[{"name":"mcp__my_server_v2__get_user__","description":"","input_schema":{"type":"object","properties":{}}}]`, 0, 0, 0},
		{"a long description is cut",
			"s", `[{"name":"t","description":"` + long + `"}]`,
			`[{"name":"mcp__s__t","description":"` + long[:CutLimit] + CutMarker + `","input_schema":{"type":"object","properties":{}}}]`, 0, 1, 0},
		{"JS escaping and key order survive",
			"s", `[{"name":"t","description":"<a> & \u2028 \"q\" \u0001","inputSchema":{"b":1,"a":2,"10":3,"1":4,"x":1.0,"y":1e21}}]`,
			`[{"name":"mcp__s__t","description":"<a> & ` + "\u2028" + ` \"q\" \u0001","input_schema":{"1":4,"10":3,"b":1,"a":2,"x":1,"y":1e+21}}]`, 0, 0, 0},
		{"a root-level combinator is noted",
			"s", `[{"name":"t","inputSchema":{"type":"object","oneOf":[{}]}}]`,
			`[{"name":"mcp__s__t","description":"","input_schema":{"type":"object","oneOf":[{}]}}]`, 0, 0, 1},
		{"no tools", "s", `[]`, `[]`, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := RequestShape(tt.server, parseTools(t, []byte(tt.tools)))
			if string(s.JSON) != tt.want {
				t.Errorf("got  %s\nwant %s", s.JSON, tt.want)
			}
			if s.Skipped != tt.skipped || s.DescriptionsCut != tt.cut {
				t.Errorf("skipped %d cut %d, want %d %d", s.Skipped, s.DescriptionsCut, tt.skipped, tt.cut)
			}
			notes := 0
			for _, tool := range s.Tools {
				notes += len(tool.Notes)
			}
			if notes != tt.notes {
				t.Errorf("%d notes, want %d", notes, tt.notes)
			}
			if s.Method != ShapeMethodClaudeCode || s.Schema != ShapeSchema || s.Label != ShapeLabel || s.Server != tt.server {
				t.Errorf("labels %q %q %q %q", s.Method, s.Schema, s.Label, s.Server)
			}
		})
	}
}

// A lone surrogate in a name or description is sent escaped, as
// JSON.stringify writes it.
func TestRequestShapeLoneSurrogate(t *testing.T) {
	tools := parseTools(t, []byte(`[{"name":"a\ud800b","description":"x\udc00y"}]`))
	api := APIShape(tools)
	if want := `[{"name":"a\ud800b","description":"x\udc00y","input_schema":{"type":"object","properties":{}}}]`; string(api.JSON) != want {
		t.Errorf("got  %s\nwant %s", api.JSON, want)
	}
	cc := RequestShape("s", tools)
	if want := `[{"name":"mcp__s__a_b","description":"x\udc00y","input_schema":{"type":"object","properties":{}}}]`; string(cc.JSON) != want {
		t.Errorf("got  %s\nwant %s", cc.JSON, want)
	}
}

func TestToolName(t *testing.T) {
	for _, tt := range [][3]string{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my-server", "get-user", "mcp__my-server__get-user"},
		{"a.b", "c.d", "mcp__a_b__c_d"},
		{"plugin:x:y", "t", "mcp__plugin_x_y__t"},
		{"", "t", "mcp____t"},
		{"日本", "ツール", "mcp_________"},
	} {
		if got := ToolName(tt[0], tt[1]); got != tt[2] {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt[0], tt[1], got, tt[2])
		}
	}
}

// mcp-context-cost published, for 19 servers, the o200k count of its own
// projection onto {name, description, input_schema} ("o200kMapped"). Our
// APIShape is that projection: it must give the same count for each
// published capture.
func TestAPIShapeMatchesPublishedMapped(t *testing.T) {
	shared := testpeers.Shared(t)
	mapped := map[string]int{
		"github": 10535, "xcodebuildmcp": 2676, "brave-search": 8262, "notion": 17163, "mcp-atlassian": 12823,
		"circleci": 11755, "desktop-commander": 11056, "apify": 4797, "firecrawl": 8869, "redis": 7489,
		"basic-memory": 7120, "hubspot": 8433, "postgres-mcp": 1178, "serena": 6550, "mongodb": 4501,
		"sentry": 6051, "pinecone": 5679, "shopify-dev": 5584, "kubernetes": 5089,
	}
	for name, want := range mapped {
		t.Run(name, func(t *testing.T) {
			m := readMeasurement(t, shared, name)
			if _, ok := Published(m.CanonicalSHA256); !ok {
				t.Fatalf("%s: capture not on the leaderboard", name)
			}
			if got := APIShape(m.tools).Tokens; got != want {
				t.Errorf("APIShape: %d tokens, published o200kMapped %d", got, want)
			}
		})
	}
}

type measurement struct {
	TotalTokens     int             `json:"totalTokens"`
	CanonicalSHA256 string          `json:"canonicalSha256"`
	RawToolsCapture json.RawMessage `json:"rawToolsCapture"`
	tools           []*canon.Value
}

func readMeasurement(t *testing.T, shared, name string) measurement {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(shared, "published", name, "measurement.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m measurement
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.RawToolsCapture) > 0 && string(m.RawToolsCapture) != "null" {
		m.tools = parseTools(t, m.RawToolsCapture)
	}
	return m
}

// Over every published capture, the Claude Code request is never larger
// than the full definitions plus the mcp__ prefixes, and cutting only
// shrinks descriptions.
func TestRequestShapeAllPublished(t *testing.T) {
	shared := testpeers.Shared(t)
	dirs, err := os.ReadDir(filepath.Join(shared, "published"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		m := readMeasurement(t, shared, d.Name())
		if m.tools == nil {
			continue
		}
		n++
		cc := RequestShape(d.Name(), m.tools)
		api := APIShape(m.tools)
		if cc.ToolCount != api.ToolCount || cc.ToolCount != len(m.tools) {
			t.Errorf("%s: %d / %d tools of %d", d.Name(), cc.ToolCount, api.ToolCount, len(m.tools))
		}
		if api.Tokens > m.TotalTokens {
			t.Errorf("%s: the projection (%d) is larger than the capture (%d)", d.Name(), api.Tokens, m.TotalTokens)
		}
		if cc.DescriptionsCut == 0 && cc.Bytes < api.Bytes {
			t.Errorf("%s: nothing cut, yet the Claude Code request is smaller", d.Name())
		}
	}
	if n != 69 {
		t.Errorf("%d published captures, want 69", n)
	}
}
