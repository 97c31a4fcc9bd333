package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/num"
)

// TestManyConfigs: a cloned repository whose .continue/mcpServers holds
// thousands of files, a few of them of many servers and some unreadable,
// gets an answer of under 256 KiB from audit_config: the maxConfigs
// heaviest configs, maxServers servers of a config or a session,
// maxEntries in all, and maxProblems problems, the rest counted exactly;
// the totals, and the count of servers to approve, are of everything.
// (40,000 files of one server each were answered with 25.8 MB of
// structured content and 1.5 MB of text, more than the 16 MiB a go-sdk
// client reads of a message; now 72 KB and 8 KB.)
func TestManyConfigs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes thousands of files")
	}
	files := 5_000
	if n := os.Getenv("MCPCOST_TEST_MANY_CONFIGS"); n != "" {
		fmt.Sscan(n, &files) // to measure the answer for more
	}
	// wides files of wide servers each: their servers fill the answer's
	// maxEntries before the configs run out.
	const wides, wide, broken = maxEntries/maxServers + 1, maxServers + 100, maxProblems + 7
	f := newFixture(t, false)
	dir := filepath.Join(f.project, ".continue", "mcpServers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(file, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Every server is the same launch, measured once: notes, 611 tokens.
	server := func(name string) string { return fmt.Sprintf("  - name: %s\n    command: %s\n", name, f.notes) }
	for i := range files {
		write(fmt.Sprintf("f%05d.yaml", i), fmt.Sprintf("name: b%d\nversion: 1\nschema: v1\nmcpServers:\n", i)+server(fmt.Sprint("s", i)))
	}
	for i := range wides {
		var b strings.Builder
		b.WriteString("name: wide\nversion: 1\nschema: v1\nmcpServers:\n")
		for j := range wide {
			b.WriteString(server(fmt.Sprintf("w%d-%d", i, j)))
		}
		write(fmt.Sprintf("w%d.yaml", i), b.String())
	}
	for i := range broken {
		write(fmt.Sprintf("x%03d.yaml", i), "mcpServers: [\n")
	}
	configs, servers := files+wides, files+wides*wide

	cs, _ := connect(t, f.opts)
	answer := func(args map[string]any) (*AuditResult, string) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolAudit, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := resultText(res)
		if res.IsError {
			t.Fatalf("tool error: %.500s", text)
		}
		structured, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v, %d files: %d bytes of structured content, %d of text", args, configs+broken, len(structured), len(text))
		if len(structured) > 256<<10 || len(text) > 64<<10 {
			t.Errorf("%d bytes of structured content, %d of text; want under 256 KiB and 64 KiB", len(structured), len(text))
		}
		var a AuditResult
		if err := json.Unmarshal(structured, &a); err != nil {
			t.Fatal(err)
		}
		return &a, text
	}

	a, text := answer(map[string]any{"client": "continue", "launch": true, "trust_project": true})
	const notes = 611
	if a.Partial || len(a.Sessions) != 1 {
		t.Fatalf("partial %v, %d sessions; want every server measured, in Continue's session", a.Partial, len(a.Sessions))
	}
	s := a.Sessions[0]
	if s.Tokens != notes*servers || len(s.Servers) != maxServers || s.MoreServers != servers-maxServers {
		t.Errorf("the session: %d tokens, %d servers listed and %d more; want %d, %d and %d",
			s.Tokens, len(s.Servers), s.MoreServers, notes*servers, maxServers, servers-maxServers)
	}
	if len(a.Configs) != maxConfigs || a.MoreConfigs != configs-maxConfigs {
		t.Errorf("%d configs listed, %d more; want %d and %d", len(a.Configs), a.MoreConfigs, maxConfigs, configs-maxConfigs)
	}
	if len(a.Problems) != maxProblems || a.MoreProblems != broken-maxProblems {
		t.Errorf("%d problems listed, %d more; want %d and %d", len(a.Problems), a.MoreProblems, maxProblems, broken-maxProblems)
	}
	left := maxEntries - len(s.Servers)
	for i, c := range a.Configs {
		// The wide files first, heaviest; each lists what the answer has
		// room for, and counts the rest.
		n, want := 1, min(1, left)
		if i < wides {
			n, want = wide, min(maxServers, left)
		}
		if got := len(c.Servers); got != want || c.MoreServers != n-want || c.Tokens != notes*n {
			t.Errorf("config %d (%s): %d tokens, %d servers listed and %d more; want %d, %d and %d",
				i, filepath.Base(c.Path), c.Tokens, got, c.MoreServers, notes*n, want, n-want)
		}
		left -= len(c.Servers)
	}
	for _, want := range []string{
		"… and " + num.Int(servers-maxServers) + " more servers; run `mcpcost audit` in a terminal for all\n",
		"… and " + num.Count(broken-maxProblems, "more problem") + "; run `mcpcost audit` in a terminal for all",
		fmt.Sprintf("the structured result lists the %d heaviest of %s configs; run `mcpcost audit` in a terminal for all", maxConfigs, num.Int(configs)),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text does not say %q:\n%.1000s", want, text)
		}
	}

	// Without the user's word, every server needs approval: the text
	// counts them all.
	_, text = answer(map[string]any{"client": "continue"})
	if want := num.Int(servers) + " servers of the project's own config files not launched"; !strings.Contains(text, want) {
		t.Errorf("the text does not say %q:\n%.1000s", want, text)
	}

	// One file: its config, with no session, and the text lists it.
	a, text = answer(map[string]any{"path": filepath.Join(dir, "w0.yaml"), "trust_project": true})
	if len(a.Configs) != 1 || len(a.Configs[0].Servers) != maxServers || a.Configs[0].MoreServers != wide-maxServers || a.Configs[0].Tokens != notes*wide {
		t.Fatalf("w0.yaml: %+v", a)
	}
	if want := "\n  … and 100 more servers; run `mcpcost audit` in a terminal for all\n  heaviest: "; !strings.Contains(text, want) {
		t.Errorf("the text does not say %q:\n%.1000s", want, text)
	}
}

// TestAuditLongPath: a config's path, and a session's folder, are cut to
// maxName runes in audit_config's answer, as a name is: the answer lists
// a hundred of them.
func TestAuditLongPath(t *testing.T) {
	root := t.TempDir()
	project := root
	for range 4 {
		project = filepath.Join(project, strings.Repeat("d", 200))
	}
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(project, ".mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"x": {"command": "srv"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, withDefaults(Options{Version: "test", Getenv: func(k string) string { return map[string]string{"HOME": root}[k] }, Project: project, CacheDir: filepath.Join(root, "cache")}))
	var a AuditResult
	call(t, cs, toolAudit, map[string]any{"client": "claude-code"}, &a)
	if len(a.Sessions) != 1 || len(a.Configs) != 1 {
		t.Fatalf("%d sessions and %d configs, want 1 and 1", len(a.Sessions), len(a.Configs))
	}
	for _, got := range []struct{ path, want string }{{a.Sessions[0].Path, project}, {a.Configs[0].Path, cfg}} {
		if want := name(got.want); got.path != want || !strings.HasSuffix(want, fmt.Sprintf("… (%d bytes)", len(got.want))) {
			t.Errorf("path %q, want %q", got.path, want)
		}
	}
}

// TestAuditExplicitWords: a file given by path whose client cannot be
// told is "given by path" in the text, "explicit" in the result.
func TestAuditExplicitWords(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "servers.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"x": {"command": "srv"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, withDefaults(Options{Version: "test", Getenv: func(k string) string { return map[string]string{"HOME": root}[k] }, Project: root, CacheDir: filepath.Join(root, "cache")}))
	var a AuditResult
	text := call(t, cs, toolAudit, map[string]any{"path": cfg}, &a)
	if len(a.Configs) != 1 || a.Configs[0].Client != "explicit" {
		t.Fatalf("configs %+v, want one of client explicit", a.Configs)
	}
	if strings.Contains(text, "explicit") || !strings.Contains(text, "(given by path)") {
		t.Errorf("text %q, want the file given by path and no internal label", text)
	}
}
