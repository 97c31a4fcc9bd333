package clients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func servers(n int) string {
	var b strings.Builder
	b.WriteString(`{"mcpServers": {`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"s%d": {"command": "node", "args": ["s%d.js"]}`, i, i)
	}
	b.WriteString("}}")
	return b.String()
}

func TestServerCap(t *testing.T) {
	for _, n := range []int{MaxServers, MaxServers + 1} {
		sys := System{OS: "linux", Home: "/h", Cwd: "/p", FS: mapFS{"/p/.mcp.json": []byte(servers(n))}}
		configs, looked := Discover(sys, []string{ClaudeCode})
		if len(configs) != 1 || len(looked) == 0 {
			t.Fatalf("%d servers: %d configs", n, len(configs))
		}
		cfg := configs[0]
		if n <= MaxServers {
			if cfg.Error != "" || len(cfg.Servers) != n {
				t.Errorf("%d servers: got %d, %q", n, len(cfg.Servers), cfg.Error)
			}
			continue
		}
		want := "/p/.mcp.json: declares 10,001 servers, over the cap of 10,000 per config file"
		if !strings.Contains(cfg.Error, want) || len(cfg.Servers) != 0 {
			t.Errorf("%d servers: got %d servers, error %q; want %q", n, len(cfg.Servers), cfg.Error, want)
		}
		cfg, err := Load(sys, "/p/.mcp.json")
		if err != nil || !strings.Contains(cfg.Error, want) {
			t.Errorf("Load: %v, %q", err, cfg.Error)
		}
	}
}

// TestClaudeStateView: other projects of ~/.claude.json are not decoded
// (here, more values than MaxConfigValues), what mcpcost reads of it is
// the same as without them, and a cap passed in the part read is reported
// at its place in the file.
func TestClaudeStateView(t *testing.T) {
	heavy := "[" + strings.Repeat("0,", MaxConfigValues) + "0]"
	state := func(others bool, mine string) []byte {
		other := ""
		if others {
			other = "  \"/other\": {\"history\": " + heavy + ", \"mcpServers\": {\"x\": {\"command\": \"x\"}}},\n" +
				"  \"/p/sub\": {\"mcpServers\": {\"y\": {\"command\": \"y\"}}},\n"
		}
		return []byte("{\n \"mcpServers\": {\"u\": {\"command\": \"u\"}},\n \"projects\": {\n" + other +
			"  \"/p\": {\n   \"mcpServers\": " + mine + ",\n   \"disabledMcpServers\": [\"b\"]\n  }\n }\n}\n")
	}
	mine := `{"a": {"command": "a"}, "b": {"command": "b", "headersHelper": "h"}}`
	discover := func(data []byte) string {
		sys := System{OS: "linux", Home: "/h", Cwd: "/p", FS: mapFS{"/h/.claude.json": data}, memo: &stateMemo{}}
		configs, looked := Discover(sys, []string{ClaudeCode})
		b, _ := json.Marshal(map[string]any{"configs": configs, "looked": looked})
		return string(b)
	}
	full, bare := discover(state(true, mine)), discover(state(false, mine))
	if full != bare {
		t.Errorf("other projects changed what is read:\n%s\n%s", full, bare)
	}
	if !strings.Contains(full, `"name":"a"`) || !strings.Contains(full, `"name":"u"`) || strings.Contains(full, `"name":"x"`) {
		t.Errorf("unexpected servers: %s", full)
	}
	// The project's own entry is held to the cap, at its line in the file.
	data := state(true, `{"a": `+heavy+`}`)
	got := discover(data)
	line := 1 + bytes.Count(data[:bytes.Index(data, []byte(`"a": [`))], []byte("\n"))
	want := fmt.Sprintf("reading /h/.claude.json:%d:", line)
	if !strings.Contains(got, want) || !strings.Contains(got, "more than 1,048,576 values") {
		t.Errorf("got %s, want %q and the value cap", got[:min(len(got), 600)], want)
	}
}

// TestGitIndexCap: a git index larger than MaxConfigSize (a large
// repository's) is still read to tell whether a settings file is tracked.
func TestGitIndexCap(t *testing.T) {
	dir := t.TempDir()
	entry := func(name string) []byte {
		b := make([]byte, 62) // stat data, hash, flags
		b[60], b[61] = 0, byte(len(name))
		return append(append(b, name...), 0, 0, 0, 0, 0, 0, 0, 0)
	}
	index := []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00")
	for len(index) <= MaxConfigSize {
		index = append(index, entry(fmt.Sprintf("src/f%07d.go", len(index)))...)
	}
	index = append(index, entry(".claude/settings.local.json")...)
	writeFile(t, filepath.Join(dir, ".git", "index"), index)
	sys := System{OS: "linux", Home: "/nowhere", Cwd: dir, FS: OSFS{}}
	if tracked, inRepo := sys.gitTracked(filepath.Join(dir, ".claude", "settings.local.json")); !tracked || !inRepo {
		t.Errorf("tracked %v, in a repository %v; want both", tracked, inRepo)
	}
	if tracked, _ := sys.gitTracked(filepath.Join(dir, ".claude", "settings.json")); tracked {
		t.Errorf("an untracked file read as tracked")
	}
}

// The values decoded in one run are bounded across files (MaxRunValues):
// a file that would pass the budget is refused, naming it, and the files
// after it are still read when they fit. A file read twice counts once,
// and YAML's aliases count as what they expand to.
func TestRunBudget(t *testing.T) {
	args := func(n int) string {
		// {"mcpServers": {"s": {"command": "x", "args": [...]}}}: 5 values, then n-1 commas.
		return `{"mcpServers": {"s": {"command": "x", "args": [` + strings.Repeat(`"a",`, n-1) + `"a"]}}}`
	}
	dir := "/p/.continue/mcpServers/"
	sys := System{OS: "linux", Home: "/h", Cwd: "/p", FS: mapFS{
		dir + "a.json": []byte(args(496)),  // 500 values
		dir + "b.json": []byte(args(1996)), // 2,000
		dir + "c.yaml": []byte("mcpServers:\n  - name: c\n    command: x\n    args: [" + strings.Repeat("a,", 199) + "a]\n"),
		dir + "d.yaml": []byte("x: &x [" + strings.Repeat("a,", 49) + "a]\nmcpServers:\n  - name: d\n    command: x\n    args: [*x, *x, *x, *x, *x, *x]\n"),
	}}
	sys.budget = &budget{used: MaxRunValues - 1000}
	configs, looked := Discover(sys, []string{Continue})
	errs := map[string]string{}
	for _, l := range looked {
		errs[strings.TrimPrefix(l.Path, dir)] = l.Error
	}
	servers := map[string]int{}
	for _, c := range configs {
		if c.Error != "" {
			errs[strings.TrimPrefix(c.Path, dir)] = c.Error
		}
		for _, s := range c.Servers {
			servers[strings.TrimPrefix(c.Path, dir)] += len(s.Args)
		}
	}
	if errs["a.json"] != "" || servers["a.json"] != 496 {
		t.Errorf("a.json fits: %q, %d args", errs["a.json"], servers["a.json"])
	}
	if want := "reading " + dir + "b.json: 2,000 values, past the budget of 2,097,152 values decoded from all config files in one run (2,096,652 decoded already): not read"; errs["b.json"] != want {
		t.Errorf("b.json:\n got %q\nwant %q", errs["b.json"], want)
	}
	if errs["c.yaml"] != "" || servers["c.yaml"] != 200 {
		t.Errorf("c.yaml fits: %q, %d args", errs["c.yaml"], servers["c.yaml"])
	}
	// d.yaml: 67 values counted before parsing (within what is left), 368
	// nodes once its aliases are expanded (over it).
	if !strings.Contains(errs["d.yaml"], dir+"d.yaml: 368 values, past the budget") {
		t.Errorf("d.yaml: %q", errs["d.yaml"])
	}
	// Read again (the posture, settling), a file is not counted again.
	used := sys.budget.used
	if _, _, err := sys.read(dir + "a.json"); err != nil || sys.budget.used != used {
		t.Errorf("a second read: %v, %d values counted, was %d", err, sys.budget.used, used)
	}
	// Load, as --config and audit_config read a file, has a budget of its
	// own when the System has none.
	sys.budget = nil
	if cfg, err := Load(sys, dir+"b.json"); err != nil || cfg.Error != "" {
		t.Errorf("Load: %v, %q", err, cfg.Error)
	}
}
