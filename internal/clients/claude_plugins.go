package clients

import (
	"fmt"
	"sort"
	"strings"
)

// Claude Code plugins. Installed plugins are listed in
// $CLAUDE_CONFIG_DIR/plugins/installed_plugins.json (default
// ~/.claude/plugins/): version 2 maps "<plugin>@<marketplace>" to a list
// of installs {scope, installPath, projectPath}, version 1 to one install
// {installPath}. An install applies when its scope is user, or when its
// projectPath is the project folder. A plugin is on when enabledPlugins
// (an object of id: true|false in any settings file, the managed file
// first, then local, project and user) holds true for its id.
//
// A plugin's servers are the mcpServers of .mcp.json at its install root
// (wrapped in "mcpServers" or bare) and the mcpServers of
// .claude-plugin/plugin.json: an object of servers, the path of such a
// file relative to the root, or a list of either. Before ${VAR}
// expansion, ${CLAUDE_PLUGIN_ROOT} is the install root,
// ${CLAUDE_PLUGIN_DATA} the plugin's data folder
// (plugins/data/<plugin>-<marketplace>) and ${CLAUDE_PROJECT_DIR} the
// project folder. Plugin servers rank below user, project and local
// servers, and are matched to those by endpoint (command and arguments, or
// URL), not by name; /mcp turns one off as plugin:<plugin>:<server>.

// pluginScopePrefix starts the scope of a plugin's config: "plugin
// <plugin>@<marketplace>".
const pluginScopePrefix = "plugin "

// A claudePlugin is one installed plugin that applies to the project.
type claudePlugin struct {
	id   string // <plugin>@<marketplace>
	root string
}

// claudePlugins lists the installed plugins that apply to the project,
// sorted by id.
func (sys *System) claudePlugins() []claudePlugin {
	path := sys.join(sys.claudeConfigDir(), "plugins", "installed_plugins.json")
	data, state, _ := sys.read(path)
	if state != StateFound {
		return nil
	}
	top, _, err := readJSONTop(data, FormatJSON, path)
	if err != nil {
		return nil
	}
	plugins, _ := top["plugins"].(map[string]any)
	var out []claudePlugin
	for _, id := range sortedKeys(plugins) {
		var installs []any
		switch v := plugins[id].(type) {
		case []any:
			installs = v
		case map[string]any:
			installs = []any{v}
		}
		for _, in := range installs {
			m, _ := in.(map[string]any)
			root, _ := m["installPath"].(string)
			scope, _ := m["scope"].(string)
			proj, _ := m["projectPath"].(string)
			if root == "" || (scope != "" && scope != "user" && proj != sys.Cwd) {
				continue
			}
			out = append(out, claudePlugin{id: id, root: root})
			break
		}
	}
	return out
}

// claudePluginCandidates are the files of the applying plugins that may
// hold servers.
func (sys *System) claudePluginCandidates() []candidate {
	var out []candidate
	for _, p := range sys.claudePlugins() {
		scope := pluginScopePrefix + p.id
		out = append(out,
			candidate{client: ClaudeCode, scope: scope, format: FormatJSON, path: sys.join(p.root, ".mcp.json")},
			candidate{client: ClaudeCode, scope: scope, format: FormatJSON, path: sys.join(p.root, ".claude-plugin", "plugin.json")},
		)
	}
	return out
}

// claudePluginEnabled says whether enabledPlugins turns the plugin on,
// and where that was decided. The project's own settings files count only
// where their other settings do (see claudeApprovalsIgnored): a cloned
// repository cannot turn on a plugin the user installed for other work.
func (sys *System) claudePluginEnabled(id string) (bool, string) {
	trusted, exact := sys.claudeTrust()
	for _, f := range sys.claudeSettings() {
		m, _ := f.top["enabledPlugins"].(map[string]any)
		b, ok := m[id].(bool)
		if !ok {
			continue
		}
		if b && sys.claudeApprovalsIgnored(f, trusted, exact) != "" {
			continue
		}
		return b, f.path
	}
	return false, ""
}

// claudeTrust reports whether Claude Code trusts the project folder (see
// claudeTrusted), from ~/.claude.json.
func (sys *System) claudeTrust() (trusted, exact bool) {
	global := sys.claudeGlobalFile()
	if data, state, _ := sys.read(global); state == StateFound {
		if top, _, err := readJSONTop(data, FormatJSON, global); err == nil {
			return sys.claudeTrusted(top)
		}
	}
	return sys.isConfigHome(), sys.isConfigHome()
}

var pluginDataChars = lazyRegexp(`[^A-Za-z0-9_-]`)

// parseClaudePlugin reads a plugin's .mcp.json or plugin.json.
func parseClaudePlugin(sys *System, c candidate, data []byte) Config {
	id := strings.TrimPrefix(c.scope, pluginScopePrefix)
	manifest := sys.base(c.path) == "plugin.json"
	root := sys.dir(c.path)
	if manifest {
		root = sys.dir(root)
	}
	cfg := Config{Client: ClaudeCode, Path: c.path, Scope: c.scope, Format: FormatJSON}
	top, notes, err := readJSONTop(data, FormatJSON, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	vars := strings.NewReplacer(
		"${CLAUDE_PLUGIN_ROOT}", root,
		"${CLAUDE_PLUGIN_DATA}", sys.join(sys.claudeConfigDir(), "plugins", "data", pluginDataChars().ReplaceAllString(strings.Replace(id, "@", "-", 1), "-")),
		"${CLAUDE_PROJECT_DIR}", sys.Cwd)
	r := sys.claudeReader(c.scope, c.path)
	r.expand = func(s string, x *expansion) string { return sys.expandShell(vars.Replace(s), x) }

	// The blocks of servers the file holds, with where each was read.
	type block struct {
		v     any
		where string
	}
	var blocks []block
	if manifest {
		var add func(v any)
		add = func(v any) {
			switch t := v.(type) {
			case map[string]any:
				blocks = append(blocks, block{t, c.path})
			case string:
				p := vars.Replace(t)
				if !sys.isAbs(p) {
					p = sys.clean(sys.join(root, p))
				}
				b, err := sys.readMax(p, MaxConfigSize)
				if err == nil {
					err = sys.budget.charge(p, countValues(p, b))
				}
				if err != nil {
					cfg.Notes = append(cfg.Notes, fmt.Sprintf("mcpServers names %s, which cannot be read", t))
					return
				}
				m, _, err := readJSONTop(b, FormatJSON, p)
				if err != nil {
					cfg.Notes = append(cfg.Notes, err.Error())
					return
				}
				if inner, ok := m["mcpServers"]; ok {
					blocks = append(blocks, block{inner, p})
				} else {
					blocks = append(blocks, block{m, p})
				}
			case []any:
				for _, e := range t {
					add(e)
				}
			}
		}
		if top["mcpServers"] == nil {
			cfg.noMCP = "a plugin manifest without mcpServers"
			return cfg
		}
		add(top["mcpServers"])
	} else if inner, ok := top["mcpServers"]; ok {
		blocks = append(blocks, block{inner, c.path})
	} else {
		blocks = append(blocks, block{top, c.path})
	}
	for _, b := range blocks {
		servers, note := r.readServerMap(b.v, "mcpServers")
		if note != "" {
			cfg.Notes = append(cfg.Notes, note)
		}
		for i := range servers {
			servers[i].Source = b.where
		}
		cfg.Servers = append(cfg.Servers, servers...)
	}
	sort.SliceStable(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	if on, where := sys.claudePluginEnabled(id); !on {
		why := fmt.Sprintf("plugin %s is not enabled (no enabledPlugins entry in any settings file)", id)
		if where != "" {
			why = fmt.Sprintf("plugin %s is turned off (enabledPlugins in %s)", id, where)
		}
		for i := range cfg.Servers {
			if s := &cfg.Servers[i]; !s.Disabled {
				s.Disabled, s.DisabledBy = true, why
			}
		}
	}
	return cfg
}

// toggleName is the name /mcp records a server under in
// disabledMcpServers: plugin:<plugin>:<server> for a plugin's.
func toggleName(scope, server string) string {
	if !isPluginScope(scope) {
		return server
	}
	plugin, _, _ := strings.Cut(strings.TrimPrefix(scope, pluginScopePrefix), "@")
	return "plugin:" + plugin + ":" + server
}

// isPluginScope reports whether a Claude Code config is a plugin's.
func isPluginScope(scope string) bool { return strings.HasPrefix(scope, pluginScopePrefix) }

// sameEndpoint reports whether two servers reach the same server: the same
// URL, or the same command and arguments.
func sameEndpoint(a, b Server) bool {
	if a.URL != "" || b.URL != "" {
		return a.URL == b.URL
	}
	if a.Command == "" || a.Command != b.Command || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i] != b.Args[i] {
			return false
		}
	}
	return true
}

// overridePlugins marks each plugin server that a user, project or local
// server reaches by the same endpoint as overridden by that one.
func overridePlugins(configs []Config) {
	for i := range configs {
		if !isPluginScope(configs[i].Scope) {
			continue
		}
		for j := range configs[i].Servers {
			s := &configs[i].Servers[j]
			for _, c := range configs {
				if isPluginScope(c.Scope) || c.Scope == "managed" {
					continue
				}
				for _, o := range c.Servers {
					if sameEndpoint(*s, o) {
						s.OverriddenBy = fmt.Sprintf("the %s-scope entry %q in %s, which starts the same server", c.Scope, o.Name, c.Path)
					}
				}
			}
		}
	}
}
