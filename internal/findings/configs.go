package findings

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/status"
)

// ConfigUse joins one config of the static audit with the sessions it
// applied to: what it pays before typing, and what was used.
type ConfigUse struct {
	ConfigRef
	ClientTitle string `json:"clientTitle"`
	// TotalTokens sums its measured servers' definitions (o200k_base);
	// UpFrontTokens is what the client pays before anything is typed under
	// its posture (nil when the posture cannot say).
	TotalTokens   int    `json:"totalTokens"`
	UpFrontTokens *int   `json:"upFrontTokens"`
	LowerBound    bool   `json:"lowerBound"`
	Posture       string `json:"posture"`
	// Source is the transcripts this client writes ("claude", "codex",
	// "copilot", "goose", "gemini", "opencode"),
	// empty for a client whose transcripts mcpcost does not read.
	Source string `json:"source,omitempty"`
	// AppliesTo words which sessions the config applied to.
	AppliesTo string `json:"appliesTo"`
	Sessions  int    `json:"sessions"`
	// Requests counts the main-conversation requests of those sessions in
	// the window; SubAgentRequests those of sub-agents (not counted in the
	// carried tokens).
	Requests         int `json:"requests"`
	SubAgentRequests int `json:"subAgentRequests"`
	// CacheReadShare is the share of those requests' input tokens read
	// from the cache.
	CacheReadShare float64     `json:"cacheReadShare"`
	Servers        []ServerUse `json:"servers"`

	reqs    []*request
	sumRate float64 // Σ blended USD per input token over reqs
	sess    map[string]bool
}

// ServerUse is one server of a config, with its use in the window.
type ServerUse struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// Tokens of its definitions (nil when not measured), ToolCount tools.
	Tokens    *int `json:"tokens"`
	ToolCount *int `json:"toolCount"`
	// LoadsUpFront: whether the client pays the full definitions on every
	// request (nil when its posture cannot say).
	LoadsUpFront *bool `json:"loadsUpFront"`
	// PerRequestTokens is what rides on each request: the definitions when
	// loaded up front, names and instructions when deferred.
	PerRequestTokens int `json:"perRequestTokens"`
	// Calls to it in the config's sessions in the window, the sessions
	// that called it, the result tokens, and the tools called.
	Calls        int      `json:"calls"`
	Sessions     int      `json:"sessions"`
	ResultTokens int64    `json:"resultTokens"`
	ToolsCalled  []string `json:"toolsCalled"`
	// CarriedTokens = PerRequestTokens × the config's Requests, and its
	// estimated cost at the rates those requests paid.
	CarriedTokens int64   `json:"carriedTokens"`
	CarriedUSD    float64 `json:"carriedUsd"`
	// Tools are its tools, heaviest first, with their parts: in the
	// combined report only (Overview), not in the findings' JSON.
	Tools []ToolSize `json:"tools,omitempty"`
}

// sourceOf is the transcript source of a client.
func sourceOf(client string) string {
	switch client {
	case clients.ClaudeCode:
		return "claude"
	case clients.Codex:
		return "codex"
	case clients.CopilotCLI:
		return "copilot"
	case clients.Goose:
		return "goose"
	case clients.Gemini:
		return "gemini"
	case clients.Opencode:
		return "opencode"
	}
	return ""
}

// appliesTo returns a predicate on a session's project, and its wording.
func appliesTo(c audit.Config, cwd string) (func(project string) bool, string) {
	all := func(string) bool { return true }
	same := func(dir string) func(string) bool {
		d := cleanPath(dir)
		return func(p string) bool { return p != "" && cleanPath(p) == d }
	}
	if c.Scope == "" && c.Path != "" && (c.Client == clients.ClaudeCode || c.Client == clients.Codex) {
		// A session: the client's sessions in its project folder.
		return same(c.Path), clients.Title(c.Client) + " sessions in " + c.Path
	}
	switch c.Client {
	case clients.ClaudeCode:
		switch c.Scope {
		case "user", "managed":
			return all, "every Claude Code session (" + c.Scope + " scope)"
		case "project":
			dir := filepath.Dir(c.Path)
			return same(dir), "Claude Code sessions in " + dir
		default:
			return same(cwd), "Claude Code sessions in " + cwd + " (" + c.Scope + " scope)"
		}
	case clients.Codex:
		if c.Scope == "project" {
			dir := filepath.Dir(filepath.Dir(c.Path))
			return same(dir), "Codex sessions in " + dir
		}
		return all, "every Codex session (" + c.Scope + " scope)"
	}
	if sourceOf(c.Client) != "" {
		return func(string) bool { return false }, "no sessions: mcpcost does not match " + clients.Title(c.Client) + "'s sessions to its configs yet"
	}
	if c.Client == clients.Explicit {
		return func(string) bool { return false }, "no sessions: the client of a config " + clients.ExplicitWords + " could not be told, so no session is matched to it (--client NAME names it)"
	}
	return func(string) bool { return false }, "no sessions: mcpcost reads no transcripts of " + clients.Title(c.Client)
}

func cleanPath(p string) string {
	return strings.TrimRight(filepath.Clean(p), `/\`)
}

// normServer is a server name as agents write it in tool names: Claude
// Code replaces every character outside [A-Za-z0-9_-] with "_".
func normServer(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// joinConfigs builds the per-config join.
func joinConfigs(static *audit.Report, d *data, o Options) []ConfigUse {
	out := []ConfigUse{}
	if static == nil {
		return out
	}
	for _, c := range static.Configs {
		cu := ConfigUse{
			ConfigRef:     ConfigRef{Client: c.Client, Path: c.Path, Scope: c.Scope},
			ClientTitle:   c.ClientTitle,
			TotalTokens:   c.TotalTokens,
			UpFrontTokens: c.UpFrontTokens,
			LowerBound:    c.LowerBound,
			Posture:       c.Posture.Mode,
			Source:        sourceOf(c.Client),
			Servers:       []ServerUse{},
			sess:          map[string]bool{},
		}
		pred, words := appliesTo(c, o.Cwd)
		cu.AppliesTo = words
		var in, cached int64
		if cu.Source != "" {
			for i := range d.requests {
				r := &d.requests[i]
				if r.source != cu.Source || !pred(r.project) {
					continue
				}
				if !r.main() {
					cu.SubAgentRequests++
					continue
				}
				cu.reqs = append(cu.reqs, r)
				cu.sumRate += r.blendedRate()
				cu.sess[sessionKey(r.source, r.session)] = true
				in = addTokens(in, r.inputTokens())
				cached = addTokens(cached, r.t.CacheRead)
			}
		}
		cu.Requests = len(cu.reqs)
		cu.Sessions = len(cu.sess)
		if in > 0 {
			cu.CacheReadShare = round4(float64(cached) / float64(in))
		}
		for _, s := range c.Servers {
			su := ServerUse{Name: s.Name, Status: s.Status, Tokens: s.Tokens, ToolCount: s.ToolCount, LoadsUpFront: s.LoadsUpFront, ToolsCalled: []string{}}
			if s.Tokens != nil {
				su.PerRequestTokens = *s.Tokens
				if s.LoadsUpFront != nil && !*s.LoadsUpFront {
					su.PerRequestTokens = s.SessionStartTokens
				}
			}
			// Transcripts record calls by server name, and an overridden
			// entry never runs: its name's calls are the winning entry's.
			if cu.Source != "" && status.Status(s.Status) != status.Overridden {
				want := normServer(s.Name)
				tools := map[string]bool{}
				sessions := map[string]bool{}
				for i := range d.calls {
					k := &d.calls[i]
					if k.source != cu.Source || k.server == "" || !cu.sess[k.key()] || normServer(k.server) != want {
						continue
					}
					su.Calls++
					su.ResultTokens += k.tokens
					sessions[k.key()] = true
					tools[k.tool] = true
				}
				su.Sessions = len(sessions)
				for t := range tools {
					su.ToolsCalled = append(su.ToolsCalled, t)
				}
				sort.Strings(su.ToolsCalled)
				su.CarriedTokens = int64(su.PerRequestTokens) * int64(cu.Requests)
				su.CarriedUSD = round4(float64(su.PerRequestTokens) * cu.sumRate)
			}
			cu.Servers = append(cu.Servers, su)
		}
		out = append(out, cu)
	}
	return out
}

// PostureWords says how c's client treats its definitions at session
// start, in a user's words rather than the posture's mode, and what to do
// where that is not known: report says it of each config, and an idle
// server's finding of the server.
func (c ConfigUse) PostureWords() string {
	var upFront *bool // a threshold's answer: all up front, or all deferred
	if c.Posture == clients.ModeThreshold && c.UpFrontTokens != nil {
		upFront = ptr(*c.UpFrontTokens >= c.TotalTokens)
	}
	return postureWords(c, upFront)
}

// postureWords is PostureWords of one server or of all a config's:
// upFront is whether they load up front (nil when not known). A server
// pinned with alwaysLoad loads up front where its client defers.
func postureWords(c ConfigUse, upFront *bool) string {
	name := c.ClientTitle
	if name == "" {
		name = clients.Title(c.Client)
	}
	switch c.Posture {
	case clients.ModeUpFront:
		return name + " loads them up front (tool search off)"
	case clients.ModeDeferred:
		if upFront != nil && *upFront {
			return name + " defers tools (tool search), but loads these up front: alwaysLoad pins them"
		}
		return name + " defers them (tool search): tool names and instructions only"
	case clients.ModeThreshold:
		switch {
		case upFront == nil:
			return "whether they pass " + name + "'s tool-search threshold cannot be told ('mcpcost audit --claude' counts them exactly)"
		case *upFront:
			return name + " loads them up front, below its tool-search threshold"
		}
		return name + " defers them, past its tool-search threshold"
	case clients.ModeNoRecord:
		return "no deferral is on record for " + name + ", so all are counted as loaded up front"
	case clients.ModeUnknownClient:
		return "which client reads this file is not known, so all are counted as loaded up front (--client NAME reads it as that client does)"
	}
	return "whether " + name + " defers them cannot be told from its settings ('mcpcost audit' says which setting, and where)"
}
