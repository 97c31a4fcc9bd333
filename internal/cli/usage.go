package cli

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/usage"
)

func init() {
	register(&Command{
		Name:  "usage",
		Short: "what your sessions cost: tokens and prices per MCP server and tool",
		Usage: `usage: mcpcost usage [--by server|tool|session|day|week|month|model|project
                          |machine|user] [--split-agents]
                     [--days N | --last N | --since DATE --until DATE]
                     [--start-of-week DAY] [--breakdown] [--order asc|desc]
                     [--project PATH] [--tz ZONE]
                     [--source claude|codex|copilot|goose|gemini|opencode|all]
                     [--json | --markdown | --csv | --compact]
                     [--store URL] [--machine NAME] [--user NAME]
                     [--redact-projects] [--db PATH] [--no-ingest]
                     [--prices FILE]
                     [--mode auto|calculate|display]
                     [--claude-dir DIR]... [--codex-dir DIR]...
                     [--copilot-dir DIR]... [--goose-dir DIR]...
                     [--gemini-dir DIR]... [--opencode-dir DIR]...

Reads what is new in Claude Code, Codex, GitHub Copilot CLI, Goose, Gemini
CLI and opencode transcripts into mcpcost's usage store, then reports from
the store, over all of its history unless told otherwise.

Transcripts are read from ~/.claude/projects and ~/.config/claude/projects
(or from each folder of CLAUDE_CONFIG_DIR, comma-separated), and from
$CODEX_HOME/sessions (default ~/.codex/sessions) and archived_sessions, and
from $COPILOT_HOME/session-state/<session>/events.jsonl (default
~/.copilot), from Goose's sessions.db ($GOOSE_PATH_ROOT/data/sessions,
default ~/.local/share/goose/sessions), which is read through a copy, never
opened in place, and read again whole when it changed, from Gemini CLI's
chats in tmp/<project>/chats/ under each folder of GEMINI_DATA_DIR
(comma-separated; default ~/.gemini), and from opencode's storage/ tree and
opencode.db in OPENCODE_DATA_DIR (default $XDG_DATA_HOME/opencode or
~/.local/share/opencode). Only
bytes not read before are read: the first run reads everything, later runs
only what the agents wrote since. The store keeps history that the agents
delete (Claude Code keeps 30 days by default).

Requests are de-duplicated as ccusage does: one per message id and request
id, or, for a request recorded without a request id (LLM gateways), per
message id, session and time; the copy kept is the main conversation's
before a sidechain's, then the one with the largest total, then the first in
path order. Daily totals equal ccusage's daily report. By session, Claude
Code's older sub-agent files (agent-<id>.jsonl beside the sessions, 2.0.x
to 2.1.1) are added to the session that started them; with --split-agents
each is a session of its own, as ccusage lists them, and per-session totals
equal ccusage's session report (but where a gateway reuses a message id
within a session: ccusage's session report keeps one of those requests,
its daily report and mcpcost every one).

By server and by tool, every tool call is paired with its result: calls,
errors, the result's exact o200k_base token count (total, average,
maximum; images and other non-text blocks are estimated and marked est.),
repeated calls with identical arguments, and latency p50/p95: the run time
the transcript records (Codex shell commands), else from the call to its
result as the agent logged them (this includes any wait for the user's
permission). A Codex shell command that exits non-zero is an error.
Arguments are never stored, only a keyed hash of them.

GitHub Copilot CLI records tokens only when a session shuts down, per model
and for the session so far: each shutdown counts what it adds (as ccusage's
copilot reports), at its time, and a row is a model's share of a shutdown,
not one request. Its MCP tools are attributed to the server the CLI names
(mcpServerName). Its totals are priced per kind of token, the part above a
long-context threshold at the long-context rate, as ccusage prices them.

Goose records tokens per session only: a session counts once, at its
creation, with its model, as ccusage's goose reports count it; the part of
its total beyond input and output is counted as output (and reasoning),
where ccusage shows it in the total only. Its tools are attributed to the
extension they belong to (<extension>__<tool>); every Goose extension is an
MCP server, its built-in ones included.

By week and by month, the periods, tokens and costs equal ccusage's weekly
and monthly reports: weeks start on Monday as in "ccusage weekly", or on
Sunday with --source claude as in "ccusage claude weekly"; --start-of-week
changes it. A week is named by its first day, a month as YYYY-MM.

By machine and by user, the rows are the machines and OS users that read
the requests: with a shared store (--store postgres://...), each machine
that pushed; with a local one, this machine and user alone. A request
seen on two machines (one session synced to two laptops) counts once,
under the machine that pushed it first.

Flags:
  --by DIM         server (default), tool, session, day, week, month, model,
                   project, machine or user
  --split-agents   by session: older sub-agent files as sessions of their own
  --days N         the last N days, today included (in --tz); 1 to 36525,
                   0 or none for all history
  --last N         by day, week or month: the last N periods, the current
                   one included (1 is today, this week or this month)
  --start-of-week DAY  by week: sunday, monday, ... (default: monday, or
                   sunday with --source claude, as ccusage)
  --breakdown      each day's, week's, month's, session's or project's
                   figures per model, under it
  --order O        asc (default: oldest first) or desc, by day, week, month
                   or session
  --since DATE     from DATE (YYYY-MM-DD, YYYYMMDD or RFC 3339)
  --until DATE     to DATE, inclusive for a day; after --since
  --project P      one project: its full path or its folder's name
  --source S       claude, codex, copilot (GitHub Copilot CLI), goose,
                   gemini (Gemini CLI), opencode or all (default)
  --tz ZONE        time zone for days and dates (default: $TZ, else the
                   system's zone, named as /etc/localtime names it)
  --json           the report as JSON (schema mcpcost.usage/v1)
  --markdown       the report as Markdown
  --csv            the rows as CSV, numbers unformatted (a breakdown's models
                   as lines of their own, naming the model)
  --compact        a narrow table: key, input, output, total, cost
  --db PATH        the local usage store (default: in the user's data
                   folder); PATH's folder must exist
` + storeFlagsUsage + `
  --no-ingest      report from the store without reading transcripts (with a
                   shared store: without pushing either)
  --prices FILE    a price table: mcpcost's format, or LiteLLM's
                   model_prices_and_context_window.json (see 'mcpcost help
                   prices')
  --mode M         how a request's cost is found, as ccusage's --mode: auto
                   (default: the cost Claude Code recorded in the line, costUSD,
                   when it did, else calculated from the prices), calculate
                   (always from the prices) or display (only recorded costs;
                   requests without one, Codex's among them, are unpriced)
  --claude-dir DIR Claude Code folder (a config folder or its projects/);
                   repeatable
  --codex-dir DIR  Codex folder (CODEX_HOME or its sessions/); repeatable
  --copilot-dir DIR  GitHub Copilot CLI folder (COPILOT_HOME or its
                   session-state/); repeatable
  --goose-dir DIR  Goose folder (GOOSE_PATH_ROOT, or the folder holding
                   sessions.db); repeatable
  --gemini-dir DIR Gemini CLI folder (GEMINI_DATA_DIR, ~/.gemini); repeatable
  --opencode-dir DIR
                   opencode folder (OPENCODE_DATA_DIR, ~/.local/share/opencode);
                   repeatable

Costs use the embedded price table (dated, sources named; 'mcpcost prices'
prints it); a model missing from it is shown as unpriced (null in JSON),
never guessed, and a total that leaves such requests out says it is
partial.`,
		Run: runUsage,
	})
}

func runUsage(env *Env, args []string) int {
	f := newFlags("usage")
	by := f.String("by", "server", "")
	splitAgents := f.Bool("split-agents", "")
	days := f.Int("days", 0, "")
	since := f.String("since", "", "")
	until := f.String("until", "", "")
	project := f.String("project", "", "")
	source := f.String("source", "all", "")
	tz := f.String("tz", "", "")
	asJSON := f.Bool("json", "")
	asMarkdown := f.Bool("markdown", "")
	asCSV := f.Bool("csv", "")
	compact := f.Bool("compact", "")
	last := f.Int("last", 0, "")
	startOfWeek := f.String("start-of-week", "", "")
	breakdown := f.Bool("breakdown", "")
	order := f.String("order", "", "")
	dbPath := f.String("db", "", "")
	sf := addStoreFlags(f)
	noIngest := f.Bool("no-ingest", "")
	pricesFile := f.String("prices", "", "")
	mode := f.String("mode", "auto", "")
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
	if len(pos) > 0 || len(rest) > 0 {
		return usageError(env, "usage", "usage takes no arguments (got %q)", append(pos, rest...)[0])
	}
	if forms := countTrue(*asJSON, *asMarkdown, *asCSV, *compact); forms > 1 {
		return usageError(env, "usage", "--json, --markdown, --csv and --compact exclude each other")
	}
	if f.Set("last") && *last == 0 {
		// 0 is app's "none"; given, it is out of range as -1 is.
		return usageError(env, "usage", "--last must be from 1 (this %s alone) to %d, not 0", *by, usage.MaxDays)
	}
	m := machine(env)
	m.DBPath, m.ClaudeDirs, m.CodexDirs = *dbPath, *claudeDirs, *codexDirs
	m.CopilotDirs, m.GooseDirs = *copilotDirs, *gooseDirs
	sf.apply(m)
	m.GeminiDirs, m.OpencodeDirs = *geminiDirs, *opencodeDirs
	if err := m.CheckInputs(); err != nil {
		return failCall(env, "usage", err)
	}
	rep, ingested, err := m.Usage(context.Background(), app.UsageOptions{
		Window:      usage.WindowArgs{Days: *days, Since: *since, Until: *until},
		TZ:          *tz,
		By:          *by,
		Project:     *project,
		Source:      *source,
		Machine:     *sf.machine,
		User:        *sf.user,
		Mode:        *mode,
		SplitAgents: *splitAgents,
		StartOfWeek: *startOfWeek,
		Breakdown:   *breakdown,
		Order:       *order,
		Last:        *last,
		PricesFile:  *pricesFile,
		Store:       app.StoreOptions{NoIngest: *noIngest, Progress: env.Progress()},
	})
	var noStore *app.NoStoreError
	if errors.As(err, &noStore) {
		return fail(env, withHint(err, "run 'mcpcost usage' without --no-ingest to create it"))
	}
	if err != nil {
		return failCall(env, "usage", err)
	}
	if ingested != nil {
		reportIngest(env, ingested)
	}
	if rep.TokensCapped {
		warnf(env, "%s", strings.TrimPrefix(usage.CappedNote, "warning: "))
	}
	switch {
	case *asJSON:
		err = render.JSON(env.Stdout, rep)
	case *asMarkdown:
		err = rep.WriteMarkdown(env.Stdout)
	case *asCSV:
		err = rep.WriteCSV(env.Stdout)
	case *compact:
		err = rep.WriteCompact(env.Stdout, env.Screen())
	default:
		err = rep.WriteText(env.Stdout, env.Screen())
	}
	if err != nil {
		return fail(env, err)
	}
	if (*sf.machine != "" || *sf.user != "") && rep.Totals.Requests == 0 && rep.Totals.ToolCalls == 0 {
		// --machine here keeps rows; it does not name this machine.
		hintf(env, "no rows of that machine or user: 'mcpcost usage --by machine' (or --by user) lists them; this machine's name is MCPCOST_MACHINE, else its host name")
	}
	if ingested != nil && ingested.Files == 0 && rep.Totals.Requests == 0 {
		noTranscriptsHint(env, "usage", folderFlags(*claudeDirs, *codexDirs, *geminiDirs, *opencodeDirs, *copilotDirs, *gooseDirs))
	}
	return ExitOK
}

// countTrue counts the flags set among bs.
func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// reportIngest prints what the ingest could not do.
func reportIngest(env *Env, s *app.IngestStats) {
	listed := 0
	for _, w := range s.Warnings {
		if strings.HasSuffix(w, "; cost ignored") {
			// The line is read, its recorded cost is not.
			warnf(env, "%s", w)
			continue
		}
		listed++
		warnf(env, "skipped: %s", w)
	}
	if n := s.Corrupt - listed; n > 0 && s.Corrupt > 0 {
		warnf(env, "%d more corrupt lines skipped", n)
	}
	if s.UsageSkipped > 0 {
		warnf(env, "%d lines with usage not counted, as ccusage does not count them (an empty or null id, a version that is not 1.2.3, a null or mistyped member)", s.UsageSkipped)
	}
	if !s.Skipped && s.Waited >= time.Second {
		warnf(env, "waited %s for another mcpcost process to finish reading transcripts", s.Waited.Round(time.Second))
	}
	if s.Skipped {
		warnf(env, "another mcpcost process has been reading transcripts for %s; this report shows the store as it is (partial)", s.Waited.Round(time.Second))
	}
	if s.Busy > 0 {
		warnf(env, "%d files were read by another mcpcost process at the same time; their lines are counted once", s.Busy)
	}
}
