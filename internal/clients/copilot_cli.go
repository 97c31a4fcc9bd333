package clients

import (
	"fmt"
	"strings"
)

// GitHub Copilot CLI reads, lowest precedence first:
//
//   - user scope: ~/.copilot/mcp-config.json (the folder is moved by
//     $COPILOT_HOME, else by $XDG_CONFIG_HOME to $XDG_CONFIG_HOME/.copilot);
//   - workspace scope: the repository's .github/mcp.json, and every
//     .mcp.json from the git root down to the project folder, the one
//     closest to the project folder winning a name.
//
// Top-level mcpServers; a workspace file may instead hold the servers
// bare (Claude's {"name": {...}} shape); VS Code's "servers" is not read.
// Entries have "type" local (or stdio), http or sse; command, args, env;
// url, headers; and "tools", an allow-list where "*" allows every tool.
// Read as strict JSON. $VAR, ${VAR} and ${VAR:-default} are expanded in
// command, args, env, url and headers (Copilot CLI 1.0.10 and later); an
// unset variable without a default stays as written.
//
// The workspace files are looked for only where Copilot CLI has run (its
// folder, ~/.copilot, exists): the same .mcp.json is Claude Code's too.
// Copilot CLI starts workspace servers only in a folder the user trusted:
// one listed, or below one listed, in the trusted_folders (now also
// spelled trustedFolders) array of config.json in the same folder as
// mcp-config.json. There they start as Copilot CLI starts them; elsewhere
// they need approval (--trust-project, or --config naming the file).

func init() {
	register(&client{
		name:          CopilotCLI,
		title:         "Copilot CLI",
		projectScopes: []string{"workspace"},
		candidates:    copilotCandidates,
		parse:         parseCopilot,
		settle: func(sys *System, configs []Config) []Config {
			overrideByName(configs, func(w Config) string {
				return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
			})
			if why := sys.copilotTrusted(); why != "" {
				for i := range configs {
					if configs[i].Scope == "workspace" {
						configs[i].trustedBy = why
						configs[i].Notes = append(configs[i].Notes, "Copilot CLI trusts this folder ("+why+"): it starts the repository's servers")
					}
				}
			}
			return configs
		},
	})
}

func (sys *System) copilotHome() string {
	if v := sys.getenv("COPILOT_HOME"); v != "" && sys.isAbs(v) {
		return v
	}
	base := sys.Home
	if v := sys.getenv("XDG_CONFIG_HOME"); v != "" && sys.isAbs(v) {
		base = v
	}
	return sys.join(base, ".copilot")
}

// copilotTrusted says which entry of Copilot CLI's trusted folders covers
// the project folder ("" for none).
func (sys *System) copilotTrusted() string {
	path := sys.join(sys.copilotHome(), "config.json")
	data, state, _ := sys.read(path)
	if state != StateFound {
		return ""
	}
	top, _, err := readJSONTop(data, FormatJSONC, path)
	if err != nil {
		return ""
	}
	want := sys.clean(sys.Cwd)
	for _, key := range []string{"trusted_folders", "trustedFolders"} {
		for _, f := range strList(top[key]) {
			if !sys.isAbs(f) {
				continue
			}
			f = sys.clean(f)
			if want == f || strings.HasPrefix(want, strings.TrimRight(f, sys.seps())+sys.sep()) {
				return fmt.Sprintf("%s lists %s in %s", path, f, key)
			}
		}
	}
	return ""
}

func copilotCandidates(sys *System) []candidate {
	out := []candidate{{client: CopilotCLI, scope: "user", format: FormatJSON,
		path: sys.join(sys.copilotHome(), "mcp-config.json")}}
	if !sys.FS.IsDir(sys.copilotHome()) {
		// Copilot CLI has never run here: a project's .mcp.json is Claude
		// Code's to report, not a Copilot CLI session's.
		return out
	}
	dirs := sys.upToGitRoot(sys.Cwd)
	out = append(out, candidate{client: CopilotCLI, scope: "workspace", format: FormatJSON,
		path: sys.join(dirs[len(dirs)-1], ".github", "mcp.json")})
	for i := len(dirs) - 1; i >= 0; i-- {
		out = append(out, candidate{client: CopilotCLI, scope: "workspace", format: FormatJSON,
			path: sys.join(dirs[i], ".mcp.json")})
	}
	return out
}

// upToGitRoot lists dir and its parents up to the root of the git
// repository holding it (a folder with a .git folder or file), dir first;
// outside a repository, dir alone.
func (sys *System) upToGitRoot(dir string) []string {
	var out []string
	for d := dir; ; {
		out = append(out, d)
		p := sys.join(d, ".git")
		if sys.FS.IsDir(p) {
			return out
		}
		if _, err := sys.readMax(p, MaxConfigSize); err == nil {
			return out
		}
		parent := sys.dir(d)
		if parent == d || parent == "." || parent == "" || d == sys.Home {
			return []string{dir}
		}
		d = parent
	}
}

func parseCopilot(sys *System, c candidate, data []byte) Config {
	r := &entryReader{sys: sys, client: CopilotCLI, scope: c.scope, path: c.path, typed: true, defaultURL: HTTP,
		types:  map[string]string{"local": Stdio, "stdio": Stdio, "http": HTTP, "sse": SSE},
		expand: sys.expandCopilot}
	cfg := Config{Client: CopilotCLI, Path: c.path, Scope: c.scope, Format: FormatJSON}
	top, notes, err := readJSONTop(data, FormatJSON, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	block, key := top["mcpServers"], "mcpServers"
	if block == nil && c.scope != "user" {
		// The bare shape: every top-level object that looks like an entry.
		bare := map[string]any{}
		for k, v := range top {
			if m, ok := v.(map[string]any); ok && (m["command"] != nil || m["url"] != nil || m["type"] != nil) {
				bare[k] = v
			}
		}
		if len(bare) > 0 {
			block, key = bare, "top level"
		}
	}
	if block == nil {
		if unwrapped(&cfg, top, "mcpServers") {
			return cfg
		}
		switch {
		case top["servers"] != nil:
			cfg.noMCP = `"servers" is VS Code's key: Copilot CLI reads servers only under "mcpServers" (or bare at the top level of a workspace file)`
		default:
			cfg.noMCP = "no mcpServers in this file"
		}
		return cfg
	}
	servers, note := r.readServerMap(block, key)
	if note != "" {
		cfg.Notes = append(cfg.Notes, note)
	}
	m, _ := block.(map[string]any)
	for i := range servers {
		s := &servers[i]
		e, _ := m[s.Name].(map[string]any)
		if e == nil || e["tools"] == nil {
			continue
		}
		tools := strList(e["tools"])
		if !contains(tools, "*") {
			s.Filter = &ToolFilter{AllowList: true, Include: tools, Source: `"tools" in ` + c.path}
		}
	}
	cfg.Servers = servers
	return cfg
}
