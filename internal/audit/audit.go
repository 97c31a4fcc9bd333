package audit

import (
	"context"
	"crypto/rand"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/token"
)

// Statuses of servers that were not measured for a reason of their own
// entry or of the run (see package status).
const (
	StatusDisabled      = string(status.Disabled)
	StatusOverridden    = string(status.Overridden)
	StatusNeedsInput    = string(status.NeedsInput)
	StatusProblem       = string(status.Problem)
	StatusNeedsApproval = string(status.NeedsApproval)
	StatusNotLaunched   = string(status.NotLaunched)
	StatusNotCached     = string(status.NotCached)
	StatusExtension     = string(status.Extension)
)

// DefaultConcurrency is how many servers an audit launches at once by
// default: every server of a usual config (a handful, rarely more than a
// dozen) together, since a measurement mostly waits on the server's
// start-up and answers, so that the audit takes about as long as its
// slowest server; and a bound on the processes (a Node server holds some
// 50 MB) and pipes for the rare config with dozens.
const DefaultConcurrency = 16

// Options tune an audit.
type Options struct {
	ContextWindow   int
	Budget          int // 0: no budget gate
	Threshold       int // 0: no per-tool threshold gate
	AllowUnmeasured bool

	// Cache, when set, is read before launching and written after.
	Cache *Cache
	// Refresh measures even what the cache holds fresh.
	Refresh bool
	// Offline reports only from the cache, whatever its age.
	Offline bool
	// NoLaunch launches nothing and lists what would be launched.
	NoLaunch bool
	// Strict launches each server twice (two captures, as measure does).
	// By default each is launched once and listed twice in that session:
	// a server whose tools change from one list to the next is found so,
	// and one whose tools change only from launch to launch is found only
	// against its previous capture in the cache, or with Strict.
	Strict bool
	// Sessions builds the session view of each client in Folder, the
	// project folder, from the configs (discovered, so each client's files
	// are all there, settled by its precedence), and has the gates judge
	// the sessions instead of the files.
	Sessions bool
	Folder   string

	Measure mcpclient.Options
	// Concurrency bounds the servers launched at once (<= 0:
	// DefaultConcurrency).
	Concurrency int
	// Posture returns a client's deferral posture (nil: every client is
	// read as having no record).
	Posture func(client string) clients.Posture
	// Measurer replaces mcpclient.MeasureAll (tests).
	Measurer func(ctx context.Context, ts []mcpclient.Target, o mcpclient.Options, concurrency int) []mcpclient.Result

	// ClaudeColumn adds Claude's own counts: with Claude set, from
	// count_tokens; without, the published figures where the hash matches.
	ClaudeColumn bool
	Claude       *claude.Client

	Now       func() time.Time
	Generator string
	// Progress is told of the measurements' start and of each one's end.
	Progress func(mcpclient.Step)
	Counter  token.Counter
}

// capture is what is known of one launch spec after measuring or reading
// the cache.
type capture struct {
	status              status.Status
	detail, hint        string
	tools               []*canon.Value
	instructions        *string
	serverName, version string
	changed, warnings   []string
	cached              bool
	at                  time.Time
}

func (c *capture) ok() bool {
	return c.status.OK()
}

// Run audits configs: it measures every launchable server once (servers
// that launch the same thing share one measurement), then builds the
// report per config.
func Run(ctx context.Context, configs []clients.Config, opts Options) *Report {
	if opts.ContextWindow <= 0 {
		opts.ContextWindow = DefaultContextWindow
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Counter == nil {
		opts.Counter = token.O200k()
	}
	if opts.Measurer == nil {
		opts.Measurer = mcpclient.MeasureAll
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	now := opts.Now()
	rep := &Report{
		Schema:             Schema,
		MethodologyVersion: measure.MethodologyVersion,
		Encoding:           token.Encoding,
		Generator:          opts.Generator,
		GeneratedAt:        now.UTC().Format(time.RFC3339),
		ContextWindow:      opts.ContextWindow,
		Sessions:           []Session{},
		Configs:            []Config{},
		EmptyConfigs:       []EmptyConfig{},
		Problems:           []Problem{},
		Offline:            opts.Offline,
		NoLaunch:           opts.NoLaunch,
	}

	// One key per launch spec: the cache's, or one for this run only.
	hkey := make([]byte, 32)
	if opts.Cache != nil {
		hkey = opts.Cache.Key()
	} else {
		rand.Read(hkey)
	}
	caps := map[string]*capture{}
	// prev holds the cached capture of a launch measured again (stale, or
	// Refresh): what a single launch is compared with.
	prev := map[string]*Entry{}
	var todo []string
	targets := map[string]mcpclient.Target{}
	// keys[i][j] is the launch key of configs[i].Servers[j], computed once.
	keys := make([][]string, len(configs))
	for i, cfg := range configs {
		keys[i] = make([]string, len(cfg.Servers))
		for j, s := range cfg.Servers {
			if !s.Launchable() {
				continue
			}
			k := s.LaunchKey(hkey)
			keys[i][j] = k
			if _, seen := targets[k]; seen {
				continue
			}
			targets[k] = targetOf(s)
			if opts.Cache != nil && !opts.Refresh {
				e, fresh := opts.Cache.Get(k, now)
				if e != nil && (fresh || opts.Offline) {
					if c := fromEntry(e); c != nil {
						// An entry written by an older mcpcost may hold
						// what its scrubber missed.
						sc := targets[k].Scrubber()
						c.detail = sc.String(c.detail)
						c.serverName, c.version = sc.String(c.serverName), sc.String(c.version)
						sc.Strings(c.warnings)
						caps[k] = c
						continue
					}
				}
			}
			if opts.Cache != nil && !opts.Strict {
				if e, _ := opts.Cache.Get(k, now); e != nil && status.Status(e.Status).OK() {
					prev[k] = e
				}
			}
			switch {
			case opts.NoLaunch:
				caps[k] = &capture{status: status.NotLaunched, detail: "--no-launch: would run " + s.Display()}
			case opts.Offline:
				caps[k] = &capture{status: status.NotCached, detail: "--offline: no measurement of this launch in the cache",
					hint: "run the audit once without --offline to measure it"}
			default:
				todo = append(todo, k)
			}
		}
	}
	if len(todo) > 0 {
		sort.Strings(todo) // deterministic order of launches
		ts := make([]mcpclient.Target, len(todo))
		for i, k := range todo {
			ts[i] = targets[k]
		}
		mo := opts.Measure
		mo.Progress = opts.Progress
		mo.Once, mo.Relist = !opts.Strict, !opts.Strict
		results := opts.Measurer(ctx, ts, mo, opts.Concurrency)
		rep.Launch = &LaunchInfo{PerServer: 2, Note: "each server launched twice (--strict): a server whose tools/list differs between the launches is dynamic"}
		if !opts.Strict {
			rep.Launch = &LaunchInfo{PerServer: 1, Note: "each server launched once and listed twice: a server whose tools/list changes from one list to the next is dynamic; one that changes only from launch to launch is found against its previous capture in the cache (--refresh, or after --max-age) or with --strict"}
		}
		for i, k := range todo {
			r := results[i]
			r.Target = ts[i] // what FromLive scrubs the server's words with
			c := fromResult(r, opts.Counter, now)
			if e := prev[k]; e != nil {
				againstCache(c, e)
			}
			caps[k] = c
			if opts.Cache != nil && c.ok() {
				_ = opts.Cache.Put(k, toEntry(c, now))
			}
		}
	}

	for i, cfg := range configs {
		if cfg.Error != "" {
			rep.Problems = append(rep.Problems, Problem{Client: cfg.Client, Path: cfg.Path, Error: cfg.Error, Hint: cfg.Hint})
			continue
		}
		if len(cfg.Servers) == 0 {
			notes := cfg.Notes
			if notes == nil {
				notes = []string{}
			}
			rep.EmptyConfigs = append(rep.EmptyConfigs, EmptyConfig{Client: cfg.Client, Path: cfg.Path, Scope: cfg.Scope, Notes: notes, Hint: cfg.Hint})
			continue
		}
		c := buildConfig(ctx, cfg, caps, keys[i], opts, false)
		if c.LowerBound {
			rep.Partial = true
		}
		rep.Configs = append(rep.Configs, c)
	}
	sort.SliceStable(rep.Configs, func(i, j int) bool {
		a, b := rep.Configs[i], rep.Configs[j]
		if a.TotalTokens != b.TotalTokens {
			return a.TotalTokens > b.TotalTokens
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Scope < b.Scope
	})
	if opts.ClaudeColumn {
		if opts.Claude != nil {
			rep.Claude = &ClaudeInfo{Mode: "count_tokens", Model: opts.Claude.Model(),
				Note: "Claude counts from Anthropic's count_tokens: the request Claude Code sends (mcp__server__tool names, descriptions cut to 2 KB, input_schema), with and without the tools; the difference includes the tool-use system prompt"}
		} else {
			rep.Claude = &ClaudeInfo{Mode: "published",
				Note: "Claude counts are mcp-context-cost's published figures, shown only where the server's canonical SHA-256 matches the published capture exactly; '-' means no exact match (set ANTHROPIC_API_KEY to count with count_tokens)"}
		}
	}
	judged, of := rep.Configs, OfConfigs
	if opts.Sessions {
		rep.Sessions = buildSessions(ctx, configs, caps, keys, opts)
		judged, of = make([]Config, len(rep.Sessions)), OfSessions
		for i, s := range rep.Sessions {
			judged[i] = s.Config
		}
	}
	if opts.Budget > 0 {
		rep.Budget = budgetGate(judged, opts.Budget, opts.AllowUnmeasured, opts.Sessions)
		rep.Budget.Of = of
	}
	if opts.Threshold > 0 {
		rep.Threshold = thresholdGate(judged, opts.Threshold)
		rep.Threshold.Of = of
	}
	return rep
}

// buildSessions builds one session per client of configs, in the order
// the clients come (each client's configs in its precedence order, lowest
// first, as discovery returns them): every entry of its readable files,
// each counted at most once (the client's settling marked the losers
// overridden), judged as one stack. Sessions are sorted heaviest first,
// then by client.
func buildSessions(ctx context.Context, configs []clients.Config, caps map[string]*capture, keys [][]string, opts Options) []Session {
	var order []string
	byClient := map[string][]int{}
	for i, cfg := range configs {
		if cfg.Error != "" || len(cfg.Servers) == 0 {
			continue
		}
		if _, ok := byClient[cfg.Client]; !ok {
			order = append(order, cfg.Client)
		}
		byClient[cfg.Client] = append(byClient[cfg.Client], i)
	}
	out := []Session{}
	for _, client := range order {
		stack := clients.Config{Client: client, Path: opts.Folder}
		var stackKeys []string
		for _, i := range byClient[client] {
			stack.Servers = append(stack.Servers, configs[i].Servers...)
			stackKeys = append(stackKeys, keys[i]...)
		}
		sess := Session{Config: buildConfig(ctx, stack, caps, stackKeys, opts, true), Files: []SessionFile{}}
		// What each file adds, summed in one pass over the session's
		// servers: a project's .continue/mcpServers may hold tens of
		// thousands of files.
		type place struct{ path, scope string }
		adds := map[place]*SessionFile{}
		for _, s := range sess.Servers {
			if !s.Counted {
				continue
			}
			f := adds[place{s.Source, s.Scope}]
			if f == nil {
				f = &SessionFile{}
				adds[place{s.Source, s.Scope}] = f
			}
			f.Counted++
			if s.Tokens == nil {
				f.LowerBound = true
			} else {
				f.TotalTokens += *s.Tokens
			}
		}
		for _, i := range byClient[client] {
			cfg := configs[i]
			f := SessionFile{Path: cfg.Path, Scope: cfg.Scope, Servers: len(cfg.Servers)}
			if a := adds[place{cfg.Path, cfg.Scope}]; a != nil {
				f.Counted, f.LowerBound, f.TotalTokens = a.Counted, a.LowerBound, a.TotalTokens
			}
			sess.Files = append(sess.Files, f)
		}
		out = append(out, sess)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].TotalTokens != out[j].TotalTokens {
			return out[i].TotalTokens > out[j].TotalTokens
		}
		return out[i].Client < out[j].Client
	})
	return out
}

// targetOf is the launch target of a config entry.
func targetOf(s clients.Server) mcpclient.Target {
	t := mcpclient.Target{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.LaunchEnv(), Cwd: s.Dir, URL: s.URL, Headers: s.Headers,
		Secrets: s.Secrets()}
	switch s.Transport {
	case clients.Stdio:
		t.Transport = "stdio"
	case clients.HTTP:
		t.Transport = "http"
	case clients.SSE:
		t.Transport = "sse"
	}
	return t
}

func fromResult(r mcpclient.Result, c token.Counter, now time.Time) *capture {
	live := measure.FromLive(r, c)
	cp := &capture{status: live.Status, detail: live.Detail, at: now}
	if live.Result == nil {
		cp.hint = failureHint(string(live.Status), live.Detail)
		if tail := strings.TrimSpace(live.StderrTail); tail != "" && live.Status == status.StartupFailure {
			lines := strings.Split(tail, "\n")
			cp.detail += "; stderr ends: " + lines[len(lines)-1]
		}
		return cp
	}
	cp.tools = live.Tools
	cp.instructions = live.Instructions
	if cp.instructions == nil {
		e := ""
		cp.instructions = &e
	}
	cp.serverName, cp.version = live.ServerName, live.ServerVersion
	cp.changed, cp.warnings = live.ChangedTools, live.Warnings
	return cp
}

// againstCache marks c, a single launch's capture, dynamic when its tools
// differ from e, the cached capture of the same launch, while the server
// names the same name and version (a new version is a new server, not a
// dynamic one).
func againstCache(c *capture, e *Entry) {
	if c.status != status.Measured || c.serverName != e.ServerName || c.version != e.ServerVersion {
		return
	}
	v, err := canon.Parse(e.Tools)
	if err != nil || v.Kind() != canon.Array {
		return
	}
	if string(canon.Marshal(v)) == string(canon.Marshal(canon.NewArray(c.tools))) {
		return
	}
	c.status = status.Dynamic
	c.changed = measure.ChangedTools(v.Elems(), c.tools)
	c.detail = "tools/list differed from the previous capture of the same launch (measured " + e.MeasuredAt.UTC().Format(time.RFC3339) + "); the number is this capture's"
}

func toEntry(c *capture, now time.Time) *Entry {
	return &Entry{
		MeasuredAt:    now.UTC(),
		Status:        string(c.status),
		Detail:        c.detail,
		ServerName:    c.serverName,
		ServerVersion: c.version,
		Instructions:  c.instructions,
		Tools:         canon.Marshal(canon.NewArray(c.tools)),
		ChangedTools:  c.changed,
		Warnings:      c.warnings,
	}
}

func fromEntry(e *Entry) *capture {
	v, err := canon.Parse(e.Tools)
	if err != nil || v.Kind() != canon.Array {
		return nil
	}
	instr := e.Instructions
	if instr == nil {
		s := ""
		instr = &s
	}
	return &capture{status: status.Status(e.Status), detail: e.Detail, tools: v.Elems(), instructions: instr,
		serverName: e.ServerName, version: e.ServerVersion, changed: e.ChangedTools, warnings: e.Warnings,
		cached: true, at: e.MeasuredAt}
}

// failureHint says what to do about a measurement failure.
func failureHint(st, detail string) string {
	switch status.Status(st) {
	case status.AuthRequired:
		return "the server needs credentials: set them in the config's env or headers (the client's own values), then audit again"
	case status.RemoteAuthWall:
		return "the server is behind OAuth; its cost cannot be measured without signing in (mcpcost measure URL --header-env VAR with a token)"
	case status.Timeout:
		return "a slow first start (npx downloading a package, go run building one) may need a larger --timeout, such as --timeout 3m"
	case status.StartupFailure:
		return mcpclient.StartupFailureHint(detail, "the env of its entry in the config")
	case status.ProtocolError:
		return mcpclient.ProtocolErrorHint(detail)
	}
	return ""
}

// keys are the launch keys of cfg.Servers. In a session, each server
// keeps the scope and file it comes from.
func buildConfig(ctx context.Context, cfg clients.Config, caps map[string]*capture, keys []string, opts Options, session bool) Config {
	c := Config{
		Client:        cfg.Client,
		ClientTitle:   clients.Title(cfg.Client),
		Path:          cfg.Path,
		Scope:         cfg.Scope,
		Unmeasured:    []string{},
		Servers:       []Server{},
		HeaviestTools: []ToolRef{},
		Notes:         cfg.Notes,
	}
	var posture clients.Posture
	if opts.Posture != nil {
		posture = opts.Posture(cfg.Client)
	} else {
		posture = clients.Posture{Client: cfg.Client, Mode: clients.ModeNoRecord}
	}
	c.Posture = posture

	all := make([]built, 0, len(cfg.Servers))
	for si, s := range cfg.Servers {
		path := cfg.Path
		if session {
			path = s.Source
		}
		b, counted := buildServer(ctx, path, s, caps[keys[si]], opts)
		b.srv.Counted = counted
		if session {
			b.srv.Scope, b.srv.Source = s.Scope, s.Source
		}
		if counted {
			c.ServerCount++
		}
		if b.srv.Tokens == nil {
			if counted {
				c.Unmeasured = append(c.Unmeasured, s.Name)
			}
		} else {
			c.Measured++
			c.TotalTokens += *b.srv.Tokens
			c.ToolCount += *b.srv.ToolCount
			c.SessionStartTokens += b.ss.Tokens
			c.RequestShapeTokens += b.srv.RequestShapeTokens
		}
		all = append(all, b)
	}
	c.LowerBound = len(c.Unmeasured) > 0
	if opts.ClaudeColumn {
		c.ClaudeTokens = claudeTotal(all, c.Measured)
	}
	c.ContextShare = float64(c.TotalTokens) / float64(opts.ContextWindow)

	// Who pays: the posture, the threshold comparison, what is up front.
	var parts []clients.StackPart
	for _, b := range all {
		if b.srv.Tokens == nil {
			continue
		}
		p := clients.StackPart{Wire: *b.srv.Tokens}
		if pub, ok := claude.Published(b.srv.CanonicalSha256); ok && pub.ClaudeTokens != nil && b.srv.Filter == nil {
			p.Claude, p.HasClaude = *pub.ClaudeTokens, true
		}
		parts = append(parts, p)
	}
	c.Check = posture.CheckThreshold(opts.ContextWindow, parts, c.LowerBound)
	c.UpFrontTokens = upFront(all, posture, c.Check, cfg.Client)
	c.PostureText = posture.Explain(c.Check)

	sortServers(all)
	c.Servers = make([]Server, 0, len(all))
	for _, b := range all {
		s := b.srv
		if s.Tokens != nil && c.TotalTokens > 0 {
			sh := float64(*s.Tokens) / float64(c.TotalTokens)
			s.Share = &sh
		}
		c.Servers = append(c.Servers, s)
	}
	pool := toolPool(c.Servers)
	c.HeaviestTools = pool[:min(5, len(pool))]
	byServer := map[string][]*canon.Value{}
	for _, b := range all {
		if b.srv.Tokens != nil {
			byServer[b.srv.Name] = b.tools
		}
	}
	c.Trim = trim(byServer, pool, c.TotalTokens, opts.Counter)
	if opts.Threshold > 0 {
		for _, t := range pool {
			if t.Tokens > opts.Threshold {
				c.Over = append(c.Over, t)
			}
		}
	}
	return c
}

// built is a server of a config as the audit reports it, with what its
// config's figures are summed from.
type built struct {
	srv   Server
	tools []*canon.Value // after the filter
	ss    claude.SessionStartLoad
}

// buildServer reports one server of the config at path, from its
// measurement cp when the client would start it. counted says whether it
// is one of the servers the config's figures stand for (enabled, and
// approved).
func buildServer(ctx context.Context, path string, s clients.Server, cp *capture, opts Options) (b built, counted bool) {
	srv := Server{
		Name:        s.Name,
		Transport:   s.Transport,
		Launch:      s.Display(),
		EnvNames:    s.EnvNames(),
		HeaderNames: s.HeaderNames(),
		Filter:      s.Filter,
		AlwaysLoad:  s.AlwaysLoad,
		Tools:       []measure.Tool{},
	}
	switch s.Status() {
	case clients.StatusProblem:
		srv.Status, srv.Detail = StatusProblem, s.Problem
		srv.Hint = "fix the entry in " + path + "; the client cannot start it as written"
	case clients.StatusDisabled:
		srv.Status, srv.Detail = StatusDisabled, s.DisabledBy
	case clients.StatusOverridden:
		srv.Status, srv.Detail = StatusOverridden, s.OverriddenBy+" wins"
	case clients.StatusNeedsApproval:
		srv.Status = StatusNeedsApproval
		srv.Detail = "not launched without approval: would run " + s.Display()
		srv.Hint = s.NeedsApproval
	case clients.StatusExtension:
		// The client loads it: counted, without a number.
		srv.Status = StatusExtension
		srv.Detail = "provided by " + s.ProvidedBy + ", which starts it with a command not in this file: mcpcost cannot measure it"
		srv.Hint = "measure it by hand with the command the extension runs: mcpcost measure -- COMMAND ARGS"
		return built{srv: srv}, true
	case clients.StatusNeedsInput:
		srv.Status = StatusNeedsInput
		srv.Detail = "the client asks for " + strings.Join(s.NeedsInput, ", ") + " when it starts the server; that cannot be resolved offline"
		srv.Hint = "measure it by hand with the value: mcpcost measure -- COMMAND ARGS (or URL --header-env VAR)"
		return built{srv: srv}, true
	default:
		srv.Status, srv.Detail, srv.Hint = string(cp.status), cp.detail, cp.hint
		if !cp.ok() {
			return built{srv: srv}, true
		}
		return measuredServer(ctx, srv, s, cp, opts), true
	}
	return built{srv: srv}, false
}

// measuredServer fills in srv, a server the client starts, from its
// capture cp: its tools after the client's filter, their counts, and what
// it loads at session start.
func measuredServer(ctx context.Context, srv Server, s clients.Server, cp *capture, opts Options) built {
	srv.Cached = cp.cached
	srv.MeasuredAt = cp.at.UTC().Format(time.RFC3339)
	srv.ServerName, srv.ServerVersion = cp.serverName, cp.version
	srv.ChangedTools, srv.Warnings = cp.changed, cp.warnings
	tools := cp.tools
	if s.Filter != nil {
		unf := measure.Tools(tools, opts.Counter)
		n, cnt := unf.TotalTokens, unf.ToolCount
		srv.UnfilteredTokens, srv.UnfilteredToolCount = &n, &cnt
		var kept []*canon.Value
		for _, t := range tools {
			if s.Filter.Allows(measure.ToolName(t)) {
				kept = append(kept, t)
			} else {
				srv.FilteredOut = append(srv.FilteredOut, measure.ToolName(t))
			}
		}
		tools = kept
	}
	r := measure.Tools(tools, opts.Counter)
	tok, cnt := r.TotalTokens, r.ToolCount
	srv.Tokens, srv.ToolCount = &tok, &cnt
	srv.CanonicalSha256 = r.CanonicalSha256
	for _, i := range r.Heaviest() {
		srv.Tools = append(srv.Tools, r.Tools[i])
		if r.Tools[i].AlwaysLoad {
			srv.AlwaysLoad = true
		}
	}
	if cp.instructions != nil && *cp.instructions != "" {
		srv.InstructionsTokens = opts.Counter.Count(*cp.instructions)
	}
	ss := claude.SessionStart(s.Name, tools, cp.instructions)
	srv.SessionStartTokens = ss.Tokens
	shape := claude.RequestShape(s.Name, tools)
	srv.RequestShapeTokens = shape.Tokens
	if opts.ClaudeColumn {
		claudeCount(ctx, &srv, shape, s.Filter == nil, opts)
	}
	return built{srv: srv, tools: tools, ss: ss}
}

// claudeTotal sums Claude's counts of the measured servers: nil unless
// every one of them has one.
func claudeTotal(all []built, measured int) *int {
	sum := 0
	for _, b := range all {
		if b.srv.Tokens == nil {
			continue
		}
		if b.srv.ClaudeTokens == nil {
			return nil
		}
		sum += *b.srv.ClaudeTokens
	}
	if measured == 0 {
		return nil
	}
	return &sum
}

// upFront marks each measured server as loaded up front or deferred under
// the posture, and returns what the config loads at session start: nil
// when the posture leaves that unknown for any server.
func upFront(all []built, posture clients.Posture, check *clients.ThresholdCheck, client string) *int {
	upFront, known := 0, true
	for i := range all {
		b := &all[i]
		if b.srv.Tokens == nil {
			continue
		}
		up, ok := posture.LoadsUpFront(check, b.srv.AlwaysLoad && !hasToolAlwaysLoadOnly(b.srv))
		if !ok {
			known = false
			continue
		}
		b.srv.LoadsUpFront = &up
		switch {
		case up:
			upFront += *b.srv.Tokens
		case client == clients.ClaudeCode:
			upFront += b.ss.ClaudeCodeTokens
		default:
			upFront += b.ss.Tokens
		}
	}
	if !known {
		return nil
	}
	return &upFront
}

// sortServers orders a config's servers: measured heaviest first, then
// unmeasured enabled, then the rest; each group by name.
func sortServers(all []built) {
	rank := func(s Server) int {
		switch {
		case s.Tokens != nil:
			return 0
		case status.Status(s.Status).Skipped():
			return 2
		}
		return 1
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i].srv, all[j].srv
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if a.Tokens != nil && b.Tokens != nil && *a.Tokens != *b.Tokens {
			return *a.Tokens > *b.Tokens
		}
		return a.Name < b.Name
	})
}

// toolPool returns the tools of the servers, heaviest first.
func toolPool(servers []Server) []ToolRef {
	var pool []ToolRef
	for _, s := range servers {
		for _, t := range s.Tools {
			pool = append(pool, ToolRef{Server: s.Name, Tool: t.Name, Tokens: t.Tokens})
		}
	}
	sort.SliceStable(pool, func(i, j int) bool {
		if pool[i].Tokens != pool[j].Tokens {
			return pool[i].Tokens > pool[j].Tokens
		}
		if pool[i].Server != pool[j].Server {
			return pool[i].Server < pool[j].Server
		}
		return pool[i].Tool < pool[j].Tool
	})
	return pool
}

// hasToolAlwaysLoadOnly reports whether the server's alwaysLoad comes only
// from some of its tools (then the rest can still be deferred; the
// server as a whole is not counted up front).
func hasToolAlwaysLoadOnly(s Server) bool {
	if !s.AlwaysLoad {
		return false
	}
	n := 0
	for _, t := range s.Tools {
		if t.AlwaysLoad {
			n++
		}
	}
	return n > 0 && n < len(s.Tools)
}

// trimSlots bounds the trim suggestion.
const trimSlots = 5

// trim picks the fewest tools that recover the most: the heaviest tools,
// taken in order until their own counts reach a third of the config or
// trimSlots are taken. The tokens it recovers are exact: each server is
// counted again without the trimmed tools.
func trim(tools map[string][]*canon.Value, pool []ToolRef, total int, c token.Counter) *Trim {
	if total == 0 || len(pool) < 2 {
		return nil
	}
	var picked []ToolRef
	sum := 0
	for _, t := range pool {
		if len(picked) == trimSlots || len(picked) == len(pool)-1 {
			break
		}
		picked = append(picked, t)
		sum += t.Tokens
		if sum*3 >= total {
			break
		}
	}
	drop := map[string]map[string]bool{}
	for _, t := range picked {
		if drop[t.Server] == nil {
			drop[t.Server] = map[string]bool{}
		}
		drop[t.Server][t.Tool] = true
	}
	recovered := 0
	for server, names := range drop {
		all := tools[server]
		var kept []*canon.Value
		for _, t := range all {
			if !names[measure.ToolName(t)] {
				kept = append(kept, t)
			}
		}
		before := c.Count(string(canon.Marshal(canon.NewArray(all))))
		after := 0
		if len(kept) > 0 {
			after = c.Count(string(canon.Marshal(canon.NewArray(kept))))
		}
		recovered += before - after
	}
	return &Trim{Tools: picked, RecoverableTokens: recovered, RecoverableShare: float64(recovered) / float64(total)}
}

// budgetGate judges configs (sessions, when sessions is set) against
// limit.
func budgetGate(configs []Config, limit int, allowUnmeasured, sessions bool) *BudgetGate {
	g := &BudgetGate{Limit: limit, Pass: true, AllowUnmeasured: allowUnmeasured, Configs: []BudgetConfig{}}
	for _, c := range configs {
		bc := BudgetConfig{Path: c.Path, Client: c.Client, Scope: c.Scope, Total: c.TotalTokens, Pass: true, Reasons: []string{}}
		if c.TotalTokens > limit {
			bc.Pass = false
			bc.Reasons = append(bc.Reasons, fmt.Sprintf("%s tokens, over the budget of %s by %s", num.Int(c.TotalTokens), num.Int(limit), num.Int(c.TotalTokens-limit)))
		}
		if len(c.Unmeasured) > 0 && !allowUnmeasured {
			bc.Pass = false
			for _, n := range c.Unmeasured {
				bc.Reasons = append(bc.Reasons, fmt.Sprintf("%s could not be measured, so the total is a lower bound", n))
			}
		}
		// A project's server awaiting approval is not part of the session
		// now, and joins it once approved: on a pull request that adds
		// one (in CI nothing is approved) a pass would say nothing of it.
		for _, srv := range c.Servers {
			if sessions && srv.Status == StatusNeedsApproval {
				bc.Pass = false
				bc.Reasons = append(bc.Reasons, fmt.Sprintf("%s in %s awaits approval, so it is not counted; judge it with --trust-project, or the file with --config", srv.Name, srv.Source))
			}
		}
		if !bc.Pass {
			g.Pass = false
		}
		g.Configs = append(g.Configs, bc)
	}
	return g
}

func thresholdGate(configs []Config, limit int) *ThresholdGate {
	g := &ThresholdGate{Limit: limit, Pass: true, Tools: []ToolRef{}}
	seen := map[ToolRef]bool{}
	for _, c := range configs {
		for _, t := range c.Over {
			if !seen[t] {
				seen[t] = true
				g.Tools = append(g.Tools, t)
			}
		}
	}
	sort.SliceStable(g.Tools, func(i, j int) bool { return g.Tools[i].Tokens > g.Tools[j].Tokens })
	g.Pass = len(g.Tools) == 0
	return g
}

// claudeCount fills the server's Claude count: count_tokens when a client
// is set, else the published figure of this exact capture (only when no
// filter changed the tools).
func claudeCount(ctx context.Context, srv *Server, shape claude.Shape, unfiltered bool, opts Options) {
	if opts.Claude != nil {
		cnt, err := opts.Claude.CountTools(ctx, shape.JSON)
		if err != nil {
			srv.ClaudeError = err.Error()
			return
		}
		n := cnt.Tokens
		srv.ClaudeTokens, srv.ClaudeSource = &n, "count_tokens "+cnt.Model
		return
	}
	if !unfiltered {
		srv.ClaudeError = "the client's tool filter changes the tools, so no published figure applies"
		return
	}
	pub, ok := claude.Published(srv.CanonicalSha256)
	if !ok || pub.ClaudeTokens == nil {
		return
	}
	n := *pub.ClaudeTokens
	srv.ClaudeTokens = &n
	srv.ClaudeSource = "published " + pub.ClaudeModel + " " + pub.MeasuredDate
}
