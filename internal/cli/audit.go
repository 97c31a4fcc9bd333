package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
)

func init() {
	register(&Command{
		Name:  "audit",
		Short: "measure every client's MCP servers, per session here (the default)",
		Usage: auditUsage,
		Run:   runAudit,
	})
}

const auditUsage = `usage: mcpcost [audit] [flags]

Find every MCP client config on this machine (Claude Code, Claude Desktop,
Cursor, VS Code, Windsurf, Codex, Gemini CLI, Zed, opencode, Cline, Goose,
Continue, Copilot CLI), or read the files given with --config, launch or
connect to every enabled server as its client would (each distinct launch
once), and report per client session in the project folder: the servers
one session of that client loads there, by the client's own precedence
(one entry per name counted; overridden, disabled and unapproved ones
listed, not counted):

  per server   scope, transport, tools, tokens, share, status
  per session  the total and its share of the context window; one verdict
               (what is paid at session start, whether the client defers
               the definitions and what decided it, Claude Code's auto:N
               threshold judged on the session's sum, what Claude
               receives); the heaviest tools and what trimming them
               recovers; what is not measured (failed), not launched
               (by request: --no-launch) and not counted; the files it
               reads and what each adds

With --config, each file is reported alone, with its own verdict.

Launching a configured server runs its command, as the client would, in
the project folder. A server of the project's own config files (a cloned
repository's .mcp.json, .cursor/mcp.json, .vscode/mcp.json, ...) is launched
only where its client would start it: Claude Code's approvals
(enabledMcpjsonServers, enableAllProjectMcpServers in ~/.claude.json or
the user's settings; the project's settings only in a folder Claude Code
trusts), Codex's project trust, or the user's word: --trust-project, or
--config naming the file. The others are listed as needs-approval, with
what would run and how to approve it.
--no-launch lists what would be launched instead. Values of env and
headers, and secrets in arguments and URLs, never appear in any output or
in the cache; their names do.

Measurements are cached by launch spec (in the user's cache folder, or
$MCPCOST_CACHE_DIR) for --max-age, so a repeated audit is near-instant.

Flags:
  --config PATH          audit this file instead of discovering (repeatable);
                         a file where a client keeps its configs is read as
                         that client reads it, another by its name and content
  --client NAME          only this client's configs (repeatable); with
                         --config, read the files as this client reads its own
  --project DIR          the project whose project configs are read
                         (default: the current folder)
  --trust-project        launch the servers of the project's own config files
                         although their client has no approval of them on
                         record (rejections still apply)
  --context N            the context window shares are of (default 200000)
  --budget N             exit 1 when a session's total (a file's, with
                         --config) exceeds N tokens, when a server of it
                         could not be measured (the total is then a lower
                         bound), or when a project's server awaits approval
                         (it joins the session once approved)
  --allow-unmeasured     let --budget pass on the measured servers alone
  --threshold N          exit 1 when a tool's definition exceeds N tokens (the
                         tools of the sessions; of the files, with --config)
  --baseline FILE        compare with an earlier 'mcpcost audit --json' (or
                         mcp-context-cost's): the diff per config, server,
                         tool and part follows the report
  --max-increase N       with --baseline, exit 1 when a session (a file, with
                         --config or against a baseline without sessions)
                         got more than N tokens per request heavier, or
                         whenever the increase could not be established (a
                         server measured in the baseline and not now, an
                         added server that cannot be measured, a config
                         missing or new, another methodology): every reason
                         is listed
  --json                 print JSON (schema mcpcost.audit/v2)
  --markdown             print Markdown, for a pull-request comment
  --refresh              measure again, ignoring the cache
  --offline              report only from the cache; launch nothing
  --no-launch            launch nothing: list what would be launched
  --strict               launch each server twice, as measure does, to find
                         a server whose tools change from launch to launch
                         (by default each is launched once and listed twice,
                         and such a server is found only against its
                         previous capture in the cache)
  --max-age DURATION     how long a cached measurement is used (default 24h)
  --timeout DURATION     the whole measurement of each server (default 60s)
  --concurrency N        servers launched at once (default: every server of
                         the audit, up to 16)
  --protocol-version V   offer this MCP protocol version
  --claude               add Claude's own counts of what Claude Code sends:
                         with ANTHROPIC_API_KEY set, from Anthropic's
                         count_tokens (ANTHROPIC_BASE_URL honoured); without,
                         mcp-context-cost's published figures, only where the
                         capture's SHA-256 matches exactly ('-' otherwise)
  --model MODEL          the model count_tokens counts for (default: the
                         current Sonnet)

Exit status: 0 every config was read and every enabled server measured,
within the gates (with --no-launch, or --allow-unmeasured and a budget that
passes, servers left unmeasured do not fail); 1 a gate failed, a config
could not be read, a server could not be measured (the report then says it
is partial), or no config was found; 2 a usage or runtime error (a
--config, --project or --baseline that does not exist).`

func runAudit(env *Env, args []string) int {
	f := newFlags("audit")
	configsFlag := f.Strings("config", "")
	clientsFlag := f.Strings("client", "")
	project := f.String("project", "", "")
	trustProject := f.Bool("trust-project", "")
	contextFlag := f.Int("context", audit.DefaultContextWindow, "")
	budget := f.Int("budget", 0, "")
	allowUnmeasured := f.Bool("allow-unmeasured", "")
	threshold := f.Int("threshold", 0, "")
	jsonFlag := f.Bool("json", "")
	mdFlag := f.Bool("markdown", "")
	refresh := f.Bool("refresh", "")
	offline := f.Bool("offline", "")
	noLaunch := f.Bool("no-launch", "")
	strict := f.Bool("strict", "")
	maxAge := f.fs.Duration("max-age", audit.DefaultMaxAge, "")
	timeout := f.fs.Duration("timeout", app.DefaultTimeout, "")
	concurrency := f.Int("concurrency", 0, "")
	protocol := f.String("protocol-version", "", "")
	claudeFlag := f.Bool("claude", "")
	model := f.String("model", "", "")
	bl := addBaselineFlags(f)
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(pos)+len(rest) > 0 {
		return usageError(env, "audit", "unexpected argument %q (files to audit go with --config)", append(pos, rest...)[0])
	}
	for name, v := range map[string]int{"context": *contextFlag, "budget": *budget, "threshold": *threshold, "concurrency": *concurrency} {
		if f.Set(name) && v <= 0 {
			return usageError(env, "audit", "--%s must be a positive number, got %d", name, v)
		}
	}
	switch {
	case *jsonFlag && *mdFlag:
		return usageError(env, "audit", "--json and --markdown cannot be combined")
	case *offline && *refresh:
		return usageError(env, "audit", "--offline and --refresh cannot be combined")
	case *allowUnmeasured && !f.Set("budget"):
		return usageError(env, "audit", "--allow-unmeasured goes with --budget")
	case *timeout <= 0 || *maxAge <= 0:
		return usageError(env, "audit", "--timeout and --max-age must be positive durations, such as 30s or 12h")
	}
	if code, ok := bl.prepare(env, "audit", false); !ok {
		return code
	}
	if f.Set("model") && !*claudeFlag {
		return usageError(env, "audit", "--model goes with --claude")
	}
	if *project != "" && !isDir(*project) {
		return usageError(env, "audit", "--project %s is not a folder", *project)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	m := machine(env)
	rep, unread, err := m.Audit(ctx, app.AuditOptions{
		Configs:         *configsFlag,
		Clients:         *clientsFlag,
		Project:         *project,
		TrustProject:    *trustProject,
		ContextWindow:   *contextFlag,
		Budget:          *budget,
		Threshold:       *threshold,
		AllowUnmeasured: *allowUnmeasured,
		Refresh:         *refresh,
		Offline:         *offline,
		NoLaunch:        *noLaunch,
		Strict:          *strict,
		MaxAge:          *maxAge,
		Timeout:         *timeout,
		Concurrency:     *concurrency,
		ProtocolVersion: *protocol,
		Claude:          *claudeFlag,
		Model:           *model,
		Progress:        env.Progress(),
	})
	code := ExitOK
	hinted := true // every file not read carried a hint of its own (a size cap)
	for _, err := range unread {
		errorf(env, "%v", err)
		if h := errorHint(err); h != "" {
			hintf(env, "%s", h)
		} else {
			hintf(env, "%s", configFileHint)
		}
		var h interface{ Hint() string }
		if !errors.As(err, &h) || h.Hint() == "" {
			hinted = false
		}
		code = ExitFail
	}
	switch {
	case errors.Is(err, app.ErrNothingRead):
		if !hinted {
			hintf(env, "--config takes the path of an MCP config file such as .mcp.json")
		}
		return ExitError
	case errors.Is(err, app.ErrNoCache):
		return fail(env, fmt.Errorf("--offline needs the measurement cache, which is unavailable"))
	case err != nil:
		return failCall(env, "audit", err)
	}

	gateCode := ExitOK
	switch {
	case bl.active():
		gateCode, err = bl.writeAudit(env, rep, *jsonFlag, *mdFlag)
	case *jsonFlag:
		err = jsonTo(env, rep)
	case *mdFlag:
		err = render.AuditMarkdown(env.Stdout, rep)
	default:
		err = render.AuditText(env.Stdout, rep, env.Screen())
	}
	if err != nil {
		return fail(env, err)
	}
	if len(rep.Configs) == 0 && len(rep.Problems) == 0 {
		noServer(env, rep, len(*configsFlag) > 0)
		return ExitFail
	}
	for _, p := range rep.Problems {
		errorf(env, "%s", p.Error)
		hintf(env, "%s", orHint(p.Hint, configFileHint))
	}
	if n := needApproval(rep); n > 0 {
		hintf(env, "%d %s of the project's own config files %s not launched: %s approval (each one's hint says how), or --trust-project",
			n, num.Plural(n, "server", "servers"), num.Plural(n, "was", "were"), num.Plural(n, "it needs", "they need"))
	}
	// A partial report fails, unless nothing was to be launched
	// (--no-launch) or the budget was told to pass on what was measured.
	partialFails := rep.Partial && !*noLaunch && !*allowUnmeasured
	if len(rep.Problems) > 0 || partialFails {
		code = ExitFail
	}
	if (rep.Budget != nil && !rep.Budget.Pass) || (rep.Threshold != nil && !rep.Threshold.Pass) || gateCode == ExitFail {
		code = ExitFail
	}
	auditChecksFailed(env, rep, partialFails)
	return code
}

// noServer says that no config declares a server to measure: each file
// given (--config), and each one found that seems to hold servers written
// outside its client's object, with why (its notes) and what to do; else
// where to look.
func noServer(env *Env, rep *audit.Report, given bool) {
	told := false
	for _, e := range rep.EmptyConfigs {
		if !given && e.Hint == "" {
			continue
		}
		why := ""
		if len(e.Notes) > 0 {
			why = ": " + strings.Join(e.Notes, "; ")
		}
		errorf(env, "%s declares no MCP server%s", e.Path, why)
		hintf(env, "%s", orHint(e.Hint, "declare its servers under the key its client reads them from ('mcpcost clients --config FILE' shows how it was read)"))
		told = true
	}
	switch {
	case told:
	case len(rep.EmptyConfigs) > 0:
		errorf(env, "the MCP configs found declare no server to measure")
		hintf(env, "point at one with --config PATH; 'mcpcost clients' lists every place looked at")
	default:
		errorf(env, "no MCP config found")
		hintf(env, "point at one with --config PATH; 'mcpcost clients' lists every place looked at")
	}
}

// needApproval counts the servers listed as needs-approval.
func needApproval(rep *audit.Report) int {
	n := 0
	for _, c := range rep.Configs {
		for _, s := range c.Servers {
			if s.Status == audit.StatusNeedsApproval {
				n++
			}
		}
	}
	return n
}
