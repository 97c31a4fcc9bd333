package clients

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

var errPos = regexp.MustCompile(`^/f/[^:]+:[0-9]+(:[0-9]+)?: (not valid |.* over the cap on config files)`)

// checkConfig checks what a parser made of arbitrary input: no panic, an
// error naming the file and a line, servers that render without leaking.
func checkConfig(t *testing.T, cfg Config) {
	t.Helper()
	if cfg.Error != "" && !errPos.MatchString(cfg.Error) && !strings.Contains(cfg.Error, "not an object") {
		t.Fatalf("error without a position: %q", cfg.Error)
	}
	for _, s := range cfg.Servers {
		_ = s.Display()
		_ = s.Status()
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("marshal: %v", err)
		}
	}
}

func fuzzSystem(data []byte) *System {
	return &System{OS: "linux", Home: "/home/me", Cwd: "/f", FS: mapFS{"/f/token.txt": data},
		Getenv: func(k string) string {
			if k == "SET" {
				return "value"
			}
			return ""
		}}
}

func FuzzJSONC(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["${SET}", "${UNSET:-d}"]}}}`,
		"{\n // c\n \"servers\": {\"a\": {\"url\": \"https://x/${input:t}\",},},\n}",
		`{"context_servers": {"a": {"command": {"path": "p", "args": [1]}}}}`,
		`{"mcp": {"a": {"type": "local", "command": ["a", "{env:SET}", "{file:token.txt}"]}}, "tools": {"a_*": false}}`,
		`{"mcpServers": {"a": {"httpUrl": "https://x", "includeTools": ["t"], "excludeTools": 3}}}`,
		`{"projects": {"/f": {"mcpServers": {"a": {"type": "ws", "url": "ws://x"}}}}}`,
		"\xef\xbb\xbf{}", `{"a": /* x */ 1`, `[`, `"`, `{"mcpServers": []}`,
	} {
		f.Add([]byte(seed))
	}
	addBoundaryJSON(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{FormatJSON, FormatJSONC} {
			v, err := decodeJSON(data, format)
			if err != nil {
				pe, ok := err.(*ParseError)
				if !ok || pe.Line < 1 {
					t.Fatalf("%s: error %v has no position", format, err)
				}
				continue
			}
			if format == FormatJSON {
				// json.Valid checks the grammar alone: numbers beyond a
				// double's range are valid JSON (JSON.parse reads ±Infinity).
				if !json.Valid(stripBOM(data)) {
					t.Fatalf("strict JSON accepted what is not JSON: %q (%v)", data, v)
				}
			}
		}
		sys := fuzzSystem(data)
		for _, name := range []string{ClaudeDesktop, Cursor, VSCode, Windsurf, Gemini, Zed, Opencode, Cline, Continue} {
			c := candidate{client: name, scope: "project", path: "/f/config.json", format: FormatJSONC}
			checkConfig(t, registry[name].parse(sys, c, data))
		}
		for _, scope := range []string{"user", "local"} {
			c := candidate{client: ClaudeCode, scope: scope, path: "/f/.claude.json", format: FormatJSON}
			checkConfig(t, parseClaudeCode(sys, c, data))
		}
		checkConfig(t, parseGeneric(sys, candidate{path: "/f/x.json", scope: "explicit"}, data))
	})
}

func FuzzTOMLConfig(f *testing.F) {
	for _, seed := range []string{
		"[mcp_servers.a]\ncommand = \"x\"\nargs = [\"--token=abc\"]\nenabled_tools = [\"t\"]\n",
		"[mcp_servers.b]\nurl = \"https://x\"\nbearer_token_env_var = \"SET\"\nenv_http_headers = { \"X\" = \"UNSET\" }\n",
		"[mcp_servers]\na = 1\n", "[projects.\"/f\"]\ntrust_level = \"trusted\"\n", "a = [", "[[mcp_servers]]\n",
	} {
		f.Add([]byte(seed))
	}
	addBoundaryTOML(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		sys := fuzzSystem(data)
		cfg := parseCodex(sys, candidate{client: Codex, scope: "user", path: "/f/config.toml", format: FormatTOML}, data)
		checkConfig(t, cfg)
		if _, err := decodeTOML(data, "/f/config.toml"); err != nil {
			if pe, ok := err.(*ParseError); !ok || pe.Path == "" {
				t.Fatalf("error %v is not a ParseError with a path", err)
			}
		}
	})
}

func FuzzYAMLConfig(f *testing.F) {
	for _, seed := range []string{
		"extensions:\n  a:\n    type: stdio\n    cmd: x\n    env_keys: [SET, UNSET]\n",
		"extensions:\n  b:\n    type: streamable_http\n    uri: https://x\n",
		"mcpServers:\n  - name: a\n    command: x\n    env:\n      K: ${{ secrets.K }}\n",
		"mcpServers: {}\n", "- a\n", "a: [\n", "? [a]\n: b\n", "a: &x\n  b: *x\n", "1: 2\n",
	} {
		f.Add([]byte(seed))
	}
	addBoundaryYAML(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		sys := fuzzSystem(data)
		checkConfig(t, parseGoose(sys, candidate{client: Goose, scope: "user", path: "/f/config.yaml", format: FormatYAML}, data))
		checkConfig(t, parseContinue(sys, candidate{client: Continue, scope: "user", path: "/f/config.yaml", format: FormatYAML}, data))
	})
}
