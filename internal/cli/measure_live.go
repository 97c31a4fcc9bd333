package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// liveFlags are the flags of measuring a running server.
type liveFlags struct {
	headers         *[]string
	headerEnv       *[]string
	envs            *[]string
	cwd             *string
	timeout         *time.Duration
	protocolVersion *string
	transport       *string
	once            *bool
	// --claude and --model apply to files too.
	claude *bool
	model  *string
}

func addLiveFlags(f *flags) *liveFlags {
	l := &liveFlags{
		headers:         f.Strings("header", ""),
		headerEnv:       f.Strings("header-env", ""),
		envs:            f.Strings("env", ""),
		cwd:             f.String("cwd", "", ""),
		protocolVersion: f.String("protocol-version", "", ""),
		transport:       f.String("transport", "", ""),
		once:            f.Bool("once", ""),
		claude:          f.Bool("claude", ""),
		model:           f.String("model", "", ""),
	}
	d := app.DefaultTimeout
	l.timeout = &d
	f.fs.DurationVar(l.timeout, "timeout", app.DefaultTimeout, "")
	return l
}

var headerName = regexp.MustCompile(`^[!#$%&'*+.^_` + "`" + `|~0-9A-Za-z-]+$`)

// parseHeader reads "Name: value".
func parseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name = strings.TrimSpace(name)
	if !ok || !headerName.MatchString(name) {
		// Never echo it: a malformed header may be all token.
		return "", "", fmt.Errorf("a header must read 'Name: value' (the malformed one is not shown: it may hold a secret)")
	}
	return name, strings.TrimSpace(value), nil
}

// target builds the launch target from the positional URL or the command
// after "--", with the secrets from flags and the environment.
func (l *liveFlags) target(env *Env, urlArg string, command []string) (app.Target, error) {
	t := app.Target{Transport: *l.transport}
	switch *l.transport {
	case "", "stdio", "http", "sse":
	default:
		return t, &valueError{fmt.Sprintf("--transport must be stdio, http or sse, not %q", *l.transport), "--transport ", *l.transport, []string{"stdio", "http", "sse"}}
	}
	if len(command) > 0 {
		if *l.transport == "http" || *l.transport == "sse" {
			return t, fmt.Errorf("--transport %s needs a URL, not a command", *l.transport)
		}
		if len(*l.headers)+len(*l.headerEnv) > 0 {
			return t, fmt.Errorf("--header is for URLs; a command gets its secrets with --env")
		}
		t.Command, t.Args, t.Cwd = command[0], command[1:], *l.cwd
		t.Transport = "stdio"
		for _, e := range *l.envs {
			name, value, ok := strings.Cut(e, "=")
			if name == "" {
				return t, fmt.Errorf("--env wants NAME=VALUE or NAME")
			}
			if !ok {
				// NAME alone passes our own value through.
				v, set := os.LookupEnv(name)
				if env.Getenv != nil {
					v = env.Getenv(name)
					set = v != ""
				}
				if !set {
					return t, fmt.Errorf("--env %s: %s is not set in this environment", name, name)
				}
				value = v
			}
			if t.Env == nil {
				t.Env = map[string]string{}
			}
			t.Env[name] = value
		}
		return t, nil
	}
	u, err := url.Parse(urlArg)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return t, fmt.Errorf("%s is not an http(s) URL", textsafe.Short(redact.URL(urlArg)))
	}
	if *l.transport == "stdio" {
		return t, fmt.Errorf("--transport stdio needs -- COMMAND, not a URL")
	}
	if len(*l.envs) > 0 || *l.cwd != "" {
		return t, fmt.Errorf("--env and --cwd are for commands; a URL gets its secrets with --header or --header-env")
	}
	t.URL = urlArg
	add := func(h string) error {
		name, value, err := parseHeader(h)
		if err != nil {
			return err
		}
		if t.Headers == nil {
			t.Headers = map[string]string{}
		}
		t.Headers[name] = value
		return nil
	}
	for _, h := range *l.headers {
		if err := add(h); err != nil {
			return t, fmt.Errorf("--header: %w", err)
		}
	}
	for _, name := range *l.headerEnv {
		v := env.Getenv(name)
		if v == "" {
			return t, fmt.Errorf("--header-env %s: %s is not set or empty", name, name)
		}
		for _, line := range strings.Split(v, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if err := add(line); err != nil {
				return t, fmt.Errorf("--header-env %s: %w", name, err)
			}
		}
	}
	return t, nil
}

// defaultLiveName names a live target: the last path element of the
// command's package or script, or the URL's host.
func defaultLiveName(t app.Target) string {
	if t.URL != "" {
		if u, err := url.Parse(t.URL); err == nil {
			return u.Hostname()
		}
		return "remote"
	}
	// npx -y @scope/pkg@1.2.3 args: the package; node server.js: the script.
	args := append([]string{t.Command}, t.Args...)
	for i, a := range args {
		base := filepath.Base(a)
		if i == 0 && (base == "npx" || base == "uvx" || base == "node" || base == "python" || base == "python3" || base == "bunx" || base == "deno" || base == "go" || base == "docker" || base == "pipx") {
			continue
		}
		if strings.HasPrefix(a, "-") || a == "run" || a == "exec" {
			continue
		}
		name := a
		if at := strings.LastIndex(name, "@"); at > 0 {
			name = name[:at]
		}
		name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		if name != "" && name != "." {
			return name
		}
	}
	return filepath.Base(t.Command)
}

// measureLive measures a running server and reports like measure does for
// files.
func measureLive(env *Env, t app.Target, l *liveFlags, name string, jsonOut bool, out, htmlOut string, bl *baselineFlags, v *measureView) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	display := t.Display()
	env.status("measuring " + display)
	// Measure scrubs what the server said (detail, stderr, warnings).
	live := machine(env).Measure(ctx, t, app.MeasureOptions{
		Timeout:         *l.timeout,
		ProtocolVersion: *l.protocolVersion,
		Once:            *l.once,
	})
	// The report names the server as it names itself (serverInfo), unless
	// --name says otherwise. Claude Code's tool names carry a config's
	// key, which a command line has not: what Claude receives takes the
	// name the user gave (--name), else the server's own (sanitized as
	// Claude Code sanitizes a key), else a guess from the command or URL.
	claudeName, claudeFrom := name, "--name"
	switch {
	case name != "":
	case strings.TrimSpace(live.ServerName) != "":
		claudeName, claudeFrom = strings.TrimSpace(live.ServerName), "serverInfo"
	case t.URL != "":
		claudeName, claudeFrom = defaultLiveName(t), "url"
	default:
		claudeName, claudeFrom = defaultLiveName(t), "command"
	}
	if name == "" {
		name = live.ServerName
		if name == "" {
			name = claudeName
		}
	}
	src := &measure.Source{Kind: measure.KindLive, Transport: live.Transport, ProtocolVersion: live.ProtocolVersion, Pages: live.Pages}
	if t.URL != "" {
		src.URL = display
		src.HeaderNames = sortedNames(t.Headers)
	} else {
		src.Command = display
		src.EnvVarNames = sortedNames(t.Env)
	}
	if live.Result == nil {
		if out != "" {
			f := measure.FailedFile(live.Status, name, display, src.EnvVarNames, live.Detail, "mcpcost "+Version(), env.Now(), *l.timeout)
			f.Source = src
			if err := writeFile(env, out, f); err != nil {
				return fail(env, err)
			}
		}
		if err := writeMeasureHTML(env, htmlOut, measure.FailedReport(name, live.Status, live.Detail, src)); err != nil {
			return fail(env, err)
		}
		if jsonOut && !bl.active() {
			rep := measure.FailedReport(name, live.Status, live.Detail, src)
			if err := jsonTo(env, rep); err != nil {
				return fail(env, err)
			}
		}
		errorf(env, "%s: %s: %s", name, live.Status, live.Detail)
		if tail := strings.TrimSpace(live.StderrTail); tail != "" && live.Status == status.StartupFailure {
			fmt.Fprintln(env.Stderr, "mcpcost: the server's stderr ended with:")
			for _, line := range lastLines(tail, 8) {
				fmt.Fprintf(env.Stderr, "  | %s\n", textsafe.Text(line))
			}
		}
		if h := failureHint(string(live.Status), live.Detail); h != "" {
			hintf(env, "%s", h)
		}
		if bl.active() {
			return bl.finishMeasure(env, measure.FailedReport(name, live.Status, live.Detail, src), jsonOut, v.quiet)
		}
		return ExitError
	}
	rep := measure.NewReport(name, live.Status, src, live.Result)
	rep.ServerVersion = live.ServerVersion
	rep.Extras = live.Extras
	rep.ChangedTools = live.ChangedTools
	rep.Warnings = live.Warnings
	if err := addClaude(env, rep, claudeName, claudeFrom, live.Tools, live.Instructions, live.Result.Spans, l); err != nil {
		warnf(env, "%v", err)
	}
	if live.Status.Dynamic() {
		rep.Detail = live.Detail
	}
	if out != "" {
		f := measure.NewFile(live.Result, live.Status, name, "mcpcost "+Version(), env.Now())
		f.ServerVersion = live.ServerVersion
		f.LaunchCommand = display
		f.EnvVarNames = src.EnvVarNames
		f.ServerInstructions = measure.InstructionsJSON(live.Instructions)
		f.TimeoutMs = int(l.timeout.Milliseconds())
		f.Source = src
		f.Extras = live.Extras
		f.ChangedTools = live.ChangedTools
		f.Warnings = live.Warnings
		if live.Status.Dynamic() {
			f.Notes = live.Detail
		}
		if err := writeFile(env, out, f); err != nil {
			return fail(env, err)
		}
	}
	v.apply(rep)
	if err := writeMeasureHTML(env, htmlOut, rep); err != nil {
		return fail(env, err)
	}
	return v.finish(env, rep, bl, jsonOut)
}

func failureHint(st, detail string) string {
	switch status.Status(st) {
	case status.AuthRequired:
		return "give the server its credentials: --header 'Authorization: Bearer ...' (or --header-env NAME) for a URL, --env NAME=VALUE for a command"
	case status.RemoteAuthWall:
		return "the server is behind OAuth; sign in with an MCP client, or pass a token with --header-env"
	case status.Timeout:
		return "a slow first start (npx downloading a package, go run building one) may need a larger --timeout, such as --timeout 3m"
	case status.StartupFailure:
		return app.StartupFailureHint(detail, "--env NAME=VALUE")
	case status.ProtocolError:
		return app.ProtocolErrorHint(detail)
	}
	return ""
}

func lastLines(s string, n int) []string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

func sortedNames(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// addClaude adds what Claude receives beside the headline number: the
// request Claude Code sends and its o200k count, the session-start load,
// the published Claude figure of this exact capture; with --claude and
// ANTHROPIC_API_KEY, the count from Anthropic's count_tokens.
func addClaude(env *Env, rep *measure.Report, name, from string, tools []*canon.Value, instructions *string, spans *claude.Spans, l *liveFlags) error {
	d := claude.Describe(claude.Input{Server: name, ServerFrom: from, Tools: tools, Instructions: instructions,
		HeadlineTokens: rep.TotalTokens, CaptureSHA256: rep.CanonicalSha256, Model: *l.model, Spans: spans})
	rep.Claude = &d
	if !*l.claude {
		return nil
	}
	c := machine(env).ClaudeClient(*l.model)
	if c == nil {
		return nil // the published figure, where the hash matches, is all there is
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := rep.Claude.Count(ctx, c); err != nil {
		return fmt.Errorf("--claude: %w", err)
	}
	return nil
}
