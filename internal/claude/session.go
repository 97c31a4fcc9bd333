package claude

import (
	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/token"
)

// SessionStartMethod is mcp-context-cost's method for what a deferring
// client loads at session start.
const SessionStartMethod = "deferred-load/v1"

// AlwaysLoadMeta is the _meta key by which a server asks Claude Code to load
// one tool up front even when the others are deferred.
const AlwaysLoadMeta = "anthropic/alwaysLoad"

// A SessionStartLoad is what a client that defers tool definitions (Claude
// Code with tool search) loads for one server when a session starts: the
// tools' names and the server's instructions. The full definitions load
// only when a tool is found by search. (A server configured with
// "alwaysLoad": true is not deferred at all; its cost at start is its
// request shape, see [RequestShape].)
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
	// name are left out, and no names count 0. ToolNames counts the names.
	ToolNameTokens int `json:"toolNameTokens"`
	ToolNames      int `json:"toolNames"`
	// InstructionsTokens is the o200k_base count of the server's
	// instructions, counted apart from the names (never in one string with
	// them); 0 for none, nil when they were never captured.
	InstructionsTokens *int `json:"instructionsTokens"`
	// InstructionsLength is their length in UTF-16 code units.
	InstructionsLength int `json:"instructionsLength"`

	// ClaudeCodeTokens is deferred-load/v1 adjusted to what Claude Code
	// does, in two documented ways: the instructions are cut to 2 KB (see
	// [Cut]; InstructionsCut), and the tools a server marks with
	// _meta["anthropic/alwaysLoad"]: true load in full (their request
	// shape, AlwaysLoadTokens) instead of by name. Deferred tools are still
	// counted by their server names: how Claude Code words its list of
	// deferred tools is not on record. It is a floor when IsFloor is.
	ClaudeCodeTokens             int  `json:"claudeCodeTokens"`
	ClaudeCodeToolNameTokens     int  `json:"claudeCodeToolNameTokens"`
	ClaudeCodeInstructionsTokens *int `json:"claudeCodeInstructionsTokens"`
	InstructionsCut              bool `json:"instructionsCut"`
	// AlwaysLoadTools are the server names of the tools marked to load up
	// front, in server order; AlwaysLoadTokens the o200k_base count of
	// their request shape (as [RequestShape] writes it), 0 when none.
	AlwaysLoadTools  []string `json:"alwaysLoadTools"`
	AlwaysLoadTokens int      `json:"alwaysLoadTokens"`
}

// SessionStart returns what a deferring client loads at session start for
// the server configured as server (which prefixes the names of the tools
// Claude Code loads in full), whose tools/list is tools and whose
// initialize result carried instructions: nil when they were never
// captured (the result is then a floor), a pointer to "" when the server
// sent none (null, absent or empty).
func SessionStart(server string, tools []*canon.Value, instructions *string) SessionStartLoad {
	counter := token.O200k()
	var names, deferred, always []*canon.Value
	s := SessionStartLoad{Method: SessionStartMethod, Encoding: token.Encoding, AlwaysLoadTools: []string{}}
	for _, t := range tools {
		n := t.Get("name")
		if n.Kind() != canon.String || n.Len() == 0 {
			continue
		}
		names = append(names, n)
		if al := t.Get("_meta").Get(AlwaysLoadMeta); al.Kind() == canon.Bool && al.Bool() {
			always = append(always, t)
			s.AlwaysLoadTools = append(s.AlwaysLoadTools, n.Str())
		} else {
			deferred = append(deferred, n)
		}
	}
	s.ToolNames = len(names)
	s.ToolNameTokens = countNames(counter, names)
	s.ClaudeCodeToolNameTokens = countNames(counter, deferred)
	if len(always) > 0 {
		s.AlwaysLoadTokens = RequestShape(server, always).Tokens
	}
	s.Tokens = s.ToolNameTokens
	s.ClaudeCodeTokens = s.ClaudeCodeToolNameTokens + s.AlwaysLoadTokens
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

// countNames counts the JSON array of names as JSON.stringify writes it;
// no names count 0, not the 1 token of "[]".
func countNames(counter token.Counter, names []*canon.Value) int {
	if len(names) == 0 {
		return 0
	}
	return counter.Count(string(canon.Marshal(canon.NewArray(names))))
}

// CostsMoreThanLoading reports whether deferring this server costs more
// at session start (deferred-load/v1) than loading its full definitions
// would (definitions: the headline count of its tools).
func (s SessionStartLoad) CostsMoreThanLoading(definitions int) bool {
	return s.Tokens > definitions
}

// AddSessionStart sums the session-start loads of the servers of one
// config. The sum is a floor when any part is.
func AddSessionStart(loads ...SessionStartLoad) SessionStartLoad {
	sum := SessionStartLoad{Method: SessionStartMethod, Encoding: token.Encoding, AlwaysLoadTools: []string{}}
	var instr, ccInstr *int
	for _, l := range loads {
		sum.Tokens += l.Tokens
		sum.IsFloor = sum.IsFloor || l.IsFloor
		sum.ToolNameTokens += l.ToolNameTokens
		sum.ToolNames += l.ToolNames
		sum.InstructionsLength += l.InstructionsLength
		sum.ClaudeCodeTokens += l.ClaudeCodeTokens
		sum.ClaudeCodeToolNameTokens += l.ClaudeCodeToolNameTokens
		sum.InstructionsCut = sum.InstructionsCut || l.InstructionsCut
		sum.AlwaysLoadTools = append(sum.AlwaysLoadTools, l.AlwaysLoadTools...)
		sum.AlwaysLoadTokens += l.AlwaysLoadTokens
		instr = addOpt(instr, l.InstructionsTokens)
		ccInstr = addOpt(ccInstr, l.ClaudeCodeInstructionsTokens)
	}
	switch {
	case len(loads) == 0:
		zero, zero2 := 0, 0
		sum.InstructionsTokens, sum.ClaudeCodeInstructionsTokens = &zero, &zero2
	case !sum.IsFloor:
		sum.InstructionsTokens, sum.ClaudeCodeInstructionsTokens = instr, ccInstr
	}
	return sum
}

func addOpt(sum, n *int) *int {
	if n == nil {
		return sum
	}
	v := *n
	if sum != nil {
		v += *sum
	}
	return &v
}
