package clients

import "fmt"

// Gemini CLI reads, lowest precedence first: the system defaults file, the
// user ~/.gemini/settings.json, the project .gemini/settings.json and the
// system settings file (which overrides all), each with top-level
// mcpServers; a name in a higher file replaces the lower entry. The system
// files live in /etc/gemini-cli/, C:\ProgramData\gemini-cli\ or
// /Library/Application Support/GeminiCli/, moved by
// GEMINI_CLI_SYSTEM_DEFAULTS_PATH and GEMINI_CLI_SYSTEM_SETTINGS_PATH.
// Comments are allowed.
//
// Transport: httpUrl (Streamable HTTP) > url (SSE) > command (stdio).
// includeTools / excludeTools filter tools (exclude wins); mcp.allowed and
// mcp.excluded filter servers by name. $VAR and ${VAR} (and %VAR% on
// Windows) are expanded; an unset variable stays as written.

func init() {
	register(&client{
		name:          Gemini,
		projectScopes: []string{"project"},
		title:         "Gemini CLI",
		candidates:    geminiCandidates,
		parse:         parseGemini,
		settle:        settleGemini,
	})
}

func (sys *System) geminiSystemDir() string {
	switch sys.OS {
	case "darwin":
		return "/Library/Application Support/GeminiCli"
	case "windows":
		return sys.join(sys.programData(), "gemini-cli")
	}
	return "/etc/gemini-cli"
}

func geminiCandidates(sys *System) []candidate {
	defaults := sys.getenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = sys.join(sys.geminiSystemDir(), "system-defaults.json")
	}
	override := sys.getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if override == "" {
		override = sys.join(sys.geminiSystemDir(), "settings.json")
	}
	return []candidate{
		{client: Gemini, scope: "system-defaults", format: FormatJSONC, path: defaults},
		{client: Gemini, scope: "user", format: FormatJSONC, path: sys.join(sys.Home, ".gemini", "settings.json")},
		{client: Gemini, scope: "project", format: FormatJSONC, path: sys.join(sys.Cwd, ".gemini", "settings.json")},
		{client: Gemini, scope: "system", format: FormatJSONC, path: override},
	}
}

func parseGemini(sys *System, c candidate, data []byte) Config {
	cfg := Config{Client: Gemini, Path: c.path, Scope: c.scope, Format: FormatJSONC}
	top, notes, err := readJSONTop(data, FormatJSONC, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	if top["mcpServers"] == nil {
		cfg.noMCP = "no mcpServers in this settings file"
		return cfg
	}
	r := &entryReader{sys: sys, client: Gemini, scope: c.scope, path: c.path,
		urlKeys: []string{"httpUrl", "url"},
		types:   map[string]string{"httpUrl": HTTP, "url": SSE, "command": Stdio},
		typeOf: func(m map[string]any) string {
			for _, k := range []string{"httpUrl", "url", "command"} {
				if _, ok := m[k]; ok {
					return k
				}
			}
			return ""
		},
		expand: sys.expandGemini,
	}
	servers, note := r.readServerMap(top["mcpServers"], "mcpServers")
	if note != "" {
		cfg.Notes = append(cfg.Notes, note)
	}
	m, _ := top["mcpServers"].(map[string]any)
	for i := range servers {
		s := &servers[i]
		e, _ := m[s.Name].(map[string]any)
		if e == nil {
			continue
		}
		f := fields{m: e, s: s}
		include := f.strs("includeTools")
		exclude := f.strs("excludeTools")
		if len(include) > 0 || len(exclude) > 0 {
			s.Filter = &ToolFilter{AllowList: len(include) > 0, Include: include, Exclude: exclude,
				Source: "includeTools/excludeTools in " + c.path}
		}
		if f.problem != "" && s.Problem == "" {
			s.Problem = f.problem
		}
	}
	cfg.Servers = servers
	return cfg
}

// settleGemini applies precedence and the mcp.allowed / mcp.excluded
// server lists (the highest file that sets a list wins).
func settleGemini(sys *System, configs []Config) []Config {
	overrideByName(configs, func(w Config) string {
		return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
	})
	var allowed, excluded *nameList
	for _, cand := range geminiCandidates(sys) {
		data, state, _ := sys.read(cand.path)
		if state != StateFound {
			continue
		}
		top, _, err := readJSONTop(data, FormatJSONC, cand.path)
		if err != nil {
			continue
		}
		mcp, _ := top["mcp"].(map[string]any)
		for _, k := range []struct {
			v   any
			dst **nameList
			key string
		}{
			{mcp["allowed"], &allowed, "mcp.allowed"}, {top["allowMCPServers"], &allowed, "allowMCPServers"},
			{mcp["excluded"], &excluded, "mcp.excluded"}, {top["excludeMCPServers"], &excluded, "excludeMCPServers"},
		} {
			if k.v != nil {
				*k.dst = &nameList{names: strList(k.v), where: k.key + " in " + cand.path}
			}
		}
	}
	for i := range configs {
		for j := range configs[i].Servers {
			s := &configs[i].Servers[j]
			switch {
			case s.Disabled:
			case excluded != nil && contains(excluded.names, s.Name):
				s.Disabled, s.DisabledBy = true, "listed in "+excluded.where
			case allowed != nil && !contains(allowed.names, s.Name):
				s.Disabled, s.DisabledBy = true, "not listed in "+allowed.where
			}
		}
	}
	return configs
}
