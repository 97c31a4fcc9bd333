package clients

import (
	"fmt"
	"sort"
	"strings"
)

// OpenAI Codex CLI: TOML, [mcp_servers.<name>] tables, in
// /etc/codex/config.toml (system), $CODEX_HOME/config.toml (default
// ~/.codex/config.toml; user) and <project>/.codex/config.toml, which
// Codex reads only in projects the user config marks trusted. Precedence:
// project > user > system.
//
// Entries: stdio command, args, env, env_vars (names passed through from
// the environment), cwd; Streamable HTTP url, http_headers,
// env_http_headers (header = variable name), bearer_token_env_var; and
// enabled = false, enabled_tools, disabled_tools (applied after
// enabled_tools). Codex does not expand ${...}: environment values are
// referenced by name in those fields.

func init() {
	register(&client{
		name:  Codex,
		title: "Codex",
		candidates: func(sys *System) []candidate {
			var out []candidate
			if sys.OS != "windows" {
				out = append(out, candidate{client: Codex, scope: "system", format: FormatTOML, path: "/etc/codex/config.toml"})
			}
			return append(out,
				candidate{client: Codex, scope: "user", format: FormatTOML, path: sys.join(sys.codexHome(), "config.toml")},
				candidate{client: Codex, scope: "project", format: FormatTOML, path: sys.join(sys.Cwd, ".codex", "config.toml")},
			)
		},
		parse: parseCodex,
		settle: func(sys *System, configs []Config) []Config {
			overrideByName(configs, func(w Config) string {
				return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
			})
			return configs
		},
	})
}

func (sys *System) codexHome() string {
	if v := sys.getenv("CODEX_HOME"); v != "" {
		return v
	}
	return sys.join(sys.Home, ".codex")
}

func parseCodex(sys *System, c candidate, data []byte) Config {
	cfg := Config{Client: Codex, Path: c.path, Scope: c.scope, Format: FormatTOML}
	top, err := decodeTOML(data, c.path)
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	block, ok := top["mcp_servers"]
	if !ok {
		if unwrapped(&cfg, top, "mcp_servers") {
			return cfg
		}
		cfg.noMCP = "no [mcp_servers] tables in this file"
		return cfg
	}
	r := &entryReader{sys: sys, client: Codex, scope: c.scope, path: c.path,
		headersKey: "http_headers", enabledKey: "enabled", defaultURL: HTTP}
	servers, note := r.readServerMap(block, "mcp_servers")
	if note != "" {
		cfg.Notes = append(cfg.Notes, note)
	}
	m, _ := block.(map[string]any)
	for i := range servers {
		s := &servers[i]
		e, _ := m[s.Name].(map[string]any)
		if e == nil {
			continue
		}
		codexEnv(sys, s, e)
		f := fields{m: e, s: s}
		_, hasEnabled := e["enabled_tools"]
		include := f.strs("enabled_tools")
		exclude := f.strs("disabled_tools")
		if hasEnabled || len(exclude) > 0 {
			s.Filter = &ToolFilter{AllowList: hasEnabled, Include: include, Exclude: exclude,
				Source: "enabled_tools/disabled_tools in " + c.path}
		}
		if f.problem != "" && s.Problem == "" {
			s.Problem = f.problem
		}
	}
	cfg.Servers = servers
	if c.scope == "project" && !sys.codexTrusted() {
		for i := range cfg.Servers {
			if s := &cfg.Servers[i]; !s.Disabled {
				s.Disabled = true
				s.DisabledBy = fmt.Sprintf("Codex reads a project's config only in trusted projects, and %s is not marked trusted in %s",
					sys.Cwd, sys.join(sys.codexHome(), "config.toml"))
			}
		}
	}
	return cfg
}

// codexEnv resolves the fields that name environment variables.
func codexEnv(sys *System, s *Server, e map[string]any) {
	get := func(name string) (string, bool) {
		v, ok := sys.lookupEnv(name)
		if !ok && !contains(s.Unset, name) {
			s.Unset = append(s.Unset, name)
		}
		return v, ok
	}
	for _, v := range anyList(e["env_vars"]) {
		name, _ := v.(string)
		if m, ok := v.(map[string]any); ok {
			name, _ = m["name"].(string)
		}
		if name == "" {
			continue
		}
		if val, ok := get(name); ok {
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[name] = val
		}
	}
	if name, ok := e["bearer_token_env_var"].(string); ok && name != "" {
		if val, ok := get(name); ok {
			if s.Headers == nil {
				s.Headers = map[string]string{}
			}
			s.Headers["Authorization"] = "Bearer " + val
		}
	}
	if hm, ok := e["env_http_headers"].(map[string]any); ok {
		for _, h := range sortedKeys(hm) {
			name, _ := hm[h].(string)
			if name == "" {
				continue
			}
			if val, ok := get(name); ok {
				if s.Headers == nil {
					s.Headers = map[string]string{}
				}
				s.Headers[h] = val
			}
		}
	}
	sort.Strings(s.Unset)
}

func anyList(v any) []any { l, _ := v.([]any); return l }

// codexTrusted reports whether the user config marks the project trusted:
// [projects."<path>"] trust_level = "trusted".
func (sys *System) codexTrusted() bool {
	data, state, _ := sys.read(sys.join(sys.codexHome(), "config.toml"))
	if state != StateFound {
		return false
	}
	top, err := decodeTOML(data, "")
	if err != nil {
		return false
	}
	projects, _ := top["projects"].(map[string]any)
	for _, key := range []string{sys.Cwd, strings.ReplaceAll(sys.Cwd, `\`, "/")} {
		if p, ok := projects[key].(map[string]any); ok {
			if t, _ := p["trust_level"].(string); t == "trusted" {
				return true
			}
		}
	}
	return false
}
