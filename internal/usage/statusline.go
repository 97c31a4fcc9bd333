package usage

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// MaxStatusInput is the most of a statusLine command's standard input
// read: Claude Code's JSON is a few KiB.
const MaxStatusInput = 1 << 20

// StatusInput is what Claude Code writes on the standard input of its
// statusLine command, the members mcpcost reads.
type StatusInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Version string `json:"version"`
	Cost    struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow struct {
		ContextWindowSize int64 `json:"context_window_size"`
	} `json:"context_window"`
}

// ParseStatusInput reads Claude Code's statusLine JSON. Members it does not
// know are ignored, and so are members of an unexpected kind: the line
// shows what it can.
func ParseStatusInput(b []byte) (StatusInput, error) {
	var in StatusInput
	if len(b) > MaxStatusInput {
		return in, fmt.Errorf("the status input is over %d bytes", MaxStatusInput)
	}
	if strings.TrimSpace(string(b)) == "" {
		return in, fmt.Errorf("no status input: Claude Code writes its JSON on the standard input")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return in, fmt.Errorf("the status input is not a JSON object: %v", err)
	}
	// Each member on its own, so that one of another kind loses only itself.
	member := func(name string, v any) { _ = json.Unmarshal(raw[name], v) }
	member("session_id", &in.SessionID)
	member("transcript_path", &in.TranscriptPath)
	member("cwd", &in.Cwd)
	member("model", &in.Model)
	member("workspace", &in.Workspace)
	member("version", &in.Version)
	var cost struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	}
	if json.Unmarshal(raw["cost"], &cost) == nil {
		in.Cost.TotalCostUSD = cost.TotalCostUSD
	}
	member("context_window", &in.ContextWindow)
	if in.Cost.TotalCostUSD != nil && (*in.Cost.TotalCostUSD < 0 || *in.Cost.TotalCostUSD > 1e9) {
		in.Cost.TotalCostUSD = nil
	}
	if in.ContextWindow.ContextWindowSize < 0 || in.ContextWindow.ContextWindowSize > 1<<40 {
		in.ContextWindow.ContextWindowSize = 0
	}
	return in, nil
}

// MaxStatusModel is the most of a model's name the status line shows, in
// runes: the name is the input's, and the line has other parts to show.
const MaxStatusModel = 40

// StatusLine is what the status line says; each figure is nil where it is
// not known in time.
type StatusLine struct {
	Model string
	// SessionCost is Claude Code's own figure for the session.
	SessionCost *float64
	// Today is the cost of today's requests (all agents) in the store.
	Today        *float64
	TodayPartial bool
	// Block is the active billing block; BlockChecked says the store
	// answered (no active block when Block is nil).
	Block        *Block
	BlockChecked bool
	Now          time.Time
	// MCPDefinitionTokens is what the MCP servers of the session's project
	// put into every request before anything is typed (Claude Code's
	// up-front tokens, from the measurement cache), of ContextWindow.
	MCPDefinitionTokens *int
	MCPServers          int
	ContextWindow       int64
	// MCPResultTokens are the session's MCP results so far, as of the
	// store's last read of its transcript.
	MCPResultTokens *int64
	// Late names the parts that did not answer in time.
	Late []string
}

// Text is the status line: one line, what strangers control escaped.
func (s *StatusLine) Text() string {
	var parts []string
	if s.Model != "" {
		m := s.Model
		if utf8.RuneCountInString(m) > MaxStatusModel {
			m = string([]rune(m)[:MaxStatusModel-1]) + "…"
		}
		parts = append(parts, textsafe.Text(m))
	}
	if s.SessionCost != nil {
		parts = append(parts, "session "+dollars(*s.SessionCost))
	}
	if s.Today != nil {
		t := "today " + dollars(*s.Today)
		if s.TodayPartial {
			t += "*"
		}
		parts = append(parts, t)
	}
	switch {
	case s.Block != nil:
		parts = append(parts, "block "+dollars(s.Block.CostUSD)+" ("+hm(max(0, s.Block.EndTime.Sub(s.Now)))+" left)")
	case s.BlockChecked:
		parts = append(parts, "no active block")
	}
	if s.MCPDefinitionTokens != nil && s.MCPServers == 0 && *s.MCPDefinitionTokens == 0 {
		parts = append(parts, "no MCP servers measured")
	} else if s.MCPDefinitionTokens != nil {
		d := "MCP defs " + tokensShort(int64(*s.MCPDefinitionTokens))
		if s.ContextWindow > 0 {
			d += " (" + strconv.FormatFloat(float64(*s.MCPDefinitionTokens)/float64(s.ContextWindow)*100, 'f', 1, 64) + "%)"
		}
		parts = append(parts, d)
	}
	if s.MCPResultTokens != nil {
		parts = append(parts, "MCP results "+tokensShort(*s.MCPResultTokens))
	}
	if len(parts) == 0 {
		return "mcpcost"
	}
	return strings.Join(parts, " | ")
}

func dollars(c float64) string { return "$" + strconv.FormatFloat(c, 'f', 2, 64) }

// tokensShort is a token count as "950", "12.3K" or "1.2M".
func tokensShort(n int64) string {
	switch {
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 10_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "K"
	}
	return num.Int(n)
}
