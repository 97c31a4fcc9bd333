package clients

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// Seeds from canontest's boundary documents, whose arrays and objects have
// every size around the JSON parser's slabs, and configs of as many
// servers.

// boundaryServers returns a config of n servers in JSON, each with an
// argument list and an environment of n%17 members.
func boundaryServers(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"mcpServers": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `"s%d": {"command": "npx", "args": [`, i)
		for j := range i % 17 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"--a%d"`, j)
		}
		b.WriteString(`], "env": {`)
		for j := range i % 17 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"K%d": "${V%d}"`, j, j)
		}
		b.WriteString("}}")
	}
	b.WriteString("}}")
	return []byte(b.String())
}

// addBoundaryJSON adds the boundary documents, alone and (those under
// 16 KB) as the value of a config's key, and configs of up to 513 servers:
// every client's parser reads each seed, at a few MB/s.

func addBoundaryJSON(f *testing.F) {
	for _, s := range canontest.Seeds() {
		f.Add(s)
		if len(s) < 16<<10 {
			f.Add([]byte(`{"mcpServers": {"a": {"command": "x"}}, "x": ` + string(s) + "}"))
		}
	}
	for _, n := range canontest.SeedSizes {
		if n <= 513 {
			f.Add(boundaryServers(n))
		}
	}
}

// addBoundaryTOML adds Codex configs of every seed size of servers, and a
// few boundary documents (not TOML).
func addBoundaryTOML(f *testing.F) {
	for _, n := range canontest.SeedSizes {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "[mcp_servers.s%d]\ncommand = \"x\"\nargs = [%s]\n", i, strings.Repeat(`"a",`, i%17))
		}
		f.Add([]byte(b.String()))
	}
	for _, s := range canontest.SeedLines()[:len(canontest.Shapes)*3] {
		f.Add(s)
	}
}

// addBoundaryYAML adds the boundary documents (JSON is YAML) and Goose
// configs of every seed size of extensions.
func addBoundaryYAML(f *testing.F) {
	for _, s := range canontest.Seeds() {
		f.Add(s)
	}
	for _, n := range canontest.SeedSizes {
		var b strings.Builder
		b.WriteString("extensions:\n")
		for i := range n {
			fmt.Fprintf(&b, "  e%d:\n    type: stdio\n    cmd: x\n    args: [%s]\n", i, strings.Repeat("a, ", i%17))
		}
		f.Add([]byte(b.String()))
	}
}
