package redact

import (
	"regexp"
	"strings"
)

// The shapes Text redacts in free text. A value ends at white space, a
// quote, a comma, a semicolon or an ampersand.
var (
	textURL    = lazyRegexp(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>` + "`" + `]+`)
	textJSON   = lazyRegexp(`"((?:[^"\\]|\\.)*)"(\s*:\s*)"((?:[^"\\]|\\.)*)"`)
	textAssign = lazyRegexp(`([A-Za-z][A-Za-z0-9_.\-]*)=([^\s"',;&]+)`)
	textFlag   = lazyRegexp(`(^|[\s(\[])(-{1,2}[A-Za-z0-9_.\-]+)([ \t]+)([^\s"',;)\]]+)`)
	textHeader = lazyRegexp(`([A-Za-z][A-Za-z0-9_\-]*)([ \t]*:[ \t]+)([^\s"',;)\]]+)`)
	textBearer = lazyRegexp(`(?i)\b(bearer)(\s+)([^\s"',;]+)`)
	textBasic  = lazyRegexp(`\b(Basic)(\s+)([A-Za-z0-9+/=]{8,})`)
	textKnown  = lazyRegexp(`\b(sk-|sk_|pk_|rk_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xoxb-|xoxp-|xoxa-|xapp-|AKIA|ASIA|AIza|ya29\.|eyJ|npm_|hf_|pat-|lin_api_|sq0)[A-Za-z0-9_\-+/=.]{6,}`)
	letterOnly = lazyRegexp(`^[A-Za-z]+$`)
	// authParam is a parameter of WWW-Authenticate (Bearer realm="x"),
	// not a credential.
	authParam = lazyRegexp(`^[A-Za-z_\-]+=`)
)

// Text redacts the secrets free text shows by their shape: the user info,
// secret query values and credential-looking path segments of any URL
// (postgresql://user:PW@host as much as https://host/?token=X),
// NAME=VALUE and "NAME": "VALUE" where NAME mentions a secret word
// (API_KEY=X, --token=X, password=X; not a VALUE that is a command
// substitution, TOKEN=$(cat FILE)), --NAME VALUE and NAME: VALUE for
// such a NAME when VALUE is not a plain word (a NAME that is pass alone,
// outside the places a key stands, keeps a count for VALUE: the verb of
// "tests pass: 3/3"), Bearer X, Basic X, and
// values with a known token prefix (sk-, ghp_, ...). It does not guess at
// other long values: a Scrubber removes the values a launch is known to
// carry. Text leaves what it redacted alone when run again on ordinary text
// (a marker is no value); on contrived text one redaction can expose a new
// shape to the next run.
func Text(s string) string { return (*hider)(nil).text(s) }

// text is Text, recording what it hides.
func (h *hider) text(s string) string {
	if s == "" {
		return s
	}
	if !strings.Contains(s, "\n") {
		return h.textLine(s)
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		lines[i] = h.textLine(l)
	}
	return strings.Join(lines, "")
}

// textLine is text of one line; the patterns that need a secret word are
// tried only on a line that has one.
func (h *hider) textLine(s string) string {
	if strings.Contains(s, "://") {
		s = textURL().ReplaceAllStringFunc(s, h.url)
	}
	if hasSecretWord(s) {
		if strings.Contains(s, `"`) {
			s = textJSON().ReplaceAllStringFunc(s, func(m string) string {
				sub := textJSON().FindStringSubmatch(m)
				if !secretWord().MatchString(sub[1]) || sub[3] == "" || sub[3] == Marker {
					return m
				}
				return `"` + sub[1] + `"` + sub[2] + `"` + h.hide(sub[3]) + `"`
			})
		}
		if strings.Contains(s, "=") {
			s = textAssign().ReplaceAllStringFunc(s, func(m string) string {
				name, val, _ := strings.Cut(m, "=")
				// TOKEN=$(cat FILE): the value is a command that reads it.
				if !secretWord().MatchString(name) || val == Marker || strings.HasPrefix(val, "$(") || strings.HasPrefix(val, "`") {
					return m
				}
				return name + "=" + h.hide(val)
			})
		}
		if strings.Contains(s, "-") {
			s = h.replaceValue(s, textFlag(), true)
		}
		if strings.Contains(s, ":") {
			s = h.replaceValue(s, textHeader(), true)
		}
		s = h.replaceValue(s, textBearer(), false)
	}
	if strings.Contains(s, "Basic") {
		s = h.replaceValue(s, textBasic(), false)
	}
	if hasKnownPrefix(s) {
		s = textKnown().ReplaceAllStringFunc(s, h.hide)
	}
	return s
}

// replaceValue replaces the last of the groups NAME SEP VALUE that end
// re's matches
// by Marker: when named, only for a NAME that mentions a secret word and a
// VALUE that is not a plain word ("--token is required" stays).
func (h *hider) replaceValue(s string, re *regexp.Regexp, named bool) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for pos := 0; pos < len(s); {
		loc := re.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			break
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += pos
			}
		}
		n := len(loc) / 2
		group := func(k int) string { return s[loc[2*k]:loc[2*k+1]] }
		name, val := group(n-3), group(n-1)
		pos = loc[1]
		if !hides(s, loc, name, val, named) {
			if strings.HasSuffix(val, ":") {
				// "error: pass: X": the value is the next one's name
				pos = loc[2*(n-1)]
			}
			continue
		}
		b.WriteString(s[done:loc[2*(n-1)]])
		b.WriteString(h.hide(val))
		done = loc[2*(n-1)+1]
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// hides reports whether replaceValue hides val, the value of a match at
// loc of s, written after name.
func hides(s string, loc []int, name, val string, named bool) bool {
	if val == Marker || strings.HasPrefix(val, Marker) || authParam().MatchString(val) {
		return false
	}
	if named {
		n := len(loc) / 2
		if !secretName(name, s[:loc[2*(n-3)]], val) || strings.HasPrefix(val, "-") {
			return false
		}
		if len(val) < 16 && letterOnly().MatchString(val) {
			return false
		}
	}
	return true
}

// secretName reports whether name, written after before on its line and
// followed by val, names a secret: it mentions a secret word; when it is
// pass alone, written where a key does not stand (the start of a line, of
// a YAML list item, after "{", "," or ";", or ending a dotted name), val
// is not a count ("tests pass: 3/3", "checks pass: 100%"), as where pass
// is a verb. Any other value is hidden, the verb's or not: a log line's
// "connecting with pass: X" names a password as often as prose does not.
func secretName(name, before, val string) bool {
	if !secretWord().MatchString(name) {
		return false
	}
	if !strings.EqualFold(name, "pass") || strings.HasSuffix(before, ".") {
		return true
	}
	before = strings.TrimRight(before, " \t")
	if before == "" || strings.HasSuffix(before, "{") || strings.HasSuffix(before, ",") || strings.HasSuffix(before, ";") {
		return true
	}
	if b, ok := strings.CutSuffix(before, "-"); ok && strings.TrimRight(b, " \t") == "" {
		return true // a YAML list item; TrimRight, not TrimLeft: a long indent costs once, not once a match
	}
	return !passCount().MatchString(val)
}

// passCount is a count of what passed: 3/3, 100%, 99.5%.
var passCount = lazyRegexp(`^[0-9]+(/[0-9]+|(\.[0-9]+)?%)$`)

// secretWords are the words of secretWord, in lower case ("pass" for
// passw, passphrase and the word pass, and "pw" for the word pw, which
// secretWord takes only on their own, at a name's end).
var secretWords = []string{"token", "key", "secret", "pass", "pw", "auth", "credential", "bearer", "cookie", "session", "signature"}

// hasSecretWord is true wherever secretWord().MatchString(s) is, faster: a
// line without it needs no secret word's pattern.
func hasSecretWord(s string) bool {
	l := strings.ToLower(s)
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// knownPrefixes are the prefixes textKnown matches (gh._ and xox._ by
// their common part).
var knownPrefixes = []string{"sk-", "sk_", "pk_", "rk_", "gh", "github_pat_", "glpat-", "xox", "xapp-", "AKIA", "ASIA", "AIza", "ya29.", "eyJ", "npm_", "hf_", "pat-", "lin_api_", "sq0"}

func hasKnownPrefix(s string) bool {
	for _, p := range knownPrefixes {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
