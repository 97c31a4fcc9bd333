package claude

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// leaderboardCSV is mcp-context-cost's published leaderboard (v0.8.0, sweeps
// of 2026-08-18 and 2026-08-19): one row per measured server.
//
//go:embed leaderboard.csv
var leaderboardCSV []byte

// PublishedMethod names how mcp-context-cost obtained its Claude figure
// (method tools-delta/v1): Anthropic count_tokens of a user message "."
// with the capture projected onto {name, description, input_schema}, minus
// the same request without tools. Tool names are the server's own (no
// mcp__ prefix) and descriptions are not cut, so the figure is close to,
// but not the same request as, [RequestShape].
const PublishedMethod = "tools-delta/v1"

// PublishedFigures are mcp-context-cost's published figures for one exact
// capture. Pointers are nil where the leaderboard has no value; callers
// print a dash for them, never an estimate.
type PublishedFigures struct {
	Server          string `json:"server"`
	Status          string `json:"status"`
	ToolCount       int    `json:"toolCount"`
	Tokens          int    `json:"tokens"`
	CanonicalSHA256 string `json:"canonicalSha256"`
	MeasuredDate    string `json:"measuredDate"`
	// ClaudeTokens is the count_tokens delta of method tools-delta/v1 on
	// ClaudeModel; nil for servers outside that run or whose row was stale.
	ClaudeTokens *int   `json:"claudeTokens"`
	ClaudeModel  string `json:"claudeModel,omitempty"`
	ClaudeMethod string `json:"claudeMethod,omitempty"`
	// SessionStartTokens is method deferred-load/v1: tool names plus
	// server instructions. When SessionStartIsFloor is set the
	// instructions were never captured and the figure is names only, a
	// floor.
	SessionStartTokens  int  `json:"sessionStartTokens"`
	SessionStartIsFloor bool `json:"sessionStartIsFloor"`
	ToolNameTokens      int  `json:"toolNameTokens"`
	InstructionsTokens  *int `json:"instructionsTokens"`
}

var (
	publishedOnce sync.Once
	publishedBy   map[string]PublishedFigures
	publishedErr  error
)

// Published returns the published figures of the capture whose canonical
// SHA-256 (lowercase hex, as in measurement.json) is sha, and false when
// no published capture has exactly that hash. A server that changed by a
// single byte since it was published gets nothing: a stale or scaled
// figure is never returned.
func Published(sha string) (PublishedFigures, bool) {
	publishedOnce.Do(func() {
		publishedBy, publishedErr = parseLeaderboard(leaderboardCSV)
	})
	if publishedErr != nil {
		// The embedded file is checked by the tests; it cannot fail here.
		panic("claude: embedded leaderboard.csv: " + publishedErr.Error())
	}
	f, ok := publishedBy[sha]
	return f, ok
}

// parseLeaderboard reads the leaderboard, keyed by canonical SHA-256.
func parseLeaderboard(data []byte) (map[string]PublishedFigures, error) {
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("leaderboard.csv: reading header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, name := range []string{"name", "status", "tool_count", "o200k_tokens", "session_start_tokens",
		"session_start_is_floor", "tool_name_tokens", "instructions_tokens", "claude_tokens",
		"claude_model", "canonical_sha256", "measured_date"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("leaderboard.csv: no %q column", name)
		}
	}
	out := map[string]PublishedFigures{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("leaderboard.csv: %w", err)
		}
		line, _ := r.FieldPos(0)
		get := func(name string) string { return rec[col[name]] }
		var bad error
		num := func(name string) int {
			n, err := strconv.Atoi(get(name))
			if err != nil && bad == nil {
				bad = fmt.Errorf("leaderboard.csv:%d: %s: %w", line, name, err)
			}
			return n
		}
		opt := func(name string) *int {
			if get(name) == "" {
				return nil
			}
			n := num(name)
			return &n
		}
		f := PublishedFigures{
			Server:              get("name"),
			Status:              get("status"),
			ToolCount:           num("tool_count"),
			Tokens:              num("o200k_tokens"),
			CanonicalSHA256:     get("canonical_sha256"),
			MeasuredDate:        get("measured_date"),
			ClaudeTokens:        opt("claude_tokens"),
			SessionStartTokens:  num("session_start_tokens"),
			SessionStartIsFloor: get("session_start_is_floor") == "true",
			ToolNameTokens:      num("tool_name_tokens"),
			InstructionsTokens:  opt("instructions_tokens"),
		}
		switch get("session_start_is_floor") {
		case "true", "false":
		default:
			if bad == nil {
				bad = fmt.Errorf("leaderboard.csv:%d: session_start_is_floor: %q is not true or false", line, get("session_start_is_floor"))
			}
		}
		if bad != nil {
			return nil, bad
		}
		if f.ClaudeTokens != nil {
			f.ClaudeModel = get("claude_model")
			f.ClaudeMethod = PublishedMethod
		}
		if len(f.CanonicalSHA256) != 64 {
			return nil, fmt.Errorf("leaderboard.csv:%d: %s: canonical_sha256 is not a SHA-256", line, f.Server)
		}
		if _, dup := out[f.CanonicalSHA256]; dup {
			return nil, fmt.Errorf("leaderboard.csv:%d: %s: canonical_sha256 appears twice", line, f.Server)
		}
		out[f.CanonicalSHA256] = f
	}
}
