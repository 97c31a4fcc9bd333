package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/serve"
)

func init() {
	register(&Command{
		Name:  "serve",
		Short: "mcpcost's reports as MCP tools, over stdio or Streamable HTTP",
		Usage: serveUsage,
		Run:   runServe,
	})
}

const serveUsage = `usage: mcpcost serve [--http ADDR [--token-env NAME] [--allow-launch]
                     [--allow-origin ORIGIN]...] [--store URL] [flags]

Speak MCP, so that an agent can budget its own context. Over stdio by
default (what a client's config launches); over Streamable HTTP with
--http. Tools:

  audit_config     what each configured server's tool definitions cost, per
                   config file (from the measurement cache unless launch: true)
  measure_server   launch one server (command and args, env) or connect to a
                   URL (headers), and count its tool definitions, per tool
  usage_summary    what past sessions cost, grouped by server, tool, session,
                   day, week, month, model, project, machine, user or
                   billing block
  blocks           Claude Code's billing blocks, the active one's burn rate
                   and projection (as 'mcpcost blocks --json')
  recent_sessions  the latest sessions with their tokens and cost
  session_tools    one session's tools ranked by their result tokens
  findings         what to change: idle servers, oversized or repeated
                   results, slow tools, costly sessions, cache loss, heavy
                   definitions (as 'mcpcost findings')

Each tool answers with structured content (an output schema) and a short
text. The usage store is brought up to date with the transcripts when a
usage tool is first called (and at most every 30 seconds after), never
before the handshake. With a shared store (--store postgres://... or
MCPCOST_STORE), what is read is pushed there as this machine's, and the
usage tools answer from the shared store (their machine and user
arguments keep one machine's or user's rows). Values of env and headers
given to measure_server are never echoed.

Over HTTP every request needs "Authorization: Bearer TOKEN". On a
loopback address without --token-env, mcpcost keeps a token of its own in
a file only you can read (in your config folder:
$XDG_CONFIG_HOME/mcpcost/serve-token or the system's equivalent) and
prints where, never the token; any other address needs --token-env.
Whoever has the token can read your configs and usage; launching programs
or connecting to URLs (measure_server, launch: true) is refused unless
--allow-launch, since it runs commands as you. A request from a browser
page (an Origin header) is refused unless it comes from the server's own
loopback origin or one named with --allow-origin. Idle sessions end after
10 minutes, and at most 64 are open at once; a request body is at most
4 MiB (413), and those held at once at most 64 MiB (503, Retry-After).

At most 8 tool calls run at once (over HTTP, of every session together)
and 64 more wait; a call beyond those is answered with a tool error that
starts "busy:".

Flags:
  --http ADDR          serve Streamable HTTP on ADDR (such as 127.0.0.1:8765)
  --token-env NAME     the bearer token is the value of the environment
                       variable NAME (default on loopback: the token file):
                       at least 16 characters of printable ASCII, no spaces
  --allow-launch       let HTTP callers launch programs and open URLs
  --allow-origin O     let browser pages of origin O (such as
                       https://app.example) call; repeatable
  --project DIR        the project whose project configs audit_config reads
                       (default: the current folder)
  --timeout DURATION   the whole measurement of a server (default 60s)
  --max-age DURATION   how long a cached measurement is used (default 24h)
  --db PATH            the local usage store (default: in the user's data
                       folder); PATH's folder must exist
  --store URL          the store the usage tools answer from (default:
                       MCPCOST_STORE, else the local one): sqlite:PATH or a
                       path, or postgres://... (see 'mcpcost help push')
  --machine NAME       this machine's name in a shared store (default:
                       MCPCOST_MACHINE, else the host name)
  --redact-projects    push project paths as keyed hashes
  --claude-dir DIR     Claude Code folder (repeatable)
  --codex-dir DIR      Codex folder (repeatable)
  --copilot-dir DIR    GitHub Copilot CLI folder (repeatable)
  --goose-dir DIR      Goose folder (repeatable)
  --gemini-dir DIR     Gemini CLI folder (repeatable; default GEMINI_DATA_DIR or
                       ~/.gemini)
  --opencode-dir DIR   opencode folder (repeatable; default OPENCODE_DATA_DIR or
                       ~/.local/share/opencode)

Exit status: 0 when the client closed the connection (or on an interrupt),
2 on a usage error or when the address cannot be served.`

func runServe(env *Env, args []string) int {
	f := newFlags("serve")
	httpAddr := f.String("http", "", "")
	tokenEnv := f.String("token-env", "", "")
	allowLaunch := f.Bool("allow-launch", "")
	allowOrigins := f.Strings("allow-origin", "")
	project := f.String("project", "", "")
	timeout := f.fs.Duration("timeout", app.DefaultTimeout, "")
	maxAge := f.fs.Duration("max-age", audit.DefaultMaxAge, "")
	dbPath := f.String("db", "", "")
	storeName := f.String("store", "", "")
	machineName := f.String("machine", "", "")
	redactProjects := f.Bool("redact-projects", "")
	claudeDirs := f.Strings("claude-dir", "")
	codexDirs := f.Strings("codex-dir", "")
	copilotDirs := f.Strings("copilot-dir", "")
	gooseDirs := f.Strings("goose-dir", "")
	geminiDirs := f.Strings("gemini-dir", "")
	opencodeDirs := f.Strings("opencode-dir", "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(pos)+len(rest) > 0 {
		return usageError(env, "serve", "unexpected argument %q", append(pos, rest...)[0])
	}
	if *timeout <= 0 || *maxAge <= 0 {
		return usageError(env, "serve", "--timeout and --max-age must be positive durations, such as 30s or 12h")
	}
	if *httpAddr == "" && (*tokenEnv != "" || *allowLaunch || len(*allowOrigins) > 0) {
		return usageError(env, "serve", "--token-env, --allow-launch and --allow-origin go with --http")
	}
	if *httpAddr != "" {
		if err := serve.CheckAddr(*httpAddr, *tokenEnv != ""); err != nil {
			return usageError(env, "serve", "--http: %v", err)
		}
	}
	var token, tokenFrom string
	if *tokenEnv != "" {
		if token = env.Getenv(*tokenEnv); token == "" {
			return usageError(env, "serve", "--token-env %s: %s is not set or empty", *tokenEnv, *tokenEnv)
		}
		if err := serve.CheckToken(token); err != nil {
			return fail(env, withHint(fmt.Errorf("--token-env %s: %w", *tokenEnv, err),
				fmt.Sprintf("choose a long random token, such as: export %s=\"$(openssl rand -hex 32)\"", *tokenEnv)))
		}
		tokenFrom = "from $" + *tokenEnv
	}
	m := machine(env)
	m.DBPath, m.ClaudeDirs, m.CodexDirs = *dbPath, *claudeDirs, *codexDirs
	m.CopilotDirs, m.GooseDirs = *copilotDirs, *gooseDirs
	m.Store, m.MachineName, m.RedactProjects = *storeName, *machineName, *redactProjects
	m.GeminiDirs, m.OpencodeDirs = *geminiDirs, *opencodeDirs
	if err := m.CheckInputs(); err != nil {
		return failCall(env, "serve", err)
	}
	if err := m.CheckMachine(); err != nil {
		return failCall(env, "serve", err)
	}
	// No data folder: the usage tools say so when called.
	path, _ := m.StorePath()
	if _, shared := m.Shared(); !shared {
		*storeName = "" // a local store: path names it
	}
	claude, codex := m.TranscriptRoots()
	o := serve.Options{
		Version:        Version(),
		Getenv:         env.Getenv,
		Project:        *project,
		Now:            env.Now,
		Timeout:        *timeout,
		MaxAge:         *maxAge,
		DBPath:         path,
		Store:          *storeName,
		MachineName:    *machineName,
		RedactProjects: *redactProjects,
		ClaudeRoots:    claude,
		CodexRoots:     codex,
		CopilotRoots:   m.CopilotRoots(),
		GooseRoots:     m.GooseRoots(),
		GeminiRoots:    m.GeminiRoots(),
		OpencodeRoots:  m.OpencodeRoots(),
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr == "" {
		if env.StdoutTTY {
			hintf(env, "mcpcost serve speaks MCP on stdin and stdout, for a client to launch; 'mcpcost help serve' shows how")
		}
		t := &serve.StdioTransport{Reader: env.Stdin, Writer: env.Stdout}
		if err := serve.New(o).Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return fail(env, fmt.Errorf("serving MCP over stdio: %w", err))
		}
		return ExitOK
	}
	if token == "" {
		dir, err := m.ConfigDir()
		if err != nil {
			return fail(env, withHint(err, "name a token with --token-env NAME"))
		}
		file := filepath.Join(dir, "mcpcost", "serve-token")
		token, _, err = serve.TokenFile(file)
		if err != nil {
			return fail(env, withHint(err, "name a token with --token-env NAME"))
		}
		tokenFrom = "in " + file
	}
	h, err := serve.Handler(o, serve.HTTPOptions{Token: token, AllowLaunch: *allowLaunch, AllowedOrigins: *allowOrigins})
	if err != nil {
		return usageError(env, "serve", "--allow-origin: %v", err)
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		err = fmt.Errorf("listening on %s: %w", *httpAddr, err)
		if errors.Is(err, syscall.EADDRINUSE) {
			err = withHint(err, "another program listens on that port: stop it, or pick another port (a port of 0 picks a free one, printed at start)")
		}
		return fail(env, err)
	}
	hs := serve.HTTPServer(h)
	launch := "; launching refused (--allow-launch allows it)"
	if *allowLaunch {
		launch = "; callers may launch programs (--allow-launch)"
	}
	fmt.Fprintf(env.Stderr, "mcpcost: serving MCP over Streamable HTTP at http://%s/mcp (bearer token %s)%s\n", ln.Addr(), tokenFrom, launch)
	if host, _, _ := net.SplitHostPort(*httpAddr); !serve.IsLoopback(host) {
		warnf(env, "%s is reachable from other machines over plain HTTP: the token and every answer cross the network unencrypted", *httpAddr)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fail(env, fmt.Errorf("serving on %s: %w", *httpAddr, err))
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(shutdown)
	return ExitOK
}
