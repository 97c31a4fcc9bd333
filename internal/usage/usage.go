// Package usage turns the usage store into reports: what the requests of
// the sessions people ran cost, per day, session, model and project, and
// what each MCP server and tool put into the context (calls, errors,
// result tokens, latency). Prices come from a dated table embedded in the
// binary (prices.json, which names its sources) or from a file.
//
// Latency is how long the tool ran where the transcript records it (Codex
// shell commands: duration_seconds, "Wall time"); otherwise the time from
// the tool call's timestamp to its result's timestamp, as the agent wrote
// them, which includes any time the agent waited for the user to allow the
// call. Calls without a result have no latency and are counted as
// unanswered.
package usage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/store"
)

// Schema is the version of the report's JSON.
const Schema = "mcpcost.usage/v1"

// Dimensions a report can be grouped by.
var Dimensions = []string{"server", "tool", "session", "day", "week", "month", "model", "project", "machine", "user"}

// Periods are the dimensions whose rows are periods of time, in order:
// they take Options.Last and Options.Order.
var Periods = []string{"day", "week", "month"}

// Orders are the orders of rows in time (Options.Order).
var Orders = []string{"asc", "desc"}

// Options select and group what a report covers.
type Options struct {
	By string // one of Dimensions; default "server"
	// Since and Until bound the period (Until exclusive); zero for open.
	Since, Until time.Time
	// Period words the window as asked for (WindowArgs.Period); "" for
	// one made from Since and Until.
	Period string
	// Project keeps one project: its full path or its folder's name.
	Project string
	// Source is a transcript source ("claude", "codex", "copilot",
	// "goose", "gemini", "opencode") or "all" (or "").
	Source string
	// Machine and User keep the rows one machine, or one OS user, read
	// into the store (a shared store's; a local store's are its own
	// machine's and user's); "" keeps every one.
	Machine, User string
	// Location buckets days; nil for UTC.
	Location *time.Location
	Prices   *Prices
	// Mode is how a request's cost is found, as ccusage's --mode: "auto"
	// (the default: the cost Claude Code recorded in the line, when it
	// did, else calculated from the price table), "calculate" (always from
	// the table) or "display" (only the recorded cost; requests without
	// one are unpriced).
	Mode string
	Now  time.Time
	// SplitAgents, by session, lists each of Claude Code's older sub-agent
	// files (<project>/agent-<id>.jsonl, 2.0.x to 2.1.1) as a session of
	// its own, keyed by the file's name, as ccusage lists them, instead of
	// adding it to the session that started it.
	SplitAgents bool
	// StartOfWeek is the first day of a week, by week. ccusage's unified
	// weekly report starts weeks on Monday and its Claude report ("ccusage
	// claude weekly") on Sunday unless told otherwise; the caller picks.
	StartOfWeek time.Weekday
	// Breakdown adds each row's figures per model (UsageRow.Breakdown), by
	// day, week, month, session and project.
	Breakdown bool
	// Order is "asc" (the default: oldest first) or "desc", for rows in
	// time (by day, week, month and session).
	Order string
	// Last keeps the last Last periods, the current one included (1 is
	// today, this week or this month at Now in Location), by day, week or
	// month; 0 for no such bound. It narrows Since, never widens it.
	Last int

	// rows reads the store's rows even where its rollups would answer
	// (for tests, which check that both give the same report).
	rows bool
}

// Modes are the ways a request's cost is found: the findings' (which
// price requests as usage does).
var Modes = findings.Modes

// Tokens are token counts by kind.
type Tokens struct {
	Input        int64 `json:"input"`
	Output       int64 `json:"output"`
	CacheWrite5m int64 `json:"cacheWrite5m"`
	CacheWrite1h int64 `json:"cacheWrite1h"`
	CacheRead    int64 `json:"cacheRead"`
	Total        int64 `json:"total"`
	// Reasoning is the part of Output spent on reasoning, where the agent
	// records it (Codex); it is in Output and Total already.
	Reasoning int64 `json:"reasoning"`
}

// add adds u to t, each count saturating at the largest int64 rather
// than wrapping: counts are never negative (transcript.MaxTokens bounds
// each line's), so a sum is either exact or the largest int64.
func (t *Tokens) add(u Tokens) {
	t.Input = addTokens(t.Input, u.Input)
	t.Output = addTokens(t.Output, u.Output)
	t.Reasoning = addTokens(t.Reasoning, u.Reasoning)
	t.CacheWrite5m = addTokens(t.CacheWrite5m, u.CacheWrite5m)
	t.CacheWrite1h = addTokens(t.CacheWrite1h, u.CacheWrite1h)
	t.CacheRead = addTokens(t.CacheRead, u.CacheRead)
	t.Total = addTokens(t.Total, u.Total)
}

// addTokens adds two non-negative counts, saturating at math.MaxInt64.
func addTokens(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// AddTokens is a+b for two token counts of at least 0, stopping at
// math.MaxInt64 rather than wrapping, as the reports' sums do.
func AddTokens(a, b int64) int64 { return addTokens(a, b) }

// RoundTokens is a rate or projection of tokens, f >= 0, rounded to the
// unit, stopping at math.MaxInt64 (a conversion past it is undefined).
func RoundTokens(f float64) int64 {
	if !(f >= 0) {
		return 0
	}
	return tokensOf(f + 0.5)
}

// atMax reports whether a count of t stopped at math.MaxInt64.
func (t Tokens) atMax() bool {
	for _, n := range []int64{t.Input, t.Output, t.CacheWrite5m, t.CacheWrite1h, t.CacheRead, t.Total, t.Reasoning} {
		if n == math.MaxInt64 {
			return true
		}
	}
	return false
}

// CappedNote is what a report says when a token sum stopped at the
// largest 64-bit integer.
var CappedNote = "warning: token sums shown as " + num.Int(int64(math.MaxInt64)) + " reached the largest 64-bit integer, where sums stop rather than wrap: they are at least that, not exact (transcripts that record forged counts?)"

// capped reports whether a token sum of r stopped at math.MaxInt64.
func (r *Report) capped() bool {
	t := r.Totals
	if t.Tokens.atMax() || t.ResultTokens == math.MaxInt64 || t.MCPResultTokens == math.MaxInt64 {
		return true
	}
	for _, u := range r.Usage {
		if u.Tokens.atMax() || u.ResultTokens == math.MaxInt64 {
			return true
		}
		for _, m := range u.Breakdown {
			if m.Tokens.atMax() {
				return true
			}
		}
	}
	for _, x := range r.Tools {
		if x.ResultTokens == math.MaxInt64 || x.EstimatedTokens == math.MaxInt64 {
			return true
		}
	}
	return false
}

// Report is a usage report.
type Report struct {
	Schema      string    `json:"schema"`
	GeneratedAt time.Time `json:"generatedAt"`
	By          string    `json:"by"`
	// Since and Until are the window's RFC 3339 start and exclusive end,
	// null where it is open.
	Since *string `json:"since"`
	Until *string `json:"until"`
	// Period words the window as it was asked for: "all history", "the
	// last 7 days (from 2026-11-25)", "from 2026-01-01 to 2026-01-31
	// inclusive".
	Period   string `json:"period"`
	Timezone string `json:"timezone"`
	Source   string `json:"source"`
	Project  string `json:"project,omitempty"`
	// Machine and User are the machine and OS user kept, when a report
	// keeps one (Options.Machine, Options.User).
	Machine string `json:"machine,omitempty"`
	User    string `json:"user,omitempty"`
	// Store is the shared store the report read (its URL without its
	// password); omitted for the local store.
	Store string `json:"store,omitempty"`
	// SplitAgents is set when older sub-agent files are sessions of their
	// own (Options.SplitAgents).
	SplitAgents bool `json:"splitAgents,omitempty"`
	// StartOfWeek names the first day of a week ("monday"), by week.
	StartOfWeek string `json:"startOfWeek,omitempty"`
	// Order is "desc" when the rows run newest first; omitted for "asc".
	Order string `json:"order,omitempty"`
	// Last is the number of periods kept (Options.Last), when bounded.
	Last   int       `json:"last,omitempty"`
	Prices PriceInfo `json:"prices"`
	Mode   string    `json:"mode"`
	Totals Totals    `json:"totals"`
	// Usage rows, for by day, session, model and project.
	Usage []UsageRow `json:"usage"`
	// Tools rows, for by server and tool.
	Tools []ToolRow `json:"tools"`
	// Unpriced lists the models of requests without a cost (missing from
	// the price table; in display mode, without a recorded cost); their
	// tokens are counted and their cost is not.
	Unpriced []string `json:"unpriced"`
	// TokensCapped is set when a token sum of the report reached the
	// largest 64-bit integer, where sums stop rather than wrap: such a
	// figure is a lower bound, not exact (CappedNote says so in text).
	TokensCapped bool `json:"tokensCapped"`
	// Ingest reports the ingest run just before, when there was one.
	Ingest any `json:"ingest,omitempty"`
	// read holds the sources that have requests or tool calls in the
	// report, which its header names.
	read map[string]bool
}

// noteSource records that src has rows in the report.
func (r *Report) noteSource(src string) {
	if r.read == nil {
		r.read = map[string]bool{}
	}
	r.read[src] = true
}

// PriceInfo says which prices a report used.
type PriceInfo struct {
	Updated string        `json:"updated"`
	File    string        `json:"file,omitempty"`
	Sources []PriceSource `json:"sources"`
}

// Totals sum the whole period.
type Totals struct {
	Requests int    `json:"requests"`
	Sessions int    `json:"sessions"`
	Tokens   Tokens `json:"tokens"`
	// Cost is the sum of the priced requests' costs: null when no request
	// has a price, partial when some have none (UnpricedRequests).
	Cost             *float64 `json:"cost"`
	CostPartial      bool     `json:"costPartial,omitempty"`
	UnpricedRequests int      `json:"unpricedRequests,omitempty"`
	// RecordedRequests counts the requests priced at the cost recorded in
	// the transcript rather than calculated.
	RecordedRequests int   `json:"recordedRequests,omitempty"`
	ToolCalls        int   `json:"toolCalls"`
	MCPCalls         int   `json:"mcpCalls"`
	ToolErrors       int   `json:"toolErrors"`
	ResultTokens     int64 `json:"resultTokens"`
	MCPResultTokens  int64 `json:"mcpResultTokens"`
}

// UsageRow is one group of requests.
type UsageRow struct {
	Key      string `json:"key"`
	Requests int    `json:"requests"`
	Tokens   Tokens `json:"tokens"`
	// Cost is null when no request of the group has a price, partial
	// when some have none.
	Cost        *float64 `json:"cost"`
	CostPartial bool     `json:"costPartial,omitempty"`
	// Unpriced counts requests without a cost (not in Cost).
	Unpriced int      `json:"unpriced,omitempty"`
	Models   []string `json:"models"`
	// For sessions: where and when.
	Source  string     `json:"source,omitempty"`
	Project string     `json:"project,omitempty"`
	First   *time.Time `json:"first,omitempty"`
	Last    *time.Time `json:"last,omitempty"`
	// Tool calls in the group, and their result tokens.
	ToolCalls    int   `json:"toolCalls"`
	ResultTokens int64 `json:"resultTokens"`
	// Breakdown is the group's figures per model (Options.Breakdown):
	// the costliest first.
	Breakdown []ModelRow `json:"breakdown,omitempty"`
}

// ModelRow is one model's part of a group.
type ModelRow struct {
	Model       string   `json:"model"`
	Requests    int      `json:"requests"`
	Tokens      Tokens   `json:"tokens"`
	Cost        *float64 `json:"cost"`
	CostPartial bool     `json:"costPartial,omitempty"`
	Unpriced    int      `json:"unpriced,omitempty"`
}

// ToolRow is one MCP server (or the built-in tools), or one tool.
type ToolRow struct {
	// Server is the MCP server; empty for the agent's built-in tools.
	Server  string `json:"server"`
	BuiltIn bool   `json:"builtIn,omitempty"`
	Plugin  string `json:"plugin,omitempty"`
	// Tool is set in rows by tool.
	Tool string `json:"tool,omitempty"`
	// Tools counts the distinct tools called, in rows by server.
	Tools      int `json:"tools,omitempty"`
	Calls      int `json:"calls"`
	Errors     int `json:"errors"`
	Unanswered int `json:"unanswered,omitempty"` // calls without a result
	Sessions   int `json:"sessions"`
	// Result tokens: exact o200k_base counts of the results' text.
	ResultTokens    int64   `json:"resultTokens"`
	AvgResultTokens float64 `json:"avgResultTokens"`
	MaxResultTokens int64   `json:"maxResultTokens"`
	// Estimated tokens of non-text blocks (images, resources), not in
	// ResultTokens; NonTextBlocks counts those blocks.
	EstimatedTokens int64 `json:"estimatedTokens,omitempty"`
	NonTextBlocks   int   `json:"nonTextBlocks,omitempty"`
	// RepeatedCalls counts calls whose arguments were identical to an
	// earlier call of the same tool in the same session.
	RepeatedCalls int `json:"repeatedCalls,omitempty"`
	// Latency from call to result, in milliseconds (nil when no call has
	// both timestamps).
	LatencyP50Ms *int64 `json:"latencyP50Ms"`
	LatencyP95Ms *int64 `json:"latencyP95Ms"`
}

// Build computes a report from the store's database.
func Build(ctx context.Context, st *store.Store, o Options) (*Report, error) {
	if o.By == "" {
		o.By = "server"
	}
	if !validBy(o.By) {
		return nil, fmt.Errorf("unknown grouping %q (want one of %s)", o.By, strings.Join(Dimensions, ", "))
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Prices == nil {
		o.Prices = DefaultPrices()
	}
	if o.Source == "" {
		o.Source = "all"
	}
	if o.Mode == "" {
		o.Mode = "auto"
	}
	if !validMode(o.Mode) {
		return nil, fmt.Errorf("unknown mode %q (want one of %s)", o.Mode, strings.Join(Modes, ", "))
	}
	if o.Order == "" {
		o.Order = "asc"
	}
	if !slices.Contains(Orders, o.Order) {
		return nil, fmt.Errorf("unknown order %q (want asc or desc)", o.Order)
	}
	if o.Order == "desc" && !inTime(o.By) {
		return nil, fmt.Errorf("an order goes with rows in time (by %s or session), not by %s", strings.Join(Periods, ", "), o.By)
	}
	if o.Last < 0 || o.Last > MaxDays {
		return nil, fmt.Errorf("the last periods must be from 1 to %d, not %d", MaxDays, o.Last)
	}
	if o.Last > 0 {
		if !slices.Contains(Periods, o.By) {
			return nil, fmt.Errorf("the last periods go with rows by %s, not by %s", strings.Join(Periods, ", "), o.By)
		}
		if from := PeriodStart(o.By, o.Now, o.Location, o.StartOfWeek, o.Last); from.After(o.Since) {
			o.Since = from
			// The window now starts with the first period kept.
			period := "from " + from.Format("2006-01-02")
			if rest, ok := strings.CutPrefix(o.Period, "until "); ok {
				period += " to " + rest
			} else if i := strings.Index(o.Period, " to "); i >= 0 {
				period += o.Period[i:]
			}
			o.Period = period
		}
		if !o.Until.IsZero() && !o.Since.Before(o.Until) {
			o.Until = o.Since // an empty window: nothing in it
		}
	}
	if o.StartOfWeek < time.Sunday || o.StartOfWeek > time.Saturday {
		return nil, fmt.Errorf("unknown first day of the week %d", o.StartOfWeek)
	}
	if o.Breakdown && (o.By == "server" || o.By == "tool" || o.By == "model") {
		return nil, fmt.Errorf("a breakdown per model goes with rows by day, week, month, session or project, not by %s", o.By)
	}
	r := &Report{
		Schema:      Schema,
		GeneratedAt: o.Now.UTC(),
		By:          o.By,
		Timezone:    ZoneName(o.Location, o.Now),
		Period:      o.Period,
		Source:      o.Source,
		Project:     o.Project,
		Machine:     o.Machine,
		User:        o.User,
		SplitAgents: o.SplitAgents && o.By == "session",
		Prices:      PriceInfo{Updated: o.Prices.Updated, File: o.Prices.File, Sources: o.Prices.Sources},
		Mode:        o.Mode,
		Last:        o.Last,
		Usage:       []UsageRow{},
		Tools:       []ToolRow{},
	}
	if o.By == "week" {
		r.StartOfWeek = strings.ToLower(o.StartOfWeek.String())
	}
	if o.Order == "desc" {
		r.Order = "desc"
	}
	if !o.Since.IsZero() {
		s := o.Since.In(o.Location).Format(time.RFC3339)
		r.Since = &s
	}
	if !o.Until.IsZero() {
		s := o.Until.In(o.Location).Format(time.RFC3339)
		r.Until = &s
	}
	// The sessions' projects and spans name the rows by session alone:
	// the other reports do not read them.
	var sessions map[string]sessionInfo
	if o.By == "session" {
		var err error
		if sessions, err = loadSessions(ctx, st); err != nil {
			return nil, err
		}
	}
	if err := usageRows(ctx, st, o, r, sessions); err != nil {
		return nil, err
	}
	if err := toolRows(ctx, st, o, r); err != nil {
		return nil, err
	}
	r.TokensCapped = r.capped()
	return r, nil
}

func validMode(m string) bool {
	for _, x := range Modes {
		if x == m {
			return true
		}
	}
	return false
}

// requestTokens are a stored request's counts and their total; false for
// a request stored by an older mcpcost with a negative count, which no
// report counts.
func requestTokens(x store.Request) (Tokens, bool) {
	t := Tokens{Input: x.Input, Output: x.Output, CacheWrite5m: x.CacheWrite5m, CacheWrite1h: x.CacheWrite1h, CacheRead: x.CacheRead, Reasoning: x.Reasoning}
	if t.Input < 0 || t.Output < 0 || t.CacheWrite5m < 0 || t.CacheWrite1h < 0 || t.CacheRead < 0 {
		return t, false
	}
	t.Total = addTokens(addTokens(addTokens(addTokens(t.Input, t.Output), t.CacheWrite5m), t.CacheWrite1h), t.CacheRead)
	return t, true
}

// pricer finds requests' costs in one mode, looking a model's price up
// once rather than per request.
type pricer struct {
	prices *Prices
	mode   string
	models map[string]modelPrice
}

type modelPrice struct {
	mp ModelPrice
	ok bool
}

func newPricer(p *Prices, mode string) *pricer {
	return &pricer{prices: p, mode: mode, models: map[string]modelPrice{}}
}

// cost is x's cost (tokens t) and whether it has one: the cost recorded in
// its line (recorded) unless in calculate mode, else from the price table
// unless in display mode.
func (p *pricer) cost(x store.Request, t Tokens) (usd float64, ok, recorded bool) {
	if x.CostUSD != nil && p.mode != "calculate" {
		return *x.CostUSD, true, true
	}
	if p.mode == "display" {
		return 0, false, false
	}
	pr, seen := p.models[x.Model]
	if !seen {
		pr.mp, _, pr.ok = p.prices.Lookup(x.Model)
		p.models[x.Model] = pr
	}
	if !pr.ok {
		return 0, false, false
	}
	if totalsOnly(x.Source) {
		return tieredCost(t, pr.mp), true, false
	}
	return pr.mp.Cost(t, x.Speed == "fast"), true, false
}

// totalsOnly reports whether a source's requests are a session's totals
// per model rather than single model calls (GitHub Copilot CLI and Goose
// record usage only so). They are priced as ccusage prices them: see
// tieredCost.
func totalsOnly(src string) bool { return src == "copilot" || src == "goose" }

// tieredCost prices totals that are not one request: each kind of token
// pays the standard rate up to the long-context threshold and the
// long-context rate above it, as ccusage 20 prices Copilot CLI's and
// Goose's figures. The store's rollups sum a session's figures per model and
// quarter hour, so two shutdowns of one session within a quarter hour
// whose sum crosses the threshold where neither does are priced as one.
func tieredCost(t Tokens, mp ModelPrice) float64 {
	lc := mp.LongContext
	if lc == nil {
		return costAt(t, mp.Rates)
	}
	th := lc.Threshold
	part := func(n int64, std, long float64) float64 {
		if n <= th {
			return float64(n) * std
		}
		return float64(th)*std + float64(n-th)*long
	}
	return (part(t.Input, mp.Input, lc.Input) + part(t.Output, mp.Output, lc.Output) + part(t.CacheWrite5m, mp.CacheWrite5m, lc.CacheWrite5m) +
		part(t.CacheWrite1h, mp.CacheWrite1h, lc.CacheWrite1h) + part(t.CacheRead, mp.CacheRead, lc.CacheRead)) / 1e6
}

// costSum adds up the costs of a group's requests.
type costSum struct {
	usd      float64
	priced   int
	unpriced int
}

// add adds n requests of cost usd (ok: priced), nonzero of them with
// tokens.
func (c *costSum) add(usd float64, ok bool, n, nonzero int) {
	if ok {
		c.usd += usd
		c.priced += n
		return
	}
	c.unpriced += nonzero
}

// result is the sum as a report shows it: nil when nothing had a price
// and something had none; partial when some had none.
func (c costSum) result() (*float64, bool) {
	if c.priced == 0 && c.unpriced > 0 {
		return nil, false
	}
	v := roundCost(c.usd)
	return &v, c.unpriced > 0
}

// inTime says whether rows by by run in time, and so take an order.
func inTime(by string) bool { return by == "session" || slices.Contains(Periods, by) }

func validBy(by string) bool {
	for _, d := range Dimensions {
		if d == by {
			return true
		}
	}
	return false
}

type sessionInfo struct {
	project     string
	first, last int64
}

func loadSessions(ctx context.Context, st *store.Store) (map[string]sessionInfo, error) {
	ss, err := st.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	m := make(map[string]sessionInfo, len(ss))
	for _, x := range ss {
		m[x.Source+"\x00"+x.ID] = sessionInfo{project: x.Project, first: x.FirstTS, last: x.LastTS}
	}
	return m, nil
}

// filter selects the rows of the report's period, source and project;
// by session, with SplitAgents, each row names its older-style sub-agent
// file.
func filter(o Options, order store.Order) store.Filter {
	return store.Filter{Since: o.Since, Until: o.Until, Source: o.Source, Project: o.Project, Machine: o.Machine, User: o.User, Order: order,
		AgentFiles: o.SplitAgents && o.By == "session"}
}

// usageAcc sums requests into a report's totals and usage rows: one
// request at a time (read from the store's rows) or many (its rollups).
type usageAcc struct {
	o        Options
	r        *Report
	groups   map[string]*UsageRow
	costs    map[string]*costSum
	total    costSum
	models   map[string]map[string]bool
	parents  map[string]string // split sub-agent rows: their session
	sessions map[string]bool
	unpriced map[string]bool
	// A model's price, looked up once per model rather than per request.
	priced map[string]price
	// breakdown is each group's part per model (Options.Breakdown).
	breakdown map[string]map[string]*modelAgg
}

// modelAgg is one model's part of a group.
type modelAgg struct {
	row  ModelRow
	cost costSum
}

type price struct {
	mp ModelPrice
	ok bool
}

func newUsageAcc(o Options, r *Report) *usageAcc {
	return &usageAcc{o: o, r: r, groups: map[string]*UsageRow{}, costs: map[string]*costSum{}, models: map[string]map[string]bool{},
		parents: map[string]string{}, sessions: map[string]bool{}, unpriced: map[string]bool{}, priced: map[string]price{},
		breakdown: map[string]map[string]*modelAgg{}}
}

// requests are n requests of one group (nonzero of them with tokens)
// with tokens t and the cost they recorded (when recorded), priced in
// band (see store.RequestSum) when band >= 0, else by t itself (n is 1).
type requests struct {
	src, sess, model, project, speed, agent string
	machine, user                           string
	ts                                      int64
	n, nonzero                              int
	t                                       Tokens
	recorded                                bool
	recordedUSD                             float64
	band                                    int
}

func (a *usageAcc) add(x requests) {
	o, r := a.o, a.r
	r.noteSource(x.src)
	t := x.t
	t.Total = addTokens(addTokens(addTokens(addTokens(t.Input, t.Output), t.CacheWrite5m), t.CacheWrite1h), t.CacheRead)
	sk := x.src + "\x00" + x.sess
	pr, seen := a.priced[x.model]
	if !seen {
		pr.mp, _, pr.ok = o.Prices.Lookup(x.model)
		a.priced[x.model] = pr
	}
	cost, ok := 0.0, false
	switch {
	case x.recorded && o.Mode != "calculate":
		cost, ok = x.recordedUSD, true
		r.Totals.RecordedRequests += x.n
	case pr.ok && o.Mode != "display" && totalsOnly(x.src):
		cost, ok = tieredCost(t, pr.mp), true
	case pr.ok && o.Mode != "display" && x.band >= 0:
		cost, ok = costAt(t, pr.mp.RatesFor(bandInputs[x.band], x.speed == "fast")), true
	case pr.ok && o.Mode != "display":
		cost, ok = pr.mp.Cost(t, x.speed == "fast"), true
	}
	if !ok && x.nonzero > 0 {
		a.unpriced[x.model] = true
	}
	a.sessions[sk] = true
	r.Totals.Requests += x.n
	r.Totals.Tokens.add(t)
	a.total.add(cost, ok, x.n, x.nonzero)
	key := groupKey(o, x.src, x.sess, x.model, x.project, x.machine, x.user, x.ts)
	if key == "" {
		return
	}
	if x.agent != "" {
		key = x.src + ":" + x.agent
		a.parents[key] = sk
	}
	g := a.groups[key]
	if g == nil {
		g = &UsageRow{Key: key}
		a.groups[key] = g
		a.costs[key] = &costSum{}
		a.models[key] = map[string]bool{}
	}
	if x.agent != "" {
		// A sub-agent file's own span: its first and last request.
		f, l := time.UnixMilli(x.ts).In(o.Location), time.UnixMilli(x.ts).In(o.Location)
		if g.First == nil || f.Before(*g.First) {
			g.First = &f
		}
		if g.Last == nil || l.After(*g.Last) {
			g.Last = &l
		}
	}
	g.Requests += x.n
	g.Tokens.add(t)
	a.costs[key].add(cost, ok, x.n, x.nonzero)
	a.models[key][x.model] = true
	if o.Breakdown {
		b := a.breakdown[key]
		if b == nil {
			b = map[string]*modelAgg{}
			a.breakdown[key] = b
		}
		ma := b[x.model]
		if ma == nil {
			ma = &modelAgg{row: ModelRow{Model: displayModel(x.model)}}
			b[x.model] = ma
		}
		ma.row.Requests += x.n
		ma.row.Tokens.add(t)
		ma.cost.add(cost, ok, x.n, x.nonzero)
	}
}

// finish fills in the report's totals and usage rows.
func (a *usageAcc) finish(sessions map[string]sessionInfo) {
	o, r := a.o, a.r
	r.Totals.Sessions = len(a.sessions)
	r.Totals.Cost, r.Totals.CostPartial = a.total.result()
	r.Totals.UnpricedRequests = a.total.unpriced
	for m := range a.unpriced {
		r.Unpriced = append(r.Unpriced, displayModel(m))
	}
	sort.Strings(r.Unpriced)
	for key, g := range a.groups {
		for m := range a.models[key] {
			g.Models = append(g.Models, displayModel(m))
		}
		sort.Strings(g.Models)
		g.Cost, g.CostPartial = a.costs[key].result()
		g.Unpriced = a.costs[key].unpriced
		for _, ma := range a.breakdown[key] {
			mr := ma.row
			mr.Cost, mr.CostPartial = ma.cost.result()
			mr.Unpriced = ma.cost.unpriced
			g.Breakdown = append(g.Breakdown, mr)
		}
		sortUsage("model", g.Breakdown)
		if o.By == "session" {
			src, id, _ := strings.Cut(key, ":")
			if parent, ok := a.parents[key]; ok {
				g.Source, g.Project = src, sessions[parent].project
				r.Usage = append(r.Usage, *g)
				continue
			}
			s := sessions[src+"\x00"+id]
			g.Source, g.Project = src, s.project
			if s.first > 0 {
				f, l := time.UnixMilli(s.first).In(o.Location), time.UnixMilli(s.last).In(o.Location)
				g.First, g.Last = &f, &l
			}
		}
		r.Usage = append(r.Usage, *g)
	}
	sortUsage(o.By, r.Usage)
	if o.Order == "desc" {
		slices.Reverse(r.Usage)
	}
}

// usageRows sums the requests from the store's rollups where they answer
// the report exactly (see rolledUp), else from its rows.
func usageRows(ctx context.Context, st *store.Store, o Options, r *Report, sessions map[string]sessionInfo) error {
	if rolledUp(o) {
		a := newUsageAcc(o, r)
		err := requestSums(ctx, st, o, a)
		if err == nil {
			a.finish(sessions)
			return nil
		}
		if !errors.Is(err, errNoRollup) && !errors.Is(err, store.ErrNoRollup) {
			return err
		}
		r.Totals = Totals{}
	}
	a := newUsageAcc(o, r)
	for x, err := range st.Requests(ctx, filter(o, store.ByIdentity)) {
		if err != nil {
			return err
		}
		t := Tokens{Input: x.Input, Output: x.Output, CacheWrite5m: x.CacheWrite5m, CacheWrite1h: x.CacheWrite1h, CacheRead: x.CacheRead, Reasoning: x.Reasoning}
		if t.Input < 0 || t.Output < 0 || t.CacheWrite5m < 0 || t.CacheWrite1h < 0 || t.CacheRead < 0 {
			continue // stored by an older mcpcost, which took negative counts
		}
		nonzero := 0
		if t.Input+t.Output+t.CacheWrite5m+t.CacheWrite1h+t.CacheRead > 0 {
			nonzero = 1
		}
		q := requests{src: x.Source, sess: x.Session, model: x.Model, project: x.Project, speed: x.Speed, agent: x.AgentFile, ts: x.TS,
			machine: x.Machine, user: x.User,
			n: 1, nonzero: nonzero, t: t, band: -1}
		if x.CostUSD != nil {
			q.recorded, q.recordedUSD = true, *x.CostUSD
		}
		a.add(q)
	}
	a.finish(sessions)
	return nil
}

func displayModel(m string) string {
	if m == "" {
		return "(unknown model)"
	}
	return m
}

// groupKey is a request's group in the report (empty: no usage rows).
func groupKey(o Options, src, sess, model, project, machine, user string, ts int64) string {
	switch o.By {
	case "day":
		return time.UnixMilli(ts).In(o.Location).Format("2006-01-02")
	case "week":
		return WeekStart(time.UnixMilli(ts), o.Location, o.StartOfWeek).Format("2006-01-02")
	case "month":
		return time.UnixMilli(ts).In(o.Location).Format("2006-01")
	case "session":
		return src + ":" + sess
	case "model":
		return displayModel(model)
	case "project":
		if project == "" {
			return "(unknown project)"
		}
		return project
	case "machine":
		if machine == "" {
			return "(unknown machine)"
		}
		return machine
	case "user":
		if user == "" {
			return "(unknown user)"
		}
		return user
	}
	return ""
}

// row is what sortUsage sorts by: a group's or a model's key, first and
// figures.
type row interface {
	sortKey() (key string, first *time.Time, cost *float64, total int64)
}

func (u UsageRow) sortKey() (string, *time.Time, *float64, int64) {
	return u.Key, u.First, u.Cost, u.Tokens.Total
}

func (m ModelRow) sortKey() (string, *time.Time, *float64, int64) {
	return m.Model, nil, m.Cost, m.Tokens.Total
}

// sortUsage sorts rows by time (by day, week, month or session) or, for
// the other groupings and a breakdown's models, the costliest first.
func sortUsage[R row](by string, rows []R) {
	sort.Slice(rows, func(i, j int) bool {
		ak, af, ac, at := rows[i].sortKey()
		bk, bf, bc, bt := rows[j].sortKey()
		switch by {
		case "day", "week", "month":
			return ak < bk
		case "session":
			if af != nil && bf != nil && !af.Equal(*bf) {
				return af.Before(*bf)
			}
			return ak < bk
		}
		if ca, cb := costOf(ac), costOf(bc); ca != cb {
			return ca > cb
		}
		if at != bt {
			return at > bt
		}
		return ak < bk
	})
}

type toolAgg struct {
	row       ToolRow
	tools     map[string]bool
	sessions  map[string]bool
	latencies []int64
	seenArgs  map[string]bool
}

// toolGroups are the rows by server or tool being summed, by key.
type toolGroups struct {
	by     string
	groups map[string]*toolAgg
}

// group returns the group of a server's tool (tool is the name the
// report gives it), made when new. A group's plugin is the first by name
// of its calls' plugins (a server of the same name may come with more
// than one), so that it does not depend on the order of the rows.
func (t *toolGroups) group(server, tool, plugin string) *toolAgg {
	key := t.key(server, tool)
	g := t.groups[key]
	if g == nil {
		g = &toolAgg{row: ToolRow{Server: server, BuiltIn: server == "", Plugin: plugin}, tools: map[string]bool{}, sessions: map[string]bool{}, seenArgs: map[string]bool{}}
		if t.by == "tool" {
			g.row.Tool = tool
		}
		t.groups[key] = g
	}
	if plugin != "" && (g.row.Plugin == "" || plugin < g.row.Plugin) {
		g.row.Plugin = plugin
	}
	return g
}

func (t *toolGroups) key(server, tool string) string {
	if t.by == "tool" {
		return server + "\x00" + tool
	}
	return server
}

// timing adds a call's latency (-1: none) and arguments' hash (nil:
// none) to the group, in the session with key sk.
func (g *toolAgg) timing(sk, name string, latency int64, hash []byte) {
	if latency >= 0 {
		g.latencies = append(g.latencies, latency)
	}
	if len(hash) > 0 {
		ak := sk + "\x00" + name + "\x00" + string(hash)
		if g.seenArgs[ak] {
			g.row.RepeatedCalls++
		}
		g.seenArgs[ak] = true
	}
}

// rows fills in the report's tool rows from the groups.
func (t *toolGroups) rows(r *Report) {
	for _, g := range t.groups {
		row := g.row
		if t.by == "server" {
			row.Tools = len(g.tools)
		}
		row.Sessions = len(g.sessions)
		if row.Calls > 0 {
			row.AvgResultTokens = math.Round(float64(row.ResultTokens)/float64(row.Calls)*10) / 10
		}
		row.LatencyP50Ms, row.LatencyP95Ms = percentile(g.latencies, 0.50), percentile(g.latencies, 0.95)
		r.Tools = append(r.Tools, row)
	}
	sort.Slice(r.Tools, func(i, j int) bool {
		a, b := r.Tools[i], r.Tools[j]
		if a.BuiltIn != b.BuiltIn {
			return b.BuiltIn // MCP servers first
		}
		if a.ResultTokens != b.ResultTokens {
			return a.ResultTokens > b.ResultTokens
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Tool < b.Tool
	})
}

// toolRows sums the tool calls by server or tool from the store's
// rollups and the calls' timings where the rollups answer the report
// (see rolledUp), else from the rows; by any other grouping, the tool
// call totals (see toolTotals).
func toolRows(ctx context.Context, st *store.Store, o Options, r *Report) error {
	if o.By != "server" && o.By != "tool" {
		return toolTotals(ctx, st, o, r)
	}
	if rolledUp(o) {
		err := toolUseSums(ctx, st, o, r)
		if !errors.Is(err, store.ErrNoRollup) {
			return err
		}
	}
	t := &toolGroups{by: o.By, groups: map[string]*toolAgg{}}
	for x, err := range st.ToolCalls(ctx, filter(o, store.AsStored)) {
		if err != nil {
			return err
		}
		src, sess, name, tool, server, plugin := x.Source, x.Session, x.Name, x.Tool, x.Server, x.Plugin
		hasCall, hasResult, isErr := x.HasCall, x.HasResult, x.IsError
		tokens, est, nonText, hash := x.ResultTokens, x.EstimatedTokens, x.NonText, x.ArgsHash
		latency := int64(-1)
		switch {
		case x.DurationMs != nil:
			latency = *x.DurationMs
		case hasCall && hasResult:
			latency = x.ResultTS - x.CallTS
		}
		sk := src + "\x00" + sess
		if !hasCall {
			// A result whose call is in a file not (yet) read: counted for
			// its tokens under its session, without a tool name.
			name, tool = "(unknown tool)", "(unknown tool)"
		}
		if tool == "" {
			tool = name
		}
		r.noteSource(src)
		r.Totals.ToolCalls++
		r.Totals.ResultTokens = addTokens(r.Totals.ResultTokens, tokens)
		if server != "" {
			r.Totals.MCPCalls++
			r.Totals.MCPResultTokens = addTokens(r.Totals.MCPResultTokens, tokens)
		}
		if isErr {
			r.Totals.ToolErrors++
		}
		g := t.group(server, tool, plugin)
		g.row.Calls++
		g.tools[tool] = true
		g.sessions[sk] = true
		if isErr {
			g.row.Errors++
		}
		if !hasResult {
			g.row.Unanswered++
		}
		g.row.ResultTokens = addTokens(g.row.ResultTokens, tokens)
		g.row.MaxResultTokens = max(g.row.MaxResultTokens, tokens)
		g.row.EstimatedTokens = addTokens(g.row.EstimatedTokens, est)
		g.row.NonTextBlocks += nonText
		if !hasCall || !hasResult {
			latency = -1
		}
		g.timing(sk, name, latency, hash)
	}
	t.rows(r)
	return nil
}

// toolUseSums is toolRows from the per-tool rollups, and the timings of
// the calls for their latencies and repeated arguments; it adds nothing
// to r when it returns an error.
func toolUseSums(ctx context.Context, st *store.Store, o Options, r *Report) error {
	t := &toolGroups{by: o.By, groups: map[string]*toolAgg{}}
	var tot Totals
	for x, err := range st.ToolUseSums(ctx, filter(o, store.AsStored)) {
		if err != nil {
			return err
		}
		tot.ToolCalls += x.Calls
		tot.ResultTokens = addTokens(tot.ResultTokens, x.ResultTokens)
		if x.Server != "" {
			tot.MCPCalls += x.Calls
			tot.MCPResultTokens = addTokens(tot.MCPResultTokens, x.ResultTokens)
		}
		tot.ToolErrors += x.Errors
		g := t.group(x.Server, x.Tool, x.Plugin)
		g.row.Calls += x.Calls
		g.tools[x.Tool] = true
		g.sessions[x.Source+"\x00"+x.Session] = true
		g.row.Errors += x.Errors
		g.row.Unanswered += x.Unanswered
		g.row.ResultTokens = addTokens(g.row.ResultTokens, x.ResultTokens)
		g.row.MaxResultTokens = max(g.row.MaxResultTokens, x.MaxResult)
		g.row.EstimatedTokens = addTokens(g.row.EstimatedTokens, x.EstimatedTokens)
		g.row.NonTextBlocks += x.NonText
	}
	for x, err := range st.ToolTimings(ctx, filter(o, store.AsStored)) {
		if err != nil {
			return err
		}
		if g := t.groups[t.key(x.Server, x.Tool)]; g != nil { // nil: a call stored since the sums were read
			g.timing(x.Source+"\x00"+x.Session, x.Name, x.LatencyMs, x.ArgsHash)
		}
	}
	r.Totals.ToolCalls += tot.ToolCalls
	r.Totals.ResultTokens = addTokens(r.Totals.ResultTokens, tot.ResultTokens)
	r.Totals.MCPCalls += tot.MCPCalls
	r.Totals.MCPResultTokens = addTokens(r.Totals.MCPResultTokens, tot.MCPResultTokens)
	r.Totals.ToolErrors += tot.ToolErrors
	t.rows(r)
	return nil
}

// toolTotals reads the tool calls once for the totals and for the tool
// calls of each usage row (by session, day or project; not by model,
// which tool calls do not carry), when the report has no tool rows.
func toolTotals(ctx context.Context, st *store.Store, o Options, r *Report) error {
	if rolledUp(o) {
		err := toolSums(ctx, st, o, r)
		if !errors.Is(err, errNoRollup) && !errors.Is(err, store.ErrNoRollup) {
			return err
		}
	}
	idx := map[string]int{}
	for i, u := range r.Usage {
		idx[u.Key] = i
	}
	for x, err := range st.ToolCalls(ctx, filter(o, store.AsStored)) {
		if err != nil {
			return err
		}
		src, sess, server, project, agent := x.Source, x.Session, x.Server, x.Project, x.AgentFile
		machine, user := x.Machine, x.User
		tokens, isErr, ts := x.ResultTokens, x.IsError, x.TS()
		r.noteSource(src)
		r.Totals.ToolCalls++
		r.Totals.ResultTokens = addTokens(r.Totals.ResultTokens, tokens)
		if server != "" {
			r.Totals.MCPCalls++
			r.Totals.MCPResultTokens = addTokens(r.Totals.MCPResultTokens, tokens)
		}
		if isErr {
			r.Totals.ToolErrors++
		}
		if o.By == "model" {
			continue
		}
		key := groupKey(o, src, sess, "", project, machine, user, ts)
		if agent != "" {
			key = src + ":" + agent
		}
		i, ok := idx[key]
		if !ok {
			continue // a group without requests in the period
		}
		r.Usage[i].ToolCalls++
		r.Usage[i].ResultTokens = addTokens(r.Usage[i].ResultTokens, tokens)
	}
	return nil
}

// costOf is a cost for sorting: an unpriced group sorts as zero.
func costOf(c *float64) float64 {
	if c == nil {
		return 0
	}
	return *c
}

// roundCost rounds to a billionth of a dollar, so that sums do not show
// the noise of floating-point addition.
func roundCost(c float64) float64 { return math.Round(c*1e9) / 1e9 }

// percentile is the nearest-rank percentile of v (sorted in place).
func percentile(v []int64, p float64) *int64 {
	if len(v) == 0 {
		return nil
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	k := int(math.Ceil(p*float64(len(v)))) - 1
	k = max(0, min(k, len(v)-1))
	x := v[k]
	return &x
}
