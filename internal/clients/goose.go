package clients

import "fmt"

// Goose: YAML, ~/.config/goose/config.yaml (moved by $XDG_CONFIG_HOME;
// %APPDATA%\Block\goose\config\config.yaml on Windows), a map under
// "extensions". stdio entries: type stdio, cmd, args, envs, env_keys
// (names whose values Goose takes from its secret store or the
// environment), enabled. Remote entries: type sse or streamable_http with
// "uri" (not url) and headers. builtin, platform, frontend and
// inline_python extensions run inside Goose and are not launched from the
// file. No variable expansion.

func init() {
	register(&client{
		name:  Goose,
		title: "Goose",
		candidates: func(sys *System) []candidate {
			path := sys.join(sys.xdgConfig(), "goose", "config.yaml")
			if sys.OS == "windows" {
				path = sys.join(sys.appData(), "Block", "goose", "config", "config.yaml")
			}
			return []candidate{{client: Goose, scope: "user", format: FormatYAML, path: path}}
		},
		parse: parseGoose,
	})
}

var gooseInternal = map[string]bool{"builtin": true, "platform": true, "frontend": true, "inline_python": true}

func parseGoose(sys *System, c candidate, data []byte) Config {
	cfg := Config{Client: Goose, Path: c.path, Scope: c.scope, Format: FormatYAML}
	top, err := decodeYAML(data, c.path, sys.budget)
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	block, ok := top["extensions"].(map[string]any)
	if !ok {
		if top["extensions"] != nil {
			cfg.Notes = append(cfg.Notes, fmt.Sprintf(`"extensions" is %s, not a mapping; it was ignored`, jsonKind(top["extensions"])))
			return cfg
		}
		cfg.noMCP = "no extensions in this file"
		return cfg
	}
	r := &entryReader{sys: sys, client: Goose, scope: c.scope, path: c.path, typed: true,
		types:      map[string]string{"stdio": Stdio, "sse": SSE, "streamable_http": HTTP},
		urlKeys:    []string{"uri", "url"},
		enabledKey: "enabled", envKey: "envs"}
	for _, name := range sortedKeys(block) {
		e, ok := block[name].(map[string]any)
		if !ok {
			cfg.Servers = append(cfg.Servers, r.read(name, block[name]))
			continue
		}
		typ, _ := e["type"].(string)
		flat := map[string]any{}
		for k, v := range e {
			flat[k] = v
		}
		flat["command"] = e["cmd"]
		if gooseInternal[typ] {
			delete(flat, "type")
		}
		s := r.read(name, flat)
		switch {
		case gooseInternal[typ] && s.Disabled:
			// Off in Goose: listed as disabled, whatever its kind.
			s.Transport, s.Problem = "", ""
			s.Notes = append(s.Notes, fmt.Sprintf("a %s extension, which runs inside Goose", typ))
		case gooseInternal[typ]:
			s.Transport = ""
			s.Problem = fmt.Sprintf("a %s extension, which runs inside Goose and is not launched from this file", typ)
		}
		for _, k := range strList(e["env_keys"]) {
			if v, ok := sys.lookupEnv(k); ok {
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				s.Env[k] = v
			} else if !contains(s.Unset, k) {
				s.Unset = append(s.Unset, k)
				s.Notes = append(s.Notes, fmt.Sprintf("%s is taken from Goose's secret store, which mcpcost does not read", k))
			}
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg
}
