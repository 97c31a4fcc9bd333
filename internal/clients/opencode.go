package clients

import (
	"fmt"
	"path/filepath"
	"strings"
)

// opencode merges, lowest precedence first: ~/.config/opencode/opencode.json
// (or .jsonc; $XDG_CONFIG_HOME moves it, on every OS), the file named by
// $OPENCODE_CONFIG, the project's opencode.json[c] files from the git root
// down to the project folder, .opencode/opencode.json[c], and the managed
// files in /Library/Application Support/opencode/, /etc/opencode/ or
// %ProgramData%\opencode\. JSONC. Servers sit under "mcp":
// {type: "local", command: [argv...], environment, enabled} or
// {type: "remote", url, headers, enabled}; a later file replaces an entry
// of the same name. {env:NAME} (empty when unset) and {file:path} (the
// file's contents, relative to the config's folder) are substituted.
// Tools are named <server>_<tool>, and "tools": {"<glob>": false} turns
// them off.

func init() {
	register(&client{
		name:          Opencode,
		projectScopes: []string{"project"},
		title:         "opencode",
		candidates:    opencodeCandidates,
		parse:         parseOpencode,
		settle:        settleOpencode,
	})
}

func opencodeCandidates(sys *System) []candidate {
	var out []candidate
	add := func(scope, dir string) {
		for _, n := range []string{"opencode.json", "opencode.jsonc"} {
			out = append(out, candidate{client: Opencode, scope: scope, format: FormatJSONC, path: sys.join(dir, n)})
		}
	}
	add("user", sys.join(sys.xdgConfig(), "opencode"))
	if p := sys.getenv("OPENCODE_CONFIG"); p != "" {
		out = append(out, candidate{client: Opencode, scope: "OPENCODE_CONFIG", format: FormatJSONC, path: p})
	}
	// From the git root (else the home folder or the filesystem root) down
	// to the project folder.
	var dirs []string
	for dir := sys.Cwd; ; {
		dirs = append(dirs, dir)
		if sys.FS.IsDir(sys.join(dir, ".git")) || dir == sys.Home {
			break
		}
		parent := sys.dir(dir)
		if parent == dir || parent == "." || parent == "" {
			break
		}
		dir = parent
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		add("project", dirs[i])
	}
	add("project", sys.join(sys.Cwd, ".opencode"))
	switch sys.OS {
	case "darwin":
		add("managed", "/Library/Application Support/opencode")
	case "windows":
		add("managed", sys.join(sys.programData(), "opencode"))
	default:
		add("managed", "/etc/opencode")
	}
	return out
}

var opencodeVar = lazyRegexp(`\{(env|file):([^}]+)\}`)

func parseOpencode(sys *System, c candidate, data []byte) Config {
	cfg := Config{Client: Opencode, Path: c.path, Scope: c.scope, Format: FormatJSONC}
	top, notes, err := readJSONTop(data, FormatJSONC, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	block, ok := top["mcp"].(map[string]any)
	if !ok {
		if top["mcp"] != nil {
			cfg.Notes = append(cfg.Notes, fmt.Sprintf(`"mcp" is %s, not an object; it was ignored`, jsonKind(top["mcp"])))
			return cfg
		}
		if unwrapped(&cfg, top, "mcp") {
			return cfg
		}
		cfg.noMCP = `no "mcp" servers in this file`
		return cfg
	}
	dir := sys.dir(c.path)
	expand := func(s string, x *expansion) string {
		if !strings.Contains(s, "{") {
			return s
		}
		return opencodeVar().ReplaceAllStringFunc(s, func(m string) string {
			sub := opencodeVar().FindStringSubmatch(m)
			if sub[1] == "env" {
				v := sys.getenv(sub[2])
				if v == "" {
					x.addUnset(sub[2])
				}
				return v
			}
			p := sub[2]
			switch {
			case strings.HasPrefix(p, "~/"):
				p = sys.join(sys.Home, p[2:])
			case !sys.isAbs(p):
				p = sys.join(dir, p)
			}
			b, err := sys.FS.ReadFile(p)
			if err != nil {
				x.addNeeds("file:" + sub[2])
				return m
			}
			return strings.TrimSpace(string(b))
		})
	}
	r := &entryReader{sys: sys, client: Opencode, scope: c.scope, path: c.path, typed: true,
		types:      map[string]string{"local": Stdio, "remote": HTTP},
		enabledKey: "enabled", envKey: "environment", expand: expand}
	for _, name := range sortedKeys(block) {
		e, ok := block[name].(map[string]any)
		if !ok {
			cfg.Servers = append(cfg.Servers, r.read(name, block[name]))
			continue
		}
		flat := map[string]any{}
		for k, v := range e {
			flat[k] = v
		}
		problem := ""
		switch cmd := e["command"].(type) {
		case nil:
		case []any:
			delete(flat, "command")
			if len(cmd) > 0 {
				flat["command"] = cmd[0]
				flat["args"] = cmd[1:]
			}
		default:
			delete(flat, "command")
			problem = fmt.Sprintf(`"command" is %s; opencode takes the command line as an array of strings`, jsonKind(cmd))
		}
		s := r.read(name, flat)
		if problem != "" {
			s.Transport, s.Problem = "", problem
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg
}

func settleOpencode(sys *System, configs []Config) []Config {
	overrideByName(configs, func(w Config) string {
		return fmt.Sprintf("the %s entry in %s", w.Scope, w.Path)
	})
	// "tools" rules: later files override a pattern; false turns it off.
	rules := map[string]bool{}
	where := map[string]string{}
	for _, cand := range opencodeCandidates(sys) {
		data, state, _ := sys.read(cand.path)
		if state != StateFound {
			continue
		}
		top, _, err := readJSONTop(data, FormatJSONC, cand.path)
		if err != nil {
			continue
		}
		tools, _ := top["tools"].(map[string]any)
		for p, v := range tools {
			if b, ok := v.(bool); ok {
				rules[p] = b
				where[p] = cand.path
			}
		}
	}
	var off []string
	var files []string
	for _, p := range sortedKeys(rules) {
		if !rules[p] {
			off = append(off, p)
			if !contains(files, where[p]) {
				files = append(files, where[p])
			}
		}
	}
	if len(off) == 0 {
		return configs
	}
	for i := range configs {
		for j := range configs[i].Servers {
			s := &configs[i].Servers[j]
			f := &ToolFilter{Exclude: off, Glob: true, Prefix: s.Name + "_",
				Source: `"tools" in ` + strings.Join(files, ", ")}
			if f.touches(s.Name) {
				s.Filter = f
			}
		}
	}
	return configs
}

// touches reports whether a glob filter can match any tool of the server
// (its patterns are matched against "<server>_<tool>").
func (f *ToolFilter) touches(server string) bool {
	for _, p := range f.Exclude {
		lit := p
		if i := strings.IndexAny(p, "*?["); i >= 0 {
			lit = p[:i]
		}
		prefix := server + "_"
		if strings.HasPrefix(prefix, lit) || strings.HasPrefix(lit, prefix) {
			return true
		}
	}
	return false
}

// OpencodeTranscriptDirs are the folders opencode keeps its sessions in
// (storage/ and opencode.db): OPENCODE_DATA_DIR (comma-separated, as
// ccusage reads it), else $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode.
func OpencodeTranscriptDirs(sys System) []string {
	if v := sys.getenv("OPENCODE_DATA_DIR"); v != "" {
		return splitList(v)
	}
	if x := sys.getenv("XDG_DATA_HOME"); x != "" {
		return []string{filepath.Join(x, "opencode")}
	}
	if sys.Home == "" {
		return nil
	}
	return []string{filepath.Join(sys.Home, ".local", "share", "opencode")}
}
