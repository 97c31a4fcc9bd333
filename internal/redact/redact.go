// Package redact removes secrets from everything mcpcost shows or keeps: a
// server's launch (its command line or URL) and whatever the server said
// (its stderr, its error messages, its warnings). It is the one owner of
// the redaction rule and of the marker, [Marker], that stands for a
// removed secret.
//
// There are two ways a secret is found:
//
//   - by value: a [Scrubber] holds the secret values of one launch (env
//     and header values, the values of variables expanded into it, and
//     what the launch rule hides in its arguments and URL) and replaces
//     each, in the forms a server may echo it in (plain, URL-escaped,
//     JSON-escaped): a credential wherever it appears, a plain value
//     ("info", a path) where it stands as a whole word;
//   - by pattern: [Args] and [URL] redact a launch by its shape, and [Text]
//     redacts free text by the same shapes (--token=X, --api-key X,
//     API_KEY=X, Bearer X, scheme://user:PW@host, ?token=X, known token
//     prefixes such as sk- and ghp_).
//
// # The launch rule
//
//   - the command, the first word of a command line (of the launch, of a
//     command in a shell's string, the command env, sudo, npx or docker
//     exec runs; not what follows docker run IMAGE), is kept as written when it is a name or a path (not NAME=VALUE, a URL
//     or words with white space between), even when it looks like a
//     credential, and a launch line never hides it for a value equal to
//     it (see [Launch.DisplayCommand]);
//   - an argument --NAME=VALUE, -NAME=VALUE or NAME:VALUE whose NAME
//     mentions token, key, secret, password, passwd, passphrase, pwd,
//     auth, credential, bearer, cookie, session or signature, or ends in
//     pass or pw as a word of its own (--pass, DB_PASS, DB_PW; not
//     --bypass, nor --pass-environment, where pass is the verb), or is
//     --pat, --license, --pw, --jwt or --sas, keeps NAME and loses VALUE;
//     so does the argument after such a --NAME given alone;
//   - the argument after an AWS access key id (AKIA..., ASIA...), its
//     secret access key, is hidden (the key id looks like a credential);
//   - an argument NAME=VALUE with an environment-style NAME (capitals,
//     digits, underscores, as passed with docker -e) loses VALUE;
//   - setx NAME VALUE (Windows) loses VALUE, and setx /p PASSWORD its
//     password;
//   - after env, NAME=VALUE loses VALUE whatever case NAME is in, the
//     string of env -S STRING (--split-string) is split into words as a
//     command line that goes on with the arguments after it, and the
//     command env runs follows this rule as a command line of its own;
//   - after a MySQL or MariaDB client (mysql, mysqldump, mariadb, mycli,
//     ...), -pVALUE keeps -p and loses VALUE; -p alone, which prompts,
//     keeps the database after it (mycli's -p takes the next argument,
//     which is hidden); so do sshpass -p [PW], mongosh (and mongo) -p
//     [PW], sqlcmd and bcp -P [PW] with the password attached or next,
//     redis-cli -a PW, and curl -u, --user, -U and --proxy-user
//     USER:PW, which keep USER (the password after sshpass -p, sqlcmd
//     and bcp -P, redis-cli -a and curl's options, which always take
//     one, is hidden even when it starts with "-"); each for the command
//     itself, the command a shell's string or env runs, or one a wrapper
//     runs;
//   - the command line a wrapper runs follows this rule as a command
//     line of its own: sudo and doas [OPTIONS] [NAME=VALUE...] CMD, a
//     shell's exec and nohup CMD, npx [OPTIONS] PACKAGE, docker and
//     podman run [OPTIONS] IMAGE CMD (with --entrypoint CMD, run
//     [OPTIONS] IMAGE ARGS runs CMD ARGS) and exec [OPTIONS] CONTAINER
//     CMD, timeout [OPTIONS] DURATION CMD, nice [-n N] CMD, uvx
//     [OPTIONS] PACKAGE, kubectl and oc exec [OPTIONS] POD -- CMD (a
//     command line read in another is read 5 deep at most, one deeper is
//     hidden whole);
//   - the command string a shell runs (sh -c STRING, bash -lc, zsh,
//     dash, /bin/sh; cmd /c STRING; powershell -Command STRING, pwsh -c),
//     wherever the shell stands in the command line, is split into words
//     as its shell would split them (quotes, escapes, bash's $'...' with
//     its escapes read, operators such as && ; | and redirections; not
//     expansions), each command's words follow this rule as arguments
//     would, and the string is shown as written with each secret replaced
//     by the marker; a string that cannot be split (a quote left open) is
//     redacted as free text ([Text]). In it the assignments lose VALUE:
//     NAME=VALUE cmd and export NAME=VALUE; set NAME=VALUE and setx NAME
//     VALUE in cmd; $env:NAME = VALUE, Set-Item env:NAME VALUE and
//     [Environment]::SetEnvironmentVariable(NAME, VALUE) in PowerShell;
//     so do a here-string read into variables (read TOKEN <<< VALUE) or
//     given to a command that names a secret word (--password-stdin <<<
//     VALUE), and what echo and printf print in a command substitution
//     that is a variable's value (TOKEN=$(echo VALUE); TOKEN=$(cat FILE)
//     is shown). The words after powershell -Command are one script,
//     joined with spaces as PowerShell joins them; the argument of
//     -EncodedCommand (-e, -ec, -enc) and -EncodedArguments is hidden
//     whole, not decoded. cmd reads the rest of its command line after
//     /c, an argument that holds a space quoted as a launcher writes it,
//     without the quote that starts it and the last one (always with /s;
//     where cmd may keep them, the secrets of both readings are hidden);
//   - "Bearer X", "Basic X" and "Token X" lose X;
//   - a value that looks like a credential loses it whole: a known token
//     prefix (sk-, ghp_, github_pat_, glpat-, xoxb-, AKIA, AIza, eyJ, ...)
//     or a run of 20 or more letters, digits and -_+=. that mixes letters
//     and digits;
//   - in a URL of any scheme (https://, postgresql://, redis://, ...),
//     whether the whole argument or the value of a flag: the password of
//     the user info (the user name alone when there is no password; a
//     variable reference such as ${env:X} is one name, whose colon starts
//     no password), every
//     query value whose name mentions a secret word or whose value looks
//     like a credential, and every path segment that looks like a
//     credential.
package redact

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Marker stands for a removed secret, in every output.
const Marker = "***"

// MinSecret is the length under which a known value is not scrubbed by
// value: replacing every "1" or "yes" of a server's stderr would hide the
// text, not a secret.
const MinSecret = 3

var (
	secretWord = lazyRegexp(`(?i)(token|key|secret|passw|passphrase|pwd|auth|credential|bearer|cookie|session|signature|(?:^|[^a-z])pass$|(?:^|[^a-z])pw$)`)
	envAssign  = lazyRegexp(`^[A-Z_][A-Z0-9_]*=`)
	authScheme = lazyRegexp(`(?i)\b(bearer|basic|token)\s+\S+`)
	tokenish   = lazyRegexp(`^[A-Za-z0-9_\-+=.]{20,}$`)
	knownToken = lazyRegexp(`^(sk-|sk_|pk_|rk_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xoxb-|xoxp-|xoxa-|xapp-|AKIA|ASIA|AIza|ya29\.|eyJ|npm_|hf_|pat-|lin_api_|sq0)[A-Za-z0-9_\-+/=.]{6,}`)
	hasLetter  = lazyRegexp(`[A-Za-z]`)
	hasDigit   = lazyRegexp(`[0-9]`)
	schemeRE   = lazyRegexp(`^[A-Za-z][A-Za-z0-9+.\-]*://`)
)

// LooksSecret reports whether a value looks like a credential: a known
// token prefix, or 20 or more letters, digits and -_+=. mixing letters and
// digits.
func LooksSecret(v string) bool {
	if knownToken().MatchString(v) {
		return true
	}
	return tokenish().MatchString(v) && hasLetter().MatchString(v) && hasDigit().MatchString(v)
}

// hider replaces secrets by Marker, recording each value it hides.
type hider struct {
	hidden   []string
	commands []string // the command words read (see commandWord)
	depth    int      // how deep in command strings, one in another, it reads
}

func (h *hider) hide(v string) string {
	if h != nil && v != "" && v != Marker {
		h.hidden = append(h.hidden, v)
	}
	return Marker
}

// Args redacts a command line by the launch rule.
func Args(argv []string) []string {
	out, _ := args(argv)
	return out
}

// ArgSecrets returns the values the launch rule hides in argv, so that a
// Scrubber can remove them from what the server prints.
func ArgSecrets(argv []string) []string {
	_, hidden := args(argv)
	return hidden
}

func args(argv []string) ([]string, []string) {
	h := &hider{}
	return h.args(argv), h.hidden
}

func (h *hider) args(argv []string) []string { return h.line(argv, true) }

// line redacts the command line argv; command tells whether argv[0] is
// a command for sure (after docker run IMAGE it may be the image's first
// argument).
func (h *hider) line(argv []string, command bool) []string {
	if len(argv) > 0 && command && commandWord(argv[0]) {
		h.commands = append(h.commands, argv[0])
	}
	if len(argv) > 0 && commandName(argv[0]) == "setx" {
		return h.setx(argv)
	}
	out := make([]string, len(argv))
	end, certain := len(argv), false // argv[end:] is the command line a wrapper runs
	entry := ""                      // the command it runs argv[end:] with (docker run --entrypoint)
	if len(argv) > 0 {
		if k, c, e := wrapped(argv); k > 0 && k < len(argv) {
			end, certain, entry = k, c, e
		}
	}
	var pw []passwordOption
	if len(argv) > 0 {
		pw = passwordOptions[commandName(argv[0])]
	}
	script, d := shellScript(argv[:end])
	hideNext := false
	userNext := false // the next argument is USER:PASSWORD
	anyNext := false  // ... even when it starts with "-"
	opaque := false   // after powershell -EncodedCommand: -EncodedArguments X is encoded too
loop:
	for i, a := range argv[:end] {
		// An AWS access key id's secret key is the argument after it.
		awsKey := awsKeyID().MatchString(a)
		switch {
		case hideNext && (anyNext || !strings.HasPrefix(a, "-")):
			out[i] = h.hide(a)
			hideNext, anyNext = awsKey, false
			continue
		case userNext && (anyNext || !strings.HasPrefix(a, "-")):
			out[i] = h.userPassword(a)
			userNext, anyNext = false, false
			continue
		}
		hideNext, userNext, anyNext = false, false, false
		switch {
		case opaque && encodedFlag(a):
			out[i] = a
			hideNext = true
			continue
		case i == script && d == encoded:
			out[i] = h.hide(a)
			opaque = true
			continue
		case i == script && (d == powerShell || d == cmdExe):
			// The script is every argument left, joined.
			copy(out[i:], h.scripts(argv[i:], d, scriptOpts{slashS: slashS(argv[:i])}))
			return out
		case i == script:
			out[i] = h.script(a, d)
			continue
		case (script < 0 || i < script) && !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && commandName(a) == "env":
			h.env(argv[:end], i, out)
			break loop
		}
		if i > 0 {
			if shown, next, required, ok := h.password(pw, a); ok {
				out[i] = shown
				hideNext, userNext, anyNext = next == hideValue, next == hideUserPassword, required
				continue
			}
		}
		if i == 0 && command && commandWord(a) {
			out[i] = a // a command named like a token is no token
		} else {
			out[i] = h.arg(a)
		}
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && (secretWord().MatchString(a) || secretFlag().MatchString(a)) {
			hideNext = true
		}
		hideNext = hideNext || awsKey
	}
	if end < len(argv) {
		if h.depth >= maxDepth {
			for k := end; k < len(argv); k++ {
				out[k] = h.hide(argv[k])
			}
			return out
		}
		h.depth++
		if entry != "" {
			copy(out[end:], h.line(append([]string{entry}, argv[end:]...), true)[1:])
		} else {
			copy(out[end:], h.line(argv[end:], certain))
		}
		h.depth--
	}
	return out
}

// commandWord reports whether a, the first word of a command line, is
// a command's name or path, as written: not NAME=VALUE, --NAME=VALUE, a
// URL or words with white space between, which are read as an argument
// is.
func commandWord(a string) bool {
	return a != "" && !strings.ContainsAny(a, "= \t\n\r") && !strings.Contains(a, "://")
}

// setx redacts Windows' setx, which sets a variable for good: setx NAME
// VALUE [/M], setx /s HOST /u USER /p PASSWORD NAME VALUE; the value and
// the password are hidden, the name and the switches kept.
func (h *hider) setx(argv []string) []string {
	out := make([]string, len(argv))
	out[0] = argv[0]
	named := false
	for k := 1; k < len(argv); k++ {
		a := argv[k]
		out[k] = a
		switch strings.ToLower(a) {
		case "/s", "/u", "/k", "/f", "/a", "/r", "/d":
			if k+1 < len(argv) {
				k++
				out[k] = argv[k]
			}
		case "/p":
			if k+1 < len(argv) && !strings.HasPrefix(argv[k+1], "/") {
				k++
				out[k] = h.hide(argv[k])
			}
		case "/m", "/x":
		default:
			if named {
				out[k] = h.hide(a)
			} else {
				out[k] = h.arg(a)
				named = true
			}
		}
	}
	return out
}

// commandName is the base name of a command, in lower case and without
// .exe or a package's @VERSION: "mysql" for /usr/bin/mysql and
// C:\MySQL\bin\mysql.exe, "mongosh" for mongosh@2.
func commandName(cmd string) string {
	if i := strings.LastIndexAny(cmd, `/\`); i >= 0 {
		cmd = cmd[i+1:]
	}
	if i := strings.IndexByte(cmd, '@'); i > 0 {
		cmd = cmd[:i] // a package's version: mongosh@2
	}
	cmd = strings.ToLower(cmd)
	return strings.TrimSuffix(cmd, ".exe")
}

// unquote removes the matching quotes around v ('hunter2', "hunter2").
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

func (h *hider) arg(a string) string {
	switch {
	case schemeRE().MatchString(a):
		return h.url(a)
	case strings.HasPrefix(a, "-") && strings.Contains(a, "="):
		name, val, _ := strings.Cut(a, "=")
		if (secretWord().MatchString(name) || secretFlag().MatchString(name)) && val != "" {
			return name + "=" + h.hide(val)
		}
		return name + "=" + h.value(val)
	case envAssign().MatchString(a):
		name, val, _ := strings.Cut(a, "=")
		if val == "" {
			return a
		}
		return name + "=" + h.hide(val)
	}
	if name, val, ok := strings.Cut(a, ":"); ok && !strings.Contains(name, " ") && secretWord().MatchString(name) && strings.TrimSpace(val) != "" && !strings.HasPrefix(val, "//") {
		h.hide(strings.TrimSpace(val))
		h.plain(strings.TrimSpace(val)) // "Bearer X": X alone is a secret too
		return name + ": " + Marker
	}
	return h.value(a)
}

func (h *hider) value(v string) string {
	if schemeRE().MatchString(v) {
		return h.url(v)
	}
	return h.plain(v)
}

func (h *hider) plain(v string) string {
	if authScheme().MatchString(v) {
		v = authScheme().ReplaceAllStringFunc(v, func(m string) string {
			scheme, rest, _ := strings.Cut(m, " ")
			return scheme + " " + h.hide(strings.TrimSpace(rest))
		})
	}
	if LooksSecret(v) {
		return h.hide(v)
	}
	if strings.ContainsAny(v, " \t") {
		words := strings.Fields(v)
		changed := false
		for i, w := range words {
			if LooksSecret(w) {
				words[i], changed = h.hide(w), true
			}
		}
		if changed {
			return strings.Join(words, " ")
		}
	}
	return v
}

// URL removes secrets from a URL of any scheme by the launch rule. A
// string that does not parse as a URL is redacted as a value.
func URL(raw string) string {
	return (&hider{}).url(raw)
}

// URLSecrets returns the values URL hides in raw: the password (or the
// user name), secret query values and credential-looking path segments,
// each as written and decoded.
func URLSecrets(raw string) []string {
	h := &hider{}
	h.url(raw)
	return h.hidden
}

func (h *hider) url(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return h.plain(raw)
	}
	// The URL is redacted as written, part by part, never re-encoded: what
	// is not a secret reads as it did.
	scheme, rest := raw[:i+3], raw[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, rest := rest[:end], rest[end:]
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		info, host := authority[:at], authority[at:]
		if c := userColon(info); c >= 0 {
			authority = info[:c+1] + h.hideEscaped(info[c+1:]) + host
		} else {
			authority = h.hideEscaped(info) + host
		}
	}
	path, query, frag := rest, "", ""
	if j := strings.Index(path, "#"); j >= 0 {
		path, frag = path[:j], path[j:]
	}
	if j := strings.Index(path, "?"); j >= 0 {
		path, query = path[:j], path[j:]
	}
	segs := strings.Split(path, "/")
	for k, seg := range segs {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			dec = seg
		}
		if seg != "" && (LooksSecret(seg) || LooksSecret(dec)) {
			segs[k] = h.hideEscaped(seg)
		}
	}
	if query != "" {
		query = "?" + h.query(query[1:])
	}
	return scheme + authority + strings.Join(segs, "/") + query + frag
}

// userColon is the index of the colon that ends the user name of a URL's
// user info, or -1 when it has none. A colon inside braces is part of a
// variable reference (${env:X}, ${X:-default}, ${input:id}, {env:X}),
// which is a name, not a user name and a password.
func userColon(info string) int {
	depth := 0
	for i := 0; i < len(info); i++ {
		switch info[i] {
		case '{':
			depth++
		case '}':
			depth = max(0, depth-1)
		case ':':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// hideEscaped hides a percent-escaped part of a URL, recording it as
// written and decoded.
func (h *hider) hideEscaped(v string) string {
	if v == "" || v == Marker {
		return v
	}
	if dec, err := url.PathUnescape(v); err == nil && dec != v {
		h.hide(dec)
	}
	return h.hide(v)
}

func (h *hider) query(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		name, val, ok := strings.Cut(p, "=")
		if !ok || val == "" || val == Marker {
			continue
		}
		dec, err := url.QueryUnescape(val)
		if err != nil {
			dec = val
		}
		if secretWord().MatchString(name) || LooksSecret(dec) {
			h.hide(dec)
			parts[i] = name + "=" + h.hide(val)
		}
	}
	return strings.Join(parts, "&")
}

// Endpoint shows where a URL points and nothing it carries: scheme, host
// and path, "?…" for a query; no user info, no fragment. A string that is
// not a URL with a host reads "(invalid URL)".
func Endpoint(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(invalid URL)"
	}
	out := u.Scheme + "://" + u.Host + u.EscapedPath()
	if u.RawQuery != "" {
		out += "?…"
	}
	return out
}

// Origin shows a URL by scheme and host only, or "" when it has neither.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Launch is what a server is launched with or connected to. Its values
// are secrets.
type Launch struct {
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Known are other secret values of the launch, such as the values of
	// variables expanded into its arguments or URL.
	Known []string
	// Placeholders are values of Env or Headers that are no secrets: the
	// made-up values a launcher gives (a sweep's dummy values, its fresh
	// HOME).
	Placeholders []string
}

// Secrets returns the secret values of the launch: every env and header
// value (and the token after a header's scheme, as in "Bearer X"), Known,
// and what the launch rule hides in the command line and the URL; not the
// Placeholders.
func (l Launch) Secrets() []string {
	named := l.NamedSecrets()
	out := make([]string, len(named))
	for i, n := range named {
		out[i] = n.Value
	}
	return out
}

// Named is a secret value of a launch with what it is: the name of its
// env variable ("API_KEY"), "header NAME", "an argument", "the URL" or
// "a variable expanded into the launch".
type Named struct{ Name, Value string }

// expanded is the Name of the value of a variable expanded into a launch.
const expanded = "a variable expanded into the launch"

// Credential reports whether the value is a credential by what it is or
// how it looks: a secret the launch rule found in an argument or the URL,
// the value of an env variable or header whose name mentions a secret word
// (API_KEY, header Authorization), or a value that looks like one
// ([LooksSecret]). Every value of a launch is scrubbed from what mcpcost
// shows, a credential wherever it is and a plain value ("info", "true", a
// path) where it stands as a whole word (see [Scrubber]); only credentials
// are taken out of what a server says its tools are, where replacing a
// plain value would change the count of text the model reads and holds no
// secret.
func (n Named) Credential() bool {
	switch {
	case n.Name == "an argument" || n.Name == "the URL":
		return true
	case secretWord().MatchString(n.Name) && n.Name != expanded:
		return true
	}
	return LooksSecret(n.Value)
}

// NamedSecrets is Secrets with what each value is, each value once (by
// the first of: env variables and headers sorted by name, the arguments,
// the URL, Known).
func (l Launch) NamedSecrets() []Named {
	var hidden []string
	if l.Command != "" || len(l.Args) > 0 {
		hidden = ArgSecrets(append([]string{l.Command}, l.Args...))
	}
	return l.namedSecrets(hidden)
}

// namedSecrets is NamedSecrets, given what the launch rule hides in the
// command line.
func (l Launch) namedSecrets(argSecrets []string) []Named {
	skip := map[string]bool{}
	for _, p := range l.Placeholders {
		skip[p] = true
	}
	var out []Named
	add := func(name, v string) {
		if !skip[v] {
			skip[v] = true // a value is named once, by its first place
			out = append(out, Named{name, v})
		}
	}
	for _, k := range sortedKeys(l.Env) {
		add(k, l.Env[k])
	}
	for _, k := range sortedKeys(l.Headers) {
		v := l.Headers[k]
		add("header "+k, v)
		if _, tok, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
			add("header "+k, strings.TrimSpace(tok))
		}
	}
	for _, v := range argSecrets {
		add("an argument", v)
	}
	if l.URL != "" {
		for _, v := range URLSecrets(l.URL) {
			add("the URL", v)
		}
	}
	for _, v := range l.Known {
		add(expanded, v)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Scrubber returns a Scrubber for the launch's secrets. Credentials are removed wherever they are, plain values where they stand
// as whole words.
func (l Launch) Scrubber() *Scrubber { return scrubberOf(l.NamedSecrets()) }

// scrubberOf returns a Scrubber for named: each credential removed
// wherever it is, each plain value where it stands as a whole word.
func scrubberOf(named []Named) *Scrubber {
	var values, words []string
	for _, n := range named {
		if n.Credential() {
			values = append(values, n.Value)
		} else {
			words = append(words, n.Value)
		}
	}
	s := &Scrubber{}
	s.add(values, false)
	s.add(words, true)
	s.build()
	return s
}

// Display shows the launch without its secrets: its URL when it has one,
// else its command line (see DisplayCommand).
func (l Launch) Display() string {
	if l.URL != "" && l.Command == "" {
		return l.DisplayURL(l.URL)
	}
	// The command line is read once, for what it shows and what it hides.
	h := &hider{}
	red := h.args(append([]string{l.Command}, l.Args...))
	return show(red, l.namedSecrets(h.hidden), h.commands)
}

// DisplayCommand shows argv, the launch's command line as launched or as
// written in its config, by the launch rule, each argument also without
// the launch's secret values, and quoted when it is empty or holds white
// space or quotes. The values hidden there are those of env variables
// and headers whose name mentions a secret word or that look like
// credentials (not LOG_LEVEL=info, NODE=node nor SHELL=/bin/sh: they hide
// nothing), what the launch rule hides in the launch, and the values of
// variables expanded into it; never one equal to a command word (argv's
// first, a command's in a shell's string, the command env runs), which is
// shown anyway. A command word standing alone is shown as written, even
// when it looks like a token (hf_mcp_server); in a shell's string, such a
// word is still hidden by its shape.
func (l Launch) DisplayCommand(argv []string) string {
	h := &hider{}
	red := h.args(argv)
	return show(red, l.NamedSecrets(), h.commands)
}

// DisplayURL shows raw, the launch's URL as connected to or as written in
// its config, by the launch rule, without the secret values
// DisplayCommand hides.
func (l Launch) DisplayURL(raw string) string {
	return lineScrubber(l.NamedSecrets(), nil).String(URL(raw))
}

// lineScrubber is the Scrubber of what a launch line hides of named: the
// credentials and the values of variables expanded into the launch, but
// a command word.
func lineScrubber(named []Named, command map[string]bool) *Scrubber {
	kept := named[:0:0]
	for _, n := range named {
		if (n.Credential() || n.Name == expanded) && !command[n.Value] {
			kept = append(kept, n)
		}
	}
	return scrubberOf(kept)
}

// show shows the command line red, redacted by the launch rule with the
// command words commands, without the values of named that lineScrubber keeps:
// each argument scrubbed, but a command word standing alone (the first,
// the command env runs), and quoted when it is empty or holds white space
// or quotes.
func show(red []string, named []Named, commands []string) string {
	command := make(map[string]bool, len(commands))
	for _, c := range commands {
		command[c] = true
	}
	sc := lineScrubber(named, command)
	for i, a := range red {
		if !commandWord(a) || i > 0 && !command[a] {
			a = sc.String(a)
		}
		if a == "" || strings.ContainsAny(a, " \t\n\"'") {
			a = strconv.Quote(a)
		}
		red[i] = a
	}
	return strings.Join(red, " ")
}

// DSN removes the secrets from a database's connection string, in either
// of the forms libpq (and pgx) read: a URL (postgres://user:PW@host/db?…,
// whose password and secret query values are hidden, as [URL] hides them,
// while its user, hosts and database name, which are not secrets, are
// kept) or keyword=value pairs separated by spaces, whose
// values may be single-quoted with backslash escapes (host=h
// password='a b'), where the value of every keyword that mentions a secret
// word (password, sslpassword, sslkey, …) is hidden. What is not a secret
// reads as it was written.
func DSN(dsn string) string { return (&hider{}).dsn(dsn) }

// DSNSecrets returns the values DSN hides in dsn.
func DSNSecrets(dsn string) []string {
	h := &hider{}
	h.dsn(dsn)
	return h.hidden
}

func (h *hider) dsn(dsn string) string {
	if schemeRE().MatchString(dsn) {
		return h.dsnURL(dsn)
	}
	var b strings.Builder
	i := 0
	for i < len(dsn) {
		// Spaces between pairs, kept as written.
		j := i
		for j < len(dsn) && isDSNSpace(dsn[j]) {
			j++
		}
		b.WriteString(dsn[i:j])
		i = j
		if i == len(dsn) {
			break
		}
		// The keyword, to "=" (spaces around it are allowed).
		eq := strings.IndexByte(dsn[i:], '=')
		if eq < 0 {
			// Not a pair: the rest is redacted as free text.
			b.WriteString(Text(dsn[i:]))
			break
		}
		key := strings.TrimSpace(dsn[i : i+eq])
		b.WriteString(dsn[i : i+eq+1])
		i += eq + 1
		for i < len(dsn) && isDSNSpace(dsn[i]) {
			b.WriteByte(dsn[i])
			i++
		}
		// The value: quoted (to the closing quote, \' and \\ escaped) or
		// to the next space.
		start := i
		var val strings.Builder
		if i < len(dsn) && dsn[i] == '\'' {
			i++
			for i < len(dsn) && dsn[i] != '\'' {
				if dsn[i] == '\\' && i+1 < len(dsn) {
					i++
				}
				val.WriteByte(dsn[i])
				i++
			}
			if i < len(dsn) {
				i++ // the closing quote
			}
		} else {
			for i < len(dsn) && !isDSNSpace(dsn[i]) {
				if dsn[i] == '\\' && i+1 < len(dsn) {
					i++
				}
				val.WriteByte(dsn[i])
				i++
			}
		}
		raw := dsn[start:i]
		if raw != "" && (secretWord().MatchString(key) || LooksSecret(val.String())) {
			if val.Len() > 0 {
				h.hide(val.String())
			}
			if raw != val.String() {
				h.hide(raw)
			}
			raw = Marker
		}
		b.WriteString(raw)
	}
	return b.String()
}

// dsnURL redacts a database URL: the password of its user info and its
// secret query values. As libpq reads it, the user info ends at an "@"
// before the first "/", so that a "#" or "?" in the password is the
// password's; failing that, at the last "@" before the query (a "/" in a
// password, which libpq cannot read, still hides the password meant).
func (h *hider) dsnURL(raw string) string {
	i := strings.Index(raw, "://")
	scheme, rest := raw[:i+3], raw[i+3:]
	end := strings.IndexByte(rest, '/')
	if end < 0 {
		end = len(rest)
	}
	if !strings.Contains(rest[:end], "@") {
		if q := strings.IndexAny(rest, "?#"); q >= 0 {
			end = q
		} else {
			end = len(rest)
		}
		if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
			end = at + 1 + strings.IndexAny(rest[at+1:]+"/", "/")
		} else {
			end = min(end, strings.IndexAny(rest+"/", "/?#"))
		}
	}
	authority, rest := rest[:end], rest[end:]
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		if user, pw, ok := strings.Cut(authority[:at], ":"); ok {
			authority = user + ":" + h.hideEscaped(pw) + authority[at:]
		}
	}
	path, query, frag := rest, "", ""
	if j := strings.Index(path, "#"); j >= 0 {
		path, frag = path[:j], path[j:]
	}
	if j := strings.Index(path, "?"); j >= 0 {
		path, query = path[:j], "?"+h.query(path[j+1:])
	}
	return scheme + authority + path + query + frag
}

func isDSNSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
