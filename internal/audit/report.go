// Package audit measures every MCP server of every client config found on
// the machine (or given), and reports per client session and per config
// file. A session is what one session of a client loads in the project
// folder: the winning entry of each name across the client's files, by the
// client's own precedence; its total and its posture (deferral, the
// tool-search threshold judged on the session's sum) are the headline, and
// the files are its breakdown. Per server: transport, tools, tokens, share
// and status; per session and per config: the total and its share of the
// context window, the heaviest tools, a trim suggestion, who pays (the
// client's deferral posture) and the gates (budget, per-tool threshold),
// which judge the sessions when the configs were discovered and the files
// when they were given.
//
// Computation returns a [Report]; renderers turn it into text, JSON or
// Markdown.
package audit

import (
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/measure"
)

// Schema is the version of the audit report's JSON.
//
// v2 added sessions[], the scope and source of a session's servers, and
// "of" on the gates; configs[] is v1's.
const Schema = "mcpcost.audit/v2"

// Gate subjects: what the gates judged.
const (
	OfSessions = "sessions"
	OfConfigs  = "configs"
)

// DefaultContextWindow is the context window shares are computed against.
const DefaultContextWindow = 200_000

// Report is the result of an audit.
type Report struct {
	Schema             string `json:"schema"`
	MethodologyVersion string `json:"methodologyVersion"`
	Encoding           string `json:"encoding"`
	Generator          string `json:"generator"`
	GeneratedAt        string `json:"generatedAt"`
	ContextWindow      int    `json:"contextWindow"`
	// Sessions holds one entry per client with a server in this project
	// folder, heaviest first (then by client), when the configs were
	// discovered; empty when they were given (--config).
	Sessions []Session `json:"sessions"`
	// Configs holds one entry per config file and scope with at least one
	// server entry, heaviest first (then by path).
	Configs []Config `json:"configs"`
	// EmptyConfigs were read and declare no server.
	EmptyConfigs []EmptyConfig `json:"emptyConfigs"`
	// Problems are config files that could not be read or parsed; each names
	// the file, and the line and column where the file gives them.
	Problems []Problem `json:"problems"`
	// Partial is set when some enabled server could not be measured: the
	// totals of its configs are lower bounds.
	Partial bool `json:"partial"`
	// Offline is set when measurements came only from the cache.
	Offline bool `json:"offline,omitempty"`
	// NoLaunch is set when nothing was launched (--no-launch).
	NoLaunch bool `json:"noLaunch,omitempty"`
	// Launch says how the servers measured in this run were launched, and
	// what that can tell of a dynamic server; nil when none was launched.
	Launch *LaunchInfo `json:"launch,omitempty"`

	// Claude says where the claude column comes from (--claude).
	Claude *ClaudeInfo `json:"claude,omitempty"`

	Budget    *BudgetGate    `json:"budget,omitempty"`
	Threshold *ThresholdGate `json:"threshold,omitempty"`
}

// A Session is what one session of a client loads in the project folder:
// its Config (Path is the project folder, Scope is empty) holds every
// entry of the client's files, each with its scope and source; the
// overridden, disabled and unapproved ones are listed and not counted, and
// the posture is judged on the sum of the counted ones.
type Session struct {
	Config
	// Files are the client's config files the session reads, in the
	// client's precedence order (lowest first): the breakdown.
	Files []SessionFile `json:"files"`
}

// SessionFile is one file of a session, with what it adds to the session.
type SessionFile struct {
	Path  string `json:"path"`
	Scope string `json:"scope,omitempty"`
	// Servers counts its entries; Counted those the session counts (enabled,
	// approved, not overridden).
	Servers int `json:"servers"`
	Counted int `json:"counted"`
	// TotalTokens sums its counted servers' measured tokens; a lower bound
	// when LowerBound is set.
	TotalTokens int  `json:"totalTokens"`
	LowerBound  bool `json:"lowerBound"`
}

// Problem is a config file that could not be used.
type Problem struct {
	Client string `json:"client,omitempty"`
	Path   string `json:"path"`
	Error  string `json:"error"`
	// Hint says what to do about the error, where it says more than that
	// the file could not be used (a file over the size cap).
	Hint string `json:"hint,omitempty"`
}

// EmptyConfig is a config file with no server entries.
type EmptyConfig struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Scope  string `json:"scope,omitempty"`
	// Notes are the file's notes: why it declares no server, where that
	// can be told (servers at its top level, outside the client's object).
	Notes []string `json:"notes"`
	// Hint says what to do to declare the servers it seems to hold.
	Hint string `json:"hint,omitempty"`
}

// Config is one config file as one client reads it.
type Config struct {
	Client      string `json:"client"`
	ClientTitle string `json:"clientTitle"`
	Path        string `json:"path"`
	Scope       string `json:"scope,omitempty"`
	// TotalTokens sums the measured enabled servers, after the client's tool
	// filters. It is a lower bound when LowerBound is set.
	TotalTokens int  `json:"totalTokens"`
	LowerBound  bool `json:"lowerBound"`
	ToolCount   int  `json:"toolCount"`
	// ServerCount counts the enabled servers; Measured those measured.
	ServerCount int `json:"serverCount"`
	Measured    int `json:"measured"`
	// Unmeasured names the enabled servers that could not be measured.
	Unmeasured   []string `json:"unmeasured"`
	ContextShare float64  `json:"contextShare"`
	// Servers: enabled and measured heaviest first, then enabled and not
	// measured, then those not launched (disabled, overridden, needing
	// input, with a problem), each group by name.
	Servers       []Server  `json:"servers"`
	HeaviestTools []ToolRef `json:"heaviestTools"`
	Trim          *Trim     `json:"trim"`
	Over          []ToolRef `json:"overThreshold"`

	// Who pays.
	Posture clients.Posture         `json:"posture"`
	Check   *clients.ThresholdCheck `json:"thresholdCheck,omitempty"`
	// PostureText words the posture for this config, as paragraphs (a line
	// starting with two spaces is a list item).
	PostureText []string `json:"postureText"`
	// SessionStartTokens is what a client that defers tool definitions loads
	// at session start for the measured servers: tool names plus
	// instructions (deferred-load/v1).
	SessionStartTokens int `json:"sessionStartTokens"`
	// UpFrontTokens is what this client pays before anything is typed under
	// its posture: full definitions for servers loaded up front, names and
	// instructions for deferred ones; nil when the posture cannot say.
	UpFrontTokens *int `json:"upFrontTokens"`
	// RequestShapeTokens counts the tools as an Anthropic request carries
	// them (name, description cut to 2 KB, input_schema): a different number
	// from TotalTokens.
	RequestShapeTokens int `json:"requestShapeTokens"`
	// ClaudeTokens sums the servers' Claude counts (--claude); nil unless
	// every measured server has one.
	ClaudeTokens *int     `json:"claudeTokens,omitempty"`
	Notes        []string `json:"notes"`
}

// ClaudeInfo describes the Claude counts of a report.
type ClaudeInfo struct {
	// Mode is "count_tokens" (Anthropic's endpoint, with a key) or
	// "published" (mcp-context-cost's published figures, only where the
	// capture's hash matches exactly).
	Mode  string `json:"mode"`
	Model string `json:"model,omitempty"`
	Note  string `json:"note"`
}

// Server is one server entry of a config.
type Server struct {
	Name string `json:"name"`
	// Scope and Source are the scope and file of a session's server (empty
	// in a config, whose own they are).
	Scope     string `json:"scope,omitempty"`
	Source    string `json:"source,omitempty"`
	Transport string `json:"transport,omitempty"`
	// Launch is the command line or URL with secrets redacted.
	Launch string `json:"launch,omitempty"`
	// Status is a measurement class (measured, dynamic, auth-required,
	// remote-auth-wall, startup-failure, timeout, protocol-error), or why
	// the server was not launched: disabled, overridden, needs-approval
	// (a project's server not approved), needs-input, problem,
	// not-launched (--no-launch), not-cached (--offline).
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Tokens, ToolCount and Share (of the config total) are nil when the
	// server was not measured. They count what the client loads: after its
	// tool filter.
	Tokens    *int     `json:"tokens"`
	ToolCount *int     `json:"toolCount"`
	Share     *float64 `json:"share"`
	// Filter is the client's per-tool filter; Unfiltered* are the counts
	// before it.
	Filter              *clients.ToolFilter `json:"filter,omitempty"`
	UnfilteredTokens    *int                `json:"unfilteredTokens,omitempty"`
	UnfilteredToolCount *int                `json:"unfilteredToolCount,omitempty"`
	CanonicalSha256     string              `json:"canonicalSha256,omitempty"`
	EnvNames            []string            `json:"envNames"`
	HeaderNames         []string            `json:"headerNames"`
	AlwaysLoad          bool                `json:"alwaysLoad,omitempty"`
	// LoadsUpFront says whether the client pays the full definitions at
	// session start (nil when its posture cannot say).
	LoadsUpFront       *bool `json:"loadsUpFront"`
	InstructionsTokens int   `json:"instructionsTokens"`
	SessionStartTokens int   `json:"sessionStartTokens"`
	RequestShapeTokens int   `json:"requestShapeTokens"`
	// ClaudeTokens is the tools' cost in Claude's own tokenizer (--claude):
	// from count_tokens, or the published figure for this exact capture;
	// nil otherwise. ClaudeSource says which; ClaudeError why it is missing.
	ClaudeTokens  *int     `json:"claudeTokens,omitempty"`
	ClaudeSource  string   `json:"claudeSource,omitempty"`
	ClaudeError   string   `json:"claudeError,omitempty"`
	ServerName    string   `json:"serverName,omitempty"`
	ServerVersion string   `json:"serverVersion,omitempty"`
	ChangedTools  []string `json:"changedTools"`
	Warnings      []string `json:"warnings"`
	// Cached is set when the measurement came from the cache, taken at
	// MeasuredAt.
	Cached     bool   `json:"cached"`
	MeasuredAt string `json:"measuredAt,omitempty"`
	// Tools are the tools the client loads, heaviest first, with parts.
	Tools []measure.Tool `json:"tools"`
	// FilteredOut names the tools the client's filter hides.
	FilteredOut []string `json:"filteredOut"`

	// Counted says the server is one its config's or session's figures
	// stand for: enabled, approved and not overridden (measured or not).
	Counted bool `json:"counted"`
}

// ToolRef names one tool of one server with its tokens.
type ToolRef struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Tokens int    `json:"tokens"`
}

// Trim is the fewest tools that recover the most: the heaviest tools whose
// removal takes the most tokens off, for clients with per-tool filtering.
type Trim struct {
	Tools             []ToolRef `json:"tools"`
	RecoverableTokens int       `json:"recoverableTokens"`
	RecoverableShare  float64   `json:"recoverableShare"`
}

// BudgetGate is the result of --budget.
type BudgetGate struct {
	Limit int  `json:"limit"`
	Pass  bool `json:"pass"`
	// Of is what was judged: "sessions" (Configs then holds one entry per
	// session, its Path the project folder) or "configs".
	Of string `json:"of"`
	// AllowUnmeasured is set by --allow-unmeasured.
	AllowUnmeasured bool           `json:"allowUnmeasured"`
	Configs         []BudgetConfig `json:"configs"`
}

// BudgetConfig is one config's or session's verdict.
type BudgetConfig struct {
	Path   string `json:"path"`
	Client string `json:"client"`
	Scope  string `json:"scope,omitempty"`
	Total  int    `json:"total"`
	Pass   bool   `json:"pass"`
	// Reasons says why a config fails: over the limit, or servers that
	// could not be measured (the total is a lower bound).
	Reasons []string `json:"reasons"`
}

// ThresholdGate is the result of --threshold: tools over N tokens.
type ThresholdGate struct {
	Limit int  `json:"limit"`
	Pass  bool `json:"pass"`
	// Of is what was judged: the tools of the sessions, or of the configs.
	Of    string    `json:"of"`
	Tools []ToolRef `json:"tools"`
}

// LaunchInfo is how an audit launched the servers it measured.
type LaunchInfo struct {
	// PerServer is the launches of each server: 1 by default, 2 with
	// --strict.
	PerServer int    `json:"perServer"`
	Note      string `json:"note"`
}
