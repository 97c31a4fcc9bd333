package findings

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/store"
)

// Compute reads the usage store in the window, joins it with
// the static audit (nil when there is none: idle servers and heavy
// definitions are then not judged, and the report says so) and returns
// the findings.
func Compute(ctx context.Context, st *store.Store, static *audit.Report, o Options) (*Report, error) {
	static = bySession(static)
	noPrices := o.Pricing == nil
	if noPrices {
		o.Pricing = func(string, int64, bool) (Rates, bool) { return Rates{}, false }
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	o.Thresholds = o.Thresholds.withDefaults()
	if o.Mode == "" {
		o.Mode = "auto"
	}
	if !slices.Contains(Modes, o.Mode) {
		return nil, fmt.Errorf("unknown mode %q (want one of %s)", o.Mode, strings.Join(Modes, ", "))
	}
	r := &Report{
		Mode:          o.Mode,
		Schema:        Schema,
		GeneratedAt:   o.Now.UTC(),
		PricesUpdated: o.PricesUpdated,
		Thresholds:    o.Thresholds,
		Static:        static != nil,
		Notes:         []string{},
		Findings:      []Finding{},
		Window:        Window{Project: o.Project, Machine: o.Machine, User: o.User, Period: o.Period},
	}
	if noPrices {
		r.Notes = append(r.Notes, "no price table: costs are not computed")
	}
	if !o.Since.IsZero() {
		s := o.Since.In(o.Location).Format(time.RFC3339)
		r.Window.Since = &s
	}
	if !o.Until.IsZero() {
		s := o.Until.In(o.Location).Format(time.RFC3339)
		r.Window.Until = &s
	}
	var d *data
	if st != nil {
		var err error
		if d, err = load(ctx, st, o); err != nil {
			return nil, err
		}
	} else {
		d = &data{compactions: map[string]int{}, unpriced: map[string]bool{}, builtIn: map[string]int{}}
		r.Partial = true
		r.Notes = append(r.Notes, "no usage store: only the static findings (heavy definitions) are judged")
	}
	sessions := map[string]bool{}
	for i := range d.requests {
		q := &d.requests[i]
		r.Window.Requests++
		if q.main() {
			r.Window.MainRequests++
		}
		sessions[sessionKey(q.source, q.session)] = true
		r.Window.Cost += q.cost
	}
	r.Window.Cost = round4(r.Window.Cost)
	r.Window.Sessions = len(sessions)
	r.Window.ToolCalls = d.builtInCalls
	for i := range d.calls {
		r.Window.ToolCalls++
		if d.calls[i].server != "" {
			r.Window.MCPCalls++
		}
	}
	for m := range d.unpriced {
		if m == "" {
			m = "(unknown model)"
		}
		r.Window.UnpricedModels = append(r.Window.UnpricedModels, m)
	}
	sort.Strings(r.Window.UnpricedModels)
	if len(r.Window.UnpricedModels) > 0 {
		what := "models without a price"
		if o.Mode == "display" {
			what = "requests without a recorded cost (display mode), of models"
		}
		r.Notes = append(r.Notes, what+" ("+strings.Join(r.Window.UnpricedModels, ", ")+") count no cost: USD figures are lower bounds")
	}

	if static == nil {
		r.Partial = true
		r.Notes = append(r.Notes, NoStaticNote)
	} else if len(static.Configs) == 0 {
		r.Notes = append(r.Notes, NoConfigNote)
	} else if static.Partial {
		r.Partial = true
		r.Notes = append(r.Notes, unmeasuredNotes(static)...)
	}
	if static != nil {
		for _, p := range static.Problems {
			r.Partial = true
			r.Notes = append(r.Notes, "config not judged: "+p.Error)
		}
	}
	r.Configs = joinConfigs(static, d, o)
	r.Timeline = timeline(d, r.Configs, o.Location)
	r.ServersCalled = serversCalled(d.calls, r.Configs)

	t := o.Thresholds
	var fs []Finding
	fs = append(fs, idleServers(r.Configs, static, t, o.ConfigModified)...)
	mcp := mcpCalls(d.calls)
	big := oversized(mcp, t)
	fs = append(fs, big...)
	fs = append(fs, repeated(mcp, t)...)
	fs = append(fs, slow(mcp, t, o.PreApproved)...)
	fs = append(fs, expensiveSessions(d, t, big)...)
	fs = append(fs, cacheInefficiency(d, o, t)...)
	if static != nil {
		fs = append(fs, heavyDefinitions(static, r.Configs, o, t)...)
	}
	for i := range fs {
		fs[i].ID = makeID(fs[i].Type, fs[i].Subject)
		switch fs[i].Level {
		case LevelHigh:
			r.Counts.High++
		case LevelWarn:
			r.Counts.Warn++
		default:
			r.Counts.Info++
		}
	}
	sortFindings(fs)
	if fs != nil {
		r.Findings = fs
	}
	r.TokensCapped = r.capped()
	return r, nil
}

// bySession returns the audit with its sessions in place of its files,
// when it has sessions (the configs were discovered): a server is judged
// once per session it belongs to, where it wins its name, not per file.
// Each session server keeps its scope and file, which the findings name.
func bySession(static *audit.Report) *audit.Report {
	if static == nil || len(static.Sessions) == 0 {
		return static
	}
	r := *static
	r.Configs = make([]audit.Config, len(static.Sessions))
	for i, s := range static.Sessions {
		r.Configs[i] = s.Config
	}
	return &r
}

// serverHome is where a config's server is kept: its own file and scope
// in a session, else the config's.
func serverHome(cu ConfigUse, srv audit.Server) ConfigUse {
	if srv.Source != "" {
		cu.Path, cu.Scope = srv.Source, srv.Scope
	}
	return cu
}

// idleServers: a measured server of a config whose sessions made at least
// IdleMinRequests main-conversation requests in the window, and which was
// called fewer than IdleCallsPer100 times per 100 of them (or never).
// Level: high when never called and the estimated saving reaches HighUSD;
// warn when never called; info when called rarely.
func idleServers(configs []ConfigUse, static *audit.Report, t Thresholds, modified func(string) time.Time) []Finding {
	var out []Finding
	for ci, cu := range configs {
		if cu.Source == "" || cu.Requests < t.IdleMinRequests {
			continue
		}
		ac := static.Configs[ci]
		for si, su := range cu.Servers {
			if su.Tokens == nil {
				continue
			}
			n := cu.Requests
			per100 := float64(su.Calls) * 100 / float64(n)
			if su.Calls > 0 && per100 >= t.IdleCallsPer100 {
				continue
			}
			srv := ac.Servers[si]
			// The server's own file: the session's path is its folder.
			home := serverHome(cu, srv)
			changed, after := fileChange(home, modified)
			ev := IdleEvidence{
				DefinitionTokens: *su.Tokens, ToolCount: deref(su.ToolCount), PerRequestTokens: su.PerRequestTokens,
				LoadsUpFront: su.LoadsUpFront, Posture: cu.Posture,
				Requests: n, SubAgentRequests: cu.SubAgentRequests, Sessions: cu.Sessions,
				Calls: su.Calls, CallsPer100: math.Round(per100*100) / 100, ToolsCalled: su.ToolsCalled,
				CarriedTokens: su.CarriedTokens, CarriedUSD: su.CarriedUSD, CacheReadShare: cu.CacheReadShare,
				SessionStartTokens: srv.SessionStartTokens,
			}
			if !changed.IsZero() {
				ev.ConfigChanged = changed.UTC().Format(time.RFC3339)
				ev.RequestsSinceChange = ptr(after)
			}
			f := Finding{
				Type:     TypeIdleServer,
				Subject:  Subject{Client: cu.Client, Config: home.Path, Scope: home.Scope, Server: su.Name},
				Evidence: ev,
				LevelRule: fmt.Sprintf("high when never called and the estimated saving reaches %s; warn when never called; info when called %s per 100 requests",
					money(t.HighUSD), fewerThan(t.IdleCallsPer100)),
			}
			carried := fmt.Sprintf("%s tokens on each of %s main-conversation requests in %s: %s tokens carried, about %s at the rates those requests paid (%s of their input was cache reads)",
				num.Int(su.PerRequestTokens), num.Int(n), num.Count(cu.Sessions, "session"), num.Int(su.CarriedTokens), money(su.CarriedUSD), pct(cu.CacheReadShare))
			if su.Calls == 0 {
				f.Title = fmt.Sprintf("%s was never called in %s: its definitions rode on %s, %s tokens in all", su.Name, num.Count(cu.Sessions, "session"), num.Count(n, "request"), num.Int(su.CarriedTokens))
				f.Level = LevelWarn
				if su.CarriedUSD >= t.HighUSD {
					f.Level = LevelHigh
				}
			} else {
				f.Title = fmt.Sprintf("%s was called %s in %s that carried its definitions, %s tokens in all", su.Name, num.Count(su.Calls, "time"), num.Count(n, "request"), num.Int(su.CarriedTokens))
				f.Level = LevelInfo
			}
			f.Facts = append(f.Facts, carried)
			what := "its full definitions (" + num.Int(*su.Tokens) + " tokens, " + num.Count(deref(su.ToolCount), "tool") + ") ride on each request"
			switch {
			case su.LoadsUpFront == nil:
				what = "its full definitions (" + num.Int(*su.Tokens) + " tokens, " + num.Count(deref(su.ToolCount), "tool") + ") are assumed to ride on each request"
			case !*su.LoadsUpFront:
				what = "only its tool names and instructions (" + num.Int(su.PerRequestTokens) + " tokens) ride on each request"
			}
			// In the report's words for the config, said of this server.
			f.Facts = append(f.Facts, what+"; "+postureWords(cu, su.LoadsUpFront))
			if su.Calls > 0 {
				f.Facts = append(f.Facts, fmt.Sprintf("called %s in %s (%.2f per 100 requests): %s", num.Count(su.Calls, "time"), num.Count(su.Sessions, "session"), per100, strings.Join(su.ToolsCalled, ", ")))
			} else {
				f.Facts = append(f.Facts, fmt.Sprintf("0 calls in the %s this config applied to (%s)", num.Count(cu.Sessions, "session"), cu.AppliesTo))
			}
			if !changed.IsZero() {
				f.Facts = append(f.Facts, fmt.Sprintf("%s last changed on %s, after the first of these requests: if the server came with that change, it rode on the %s after it (%s tokens)",
					home.Path, changed.UTC().Format("2006-01-02 15:04 UTC"), num.Count(after, "request"), num.Int(int64(after)*int64(su.PerRequestTokens))))
			}
			if cu.SubAgentRequests > 0 {
				f.Facts = append(f.Facts, fmt.Sprintf("%s sub-agent requests are not counted (whether a sub-agent carries the server depends on its tools)", num.Int(cu.SubAgentRequests)))
			}
			f.Confidence, f.ConfidenceRule = "medium", "the requests and calls are exact; the config is assumed to have been as it is now for the whole window (its history is not recorded); tokens are o200k_base counts of the definitions, which the model's own tokenizer counts differently"
			if !changed.IsZero() && after*2 < n {
				f.Confidence = "low"
				f.ConfidenceRule += "; the config file changed after most of these requests, so the server may have been added since"
			}
			if su.LoadsUpFront == nil {
				f.Confidence = "low"
				f.ConfidenceRule += "; whether the client loads them up front is not known, so it is assumed"
			}
			f.Recommendation, f.EstimatedSaving = idleAdvice(home, su, srv)
			out = append(out, f)
		}
	}
	return out
}

// fileChange says when the file cu names changed after the first of its
// requests (zero when it did not, or cannot be told), and how many of the
// requests came after. (~/.claude.json, which Claude Code rewrites all the
// time, tells nothing.)
func fileChange(cu ConfigUse, modified func(string) time.Time) (changed time.Time, after int) {
	after = cu.Requests
	if modified == nil || (cu.Client == clients.ClaudeCode && (cu.Scope == "user" || cu.Scope == "local")) {
		return changed, after
	}
	m := modified(cu.Path)
	if m.IsZero() || len(cu.reqs) == 0 || m.UnixMilli() <= cu.reqs[0].ts {
		return changed, after
	}
	after = 0
	for _, r := range cu.reqs {
		if r.ts >= m.UnixMilli() {
			after++
		}
	}
	return m, after
}

// IdleEvidence is the numbers behind an idle-server finding.
type IdleEvidence struct {
	DefinitionTokens   int      `json:"definitionTokens"`
	ToolCount          int      `json:"toolCount"`
	SessionStartTokens int      `json:"sessionStartTokens"`
	PerRequestTokens   int      `json:"perRequestTokens"`
	LoadsUpFront       *bool    `json:"loadsUpFront"`
	Posture            string   `json:"posture"`
	Requests           int      `json:"requests"`
	SubAgentRequests   int      `json:"subAgentRequests"`
	Sessions           int      `json:"sessions"`
	Calls              int      `json:"calls"`
	CallsPer100        float64  `json:"callsPer100"`
	ToolsCalled        []string `json:"toolsCalled"`
	CarriedTokens      int64    `json:"carriedTokens"`
	CarriedUSD         float64  `json:"carriedUsd"`
	CacheReadShare     float64  `json:"cacheReadShare"`
	// ConfigChanged is when the config file last changed, when that was
	// after the first request; RequestsSinceChange counts those after it.
	ConfigChanged       string `json:"configChanged,omitempty"`
	RequestsSinceChange *int   `json:"requestsSinceChange,omitempty"`
}

func idleAdvice(cu ConfigUse, su ServerUse, srv audit.Server) (string, *Saving) {
	n := int64(cu.Requests)
	rate := 0.0
	if su.CarriedTokens > 0 {
		rate = su.CarriedUSD / float64(su.CarriedTokens)
	}
	upFront := su.LoadsUpFront == nil || *su.LoadsUpFront
	var rec string
	save := &Saving{Tokens: su.CarriedTokens, USD: ptr(su.CarriedUSD),
		Assumption: fmt.Sprintf("if the server were disabled, the %s tokens on each of the %s main-conversation requests would not be sent; priced at each request's own mix of uncached input, cache-write and cache-read rates; an estimate", num.Int(su.PerRequestTokens), num.Int(n))}
	switch cu.Client {
	case clients.ClaudeCode:
		where := "remove it from " + cu.Path
		if cu.Scope == "project" {
			where = "disable it for this project (/mcp, or disabledMcpjsonServers in .claude/settings.local.json) or remove it from " + cu.Path
		}
		if su.Calls == 0 {
			rec = "Never called in these sessions: " + where + "."
		} else {
			rec = "Rarely called (" + strings.Join(su.ToolsCalled, ", ") + "): if you can do without it, " + where + "."
		}
		if upFront {
			rec += " To keep it at hand, let Claude Code defer it: with tool search on (ENABLE_TOOL_SEARCH) only its tool names load until a tool is needed"
			if srv.AlwaysLoad {
				rec += "; its alwaysLoad setting keeps it up front, turn that off"
			}
			rec += "."
			if su.Calls > 0 && su.LoadsUpFront != nil {
				deferred := int64(srv.SessionStartTokens)
				save = &Saving{Tokens: (int64(su.PerRequestTokens) - deferred) * n, USD: ptr(round4(float64(int64(su.PerRequestTokens)-deferred) * float64(n) * rate)),
					Assumption: fmt.Sprintf("if deferred by tool search, only names and instructions (%s tokens) would ride on each of the %s requests instead of %s; priced at the rates those requests paid; an estimate", num.Int(deferred), num.Int(n), num.Int(su.PerRequestTokens))}
			}
		}
	case clients.Codex:
		if su.Calls == 0 {
			rec = "Never called in these sessions: set enabled = false for it in " + cu.Path + ", or remove it."
		} else {
			rec = "Rarely called: keep only the tools used with enabled_tools = [" + quoteList(su.ToolsCalled) + "] in its entry in " + cu.Path + ", or set enabled = false."
			if su.ToolCount != nil && *su.ToolCount > 0 && su.Tokens != nil {
				frac := 1 - float64(len(su.ToolsCalled))/float64(*su.ToolCount)
				if frac > 0 {
					tok := int64(float64(su.CarriedTokens) * frac)
					save = &Saving{Tokens: tok, USD: ptr(round4(float64(tok) * rate)),
						Assumption: fmt.Sprintf("if filtered to the %d tools called, about %s of the definitions (by tool count, not weighed by size) would not ride on the %s requests; an estimate", len(su.ToolsCalled), pct(frac), num.Int(n))}
				}
			}
		}
	}
	return rec, save
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = `"` + v + `"`
	}
	return strings.Join(q, ", ")
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// mcpCalls keeps the calls to MCP servers, with their call known.
func mcpCalls(calls []call) []call {
	var out []call
	for _, c := range calls {
		if c.server != "" && c.hasCall {
			out = append(out, c)
		}
	}
	return out
}

type toolKey struct{ server, tool string }

func byTool(calls []call) ([]toolKey, map[toolKey][]call) {
	m := map[toolKey][]call{}
	for _, c := range calls {
		k := toolKey{c.server, c.tool}
		m[k] = append(m[k], c)
	}
	keys := make([]toolKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].server != keys[j].server {
			return keys[i].server < keys[j].server
		}
		return keys[i].tool < keys[j].tool
	})
	return keys, m
}

// ResultEvidence is the numbers behind an oversized-results finding.
type ResultEvidence struct {
	Results     int     `json:"results"`
	Sessions    int     `json:"sessions"`
	TotalTokens int64   `json:"totalTokens"`
	AvgTokens   float64 `json:"avgTokens"`
	MaxTokens   int64   `json:"maxTokens"`
	OverWarn    int     `json:"overWarn"`
	OverLimit   int     `json:"overLimit"`
	Spilled     int     `json:"spilled"`
	Role        string  `json:"role"`
}

// oversized: a tool whose results average over ResultAvgTokens, or any of
// whose results exceeds OutputWarn. Level: high when a result exceeds
// OutputLimit (MAX_MCP_OUTPUT_TOKENS), warn when one exceeds OutputWarn,
// info otherwise.
func oversized(calls []call, t Thresholds) []Finding {
	keys, m := byTool(calls)
	var out []Finding
	for _, k := range keys {
		var ev ResultEvidence
		sessions := map[string]bool{}
		var excess int64
		for _, c := range m[k] {
			if !c.hasResult {
				continue
			}
			ev.Results++
			ev.TotalTokens += c.tokens
			ev.MaxTokens = max(ev.MaxTokens, c.tokens)
			sessions[c.key()] = true
			if c.tokens > int64(t.OutputWarn) {
				ev.OverWarn++
			}
			if c.tokens > int64(t.OutputLimit) {
				ev.OverLimit++
			}
			if c.spilled {
				ev.Spilled++
			}
			excess += max(0, c.tokens-int64(t.ResultAvgTokens))
		}
		if ev.Results == 0 {
			continue
		}
		ev.Sessions = len(sessions)
		ev.AvgTokens = math.Round(float64(ev.TotalTokens)/float64(ev.Results)*10) / 10
		if ev.AvgTokens <= float64(t.ResultAvgTokens) && ev.OverWarn == 0 {
			continue
		}
		role, advice := toolRole(k.tool)
		ev.Role = role
		f := Finding{
			Type:      TypeOversizedResults,
			Subject:   Subject{Server: k.server, Tool: k.tool},
			Evidence:  ev,
			Level:     LevelInfo,
			LevelRule: fmt.Sprintf("high when a result exceeds %s tokens (MAX_MCP_OUTPUT_TOKENS); warn when one exceeds %s (where Claude Code warns); info when only the average exceeds %s", num.Int(t.OutputLimit), num.Int(t.OutputWarn), num.Int(t.ResultAvgTokens)),
		}
		switch {
		case ev.OverLimit > 0:
			f.Level = LevelHigh
			f.Title = fmt.Sprintf("%s · %s returned %s over Claude Code's output limit of %s tokens (largest %s)", k.server, k.tool, num.Count(ev.OverLimit, "result"), num.Int(t.OutputLimit), num.Int(ev.MaxTokens))
		case ev.OverWarn > 0:
			f.Level = LevelWarn
			f.Title = fmt.Sprintf("%s · %s returned %s over %s tokens, where Claude Code warns (largest %s)", k.server, k.tool, num.Count(ev.OverWarn, "result"), num.Int(t.OutputWarn), num.Int(ev.MaxTokens))
		default:
			f.Title = fmt.Sprintf("%s · %s results average %s tokens (threshold %s)", k.server, k.tool, num.Int(int64(math.Round(ev.AvgTokens))), num.Int(t.ResultAvgTokens))
		}
		f.Facts = []string{
			fmt.Sprintf("%s in %s: %s tokens in all, average %s, largest %s", num.Count(ev.Results, "result"), num.Count(ev.Sessions, "session"), num.Int(ev.TotalTokens), num.Int(int64(math.Round(ev.AvgTokens))), num.Int(ev.MaxTokens)),
		}
		if ev.Spilled > 0 {
			were := " were"
			if ev.Spilled == 1 {
				were = " was"
			}
			f.Facts = append(f.Facts, num.Count(ev.Spilled, "result")+were+" saved to a file by the agent instead of entering the context in full")
		}
		f.Confidence = "high"
		f.ConfidenceRule = "exact o200k_base counts of the result text the transcript holds; Claude Code applies its limit with its own count, so near the limit this is a proxy; images and other non-text blocks are not included"
		f.Recommendation = advice + " (the tool's role is guessed from its name: " + role + ")."
		f.EstimatedSaving = &Saving{Tokens: excess,
			Assumption: fmt.Sprintf("if every result were held to %s tokens, counted once per result; a result stays in the context and is re-read by every later request of the session, which this does not count, so the real saving is larger; not priced", num.Int(t.ResultAvgTokens))}
		out = append(out, f)
	}
	return out
}

// toolRole guesses what a tool does from words in its name.
func toolRole(name string) (role, advice string) {
	words := splitWords(name)
	has := func(list ...string) bool {
		for _, w := range words {
			for _, l := range list {
				if w == l {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("search", "list", "query", "find", "browse", "grep", "ls", "glob", "lookup"):
		return "search or list", "Narrow the query or paginate: ask for fewer results (a limit, a page size, a filter) and fetch more only when needed"
	case has("read", "get", "fetch", "exec", "execute", "run", "cat", "view", "download", "open", "load", "show", "snapshot", "screenshot", "navigate", "scrape"):
		return "read, fetch or run", "Pre-filter the output: read a range or a section, select fields, or have the command print only what is needed"
	}
	return "unknown", "Have the tool return less: a summary, selected fields or a page of results"
}

// splitWords cuts a tool name into lowercase words at _, -, ., / and
// camelCase boundaries.
func splitWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ' || r == ':':
			flush()
			prevLower = false
			continue
		case r >= 'A' && r <= 'Z' && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = r >= 'a' && r <= 'z'
	}
	flush()
	return words
}

// RepeatEvidence is the numbers behind a repeated-calls finding.
type RepeatEvidence struct {
	Calls          int   `json:"calls"`
	Repeats        int   `json:"repeats"`
	Sessions       int   `json:"sessions"`
	RepeatedTokens int64 `json:"repeatedTokens"`
	// MostRepeats is the largest number of calls with one set of arguments
	// in one session.
	MostRepeats    int   `json:"mostRepeats"`
	WindowMs       int64 `json:"windowMs"`
	CallsWithoutID int   `json:"callsWithoutArgs,omitempty"`
}

// repeated: calls of one tool in one session with the same argument hash,
// each within RepeatWindow of the previous one; a finding when a tool has
// at least RepeatMin repeats. Level: warn at 5 repeats or 10,000 repeated
// result tokens, info below.
func repeated(calls []call, t Thresholds) []Finding {
	keys, m := byTool(calls)
	win := t.RepeatWindow.Milliseconds()
	var out []Finding
	for _, k := range keys {
		ev := RepeatEvidence{WindowMs: win}
		groups := map[string][]call{}
		for _, c := range m[k] {
			ev.Calls++
			if c.hash == "" {
				ev.CallsWithoutID++
				continue
			}
			gk := c.key() + "\x00" + c.name + "\x00" + c.hash
			groups[gk] = append(groups[gk], c)
		}
		sessions := map[string]bool{}
		for _, g := range groups {
			sort.SliceStable(g, func(i, j int) bool { return g[i].callTS < g[j].callTS })
			n := 1
			for i := 1; i < len(g); i++ {
				if g[i].callTS-g[i-1].callTS <= win {
					ev.Repeats++
					ev.RepeatedTokens += g[i].tokens
					sessions[g[i].key()] = true
					n++
					ev.MostRepeats = max(ev.MostRepeats, n)
				} else {
					n = 1
				}
			}
		}
		if ev.Repeats < t.RepeatMin {
			continue
		}
		ev.Sessions = len(sessions)
		f := Finding{
			Type:      TypeRepeatedCalls,
			Subject:   Subject{Server: k.server, Tool: k.tool},
			Evidence:  ev,
			Level:     LevelInfo,
			LevelRule: "warn at 5 repeats or 10,000 repeated result tokens; info below",
			Title:     fmt.Sprintf("%s · %s was called again with identical arguments %s (%s result tokens)", k.server, k.tool, num.Count(ev.Repeats, "time"), num.Int(ev.RepeatedTokens)),
			Facts: []string{
				fmt.Sprintf("%s of %s, in %s, each within %s of the same call before it; up to %d identical calls in a row", num.Count(ev.Repeats, "repeat"), num.Count(ev.Calls, "call"), num.Count(ev.Sessions, "session"), dur(win), ev.MostRepeats),
			},
			Confidence:     "high",
			ConfidenceRule: "exact: same session, same tool, same keyed hash of the canonical arguments (the arguments themselves are never stored)",
			Recommendation: "The agent fetched the same thing again. If the result cannot have changed, say so in the tool's description or the project's instructions (CLAUDE.md, AGENTS.md) so the earlier result is reused; if it can change (a status poll), this is expected.",
			EstimatedSaving: &Saving{Tokens: ev.RepeatedTokens,
				Assumption: "if every repeated call's result had been reused instead of fetched again; not priced"},
		}
		if ev.Repeats >= 5 || ev.RepeatedTokens >= 10_000 {
			f.Level = LevelWarn
		}
		out = append(out, f)
	}
	return out
}

// SlowEvidence is the numbers behind a slow-tool finding.
type SlowEvidence struct {
	Calls int   `json:"calls"`
	P50Ms int64 `json:"p50Ms"`
	P95Ms int64 `json:"p95Ms"`
	MaxMs int64 `json:"maxMs"`
	// PreApproved is set when the settings let every one of these calls
	// run without asking: no permission wait is in the figures.
	PreApproved bool `json:"preApproved"`
}

// slow: a tool whose median latency (call to result, as logged) exceeds
// SlowP50 over at least SlowMinCalls calls. Level: warn when the median
// exceeds six times the threshold, info below.
func slow(calls []call, t Thresholds, preApproved func(source, project, server, tool string) bool) []Finding {
	keys, m := byTool(calls)
	var out []Finding
	for _, k := range keys {
		var lat []int64
		approved := preApproved != nil
		for _, c := range m[k] {
			if c.hasResult && c.resultTS >= c.callTS {
				lat = append(lat, c.resultTS-c.callTS)
				approved = approved && preApproved(c.source, c.project, c.server, c.tool)
			}
		}
		if len(lat) < t.SlowMinCalls {
			continue
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		ev := SlowEvidence{Calls: len(lat), P50Ms: nearest(lat, 0.5), P95Ms: nearest(lat, 0.95), MaxMs: lat[len(lat)-1], PreApproved: approved}
		if ev.P50Ms <= t.SlowP50.Milliseconds() {
			continue
		}
		f := Finding{
			Type:      TypeSlowTool,
			Subject:   Subject{Server: k.server, Tool: k.tool},
			Evidence:  ev,
			Level:     LevelInfo,
			LevelRule: fmt.Sprintf("warn when the median exceeds %s, info from %s", dur(6*t.SlowP50.Milliseconds()), dur(t.SlowP50.Milliseconds())),
			Title:     fmt.Sprintf("%s · %s takes %s at the median (p95 %s) over %s", k.server, k.tool, dur(ev.P50Ms), dur(ev.P95Ms), num.Count(ev.Calls, "call")),
			Facts: []string{
				fmt.Sprintf("latency p50 %s, p95 %s, max %s over %s with both timestamps", dur(ev.P50Ms), dur(ev.P95Ms), dur(ev.MaxMs), num.Count(ev.Calls, "call")),
				"the figures include any time spent waiting for your permission: transcripts carry no marker of a permission prompt",
			},
			Confidence:     "medium",
			ConfidenceRule: "latency is call to result as the agent logged them, including any wait for permission; the finding rests on the median, which waits on fewer than half of the calls cannot raise above the threshold",
			Recommendation: "If the tool is pre-approved (so no prompt waits are included), the server itself is slow: look for a timeout, a cold start per call, or a narrower request; if it asks for permission each time, allow it in settings to remove the wait.",
		}
		if approved {
			f.Facts[1] = "the settings allow this tool without asking (permissions.allow) in every project it ran in, so no permission prompt is in these figures"
			f.Confidence = "high"
			f.ConfidenceRule = "latency is call to result as the agent logged them; the tool is allowed in the settings of each session's project, so no permission wait is included (unless a setting changed during the window)"
			f.Recommendation = "The server itself is slow (the tool runs without asking): look for a timeout, a cold start per call, a slow upstream API, or a narrower request."
		}
		if ev.P50Ms > 6*t.SlowP50.Milliseconds() {
			f.Level = LevelWarn
		}
		out = append(out, f)
	}
	return out
}

func nearest(sorted []int64, p float64) int64 {
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

// serversCalled sums the calls per MCP server (and transcript source).
func serversCalled(calls []call, configs []ConfigUse) []ServerCalls {
	type agg struct {
		ServerCalls
		sessions, tools map[string]bool
	}
	m := map[string]*agg{}
	for _, c := range calls {
		if c.server == "" {
			continue
		}
		k := c.source + "\x00" + c.server
		a := m[k]
		if a == nil {
			a = &agg{ServerCalls: ServerCalls{Server: c.server, Source: c.source}, sessions: map[string]bool{}, tools: map[string]bool{}}
			m[k] = a
		}
		a.Calls++
		if c.isError {
			a.Errors++
		}
		// One name for the row, as usage's by server: the first plugin
		// by name that provides it.
		if c.plugin != "" && (a.Plugin == "" || c.plugin < a.Plugin) {
			a.Plugin = c.plugin
		}
		a.ResultTokens = addTokens(a.ResultTokens, c.tokens)
		a.EstimatedTokens = addTokens(a.EstimatedTokens, c.estimated)
		a.sessions[c.key()] = true
		a.tools[c.tool] = true
	}
	out := []ServerCalls{}
	for _, a := range m {
		a.Sessions, a.Tools = len(a.sessions), len(a.tools)
		for _, cu := range configs {
			for _, su := range cu.Servers {
				if cu.Source == a.Source && normServer(su.Name) == normServer(a.Server) {
					a.Configured = true
				}
			}
		}
		out = append(out, a.ServerCalls)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ResultTokens != b.ResultTokens {
			return a.ResultTokens > b.ResultTokens
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Source < b.Source
	})
	return out
}

// fewerThan says "fewer than n times", once and twice in words.
func fewerThan(n float64) string {
	switch n {
	case 1:
		return "less than once"
	case 2:
		return "less than twice"
	}
	return fmt.Sprintf("fewer than %g times", n)
}

// unmeasuredNotes say why some configured servers were not judged: not
// in the cache, where nothing was launched (static.Offline); else timed
// out or failed when launched, each with what to do.
func unmeasuredNotes(static *audit.Report) []string {
	if static.Offline {
		return []string{"some configured servers could not be measured (not in the measurement cache, or failed): they are not judged; measure them with --launch"}
	}
	var timedOut, extension []string
	failed := 0
	seen := map[string]bool{}
	for _, c := range static.Configs {
		for _, s := range c.Servers {
			st := status.Status(s.Status)
			if st.OK() || st.Off() || seen[c.Path+"\x00"+s.Name] {
				continue
			}
			seen[c.Path+"\x00"+s.Name] = true
			if st == status.Timeout {
				if !slices.Contains(timedOut, s.Name) {
					timedOut = append(timedOut, s.Name)
				}
			} else if st == status.Extension {
				if !slices.Contains(extension, s.Name) {
					extension = append(extension, s.Name)
				}
			} else if st != status.NeedsApproval && st != status.Problem {
				failed++
			}
		}
	}
	var notes []string
	if len(timedOut) > 0 {
		sort.Strings(timedOut)
		if len(timedOut) == 1 {
			notes = append(notes, "the configured server "+timedOut[0]+" timed out when launched: it is not judged; try a longer --timeout")
		} else {
			notes = append(notes, fmt.Sprintf("%s configured servers timed out when launched (%s): they are not judged; try a longer --timeout",
				num.Int(len(timedOut)), strings.Join(timedOut, ", ")))
		}
	}
	if len(extension) > 0 {
		sort.Strings(extension)
		notes = append(notes, fmt.Sprintf("%s %s provided by a client's extension, with a command not in the config: not measured, not judged",
			num.JoinAnd(extension), num.Plural(len(extension), "is", "are")))
	}
	if failed > 0 || (len(timedOut) == 0 && len(extension) == 0) {
		notes = append(notes, "some configured servers could not be measured when launched: they are not judged; 'mcpcost audit' says why")
	}
	return notes
}
