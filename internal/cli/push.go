package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

func init() {
	register(&Command{
		Name:  "push",
		Short: "send the local usage store to a shared PostgreSQL store",
		Usage: `usage: mcpcost push [--store URL] [--machine NAME] [--redact-projects]
                    [--db PATH] [--no-ingest] [--json]

Reads what is new in the transcripts into the local usage store (as usage
does), then sends what the local store holds to a shared PostgreSQL store,
for a team whose machines ingest on their own (offline too) and sync
later. A push sends the rows stored or changed since this machine's last
push (every row the first time). It is one transaction: it adds the rows
the shared store lacks (a request, tool call, session or compaction that
another machine pushed already is not added again), drops the rows this
machine pushed before and no longer holds, unless another machine holds
them, and records the machine and the OS user. Pushing an unchanged
store changes nothing. A push that fails (the server cannot be reached,
the database is read-only) changes nothing there and nothing in the local
store: push again later.

What is sent is what the local store holds, and nothing else: per request
the session id, agent, model, project folder, time, token counts and the
cost recorded; per tool call its name, server, times, result size in
tokens and bytes and an HMAC of its arguments under the local store's own
key; per usage-limit placeholder (blocks marks a block with it) its
session, time and reset. No prompt, response, tool argument or result text
is stored locally, so none is sent.

With --redact-projects, project folders are sent as keyed hashes
(HMAC-SHA256) instead of paths. The key is MCPCOST_PROJECT_KEY, else the
file mcpcost/project-key in the config folder ($XDG_CONFIG_HOME or
~/.config; made on first use, readable by you alone). Copy it to your
teammates' machines: under one key, one path gives one hash everywhere, so
a project is grouped as one (if its folder has the same path on each
machine). Without the key nobody can tell the paths from the hashes; with
it, anyone can test a guessed path. Reports of the shared store then show
the hashes, and --project takes a folder (hashed under the same key) or
a hash. A shared store takes the pushes of one key only (or of none):
a push under another key is refused.

usage, findings, report, blocks and serve with --store postgres://... (or
MCPCOST_STORE) push as this command does before they report, and read the
shared store through a local replica (in the cache folder).

Flags:
  --store URL      the shared store (default: MCPCOST_STORE): a postgres://
                   or postgresql:// URL as libpq reads it; its sslmode (and
                   sslrootcert, ...) are honoured; its password is never
                   printed
  --machine NAME   this machine's name in the shared store (default:
                   MCPCOST_MACHINE, else the host name)
  --redact-projects  send project folders as keyed hashes, not paths
  --db PATH        the local usage store (default: usage.db in the data folder)
  --no-ingest      push the local store as it is, without reading transcripts
  --claude-dir DIR Claude Code folder to ingest from; repeatable
  --codex-dir DIR  Codex folder to ingest from; repeatable
  --copilot-dir DIR  GitHub Copilot CLI folder to ingest from; repeatable
  --goose-dir DIR  Goose folder to ingest from; repeatable
  --gemini-dir DIR Gemini CLI folder to ingest from; repeatable
  --opencode-dir DIR
                   opencode folder to ingest from; repeatable
  --json           the result as JSON (schema mcpcost.push/v1: schema, store,
                   machine, user, rows sent, added, updated, dropped)`,
		Run: runPush,
	})
}

func runPush(env *Env, args []string) int {
	f := newFlags("push")
	storeURL := f.String("store", "", "")
	machineName := f.String("machine", "", "")
	redactProjects := f.Bool("redact-projects", "")
	dbPath := f.String("db", "", "")
	noIngest := f.Bool("no-ingest", "")
	claudeDirs := f.Strings("claude-dir", "")
	codexDirs := f.Strings("codex-dir", "")
	copilotDirs := f.Strings("copilot-dir", "")
	gooseDirs := f.Strings("goose-dir", "")
	geminiDirs := f.Strings("gemini-dir", "")
	opencodeDirs := f.Strings("opencode-dir", "")
	asJSON := f.Bool("json", "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(pos) > 0 || len(rest) > 0 {
		return usageError(env, "push", "push takes no arguments")
	}
	m := machine(env)
	m.DBPath, m.ClaudeDirs, m.CodexDirs = *dbPath, *claudeDirs, *codexDirs
	m.CopilotDirs, m.GooseDirs = *copilotDirs, *gooseDirs
	m.GeminiDirs, m.OpencodeDirs = *geminiDirs, *opencodeDirs
	if err := m.CheckInputs(); err != nil {
		return fail(env, err)
	}
	res, err := m.Push(context.Background(), app.PushOptions{
		URL: *storeURL, Machine: *machineName, NoIngest: *noIngest, RedactProjects: *redactProjects, Progress: env.Progress(),
	})
	var noStore *app.NoStoreError
	if errors.As(err, &noStore) {
		return fail(env, withHint(err, "run 'mcpcost push' without --no-ingest to create it"))
	}
	if err != nil {
		return failCall(env, "push", err)
	}
	if *asJSON {
		err = render.JSON(env.Stdout, res)
	} else {
		_, err = io.WriteString(env.Stdout, pushLine(res, env.Screen().Width))
	}
	if err != nil {
		return fail(env, err)
	}
	return ExitOK
}

// pushLine is what a push says it did: one line where it fits width, else
// the URL on the first and who pushed and what changed on a second.
func pushLine(res *app.PushResult, width int) string {
	head := fmt.Sprintf("pushed %s to %s", num.Count(res.Rows, "row"), textsafe.Text(res.Store))
	detail := fmt.Sprintf("as %s (user %s): %s added, %s updated, %s dropped",
		textsafe.Text(res.Machine), textsafe.Text(res.User), num.Int(res.Added), num.Int(res.Updated), num.Int(res.Dropped))
	if line := head + " " + detail; render.Width(line) <= width {
		return line + "\n"
	}
	return head + "\n  " + detail + "\n"
}
