package clients

import (
	"errors"
	"strings"
	"testing"
)

// TestUnwrappedServers checks that a file whose top level holds server
// entries without the object its client reads them from declares no
// server, and says so: a note naming the keys and the object, and a hint
// showing the shape; and that a client reading bare entries reads them.
func TestUnwrappedServers(t *testing.T) {
	continuum := `{"continuum": {"command": "continuum", "args": ["serve"]}}`
	fsys := mapFS{
		"/p/03-continuum.mcp.json":      []byte(continuum),
		"/p/.mcp.json":                  []byte(continuum),
		"/p/.cursor/mcp.json":           []byte(continuum),
		"/p/.vscode/mcp.json":           []byte(`{"inputs": [], "gh": {"url": "https://gh.example/mcp"}, "fs": {"command": "fs"}}`),
		"/p/.gemini/settings.json":      []byte(`{"theme": "dark", "g": {"httpUrl": "https://g.example/mcp"}}`),
		"/p/.zed/settings.json":         []byte(`{"agent": {"profiles": {}}, "z": {"command": "z-mcp"}}`),
		"/p/opencode.json":              []byte(`{"$schema": "x", "o": {"type": "local", "command": ["o-mcp"]}}`),
		"/p/codex.toml":                 []byte("model = \"x\"\n[continuum]\ncommand = \"continuum\"\n"),
		"/h/.codeium/windsurf/mcp.json": []byte(`{"w": {"serverUrl": "https://w.example/mcp"}}`),
		"/p/.github/mcp.json":           []byte(continuum),
		"/p/settings-only.json":         []byte(`{"editor": {"fontSize": 12}, "list": [1]}`),
	}
	sys := System{OS: "linux", Home: "/h", Cwd: "/p", FS: fsys, Getenv: func(string) string { return "" }}
	cases := []struct {
		path, force string
		note, hint  string // "" for none
		servers     int
	}{
		{"/p/03-continuum.mcp.json", "", `top-level key "continuum" looks like a server outside an "mcpServers" object`,
			`{"mcpServers": {"continuum": {...}}}`, 0},
		{"/p/.mcp.json", "", `"continuum" looks like a server outside an "mcpServers" object, where Claude Code reads servers`,
			`{"mcpServers": {"continuum": {...}}}`, 0},
		{"/p/.cursor/mcp.json", "", `"continuum" looks like a server outside an "mcpServers" object, where Cursor`, `"mcpServers"`, 0},
		{"/p/.vscode/mcp.json", "", `top-level keys "fs" and "gh" look like servers outside a "servers" object, where VS Code`,
			`{"servers": {"fs": {...}, "gh": {...}}}`, 0},
		{"/p/.gemini/settings.json", "", `"g" looks like a server outside an "mcpServers" object, where Gemini CLI`, `"mcpServers"`, 0},
		{"/p/.zed/settings.json", "", `"z" looks like a server outside a "context_servers" object, where Zed`,
			`{"context_servers": {"z": {...}}}`, 0},
		{"/p/opencode.json", "", `"o" looks like a server outside an "mcp" object, where opencode`, `{"mcp": {"o": {...}}}`, 0},
		{"/p/codex.toml", "", `top-level table [continuum] looks like a server outside [mcp_servers]: Codex`, `[mcp_servers.continuum]`, 0},
		{"/h/.codeium/windsurf/mcp.json", Windsurf, `"w" looks like a server outside an "mcpServers" object, where Windsurf`, `"mcpServers"`, 0},
		// Copilot CLI reads bare entries at the top level of a workspace file.
		{"/p/.github/mcp.json", "", "", "", 1},
		{"/p/settings-only.json", "", "", "", 0},
	}
	for _, c := range cases {
		cfg, err := LoadAs(sys, c.path, c.force)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		notes := strings.Join(cfg.Notes, "; ")
		if len(cfg.Servers) != c.servers || cfg.Error != "" {
			t.Errorf("%s: %d servers, error %q; want %d", c.path, len(cfg.Servers), cfg.Error, c.servers)
		}
		if c.note == "" {
			if strings.Contains(notes, "look") || cfg.Hint != "" {
				t.Errorf("%s: notes %q, hint %q; want none about the top level", c.path, notes, cfg.Hint)
			}
			continue
		}
		if !strings.Contains(notes, c.note) {
			t.Errorf("%s (read as %s): notes %q\nwant one with %q", c.path, cfg.Client, notes, c.note)
		}
		if !strings.Contains(cfg.Hint, c.hint) {
			t.Errorf("%s: hint %q, want one with %q", c.path, cfg.Hint, c.hint)
		}
	}

	// Found by discovery, such a file is a config with no server and the
	// note, not a file without MCP servers.
	configs, looked := Discover(sys, []string{Zed})
	if len(configs) != 1 || len(configs[0].Servers) != 0 || configs[0].Hint == "" {
		t.Errorf("discovered Zed configs %+v; want the project file, with no server and a hint", configs)
	}
	for _, l := range looked {
		if l.Path == "/p/.zed/settings.json" && (l.State != StateFound || l.Note != "") {
			t.Errorf("looked at %+v; want found, without a note of no MCP servers", l)
		}
	}
}

// TestZedExtensionServers checks that a Zed entry holding only the
// settings of a server an extension provides ({"settings": {...}}, with
// or without "source": "extension") is such a server, not a problem.
func TestZedExtensionServers(t *testing.T) {
	fsys := mapFS{"/p/.zed/settings.json": []byte(`{"context_servers": {
		"markdown-pdf": {"settings": {"page_format": "Letter"}},
		"memory-gateway": {"settings": {"url": "http://127.0.0.1:8788/mcp"}},
		"gh": {"source": "extension", "settings": {"token": "x"}},
		"off": {"settings": {}, "enabled": false},
		"custom": {"source": "custom", "command": "c-mcp", "settings": {}},
		"empty": {}
	}}`)}
	sys := System{OS: "linux", Home: "/h", Cwd: "/p", FS: fsys, Getenv: func(string) string { return "" }}
	cfg, err := LoadAs(sys, "/p/.zed/settings.json", "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"markdown-pdf": StatusExtension, "memory-gateway": StatusExtension, "gh": StatusExtension,
		"off": StatusDisabled, "custom": StatusEnabled, "empty": StatusProblem}
	for _, s := range cfg.Servers {
		if got := s.Status(); got != want[s.Name] {
			t.Errorf("%s: status %s (problem %q), want %s", s.Name, got, s.Problem, want[s.Name])
		}
		if s.Status() == StatusExtension && (s.Problem != "" || s.Launchable() || s.Transport != "" || s.URL != "" ||
			!strings.Contains(s.ProvidedBy, "Zed extension")) {
			t.Errorf("%s: %+v; want a server provided by a Zed extension, with nothing to launch", s.Name, s)
		}
	}
}

// TestSizeErrorWords checks that a file over the size cap is said to be
// larger than it, with both sizes told apart, and a hint about the size.
func TestSizeErrorWords(t *testing.T) {
	cases := []struct {
		size, max int64
		want      string
	}{
		{8268914, MaxConfigSize, "7.9 MiB, larger than the 4 MiB cap on config files: not read"},
		{MaxConfigSize + 1, MaxConfigSize, "4,194,305 bytes, larger than the 4 MiB (4,194,304-byte) cap on config files: not read"},
		{MaxClaudeStateSize + 1, MaxClaudeStateSize, "268,435,457 bytes, larger than the 256 MiB (268,435,456-byte) cap"},
	}
	for _, c := range cases {
		err := sizeError("/p/.mcp.json", c.size, c.max, false)
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d bytes: %q, want %q", c.size, err, c.want)
		}
		var h interface{ Hint() string }
		if !errors.As(readError("/p/.mcp.json", err), &h) || !strings.Contains(h.Hint(), formatSize(c.max)) ||
			strings.Contains(h.Hint(), "parse") {
			t.Errorf("%d bytes: no hint about the size", c.size)
		}
	}
	if err := sizeError("/p/.mcp.json", 0, MaxConfigSize, true); !strings.HasSuffix(err.Error(), ": larger than the 4 MiB cap on config files: not read") {
		t.Errorf("a file that grew while read: %q", err)
	}
	var h interface{ Hint() string }
	if errors.As(regularError(), &h) && h.Hint() != "" {
		t.Errorf("a file that is not regular has the hint %q; want none of its own", h.Hint())
	}
}

func regularError() error {
	return &LimitError{Path: "/p/x", Msg: "a named pipe (FIFO), not a regular file"}
}
