package clients

import (
	"errors"
	"strings"
	"testing"
)

func testSystem(osName string, env map[string]string) *System {
	sys := &System{OS: osName, Home: "/home/me", Cwd: "/home/me/proj", FS: mapFS{},
		Getenv: func(k string) string { return env[k] }}
	if osName == "windows" {
		sys.Home, sys.Cwd = `C:\Users\me`, `C:\Users\me\proj`
	}
	return sys
}

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "HOST": "h.example", "EMPTY": ""}
	linux := testSystem("linux", env)
	windows := testSystem("windows", env)
	files := testSystem("linux", env)
	files.FS = mapFS{"/home/me/proj/tok": []byte("s3cret\n"), "/home/me/abs": []byte("abs-val\r\n")}
	cases := []struct {
		name        string
		fn          func(string, *expansion) string
		in, want    string
		unset, need string
	}{
		{"shell", linux.expandShell, "${TOKEN}", "t0k", "", ""},
		{"shell default unused", linux.expandShell, "${TOKEN:-d}", "t0k", "", ""},
		{"shell default", linux.expandShell, "${NOPE:-fallback}", "fallback", "", ""},
		{"shell empty default", linux.expandShell, "x${NOPE:-}y", "xy", "", ""},
		{"shell empty is unset", linux.expandShell, "${EMPTY:-d}", "d", "", ""},
		{"shell unset stays", linux.expandShell, "a-${NOPE}-b", "a-${NOPE}-b", "NOPE", ""},
		{"shell no env: syntax", linux.expandShell, "${env:TOKEN}", "${env:TOKEN}", "", ""},
		{"shell bare dollar", linux.expandShell, "$TOKEN", "$TOKEN", "", ""},
		{"shell two", linux.expandShell, "https://${HOST}/?k=${TOKEN}", "https://h.example/?k=t0k", "", ""},
		{"editor env", func(s string, x *expansion) string { return linux.expandEditor(s, x, true) }, "${env:TOKEN}", "t0k", "", ""},
		{"editor env unset", func(s string, x *expansion) string { return linux.expandEditor(s, x, true) }, "[${env:NOPE}]", "[]", "NOPE", ""},
		{"editor input", func(s string, x *expansion) string { return linux.expandEditor(s, x, true) }, "Bearer ${input:tok}", "Bearer ${input:tok}", "", "input:tok"},
		{"cursor no input", func(s string, x *expansion) string { return linux.expandEditor(s, x, false) }, "${input:tok}", "${input:tok}", "", ""},
		{"editor home", func(s string, x *expansion) string { return linux.expandEditor(s, x, true) }, "${userHome}/x", "/home/me/x", "", ""},
		{"editor workspace", func(s string, x *expansion) string { return linux.expandEditor(s, x, true) }, "${workspaceFolder}/${workspaceFolderBasename}", "/home/me/proj/proj", "", ""},
		{"editor sep windows", func(s string, x *expansion) string { return windows.expandEditor(s, x, true) }, "a${/}b${pathSeparator}c", `a\b\c`, "", ""},
		{"editor other", func(s string, x *expansion) string { return linux.expandEditor(s, x, true) }, "${config:x}", "${config:x}", "", ""},
		{"editor plain VAR", func(s string, x *expansion) string { return linux.expandEditor(s, x, true) }, "${TOKEN}", "${TOKEN}", "", ""},
		{"gemini dollar", linux.expandGemini, "$TOKEN and ${HOST}", "t0k and h.example", "", ""},
		{"gemini unset", linux.expandGemini, "$NOPE", "$NOPE", "NOPE", ""},
		{"gemini percent linux", linux.expandGemini, "%TOKEN%", "%TOKEN%", "", ""},
		{"gemini percent windows", windows.expandGemini, "%TOKEN%", "t0k", "", ""},
		{"copilot braces", linux.expandCopilot, "${TOKEN}", "t0k", "", ""},
		{"copilot bare", linux.expandCopilot, "--host=$HOST", "--host=h.example", "", ""},
		{"copilot default", linux.expandCopilot, "${NOPE:-inbox}", "inbox", "", ""},
		{"copilot default unused", linux.expandCopilot, "${TOKEN:-x}", "t0k", "", ""},
		{"copilot unset stays", linux.expandCopilot, "${TRELLO_API_KEY}", "${TRELLO_API_KEY}", "TRELLO_API_KEY", ""},
		{"copilot bare unset", linux.expandCopilot, "$NOPE/x", "$NOPE/x", "NOPE", ""},
		{"copilot no env: syntax", linux.expandCopilot, "${env:TOKEN}", "${env:TOKEN}", "", ""},
		{"copilot lone dollar", linux.expandCopilot, "cost $5", "cost $5", "", ""},
		{"windsurf env", linux.expandWindsurf, "Bearer ${env:TOKEN}", "Bearer t0k", "", ""},
		{"windsurf env unset", linux.expandWindsurf, "${env:NOPE}", "${env:NOPE}", "NOPE", ""},
		{"windsurf plain", linux.expandWindsurf, "${TOKEN}", "${TOKEN}", "", ""},
		{"windsurf file missing", linux.expandWindsurf, "${file:/nope}", "${file:/nope}", "file:/nope", ""},
		{"windsurf file relative", files.expandWindsurf, "${file:proj/tok}", "${file:proj/tok}", "file:proj/tok", ""},
		{"windsurf file home", files.expandWindsurf, "${file:~/proj/tok}", "s3cret", "", ""},
		{"windsurf file absolute", files.expandWindsurf, "k=${file:/home/me/abs}", "k=abs-val", "", ""},
		{"continue secret", linux.expandContinue, "${{ secrets.KEY }}", "${{ secrets.KEY }}", "", "secrets.KEY"},
		{"continue inputs", linux.expandContinue, "${{inputs.X}}", "${{inputs.X}}", "", "inputs.X"},
	}
	for _, c := range cases {
		var x expansion
		got := c.fn(c.in, &x)
		if got != c.want || strings.Join(x.unset, ",") != c.unset || strings.Join(x.needs, ",") != c.need {
			t.Errorf("%s: %q -> %q unset %q needs %q; want %q unset %q needs %q", c.name, c.in, got, x.unset, x.needs, c.want, c.unset, c.need)
		}
	}
}

func TestJoin(t *testing.T) {
	cases := []struct {
		os   string
		elem []string
		want string
	}{
		{"linux", []string{"/home/me", ".config", "x.json"}, "/home/me/.config/x.json"},
		{"linux", []string{"/", "etc", "x"}, "/etc/x"},
		{"linux", []string{"/home/me/", "/a/"}, "/home/me/a"},
		{"darwin", []string{"/Users/me", "Library/Application Support", "Claude"}, "/Users/me/Library/Application Support/Claude"},
		{"windows", []string{`C:\Users\me`, ".cursor", "mcp.json"}, `C:\Users\me\.cursor\mcp.json`},
		{"windows", []string{`C:\Users\me\`, "a/b"}, `C:\Users\me\a\b`},
	}
	for _, c := range cases {
		sys := &System{OS: c.os}
		if got := sys.join(c.elem...); got != c.want {
			t.Errorf("%s join(%q) = %q, want %q", c.os, c.elem, got, c.want)
		}
	}
	w := &System{OS: "windows"}
	if w.dir(`C:\a\b.json`) != `C:\a` || w.base(`C:\a\b.json`) != "b.json" {
		t.Error("windows dir/base")
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, format, data string
		line, col          int
		msg                string
	}{
		{"json trailing comma", FormatJSON, "{\n  \"a\": 1,\n}\n", 3, 1, "trailing comma"},
		{"json comment", FormatJSON, "{\n  // x\n}", 2, 3, "a comment"},
		{"json empty", FormatJSON, "", 1, 1, "the file is empty"},
		{"json truncated", FormatJSON, "{\"a\": [1,", 1, 10, "unexpected end of file"},
		{"json two values", FormatJSON, "{} {}", 1, 4, "after the top-level value"},
		{"json array top", FormatJSON, "[]", 1, 1, "not an object"},
		{"jsonc ok comma", FormatJSONC, "{\"a\": 1,}", 0, 0, ""},
		{"jsonc bad", FormatJSONC, "{\n\n  \"a\" 1}", 3, 7, "invalid character"},
		{"jsonc truncated", FormatJSONC, "{\"a\": ", 1, 7, "not closed"},
		{"bom json", FormatJSON, "\xef\xbb\xbf{}", 0, 0, ""},
		{"jsonc unquoted secret", FormatJSONC, "{\"key\": sk-secret-1234}", 1, 9, "missing its quotes"},
	}
	for _, c := range cases {
		_, _, err := readJSONTop([]byte(c.data), c.format, "f.json")
		checkParseError(t, c.name, err, c.line, c.col, c.msg)
	}
	_, err := decodeTOML([]byte("a = 1\n[t\n"), "c.toml")
	checkParseError(t, "toml", err, 2, 3, "close table name")
	_, err = decodeTOML([]byte("a = 1\na = 2\n"), "c.toml")
	checkParseError(t, "toml duplicate", err, 2, 1, "")
	_, err = decodeYAML([]byte("a: 1\nb: [\n"), "c.yaml", nil)
	checkParseError(t, "yaml", err, 2, 0, "did not find expected node content")
	_, err = decodeYAML([]byte("- a\n- b\n"), "c.yaml", nil)
	checkParseError(t, "yaml list", err, 1, 1, "not a mapping")
	_, err = decodeYAML([]byte("a: !!int sk-secret\n"), "c.yaml", nil)
	checkParseError(t, "yaml typed", err, 1, 0, "cannot decode")
	if strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("the error repeats the value: %v", err)
	}
	m, err := decodeYAML([]byte(""), "c.yaml", nil)
	if err != nil || len(m) != 0 {
		t.Errorf("empty yaml: %v %v", m, err)
	}
}

func checkParseError(t *testing.T, name string, err error, line, col int, msg string) {
	t.Helper()
	if line == 0 {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("%s: error %v is not a *ParseError", name, err)
		return
	}
	if pe.Line != line || (col != 0 && pe.Col != col) || !strings.Contains(pe.Error(), msg) || pe.Path == "" {
		t.Errorf("%s: %s (line %d col %d); want line %d col %d and %q", name, pe, pe.Line, pe.Col, line, col, msg)
	}
}

func TestLoadSniffs(t *testing.T) {
	fsys := mapFS{
		"/x/claude_desktop_config.json": []byte(`{"mcpServers": {"a": {"command": "a"}}}`),
		"/x/.mcp.json":                  []byte(`{"mcpServers": {"a": {"url": "https://a.example"}}}`),
		"/x/.vscode/mcp.json":           []byte(`{"servers": {"a": {"url": "https://a.example"}}}`),
		"/x/.cursor/mcp.json":           []byte(`{"mcpServers": {"a": {"url": "https://a.example"}}}`),
		"/x/any.toml":                   []byte("[mcp_servers.a]\ncommand = \"a\"\n"),
		"/x/goose/config.yaml":          []byte("extensions:\n  a:\n    type: stdio\n    cmd: a\n"),
		"/x/assistant.yaml":             []byte("mcpServers:\n  - name: a\n    command: a\n"),
		"/x/zed.json":                   []byte(`{"context_servers": {"a": {"command": "a"}}}`),
		"/x/oc.json":                    []byte(`{"mcp": {"a": {"type": "local", "command": ["a"]}}}`),
		"/x/legacy.json":                []byte(`{"mcp": {"servers": {"a": {"command": "a"}}}}`),
		"/x/plain.json":                 []byte(`{"mcpServers": {"a": {"command": "a"}}, "servers": {"b": {"url": "https://b.example"}}}`),
		"/x/bad.json":                   []byte(`{"mcpServers": `),
	}
	sys := System{OS: "linux", Home: "/home/me", Cwd: "/x", FS: fsys, Getenv: func(string) string { return "" }}
	cases := []struct {
		path, client, transport string
		servers                 int
		problem                 bool
	}{
		{"/x/claude_desktop_config.json", ClaudeDesktop, Stdio, 1, false},
		{"/x/.mcp.json", ClaudeCode, "", 1, true}, // a url without a type
		{"/x/.vscode/mcp.json", VSCode, HTTP, 1, false},
		{"/x/.cursor/mcp.json", Cursor, HTTP, 1, false},
		{"/x/any.toml", Codex, Stdio, 1, false},
		{"/x/goose/config.yaml", Goose, Stdio, 1, false},
		{"/x/assistant.yaml", Continue, Stdio, 1, false},
		{"/x/zed.json", Zed, Stdio, 1, false},
		{"/x/oc.json", Opencode, Stdio, 1, false},
		{"/x/legacy.json", VSCode, Stdio, 1, false},
		{"/x/plain.json", Explicit, Stdio, 2, false},
	}
	for _, c := range cases {
		cfg, err := Load(sys, c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if cfg.Client != c.client || len(cfg.Servers) != c.servers || cfg.Error != "" {
			t.Errorf("%s: client %q, %d servers, error %q; want %q, %d", c.path, cfg.Client, len(cfg.Servers), cfg.Error, c.client, c.servers)
			continue
		}
		s := cfg.Servers[0]
		if s.Transport != c.transport || (s.Problem != "") != c.problem {
			t.Errorf("%s: transport %q problem %q", c.path, s.Transport, s.Problem)
		}
	}
	if cfg, err := Load(sys, "/x/bad.json"); err != nil || !strings.Contains(cfg.Error, "bad.json:1:") {
		t.Errorf("bad.json: %v %q", err, cfg.Error)
	}
	if _, err := Load(sys, "/x/missing.json"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing: %v", err)
	}
}

// TestLoadAtClientPath checks that a file named with --config at a path
// discovery looks at is read by that client, in that scope, and that
// LoadAs forces a reader for any other path.
func TestLoadAtClientPath(t *testing.T) {
	copilot := []byte(`{"mcpServers": {"trello": {"type": "local", "command": "npx", "args": ["trello-mcp"], "env": {"K": "${TRELLO_API_KEY}"}, "tools": ["*"]}}}`)
	fsys := mapFS{
		"/home/me/.copilot/mcp-config.json": copilot,
		"/home/me/backup/servers.json":      copilot,
		"/home/me/proj/.mcp.json":           []byte(`{"mcpServers": {"db": {"type": "local", "command": "db-mcp"}}}`),
		"/home/me/proj/.cursor/mcp.json":    []byte(`{"other": 1}`),
		"/home/me/.gemini/settings.json":    []byte(`{"mcpServers": {"g": {"httpUrl": "https://g.example/mcp"}}}`),
	}
	sys := System{OS: "linux", Home: "/home/me", Cwd: "/home/me/proj", FS: fsys,
		Getenv: func(k string) string { return map[string]string{"TRELLO_API_KEY": "k1"}[k] }}
	cases := []struct {
		path, force           string
		client, scope, status string
		unset, note           string
	}{
		{"/home/me/.copilot/mcp-config.json", "", CopilotCLI, "user", StatusEnabled, "", ""},
		{"/home/me/backup/servers.json", "", Explicit, "explicit", StatusProblem, "", ""},
		{"/home/me/backup/servers.json", CopilotCLI, CopilotCLI, "user", StatusEnabled, "", ""},
		{"/home/me/proj/.mcp.json", "", ClaudeCode, "project", StatusProblem, "", ""},
		{"/home/me/proj/.mcp.json", CopilotCLI, CopilotCLI, "workspace", StatusEnabled, "", ""},
		{"/home/me/proj/.cursor/mcp.json", "", Cursor, "project", "", "", `no "mcpServers" key`},
		{"/home/me/.gemini/settings.json", "", Gemini, "user", StatusEnabled, "", ""},
	}
	for _, c := range cases {
		cfg, err := LoadAs(sys, c.path, c.force)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if cfg.Client != c.client || cfg.Scope != c.scope {
			t.Errorf("%s (client %q): read as %s %s, want %s %s", c.path, c.force, cfg.Client, cfg.Scope, c.client, c.scope)
		}
		if c.note != "" && !strings.Contains(strings.Join(cfg.Notes, "; "), c.note) {
			t.Errorf("%s: notes %q, want one with %q", c.path, cfg.Notes, c.note)
		}
		if c.status == "" {
			if len(cfg.Servers) != 0 {
				t.Errorf("%s: %d servers, want none", c.path, len(cfg.Servers))
			}
			continue
		}
		if len(cfg.Servers) != 1 {
			t.Fatalf("%s: %d servers, want 1", c.path, len(cfg.Servers))
		}
		s := cfg.Servers[0]
		if s.Status() != c.status {
			t.Errorf("%s (client %q): status %s (%s), want %s", c.path, c.force, s.Status(), s.Problem, c.status)
		}
		if s.Name == "trello" && s.Status() == StatusEnabled && s.Env["K"] != "k1" {
			t.Errorf("%s: env K = %q, want the expanded value", c.path, s.Env["K"])
		}
	}
}
