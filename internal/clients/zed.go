package clients

import "fmt"

// Zed: settings.json (~/.config/zed/ on macOS and Linux, moved by
// $XDG_CONFIG_HOME on Linux; %APPDATA%\Zed\ on Windows) and the project's
// .zed/settings.json, key context_servers; the project file wins by name.
// Read as JSONC. Entries come in three shapes over Zed's history, all
// read: {"command": {"path", "args", "env"}}, {"source": "custom",
// "command", "args", "env"} and {"command", "args", "env"}; remote entries
// have url and headers; an entry with neither, holding "settings" (or
// "source": "extension"), configures a server a Zed extension provides and
// starts, whose command is not in the file (StatusExtension). "enabled":
// false turns one off.
// Tools are toggled per agent profile, for the profile
// agent.default_profile (default "write"): with
// agent.profiles.<profile>.enable_all_context_servers true (Zed's default
// for its write profile; false for ask, minimal and the profiles the user
// defines) every tool of every server is offered except those set false in
// agent.profiles.<profile>.context_servers.<server>.tools; with it false,
// only the tools set true there are. Profiles are user settings only,
// merged key by key into Zed's defaults; a project's .zed/settings.json
// does not change them. (Zed also drops write and ask, unmodified, to
// minimal in a workspace it does not trust; that is not modelled.)

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
		if unwrapped(&cfg, top, "context_servers") {
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
		if zedExtension(e) {
			s.Transport, s.Problem, s.ProvidedBy = "", "", "a Zed extension"
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg
}

// zedExtension tells an entry that configures a context server an
// extension provides: neither a command nor a url, and "settings" (what
// Zed passes to the extension) or "source": "extension". Zed's docs
// configure one as {"postgres-context-server": {"settings": {...}}}; the
// extension's own code returns the command that starts it.
func zedExtension(e map[string]any) bool {
	if e["command"] != nil || e["url"] != nil {
		return false
	}
	src, _ := e["source"].(string)
	_, settings := e["settings"]
	return src == "extension" || settings
}

func settleZed(sys *System, configs []Config) []Config {
	overrideByName(configs, func(w Config) string {
		return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
	})
	// The default profile's switches, merged as Zed merges settings: its
	// built-in defaults, then the user file, key by key. Agent profiles are
	// user settings only: a project's .zed/settings.json cannot set them.
	profile := "write"
	enableAll := map[string]bool{"write": true}
	enableWhere := map[string]string{}
	tools := map[string]map[string]map[string]bool{} // profile, server, tool
	toolsWhere := map[string]map[string]string{}
	for _, path := range []string{sys.zedSettings()} {
		data, state, _ := sys.read(path)
		if state != StateFound {
			continue
		}
		top, _, err := readJSONTop(data, FormatJSONC, path)
		if err != nil {
			continue
		}
		agent, _ := top["agent"].(map[string]any)
		if p, _ := agent["default_profile"].(string); p != "" {
			profile = p
		}
		profiles, _ := agent["profiles"].(map[string]any)
		for pname, pv := range profiles {
			p, _ := pv.(map[string]any)
			if b, ok := p["enable_all_context_servers"].(bool); ok {
				enableAll[pname] = b
				enableWhere[pname] = path
			}
			servers, _ := p["context_servers"].(map[string]any)
			for srv, v := range servers {
				sm, _ := v.(map[string]any)
				tm, _ := sm["tools"].(map[string]any)
				for t, b := range tm {
					on, ok := b.(bool)
					if !ok {
						continue
					}
					if tools[pname] == nil {
						tools[pname], toolsWhere[pname] = map[string]map[string]bool{}, map[string]string{}
					}
					if tools[pname][srv] == nil {
						tools[pname][srv] = map[string]bool{}
					}
					tools[pname][srv][t] = on
					toolsWhere[pname][srv] = path
				}
			}
		}
	}
	all := enableAll[profile]
	allSource := fmt.Sprintf("agent.profiles.%s.enable_all_context_servers", profile)
	switch w := enableWhere[profile]; {
	case w != "":
		allSource += " in " + w
	case all:
		allSource += fmt.Sprintf(" (unset: true by default for Zed's %s profile)", profile)
	default:
		allSource += fmt.Sprintf(" (unset: false by default for the %s profile)", profile)
	}
	for i := range configs {
		for j := range configs[i].Servers {
			s := &configs[i].Servers[j]
			set := tools[profile][s.Name]
			var on, off []string
			for _, t := range sortedKeys(set) {
				if set[t] {
					on = append(on, t)
				} else {
					off = append(off, t)
				}
			}
			where := fmt.Sprintf("agent.profiles.%s.context_servers.%s.tools in %s", profile, s.Name, toolsWhere[profile][s.Name])
			switch {
			case all && len(off) > 0:
				s.Filter = &ToolFilter{Exclude: off, Source: where}
			case !all:
				// Only the tools the profile turns on are offered.
				src := allSource + " is false"
				if len(set) > 0 {
					src += "; " + where
				}
				s.Filter = &ToolFilter{AllowList: true, Include: on, Source: src}
				if len(on) == 0 {
					s.Notes = append(s.Notes, fmt.Sprintf("the %s profile offers none of this server's tools: it turns none of them on", profile))
				}
			}
		}
	}
	return configs
}
