package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// runtimeFlags are the flags findings and report share: the window, the
// store, the transcripts, the configs and the thresholds.
type runtimeFlags struct {
	days                        *int
	since, until, project, tz   *string
	dbPath, pricesFile          *string
	noIngest, launch            *bool
	trustProject                *bool
	claudeDirs, codexDirs       *[]string
	configs, clientsWant        *[]string
	idleMin, resultAvg, outLim  *int
	repeatMin, toolTokens       *int
	repeatWindow, slowP50       *time.Duration
	sessionUSD, cacheRatio, hiU *float64
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
		noIngest:     f.Bool("no-ingest", ""),
		launch:       f.Bool("launch", ""),
		trustProject: f.Bool("trust-project", ""),
		claudeDirs:   f.Strings("claude-dir", ""),
		codexDirs:    f.Strings("codex-dir", ""),
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
  --tz ZONE              time zone for days (default: local)
  --db PATH              the usage store (default: in the user's data folder)
  --no-ingest            use the store as it is, without reading transcripts
  --claude-dir DIR       Claude Code folder; repeatable
  --codex-dir DIR        Codex folder; repeatable
  --prices FILE          a price table: mcpcost's format or LiteLLM's JSON (see 'mcpcost help prices')
  --config PATH          judge this config file instead of those discovered
                         (repeatable)
  --client NAME          only this client's configs (repeatable)
  --launch               measure servers missing from the measurement cache
                         (default: launch nothing, use the cache)
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
  --high-usd X           an idle server or cache loss worth X dollars is high (1)`

// runtimeInputs is what findings and report compute from.
type runtimeInputs struct {
	st      *store.Store
	static  *audit.Report
	opts    findings.Options
	ingest  *store.IngestStats
	outFrom string // where the output limit was read
}

func (in *runtimeInputs) close() {
	if in.st != nil {
		in.st.Close()
	}
}

// prepare validates the shared flags, ingests what is new, and runs the
// static audit from the cache (or measuring with --launch). It returns
// the exit code to use when ok is false.
func prepare(env *Env, cmd string, f *flags, rf *runtimeFlags) (in *runtimeInputs, code int, ok bool) {
	in = &runtimeInputs{}
	o := &in.opts
	o.Project = *rf.project
	o.Now = env.Now()
	loc, err := location(env, *rf.tz)
	if err != nil {
		return nil, usageError(env, cmd, "--tz: %v", err), false
	}
	o.Location = loc
	if o.Since, o.Until, err = (usage.WindowArgs{Days: *rf.days, Since: *rf.since, Until: *rf.until}).Window(o.Now, loc, "--"); err != nil {
		return nil, usageError(env, cmd, "%v", err), false
	}
	for name, v := range map[string]int{"idle-min-requests": *rf.idleMin, "result-avg": *rf.resultAvg, "output-limit": *rf.outLim, "repeat-min": *rf.repeatMin, "tool-threshold": *rf.toolTokens} {
		if f.Set(name) && v <= 0 {
			return nil, usageError(env, cmd, "--%s must be a positive number, got %d", name, v), false
		}
	}
	for name, v := range map[string]float64{"session-usd": *rf.sessionUSD, "cache-ratio": *rf.cacheRatio, "high-usd": *rf.hiU} {
		if v <= 0 {
			return nil, usageError(env, cmd, "--%s must be a positive number", name), false
		}
	}
	if *rf.repeatWindow <= 0 || *rf.slowP50 <= 0 {
		return nil, usageError(env, cmd, "--repeat-window and --slow must be positive durations, such as 10m or 30s"), false
	}
	prices := usage.DefaultPrices()
	if *rf.pricesFile != "" {
		if prices, err = usage.LoadPrices(*rf.pricesFile); err != nil {
			return nil, fail(env, err), false
		}
	}
	o.Pricing, o.PricesUpdated = prices.FindingsPricing(), prices.Updated
	var want []string
	for _, n := range *rf.clientsWant {
		for _, part := range strings.Split(n, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			if !clients.Known(part) {
				return nil, usageError(env, cmd, "unknown client %q (known: %s)", part, strings.Join(clients.Clients(), ", ")), false
			}
			want = append(want, part)
		}
	}

	// The project whose project configs are read: --project when it is a
	// folder, else the current folder.
	dir := ""
	if p := *rf.project; p != "" && isDir(p) {
		dir = p
		if abs, err := filepath.Abs(p); err == nil {
			o.Project = abs // a relative folder filters by its full path
		}
	}
	sys, err := clients.Local(env.Getenv, dir)
	if err != nil {
		return nil, fail(env, err), false
	}
	o.Cwd = sys.Cwd
	sys.TrustProject = *rf.trustProject

	o.Thresholds = findings.Thresholds{
		IdleMinRequests: *rf.idleMin, ResultAvgTokens: *rf.resultAvg, RepeatWindow: *rf.repeatWindow, RepeatMin: *rf.repeatMin,
		SlowP50: *rf.slowP50, SessionUSD: *rf.sessionUSD, CacheRatio: *rf.cacheRatio, ToolTokens: *rf.toolTokens, HighUSD: *rf.hiU,
	}
	if *rf.outLim > 0 {
		o.Thresholds.OutputLimit, in.outFrom = *rf.outLim, "--output-limit"
	} else if n, from := outputLimit(env, sys); n > 0 {
		o.Thresholds.OutputLimit, in.outFrom = n, from
	}

	// The usage store, with what is new.
	path := *rf.dbPath
	if path == "" {
		if path, err = defaultDB(env); err != nil {
			return nil, fail(env, withHint(err, "name a store with --db PATH")), false
		}
	}
	if *rf.noIngest {
		if _, err := os.Stat(path); err != nil {
			return nil, fail(env, withHint(fmt.Errorf("no usage store at %s", path), "run without --no-ingest to create it")), false
		}
	}
	open := store.Open
	if *rf.noIngest {
		open = store.OpenReadOnly // reading writes nothing
	}
	if in.st, err = open(path); err != nil {
		return nil, fail(env, err), false
	}
	ctx := context.Background()
	if !*rf.noIngest {
		claude, codex := transcriptRoots(env, *rf.claudeDirs, *rf.codexDirs)
		in.ingest, err = in.st.Ingest(ctx, store.IngestOptions{
			ClaudeRoots: claude,
			CodexRoots:  codex,
			Count:       token.O200k().Count,
			Progress:    env.Progress(),
		})
		if err != nil {
			in.close()
			return nil, fail(env, fmt.Errorf("reading transcripts into %s: %w", path, err)), false
		}
		reportIngest(env, in.ingest)
	}

	// The static half: the configs that apply, measured from the cache.
	var configs []clients.Config
	if len(*rf.configs) > 0 {
		for _, p := range *rf.configs {
			cfg, err := clients.Load(sys, p)
			if err != nil {
				in.close()
				return nil, fail(env, err), false
			}
			configs = append(configs, cfg)
		}
	} else {
		configs, _ = clients.Discover(sys, want)
	}
	var cache *audit.Cache
	if cdir, err := audit.DefaultCacheDir(env.Getenv); err == nil {
		if cache, err = audit.OpenCache(cdir, audit.DefaultMaxAge); err != nil {
			warnf(env, "measurement cache unavailable: %v", err)
			cache = nil
		}
	}
	if cache == nil && !*rf.launch {
		warnf(env, "no measurement cache: configured servers are not judged (measure them with --launch)")
	}
	in.static = audit.Run(ctx, configs, audit.Options{
		Cache:     cache,
		Offline:   !*rf.launch,
		Measure:   mcpclient.Options{ClientVersion: Version()},
		Posture:   func(client string) clients.Posture { return clients.PostureFor(sys, client) },
		Now:       env.Now,
		Generator: "mcpcost " + Version(),
		Progress:  env.Progress(),
	})
	if n := needApproval(in.static); n > 0 {
		hintf(env, "%d %s of the project's own config files %s not judged: %s approval ('mcpcost audit' says how), or --trust-project",
			n, pluralWord(n, "server", "servers"), pluralWord(n, "was", "were"), pluralWord(n, "it needs", "they need"))
	}
	if cache != nil {
		o.Descriptions = cachedDescriptions(configs, cache, env.Now())
	}
	o.PreApproved = claudeApprovals(env)
	o.ConfigModified = func(path string) time.Time {
		if fi, err := os.Stat(path); err == nil {
			return fi.ModTime()
		}
		return time.Time{}
	}
	return in, ExitOK, true
}

// cachedDescriptions reads tool descriptions from the measurement cache,
// for the exact length of Claude Code's 2 KB cut.
func cachedDescriptions(configs []clients.Config, cache *audit.Cache, now time.Time) func(findings.ConfigRef, string) map[string]string {
	return func(ref findings.ConfigRef, server string) map[string]string {
		for _, c := range configs {
			if c.Client != ref.Client || c.Path != ref.Path || c.Scope != ref.Scope {
				continue
			}
			for _, s := range c.Servers {
				if s.Name != server || !s.Launchable() {
					continue
				}
				e, _ := cache.Get(s.LaunchKey(cache.Key()), now)
				if e == nil {
					return nil
				}
				var tools []struct {
					Name        string  `json:"name"`
					Description *string `json:"description"`
				}
				if json.Unmarshal(e.Tools, &tools) != nil {
					return nil
				}
				m := map[string]string{}
				for _, t := range tools {
					if t.Description != nil {
						m[t.Name] = *t.Description
					}
				}
				return m
			}
		}
		return nil
	}
}

// outputLimit reads MAX_MCP_OUTPUT_TOKENS as Claude Code would: from the
// env block of its settings files (local, project, user), then the shell.
func outputLimit(env *Env, sys clients.System) (int, string) {
	const name = "MAX_MCP_OUTPUT_TOKENS"
	cfg := env.Getenv("CLAUDE_CONFIG_DIR")
	if cfg == "" {
		cfg = filepath.Join(home(env), ".claude")
	}
	for _, p := range []string{
		filepath.Join(sys.Cwd, ".claude", "settings.local.json"),
		filepath.Join(sys.Cwd, ".claude", "settings.json"),
		filepath.Join(cfg, "settings.json"),
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var top struct {
			Env map[string]any `json:"env"`
		}
		if json.Unmarshal(data, &top) != nil {
			continue
		}
		if v, ok := top.Env[name].(string); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n, p
			}
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(env.Getenv(name))); err == nil && n > 0 {
		return n, name + " in the environment"
	}
	return 0, ""
}

// approvals are the permission rules of one settings file that let tools
// run without asking.
type approvals struct {
	allow  []string
	bypass bool
}

func readApprovals(path string) approvals {
	data, err := os.ReadFile(path)
	if err != nil {
		return approvals{}
	}
	var top struct {
		Permissions struct {
			Allow       []string `json:"allow"`
			DefaultMode string   `json:"defaultMode"`
		} `json:"permissions"`
	}
	if json.Unmarshal(data, &top) != nil {
		return approvals{}
	}
	return approvals{allow: top.Permissions.Allow, bypass: top.Permissions.DefaultMode == "bypassPermissions"}
}

// allows matches Claude Code's MCP permission rules: mcp__server (every
// tool of the server), mcp__server__* and mcp__server__tool.
func (a approvals) allows(server, tool string) bool {
	if a.bypass {
		return true
	}
	for _, r := range a.allow {
		r = strings.TrimSpace(r)
		if r == "mcp__"+server || r == "mcp__"+server+"__*" || r == "mcp__"+server+"__"+tool {
			return true
		}
	}
	return false
}

// claudeApprovals reports whether Claude Code's settings (the user's, and
// the project's shared and local ones) let a tool run without asking in a
// project.
func claudeApprovals(env *Env) func(source, project, server, tool string) bool {
	cfg := env.Getenv("CLAUDE_CONFIG_DIR")
	if cfg == "" {
		cfg = filepath.Join(home(env), ".claude")
	}
	user := readApprovals(filepath.Join(cfg, "settings.json"))
	perProject := map[string][2]approvals{}
	return func(source, project, server, tool string) bool {
		if source != "claude" {
			return false
		}
		if user.allows(server, tool) {
			return true
		}
		if project == "" {
			return false
		}
		p, ok := perProject[project]
		if !ok {
			p = [2]approvals{readApprovals(filepath.Join(project, ".claude", "settings.json")), readApprovals(filepath.Join(project, ".claude", "settings.local.json"))}
			perProject[project] = p
		}
		return p[0].allows(server, tool) || p[1].allows(server, tool)
	}
}
