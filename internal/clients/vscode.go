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
//
// A name in a user file and in a workspace file is the workspace's server:
// the user's entry is overridden (see [overrideUserByWorkspace]).
//
// Dev containers: the project's .devcontainer/devcontainer.json (also
// .devcontainer.json and .devcontainer/<name>/devcontainer.json) may hold
// the same block under customizations.vscode.mcp; VS Code adds those
// servers when it opens the folder in the container, and starts stdio
// ones inside the container. Project scope: they need approval.

func init() {
	register(&client{
		name:          VSCode,
		projectScopes: []string{"workspace", "workspace-settings", "devcontainer"},
		title:         "VS Code",
		candidates:    vscodeCandidates,
		parse:         parseVSCode,
		settle: func(_ *System, configs []Config) []Config {
			overrideUserByWorkspace(configs)
			return configs
		},
	})
}

// vscodeWorkspaceScopes are the scopes of the files in the workspace.
var vscodeWorkspaceScopes = map[string]bool{"workspace": true, "workspace-settings": true, "devcontainer": true}

// overrideUserByWorkspace marks each server of a user-level file (the
// profile's mcp.json or settings.json) that a workspace file names too as
// overridden by the first workspace file that does: VS Code 1.118 enables
// only the most specific of the servers that share a name ("By default,
// only the most-specific MCP server will be enabled, and enabling a server
// will disable other servers by the same name", its release notes), and the
// workspace's is more specific than the user's. Before 1.118 both were
// started, their tools listed twice.
func overrideUserByWorkspace(configs []Config) {
	for i := range configs {
		if vscodeWorkspaceScopes[configs[i].Scope] {
			continue
		}
		for j := range configs[i].Servers {
			s := &configs[i].Servers[j]
			for _, w := range configs {
				if vscodeWorkspaceScopes[w.Scope] && hasServer(w, s.Name) {
					s.OverriddenBy = fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
					break
				}
			}
		}
	}
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
	out = append(out,
		candidate{client: VSCode, scope: "workspace", format: FormatJSONC, path: sys.join(sys.Cwd, ".vscode", "mcp.json")},
		candidate{client: VSCode, scope: "workspace-settings", format: FormatJSONC, path: sys.join(sys.Cwd, ".vscode", "settings.json")},
		candidate{client: VSCode, scope: "devcontainer", format: FormatJSONC, path: sys.join(sys.Cwd, ".devcontainer", "devcontainer.json")},
		candidate{client: VSCode, scope: "devcontainer", format: FormatJSONC, path: sys.join(sys.Cwd, ".devcontainer.json")},
	)
	dc := sys.join(sys.Cwd, ".devcontainer")
	if names, err := sys.FS.ReadDir(dc); err == nil {
		for _, n := range names {
			p := sys.join(dc, n, "devcontainer.json")
			if sys.FS.IsDir(sys.join(dc, n)) {
				out = append(out, candidate{client: VSCode, scope: "devcontainer", format: FormatJSONC, path: p})
			}
		}
	}
	return out
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
	if c.scope == "devcontainer" {
		custom, _ := top["customizations"].(map[string]any)
		vs, _ := custom["vscode"].(map[string]any)
		m, ok := vs["mcp"].(map[string]any)
		if !ok {
			cfg.noMCP = "no customizations.vscode.mcp in this dev container file"
			return cfg
		}
		block, key = m, "customizations.vscode.mcp.servers"
	} else if strings.HasSuffix(c.scope, "settings") || (top["servers"] == nil && isObject(top["mcp"])) {
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
	if key == "servers" && len(servers) == 0 {
		unwrapped(&cfg, top, "servers")
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
	if c.scope == "devcontainer" {
		for i := range servers {
			if servers[i].Transport == Stdio {
				servers[i].Notes = append(servers[i].Notes, "VS Code starts it inside the dev container; mcpcost starts it on this machine")
			}
		}
	}
	cfg.Servers = servers
	return cfg
}
