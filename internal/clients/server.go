package clients

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Transports.
const (
	Stdio = "stdio"
	HTTP  = "http" // Streamable HTTP
	SSE   = "sse"  // the older HTTP+SSE transport
)

// Server statuses.
const (
	StatusEnabled    = "enabled"
	StatusDisabled   = "disabled"
	StatusOverridden = "overridden"
	StatusNeedsInput = "needs input"
	StatusProblem    = "problem"
	// StatusNeedsApproval is a project's server its client would not start
	// before the user approves it (Claude Code's .mcp.json servers), or
	// one from a project file of a client that records no approval.
	StatusNeedsApproval = "needs approval"
	// StatusExtension is a server that something other than the file
	// starts, with a launch the file does not hold (a Zed extension's
	// context server, which the entry only configures): the client loads
	// it, and mcpcost can neither launch nor measure it.
	StatusExtension = "extension"
)

// A Server is one server entry of a config, with its variables expanded
// as its client expands them. Command, Args, Env, EnvFile, Cwd, URL and
// Headers are what to launch or connect to; they may hold secrets and are
// never part of the JSON form (see MarshalJSON) or of Display.
type Server struct {
	Name   string
	Client string
	Scope  string
	// Source is the path of the config file that holds the entry.
	Source string
	// Transport is "stdio", "http" or "sse"; empty when Problem says why
	// the entry cannot be used.
	Transport string
	Command   string
	Args      []string
	Env       map[string]string
	// EnvFile is a file of NAME=value lines the client loads into Env
	// (already loaded: Env holds its variables).
	EnvFile string
	// ClientEnv are variables the client itself sets in the server's
	// environment (Claude Code's CLAUDE_PROJECT_DIR); a launcher adds them
	// to Env.
	ClientEnv map[string]string
	Cwd       string
	URL       string
	Headers   map[string]string
	// Disabled servers are listed and not launched; DisabledBy says which
	// switch, in which file, turned the server off.
	Disabled   bool
	DisabledBy string
	// OverriddenBy is set when another entry of the same name wins by the
	// client's precedence; this one is then not launched.
	OverriddenBy string
	// NeedsInput lists values the client asks the user for (VS Code's
	// ${input:id}, Continue's secrets) that cannot be resolved offline.
	NeedsInput []string
	// Unset lists variables the entry refers to that are not set.
	Unset []string
	// Filter is the client's per-tool filter for this server, if any.
	Filter *ToolFilter
	// AlwaysLoad is Claude Code's "alwaysLoad": true: the server's tools
	// load at session start even when tool search defers the others.
	AlwaysLoad bool
	// Problem says why the entry cannot be launched as written (neither a
	// command nor a url, an unknown type or scheme, a malformed field).
	Problem string
	// ProvidedBy, when set, names what provides the server and its launch
	// ("a Zed extension"): the entry only configures it (StatusExtension).
	ProvidedBy string
	// NeedsApproval, when set, says why the server is not launched without
	// the user's approval and how to give it: the server comes from a
	// project's own file and its client would not start it yet. Its
	// variables are then not expanded (see withhold).
	NeedsApproval string
	// Notes are facts about the entry worth telling.
	Notes []string
	// Dir is the folder the client starts a stdio server in: the entry's
	// own cwd (resolved against the project folder) or the project folder.
	// A relative command with a separator (./srv.sh) is resolved against
	// it in Command.
	Dir string

	// The launch as written in the file, before expansion: what Display
	// shows.
	rawCommand string
	rawArgs    []string
	rawURL     string
	// cwd and envFile as written: what the JSON form and notes show.
	rawCwd, rawEnvFile string
	// The values of env and headers before expansion.
	rawEnv, rawHeaders map[string]string
	// envFileAt is where among Notes the note on the envFile goes, which
	// is read (see loadEnvFiles) once it is known whether the server is
	// withheld; envFilePending says it is yet to be read.
	envFileAt      int
	envFilePending bool
}

// Status is the server's state in one word: problem, disabled,
// overridden, extension, needs approval, needs input or enabled.
func (s Server) Status() string {
	switch {
	case s.Problem != "":
		return StatusProblem
	case s.Disabled:
		return StatusDisabled
	case s.OverriddenBy != "":
		return StatusOverridden
	case s.ProvidedBy != "":
		// Nothing of the file is launched: approving it changes nothing.
		return StatusExtension
	case s.NeedsApproval != "":
		return StatusNeedsApproval
	case len(s.NeedsInput) > 0:
		return StatusNeedsInput
	}
	return StatusEnabled
}

// Launchable reports whether the server can be launched or connected to
// as configured: enabled, not overridden, approved, no problem, no
// missing input.
func (s Server) Launchable() bool { return s.Status() == StatusEnabled }

// withhold marks the server as needing approval (why says how to give
// it) and puts back what expanding its variables put into its command,
// arguments, URL, cwd, envFile, env and headers: a value of the user's
// environment never goes to a server the user has not approved, not even
// into the launch spec that is not launched. Its envFile is not read (see
// loadEnvFiles).
func (s *Server) withhold(why string) {
	s.NeedsApproval = why
	s.Command, s.URL = s.rawCommand, s.rawURL
	s.Cwd, s.EnvFile = s.rawCwd, s.rawEnvFile
	s.Args = append([]string(nil), s.rawArgs...)
	// Env as written; the variables of its envFile, a file the project
	// names (a key of ~/.ssh, say), whose names would be shown, are never
	// loaded.
	s.Env = copyMap(s.rawEnv)
	for k := range s.Headers {
		if v, ok := s.rawHeaders[k]; ok {
			s.Headers[k] = v
		}
	}
}

// LaunchEnv is the environment to launch the server with, beyond the
// launcher's own: Env plus ClientEnv (Env wins).
func (s Server) LaunchEnv() map[string]string {
	if len(s.ClientEnv) == 0 {
		return s.Env
	}
	out := make(map[string]string, len(s.Env)+len(s.ClientEnv))
	for k, v := range s.ClientEnv {
		out[k] = v
	}
	for k, v := range s.Env {
		out[k] = v
	}
	return out
}

// EnvNames returns the names of the server's environment, sorted.
func (s Server) EnvNames() []string { return sortedKeys(s.Env) }

// HeaderNames returns the names of the server's headers, sorted.
func (s Server) HeaderNames() []string { return sortedKeys(s.Headers) }

// serverJSON is the JSON form of a Server: names, never values.
type serverJSON struct {
	Name         string      `json:"name"`
	Client       string      `json:"client"`
	Scope        string      `json:"scope,omitempty"`
	Source       string      `json:"source"`
	Transport    string      `json:"transport,omitempty"`
	Launch       string      `json:"launch,omitempty"`
	Status       string      `json:"status"`
	EnvNames     []string    `json:"envNames"`
	EnvFile      string      `json:"envFile,omitempty"`
	ClientEnv    []string    `json:"clientEnvNames"`
	HeaderNames  []string    `json:"headerNames"`
	Cwd          string      `json:"cwd,omitempty"`
	Disabled     bool        `json:"disabled,omitempty"`
	DisabledBy   string      `json:"disabledBy,omitempty"`
	OverriddenBy string      `json:"overriddenBy,omitempty"`
	NeedsInput   []string    `json:"needsInput"`
	Unset        []string    `json:"unset"`
	Filter       *ToolFilter `json:"filter,omitempty"`
	AlwaysLoad   bool        `json:"alwaysLoad,omitempty"`
	Problem      string      `json:"problem,omitempty"`
	ProvidedBy   string      `json:"providedBy,omitempty"`
	Approval     string      `json:"needsApproval,omitempty"`
	Notes        []string    `json:"notes"`
}

// MarshalJSON writes the server without any value of env, headers or
// secrets in args and URLs: names and the redacted Display only.
func (s Server) MarshalJSON() ([]byte, error) {
	approval := ""
	if s.Status() == StatusNeedsApproval {
		approval = s.NeedsApproval
	}
	// Lists are written as arrays, [] when empty: a key is never null.
	list := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	filter := s.Filter
	if filter != nil {
		f := *filter
		f.Include, f.Exclude = list(f.Include), list(f.Exclude)
		filter = &f
	}
	return json.Marshal(serverJSON{
		Name: s.Name, Client: s.Client, Scope: s.Scope, Source: s.Source,
		Transport: s.Transport, Launch: s.Display(), Status: s.Status(),
		EnvNames: list(s.EnvNames()), EnvFile: written(s.rawEnvFile, s.EnvFile), ClientEnv: list(sortedKeys(s.ClientEnv)), HeaderNames: list(s.HeaderNames()),
		Cwd: written(s.rawCwd, s.Cwd), Disabled: s.Disabled, DisabledBy: s.DisabledBy,
		OverriddenBy: s.OverriddenBy, NeedsInput: list(s.NeedsInput), Unset: list(s.Unset),
		Filter: filter, AlwaysLoad: s.AlwaysLoad, Problem: s.Problem, ProvidedBy: s.ProvidedBy, Approval: approval, Notes: list(s.Notes),
	})
}

// written is a field as its config writes it (raw), else as set.
func written(raw, set string) string {
	if raw != "" {
		return raw
	}
	return set
}

// A ToolFilter is a client's per-tool filter for one server: a tool is
// counted when the allow-list (if any) names it and the deny-list does not.
// Every client with both lists on record lets the deny-list win (Codex
// applies disabled_tools after enabled_tools; Gemini CLI's excludeTools
// wins over includeTools).
type ToolFilter struct {
	// Include is the allow-list; it applies only when AllowList is set
	// (an empty allow-list then allows nothing).
	AllowList bool     `json:"allowList,omitempty"`
	Include   []string `json:"include"`
	Exclude   []string `json:"exclude"`
	// Glob says the names are glob patterns ("*" and "?").
	Glob bool `json:"glob,omitempty"`
	// Prefix is put before a tool's name before matching (opencode matches
	// "<server>_<tool>").
	Prefix string `json:"prefix,omitempty"`
	// Source names the keys and the file the filter was read from.
	Source string `json:"source"`
}

// Allows reports whether the filter lets tool through. A nil filter allows
// everything.
func (f *ToolFilter) Allows(tool string) bool {
	if f == nil {
		return true
	}
	name := f.Prefix + tool
	if f.AllowList && !f.match(f.Include, name) {
		return false
	}
	return !f.match(f.Exclude, name)
}

func (f *ToolFilter) match(list []string, name string) bool {
	for _, p := range list {
		if f.Glob {
			if ok, err := path.Match(p, name); err == nil && ok {
				return true
			}
			continue
		}
		if p == name {
			return true
		}
	}
	return false
}

// An entryReader reads mcpServers-style entries ({command, args, env} or
// {url, headers}, with an optional type) for one client and file.
type entryReader struct {
	sys    *System
	client string
	scope  string
	path   string
	// urlKeys are the keys holding a remote URL, first found wins
	// (default "url").
	urlKeys []string
	// types maps accepted values of "type" to transports; nil accepts
	// stdio, http, streamable-http, sse.
	types map[string]string
	// typed says the client reads "type" at all.
	typed bool
	// typeOf, when set, derives the type from the entry's keys instead.
	typeOf func(m map[string]any) string
	// urlNeedsType makes a url without a type a problem (Claude Code).
	urlNeedsType bool
	// defaultURL is the transport of a url without a type.
	defaultURL string
	// disabledKey is the key whose true value disables the entry ("" for
	// none); enabledKey is the key whose false value does.
	disabledKey string
	enabledKey  string
	// envKey and headersKey name those fields (default env, headers).
	envKey     string
	headersKey string
	// expand expands variables in a string value.
	expand func(s string, x *expansion) string
}

// expansion collects what expanding one entry met.
type expansion struct {
	unset []string
	needs []string
}

func (x *expansion) addUnset(name string) {
	for _, n := range x.unset {
		if n == name {
			return
		}
	}
	x.unset = append(x.unset, name)
}

func (x *expansion) addNeeds(name string) {
	for _, n := range x.needs {
		if n == name {
			return
		}
	}
	x.needs = append(x.needs, name)
}

var defaultTypes = map[string]string{
	"stdio": Stdio, "http": HTTP, "streamable-http": HTTP, "sse": SSE,
}

// read reads one entry. It never fails: what is wrong becomes Problem.
func (r *entryReader) read(name string, v any) Server {
	s := Server{Name: name, Client: r.client, Scope: r.scope, Source: r.path}
	m, ok := v.(map[string]any)
	if !ok {
		s.Problem = fmt.Sprintf("the entry is %s, not an object", jsonKind(v))
		return s
	}
	f := fields{m: m, s: &s}
	typ := ""
	switch {
	case r.typeOf != nil:
		typ = r.typeOf(m)
	case r.typed:
		typ = f.str("type")
	}
	s.rawCommand = f.str("command")
	s.rawArgs = f.strs("args")
	envKey, headersKey := r.envKey, r.headersKey
	if envKey == "" {
		envKey = "env"
	}
	if headersKey == "" {
		headersKey = "headers"
	}
	s.Env = f.strMap(envKey)
	s.Headers = f.strMap(headersKey)
	s.Cwd = f.str("cwd")
	s.EnvFile = f.str("envFile")
	urlKeys := r.urlKeys
	if len(urlKeys) == 0 {
		urlKeys = []string{"url"}
	}
	for _, k := range urlKeys {
		if u := f.str(k); u != "" {
			s.rawURL = u
			break
		}
	}
	if r.disabledKey != "" && f.boolean(r.disabledKey) {
		s.Disabled = true
		s.DisabledBy = fmt.Sprintf(`"%s": true in %s`, r.disabledKey, r.path)
	}
	if r.enabledKey != "" {
		if e, ok := m[r.enabledKey].(bool); ok && !e {
			s.Disabled = true
			s.DisabledBy = fmt.Sprintf(`"%s": false in %s`, r.enabledKey, r.path)
		}
	}
	s.AlwaysLoad = f.boolean("alwaysLoad")
	r.finish(&s, typ)
	if f.problem != "" && s.Problem == "" {
		s.Problem = f.problem
	}
	return s
}

// finish expands variables and settles the transport of a server whose raw
// fields are filled in.
func (r *entryReader) finish(s *Server, typ string) {
	var x expansion
	exp := func(v string) string {
		if r.expand == nil {
			return v
		}
		return r.expand(v, &x)
	}
	s.rawEnv, s.rawHeaders = copyMap(s.Env), copyMap(s.Headers)
	s.rawCwd, s.rawEnvFile = s.Cwd, s.EnvFile
	s.Command = exp(s.rawCommand)
	if s.rawArgs != nil {
		s.Args = make([]string, len(s.rawArgs))
		for i, a := range s.rawArgs {
			s.Args[i] = exp(a)
		}
	}
	for k, v := range s.Env {
		s.Env[k] = exp(v)
	}
	for k, v := range s.Headers {
		s.Headers[k] = exp(v)
	}
	s.URL = exp(s.rawURL)
	s.Cwd = exp(s.Cwd)
	s.EnvFile = exp(s.EnvFile)
	if s.EnvFile != "" {
		s.envFilePending, s.envFileAt = true, len(s.Notes)
	}
	sort.Strings(x.unset)
	sort.Strings(x.needs)
	s.Unset, s.NeedsInput = x.unset, x.needs
	r.settleTransport(s, typ)
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// loadEnvFiles reads the envFile of each server of cfg once its consent is
// settled. The envFile of a server that needs approval, or that is not
// started because it is disabled or has a problem (a project's server is
// then never withheld: Codex's untrusted project, disabledMcpjsonServers
// in the project's own settings, an unknown type), is neither read nor
// looked at, and its note says the same whatever the file is: a
// repository's config names any path, and whether the file exists or can
// be read, or which names it holds, is not its to learn.
func (sys *System) loadEnvFiles(cfg *Config) {
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if !s.envFilePending {
			continue
		}
		s.envFilePending = false
		var note string
		switch {
		case s.NeedsApproval != "":
			note = fmt.Sprintf("envFile %s is not read before the server is approved, so the variables it holds are not listed", written(s.rawEnvFile, s.EnvFile))
		case s.Disabled || s.Problem != "" || s.ProvidedBy != "":
			note = fmt.Sprintf("envFile %s is not read for a server that is not started, so the variables it holds are not listed", written(s.rawEnvFile, s.EnvFile))
		default:
			note = sys.loadEnvFile(s)
		}
		if note != "" {
			s.Notes = slices.Insert(s.Notes, min(s.envFileAt, len(s.Notes)), note)
		}
	}
}

// loadEnvFile reads the server's envFile (NAME=value lines) into Env, as
// VS Code and Cursor do; a value set in env itself wins. It is read as a
// config file is (see ReadFileMax): a named pipe, a device, a folder or a
// file over MaxConfigSize is refused unread. It returns the note on a
// file refused or that cannot be read.
func (sys *System) loadEnvFile(s *Server) string {
	path := s.EnvFile
	if !sys.isAbs(path) {
		path = sys.join(sys.Cwd, path)
	}
	data, err := sys.readMax(path, MaxConfigSize)
	if le := (*LimitError)(nil); errors.As(err, &le) {
		why, _, _ := strings.Cut(le.Msg, ": ")
		return fmt.Sprintf("envFile %s is refused (%s), so the variables it holds are missing", written(s.rawEnvFile, s.EnvFile), why)
	}
	if err != nil {
		return fmt.Sprintf("envFile %s cannot be read, so the variables it holds are missing", written(s.rawEnvFile, s.EnvFile))
	}
	for name, value := range parseDotenv(data) {
		if _, set := s.Env[name]; set {
			continue
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[name] = value
	}
	return ""
}

// parseDotenv reads NAME=value lines: blank lines and # comments skipped,
// an optional "export " prefix, and matching quotes around the value
// removed.
func parseDotenv(data []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(stripBOM(data)), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		out[name] = value
	}
	return out
}

func (r *entryReader) settleTransport(s *Server, typ string) {
	types := r.types
	if types == nil {
		types = defaultTypes
	}
	switch {
	case typ != "":
		t, ok := types[typ]
		if !ok {
			s.Problem = fmt.Sprintf("unknown type %q (%s reads %s)", typ, Title(r.client), typeList(types))
			return
		}
		s.Transport = t
	case s.rawCommand != "":
		s.Transport = Stdio
	case s.rawURL != "":
		if r.urlNeedsType {
			s.Problem = fmt.Sprintf(`has a "url" but no "type" (%s reads an entry without "type" as stdio)`, Title(r.client))
			return
		}
		s.Transport = r.defaultURL
		if s.Transport == "" {
			s.Transport = HTTP
		}
	default:
		s.Problem = "has neither a command nor a url"
		return
	}
	switch s.Transport {
	case Stdio:
		if s.rawCommand == "" {
			s.Problem = fmt.Sprintf("type %q needs a command", typ)
		}
	case HTTP, SSE:
		if s.rawURL == "" {
			s.Problem = fmt.Sprintf("type %q needs a url", typ)
			return
		}
		s.Problem = checkURL(s.URL)
	case "ws":
		s.Problem = "WebSocket servers cannot be measured by mcpcost"
	}
}

func typeList(types map[string]string) string {
	keys := sortedKeys(types)
	for i, k := range keys {
		keys[i] = strconv.Quote(k)
	}
	return strings.Join(keys, ", ")
}

// checkURL returns a problem for a URL that cannot be connected to.
func checkURL(raw string) string {
	if strings.Contains(raw, "${") {
		return "" // an unresolved variable: reported as unset or needing input
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "the url cannot be parsed"
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "the url has no host"
		}
		return ""
	case "":
		return "the url has no scheme (http or https)"
	case "unix", "pipe":
		return fmt.Sprintf("%s:// urls (a local socket) are not measured by mcpcost", strings.ToLower(u.Scheme))
	}
	return fmt.Sprintf("the url scheme %q is not http or https", u.Scheme)
}

// fields reads typed values out of an entry, recording the first malformed
// field as a problem.
type fields struct {
	m       map[string]any
	s       *Server
	problem string
}

func (f *fields) bad(format string, a ...any) {
	if f.problem == "" {
		f.problem = fmt.Sprintf(format, a...)
	}
}

func (f *fields) str(key string) string {
	v, ok := f.m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		f.bad("%q is %s, not a string", key, jsonKind(v))
	}
	return s
}

func (f *fields) boolean(key string) bool {
	v, ok := f.m[key]
	if !ok || v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		f.bad("%q is %s, not true or false", key, jsonKind(v))
	}
	return b
}

func (f *fields) strs(key string) []string {
	v, ok := f.m[key]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		f.bad("%q is %s, not an array of strings", key, jsonKind(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			f.bad("%s[%d] is %s, not a string", key, i, jsonKind(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

func (f *fields) strMap(key string) map[string]string {
	v, ok := f.m[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		f.bad("%q is %s, not an object", key, jsonKind(v))
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		switch t := e.(type) {
		case string:
			out[k] = t
		case float64:
			out[k] = strconv.FormatFloat(t, 'f', -1, 64)
		case bool:
			out[k] = strconv.FormatBool(t)
		default:
			f.bad("%s.%s is %s, not a string", key, k, jsonKind(e))
		}
	}
	return out
}

// readServerMap reads every entry of an object of servers, sorted by name.
func (r *entryReader) readServerMap(v any, key string) ([]Server, string) {
	if v == nil {
		return nil, ""
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Sprintf("%q is %s, not an object of servers; it was ignored", key, jsonKind(v))
	}
	out := make([]Server, 0, len(m))
	for _, name := range sortedKeys(m) {
		out = append(out, r.read(name, m[name]))
	}
	return out, ""
}

// overrideByName marks, across configs listed lowest precedence first,
// every server whose name a later (higher) config also defines as
// overridden by that one. Disabled entries still take part: the winning
// entry is used whole, disabled or not.
func overrideByName(configs []Config, describe func(Config) string) {
	for i := range configs {
		for j := range configs[i].Servers {
			s := &configs[i].Servers[j]
			for k := len(configs) - 1; k > i; k-- {
				if hasServer(configs[k], s.Name) {
					s.OverriddenBy = describe(configs[k])
					break
				}
			}
		}
	}
}

func hasServer(c Config, name string) bool {
	for _, s := range c.Servers {
		if s.Name == name {
			return true
		}
	}
	return false
}
