package clients

// Cline: cline_mcp_settings.json in the extension's global storage
// (User/globalStorage/saoudrizwan.claude-dev/settings/ under VS Code's or
// VS Code Insiders' settings folder), top-level mcpServers. Entries have
// "type" stdio, sse or streamableHttp; a url without a type is SSE;
// "disabled": true turns an entry off. Read as strict JSON.

func init() {
	register(&client{
		name:  Cline,
		title: "Cline",
		candidates: func(sys *System) []candidate {
			var out []candidate
			for _, dir := range sys.vscodeUserDirs() {
				out = append(out, candidate{client: Cline, scope: "user", format: FormatJSON,
					path: sys.join(dir, "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")})
			}
			return out
		},
		parse: func(sys *System, c candidate, data []byte) Config {
			r := &entryReader{sys: sys, client: Cline, scope: c.scope, path: c.path, typed: true,
				types:       map[string]string{"stdio": Stdio, "sse": SSE, "streamableHttp": HTTP},
				defaultURL:  SSE,
				disabledKey: "disabled"}
			return readServersJSON(c, data, FormatJSON, "mcpServers", r)
		},
	})
}
