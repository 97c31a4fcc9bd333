package claude

import (
	"regexp"
	"strings"
)

// A ToolUseOverhead is the hidden tool-use system prompt Anthropic adds to a
// request that carries at least one tool, for one model family. It is paid
// once per request, not per tool, and it is not part of any server's
// definitions: it is shown beside them, never added into a server's figure.
type ToolUseOverhead struct {
	// Model is the model's name as the pricing page gives it.
	Model string `json:"model"`
	// IDs are the API model ids (undated) the row covers.
	IDs []string `json:"ids"`
	// Auto is the overhead in tokens with tool_choice "auto" or "none" (what
	// Claude Code sends).
	Auto int `json:"auto"`
	// Any is the overhead with tool_choice "any" or a named "tool".
	Any int `json:"any"`
}

// Where the overhead table comes from.
const (
	OverheadSource = "platform.claude.com/docs/en/about-claude/pricing, §Tool use pricing " +
		"(read from the mirror thevibeworks/claude-code-docs@3f1ef7c)"
	OverheadAsOf = "read after 2026-08-31"
)

// overheads is the table of the pricing page, in its order.
var overheads = []ToolUseOverhead{
	{"Claude Opus 5", []string{"claude-opus-5"}, 286, 406},
	{"Claude Opus 4.8", []string{"claude-opus-4-8"}, 290, 410},
	{"Claude Opus 4.7", []string{"claude-opus-4-7"}, 675, 804},
	{"Claude Opus 4.6 / Sonnet 4.6", []string{"claude-opus-4-6", "claude-sonnet-4-6"}, 497, 589},
	{"Claude Opus 4.5 / Sonnet 4.5 / Haiku 4.5", []string{"claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"}, 496, 588},
	{"Claude Sonnet 5", []string{"claude-sonnet-5"}, 354, 474},
	{"Claude Opus 4 / 4.1 / Sonnet 4", []string{"claude-opus-4", "claude-opus-4-0", "claude-opus-4-1", "claude-sonnet-4", "claude-sonnet-4-0"}, 313, 315},
	{"Claude Haiku 3.5", []string{"claude-3-5-haiku"}, 264, 355},
}

// Overheads returns the whole table, in the pricing page's order. The
// caller may not modify it.
func Overheads() []ToolUseOverhead { return overheads }

// dated matches the snapshot suffixes of model ids: -20250929, -latest.
var dated = regexp.MustCompile(`-(\d{8}|latest)$`)

// OverheadFor returns the tool-use system prompt overhead of a model id,
// dated ("claude-sonnet-4-5-20250929") or not. It reports false for a
// model the table does not cover: callers show nothing rather than
// another model's figure.
func OverheadFor(model string) (ToolUseOverhead, bool) {
	id := dated.ReplaceAllString(strings.ToLower(strings.TrimSpace(model)), "")
	for _, o := range overheads {
		for _, x := range o.IDs {
			if x == id {
				return o, true
			}
		}
	}
	return ToolUseOverhead{}, false
}
