package clients

import "fmt"

// Zed: settings.json (~/.config/zed/ on macOS and Linux, moved by
// $XDG_CONFIG_HOME on Linux; %APPDATA%\Zed\ on Windows) and the project's
// .zed/settings.json, key context_servers; the project file wins by name.
// Read as JSONC. Entries come in three shapes over Zed's history, all
// read: {"command": {"path", "args", "env"}}, {"source": "custom",
// "command", "args", "env"} and {"command", "args", "env"}; remote entries
// have url and headers; {"source": "extension"} entries are launched by a
// Zed extension and carry no command. "enabled": false turns one off.
// Tools are toggled per agent profile:
// agent.profiles.<profile>.context_servers.<server>.tools.<tool>: false,
// for the profile agent.default_profile (default "write").

func init() {
	register(&client{
		name:          Zed,
		title:         "Zed",
		projectScopes: []string{"project"},
		candidates: func(sys *System) []candidate {
			return []candidate{
				{client: Zed, scope: "user", format: FormatJSONC, path: sys.zedSettings()},
				{client: Zed, scope: "project", format: FormatJSONC, path: sys.join(sys.Cwd, ".zed", "settings.json")},
			}
		},
		parse:  parseZed,
		settle: settleZed,
	})
}

func (sys *System) zedSettings() string {
	switch sys.OS {
	case "windows":
		return sys.join(sys.appData(), "Zed", "settings.json")
	case "darwin":
		return sys.join(sys.Home, ".config", "zed", "settings.json")
	}
	return sys.join(sys.xdgConfig(), "zed", "settings.json")
}

func parseZed(sys *System, c candidate, data []byte) Config {
	cfg := Config{Client: Zed, Path: c.path, Scope: c.scope, Format: FormatJSONC}
	top, notes, err := readJSONTop(data, FormatJSONC, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	block, ok := top["context_servers"].(map[string]any)
	if !ok {
		if top["context_servers"] != nil {
			cfg.Notes = append(cfg.Notes, fmt.Sprintf(`"context_servers" is %s, not an object; it was ignored`, jsonKind(top["context_servers"])))
			return cfg
		}
		cfg.noMCP = "no context_servers in this settings file"
		return cfg
	}
	r := &entryReader{sys: sys, client: Zed, scope: c.scope, path: c.path, defaultURL: HTTP, enabledKey: "enabled"}
	for _, name := range sortedKeys(block) {
		e, ok := block[name].(map[string]any)
		if !ok {
			cfg.Servers = append(cfg.Servers, r.read(name, block[name]))
			continue
		}
		// The oldest shape nests the launch under "command".
		if cmd, ok := e["command"].(map[string]any); ok {
			flat := map[string]any{}
			for k, v := range e {
				flat[k] = v
			}
			flat["command"] = cmd["path"]
			flat["args"] = cmd["args"]
			flat["env"] = cmd["env"]
			e = flat
		}
		s := r.read(name, e)
		if src, _ := e["source"].(string); src == "extension" {
			s.Transport = ""
			s.Problem = "launched by a Zed extension; its command is not in this file"
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg
}

func settleZed(sys *System, configs []Config) []Config {
	overrideByName(configs, func(w Config) string {
		return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
	})
	// The tool toggles of the default profile, user file first, then the
	// project file.
	toggles := map[string][]string{}
	where := map[string]string{}
	for _, path := range []string{sys.zedSettings(), sys.join(sys.Cwd, ".zed", "settings.json")} {
		data, state, _ := sys.read(path)
		if state != StateFound {
			continue
		}
		top, _, err := readJSONTop(data, FormatJSONC, path)
		if err != nil {
			continue
		}
		agent, _ := top["agent"].(map[string]any)
		profile, _ := agent["default_profile"].(string)
		if profile == "" {
			profile = "write"
		}
		profiles, _ := agent["profiles"].(map[string]any)
		p, _ := profiles[profile].(map[string]any)
		servers, _ := p["context_servers"].(map[string]any)
		for srv, v := range servers {
			sm, _ := v.(map[string]any)
			tools, _ := sm["tools"].(map[string]any)
			var off []string
			for _, t := range sortedKeys(tools) {
				if b, ok := tools[t].(bool); ok && !b {
					off = append(off, t)
				}
			}
			if len(off) > 0 {
				toggles[srv] = off
				where[srv] = fmt.Sprintf("agent.profiles.%s.context_servers.%s.tools in %s", profile, srv, path)
			}
		}
	}
	for i := range configs {
		for j := range configs[i].Servers {
			s := &configs[i].Servers[j]
			if off, ok := toggles[s.Name]; ok {
				s.Filter = &ToolFilter{Exclude: off, Source: where[s.Name]}
			}
		}
	}
	return configs
}
