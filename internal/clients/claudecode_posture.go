package clients

import (
	"math"
	"net/url"
	"strconv"
	"strings"
)

// Deferral postures: whether a client loads every tool definition at
// session start or defers them (Claude Code's tool search).
const (
	// ModeDeferred: every MCP tool definition is deferred; only names (and
	// server instructions) load at session start.
	ModeDeferred = "deferred"
	// ModeUpFront: every definition is sent with every request.
	ModeUpFront = "up-front"
	// ModeThreshold: definitions load up front until they reach a share of
	// the context window, then all are deferred.
	ModeThreshold = "threshold"
	// ModeUnrecognized: the deciding variable holds a value the client
	// does not document.
	ModeUnrecognized = "setting-unrecognized"
	// ModeUnresolved: what decides could not be established (see Refusal).
	ModeUnresolved = "setting-unresolved"
	// ModeNoRecord: no deferral is on record for the client; counted as
	// loading everything up front.
	ModeNoRecord = "no-deferral-on-record"
	// ModeUnknownClient: which client reads the config is not known.
	ModeUnknownClient = "client-unknown"
)

// Refusals: the cases where no posture is given.
const (
	RefusalDisagree         = "sources-disagree"     // shell and settings hold different values
	RefusalSourceUnreadable = "source-unreadable"    // a settings file exists but cannot be read
	RefusalValueUnreadable  = "value-unreadable"     // the deciding place holds a non-string
	RefusalUnrecognized     = "setting-unrecognized" // an undocumented value
)

// The variables Claude Code's tool search reads, in the order consulted.
const (
	VarDisableBetas = "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS"
	VarToolSearch   = "ENABLE_TOOL_SEARCH"
	VarBaseURL      = "ANTHROPIC_BASE_URL"
)

// unreadableURL stands for the host of an ANTHROPIC_BASE_URL that does not
// parse.
const unreadableURL = "(unreadable URL)"

// ShellSource is the Source of a value read from the shell.
const ShellSource = "(shell environment)"

// A Posture is how one client treats tool definitions at session start.
type Posture struct {
	Client string `json:"client"`
	Mode   string `json:"mode"`
	// Mechanism is "tool search" for Claude Code.
	Mechanism string `json:"mechanism,omitempty"`
	// Refusal says why no posture is given (ModeUnresolved and
	// ModeUnrecognized).
	Refusal string `json:"refusal,omitempty"`
	// Setting is what decided, and where it was read.
	Setting *Setting `json:"setting,omitempty"`
	// ThresholdPercent is the share of the context window at which
	// threshold mode defers (ModeThreshold).
	ThresholdPercent int `json:"thresholdPercent,omitempty"`
	// Sources are the places the variables were read from, in Claude
	// Code's order: the shell, then managed, local, project and user
	// settings.
	Sources []SettingSource `json:"sources,omitempty"`
	// Exceptions are the known cases where deferral does not apply.
	Exceptions []string `json:"exceptions,omitempty"`
	// Limits are the client's known limits.
	Limits []Limit `json:"limits,omitempty"`
}

// A Setting is the variable that decided a posture.
type Setting struct {
	// Variable is empty when nothing was set anywhere.
	Variable string `json:"variable,omitempty"`
	// Value is the value of ENABLE_TOOL_SEARCH or
	// CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS (never ANTHROPIC_BASE_URL,
	// whose host alone is given).
	Value *string `json:"value,omitempty"`
	// Host is ANTHROPIC_BASE_URL's host, or "(unreadable URL)".
	Host string `json:"host,omitempty"`
	// Source is the settings file, or "(shell environment)".
	Source string `json:"source,omitempty"`
	// ReadFromMachine is false for the documented default.
	ReadFromMachine bool `json:"readFromMachine"`
}

// A SettingSource is one place the variables are read from. Values are
// never recorded, only which variables a place sets.
type SettingSource struct {
	Scope string `json:"scope"` // shell, managed-settings, local-settings, project-settings, user-settings
	Path  string `json:"path,omitempty"`
	State string `json:"state"` // read, absent, unreadable, skipped
	Error string `json:"error,omitempty"`
	// Sets are the variables the place sets to a string.
	Sets []string `json:"sets,omitempty"`
	// Unreadable are the variables it sets to something else.
	Unreadable []string `json:"unreadable,omitempty"`
	// Decided marks the place whose value decided.
	Decided bool `json:"decided,omitempty"`
}

// Source states.
const (
	SourceRead       = "read"
	SourceAbsent     = "absent"
	SourceUnreadable = "unreadable"
	// SourceSkipped is a settings file that is not valid JSON: Claude
	// Code skips it whole ("Invalid or malformed JSON"), so it sets
	// nothing in any session that starts.
	SourceSkipped = "skipped"
)

// The known cases where Claude Code's deferral does not apply.
var claudeCodeExceptions = []string{
	"a Microsoft Foundry deployment hosted on Azure, which rejects tool search server-side",
	"Google Cloud's Agent Platform on a model earlier than the Claude 4.5 generation",
	"a model without support for tool_reference blocks (before Sonnet 4.5 / Haiku 4.5 / Opus 4.5)",
	`a server pinned with "alwaysLoad": true, or a tool with _meta["anthropic/alwaysLoad"]: true, whose tools load at session start regardless`,
}

// PostureFor returns the posture of a client on this system: Claude
// Code's is read from the shell and its settings; other known clients have
// no deferral on record; any other label is an unknown client.
func PostureFor(sys System, client string) Posture {
	switch {
	case client == ClaudeCode:
		return ClaudeCodePosture(sys)
	case Known(client):
		return Posture{Client: client, Mode: ModeNoRecord, Limits: Limits(client)}
	}
	return Posture{Client: client, Mode: ModeUnknownClient}
}

// a variable as resolved across the shell and the settings files.
type resolved struct {
	value   string
	set     bool
	source  string // path or ShellSource
	refusal string
}

// ClaudeCodePosture works out Claude Code's tool-search posture the way
// Claude Code does: from CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS,
// ENABLE_TOOL_SEARCH and ANTHROPIC_BASE_URL, in the shell and in the env
// block of the managed, local, project and user settings files.
//
// Where the shell and a settings file hold different values, no order
// between them is on record, so the posture is refused rather than
// guessed; likewise when a settings file exists and cannot be read (one
// that is not valid JSON is skipped, as Claude Code skips it), when
// the deciding file holds a non-string, and when ENABLE_TOOL_SEARCH holds
// an undocumented value.
func ClaudeCodePosture(sys System) Posture {
	p := Posture{Client: ClaudeCode, Mechanism: "tool search", Limits: Limits(ClaudeCode)}
	vars := []string{VarDisableBetas, VarToolSearch, VarBaseURL}

	shell := SettingSource{Scope: "shell", State: SourceRead}
	for _, v := range vars {
		if strings.TrimSpace(sys.getenv(v)) != "" {
			shell.Sets = append(shell.Sets, v)
		}
	}
	p.Sources = append(p.Sources, shell)
	type fileEnv struct {
		idx int
		env map[string]any
	}
	var files []fileEnv
	unreadableFile := false
	for _, f := range sys.claudeSettings() {
		src := SettingSource{Scope: f.scope, Path: f.path}
		switch f.state {
		case StateNotFound:
			src.State = SourceAbsent
		case StateFound:
			src.State = SourceRead
			env, _ := f.top["env"].(map[string]any)
			for _, v := range vars {
				val, ok := env[v]
				if !ok {
					continue
				}
				if s, isStr := val.(string); isStr {
					if strings.TrimSpace(s) != "" {
						src.Sets = append(src.Sets, v)
					}
				} else {
					src.Unreadable = append(src.Unreadable, v)
				}
			}
			files = append(files, fileEnv{len(p.Sources), env})
		case StateInvalid:
			src.Error = f.err
			if f.malformed {
				src.State = SourceSkipped
			} else {
				src.State = SourceUnreadable
				unreadableFile = true
			}
		default:
			src.State = SourceUnreadable
			src.Error = f.err
			unreadableFile = true
		}
		p.Sources = append(p.Sources, src)
	}
	if unreadableFile {
		p.Mode, p.Refusal = ModeUnresolved, RefusalSourceUnreadable
		return p
	}

	resolve := func(name string) resolved {
		shellVal := strings.TrimSpace(sys.getenv(name))
		for _, f := range files {
			val, ok := f.env[name]
			if !ok {
				continue
			}
			path := p.Sources[f.idx].Path
			s, isStr := val.(string)
			if !isStr {
				p.Sources[f.idx].Decided = true
				return resolved{set: true, source: path, refusal: RefusalValueUnreadable}
			}
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			if shellVal != "" && shellVal != s {
				return resolved{set: true, source: path, refusal: RefusalDisagree}
			}
			p.Sources[f.idx].Decided = true
			return resolved{value: s, set: true, source: path}
		}
		if shellVal != "" {
			p.Sources[0].Decided = true
			return resolved{value: shellVal, set: true, source: ShellSource}
		}
		return resolved{}
	}
	refuse := func(name string, r resolved) Posture {
		p.Mode, p.Refusal = ModeUnresolved, r.refusal
		p.Setting = &Setting{Variable: name, Source: r.source, ReadFromMachine: true}
		if r.refusal == RefusalDisagree {
			p.Setting.Source = ""
		}
		return p
	}

	// (a) the betas switch: any value loads up front.
	if r := resolve(VarDisableBetas); r.refusal != "" {
		return refuse(VarDisableBetas, r)
	} else if r.set {
		v := r.value
		p.Mode = ModeUpFront
		p.Setting = &Setting{Variable: VarDisableBetas, Value: &v, Source: r.source, ReadFromMachine: true}
		return p
	}
	// (b) ENABLE_TOOL_SEARCH decides when set.
	if r := resolve(VarToolSearch); r.refusal != "" {
		return refuse(VarToolSearch, r)
	} else if r.set {
		v := r.value
		p.Setting = &Setting{Variable: VarToolSearch, Value: &v, Source: r.source, ReadFromMachine: true}
		switch n, ok := parseToolSearch(v); {
		case !ok:
			p.Mode, p.Refusal = ModeUnrecognized, RefusalUnrecognized
		case n == -1:
			p.Mode = ModeDeferred
			p.Exceptions = claudeCodeExceptions
		case n == -2:
			p.Mode = ModeUpFront
		default:
			p.Mode, p.ThresholdPercent = ModeThreshold, n
			p.Exceptions = claudeCodeExceptions
		}
		return p
	}
	// (c) ANTHROPIC_BASE_URL, only when ENABLE_TOOL_SEARCH is unset.
	if r := resolve(VarBaseURL); r.refusal != "" {
		return refuse(VarBaseURL, r)
	} else if r.set {
		host := unreadableURL
		if u, err := url.Parse(r.value); err == nil && u.Hostname() != "" {
			host = strings.ToLower(u.Hostname())
		}
		if host != "api.anthropic.com" {
			p.Mode = ModeUpFront
			p.Setting = &Setting{Variable: VarBaseURL, Host: host, Source: r.source, ReadFromMachine: true}
			return p
		}
	}
	// Nothing set: the documented default defers everything.
	p.Mode = ModeDeferred
	p.Setting = &Setting{Variable: VarToolSearch}
	p.Exceptions = claudeCodeExceptions
	return p
}

var autoN = lazyRegexp(`^auto:([0-9]{1,3})$`)

// parseToolSearch parses ENABLE_TOOL_SEARCH: -1 for true (defer all), -2
// for false (up front), else the threshold percent; ok is false for an
// undocumented value. Matching is exact and case-sensitive.
func parseToolSearch(v string) (int, bool) {
	switch v {
	case "true":
		return -1, true
	case "false":
		return -2, true
	case "auto":
		return 10, true
	}
	if m := autoN().FindStringSubmatch(v); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n <= 100 {
			return n, true
		}
	}
	return 0, false
}

// The published range between o200k counts and Claude's counts of the same
// definitions (claudeDelta / o200k across the published claude-opus-5
// divergence run, 20 servers).
const (
	BandLow     = 0.20
	BandHigh    = 1.92
	BandServers = 20
	BandSource  = "the published claude-opus-5 divergence run"
)

// A StackPart is one server's share of a stack, for threshold mode: its
// o200k tokens, and Claude's own count when one is known exactly (a
// published count whose capture hash matches, or --claude).
type StackPart struct {
	Wire      int
	Claude    int
	HasClaude bool
}

// A ThresholdCheck compares a stack with threshold mode's line. Claude
// Code counts the threshold in what it sends to the API, not in o200k, so
// every server without an exact Claude count is carried as a range.
type ThresholdCheck struct {
	ContextWindow   int `json:"contextWindow"`
	ThresholdTokens int `json:"thresholdTokens"`
	WireTokens      int `json:"wireTokens"`
	// Low and High bound the stack on the client's side.
	Low  int `json:"low"`
	High int `json:"high"`
	// Exact is set when every server had an exact Claude count.
	Exact bool `json:"exact"`
	// Published is the number of servers counted exactly.
	Published int `json:"published"`
	Servers   int `json:"servers"`
	// Floor is set when some server produced no number: the stack is at
	// least this.
	Floor bool `json:"floor"`
	// Crosses is true when the stack is at or above the threshold, false
	// when it is below, nil when that cannot be said.
	Crosses      *bool   `json:"crosses"`
	DistanceLow  int     `json:"distanceLow"`
	DistanceHigh int     `json:"distanceHigh"`
	BandLow      float64 `json:"bandLow"`
	BandHigh     float64 `json:"bandHigh"`
}

// CheckThreshold compares a stack with the posture's threshold. It returns
// nil unless the posture is ModeThreshold.
func (p Posture) CheckThreshold(contextWindow int, parts []StackPart, floor bool) *ThresholdCheck {
	if p.Mode != ModeThreshold {
		return nil
	}
	t := int(math.Round(float64(contextWindow) * float64(p.ThresholdPercent) / 100))
	c := &ThresholdCheck{ContextWindow: contextWindow, ThresholdTokens: t, Floor: floor,
		Servers: len(parts), BandLow: BandLow, BandHigh: BandHigh, Exact: len(parts) > 0}
	var lo, hi float64
	for _, part := range parts {
		c.WireTokens += part.Wire
		if part.HasClaude {
			c.Published++
			lo += float64(part.Claude)
			hi += float64(part.Claude)
			continue
		}
		c.Exact = false
		lo += float64(part.Wire) * BandLow
		hi += float64(part.Wire) * BandHigh
	}
	c.Low, c.High = int(math.Round(lo)), int(math.Round(hi))
	c.DistanceLow, c.DistanceHigh = c.Low-t, c.High-t
	var crosses *bool
	switch {
	case c.Low >= t:
		v := true
		crosses = &v
	case floor || c.High >= t:
	default:
		v := false
		crosses = &v
	}
	c.Crosses = crosses
	return c
}

// A Limit is a known limit of a client that bears on tool definitions.
type Limit struct {
	Client string `json:"client"`
	// Kind: tools-per-request, tools-total, virtual-tools,
	// tool-name-length, description-length.
	Kind  string `json:"kind"`
	Value int    `json:"value"`
	Text  string `json:"text"`
	// Source is where the limit is documented; Verified is false when the
	// only sources are third-party.
	Source   string `json:"source"`
	Verified bool   `json:"verified"`
}

var knownLimits = []Limit{
	{Client: VSCode, Kind: "tools-per-request", Value: 128,
		Text:   `a chat request may enable at most 128 tools ("Cannot have more than 128 tools per request")`,
		Source: "microsoft/vscode-docs docs/copilot/reference/mcp-configuration.md", Verified: true},
	{Client: VSCode, Kind: "virtual-tools", Value: 128,
		Text:   "above github.copilot.chat.virtualTools.threshold tools (default 128; 0 turns it off), tools are grouped into virtual tools the model activates on demand",
		Source: "microsoft/vscode-docs docs/copilot/reference/mcp-configuration.md", Verified: true},
	{Client: Windsurf, Kind: "tools-total", Value: 100,
		Text:   "at most 100 tools are visible to Cascade in total (and 20 tool calls per prompt)",
		Source: "third-party notes (mcpshape); docs.windsurf.com/windsurf/cascade/mcp not read", Verified: false},
	{Client: Cursor, Kind: "tools-total", Value: 40,
		Text:   "guides say at most 40 tools across all servers; vendor documentation does not substantiate it",
		Source: "third-party guides (easymanage.com, mcptrove.com)", Verified: false},
	{Client: Cursor, Kind: "tool-name-length", Value: 60,
		Text:   "guides say server name plus tool name must stay within 60 characters; vendor documentation does not substantiate it",
		Source: "third-party guides (easymanage.com, mcptrove.com)", Verified: false},
	{Client: ClaudeCode, Kind: "description-length", Value: 2048,
		Text:   "tool descriptions and server instructions are cut at 2 KB each",
		Source: "Claude Code docs, mcp.md", Verified: true},
	{Client: Gemini, Kind: "tool-name-length", Value: 63,
		Text:   "fully qualified tool names (mcp_<server>_<tool>) over 63 characters are cut in the middle",
		Source: "google-gemini/gemini-cli docs/tools/mcp-server.md", Verified: true},
}

// Limits returns the known limits of a client.
func Limits(client string) []Limit {
	var out []Limit
	for _, l := range knownLimits {
		if l.Client == client {
			out = append(out, l)
		}
	}
	return out
}

// LoadsUpFront says whether a tool's definition is paid at session start
// under the posture; known is false when the posture cannot say (a
// refusal, or a threshold comparison that cannot be decided). alwaysLoad
// is the server's "alwaysLoad": true or the tool's
// _meta["anthropic/alwaysLoad"]: true; Claude Code loads such tools up
// front whatever its tool-search setting.
func (p Posture) LoadsUpFront(check *ThresholdCheck, alwaysLoad bool) (upFront, known bool) {
	if alwaysLoad && p.Client == ClaudeCode {
		return true, true
	}
	switch p.Mode {
	case ModeDeferred:
		return false, true
	case ModeUpFront, ModeNoRecord, ModeUnknownClient:
		return true, true
	case ModeThreshold:
		if check == nil || check.Crosses == nil {
			return false, false
		}
		return !*check.Crosses, true
	}
	return false, false
}
