package mcpclient

import (
	"fmt"
	"path/filepath"

	"github.com/mcpcost/mcpcost/internal/redact"
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

// Scrubber returns the scrubber of the target's secret values (env and
// header values, Secrets, and what the launch rule hides in its arguments
// and URL), which also redacts secrets by their shape: what anything the
// server said goes through before it is shown or kept.
func (t Target) Scrubber() *redact.Scrubber {
	return redact.Launch{Command: t.Command, Args: t.Args, Env: t.Env, URL: t.URL, Headers: t.Headers, Known: t.Secrets, Placeholders: t.Placeholders}.Scrubber()
}

// Display shows the target's launch without its secrets: its URL, or its
// command line.
func (t Target) Display() string {
	return redact.Launch{Command: t.Command, Args: t.Args, Env: t.Env, URL: t.URL, Headers: t.Headers, Known: t.Secrets, Placeholders: t.Placeholders}.Display()
}

// redactURL shows a URL without user info, query values or fragment:
// scheme, host and path only.
func redactURL(raw string) string { return redact.Endpoint(raw) }

func baseName(cmd string) string { return filepath.Base(cmd) }

// NamedSecrets returns the target's secret values with what each is (an
// env variable's name, "header NAME", "an argument", ...).
func (t Target) NamedSecrets() []redact.Named {
	return redact.Launch{Command: t.Command, Args: t.Args, Env: t.Env, URL: t.URL, Headers: t.Headers, Known: t.Secrets, Placeholders: t.Placeholders}.NamedSecrets()
}
