package mcpclient

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// failure is a classified reason a capture did not succeed.
type failure struct {
	status     Status
	detail     string
	stderrTail string
}

func failf(s Status, format string, args ...any) *failure {
	return &failure{status: s, detail: fmt.Sprintf(format, args...)}
}

// budget names a duration the way a user sets it.
func budget(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}

// scrubber replaces every secret value of a target (env values, header
// values, and secrets in the URL) by [redacted].
type scrubber struct{ secrets []string }

func newScrubber(t Target) scrubber {
	var s []string
	add := func(v string) {
		if len(v) >= 3 {
			s = append(s, v)
		}
	}
	for _, v := range t.Env {
		add(v)
	}
	for _, v := range t.Headers {
		add(v)
		// "Bearer xyz": the token alone may be echoed too.
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(strings.TrimSpace(tok))
		}
	}
	if u, err := url.Parse(t.URL); err == nil {
		if u.User != nil {
			add(u.User.String())
			if p, ok := u.User.Password(); ok {
				add(p)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
	}
	// Longest first, so that a secret containing another is replaced whole.
	sort.Slice(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	return scrubber{s}
}

func (s scrubber) scrub(text string) string {
	for _, v := range s.secrets {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, "[redacted]")
		}
	}
	return text
}

// redactURL shows a URL without user info, query values or fragment:
// scheme, host and path only.
func redactURL(raw string) string {
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

func baseName(cmd string) string { return filepath.Base(cmd) }
