package clients

import (
	"fmt"
	"strings"
)

// Cursor: ~/.cursor/mcp.json (%USERPROFILE%\.cursor\mcp.json on Windows)
// and the project's .cursor/mcp.json, top-level mcpServers; the project
// file wins when both define a name. Read as JSONC. An entry's "type" is
// optional: a url alone is Streamable HTTP (Cursor falls back to SSE).
// Expanded: ${env:NAME}, ${userHome}, ${workspaceFolder},
// ${workspaceFolderBasename}, ${pathSeparator} and ${/}. Servers and tools
// are switched on and off in Cursor's UI, not in the file. A file without
// an "mcpServers" object declares no server for Cursor, whatever else it
// holds (VS Code's "servers" is not read).

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
			cfg := readServersJSON(c, data, FormatJSONC, "mcpServers", r)
			if cfg.Error == "" && cfg.Servers == nil && len(cfg.Notes) == 0 {
				cfg.noMCP = cursorNoServers(data, c.path)
			}
			return cfg
		},
		settle: func(sys *System, configs []Config) []Config {
			overrideByName(configs, func(w Config) string {
				return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
			})
			return configs
		},
	})
}

// cursorNoServers says why a Cursor mcp.json that parsed declares no
// server.
func cursorNoServers(data []byte, path string) string {
	top, _, _ := readJSONTop(data, FormatJSONC, path)
	switch {
	case top["servers"] != nil:
		return `no "mcpServers" key: "servers" is VS Code's key, and Cursor reads servers only under "mcpServers"`
	case len(top) == 0:
		return `the file is an empty object: no "mcpServers" key`
	}
	return fmt.Sprintf(`no "mcpServers" key (top-level keys: %s): Cursor reads servers only under "mcpServers"`, strings.Join(sortedKeys(top), ", "))
}
