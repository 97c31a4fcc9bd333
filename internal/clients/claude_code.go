package clients

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Claude Code reads MCP servers from, lowest precedence first:
//
//   - user scope: top-level mcpServers of ~/.claude.json
//     ($CLAUDE_CONFIG_DIR/.claude.json when that is set);
//   - project scope: mcpServers of <project>/.mcp.json;
//   - local scope: projects["<abs project path>"].mcpServers of the same
//     ~/.claude.json;
//   - plugins, below all of these (see claude_plugins.go).
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
// winning; approvals in the project's own settings count only in a folder
// the user trusted (see claudeApprovalsIgnored), and a server with no
// approval is not started (it needs approval); disabledMcpServers in the project's entry of ~/.claude.json
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
	if v := sys.claudeConfigVar(); v != "" {
		return v
	}
	return sys.join(sys.Home, ".claude")
}

// claudeGlobalFile is ~/.claude.json, or .claude.json inside
// $CLAUDE_CONFIG_DIR when that is set.
func (sys *System) claudeGlobalFile() string {
	if v := sys.claudeConfigVar(); v != "" {
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
	return append([]candidate{
		{client: ClaudeCode, scope: "managed", format: FormatJSON, path: sys.join(sys.claudeManagedDir(), "managed-mcp.json")},
		{client: ClaudeCode, scope: "user", format: FormatJSON, path: global},
		{client: ClaudeCode, scope: "project", format: FormatJSON, path: sys.join(sys.Cwd, ".mcp.json")},
		{client: ClaudeCode, scope: "local", format: FormatJSON, path: global},
	}, sys.claudePluginCandidates()...)
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
	if isPluginScope(c.scope) {
		return parseClaudePlugin(sys, c, data)
	}
	r := sys.claudeReader(c.scope, c.path)
	if c.scope != "local" {
		cfg := readServersJSON(c, data, FormatJSON, "mcpServers", r)
		if cfg.Error == "" && cfg.Hint == "" && c.scope == "user" {
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
	// malformed says the file is not JSON at all (a comment, a trailing
	// comma): Claude Code reports "Invalid or malformed JSON" and skips
	// the whole file, in every session that starts.
	malformed bool
}

// claudeSettings reads Claude Code's settings files in precedence order
// (strict JSON, as Claude Code reads them: it rejects a comment or a
// trailing comma as "Invalid or malformed JSON" and skips the whole file,
// anthropics/claude-code#83190, SchemaStore/schemastore#5574):
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
				var pe *ParseError
				f.malformed = errors.As(err, &pe) && !strings.HasPrefix(pe.Msg, "the top level is")
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

	// The project's entry in ~/.claude.json, and whether Claude Code
	// trusts the folder.
	var proj map[string]any
	trusted, exact := false, false
	global := sys.claudeGlobalFile()
	if data, state, _ := sys.read(global); state == StateFound {
		if top, _, err := readJSONTop(data, FormatJSON, global); err == nil {
			proj, _ = sys.claudeProject(top)
			trusted, exact = sys.claudeTrusted(top)
		}
	}
	var approved, rejected []nameList
	approveAll := ""
	var ignored []string // why approvals in a file are not honoured here
	var denied, allowed []policy
	allowedSet, allowedWhere := false, ""
	for _, f := range sys.claudeSettings() {
		if f.top == nil {
			continue
		}
		rejected = append(rejected, nameList{strList(f.top["disabledMcpjsonServers"]), f.path})
		all, _ := f.top["enableAllProjectMcpServers"].(bool)
		names := strList(f.top["enabledMcpjsonServers"])
		if all || len(names) > 0 {
			if why := sys.claudeApprovalsIgnored(f, trusted, exact); why != "" {
				ignored = append(ignored, fmt.Sprintf("the approval in %s %s", f.path, why))
			} else {
				approved = append(approved, nameList{names, f.path})
				if all && approveAll == "" {
					approveAll = f.path
				}
			}
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
		if b, _ := proj["enableAllProjectMcpServers"].(bool); b && approveAll == "" {
			approveAll = where
		}
		toggled = strList(proj["disabledMcpServers"])
	}
	approval := fmt.Sprintf("Claude Code asks before it starts servers from .mcp.json and has no approval on record: approve it in Claude Code, list it in enabledMcpjsonServers (or set enableAllProjectMcpServers) in %s or in the project's entry in %s, or run mcpcost with --trust-project",
		sys.join(sys.claudeConfigDir(), "settings.json"), global)
	if len(ignored) > 0 {
		approval += "; " + strings.Join(ignored, "; ")
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
					if sys.TrustProject {
						s.Notes = append(s.Notes, "not approved in Claude Code; launched on --trust-project")
					} else {
						s.withhold(approval)
					}
				}
			}
			if s.Disabled {
				continue
			}
			if contains(toggled, toggleName(c.Scope, s.Name)) {
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
	for _, c := range configs {
		if isPluginScope(c.Scope) {
			out = append(out, c)
		}
	}
	out = append(out, ordered...)
	overridePlugins(out)
	return out
}

// claudeTrusted reports whether Claude Code trusts the project folder:
// its trust dialog was accepted for the folder or a parent
// (hasTrustDialogAccepted in that folder's entry of ~/.claude.json); exact
// says for the folder itself. The user's configuration home (the home
// folder, or the folder whose .claude is $CLAUDE_CONFIG_DIR) counts as
// trusted.
func (sys *System) claudeTrusted(top map[string]any) (trusted, exact bool) {
	if sys.isConfigHome() {
		return true, true
	}
	projects, _ := top["projects"].(map[string]any)
	norm := func(p string) string {
		p = strings.TrimRight(p, sys.seps())
		if sys.OS == "windows" {
			p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
		}
		return p
	}
	want := norm(sys.Cwd)
	for _, k := range sortedKeys(projects) {
		p, _ := projects[k].(map[string]any)
		if ok, _ := p["hasTrustDialogAccepted"].(bool); !ok {
			continue
		}
		// Windows keys are compared with forward slashes (norm).
		switch k = norm(k); {
		case k == want:
			return true, true
		case k == "" || strings.HasPrefix(want, k+"/"):
			trusted = true // a parent folder; "" is the root "/"
		}
	}
	return trusted, false
}

// isConfigHome reports whether the project folder is the user's Claude
// Code configuration home: the home folder, or the folder whose .claude is
// $CLAUDE_CONFIG_DIR.
func (sys *System) isConfigHome() bool {
	if sys.Cwd == sys.Home {
		return true
	}
	if v := sys.claudeConfigVar(); v != "" && sys.base(v) == ".claude" && sys.dir(v) == sys.Cwd {
		return true
	}
	return false
}

// claudeApprovalsIgnored says why Claude Code does not honour the
// .mcp.json approvals (enabledMcpjsonServers, enableAllProjectMcpServers)
// of a settings file in this folder, or "" when it does. Managed and user
// settings are the user's own: always honoured. A cloned repository cannot
// approve its own servers: the project's .claude/settings.json counts only
// in a trusted folder; its .claude/settings.local.json only in a trusted
// folder and when git does not track it (in a folder outside git, only
// when the folder itself was trusted, not a parent), or in the user's
// configuration home. Rejections count everywhere.
func (sys *System) claudeApprovalsIgnored(f settingsFile, trusted, exact bool) string {
	const untrusted = "counts only once the folder is trusted in Claude Code (its trust dialog accepted)"
	switch f.scope {
	case "project-settings":
		if !trusted {
			return untrusted
		}
	case "local-settings":
		if sys.isConfigHome() {
			return ""
		}
		if !trusted {
			return untrusted
		}
		tracked, inRepo := sys.gitTracked(f.path)
		switch {
		case inRepo && tracked:
			return "does not count: git tracks the file, and Claude Code honours it only untracked"
		case !inRepo && !exact:
			return "counts outside a git repository only once this folder itself is trusted in Claude Code, not through a parent"
		}
	}
	return ""
}

// gitTracked reports whether the git index of the repository holding path
// lists it. inRepo is false outside a repository. An index it cannot read
// as version 2 or 3 counts as tracking the file.
func (sys *System) gitTracked(path string) (tracked, inRepo bool) {
	root := sys.dir(path)
	gitDir := ""
	for {
		p := sys.join(root, ".git")
		if sys.FS.IsDir(p) {
			gitDir = p
			break
		}
		if data, err := sys.FS.ReadFile(p); err == nil {
			// A worktree or submodule: "gitdir: <path>".
			d := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(data)), "gitdir:"))
			if !sys.isAbs(d) {
				d = sys.join(root, d)
			}
			gitDir = d
			break
		}
		parent := sys.dir(root)
		if parent == root || parent == "." || parent == "" {
			return false, false
		}
		root = parent
	}
	rel := strings.TrimLeft(strings.TrimPrefix(path, root), sys.seps())
	rel = strings.ReplaceAll(rel, `\`, "/")
	index, err := sys.readMax(sys.join(gitDir, "index"), MaxGitIndexSize)
	if errors.Is(err, fs.ErrNotExist) {
		return false, true // nothing staged yet
	}
	if err != nil || len(index) < 12 || string(index[:4]) != "DIRC" {
		return true, true
	}
	if v := binary.BigEndian.Uint32(index[4:8]); v != 2 && v != 3 {
		return true, true
	}
	// Each entry's path follows its flags, whose low 12 bits are the
	// path's length (v3 may put two bytes of extended flags between), and
	// ends with a NUL.
	name := []byte(rel + "\x00")
	n := uint16(min(len(rel), 0xfff))
	for i := 12; ; {
		j := bytes.Index(index[i:], name)
		if j < 0 {
			return false, true
		}
		at := i + j
		for _, back := range []int{2, 4} {
			if at-back >= 12 && binary.BigEndian.Uint16(index[at-back:])&0xfff == n {
				return true, true
			}
		}
		i = at + 1
	}
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
