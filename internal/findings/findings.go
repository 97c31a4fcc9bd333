// Package findings joins the two halves of mcpcost: what the configured
// MCP servers cost before anything is typed (the static audit) and what
// the sessions people ran did with them (the usage store). It turns the
// two into ranked findings, each with a stable id, the numbers behind it,
// a confidence with its rule, a recommendation shaped by the case and an
// estimated saving that states its assumption.
//
// Finding types:
//
//   - idle-server: a configured server whose definitions rode on N
//     requests of the sessions its config applied to, and which was
//     called rarely or never in them.
//   - oversized-results: a tool whose results average over a threshold,
//     or reach Claude Code's warning (10,000) or limit
//     (MAX_MCP_OUTPUT_TOKENS, 25,000) for MCP tool output.
//   - repeated-calls: the same tool called with identical arguments (the
//     same keyed hash) in the same session within a window.
//   - slow-tool: a tool whose median latency exceeds a threshold.
//   - expensive-session: a session that cost more than a threshold, with
//     what drove its cost.
//   - cache-inefficiency: a project and day whose cache writes are well
//     above its cache reads.
//   - heavy-definition: a tool whose definition is over the per-tool
//     threshold, or whose description Claude Code cuts at 2,048
//     characters.
//
// Levels follow one rule per type, documented on each rule's function;
// findings are sorted by level, then estimated saving in USD, then in
// tokens, then id. Ids hash the type and the subject (server, tool,
// session, project and day), never the numbers, so the same finding keeps
// its id when more data arrives.
package findings

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/mcpcost/mcpcost/internal/num"
)

// Schema is the version of the findings JSON.
const Schema = "mcpcost.findings/v1"

// Finding types.
const (
	TypeIdleServer        = "idle-server"
	TypeOversizedResults  = "oversized-results"
	TypeRepeatedCalls     = "repeated-calls"
	TypeSlowTool          = "slow-tool"
	TypeExpensiveSession  = "expensive-session"
	TypeCacheInefficiency = "cache-inefficiency"
	TypeHeavyDefinition   = "heavy-definition"
)

// Levels, lowest first.
const (
	LevelInfo = "info"
	LevelWarn = "warn"
	LevelHigh = "high"
)

// Levels lists the levels, lowest first.
var Levels = []string{LevelInfo, LevelWarn, LevelHigh}

// LevelRank orders levels: info 1, warn 2, high 3; 0 for an unknown level.
func LevelRank(level string) int {
	for i, l := range Levels {
		if l == level {
			return i + 1
		}
	}
	return 0
}

// Claude Code's limits on MCP tool output (reference: ecosystem §2).
const (
	// ClaudeOutputLimit is MAX_MCP_OUTPUT_TOKENS's default.
	ClaudeOutputLimit = 25_000
	// ClaudeOutputWarn is where Claude Code starts warning.
	ClaudeOutputWarn = 10_000
)

// Thresholds are the rules' parameters. Zero values take the defaults.
type Thresholds struct {
	// IdleMinRequests: a server is judged idle only over at least this
	// many requests (default 10).
	IdleMinRequests int `json:"idleMinRequests"`
	// IdleCallsPer100 flags a server called fewer than this many times per
	// 100 requests it rode on (default 1); a server never called is always
	// flagged.
	IdleCallsPer100 float64 `json:"idleCallsPer100"`
	// ResultAvgTokens flags a tool whose results average more (default
	// 5,000).
	ResultAvgTokens int `json:"resultAvgTokens"`
	// OutputLimit is MAX_MCP_OUTPUT_TOKENS (default 25,000, or the value
	// set in the environment or Claude Code's settings); OutputWarn is
	// where Claude Code warns (10,000).
	OutputLimit int `json:"outputLimit"`
	OutputWarn  int `json:"outputWarn"`
	// RepeatWindow: two calls with identical arguments within it are a
	// repeat (default 10 minutes); RepeatMin repeats of a tool make a
	// finding (default 2).
	RepeatWindow time.Duration `json:"-"`
	RepeatMin    int           `json:"repeatMin"`
	// SlowP50 flags a tool whose median latency exceeds it (default 10 s)
	// over at least SlowMinCalls calls with both timestamps (default 3).
	SlowP50      time.Duration `json:"-"`
	SlowMinCalls int           `json:"slowMinCalls"`
	// SessionUSD flags sessions that cost more (default 5 USD); at most
	// SessionTop of them, the costliest (default 5).
	SessionUSD float64 `json:"sessionUsd"`
	SessionTop int     `json:"sessionTop"`
	// CacheRatio flags a project and day whose cache writes exceed this
	// multiple of its cache reads (default 1), with at least
	// CacheMinWrites tokens written (default 100,000).
	CacheRatio     float64 `json:"cacheRatio"`
	CacheMinWrites int64   `json:"cacheMinWrites"`
	// ToolTokens flags a tool definition over this many tokens (default
	// 1,500).
	ToolTokens int `json:"toolTokens"`
	// HighUSD raises an idle server, or a cache inefficiency, to high when
	// its estimated saving reaches it (default 1 USD).
	HighUSD float64 `json:"highUsd"`

	// The durations in milliseconds, for JSON.
	RepeatWindowMs int64 `json:"repeatWindowMs"`
	SlowP50Ms      int64 `json:"slowP50Ms"`
}

// Defaults returns the default thresholds.
func Defaults() Thresholds {
	return Thresholds{
		IdleMinRequests: 10,
		IdleCallsPer100: 1,
		ResultAvgTokens: 5_000,
		OutputLimit:     ClaudeOutputLimit,
		OutputWarn:      ClaudeOutputWarn,
		RepeatWindow:    10 * time.Minute,
		RepeatMin:       2,
		SlowP50:         10 * time.Second,
		SlowMinCalls:    3,
		SessionUSD:      5,
		SessionTop:      5,
		CacheRatio:      1,
		CacheMinWrites:  100_000,
		ToolTokens:      1_500,
		HighUSD:         1,
	}
}

// withDefaults fills the zero fields of t.
func (t Thresholds) withDefaults() Thresholds {
	d := Defaults()
	orDefault(&t.IdleMinRequests, d.IdleMinRequests)
	orDefault(&t.IdleCallsPer100, d.IdleCallsPer100)
	orDefault(&t.ResultAvgTokens, d.ResultAvgTokens)
	orDefault(&t.OutputLimit, d.OutputLimit)
	orDefault(&t.OutputWarn, d.OutputWarn)
	orDefault(&t.RepeatWindow, d.RepeatWindow)
	orDefault(&t.RepeatMin, d.RepeatMin)
	orDefault(&t.SlowP50, d.SlowP50)
	orDefault(&t.SlowMinCalls, d.SlowMinCalls)
	orDefault(&t.SessionUSD, d.SessionUSD)
	orDefault(&t.SessionTop, d.SessionTop)
	orDefault(&t.CacheRatio, d.CacheRatio)
	orDefault(&t.CacheMinWrites, d.CacheMinWrites)
	orDefault(&t.ToolTokens, d.ToolTokens)
	orDefault(&t.HighUSD, d.HighUSD)
	if t.OutputWarn > t.OutputLimit {
		t.OutputWarn = t.OutputLimit
	}
	t.RepeatWindowMs = t.RepeatWindow.Milliseconds()
	t.SlowP50Ms = t.SlowP50.Milliseconds()
	return t
}

// orDefault sets a threshold left at zero (or below) to its default.
func orDefault[T int | int64 | float64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// Subject is what a finding is about. Its fields, with the type, make the
// finding's id.
type Subject struct {
	Client  string `json:"client,omitempty"`
	Config  string `json:"config,omitempty"`
	Scope   string `json:"scope,omitempty"`
	Server  string `json:"server,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Source  string `json:"source,omitempty"`
	Session string `json:"session,omitempty"`
	Project string `json:"project,omitempty"`
	Day     string `json:"day,omitempty"`
}

// Saving is an estimated saving: an estimate, with its assumption.
type Saving struct {
	Tokens int64 `json:"tokens"`
	// USD is nil when the saving is not priced (the assumption says why).
	USD        *float64 `json:"usd"`
	Assumption string   `json:"assumption"`
}

// Finding is one thing worth changing, with the numbers behind it.
type Finding struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	Level   string  `json:"level"`
	Title   string  `json:"title"`
	Subject Subject `json:"subject"`
	// Evidence is the numbers, as data (one struct per type).
	Evidence any `json:"evidence"`
	// Facts words the evidence, one line each.
	Facts          []string `json:"facts"`
	Confidence     string   `json:"confidence"` // high | medium | low
	ConfidenceRule string   `json:"confidenceRule"`
	LevelRule      string   `json:"levelRule"`
	Recommendation string   `json:"recommendation"`
	// EstimatedSaving is nil when the finding has no saving to estimate.
	EstimatedSaving *Saving `json:"estimatedSaving"`
}

// Counts counts findings per level.
type Counts struct {
	High int `json:"high"`
	Warn int `json:"warn"`
	Info int `json:"info"`
}

// Window is what the run-time half covers.
type Window struct {
	// Since and Until are the window's RFC 3339 start and exclusive end,
	// null where it is open.
	Since *string `json:"since"`
	Until *string `json:"until"`
	// Period words the window as it was asked for ("the last 7 days
	// (from 2026-11-25)", "from 2026-01-01 to 2026-01-31 inclusive").
	Period  string `json:"period"`
	Project string `json:"project,omitempty"`
	// Machine and User are the machine and OS user kept (Options.Machine,
	// Options.User), when one is.
	Machine  string `json:"machine,omitempty"`
	User     string `json:"user,omitempty"`
	Requests int    `json:"requests"`
	// MainRequests are those of the main conversations (not sub-agents).
	MainRequests int     `json:"mainRequests"`
	Sessions     int     `json:"sessions"`
	ToolCalls    int     `json:"toolCalls"`
	MCPCalls     int     `json:"mcpCalls"`
	Cost         float64 `json:"cost"`
	// UnpricedModels have no price in the table: their cost is not counted.
	UnpricedModels []string `json:"unpricedModels"`
}

// Report is the findings of one run.
type Report struct {
	Schema        string    `json:"schema"`
	GeneratedAt   time.Time `json:"generatedAt"`
	Window        Window    `json:"window"`
	PricesUpdated string    `json:"pricesUpdated"`
	// Mode is how requests' costs were found (see Options.Mode).
	Mode       string     `json:"mode"`
	Thresholds Thresholds `json:"thresholds"`
	// Static is set when a static audit of the configs was joined.
	Static bool `json:"static"`
	// Partial is set when some part could not be judged; Notes say which.
	Partial  bool      `json:"partial"`
	Notes    []string  `json:"notes"`
	Counts   Counts    `json:"counts"`
	Findings []Finding `json:"findings"`
	// Configs is the join per config: what it pays before typing, what
	// its sessions used. Filled when a static audit was given.
	Configs []ConfigUse `json:"configs"`
	// ServersCalled is every MCP server called in the window, configured
	// in an audited config or not, most result tokens first.
	ServersCalled []ServerCalls `json:"serversCalled"`
	// Timeline is the window by day, session and project, for the
	// combined report (Overview); not part of the findings' JSON.
	Timeline *Timeline `json:"-"`
	// TokensCapped is set when a token sum of the findings reached the
	// largest 64-bit integer, where sums stop rather than wrap: such a
	// figure is a lower bound, not exact (usage.CappedNote says so in
	// text). Only the sums of recorded counts can get there (a cache
	// finding's writes and reads); result tokens are counted from text.
	TokensCapped bool `json:"tokensCapped"`
}

// capped reports whether a token sum of r's findings stopped at
// math.MaxInt64.
func (r *Report) capped() bool {
	for _, f := range r.Findings {
		if ev, ok := f.Evidence.(CacheEvidence); ok && (ev.CacheWrites == math.MaxInt64 || ev.CacheReads == math.MaxInt64) {
			return true
		}
	}
	return false
}

// The notes of a window judged without configs: no static audit was
// made, or it found no config with a server. A report says so once, with
// the note.
const (
	NoStaticNote = "no static audit: idle servers and heavy definitions are not judged"
	NoConfigNote = "no MCP config with servers was found: idle servers and heavy definitions are not judged (name one with --config)"
)

// ServerCalls is one MCP server's calls in the window.
type ServerCalls struct {
	Server string `json:"server"`
	// Plugin is the Claude Code plugin that provides the server, as the
	// agent names it in the tool's name (mcp__plugin_<plugin>_<server>__);
	// "" for a server of no plugin.
	Plugin       string `json:"plugin"`
	Source       string `json:"source"`
	Calls        int    `json:"calls"`
	Errors       int    `json:"errors"`
	Sessions     int    `json:"sessions"`
	Tools        int    `json:"tools"`
	ResultTokens int64  `json:"resultTokens"`
	// EstimatedTokens are the results' images and other blocks that are
	// not text, estimated (as usage's estimatedTokens), beside the exact
	// count of their text in ResultTokens.
	EstimatedTokens int64 `json:"estimatedTokens"`
	// Configured is set when an audited config of the same client names
	// the server.
	Configured bool `json:"configured"`
}

// Max returns the highest level among the findings ("" when none).
func (r *Report) Max() string {
	best := ""
	for _, f := range r.Findings {
		if LevelRank(f.Level) > LevelRank(best) {
			best = f.Level
		}
	}
	return best
}

// AtOrAbove counts findings at level or above.
func (r *Report) AtOrAbove(level string) int {
	n := 0
	for _, f := range r.Findings {
		if LevelRank(f.Level) >= LevelRank(level) {
			n++
		}
	}
	return n
}

// Options select what the findings cover.
type Options struct {
	// Since and Until bound the period (Until exclusive); zero for open.
	Since, Until time.Time
	// Period words the window as asked for (usage.WindowArgs.Period); ""
	// for one made from Since and Until.
	Period string
	// Project keeps one project: its full path or its folder's name.
	Project string
	// Machine and User keep the rows one machine, or one OS user, read
	// into the store; "" keeps every one.
	Machine, User string
	// Cwd is the project folder the static audit was made for: the
	// project that local-scope Claude Code configs belong to.
	Cwd string
	// Location buckets days (cache inefficiency); nil for UTC.
	Location *time.Location
	// Pricing gives the rates a request paid; nil prices nothing (every
	// USD figure is then zero and the report says so). PricesUpdated
	// dates the table behind it.
	Pricing       Pricing
	PricesUpdated string
	// Mode is how a request's cost is found, as usage's (and ccusage's)
	// --mode: "auto" or "" (the cost Claude Code recorded in the line, when
	// it did, else from Pricing), "calculate" (always from Pricing) or
	// "display" (only the recorded cost; a request without one has none).
	// A request's rates are Pricing's, scaled where its cost is the one
	// recorded so that they add up to it, so that every estimate of what
	// its tokens cost agrees with its cost.
	Mode       string
	Thresholds Thresholds
	Now        time.Time
	// Descriptions returns a server's tool descriptions by tool name, for
	// the exact 2 KB cut; nil (or a nil map) when unknown, and the cut is
	// then judged on the description's UTF-8 length.
	Descriptions func(cfg ConfigRef, server string) map[string]string
	// ConfigModified returns when a config file last changed (zero when
	// unknown). Requests before it may not have carried a server added by
	// that change; the idle finding says how many came after.
	ConfigModified func(path string) time.Time
	// PreApproved reports whether the agent's settings let a tool run
	// without asking in a project (Claude Code's permissions.allow): then
	// no permission prompt is in its latency. Nil when unknown.
	PreApproved func(source, project, server, tool string) bool
}

// Rates are prices in USD per million tokens.
type Rates struct {
	Input, Output, CacheWrite5m, CacheWrite1h, CacheRead float64
}

// Modes are the ways a request's cost is found (see Options.Mode), as
// usage.Modes.
var Modes = []string{"auto", "calculate", "display"}

// Pricing returns the rates a request of model paid, given all its input
// tokens (uncached, cache writes and reads: long-context rates depend on
// them) and whether it ran in fast mode; false when the model has no price.
type Pricing func(model string, inputTokens int64, fast bool) (Rates, bool)

// ConfigRef names a config file as a client reads it.
type ConfigRef struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Scope  string `json:"scope,omitempty"`
}

// makeID is a short hash of the type and the subject.
func makeID(typ string, s Subject) string {
	h := sha256.New()
	for _, p := range []string{typ, s.Client, s.Config, s.Scope, s.Server, s.Tool, s.Source, s.Session, s.Project, s.Day} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return abbrev[typ] + "-" + hex.EncodeToString(h.Sum(nil))[:8]
}

var abbrev = map[string]string{
	TypeIdleServer:        "idle",
	TypeOversizedResults:  "big",
	TypeRepeatedCalls:     "rep",
	TypeSlowTool:          "slow",
	TypeExpensiveSession:  "cost",
	TypeCacheInefficiency: "cache",
	TypeHeavyDefinition:   "def",
}

func sortFindings(fs []Finding) {
	usd := func(f Finding) float64 {
		if f.EstimatedSaving == nil || f.EstimatedSaving.USD == nil {
			return -1
		}
		return *f.EstimatedSaving.USD
	}
	tok := func(f Finding) int64 {
		if f.EstimatedSaving == nil {
			return -1
		}
		return f.EstimatedSaving.Tokens
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ra, rb := LevelRank(a.Level), LevelRank(b.Level); ra != rb {
			return ra > rb
		}
		if ua, ub := usd(a), usd(b); ua != ub {
			return ua > ub
		}
		if ta, tb := tok(a), tok(b); ta != tb {
			return ta > tb
		}
		return a.ID < b.ID
	})
}

// money formats USD: cents from a dollar up, four decimals below.
func money(v float64) string {
	if v >= 1 || v == 0 {
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	}
	return "$" + strconv.FormatFloat(v, 'f', 4, 64)
}

func pct(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}

// dur formats a duration in milliseconds.
func dur(ms int64) string { return num.Duration(time.Duration(ms) * time.Millisecond) }

func ptr[T any](v T) *T { return &v }

// round4 rounds v to four decimals. From 1e14 up a float64 holds no
// fourth decimal (nor fits an int64 once scaled): v is returned as it is,
// never wrapped.
func round4(v float64) float64 {
	if !(math.Abs(v) < 1e14) {
		return v
	}
	return float64(int64(v*10000+0.5)) / 10000
}
