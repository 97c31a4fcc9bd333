package clients

import (
	"fmt"
	"path"
	"strings"
)

// Claude Code reads MCP servers from, lowest precedence first:
//
//   - user scope: top-level mcpServers of ~/.claude.json
//     ($CLAUDE_CONFIG_DIR/.claude.json when that is set);
//   - project scope: mcpServers of <project>/.mcp.json;
//   - local scope: projects["<abs project path>"].mcpServers of the same
//     ~/.claude.json.
//
// When a name is in several, local > project > user, and the winning entry
// is used whole (fields are not merged). managed-mcp.json, when present,
// takes exclusive control: no other server loads. All of these are strict
// JSON. ${VAR} and ${VAR:-default} are expanded in command, args, env, url
// and headers; an unset variable without a default stays as written.
//
// Claude Code sets CLAUDE_PROJECT_DIR in each stdio server's environment
// (ClientEnv).
//
// Switches: enabledMcpjsonServers / disabledMcpjsonServers /
// enableAllProjectMcpServers in any settings file (and in the project's
// entry of ~/.claude.json) approve or reject .mcp.json servers, rejection
// winning; disabledMcpServers in the project's entry of ~/.claude.json
// holds the servers turned off with /mcp; allowedMcpServers and
// deniedMcpServers in settings filter by name, command or URL, the deny
// list winning.

func init() {
	register(&client{
		name:       ClaudeCode,
		title:      "Claude Code",
		candidates: claudeCodeCandidates,
		parse:      parseClaudeCode,
		settle:     settleClaudeCode,
		multiScope: true,
	})
}

// claudeConfigDir is $CLAUDE_CONFIG_DIR or ~/.claude.
func (sys *System) claudeConfigDir() string {
	if v := sys.getenv("CLAUDE_CONFIG_DIR"); v != "" {
		return v
	}
	return sys.join(sys.Home, ".claude")
}

// claudeGlobalFile is ~/.claude.json, or .claude.json inside
// $CLAUDE_CONFIG_DIR when that is set.
func (sys *System) claudeGlobalFile() string {
	if v := sys.getenv("CLAUDE_CONFIG_DIR"); v != "" {
		return sys.join(v, ".claude.json")
	}
	return sys.join(sys.Home, ".claude.json")
}

// claudeManagedDir is where managed-mcp.json and managed-settings.json
// live.
func (sys *System) claudeManagedDir() string {
	switch sys.OS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

func claudeCodeCandidates(sys *System) []candidate {
	global := sys.claudeGlobalFile()
	return []candidate{
		{client: ClaudeCode, scope: "managed", format: FormatJSON, path: sys.join(sys.claudeManagedDir(), "managed-mcp.json")},
		{client: ClaudeCode, scope: "user", format: FormatJSON, path: global},
		{client: ClaudeCode, scope: "project", format: FormatJSON, path: sys.join(sys.Cwd, ".mcp.json")},
		{client: ClaudeCode, scope: "local", format: FormatJSON, path: global},
	}
}

func (sys *System) claudeReader(scope, path string) *entryReader {
	return &entryReader{
		sys: sys, client: ClaudeCode, scope: scope, path: path, typed: true,
		types: map[string]string{
			"stdio": Stdio, "http": HTTP, "streamable-http": HTTP, "sse": SSE, "ws": "ws",
		},
		urlNeedsType: true,
		expand:       sys.expandShell,
	}
}

func parseClaudeCode(sys *System, c candidate, data []byte) Config {
	r := sys.claudeReader(c.scope, c.path)
	if c.scope != "local" {
		cfg := readServersJSON(c, data, FormatJSON, "mcpServers", r)
		if cfg.Error == "" && c.scope == "user" {
			if top, _, err := readJSONTop(data, FormatJSON, c.path); err == nil && top["mcpServers"] == nil {
				cfg.noMCP = "no user-scope mcpServers in this file"
			}
		}
		claudeNotes(&cfg, data)
		return cfg
	}
	cfg := Config{Client: ClaudeCode, Path: c.path, Scope: c.scope, Format: FormatJSON}
	top, notes, err := readJSONTop(data, FormatJSON, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	proj, key := sys.claudeProject(top)
	if proj == nil {
		cfg.noMCP = fmt.Sprintf("no entry for %s in projects", sys.Cwd)
		return cfg
	}
	servers, note := r.readServerMap(proj["mcpServers"], fmt.Sprintf("projects[%q].mcpServers", key))
	cfg.Servers = servers
	if note != "" {
		cfg.Notes = append(cfg.Notes, note)
	}
	claudeNotes(&cfg, data)
	return cfg
}

// claudeProject returns the entry of ~/.claude.json's projects for the
// project folder: the key must equal the folder's absolute path. On
// Windows, where Claude Code writes the key with forward slashes, slashes
// and letter case are not told apart.
func (sys *System) claudeProject(top map[string]any) (map[string]any, string) {
	projects, _ := top["projects"].(map[string]any)
	if p, ok := projects[sys.Cwd].(map[string]any); ok {
		return p, sys.Cwd
	}
	if sys.OS != "windows" {
		return nil, ""
	}
	norm := func(s string) string { return strings.ToLower(strings.TrimRight(strings.ReplaceAll(s, `\`, "/"), "/")) }
	want := norm(sys.Cwd)
	for _, k := range sortedKeys(projects) {
		if p, ok := projects[k].(map[string]any); ok && norm(k) == want {
			return p, k
		}
	}
	return nil, ""
}

// claudeNotes notes headersHelper entries: their headers come from a
// command mcpcost does not run.
func claudeNotes(cfg *Config, data []byte) {
	if !strings.Contains(string(data), "headersHelper") {
		return
	}
	top, _, err := readJSONTop(data, FormatJSON, cfg.Path)
	if err != nil {
		return
	}
	var m map[string]any
	if cfg.Scope == "local" {
		for _, p := range top["projects"].(map[string]any) {
			if pm, ok := p.(map[string]any); ok {
				if ms, ok := pm["mcpServers"].(map[string]any); ok {
					m = mergeShallow(m, ms)
				}
			}
		}
	} else {
		m, _ = top["mcpServers"].(map[string]any)
	}
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if e, ok := m[s.Name].(map[string]any); ok && e["headersHelper"] != nil {
			s.Notes = append(s.Notes, "headersHelper supplies more headers at connect time; mcpcost does not run it")
		}
	}
}

func mergeShallow(a, b map[string]any) map[string]any {
	if a == nil {
		a = map[string]any{}
	}
	for k, v := range b {
		a[k] = v
	}
	return a
}

// A settingsFile is one Claude Code settings file as read.
type settingsFile struct {
	scope string // managed-settings, local-settings, project-settings, user-settings
	path  string
	state string // found, not found, unreadable, invalid
	err   string
	top   map[string]any
}

// claudeSettings reads Claude Code's settings files in precedence order:
// managed (managed-settings.json, then managed-settings.d/*.json), local
// (.claude/settings.local.json), project (.claude/settings.json), user
// (~/.claude/settings.json).
func (sys *System) claudeSettings() []settingsFile {
	managed := sys.claudeManagedDir()
	paths := []struct{ scope, path string }{
		{"managed-settings", sys.join(managed, "managed-settings.json")},
	}
	dropIn := sys.join(managed, "managed-settings.d")
	if names, err := sys.FS.ReadDir(dropIn); err == nil {
		for _, n := range names {
			if strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
				paths = append(paths, struct{ scope, path string }{"managed-settings", sys.join(dropIn, n)})
			}
		}
	}
	paths = append(paths,
		struct{ scope, path string }{"local-settings", sys.join(sys.Cwd, ".claude", "settings.local.json")},
		struct{ scope, path string }{"project-settings", sys.join(sys.Cwd, ".claude", "settings.json")},
		struct{ scope, path string }{"user-settings", sys.join(sys.claudeConfigDir(), "settings.json")},
	)
	out := make([]settingsFile, 0, len(paths))
	for _, p := range paths {
		f := settingsFile{scope: p.scope, path: p.path}
		data, state, err := sys.read(p.path)
		f.state = state
		if err != nil {
			f.err = err.Error()
		}
		if state == StateFound {
			top, _, err := readJSONTop(data, FormatJSON, p.path)
			if err != nil {
				f.state, f.err = StateInvalid, err.Error()
			} else {
				f.top = top
			}
		}
		out = append(out, f)
	}
	return out
}

func strList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// settleClaudeCode applies precedence, managed exclusivity and the
// approval, toggle and policy lists.
func settleClaudeCode(sys *System, configs []Config) []Config {
	// Drop the local scope when ~/.claude.json has no entry for this
	// project, and when the file failed (the user scope reports it).
	var kept []Config
	for _, c := range configs {
		if c.Scope == "local" && (c.Error != "" || len(c.Servers) == 0) {
			continue
		}
		kept = append(kept, c)
	}
	configs = kept

	// The project's entry in ~/.claude.json.
	var proj map[string]any
	global := sys.claudeGlobalFile()
	if data, state, _ := sys.read(global); state == StateFound {
		if top, _, err := readJSONTop(data, FormatJSON, global); err == nil {
			proj, _ = sys.claudeProject(top)
		}
	}
	var approved, rejected []nameList
	approveAll := ""
	var denied, allowed []policy
	allowedSet, allowedWhere := false, ""
	for _, f := range sys.claudeSettings() {
		if f.top == nil {
			continue
		}
		approved = append(approved, nameList{strList(f.top["enabledMcpjsonServers"]), f.path})
		rejected = append(rejected, nameList{strList(f.top["disabledMcpjsonServers"]), f.path})
		if b, _ := f.top["enableAllProjectMcpServers"].(bool); b && approveAll == "" {
			approveAll = f.path
		}
		denied = append(denied, readPolicies(f.top["deniedMcpServers"], f.path)...)
		if v, ok := f.top["allowedMcpServers"]; ok && !allowedSet {
			allowedSet = true
			allowedWhere = f.path
			allowed = readPolicies(v, f.path)
			if allowed == nil {
				allowed = []policy{}
			}
		}
	}
	var toggled []string
	if proj != nil {
		where := fmt.Sprintf("the project's entry in %s", global)
		approved = append(approved, nameList{strList(proj["enabledMcpjsonServers"]), where})
		rejected = append(rejected, nameList{strList(proj["disabledMcpjsonServers"]), where})
		toggled = strList(proj["disabledMcpServers"])
	}

	managedIdx := -1
	for i, c := range configs {
		if c.Scope == "managed" && c.Error == "" {
			managedIdx = i
		}
	}
	for i := range configs {
		c := &configs[i]
		for j := range c.Servers {
			s := &c.Servers[j]
			if s.Disabled {
				continue
			}
			switch {
			case managedIdx >= 0 && i != managedIdx:
				s.Disabled = true
				s.DisabledBy = fmt.Sprintf("%s takes exclusive control of MCP servers", configs[managedIdx].Path)
				continue
			case c.Scope == "project":
				for _, l := range rejected {
					if contains(l.names, s.Name) {
						s.Disabled = true
						s.DisabledBy = fmt.Sprintf("listed in disabledMcpjsonServers in %s", l.where)
						break
					}
				}
				if !s.Disabled && s.Problem == "" && approveAll == "" && !anyContains(approved, s.Name) {
					s.Notes = append(s.Notes, "not yet approved: Claude Code asks before it starts servers from .mcp.json")
				}
			}
			if s.Disabled {
				continue
			}
			if contains(toggled, s.Name) {
				s.Disabled = true
				s.DisabledBy = fmt.Sprintf("turned off with /mcp (disabledMcpServers of the project's entry in %s)", global)
				continue
			}
			for _, p := range denied {
				if p.matches(*s) {
					s.Disabled = true
					s.DisabledBy = fmt.Sprintf("matched by deniedMcpServers in %s", p.where)
					break
				}
			}
			if !s.Disabled && allowed != nil {
				ok := false
				for _, p := range allowed {
					if p.matches(*s) {
						ok = true
					}
				}
				if !ok {
					s.Disabled = true
					s.DisabledBy = "not matched by allowedMcpServers in " + allowedWhere
				}
			}
		}
	}
	// Claude Code gives every stdio server the project folder.
	for i := range configs {
		for j := range configs[i].Servers {
			if s := &configs[i].Servers[j]; s.Transport == Stdio {
				s.ClientEnv = map[string]string{"CLAUDE_PROJECT_DIR": sys.Cwd}
			}
		}
	}
	// local > project > user.
	var ordered []Config
	for _, scope := range []string{"user", "project", "local"} {
		for _, c := range configs {
			if c.Scope == scope {
				ordered = append(ordered, c)
			}
		}
	}
	overrideByName(ordered, func(w Config) string {
		return fmt.Sprintf("the %s-scope entry in %s", w.Scope, w.Path)
	})
	var out []Config
	for _, c := range configs {
		if c.Scope == "managed" {
			out = append(out, c)
		}
	}
	out = append(out, ordered...)
	return out
}

// A nameList is a list of server names read from one file.
type nameList struct {
	names []string
	where string
}

func anyContains(lists []nameList, name string) bool {
	for _, l := range lists {
		if contains(l.names, name) {
			return true
		}
	}
	return false
}

// A policy is one entry of allowedMcpServers or deniedMcpServers.
type policy struct {
	name    string
	command []string
	url     string
	where   string
}

func readPolicies(v any, where string) []policy {
	list, _ := v.([]any)
	var out []policy
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		p := policy{where: where}
		p.name, _ = m["serverName"].(string)
		p.command = strList(m["serverCommand"])
		p.url, _ = m["serverUrl"].(string)
		out = append(out, p)
	}
	return out
}

func (p policy) matches(s Server) bool {
	switch {
	case p.name != "":
		return p.name == s.Name
	case p.command != nil:
		argv := append([]string{s.Command}, s.Args...)
		if len(argv) != len(p.command) {
			return false
		}
		for i := range argv {
			if argv[i] != p.command[i] {
				return false
			}
		}
		return true
	case p.url != "":
		ok, _ := path.Match(strings.ReplaceAll(p.url, "/", "\x00"), strings.ReplaceAll(s.URL, "/", "\x00"))
		return ok && s.URL != ""
	}
	return false
}
