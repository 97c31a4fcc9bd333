// Package clients finds and reads the MCP server configurations of every
// MCP client on a machine, the way each client reads them: its files on
// macOS, Linux and Windows, its format (JSON, JSONC, TOML, YAML), its
// variable syntax, its enable and disable switches, its per-tool filters and
// its precedence between scopes. It also works out Claude Code's tool-search
// (deferral) posture from the shell and its settings files, and lists the
// known limits of other clients.
//
// Everything goes through a System (filesystem, environment, home, project
// folder, OS), so tests read fake homes and never the real one.
//
// Secrets: the values of env, headers, args and URLs are used to launch a
// server and are never part of a Server's JSON form or display form; see
// package redact for the redaction rule, Server.Secrets for the values a
// launcher scrubs from what the server says, and Server.LaunchKey for a
// cache key that does not reveal them.
package clients

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// Client names.
const (
	ClaudeDesktop = "claude-desktop"
	ClaudeCode    = "claude-code"
	Cursor        = "cursor"
	VSCode        = "vscode"
	Windsurf      = "windsurf"
	Codex         = "codex"
	Gemini        = "gemini"
	Zed           = "zed"
	Opencode      = "opencode"
	Cline         = "cline"
	Goose         = "goose"
	Continue      = "continue"
	CopilotCLI    = "copilot-cli"
	// Explicit labels a file given with --config whose client could not be
	// told from its name or content.
	Explicit = "explicit"
)

// Formats of config files.
const (
	FormatJSON  = "json"  // strict JSON
	FormatJSONC = "jsonc" // JSON with comments and trailing commas
	FormatTOML  = "toml"
	FormatYAML  = "yaml"
)

// Location states.
const (
	StateFound      = "found"
	StateNotFound   = "not found"
	StateUnreadable = "unreadable" // exists but could not be read
	StateInvalid    = "invalid"    // read but not parseable
)

// A Location is one place a client's configuration was looked for.
type Location struct {
	Client string `json:"client"`
	Scope  string `json:"scope"`
	Path   string `json:"path"`
	State  string `json:"state"`
	// Error says why the file could not be read or parsed.
	Error string `json:"error,omitempty"`
	// Hint says what to do about Error, where the error says more than
	// that the file could not be used (a file over the size cap).
	Hint string `json:"hint,omitempty"`
	// Servers is the number of server entries found there.
	Servers int `json:"servers"`
	// Note says what else was found (a settings file without MCP servers).
	Note string `json:"note,omitempty"`
}

// A Config is one configuration file as one client reads it. A file read
// in two scopes (Claude Code's ~/.claude.json holds user and local scope)
// gives two Configs with the same Path.
type Config struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Scope  string `json:"scope"`
	Format string `json:"format"`
	// Servers are sorted by name.
	Servers []Server `json:"servers"`
	// Error is set when the file could not be read or parsed; Servers is
	// then empty. It names the file, line and column.
	Error string `json:"error,omitempty"`
	// Hint says what to do about Error (a file over the size cap), or
	// about a file that declares no server where its top level looks like
	// servers written without the client's object (see unwrapped).
	Hint string `json:"hint,omitempty"`
	// Notes are facts about the file worth telling (an ignored key, a
	// byte-order mark, a policy that applies to it).
	Notes []string `json:"notes"`

	// trustedBy, when set, says what on this machine records the user's
	// trust in the project folder for this client (Gemini CLI's
	// trustedFolders.json): the file's servers then start as the client
	// would start them, without --trust-project.
	trustedBy string

	// noMCP, when set, says why this file holds nothing for the client
	// (a general settings file without MCP servers): discovery lists the
	// place as looked at, with this note, and reports no config.
	noMCP string
}

// Active returns the servers the client would launch from this config.
func (c Config) Active() []Server {
	var out []Server
	for _, s := range c.Servers {
		if s.Launchable() {
			out = append(out, s)
		}
	}
	return out
}

// System is everything discovery reads from the machine.
type System struct {
	// OS is "darwin", "linux" or "windows"; it picks paths and separators.
	OS string
	// Home is the user's home folder.
	Home string
	// Cwd is the project folder: where a client would be started.
	Cwd string
	// Getenv reads the environment of the shell the clients start in.
	Getenv func(string) string
	// FS reads files.
	FS FS
	// TrustProject is the user's word that the servers of the project's
	// own config files may be launched although their client has no
	// approval on record (--trust-project). Rejections still apply.
	TrustProject bool

	// memo keeps ~/.claude.json as read once; Local sets it.
	memo *stateMemo
	// budget counts the values decoded in the run; Local sets it, else
	// Discover and Load each make one.
	budget *budget
}

// FS is the filesystem discovery reads.
type FS interface {
	// ReadFile returns the contents of a file; a missing file gives an
	// error satisfying errors.Is(err, fs.ErrNotExist).
	ReadFile(name string) ([]byte, error)
	// ReadDir returns the names of the entries of a folder, sorted.
	ReadDir(name string) ([]string, error)
	// IsDir reports whether name is an existing folder.
	IsDir(name string) bool
}

// OSFS is the real filesystem.
type OSFS struct{}

// ReadFile reads a regular file of at most MaxConfigSize bytes (see
// ReadFileMax).
func (o OSFS) ReadFile(name string) ([]byte, error) { return o.ReadFileMax(name, MaxConfigSize) }

// ReadDir lists a folder's entry names, sorted.
func (OSFS) ReadDir(name string) ([]string, error) {
	ents, err := os.ReadDir(name)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names, nil
}

// IsDir reports whether name is an existing folder.
func (OSFS) IsDir(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.IsDir()
}

func (sys *System) getenv(name string) string {
	if sys.Getenv == nil {
		return ""
	}
	return sys.Getenv(name)
}

func (sys *System) lookupEnv(name string) (string, bool) {
	v := sys.getenv(name)
	return v, v != ""
}

// sep is the path separator of the system's OS.
func (sys *System) sep() string {
	if sys.OS == "windows" {
		return `\`
	}
	return "/"
}

// join joins path elements with the OS's separator.
func (sys *System) join(elem ...string) string {
	sep := sys.sep()
	out := ""
	for _, e := range elem {
		if sys.OS == "windows" {
			e = strings.ReplaceAll(e, "/", `\`)
		}
		switch {
		case e == "":
		case out == "":
			out = e
		default:
			out = strings.TrimRight(out, sys.seps()) + sep + strings.Trim(e, sys.seps())
		}
	}
	return out
}

// dir returns the parent folder of path.
func (sys *System) dir(path string) string {
	i := strings.LastIndexAny(path, sys.seps())
	switch {
	case i < 0:
		return "."
	case i == 0:
		return path[:1]
	}
	return path[:i]
}

// base returns the last element of path.
func (sys *System) base(path string) string {
	path = strings.TrimRight(path, sys.seps())
	if i := strings.LastIndexAny(path, sys.seps()); i >= 0 {
		return path[i+1:]
	}
	return path
}

func (sys *System) seps() string {
	if sys.OS == "windows" {
		return `\/`
	}
	return "/"
}

// isAbs reports whether path is absolute on the system's OS.
func (sys *System) isAbs(path string) bool {
	if sys.OS == "windows" {
		return len(path) >= 3 && path[1] == ':' && (path[2] == '\\' || path[2] == '/') || strings.HasPrefix(path, `\\`)
	}
	return strings.HasPrefix(path, "/")
}

// appData is %APPDATA% on Windows, with its usual default.
func (sys *System) appData() string {
	if v := sys.getenv("APPDATA"); v != "" {
		return v
	}
	return sys.join(sys.Home, "AppData", "Roaming")
}

// programData is %ProgramData% on Windows.
func (sys *System) programData() string {
	if v := sys.getenv("ProgramData"); v != "" {
		return v
	}
	return `C:\ProgramData`
}

// xdgConfig is $XDG_CONFIG_HOME or ~/.config.
func (sys *System) xdgConfig() string {
	if v := sys.getenv("XDG_CONFIG_HOME"); v != "" && sys.isAbs(v) {
		return v
	}
	return sys.join(sys.Home, ".config")
}

// userConfigDir is where desktop applications keep their settings: the
// Application Support folder on macOS, %APPDATA% on Windows, the XDG config
// folder on Linux.
func (sys *System) userConfigDir() string {
	switch sys.OS {
	case "darwin":
		return sys.join(sys.Home, "Library", "Application Support")
	case "windows":
		return sys.appData()
	}
	return sys.xdgConfig()
}

// read reads a config file and classifies the outcome for a Location. A
// file that is not a regular file, is over its size cap or would take the
// run past its budget of values (MaxRunValues) is unreadable;
// of ~/.claude.json, the entries of other projects are blanked out unread
// (see claudeStateView).
func (sys *System) read(path string) (data []byte, state string, err error) {
	if path == sys.claudeGlobalFile() {
		data, err = sys.readClaudeState(path)
	} else {
		data, err = sys.readMax(path, MaxConfigSize)
		if err == nil {
			err = sys.budget.charge(path, countValues(path, data))
		}
	}
	switch {
	case err == nil:
		return data, StateFound, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, StateNotFound, nil
	}
	return nil, StateUnreadable, err
}

// A candidate is a place a client's config may be.
type candidate struct {
	client string
	scope  string
	path   string
	format string
}

// A client knows where its configs are and how to read them.
type client struct {
	name  string
	title string
	// candidates lists the places to look, in the client's precedence
	// order, lowest first.
	candidates func(sys *System) []candidate
	// parse reads one file's contents.
	parse func(sys *System, c candidate, data []byte) Config
	// multiScope says one file may be read in several scopes (Claude
	// Code's ~/.claude.json); otherwise a path met twice (a project folder
	// that is the home folder) is read once.
	multiScope bool
	// settle applies what crosses files: precedence between scopes,
	// approvals held in other files. It may be nil.
	settle func(sys *System, configs []Config) []Config
	// projectScopes are the scopes whose files the project itself holds
	// (a cloned repository chose them) and for which the client records
	// no approval on disk: their servers are launched only on the user's
	// word (--trust-project, or --config naming the file). A client that
	// records approvals (Claude Code, Codex) applies them in parse or
	// settle instead.
	projectScopes []string
}

var registry = map[string]*client{}

func register(c *client) { registry[c.name] = c }

// Clients returns the names of the known clients, sorted.
func Clients() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Title returns a client's display name ("Claude Code").
func Title(name string) string {
	if c, ok := registry[name]; ok {
		return c.title
	}
	return name
}

// ExplicitWords is how text names the client of a file given with
// --config whose client could not be told (Explicit), which stays the
// machine value of JSON.
const ExplicitWords = "given with --config"

// Known reports whether name is a known client.
func Known(name string) bool {
	_, ok := registry[name]
	return ok
}

// Discover reads every config of the named clients (all when names is
// empty). It returns the configs found, per client in the client's
// precedence order (lowest first), and every place looked at.
func Discover(sys System, names []string) (configs []Config, looked []Location) {
	if sys.budget == nil {
		sys.budget = &budget{}
	}
	if len(names) == 0 {
		names = Clients()
	}
	seen := map[string]bool{}
	for _, n := range names {
		c, ok := registry[n]
		if !ok || seen[n] {
			continue
		}
		seen[n] = true
		var got []Config
		paths := map[string]bool{}
		for _, cand := range c.candidates(&sys) {
			if paths[cand.path] && !c.multiScope {
				continue
			}
			paths[cand.path] = true
			loc := Location{Client: c.name, Scope: cand.scope, Path: cand.path}
			data, state, err := sys.read(cand.path)
			loc.State = state
			if err != nil {
				loc.Error, loc.Hint = readError(cand.path, err).Error(), errorHint(err)
			}
			if state == StateFound {
				cfg := capServers(c.parse(&sys, cand, data))
				switch {
				case cfg.Error != "":
					loc.State = StateInvalid
					loc.Error = cfg.Error
					got = append(got, cfg)
				case cfg.noMCP != "":
					loc.Note = cfg.noMCP
				default:
					got = append(got, cfg)
				}
			} else if state == StateUnreadable {
				got = append(got, Config{Client: c.name, Path: cand.path, Scope: cand.scope, Format: cand.format,
					Error: readError(cand.path, err).Error(), Hint: errorHint(err)})
			}
			looked = append(looked, loc)
		}
		if c.settle != nil {
			got = c.settle(&sys, got)
		}
		for i := range got {
			if contains(c.projectScopes, got[i].Scope) && !sys.TrustProject && got[i].trustedBy == "" {
				withholdProject(&got[i])
			}
			sys.loadEnvFiles(&got[i])
			sys.settleDirs(&got[i], sys.Cwd)
		}
		// Count servers per location after settling (a file may yield two
		// scopes), by a map: a project's .continue/mcpServers may hold
		// tens of thousands of files.
		type place struct{ path, scope string }
		counts := make(map[place]int, len(got))
		for _, cfg := range got {
			counts[place{cfg.Path, cfg.Scope}] = len(cfg.Servers)
		}
		for i := range looked {
			if n, ok := counts[place{looked[i].Path, looked[i].Scope}]; ok && looked[i].Client == c.name {
				looked[i].Servers = n
			}
		}
		configs = append(configs, got...)
	}
	for i := range configs {
		if configs[i].Servers == nil {
			configs[i].Servers = []Server{}
		}
	}
	return configs, looked
}

// Load reads one file given explicitly (--config). A file at a path where
// a client's discovery looks (~/.copilot/mcp-config.json, the project's
// .cursor/mcp.json) is read by that client, in that scope, exactly as
// discovery reads it; where two clients look at the same path (a
// project's .mcp.json: Claude Code and Copilot CLI) the one its name
// points to wins (see LoadAs to choose). Any other file's client is taken
// from the file's name when that is a client's known file name, else
// sniffed from its content; a file no client claims is read as a plain
// mcpServers/servers file with the client "explicit". The error is for a
// file that cannot be read at all; a parse error is the Config's Error.
//
// Naming a file is the user's approval of its servers: none needs
// approval. Its stdio servers start in the project folder the file belongs
// to (see projectRoot), wherever mcpcost runs.
func Load(sys System, path string) (Config, error) { return LoadAs(sys, path, "") }

// LoadAs is Load with the client's reader chosen (--client NAME): the file
// is read as that client reads its files, in the scope of that client's
// file of the same path or name (else its first scope), whatever its path.
// An empty or unknown name chooses as Load does.
func LoadAs(sys System, path, client string) (Config, error) {
	if sys.budget == nil {
		sys.budget = &budget{}
	}
	data, state, err := sys.read(path)
	if state == StateNotFound {
		return Config{}, &wrapped{fmt.Sprintf("reading %s: no such file", path), fs.ErrNotExist}
	}
	if err != nil {
		return Config{}, readError(path, err)
	}
	name, scope, format := sys.loadReader(path, data, client)
	c := registry[name]
	cand := candidate{client: name, scope: scope, path: path, format: format}
	var cfg Config
	if c == nil {
		cfg = parseGeneric(&sys, cand, data)
	} else {
		// Read as written: the switches other files hold on this machine
		// (approvals, managed policy, precedence) are not applied to a file
		// given explicitly.
		cfg = c.parse(&sys, cand, data)
	}
	cfg = capServers(cfg)
	sys.loadEnvFiles(&cfg)
	if cfg.noMCP != "" {
		cfg.Notes = append(cfg.Notes, cfg.noMCP)
	}
	if cfg.Servers == nil {
		cfg.Servers = []Server{}
	}
	// The file is named by the user: its servers are launched (an approval
	// given by naming it), from the project folder the file belongs to.
	root := sys.Cwd
	if scope == "project" || scope == "workspace" || scope == "explicit" || scope == "devcontainer" {
		root = sys.projectRoot(path)
	}
	sys.settleDirs(&cfg, root)
	return cfg, nil
}

// loadReader tells the client, scope and format to read an explicitly
// given file with: the forced client's, else that of a client whose
// discovery looks at this very path, else sniffed from name and content.
func (sys *System) loadReader(path string, data []byte, force string) (client, scope, format string) {
	abs := path
	if !sys.isAbs(abs) {
		abs = sys.join(sys.Cwd, abs)
	}
	abs = sys.clean(abs)
	same := func(p string) bool {
		if sys.OS == "windows" {
			return strings.EqualFold(sys.clean(p), abs)
		}
		return sys.clean(p) == abs
	}
	sniffed, sScope, sFormat := sniff(sys, path, data)
	if c, ok := registry[force]; ok {
		cands := c.candidates(sys)
		for _, cand := range cands {
			if same(cand.path) {
				return cand.client, cand.scope, cand.format
			}
		}
		if sniffed == force {
			return sniffed, sScope, sFormat
		}
		base := strings.ToLower(sys.base(path))
		for _, cand := range cands {
			if strings.ToLower(sys.base(cand.path)) == base {
				return cand.client, cand.scope, cand.format
			}
		}
		scope, format = "explicit", FormatJSONC
		if len(cands) > 0 {
			scope, format = cands[0].scope, cands[0].format
		}
		switch {
		case strings.HasSuffix(base, ".toml"):
			format = FormatTOML
		case strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml"):
			format = FormatYAML
		case format != FormatJSON:
			format = FormatJSONC
		}
		return force, scope, format
	}
	var found []candidate
	for _, n := range Clients() {
		for _, cand := range registry[n].candidates(sys) {
			if same(cand.path) {
				found = append(found, cand)
				break
			}
		}
	}
	for _, cand := range found {
		if cand.client == sniffed {
			return cand.client, cand.scope, cand.format
		}
	}
	if len(found) > 0 {
		return found[0].client, found[0].scope, found[0].format
	}
	return sniffed, sScope, sFormat
}

// withholdProject marks every server of a project file as needing the
// user's approval.
func withholdProject(cfg *Config) {
	for i := range cfg.Servers {
		cfg.Servers[i].withhold(fmt.Sprintf("%s starts servers from the project's own %s without recording an approval; mcpcost launches them only with --trust-project, or with --config naming the file",
			Title(cfg.Client), cfg.Path))
	}
}

// projectRoot is the project folder a project config file belongs to:
// the folder holding it, or that folder's parent for a file kept in a
// client's dot-folder (.cursor/mcp.json, .vscode/mcp.json,
// .continue/mcpServers/x.yaml).
func (sys *System) projectRoot(path string) string {
	if !sys.isAbs(path) {
		path = sys.join(sys.Cwd, path)
	}
	dir := sys.dir(sys.clean(path))
	if (sys.base(dir) == "mcpServers" && sys.base(sys.dir(dir)) == ".continue") || sys.base(sys.dir(dir)) == ".devcontainer" {
		dir = sys.dir(dir)
	}
	switch sys.base(dir) {
	case ".cursor", ".vscode", ".gemini", ".zed", ".codex", ".opencode", ".continue", ".claude", ".github", ".devcontainer":
		return sys.dir(dir)
	}
	return dir
}

// clean removes "." and ".." elements from an absolute path.
func (sys *System) clean(p string) string {
	if sys.OS != "windows" {
		return path.Clean(p)
	}
	return strings.ReplaceAll(path.Clean(strings.ReplaceAll(p, `\`, "/")), "/", `\`)
}

// settleDirs sets the folder each stdio server of cfg starts in, as its
// client starts it: the entry's cwd (a relative one against root), else
// root, the project folder. Claude Code does not read cwd: it starts every
// server in the folder it runs in. A relative command with a separator
// (./srv.sh, bin/srv) is the file of that name in that folder, not in
// mcpcost's working folder.
func (sys *System) settleDirs(cfg *Config, root string) {
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if s.Transport != Stdio {
			continue
		}
		s.Dir = root
		switch {
		case s.Cwd != "" && cfg.Client == ClaudeCode:
			s.Notes = append(s.Notes, `Claude Code does not read "cwd": it starts the server in the project folder`)
		case s.Cwd != "":
			s.Dir = s.Cwd
			if !sys.isAbs(s.Cwd) {
				s.Dir = sys.clean(sys.join(root, s.Cwd))
			}
		}
		if s.NeedsApproval == "" && s.Command != "" && !sys.isAbs(s.Command) && strings.ContainsAny(s.Command, sys.seps()) {
			s.Command = sys.clean(sys.join(s.Dir, s.Command))
		}
	}
}

// sniff tells the client, scope and format of an explicitly given file.
func sniff(sys *System, path string, data []byte) (client, scope, format string) {
	base := strings.ToLower(sys.base(path))
	parent := strings.ToLower(sys.base(sys.dir(path)))
	switch {
	case base == "claude_desktop_config.json":
		return ClaudeDesktop, "user", FormatJSON
	case base == ".claude.json":
		return ClaudeCode, "user", FormatJSON
	case base == ".mcp.json" || base == "managed-mcp.json":
		return ClaudeCode, "project", FormatJSON
	case base == "mcp.json" && parent == ".cursor":
		return Cursor, "project", FormatJSONC
	case base == "mcp.json" && (parent == ".vscode" || parent == "user"):
		return VSCode, "workspace", FormatJSONC
	case base == "mcp_config.json":
		return Windsurf, "user", FormatJSON
	case base == "mcp-config.json":
		return CopilotCLI, "user", FormatJSON
	case base == "mcp.json" && parent == ".github":
		return CopilotCLI, "workspace", FormatJSON
	case base == "devcontainer.json" || base == ".devcontainer.json":
		return VSCode, "devcontainer", FormatJSONC
	case strings.HasSuffix(base, ".toml"):
		return Codex, "user", FormatTOML
	case base == "cline_mcp_settings.json":
		return Cline, "user", FormatJSON
	case base == "opencode.json" || base == "opencode.jsonc":
		return Opencode, "project", FormatJSONC
	case base == "settings.json" && parent == ".gemini":
		return Gemini, "project", FormatJSONC
	case base == "settings.json" && (parent == ".zed" || parent == "zed"):
		return Zed, "project", FormatJSONC
	case (strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml")) && parent == "goose":
		return Goose, "user", FormatYAML
	case strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml"):
		if looksLikeGoose(data) {
			return Goose, "user", FormatYAML
		}
		return Continue, "user", FormatYAML
	}
	// Content: the top-level key tells the client family.
	trimmed := strings.TrimSpace(string(stripBOM(data)))
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") {
		if strings.Contains(trimmed, "[mcp_servers") {
			return Codex, "user", FormatTOML
		}
		if looksLikeGoose(data) {
			return Goose, "user", FormatYAML
		}
		if strings.Contains(trimmed, "mcpServers:") {
			return Continue, "user", FormatYAML
		}
	}
	top, err := decodeJSON(data, FormatJSONC)
	if err == nil {
		if m, ok := top.(map[string]any); ok {
			switch {
			case m["mcpServers"] != nil:
				// The common shape: read as such, by no particular client.
			case m["context_servers"] != nil:
				return Zed, "project", FormatJSONC
			case m["mcp"] != nil && isObject(m["mcp"]) && m["mcp"].(map[string]any)["servers"] == nil:
				return Opencode, "project", FormatJSONC
			case m["servers"] != nil || m["inputs"] != nil || m["mcp"] != nil:
				return VSCode, "workspace", FormatJSONC
			}
		}
	}
	return Explicit, "explicit", FormatJSONC
}

func looksLikeGoose(data []byte) bool {
	s := string(data)
	return strings.Contains(s, "\nextensions:") || strings.HasPrefix(s, "extensions:")
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

// parseGeneric reads a file no client claims: mcpServers, then servers.
func parseGeneric(sys *System, c candidate, data []byte) Config {
	cfg := Config{Client: Explicit, Path: c.path, Scope: c.scope, Format: FormatJSONC}
	top, notes, err := readJSONTop(data, FormatJSONC, c.path)
	cfg.Notes = notes
	if err != nil {
		cfg.Error = err.Error()
		return cfg
	}
	r := entryReader{sys: sys, client: Explicit, scope: c.scope, path: c.path, typed: true, defaultURL: "http"}
	seen := map[string]bool{}
	for _, key := range []string{"mcpServers", "servers"} {
		m, ok := top[key].(map[string]any)
		if !ok {
			continue
		}
		for _, name := range sortedKeys(m) {
			if seen[name] {
				continue
			}
			seen[name] = true
			cfg.Servers = append(cfg.Servers, r.read(name, m[name]))
		}
	}
	unwrapped(&cfg, top, "mcpServers")
	return cfg
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
