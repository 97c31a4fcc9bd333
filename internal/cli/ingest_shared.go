package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// runtimeFlags are the flags findings and report share: the window, the
// store, the transcripts, the configs and the thresholds.
type runtimeFlags struct {
	days                        *int
	since, until, project, tz   *string
	dbPath, pricesFile, mode    *string
	noIngest, launch            *bool
	trustProject                *bool
	claudeDirs, codexDirs       *[]string
	copilotDirs, gooseDirs      *[]string
	store                       *storeFlags
	geminiDirs, opencodeDirs    *[]string
	configs, clientsWant        *[]string
	idleMin, resultAvg, outLim  *int
	repeatMin, toolTokens       *int
	repeatWindow, slowP50       *time.Duration
	timeout                     *time.Duration
	sessionUSD, cacheRatio, hiU *float64
}

// folders are the transcript folders named with the folder flags.
func (rf *runtimeFlags) folders() []string {
	return folderFlags(*rf.claudeDirs, *rf.codexDirs, *rf.geminiDirs, *rf.opencodeDirs, *rf.copilotDirs, *rf.gooseDirs)
}

func addRuntimeFlags(f *flags) *runtimeFlags {
	d := findings.Defaults()
	return &runtimeFlags{
		days:         f.Int("days", 0, ""),
		since:        f.String("since", "", ""),
		until:        f.String("until", "", ""),
		project:      f.String("project", "", ""),
		tz:           f.String("tz", "", ""),
		dbPath:       f.String("db", "", ""),
		pricesFile:   f.String("prices", "", ""),
		mode:         f.String("mode", "auto", ""),
		noIngest:     f.Bool("no-ingest", ""),
		launch:       f.Bool("launch", ""),
		timeout:      f.fs.Duration("timeout", app.DefaultTimeout, ""),
		trustProject: f.Bool("trust-project", ""),
		claudeDirs:   f.Strings("claude-dir", ""),
		codexDirs:    f.Strings("codex-dir", ""),
		copilotDirs:  f.Strings("copilot-dir", ""),
		gooseDirs:    f.Strings("goose-dir", ""),
		store:        addStoreFlags(f),
		geminiDirs:   f.Strings("gemini-dir", ""),
		opencodeDirs: f.Strings("opencode-dir", ""),
		configs:      f.Strings("config", ""),
		clientsWant:  f.Strings("client", ""),
		idleMin:      f.Int("idle-min-requests", d.IdleMinRequests, ""),
		resultAvg:    f.Int("result-avg", d.ResultAvgTokens, ""),
		outLim:       f.Int("output-limit", 0, ""),
		repeatMin:    f.Int("repeat-min", d.RepeatMin, ""),
		toolTokens:   f.Int("tool-threshold", d.ToolTokens, ""),
		repeatWindow: f.fs.Duration("repeat-window", d.RepeatWindow, ""),
		slowP50:      f.fs.Duration("slow", d.SlowP50, ""),
		sessionUSD:   f.fs.Float64("session-usd", d.SessionUSD, ""),
		cacheRatio:   f.fs.Float64("cache-ratio", d.CacheRatio, ""),
		hiU:          f.fs.Float64("high-usd", d.HighUSD, ""),
	}
}

const runtimeFlagsUsage = `Window and data:
  --days N               the last N days, today included (in --tz); 1 to
                         36525, 0 or none for all history
  --since DATE           from DATE (YYYY-MM-DD, YYYYMMDD or RFC 3339)
  --until DATE           to DATE, inclusive for a day; after --since
  --project P            sessions of one project (its path or folder name);
                         when P is a folder, its project configs are read
                         (default: the current folder's)
  --tz ZONE              time zone for days (default: $TZ, else the
                         system's zone, named as /etc/localtime names it)
  --db PATH              the local usage store (default: in the user's
                         data folder); PATH's folder must exist
` + storeFlagsUsageWide + `
  --no-ingest            use the store as it is, without reading transcripts
                         (with a shared store: without pushing either)
  --claude-dir DIR       Claude Code folder; repeatable
  --codex-dir DIR        Codex folder; repeatable
  --copilot-dir DIR      GitHub Copilot CLI folder (COPILOT_HOME); repeatable
  --goose-dir DIR        Goose folder (GOOSE_PATH_ROOT); repeatable
  --gemini-dir DIR       Gemini CLI folder (default GEMINI_DATA_DIR or
                         ~/.gemini); repeatable
  --opencode-dir DIR     opencode folder (default OPENCODE_DATA_DIR or
                         ~/.local/share/opencode); repeatable
  --prices FILE          a price table: mcpcost's format or LiteLLM's JSON
                         (see 'mcpcost help prices')
  --mode M               how a request's cost is found, as for 'mcpcost usage':
                         auto (default: the cost Claude Code recorded, else
                         from the prices), calculate or display
  --config PATH          judge this config file instead of those discovered
                         (repeatable)
  --client NAME          only this client's configs (repeatable); with
                         --config, read the files as this client reads its own
  --launch               measure servers missing from the measurement cache
                         (default: launch nothing, use the cache)
  --timeout DURATION     with --launch, the whole measurement of each server
                         (default 60s)
  --trust-project        also judge the servers of the project's own config
                         files that their client has no approval of
                         (needs-approval otherwise)

Thresholds (defaults in parentheses):
  --idle-min-requests N  judge a server idle only over N requests (10)
  --result-avg N         tool results averaging over N tokens (5000)
  --output-limit N       MAX_MCP_OUTPUT_TOKENS (read from the environment
                         or Claude Code's settings, else 25000); Claude Code
                         warns from 10000
  --repeat-window D      identical calls within D are repeats (10m)
  --repeat-min N         repeats of a tool that make a finding (2)
  --slow D               median latency over D (10s)
  --session-usd X        sessions that cost over X dollars (5)
  --cache-ratio X        cache writes over X times the reads, per project
                         and day, from 100,000 written tokens (1)
  --tool-threshold N     tool definitions over N tokens (1500)
  --high-usd X           an idle server or cache loss worth X dollars is
                         high (1)`

// compute validates the shared flags and computes the findings through
// app.Findings: what is new in the transcripts read into the store, the
// configs that apply audited from the cache (or measured, with --launch).
// It returns the exit code to use when ok is false.
func compute(env *Env, cmd string, f *flags, rf *runtimeFlags) (out *app.Findings, code int, ok bool) {
	for name, v := range map[string]int{"idle-min-requests": *rf.idleMin, "result-avg": *rf.resultAvg, "output-limit": *rf.outLim, "repeat-min": *rf.repeatMin, "tool-threshold": *rf.toolTokens} {
		if f.Set(name) && v <= 0 {
			return nil, usageError(env, cmd, "--%s must be a positive number, got %d", name, v), false
		}
	}
	for name, v := range map[string]float64{"session-usd": *rf.sessionUSD, "cache-ratio": *rf.cacheRatio, "high-usd": *rf.hiU} {
		if !(v > 0) || math.IsInf(v, 1) {
			return nil, usageError(env, cmd, "--%s must be a positive number", name), false
		}
	}
	if *rf.repeatWindow <= 0 || *rf.slowP50 <= 0 {
		return nil, usageError(env, cmd, "--repeat-window and --slow must be positive durations, such as 10m or 30s"), false
	}
	if *rf.timeout <= 0 {
		return nil, usageError(env, cmd, "--timeout must be a positive duration, such as 30s or 2m"), false
	}
	if !slices.Contains(usage.Modes, *rf.mode) {
		// Checked before anything is read or audited, as a flag is.
		return nil, badValue(env, cmd, "--mode ", *rf.mode, usage.Modes, fmt.Sprintf("--mode must be one of %s, not %q", strings.Join(usage.Modes, ", "), *rf.mode)), false
	}
	m := machine(env)
	m.DBPath, m.ClaudeDirs, m.CodexDirs = *rf.dbPath, *rf.claudeDirs, *rf.codexDirs
	m.CopilotDirs, m.GooseDirs = *rf.copilotDirs, *rf.gooseDirs
	rf.store.apply(m)
	m.GeminiDirs, m.OpencodeDirs = *rf.geminiDirs, *rf.opencodeDirs
	if err := m.CheckInputs(); err != nil {
		return nil, failCall(env, cmd, err), false
	}
	out, err := m.Findings(context.Background(), app.FindingsOptions{
		Window:     usage.WindowArgs{Days: *rf.days, Since: *rf.since, Until: *rf.until},
		TZ:         *rf.tz,
		Project:    *rf.project,
		Machine:    *rf.store.machine,
		User:       *rf.store.user,
		PricesFile: *rf.pricesFile,
		Mode:       *rf.mode,
		Thresholds: findings.Thresholds{
			IdleMinRequests: *rf.idleMin, ResultAvgTokens: *rf.resultAvg, RepeatWindow: *rf.repeatWindow, RepeatMin: *rf.repeatMin,
			SlowP50: *rf.slowP50, SessionUSD: *rf.sessionUSD, CacheRatio: *rf.cacheRatio, ToolTokens: *rf.toolTokens, HighUSD: *rf.hiU,
			OutputLimit: *rf.outLim,
		},
		Configs:      *rf.configs,
		Clients:      *rf.clientsWant,
		TrustProject: *rf.trustProject,
		Launch:       *rf.launch,
		Timeout:      *rf.timeout,
		Progress:     env.Progress(),
		Store:        app.StoreOptions{NoIngest: *rf.noIngest, Progress: env.Progress()},
	})
	var noStore *app.NoStoreError
	if errors.As(err, &noStore) {
		return nil, fail(env, withHint(err, "run without --no-ingest to create it")), false
	}
	if err != nil {
		return nil, failCall(env, cmd, err), false
	}
	if out.Ingest != nil {
		reportIngest(env, out.Ingest)
	}
	if n := needApproval(out.Static); n > 0 {
		hintf(env, "%d %s of the project's own config files %s not judged: %s approval ('mcpcost audit' says how), or --trust-project",
			n, num.Plural(n, "server", "servers"), num.Plural(n, "was", "were"), num.Plural(n, "it needs", "they need"))
	}
	return out, ExitOK, true
}
