// Package sweep is the data of a batch sweep: the servers file (in
// mcp-context-cost's servers.yaml shape), the shard a run takes, the
// history, the leaderboard's rows and the harness guard. It launches
// nothing: internal/app measures, internal/render draws.
package sweep

import (
	"fmt"
	"hash/fnv"
	"net/url"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/redact"
)

// Categories are mcp-context-cost's categories of servers.
var Categories = []string{"official-reference", "vendor-official", "community"}

// MaxNameLen is the longest server name: it names files and URLs.
const MaxNameLen = 100

// MaxTimeoutSeconds caps a server's timeoutSeconds (an hour).
const MaxTimeoutSeconds = 3600

// Server is one entry of a sweep file.
type Server struct {
	Name string
	// Command is the program and Args its arguments; a command given as
	// one string is split on blanks, with single and double quotes.
	Command string
	Args    []string
	// CommandLine is the command line as every output shows it: Command
	// and Args by the launch rule of internal/redact (--token=***), the
	// envValues scrubbed from it, as measure shows a launch. Nothing
	// shows Command and Args themselves.
	CommandLine string
	Package     string
	// Env names variables given dummy values; EnvValues gives some of
	// them (or others) their value.
	Env       []string
	EnvValues map[string]string
	Category  string
	Repo      string
	Metric    string
	// MetricSource says where Metric comes from.
	MetricSource   string
	TimeoutSeconds int
	// Remote marks an entry behind a sign-in wall that is listed, not
	// measured (mcp-context-cost's remote: true without a url).
	Remote bool
	// URL is a remote server measured directly; Headers names the headers
	// it gets (dummy values, like Env); Transport is "", "http" or "sse".
	URL       string
	Headers   []string
	Transport string
}

// Measurable reports whether the entry is launched or connected to.
func (s Server) Measurable() bool { return s.Command != "" || s.URL != "" }

// DummyValue is the value an env name or header without envValues gets.
const DummyValue = "dummy"

// Error is a problem with a sweep file, at an entry.
type Error struct {
	Path  string
	Index int    // 1-based entry, 0 for the file
	Name  string // the entry's name when it is safe to show
	Msg   string
	Fix   string // what to do about it; Hint words one when empty
}

// Hint says what to do about the problem.
func (e *Error) Hint() string {
	switch {
	case e.Fix != "":
		return e.Fix
	case e.Index == 0:
		return "the file holds a top-level servers: list of entries, each with a name and a command or url ('mcpcost help sweep' shows one)"
	}
	return fmt.Sprintf("fix servers[%d]: each entry has a name and a command or url ('mcpcost help sweep' lists the keys)", e.Index)
}

func (e *Error) Error() string {
	switch {
	case e.Index == 0:
		return e.Path + ": " + e.Msg
	case e.Name != "":
		return fmt.Sprintf("%s: servers[%d] (%s): %s", e.Path, e.Index, e.Name, e.Msg)
	}
	return fmt.Sprintf("%s: servers[%d]: %s", e.Path, e.Index, e.Msg)
}

// CheckName says why name cannot name a server's files, or "" when it can:
// it must be 1 to MaxNameLen characters of letters, digits, '.', '_' and
// '-', start with a letter or digit, hold no "..", and be a file name on
// Windows too: not ending in '.', and not a device name (CON, PRN, AUX,
// NUL, COM0 to COM9, LPT0 to LPT9, in any case, with any extension).
func CheckName(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case len(name) > MaxNameLen:
		return fmt.Sprintf("the name is longer than %d bytes", MaxNameLen)
	case strings.Contains(name, ".."):
		return "the name holds \"..\""
	case !utf8.ValidString(name):
		return "the name is not UTF-8"
	}
	for i, r := range name {
		switch {
		case r == '/' || r == '\\':
			return "the name holds a path separator"
		case unicode.IsControl(r) || r > unicode.MaxASCII:
			return fmt.Sprintf("the name holds %q: only letters, digits, '.', '_' and '-'", r)
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case (r == '.' || r == '_' || r == '-') && i > 0:
		default:
			return fmt.Sprintf("the name holds %q: only letters, digits, '.', '_' and '-', starting with a letter or digit", r)
		}
	}
	if strings.HasSuffix(name, ".") {
		return fmt.Sprintf("the name %q ends in '.', which Windows drops from a file name", name)
	}
	if dev := windowsDevice(name); dev != "" {
		return fmt.Sprintf("the name %q is a device name on Windows (%s): no file can have it", name, dev)
	}
	return ""
}

// windowsDevice is the device name that name is on Windows, upper case,
// or "": its part before the first '.' is CON, PRN, AUX, NUL, COM0 to
// COM9 or LPT0 to LPT9, in any case.
func windowsDevice(name string) string {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(base)
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return base
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '0' && base[3] <= '9' {
		return base
	}
	return ""
}

var envName = func(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Parse reads a sweep file: a top-level servers: list. path names the
// file in errors.
func Parse(data []byte, path string) ([]Server, error) {
	doc, err := clients.DecodeYAML(data, path)
	if err != nil {
		return nil, err
	}
	raw, ok := doc["servers"]
	if !ok {
		return nil, &Error{Path: path, Msg: "no top-level servers: list"}
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, &Error{Path: path, Msg: "servers: is not a list"}
	}
	if len(list) > clients.MaxServers {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("more than %d servers", clients.MaxServers)}
	}
	out := make([]Server, 0, len(list))
	seen := map[string]int{}
	for i, item := range list {
		s, err := entry(item, path, i+1)
		if err != nil {
			return nil, err
		}
		key := strings.ToLower(s.Name)
		if j, dup := seen[key]; dup {
			return nil, &Error{Path: path, Index: i + 1, Name: s.Name, Msg: fmt.Sprintf("the name is servers[%d]'s too (names are compared without case: they name files)", j),
				Fix: "give each server a name of its own"}
		}
		seen[key] = i + 1
		out = append(out, s)
	}
	return out, nil
}

func entry(item any, path string, idx int) (Server, error) {
	var s Server
	m, ok := item.(map[string]any)
	if !ok {
		return s, &Error{Path: path, Index: idx, Msg: "not a mapping"}
	}
	bad := func(format string, a ...any) error {
		return &Error{Path: path, Index: idx, Name: s.Name, Msg: fmt.Sprintf(format, a...)}
	}
	fix := func(err error, hint string) error {
		err.(*Error).Fix = hint
		return err
	}
	str := func(key string) (string, error) {
		v, ok := m[key]
		if !ok || v == nil {
			return "", nil
		}
		t, ok := v.(string)
		if !ok {
			return "", bad("%s is not a string", key)
		}
		if !utf8.ValidString(t) {
			return "", bad("%s is not UTF-8", key)
		}
		return t, nil
	}
	strs := func(key string) ([]string, error) {
		v, ok := m[key]
		if !ok || v == nil {
			return nil, nil
		}
		l, ok := v.([]any)
		if !ok {
			return nil, bad("%s is not a list", key)
		}
		out := make([]string, 0, len(l))
		for _, e := range l {
			t, ok := e.(string)
			if !ok {
				return nil, bad("%s holds a value that is not a string", key)
			}
			out = append(out, t)
		}
		return out, nil
	}
	name, err := str("name")
	if err != nil {
		return s, err
	}
	if why := CheckName(name); why != "" {
		return s, fix(bad("%s", why), fmt.Sprintf("rename the server: 1 to %d letters, digits, '.', '_' or '-', starting with a letter or digit, not ending in '.' and not a Windows device name such as NUL or COM1 (it names its files)", MaxNameLen))
	}
	s.Name = name
	for _, f := range []struct {
		key string
		dst *string
	}{{"package", &s.Package}, {"category", &s.Category}, {"repo", &s.Repo}, {"metric", &s.Metric}, {"metricSource", &s.MetricSource}, {"url", &s.URL}, {"transport", &s.Transport}} {
		if *f.dst, err = str(f.key); err != nil {
			return s, err
		}
	}
	if s.Category != "" && !contains(Categories, s.Category) {
		return s, bad("category %q is not one of %s", s.Category, strings.Join(Categories, ", "))
	}
	switch s.Transport {
	case "", "http", "sse":
	default:
		return s, bad("transport must be http or sse")
	}
	switch c := m["command"].(type) {
	case nil:
	case string:
		parts, err := splitCommand(c)
		if err != nil {
			return s, fix(bad("command: %v", err), "close the quote, or give the command as a list (command: [prog, arg]) or its arguments under args:")
		}
		if len(parts) > 0 {
			s.Command, s.Args = parts[0], parts[1:]
		}
	case []any:
		for _, e := range c {
			t, ok := e.(string)
			if !ok {
				return s, bad("command holds a value that is not a string")
			}
			s.Args = append(s.Args, t)
		}
		if len(s.Args) > 0 {
			s.Command, s.Args = s.Args[0], s.Args[1:]
		}
	default:
		return s, bad("command is not a string or a list")
	}
	args, err := strs("args")
	if err != nil {
		return s, err
	}
	if len(args) > 0 && s.Command == "" {
		return s, bad("args without a command")
	}
	s.Args = append(s.Args, args...)
	if s.Env, err = strs("env"); err != nil {
		return s, err
	}
	for _, n := range s.Env {
		if !envName(n) {
			return s, bad("env holds %q, not a variable name", n)
		}
	}
	if s.Headers, err = strs("headers"); err != nil {
		return s, err
	}
	for _, h := range s.Headers {
		if !headerName(h) {
			return s, bad("headers holds %q, not a header name", h)
		}
	}
	switch v := m["envValues"].(type) {
	case nil:
	case map[string]any:
		s.EnvValues = map[string]string{}
		for k, e := range v {
			t, ok := e.(string)
			if !envName(k) || !ok {
				return s, bad("envValues must map variable names to strings")
			}
			s.EnvValues[k] = t
		}
	default:
		return s, bad("envValues is not a mapping")
	}
	if s.Command != "" {
		s.CommandLine = redact.Launch{Command: s.Command, Args: s.Args, Env: s.EnvValues}.Display()
	}
	switch v := m["timeoutSeconds"].(type) {
	case nil:
	case float64:
		if v != float64(int(v)) || v < 1 || v > MaxTimeoutSeconds {
			return s, fix(bad("timeoutSeconds must be a whole number from 1 to %d", MaxTimeoutSeconds), "write timeoutSeconds as a whole number of seconds, such as 120, or leave it out for the default")
		}
		s.TimeoutSeconds = int(v)
	default:
		return s, fix(bad("timeoutSeconds is not a number"), "write timeoutSeconds as a whole number of seconds, such as 120, without quotes")
	}
	switch v := m["remote"].(type) {
	case nil:
	case bool:
		s.Remote = v
	default:
		return s, bad("remote is not true or false")
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, bad("url is not an http(s) URL")
		}
		if u.User != nil {
			return s, fix(bad("url holds a user or password"), "drop the user and password from the url: name the header that carries the credential under headers: and give its value in envValues: or the environment")
		}
		if s.Command != "" {
			return s, bad("both command and url: give one")
		}
	}
	if s.Command == "" && s.URL == "" && !s.Remote {
		return s, bad("no command or url (and not remote: true)")
	}
	if s.Remote && s.URL == "" {
		// Listed behind its wall; a command is mcp-context-cost's bridge
		// and is not run.
		s.Command, s.Args = "", nil
	}
	return s, nil
}

func headerName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+.^_`|~-", r)) {
			return false
		}
	}
	return true
}

func contains(xs []string, x string) bool {
	for _, e := range xs {
		if e == x {
			return true
		}
	}
	return false
}

// splitCommand splits a command line on blanks, with '...' and "..."
// quoting (no shell: nothing is expanded).
func splitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("an unclosed %c quote", quote)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// Only keeps the servers named in names, in the file's order; it returns
// the names that are not in the file.
func Only(servers []Server, names []string) (kept []Server, unknown []string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, s := range servers {
		if want[s.Name] {
			kept = append(kept, s)
			delete(want, s.Name)
		}
	}
	for n := range want {
		unknown = append(unknown, n)
	}
	sort.Strings(unknown)
	return kept, unknown
}

// ShardOf is the shard (0 to n-1) a server's name falls in: FNV-1a of
// the name, modulo n, so that a server keeps its shard when others are
// added or removed.
func ShardOf(name string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(n))
}

// Shard keeps the servers of shard k of n, in the file's order.
func Shard(servers []Server, n, k int) []Server {
	var out []Server
	for _, s := range servers {
		if ShardOf(s.Name, n) == k {
			out = append(out, s)
		}
	}
	return out
}
