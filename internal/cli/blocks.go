package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/usage"
)

func init() {
	register(&Command{
		Name:  "blocks",
		Short: "Claude Code's 5-hour billing blocks: the active one, its burn rate",
		Usage: `usage: mcpcost blocks [--active | --recent] [--token-limit N|max]
                      [--session-length HOURS] [--live [--refresh SECONDS]]
                      [--days N | --since DATE --until DATE] [--order asc|desc]
                      [--tz ZONE] [--json | --compact] [--db PATH] [--no-ingest]
                      [--store URL] [--machine NAME] [--user NAME]
                      [--redact-projects]
                      [--prices FILE] [--mode auto|calculate|display]
                      [--claude-dir DIR]... [--codex-dir DIR]...
                      [--gemini-dir DIR]... [--opencode-dir DIR]...

Reads what is new in Claude Code's transcripts into mcpcost's usage store,
as 'mcpcost usage' does, then draws the 5-hour billing blocks as ccusage's
blocks report draws them: a block starts at the hour (UTC) of its first
request and lasts five hours; a request after its end, or more than five
hours after the request before it, starts the next one, and such a pause
is listed as a gap. The block still open at this moment (a request in the
last five hours, and its five hours not over) is active: its burn rate is
its tokens a minute and dollars an hour from its first request to its
last, and its projection what it reaches at that rate by its end. A block
in which Claude Code refused a request at the usage limit says when the
limit resets (usageLimitResetTime, as ccusage reads it). The table's
STATUS reads "done, 30m" for a finished block (first request to last),
"ACTIVE, 2h 47m left" for the active one, "gap of 6h 10m" for a pause.
The JSON (schema mcpcost.blocks/v1) names the figures as "ccusage blocks --json"
does, and adds each block's tool calls, MCP calls and MCP result tokens.

Flags:
  --active         the active block alone
  --recent         the blocks that started in the last three days, and the
                   active one
  --token-limit L  a number of tokens, or max (the most a finished block
                   used): the active block's projection against it, ok,
                   warning (above 80%) or exceeds
  --session-length H
                   a block's length in hours (default 5; a decimal number,
                   as ccusage's --session-length)
  --live           redraw the active block in place every --refresh seconds
                   until interrupted (Ctrl-C); where the output is not a
                   terminal, each refresh is printed after the one before;
                   not with --json
  --refresh S      seconds between redraws with --live: 1 to 3600 (default 5)
  --days N         the blocks that started in the last N days (in --tz)
  --since DATE     the blocks that started from DATE (YYYY-MM-DD, YYYYMMDD
                   or RFC 3339)
  --until DATE     the blocks that started up to DATE, inclusive for a day
  --order O        asc (default: oldest first) or desc
  --tz ZONE        time zone for times and dates (default: $TZ, else the
                   system's zone, named as /etc/localtime names it)
  --json           the report as JSON (schema mcpcost.blocks/v1)
  --compact        a narrow table: start, status, tokens, cost
  --db PATH        the local usage store (default: in the user's data
                   folder); PATH's folder must exist
` + storeFlagsUsage + `
  --no-ingest      report from the store without reading transcripts (with a
                   shared store: without pushing either)
  --prices FILE    a price table (see 'mcpcost help prices')
  --mode M         auto (default), calculate or display, as 'mcpcost usage'
  --claude-dir DIR Claude Code folder (a config folder or its projects/);
                   repeatable
  --codex-dir DIR  Codex folder, read into the store as 'mcpcost usage' reads
                   it (Codex has no blocks); repeatable
  --gemini-dir DIR Gemini CLI folder, read likewise (no blocks); repeatable
  --opencode-dir DIR
                   opencode folder, read likewise (no blocks); repeatable`,
		Run: runBlocks,
	})
}

func runBlocks(env *Env, args []string) int {
	f := newFlags("blocks")
	active := f.Bool("active", "")
	recent := f.Bool("recent", "")
	tokenLimit := f.String("token-limit", "", "")
	sessionLength := f.String("session-length", "", "")
	live := f.Bool("live", "")
	refresh := f.Int("refresh", 5, "")
	days := f.Int("days", 0, "")
	since := f.String("since", "", "")
	until := f.String("until", "", "")
	order := f.String("order", "", "")
	tz := f.String("tz", "", "")
	asJSON := f.Bool("json", "")
	compact := f.Bool("compact", "")
	dbPath := f.String("db", "", "")
	sf := addStoreFlags(f)
	noIngest := f.Bool("no-ingest", "")
	pricesFile := f.String("prices", "", "")
	mode := f.String("mode", "auto", "")
	claudeDirs := f.Strings("claude-dir", "")
	codexDirs := f.Strings("codex-dir", "")
	geminiDirs := f.Strings("gemini-dir", "")
	opencodeDirs := f.Strings("opencode-dir", "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(pos) > 0 || len(rest) > 0 {
		return usageError(env, "blocks", "blocks takes no arguments (got %q)", append(pos, rest...)[0])
	}
	if *asJSON && *compact {
		return usageError(env, "blocks", "--json and --compact exclude each other")
	}
	if f.Set("refresh") && !*live {
		return usageError(env, "blocks", "--refresh goes with --live")
	}
	if *refresh < 1 || *refresh > 3600 {
		return usageError(env, "blocks", "--refresh must be from 1 to 3600 seconds, not %d", *refresh)
	}
	if *live && *asJSON {
		// Frames of indented JSON one after another are no document a
		// reader can parse; a program polls --active --json instead.
		return usageError(env, "blocks", "--live redraws a table: for JSON, run 'mcpcost blocks --active --json' as often as needed")
	}
	if *live && *recent {
		return usageError(env, "blocks", "--live shows the active block: it excludes --recent")
	}
	var hours float64
	if f.Set("session-length") {
		h, err := strconv.ParseFloat(strings.TrimSpace(*sessionLength), 64)
		if err != nil || h == 0 {
			return usageError(env, "blocks", "--session-length must be a positive number of hours, not %q", *sessionLength)
		}
		hours = h
	}
	m := machine(env)
	m.DBPath, m.ClaudeDirs, m.CodexDirs = *dbPath, *claudeDirs, *codexDirs
	sf.apply(m)
	m.GeminiDirs, m.OpencodeDirs = *geminiDirs, *opencodeDirs
	if err := m.CheckInputs(); err != nil {
		return failCall(env, "blocks", err)
	}
	opts := app.BlocksOptions{
		Machine:       *sf.machine,
		User:          *sf.user,
		Window:        usage.WindowArgs{Days: *days, Since: *since, Until: *until},
		TZ:            *tz,
		Mode:          *mode,
		TokenLimit:    *tokenLimit,
		Active:        *active || *live,
		Recent:        *recent,
		Order:         *order,
		SessionLength: hours,
		PricesFile:    *pricesFile,
		Store:         app.StoreOptions{NoIngest: *noIngest, Progress: env.Progress()},
	}
	write := func(w io.Writer, rep *usage.BlocksReport) error {
		switch {
		case *asJSON:
			return render.JSON(w, rep)
		case *compact:
			return rep.WriteCompact(w, env.Screen())
		}
		return rep.WriteText(w, env.Screen())
	}
	if !*live {
		rep, ingested, err := m.Blocks(context.Background(), opts)
		if code, done := blocksFailed(env, err); done {
			return code
		}
		if ingested != nil {
			reportIngest(env, ingested)
		}
		if rep.TokensCapped {
			warnf(env, "%s", strings.TrimPrefix(usage.CappedNote, "warning: "))
		}
		if err := write(env.Stdout, rep); err != nil {
			return fail(env, err)
		}
		return ExitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tty := env.StdoutTTY
	if tty {
		env.Stdout.Write([]byte("\x1b[?25l")) // the cursor hidden while redrawing
		defer env.Stdout.Write([]byte("\x1b[?25h"))
	}
	for frame := 0; ; frame++ {
		opts.Store.Progress = nil
		rep, ingested, err := m.Blocks(ctx, opts)
		if ctx.Err() != nil {
			return ExitOK
		}
		if code, done := blocksFailed(env, err); done {
			return code
		}
		if ingested != nil && frame == 0 {
			reportIngest(env, ingested)
		}
		var b bytes.Buffer
		if err := write(&b, rep); err != nil {
			return fail(env, err)
		}
		var out []byte
		switch {
		case tty:
			out = []byte(redrawScreen(b.String(), frame == 0))
		case frame > 0:
			out = append([]byte("\n"), b.Bytes()...)
		default:
			out = b.Bytes()
		}
		if _, err := env.Stdout.Write(out); err != nil {
			return fail(env, err)
		}
		select {
		case <-ctx.Done():
			return ExitOK
		case <-time.After(time.Duration(*refresh) * time.Second):
		}
	}
}

// blocksFailed prints err with its hint; done is false when there is none.
func blocksFailed(env *Env, err error) (code int, done bool) {
	if err == nil {
		return 0, false
	}
	var noStore *app.NoStoreError
	if errors.As(err, &noStore) {
		return fail(env, withHint(err, "run 'mcpcost blocks' without --no-ingest to create it")), true
	}
	return failCall(env, "blocks", err), true
}
