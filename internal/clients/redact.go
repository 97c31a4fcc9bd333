package clients

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/mcpcost/mcpcost/internal/redact"
)

// Display returns the server's launch as written in its config (before
// variable expansion, so ${VAR} shows as ${VAR}), with secrets removed by
// the rule of package redact (redact.Launch.DisplayCommand): the command
// line of a stdio server, the URL of a remote one.
func (s Server) Display() string {
	l := s.launch()
	if s.Transport == HTTP || s.Transport == SSE || (s.Transport == "" && s.rawCommand == "" && s.Command == "" && (s.rawURL != "" || s.URL != "")) {
		u := s.rawURL
		if u == "" {
			u = s.URL
		}
		return l.DisplayURL(u)
	}
	cmd, args := s.rawCommand, s.rawArgs
	if cmd == "" && args == nil {
		cmd, args = s.Command, s.Args
	}
	if cmd == "" && len(args) == 0 {
		return ""
	}
	return l.DisplayCommand(append([]string{cmd}, args...))
}

// Secrets returns the secret values of the server's launch: the values of
// its env and headers, the values of the variables expanded into its
// command, arguments, URL, cwd and envFile (the predefined paths of VS Code and Cursor
// aside), and what the launch rule hides in them, as written and as
// expanded. Launchers give them to a redact.Scrubber, so that a server
// that repeats one in its stderr or an error message shows the marker.
func (s Server) Secrets() []string { return s.launch().Secrets() }

// launch is the server's launch, with Known the values of the variables
// expanded into it and what the launch rule hides in it as written.
func (s Server) launch() redact.Launch {
	var known []string
	add := func(raw, expanded string) {
		known = append(known, expandedValues(raw, expanded)...)
	}
	add(s.rawCommand, s.Command)
	for i, a := range s.rawArgs {
		if i < len(s.Args) {
			add(a, s.Args[i])
		}
	}
	add(s.rawURL, s.URL)
	add(s.rawCwd, s.Cwd)
	add(s.rawEnvFile, s.EnvFile)
	// As written, the secrets of the launch rule; a bare ${VAR} is not one
	// (its value is, above).
	var written []string
	if s.rawCommand != "" || len(s.rawArgs) > 0 {
		written = append(written, redact.ArgSecrets(append([]string{s.rawCommand}, s.rawArgs...))...)
	}
	if s.rawURL != "" {
		written = append(written, redact.URLSecrets(s.rawURL)...)
	}
	for _, v := range written {
		if template().ReplaceAllString(v, "") != "" {
			known = append(known, v)
		}
	}
	return redact.Launch{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers, Known: known}
}

// template matches a variable reference of any client's syntax: ${VAR},
// ${VAR:-default}, ${env:VAR}, ${input:id}, $VAR, %VAR%, and opencode's
// {env:VAR} and {file:path}.
var template = lazyRegexp(`\$\{[^{}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\{(?:env|file):[^{}]*\}`)

// predefined are the editor variables that expand to paths, not secrets.
var predefined = map[string]bool{
	"${userHome}": true, "${workspaceFolder}": true, "${workspaceRoot}": true,
	"${workspaceFolderBasename}": true, "${pathSeparator}": true, "${/}": true,
}

// expandedValues returns what the variables of raw expanded to in
// expanded: the literal text between the references is matched in order,
// and what lies between is a variable's value, unless raw itself holds it. When the literals cannot be
// matched, the whole part that differs is returned.
func expandedValues(raw, expanded string) []string {
	if raw == expanded || !strings.ContainsAny(raw, "$%{") {
		return nil
	}
	refs := template().FindAllStringIndex(raw, -1)
	if len(refs) == 0 {
		return nil
	}
	var out []string
	lit := func(k int) string { // the literal after reference k (-1: before the first)
		from := 0
		if k >= 0 {
			from = refs[k][1]
		}
		to := len(raw)
		if k+1 < len(refs) {
			to = refs[k+1][0]
		}
		return raw[from:to]
	}
	pos := 0
	if first := lit(-1); strings.HasPrefix(expanded, first) {
		pos = len(first)
	} else {
		return []string{differing(raw, expanded)}
	}
	for k := range refs {
		next := lit(k)
		var end int
		switch {
		case k == len(refs)-1:
			if !strings.HasSuffix(expanded[pos:], next) {
				return append(out, differing(raw, expanded))
			}
			end = len(expanded) - len(next)
		case next == "":
			continue // two references side by side: one value for both
		default:
			i := strings.Index(expanded[pos:], next)
			if i < 0 {
				return append(out, differing(raw, expanded))
			}
			end = pos + i
		}
		ref := raw[refs[k][0]:refs[k][1]]
		// A default written in the file (${VAR:-default}) is no secret.
		if v := expanded[pos:end]; v != ref && !predefined[ref] && !strings.Contains(raw, v) {
			out = append(out, v)
		}
		pos = end + len(next)
	}
	return out
}

// differing is the middle of expanded that differs from raw.
func differing(raw, expanded string) string {
	p := 0
	for p < len(raw) && p < len(expanded) && raw[p] == expanded[p] {
		p++
	}
	q := 0
	for q < len(raw)-p && q < len(expanded)-p && raw[len(raw)-1-q] == expanded[len(expanded)-1-q] {
		q++
	}
	return expanded[p : len(expanded)-q]
}

// LaunchKey returns a stable key for the server's launch spec (transport,
// command, args, env, env file, client env, cwd, the folder a stdio server
// starts in, url, headers: the expanded values, secrets included), as
// HMAC-SHA256 under key, so that two entries that launch the same thing
// share a key and the key reveals no value. The start folder is part of
// the launch: `go run .` or `node index.js` in two projects are two
// servers. The caller supplies key (a per-install secret).
func (s Server) LaunchKey(key []byte) string {
	dir := ""
	if s.Transport == Stdio {
		dir = s.Dir
	}
	spec := struct {
		Transport string            `json:"t"`
		Command   string            `json:"c"`
		Args      []string          `json:"a"`
		Env       map[string]string `json:"e"`
		EnvFile   string            `json:"f"`
		ClientEnv map[string]string `json:"ce"`
		Cwd       string            `json:"d"`
		URL       string            `json:"u"`
		Headers   map[string]string `json:"h"`
		Dir       string            `json:"s,omitempty"`
	}{s.Transport, s.Command, s.Args, s.Env, s.EnvFile, s.ClientEnv, s.Cwd, s.URL, s.Headers, dir}
	b, _ := json.Marshal(spec) // map keys are sorted by encoding/json
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	return hex.EncodeToString(mac.Sum(nil))
}
