package clients

// GitHub Copilot CLI: ~/.copilot/mcp-config.json (under
// $XDG_CONFIG_HOME/.copilot when that is set), top-level mcpServers.
// Entries have "type" local (or stdio), http or sse; command, args, env;
// url, headers; and "tools", an allow-list where "*" allows every tool.
// Read as strict JSON.

func init() {
	register(&client{
		name:  CopilotCLI,
		title: "Copilot CLI",
		candidates: func(sys *System) []candidate {
			base := sys.Home
			if v := sys.getenv("XDG_CONFIG_HOME"); v != "" && sys.isAbs(v) {
				base = v
			}
			return []candidate{{client: CopilotCLI, scope: "user", format: FormatJSON,
				path: sys.join(base, ".copilot", "mcp-config.json")}}
		},
		parse: func(sys *System, c candidate, data []byte) Config {
			r := &entryReader{sys: sys, client: CopilotCLI, scope: c.scope, path: c.path, typed: true, defaultURL: HTTP,
				types: map[string]string{"local": Stdio, "stdio": Stdio, "http": HTTP, "sse": SSE}}
			cfg := readServersJSON(c, data, FormatJSON, "mcpServers", r)
			if cfg.Error != "" {
				return cfg
			}
			top, _, _ := readJSONTop(data, FormatJSON, c.path)
			m, _ := top["mcpServers"].(map[string]any)
			for i := range cfg.Servers {
				s := &cfg.Servers[i]
				e, _ := m[s.Name].(map[string]any)
				if e == nil || e["tools"] == nil {
					continue
				}
				tools := strList(e["tools"])
				if !contains(tools, "*") {
					s.Filter = &ToolFilter{AllowList: true, Include: tools, Source: `"tools" in ` + c.path}
				}
			}
			return cfg
		},
	})
}
