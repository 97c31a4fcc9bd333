package claude

import (
	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/token"
)

// SessionStartMethod is mcp-context-cost's method for what a deferring
// client loads at session start.
const SessionStartMethod = "deferred-load/v1"

// A SessionStartLoad is what a client that defers tool definitions (Claude
// Code with tool search) loads for one server when a session starts: the
// tools' names and the server's instructions. The full definitions load
// only when a tool is found by search.
type SessionStartLoad struct {
	Method   string `json:"method"`
	Encoding string `json:"encoding"`
	// Tokens is ToolNameTokens plus InstructionsTokens, method
	// deferred-load/v1: the figure mcp-context-cost publishes as "session
	// start". When IsFloor is set the instructions are unknown and Tokens
	// is the names alone, a floor ("≥N").
	Tokens  int  `json:"tokens"`
	IsFloor bool `json:"isFloor"`
	// ToolNameTokens is the o200k_base count of the JSON array of the tool
	// names (["a","b"]), in server order; tools without a non-empty string
	// name are left out. ToolNames counts the names.
	ToolNameTokens int `json:"toolNameTokens"`
	ToolNames      int `json:"toolNames"`
	// InstructionsTokens is the o200k_base count of the server's
	// instructions, counted apart from the names (never in one string with
	// them); 0 for none, nil when they were never captured.
	InstructionsTokens *int `json:"instructionsTokens"`
	// InstructionsLength is their length in UTF-16 code units.
	InstructionsLength int `json:"instructionsLength"`
	// ClaudeCodeTokens is Tokens with Claude Code's 2 KB cut applied to the
	// instructions (see [Cut]), which deferred-load/v1 does not apply; the
	// two differ only when InstructionsCut is set.
	ClaudeCodeTokens             int  `json:"claudeCodeTokens"`
	ClaudeCodeInstructionsTokens *int `json:"claudeCodeInstructionsTokens"`
	InstructionsCut              bool `json:"instructionsCut"`
}

// SessionStart returns what a deferring client loads at session start for a
// server whose tools/list is tools and whose initialize result carried
// instructions: nil when they were never captured (the result is then a
// floor), a pointer to "" when the server sent none (null, absent or
// empty).
func SessionStart(tools []*canon.Value, instructions *string) SessionStartLoad {
	counter := token.O200k()
	var names []*canon.Value
	for _, t := range tools {
		if n := t.Get("name"); n.Kind() == canon.String && n.Len() > 0 {
			names = append(names, n)
		}
	}
	s := SessionStartLoad{Method: SessionStartMethod, Encoding: token.Encoding, ToolNames: len(names)}
	if len(names) > 0 {
		// A server without tools lists no names: 0, not the 1 token of "[]".
		s.ToolNameTokens = counter.Count(string(canon.Marshal(canon.NewArray(names))))
	}
	s.Tokens, s.ClaudeCodeTokens = s.ToolNameTokens, s.ToolNameTokens
	if instructions == nil {
		s.IsFloor = true
		return s
	}
	n := 0
	if *instructions != "" {
		n = counter.Count(*instructions)
	}
	s.InstructionsTokens = &n
	s.InstructionsLength = UTF16Len(*instructions)
	cc := n
	if cut, ok := Cut(*instructions); ok {
		s.InstructionsCut = true
		cc = counter.Count(cut)
	}
	s.ClaudeCodeInstructionsTokens = &cc
	s.Tokens += n
	s.ClaudeCodeTokens += cc
	return s
}

// CostsMoreThanLoading reports whether deferring this server costs more
// at session start than loading its full definitions would (definitions:
// the headline count of its tools). A floor that already exceeds them
// does too.
func (s SessionStartLoad) CostsMoreThanLoading(definitions int) bool {
	return s.Tokens > definitions
}
