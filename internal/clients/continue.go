package clients

import (
	"fmt"
	"sort"
	"strings"
)

// Continue: ~/.continue/config.yaml (%USERPROFILE%\.continue\ on Windows)
// and the workspace's .continue/mcpServers/ folder, whose YAML blocks hold
// "mcpServers" as a list of {name, type, command, args, env, url} and
// whose JSON files use the Claude/Cursor/Cline shape (an mcpServers
// object). type is stdio, sse or streamable-http. ${{ secrets.NAME }} and
// ${{ inputs.NAME }} resolve from Continue's own store, so a server using
// them is reported as needing input.

func init() {
	register(&client{
		name:          Continue,
		projectScopes: []string{"workspace"},
		title:         "Continue",
		candidates:    continueCandidates,
		parse:         parseContinue,
	})
}

func continueCandidates(sys *System) []candidate {
	out := []candidate{
		{client: Continue, scope: "user-legacy", format: FormatJSONC, path: sys.join(sys.Home, ".continue", "config.json")},
		{client: Continue, scope: "user", format: FormatYAML, path: sys.join(sys.Home, ".continue", "config.yaml")},
	}
	dir := sys.join(sys.Cwd, ".continue", "mcpServers")
	names, err := sys.FS.ReadDir(dir)
	if err != nil {
		// Listed so that the folder shows as looked at.
		return append(out, candidate{client: Continue, scope: "workspace", format: FormatYAML, path: dir})
	}
	for _, n := range names {
		lower := strings.ToLower(n)
		switch {
		case strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml"):
			out = append(out, candidate{client: Continue, scope: "workspace", format: FormatYAML, path: sys.join(dir, n)})
		case strings.HasSuffix(lower, ".json"):
			out = append(out, candidate{client: Continue, scope: "workspace", format: FormatJSON, path: sys.join(dir, n)})
		}
	}
	return out
}

func parseContinue(sys *System, c candidate, data []byte) Config {
	r := &entryReader{sys: sys, client: Continue, scope: c.scope, path: c.path, typed: true, defaultURL: HTTP,
		expand: sys.expandContinue}
	if c.format == FormatJSON {
		return readServersJSON(c, data, FormatJSON, "mcpServers", r)
	}
	if c.format == FormatJSONC {
		return parseContinueJSON(sys, c, data, r)
	}
	cfg := Config{Client: Continue, Path: c.path, Scope: c.scope, Format: FormatYAML}
	top, err := decodeYAML(data, c.path, sys.budget)
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	list, ok := top["mcpServers"].([]any)
	if !ok {
		if top["mcpServers"] != nil {
			cfg.Notes = append(cfg.Notes, fmt.Sprintf(`"mcpServers" is %s, not a list; it was ignored`, jsonKind(top["mcpServers"])))
			return cfg
		}
		cfg.noMCP = "no mcpServers in this file"
		return cfg
	}
	for i, e := range list {
		name := fmt.Sprintf("mcpServers[%d]", i)
		if m, ok := e.(map[string]any); ok {
			if n, ok := m["name"].(string); ok && n != "" {
				name = n
			}
		}
		cfg.Servers = append(cfg.Servers, r.read(name, e))
	}
	sortServers(cfg.Servers)
	return cfg
}

// sortServers sorts by name, keeping the file's order among equal names.
func sortServers(s []Server) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].Name < s[j].Name })
}

// parseContinueJSON reads the old ~/.continue/config.json.
func parseContinueJSON(sys *System, c candidate, data []byte, r *entryReader) Config {
	cfg := Config{Client: Continue, Path: c.path, Scope: c.scope, Format: FormatJSONC}
	top, notes, err := readJSONTop(data, FormatJSONC, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	r.expand = nil
	r.types = map[string]string{"stdio": Stdio, "sse": SSE, "websocket": "ws", "streamable-http": HTTP}
	exp, _ := top["experimental"].(map[string]any)
	var list []any
	key := "experimental.modelContextProtocolServers"
	switch v := exp["modelContextProtocolServers"].(type) {
	case []any:
		list = v
	case nil:
		if one, ok := exp["modelContextProtocolServer"]; ok && one != nil {
			list, key = []any{one}, "experimental.modelContextProtocolServer"
		}
	default:
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("%q is %s, not a list; it was ignored", key, jsonKind(v)))
	}
	for i, e := range list {
		name := fmt.Sprintf("%s[%d]", key, i)
		if len(list) == 1 && key == "experimental.modelContextProtocolServer" {
			name = key
		}
		m, ok := e.(map[string]any)
		if !ok {
			cfg.Servers = append(cfg.Servers, r.read(name, e))
			continue
		}
		if n, ok := m["name"].(string); ok && n != "" {
			name = n
		}
		t, ok := m["transport"].(map[string]any)
		if !ok {
			s := Server{Name: name, Client: Continue, Scope: c.scope, Source: c.path,
				Problem: `has no "transport" object`}
			cfg.Servers = append(cfg.Servers, s)
			continue
		}
		cfg.Servers = append(cfg.Servers, r.read(name, t))
	}
	if top["mcpServers"] != nil {
		servers, note := r.readServerMap(top["mcpServers"], "mcpServers")
		if note != "" {
			cfg.Notes = append(cfg.Notes, note)
		}
		cfg.Servers = append(cfg.Servers, servers...)
	}
	if cfg.Servers == nil && len(cfg.Notes) == 0 {
		cfg.noMCP = "no experimental.modelContextProtocolServers or mcpServers in this file"
		return cfg
	}
	sortServers(cfg.Servers)
	// Continue reads config.json only while no config.yaml exists.
	yaml := sys.join(sys.dir(c.path), "config.yaml")
	if _, state, _ := sys.read(yaml); state != StateNotFound {
		for i := range cfg.Servers {
			if s := &cfg.Servers[i]; !s.Disabled {
				s.Disabled, s.DisabledBy = true, fmt.Sprintf("Continue reads %s, which exists, instead of this config.json", yaml)
			}
		}
	}
	return cfg
}
