package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	_ "time/tzdata" // --tz works on machines without a zoneinfo database

	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/usage"
)

func init() {
	register(&Command{
		Name:  "usage",
		Short: "what the sessions you ran cost: requests, tokens, prices, per MCP server and tool",
		Usage: `mcpcost usage [--by server|tool|session|day|model|project] [--split-agents] [--days N | --since DATE --until DATE]
              [--project PATH] [--source claude|codex|all] [--tz ZONE] [--json | --markdown]
              [--db PATH] [--no-ingest] [--prices FILE] [--mode auto|calculate|display]
              [--claude-dir DIR]... [--codex-dir DIR]...

Reads what is new in Claude Code and Codex transcripts into mcpcost's usage
store, then reports from the store, over all of its history unless told
otherwise.

Transcripts are read from ~/.claude/projects and ~/.config/claude/projects
(or from each folder of CLAUDE_CONFIG_DIR, comma-separated), and from
$CODEX_HOME/sessions (default ~/.codex/sessions) and archived_sessions. Only
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
permission). A Codex shell command that exits non-zero is an error. Arguments are never stored, only a keyed hash of them.

Flags:
  --by DIM         server (default), tool, session, day, model or project
  --split-agents   by session: older sub-agent files as sessions of their own
  --days N         the last N days, today included (in --tz); 1 to 36525,
                   0 or none for all history
  --since DATE     from DATE (YYYY-MM-DD, YYYYMMDD or RFC 3339)
  --until DATE     to DATE, inclusive for a day; after --since
  --project P      one project: its full path or its folder's name
  --source S       claude, codex or all (default)
  --tz ZONE        time zone for days and dates (default: local)
  --json           the report as JSON (schema mcpcost.usage/v1)
  --markdown       the report as Markdown
  --db PATH        the usage store (default: in the user's data folder)
  --no-ingest      report from the store without reading transcripts
  --prices FILE    a price table: mcpcost's format, or LiteLLM's
                   model_prices_and_context_window.json (see 'mcpcost help prices')
  --mode M         how a request's cost is found, as ccusage's --mode: auto
                   (default: the cost Claude Code recorded in the line, costUSD,
                   when it did, else calculated from the prices), calculate
                   (always from the prices) or display (only recorded costs;
                   requests without one, Codex's among them, are unpriced)
  --claude-dir DIR Claude Code folder (a config folder or its projects/); repeatable
  --codex-dir DIR  Codex folder (CODEX_HOME or its sessions/); repeatable

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
	dbPath := f.String("db", "", "")
	noIngest := f.Bool("no-ingest", "")
	pricesFile := f.String("prices", "", "")
	mode := f.String("mode", "auto", "")
	claudeDirs := f.Strings("claude-dir", "")
	codexDirs := f.Strings("codex-dir", "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(pos) > 0 || len(rest) > 0 {
		return usageError(env, "usage", "usage takes no arguments (got %q)", append(pos, rest...)[0])
	}
	if *asJSON && *asMarkdown {
		return usageError(env, "usage", "--json and --markdown exclude each other")
	}
	o := usage.Options{By: *by, Project: *project, Source: *source, Mode: *mode, Now: env.Now(), SplitAgents: *splitAgents}
	validMode := false
	for _, m := range usage.Modes {
		validMode = validMode || m == o.Mode
	}
	if !validMode {
		return usageError(env, "usage", "--mode must be one of %s, not %q", strings.Join(usage.Modes, ", "), o.Mode)
	}
	switch o.Source {
	case "claude", "codex", "all":
	default:
		return usageError(env, "usage", "--source must be claude, codex or all, not %q", o.Source)
	}
	valid := false
	for _, d := range usage.Dimensions {
		valid = valid || d == o.By
	}
	if !valid {
		return usageError(env, "usage", "--by must be one of %s, not %q", strings.Join(usage.Dimensions, ", "), o.By)
	}
	if o.SplitAgents && o.By != "session" {
		return usageError(env, "usage", "--split-agents goes with --by session")
	}
	loc, err := location(env, *tz)
	if err != nil {
		return usageError(env, "usage", "--tz: %v", err)
	}
	o.Location = loc
	if o.Since, o.Until, err = (usage.WindowArgs{Days: *days, Since: *since, Until: *until}).Window(env.Now(), loc, "--"); err != nil {
		return usageError(env, "usage", "%v", err)
	}
	if *pricesFile != "" {
		if o.Prices, err = usage.LoadPrices(*pricesFile); err != nil {
			return fail(env, err)
		}
	}

	path := *dbPath
	if path == "" {
		if path, err = defaultDB(env); err != nil {
			return fail(env, withHint(err, "name a store with --db PATH"))
		}
	}
	if *noIngest {
		if _, err := os.Stat(path); err != nil {
			return fail(env, withHint(fmt.Errorf("no usage store at %s", path), "run 'mcpcost usage' without --no-ingest to create it"))
		}
	}
	// A report from the store as it is writes nothing: it opens on a full
	// disk or a read-only folder, and repairs nothing.
	open := store.Open
	if *noIngest {
		open = store.OpenReadOnly
	}
	st, err := open(path)
	if err != nil {
		return fail(env, err)
	}
	defer st.Close()

	ctx := context.Background()
	var ingested *store.IngestStats
	if !*noIngest {
		claude, codex := transcriptRoots(env, *claudeDirs, *codexDirs)
		ingested, err = st.Ingest(ctx, store.IngestOptions{
			ClaudeRoots: claude,
			CodexRoots:  codex,
			Count:       token.O200k().Count,
			Progress:    env.Progress(),
		})
		if err != nil {
			return fail(env, fmt.Errorf("reading transcripts into %s: %w", path, err))
		}
		reportIngest(env, ingested)
	}
	rep, err := usage.Build(ctx, st.DB(), o)
	if err != nil {
		return fail(env, err)
	}
	if ingested != nil {
		rep.Ingest = ingested
	}
	switch {
	case *asJSON:
		err = render.JSON(env.Stdout, rep)
	case *asMarkdown:
		err = rep.WriteMarkdown(env.Stdout)
	default:
		err = rep.WriteText(env.Stdout)
	}
	if err != nil {
		return fail(env, err)
	}
	if ingested != nil && ingested.Files == 0 && rep.Totals.Requests == 0 {
		hintf(env, "no Claude Code or Codex transcripts were found; name their folders with --claude-dir or --codex-dir")
	}
	return ExitOK
}

// reportIngest prints what the ingest could not do.
func reportIngest(env *Env, s *store.IngestStats) {
	for _, w := range s.Warnings {
		warnf(env, "skipped: %s", w)
	}
	if n := s.Corrupt - len(s.Warnings); n > 0 && s.Corrupt > 0 {
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

// location resolves --tz: an IANA name, "UTC" or "local" (default: TZ or
// the system's zone).
func location(env *Env, tz string) (*time.Location, error) {
	if tz == "" {
		tz = env.Getenv("TZ")
	}
	switch strings.ToLower(tz) {
	case "", "local":
		return time.Local, nil
	case "utc", "z":
		return time.UTC, nil
	}
	return time.LoadLocation(tz)
}

func home(env *Env) string {
	if h := env.Getenv("HOME"); h != "" {
		return h
	}
	if h := env.Getenv("USERPROFILE"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// defaultDB is the usage store in the user's data folder.
func defaultDB(env *Env) (string, error) {
	var dir string
	switch runtime.GOOS {
	case "windows":
		dir = env.Getenv("LOCALAPPDATA")
		if dir == "" && home(env) != "" {
			dir = filepath.Join(home(env), "AppData", "Local")
		}
	case "darwin":
		if h := home(env); h != "" {
			dir = filepath.Join(h, "Library", "Application Support")
		}
	default:
		dir = env.Getenv("XDG_DATA_HOME")
		if dir == "" && home(env) != "" {
			dir = filepath.Join(home(env), ".local", "share")
		}
	}
	if dir == "" {
		return "", fmt.Errorf("no home folder to keep the usage store in")
	}
	return filepath.Join(dir, "mcpcost", "usage.db"), nil
}

// transcriptRoots lists the folders to read transcripts from.
func transcriptRoots(env *Env, claudeDirs, codexDirs []string) (claude, codex []string) {
	h := home(env)
	if len(claudeDirs) == 0 {
		if v := env.Getenv("CLAUDE_CONFIG_DIR"); v != "" {
			claudeDirs = splitList(v)
		} else if h != "" {
			cfg := env.Getenv("XDG_CONFIG_HOME")
			if cfg == "" {
				cfg = filepath.Join(h, ".config")
			}
			claudeDirs = []string{filepath.Join(cfg, "claude"), filepath.Join(h, ".claude")}
		}
	}
	for _, d := range claudeDirs {
		if isDir(filepath.Join(d, "projects")) {
			d = filepath.Join(d, "projects")
		}
		claude = append(claude, d)
	}
	if len(codexDirs) == 0 {
		if v := env.Getenv("CODEX_HOME"); v != "" {
			codexDirs = splitList(v)
		} else if h != "" {
			codexDirs = []string{filepath.Join(h, ".codex")}
		}
	}
	for _, d := range codexDirs {
		if isDir(filepath.Join(d, "sessions")) || isDir(filepath.Join(d, "archived_sessions")) {
			codex = append(codex, filepath.Join(d, "sessions"), filepath.Join(d, "archived_sessions"))
			continue
		}
		codex = append(codex, d)
	}
	return claude, codex
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
