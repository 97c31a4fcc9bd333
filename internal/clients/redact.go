package clients

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Redacted replaces a secret in a display form.
const Redacted = "***"

// Display returns the server's launch as written in its config (before
// variable expansion, so ${VAR} shows as ${VAR}), with secrets removed:
// the command line of a stdio server, the URL of a remote one.
//
// The redaction rule:
//   - an argument --NAME=VALUE, -NAME=VALUE or NAME:VALUE whose NAME
//     mentions token, key, secret, password, passwd, pwd, auth, credential,
//     bearer, cookie, session or signature keeps NAME and loses VALUE; so
//     does the argument after such a --NAME given alone;
//   - an argument NAME=VALUE with an environment-style NAME (capitals,
//     digits, underscores, as passed with docker -e) loses VALUE;
//   - "Bearer X", "Basic X" and "Token X" lose X;
//   - a value that looks like a credential loses it whole: a known token
//     prefix (sk-, ghp_, github_pat_, glpat-, xoxb-, AKIA, AIza, eyJ, ...)
//     or a run of 20 or more letters, digits and -_+=. that mixes letters
//     and digits;
//   - in a URL: the user and password, every query value whose name
//     mentions a secret word or whose value looks like a credential, and
//     every path segment that looks like a credential;
//   - any literal value of the server's env or headers (6 characters or
//     more) wherever it appears.
//
// Redacted parts read "***".
func (s Server) Display() string {
	secrets := s.secretValues()
	if s.Transport == HTTP || s.Transport == SSE || (s.Transport == "" && s.rawCommand == "" && s.Command == "" && (s.rawURL != "" || s.URL != "")) {
		u := s.rawURL
		if u == "" {
			u = s.URL
		}
		return scrub(RedactURL(u), secrets)
	}
	cmd, args := s.rawCommand, s.rawArgs
	if cmd == "" && args == nil {
		cmd, args = s.Command, s.Args
	}
	if cmd == "" && len(args) == 0 {
		return ""
	}
	red := RedactArgs(append([]string{cmd}, args...))
	parts := make([]string, len(red))
	for i, a := range red {
		parts[i] = quoteArg(scrub(a, secrets))
	}
	return strings.Join(parts, " ")
}

func (s Server) secretValues() []string {
	var out []string
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for _, v := range m {
			if len(v) >= 6 {
				out = append(out, v)
			}
		}
	}
	return out
}

func scrub(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	return s
}

func quoteArg(a string) string {
	if a == "" || strings.ContainsAny(a, " \t\n\"'") {
		return strconv.Quote(a)
	}
	return a
}

var (
	secretWord = regexp.MustCompile(`(?i)(token|key|secret|passw|pwd|auth|credential|bearer|cookie|session|signature)`)
	envAssign  = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
	authScheme = regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+\S+`)
	tokenish   = regexp.MustCompile(`^[A-Za-z0-9_\-+=.]{20,}$`)
	knownToken = regexp.MustCompile(`^(sk-|sk_|pk_|rk_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xoxb-|xoxp-|xoxa-|xapp-|AKIA|ASIA|AIza|ya29\.|eyJ|npm_|hf_|pat-|lin_api_|sq0)[A-Za-z0-9_\-+/=.]{6,}`)
	hasLetter  = regexp.MustCompile(`[A-Za-z]`)
	hasDigit   = regexp.MustCompile(`[0-9]`)
)

// looksSecret reports whether a value looks like a credential.
func looksSecret(v string) bool {
	if knownToken.MatchString(v) {
		return true
	}
	return tokenish.MatchString(v) && hasLetter.MatchString(v) && hasDigit.MatchString(v)
}

// RedactArgs redacts a command line by the rule of Display.
func RedactArgs(argv []string) []string {
	out := make([]string, len(argv))
	hideNext := false
	for i, a := range argv {
		switch {
		case hideNext && !strings.HasPrefix(a, "-"):
			out[i] = Redacted
			hideNext = false
			continue
		case hideNext:
			hideNext = false
		}
		out[i] = redactArg(a)
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && secretWord.MatchString(a) {
			hideNext = true
		}
	}
	return out
}

func redactArg(a string) string {
	switch {
	case strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://"):
		return RedactURL(a)
	case strings.HasPrefix(a, "-") && strings.Contains(a, "="):
		name, val, _ := strings.Cut(a, "=")
		if secretWord.MatchString(name) && val != "" {
			return name + "=" + Redacted
		}
		return name + "=" + redactValue(val)
	case envAssign.MatchString(a):
		name, _, _ := strings.Cut(a, "=")
		return name + "=" + Redacted
	}
	if name, val, ok := strings.Cut(a, ":"); ok && !strings.Contains(name, " ") && secretWord.MatchString(name) && strings.TrimSpace(val) != "" && !strings.HasPrefix(val, "//") {
		return name + ": " + Redacted
	}
	return redactValue(a)
}

func redactValue(v string) string {
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		return RedactURL(v)
	}
	return redactPlain(v)
}

func redactPlain(v string) string {
	if authScheme.MatchString(v) {
		v = authScheme.ReplaceAllStringFunc(v, func(m string) string {
			scheme, _, _ := strings.Cut(m, " ")
			return scheme + " " + Redacted
		})
	}
	if looksSecret(v) {
		return Redacted
	}
	if strings.ContainsAny(v, " \t") {
		words := strings.Fields(v)
		changed := false
		for i, w := range words {
			if looksSecret(w) {
				words[i], changed = Redacted, true
			}
		}
		if changed {
			return strings.Join(words, " ")
		}
	}
	return v
}

// RedactURL removes secrets from a URL by the rule of Display. A string
// that does not parse as a URL is redacted as a value.
func RedactURL(raw string) string {
	if strings.Contains(raw, "${") {
		// A template: redact only what is literal around the variables.
		return redactURLParts(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return redactURLParts(raw)
	}
	if u.Scheme == "" {
		return redactPlain(raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Redacted)
		} else {
			u.User = url.User(Redacted)
		}
	}
	if u.RawQuery != "" {
		u.RawQuery = redactQuery(u.RawQuery)
	}
	segs := strings.Split(u.EscapedPath(), "/")
	changed := false
	for i, seg := range segs {
		if seg != "" && looksSecret(seg) {
			segs[i] = Redacted
			changed = true
		}
	}
	out := u.String()
	if changed {
		u.Path, u.RawPath = "", ""
		base := u.String()
		q := ""
		if i := strings.IndexAny(base, "?#"); i >= 0 {
			base, q = base[:i], base[i:]
		}
		out = base + strings.Join(segs, "/") + q
	}
	return strings.ReplaceAll(strings.ReplaceAll(out, "%2A%2A%2A", Redacted), "%2a%2a%2a", Redacted)
}

func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		name, val, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		dec, err := url.QueryUnescape(val)
		if err != nil {
			dec = val
		}
		if (secretWord.MatchString(name) && val != "") || looksSecret(dec) {
			parts[i] = name + "=" + Redacted
		}
	}
	return strings.Join(parts, "&")
}

// redactURLParts redacts a URL that holds ${...} templates without
// parsing it: query values and credential-looking path segments.
func redactURLParts(raw string) string {
	base, q, hasQ := strings.Cut(raw, "?")
	if at := strings.Index(base, "@"); at >= 0 {
		if s := strings.Index(base, "://"); s >= 0 && s < at {
			base = base[:s+3] + Redacted + base[at:]
		}
	}
	if hasQ {
		frag := ""
		if i := strings.Index(q, "#"); i >= 0 {
			q, frag = q[:i], q[i:]
		}
		return base + "?" + redactQuery(q) + frag
	}
	return base
}

// LaunchKey returns a stable key for the server's launch spec (transport,
// command, args, env, env file, client env, cwd, url, headers: the expanded values,
// secrets included), as HMAC-SHA256 under key, so that two entries that
// launch the same thing share a key and the key reveals no value. The
// caller supplies key (a per-install secret).
func (s Server) LaunchKey(key []byte) string {
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
	}{s.Transport, s.Command, s.Args, s.Env, s.EnvFile, s.ClientEnv, s.Cwd, s.URL, s.Headers}
	b, _ := json.Marshal(spec) // map keys are sorted by encoding/json
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	return hex.EncodeToString(mac.Sum(nil))
}
