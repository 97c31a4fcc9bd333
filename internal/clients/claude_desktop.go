package clients

// Claude Desktop: claude_desktop_config.json, top-level mcpServers, strict
// JSON, stdio entries only (remote servers are added in the app as
// connectors, not in this file). No variable expansion.
//
// Paths: macOS ~/Library/Application Support/Claude/, Windows
// %APPDATA%\Claude\; Linux has no official build, and community builds use
// $XDG_CONFIG_HOME/Claude/ (default ~/.config/Claude/).

func init() {
	register(&client{
		name:  ClaudeDesktop,
		title: "Claude Desktop",
		candidates: func(sys *System) []candidate {
			return []candidate{{client: ClaudeDesktop, scope: "user", format: FormatJSON,
				path: sys.join(sys.userConfigDir(), "Claude", "claude_desktop_config.json")}}
		},
		parse: parseClaudeDesktop,
	})
}

func parseClaudeDesktop(sys *System, c candidate, data []byte) Config {
	r := &entryReader{sys: sys, client: ClaudeDesktop, scope: c.scope, path: c.path}
	cfg := readServersJSON(c, data, FormatJSON, "mcpServers", r)
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if s.Problem == "" && s.rawCommand == "" && s.rawURL != "" {
			s.Transport = ""
			s.Problem = "Claude Desktop launches only command entries from this file; remote servers are added in the app as connectors"
		}
	}
	return cfg
}

// readServersJSON reads a JSON or JSONC file whose servers sit in an object
// under key.
func readServersJSON(c candidate, data []byte, format, key string, r *entryReader) Config {
	cfg := Config{Client: c.client, Path: c.path, Scope: c.scope, Format: format}
	top, notes, err := readJSONTop(data, format, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	servers, note := r.readServerMap(top[key], key)
	cfg.Servers = servers
	if note != "" {
		cfg.Notes = append(cfg.Notes, note)
	}
	unwrapped(&cfg, top, key, r.urlKeys...)
	return cfg
}
