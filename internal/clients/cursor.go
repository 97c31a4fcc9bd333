package clients

import "fmt"

// Cursor: ~/.cursor/mcp.json (%USERPROFILE%\.cursor\mcp.json on Windows)
// and the project's .cursor/mcp.json, top-level mcpServers; the project
// file wins when both define a name. Read as JSONC. An entry's "type" is
// optional: a url alone is Streamable HTTP (Cursor falls back to SSE).
// Expanded: ${env:NAME}, ${userHome}, ${workspaceFolder},
// ${workspaceFolderBasename}, ${pathSeparator} and ${/}. Servers and tools
// are switched on and off in Cursor's UI, not in the file.

func init() {
	register(&client{
		name:          Cursor,
		title:         "Cursor",
		projectScopes: []string{"project"},
		candidates: func(sys *System) []candidate {
			return []candidate{
				{client: Cursor, scope: "user", format: FormatJSONC, path: sys.join(sys.Home, ".cursor", "mcp.json")},
				{client: Cursor, scope: "project", format: FormatJSONC, path: sys.join(sys.Cwd, ".cursor", "mcp.json")},
			}
		},
		parse: func(sys *System, c candidate, data []byte) Config {
			r := &entryReader{sys: sys, client: Cursor, scope: c.scope, path: c.path, typed: true, defaultURL: HTTP,
				expand: func(s string, x *expansion) string { return sys.expandEditor(s, x, false) }}
			return readServersJSON(c, data, FormatJSONC, "mcpServers", r)
		},
		settle: func(sys *System, configs []Config) []Config {
			overrideByName(configs, func(w Config) string {
				return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
			})
			return configs
		},
	})
}
