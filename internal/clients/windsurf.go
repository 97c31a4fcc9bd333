package clients

// Windsurf (Cascade): ~/.codeium/windsurf/mcp_config.json
// (%USERPROFILE%\.codeium\windsurf\mcp_config.json on Windows), top-level
// mcpServers. Remote entries give the URL as "serverUrl" ("url" is read
// too); "disabled": true turns an entry off; "disabledTools" lists tools
// turned off. Read as strict JSON. ${env:NAME} and ${file:PATH} are
// expanded in command, args, env, serverUrl and headers (see
// expandWindsurf); a plain ${NAME} is not.

func init() {
	register(&client{
		name:  Windsurf,
		title: "Windsurf",
		candidates: func(sys *System) []candidate {
			return []candidate{{client: Windsurf, scope: "user", format: FormatJSON,
				path: sys.join(sys.Home, ".codeium", "windsurf", "mcp_config.json")}}
		},
		parse: func(sys *System, c candidate, data []byte) Config {
			r := &entryReader{sys: sys, client: Windsurf, scope: c.scope, path: c.path, typed: true,
				urlKeys: []string{"serverUrl", "url"}, defaultURL: HTTP, disabledKey: "disabled",
				expand: sys.expandWindsurf}
			cfg := readServersJSON(c, data, FormatJSON, "mcpServers", r)
			if cfg.Error != "" {
				return cfg
			}
			top, _, _ := readJSONTop(data, FormatJSON, c.path)
			m, _ := top["mcpServers"].(map[string]any)
			for i := range cfg.Servers {
				s := &cfg.Servers[i]
				if e, ok := m[s.Name].(map[string]any); ok {
					if tools := strList(e["disabledTools"]); len(tools) > 0 {
						s.Filter = &ToolFilter{Exclude: tools, Source: "disabledTools in " + c.path}
					}
				}
			}
			return cfg
		},
	})
}
