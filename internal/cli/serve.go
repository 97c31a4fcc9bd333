package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/serve"
)

func init() {
	register(&Command{
		Name:  "serve",
		Short: "serve mcpcost's reports as MCP tools, over stdio or Streamable HTTP",
		Usage: serveUsage,
		Run:   runServe,
	})
}

const serveUsage = `usage: mcpcost serve [--http ADDR [--token-env NAME]] [flags]

Speak MCP, so that an agent can budget its own context. Over stdio by
default (what a client's config launches); over Streamable HTTP with
--http. Tools:

  audit_config     what each configured server's tool definitions cost, per
                   config file (from the measurement cache unless launch: true)
  measure_server   launch one server (command and args, env) or connect to a
                   URL (headers), and count its tool definitions, per tool
  usage_summary    what past sessions cost, grouped by server, tool, session,
                   day, model or project
  recent_sessions  the latest sessions with their tokens and cost
  session_tools    one session's tools ranked by their result tokens
  findings         what to change: idle servers, oversized or repeated
                   results, slow tools, costly sessions, cache loss, heavy
                   definitions (as 'mcpcost findings')

Each tool answers with structured content (an output schema) and a short
text. The usage store is brought up to date with the transcripts when a
usage tool is first called (and at most every 30 seconds after), never
before the handshake. Values of env and headers given to measure_server
are never echoed.

Flags:
  --http ADDR        serve Streamable HTTP on ADDR (such as 127.0.0.1:8765);
                     a host that is not loopback needs --token-env
  --token-env NAME   require "Authorization: Bearer TOKEN", TOKEN being the
                     value of the environment variable NAME
  --project DIR      the project whose project configs audit_config reads
                     (default: the current folder)
  --timeout DURATION per request to a measured server (default 60s)
  --max-age DURATION how long a cached measurement is used (default 24h)
  --db PATH          the usage store (default: in the user's data folder)
  --claude-dir DIR   Claude Code folder (repeatable)
  --codex-dir DIR    Codex folder (repeatable)

Exit status: 0 when the client closed the connection (or on an interrupt),
2 on a usage error or when the address cannot be served.`

func runServe(env *Env, args []string) int {
	f := newFlags("serve")
	httpAddr := f.String("http", "", "")
	tokenEnv := f.String("token-env", "", "")
	project := f.String("project", "", "")
	timeout := f.fs.Duration("timeout", mcpclient.DefaultTimeout, "")
	maxAge := f.fs.Duration("max-age", audit.DefaultMaxAge, "")
	dbPath := f.String("db", "", "")
	claudeDirs := f.Strings("claude-dir", "")
	codexDirs := f.Strings("codex-dir", "")
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
	var token string
	if *tokenEnv != "" {
		if *httpAddr == "" {
			return usageError(env, "serve", "--token-env goes with --http")
		}
		if token = env.Getenv(*tokenEnv); token == "" {
			return usageError(env, "serve", "--token-env %s: %s is not set or empty", *tokenEnv, *tokenEnv)
		}
	}
	if *httpAddr != "" {
		if err := serve.CheckAddr(*httpAddr, token != ""); err != nil {
			return usageError(env, "serve", "--http: %v", err)
		}
	}
	path := *dbPath
	if path == "" {
		// No data folder: the usage tools say so when called.
		path, _ = defaultDB(env)
	}
	claude, codex := transcriptRoots(env, *claudeDirs, *codexDirs)
	srv := serve.New(serve.Options{
		Version:     Version(),
		Getenv:      env.Getenv,
		Project:     *project,
		Now:         env.Now,
		Timeout:     *timeout,
		MaxAge:      *maxAge,
		DBPath:      path,
		ClaudeRoots: claude,
		CodexRoots:  codex,
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr == "" {
		if env.StdoutTTY {
			hintf(env, "mcpcost serve speaks MCP on stdin and stdout, for a client to launch; 'mcpcost help serve' shows how")
		}
		t := &serve.StdioTransport{Reader: env.Stdin, Writer: env.Stdout}
		if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return fail(env, fmt.Errorf("serving MCP over stdio: %w", err))
		}
		return ExitOK
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fail(env, fmt.Errorf("listening on %s: %w", *httpAddr, err))
	}
	hs := &http.Server{Handler: serve.Handler(srv, token), ReadHeaderTimeout: 10 * time.Second}
	auth := ""
	if token != "" {
		auth = fmt.Sprintf(" (bearer token from $%s)", *tokenEnv)
	}
	fmt.Fprintf(env.Stderr, "mcpcost: serving MCP over Streamable HTTP at http://%s/mcp%s\n", ln.Addr(), auth)
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
