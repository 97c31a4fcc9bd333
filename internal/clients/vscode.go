package clients

import (
	"fmt"
	"strings"
)

// VS Code (GitHub Copilot Chat): the workspace's .vscode/mcp.json and the
// user profile's mcp.json (Code/User/mcp.json under the OS's settings
// folder, Code - Insiders alike, other profiles under
// User/profiles/<id>/), top-level "servers" plus "inputs". Before 1.102
// servers lived in settings.json under "mcp": {"servers", "inputs"}; those
// are read too. All JSONC.
//
// Variables: ${input:id} is prompted for by VS Code and cannot be resolved
// offline, so the server is reported as needing input; ${env:NAME},
// ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename},
// ${pathSeparator} and ${/} are expanded. A "type" is optional: command
// means stdio, url means http (VS Code tries Streamable HTTP, then SSE).

func init() {
	register(&client{
		name:          VSCode,
		projectScopes: []string{"workspace", "workspace-settings"},
		title:         "VS Code",
		candidates:    vscodeCandidates,
		parse:         parseVSCode,
	})
}

// vscodeUserDirs are the User folders of VS Code and VS Code Insiders.
func (sys *System) vscodeUserDirs() []string {
	base := sys.userConfigDir()
	return []string{sys.join(base, "Code", "User"), sys.join(base, "Code - Insiders", "User")}
}

func vscodeCandidates(sys *System) []candidate {
	var out []candidate
	for _, dir := range sys.vscodeUserDirs() {
		out = append(out,
			candidate{client: VSCode, scope: "user", format: FormatJSONC, path: sys.join(dir, "mcp.json")},
			candidate{client: VSCode, scope: "user-settings", format: FormatJSONC, path: sys.join(dir, "settings.json")},
		)
		profiles := sys.join(dir, "profiles")
		if names, err := sys.FS.ReadDir(profiles); err == nil {
			for _, n := range names {
				if sys.FS.IsDir(sys.join(profiles, n)) {
					out = append(out, candidate{client: VSCode, scope: "profile " + n, format: FormatJSONC,
						path: sys.join(profiles, n, "mcp.json")})
				}
			}
		}
	}
	return append(out,
		candidate{client: VSCode, scope: "workspace", format: FormatJSONC, path: sys.join(sys.Cwd, ".vscode", "mcp.json")},
		candidate{client: VSCode, scope: "workspace-settings", format: FormatJSONC, path: sys.join(sys.Cwd, ".vscode", "settings.json")},
	)
}

func parseVSCode(sys *System, c candidate, data []byte) Config {
	cfg := Config{Client: VSCode, Path: c.path, Scope: c.scope, Format: FormatJSONC}
	top, notes, err := readJSONTop(data, FormatJSONC, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	block, key := top, "servers"
	if strings.HasSuffix(c.scope, "settings") || (top["servers"] == nil && isObject(top["mcp"])) {
		m, ok := top["mcp"].(map[string]any)
		if !ok {
			cfg.noMCP = `no "mcp" key in this settings file`
			return cfg
		}
		block, key = m, `mcp.servers`
		cfg.Notes = append(cfg.Notes, `servers under "mcp" in settings.json: VS Code 1.102 moved them to mcp.json`)
	}
	inputs := map[string]bool{}
	if list, ok := block["inputs"].([]any); ok {
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				if id, ok := m["id"].(string); ok {
					inputs[id] = true
				}
			}
		}
	}
	r := &entryReader{sys: sys, client: VSCode, scope: c.scope, path: c.path, typed: true, defaultURL: HTTP,
		types:  map[string]string{"stdio": Stdio, "http": HTTP, "sse": SSE},
		expand: func(s string, x *expansion) string { return sys.expandEditor(s, x, true) }}
	servers, note := r.readServerMap(block["servers"], key)
	if note != "" {
		cfg.Notes = append(cfg.Notes, note)
	}
	for i := range servers {
		s := &servers[i]
		for _, n := range s.NeedsInput {
			id := strings.TrimPrefix(n, "input:")
			if !inputs[id] && s.Problem == "" {
				s.Problem = fmt.Sprintf(`uses ${input:%s}, which no entry of "inputs" declares`, id)
			}
		}
	}
	cfg.Servers = servers
	return cfg
}
