package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// CodexParser parses the lines of one Codex rollout file. It carries state
// from line to line (the session, the model of the current turn, the last
// cumulative token total); State can be saved and restored so that reading
// resumes mid-file.
type CodexParser struct {
	State CodexState
}

// CodexState is what a Codex rollout file has established up to a line.
type CodexState struct {
	SessionID string `json:"sessionId,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Model     string `json:"model,omitempty"`
	// Total is the last cumulative token_count total seen.
	Total codexUsage `json:"total"`
	// Turns counts the token counts taken so far.
	Turns int `json:"turns,omitempty"`
}

type codexUsage struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

func (u codexUsage) sub(v codexUsage) (codexUsage, bool) {
	d := codexUsage{u.Input - v.Input, u.Cached - v.Cached, u.Output - v.Output, u.Reasoning - v.Reasoning, u.Total - v.Total}
	ok := d.Input >= 0 && d.Cached >= 0 && d.Output >= 0 && d.Reasoning >= 0 && d.Total >= 0
	return d, ok
}

// check reports a count outside [0, MaxTokens].
func (u *codexUsage) check() error {
	if u == nil {
		return nil
	}
	return Usage{Input: u.Input, CacheRead: u.Cached, Output: u.Output, Reasoning: u.Reasoning, WebSearch: u.Total}.check()
}

func (u codexUsage) zero() bool { return u == codexUsage{} }

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type string `json:"type"`
	// session_meta, turn_context
	ID    string `json:"id"`
	Cwd   string `json:"cwd"`
	Model string `json:"model"`
	// token_count
	Info *struct {
		Total *codexUsage `json:"total_token_usage"`
		Last  *codexUsage `json:"last_token_usage"`
	} `json:"info"`
	// function_call, custom_tool_call and their outputs
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	// local_shell_call: the command to run ({"type": "exec", "command":
	// [...], ...}).
	Action json.RawMessage `json:"action"`
}

var (
	patCallID      = []byte(`"call_id"`)
	patTokenCount  = []byte(`"token_count"`)
	patSessionMeta = []byte(`"session_meta"`)
	patTurnContext = []byte(`"turn_context"`)
	patCompacted   = []byte(`"compacted"`)
	patLocalShell  = []byte(`"local_shell_call"`)
)

func codexWanted(line []byte) bool {
	return bytes.Contains(line, patCallID) || bytes.Contains(line, patTokenCount) ||
		bytes.Contains(line, patSessionMeta) || bytes.Contains(line, patTurnContext) ||
		bytes.Contains(line, patCompacted) || bytes.Contains(line, patLocalShell)
}

// localShell is the name Codex gives the call of a local_shell_call item
// (the Responses API's local shell tool, which older Codex versions and
// codex-mini-latest use): its tool is "local_shell".
const localShell = "local_shell"

// ParseLine implements Parser.
//
// Codex's token_count events carry cumulative totals and may repeat: a
// turn is counted once, as the difference between the new total and the
// last one. When the total goes backwards (a reset), the event's
// last_token_usage is taken instead.
func (p *CodexParser) ParseLine(line []byte) (*Record, error) {
	line, ok, err := wantedLine(line, codexWanted)
	if !ok {
		return nil, err
	}
	var l codexLine
	err = splitObject(line, func(key string, val []byte) error {
		var err error
		switch key {
		case "timestamp":
			l.Timestamp, err = str(key, val)
		case "type":
			l.Type, err = str(key, val)
		case "payload":
			l.Payload = val
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var pl codexPayload
	if len(l.Payload) > 0 && l.Payload[0] == '{' {
		if err := decodeField("payload", l.Payload, &pl); err != nil {
			return nil, err
		}
	}
	st := &p.State
	rec := &Record{}
	switch {
	case l.Type == "session_meta":
		if pl.ID != "" {
			st.SessionID = BoundName(pl.ID)
		}
		if pl.Cwd != "" {
			st.Cwd = BoundName(pl.Cwd)
		}
		return nil, nil
	case l.Type == "turn_context":
		if pl.Model != "" {
			st.Model = BoundName(pl.Model)
		}
		if pl.Cwd != "" {
			st.Cwd = BoundName(pl.Cwd)
		}
		return nil, nil
	case l.Type == "compacted" || (l.Type == "event_msg" && pl.Type == "context_compacted"):
		rec.Compaction = &Compaction{Trigger: "compacted"}
	case l.Type == "event_msg" && pl.Type == "token_count":
		if pl.Info == nil {
			return nil, nil
		}
		if err := pl.Info.Total.check(); err != nil {
			return nil, err
		}
		if err := pl.Info.Last.check(); err != nil {
			return nil, err
		}
		var turn codexUsage
		switch {
		case pl.Info.Total != nil:
			d, ok := pl.Info.Total.sub(st.Total)
			if !ok {
				// The total went backwards: a new count started.
				d = *pl.Info.Total
				if pl.Info.Last != nil {
					d = *pl.Info.Last
				}
			}
			st.Total = *pl.Info.Total
			turn = d
		case pl.Info.Last != nil:
			turn = *pl.Info.Last
		}
		if turn.zero() {
			return nil, nil // a repeated total
		}
		st.Turns++
		in := turn.Input - turn.Cached
		if in < 0 {
			in = 0
		}
		model := st.Model
		rec.Request = &Request{
			Model: model,
			Turn:  st.Turns,
			Usage: Usage{Input: in, CacheRead: turn.Cached, Output: turn.Output, Reasoning: turn.Reasoning},
		}
	case l.Type == "response_item" && (pl.Type == "function_call" || pl.Type == "custom_tool_call") && pl.CallID != "":
		name := pl.Name
		if pl.Namespace != "" {
			// Responses-API namespaces: namespace "mcp__server__", name "tool".
			if strings.HasSuffix(pl.Namespace, "__") {
				name = pl.Namespace + pl.Name
			} else {
				name = pl.Namespace + "__" + pl.Name
			}
		}
		if name == "" {
			return nil, nil
		}
		args := pl.Arguments
		if pl.Type == "custom_tool_call" {
			args = pl.Input
		}
		// Arguments are a JSON string holding JSON; unwrap it.
		if len(args) > 0 && args[0] == '"' {
			var s string
			if json.Unmarshal(args, &s) == nil {
				args = json.RawMessage(s)
				if !json.Valid(args) {
					b, _ := json.Marshal(s)
					args = b
				}
			}
		}
		rec.Calls = []ToolCall{{ID: pl.CallID, Name: name, Tool: ParseToolName(name), Args: args}}
	case l.Type == "response_item" && pl.Type == "local_shell_call":
		// {"type": "local_shell_call", "id": ..., "call_id": ..., "status":
		// ..., "action": {"type": "exec", "command": [...], ...}}. Codex
		// joins it to its output by call_id, or by id where there is no
		// call_id; the output is a function_call_output, whose text holds
		// the exit code and the run time (see shellOutcome).
		id := pl.CallID
		if id == "" {
			id = pl.ID
		}
		if id == "" {
			return nil, nil
		}
		rec.Calls = []ToolCall{{ID: id, Name: localShell, Tool: ParseToolName(localShell), Args: pl.Action}}
	case l.Type == "response_item" && (pl.Type == "function_call_output" || pl.Type == "custom_tool_call_output" || pl.Type == "local_shell_call_output") && pl.CallID != "":
		r := ToolResult{ID: pl.CallID}
		codexOutput(&r, pl.Output)
		rec.Results = []ToolResult{r}
	default:
		return nil, nil
	}
	t, err := parseTime(l.Timestamp)
	if err != nil {
		return nil, err
	}
	rec.Time = t
	rec.SessionID = st.SessionID
	rec.Cwd = st.Cwd
	if rec.SessionID == "" {
		return nil, errors.New("no session id (no session_meta before this line)")
	}
	return rec, nil
}

// codexOutput reads a function call's output: a string, an MCP-style
// object {content, isError} or {output, success}, or an array of content
// blocks. A shell command's exit code and run time are read from what
// Codex wrote around its output (see shellOutcome).
func codexOutput(r *ToolResult, out json.RawMessage) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return
	}
	switch out[0] {
	case '"':
		r.addContent(out, nil, nil)
		if len(r.Texts) == 1 {
			shellOutcome(r, r.Texts[0])
		}
	case '[':
		r.addContent(out, nil, nil)
	case '{':
		var o struct {
			Content  json.RawMessage `json:"content"`
			Output   json.RawMessage `json:"output"`
			IsError  *bool           `json:"isError"`
			Success  *bool           `json:"success"`
			Metadata *shellMetadata  `json:"metadata"`
		}
		if json.Unmarshal(out, &o) != nil {
			r.addOther(out)
			return
		}
		defer o.Metadata.apply(r)
		switch {
		case len(o.Content) > 0:
			r.addContent(o.Content, nil, nil)
		case len(o.Output) > 0:
			r.addContent(o.Output, nil, nil)
		default:
			r.addOther(out)
		}
		r.IsError = (o.IsError != nil && *o.IsError) || (o.Success != nil && !*o.Success)
	default:
		r.addOther(out)
	}
}

// shellMetadata is what Codex 0.3x to 0.5x recorded of a shell command,
// beside its output: {"output": "...", "metadata": {"exit_code": 1,
// "duration_seconds": 12.5}}, written as an object or as a JSON string.
type shellMetadata struct {
	ExitCode        *int64   `json:"exit_code"`
	DurationSeconds *float64 `json:"duration_seconds"`
}

// apply records m's exit code (non-zero: an error) and duration in r.
func (m *shellMetadata) apply(r *ToolResult) {
	if m == nil {
		return
	}
	if m.ExitCode != nil && *m.ExitCode != 0 {
		r.IsError = true
	}
	if d := m.DurationSeconds; d != nil && *d >= 0 && *d < 1e9 {
		ms := int64(math.Round(*d * 1000))
		r.DurationMs = &ms
	}
}

var (
	// Codex 0.6x and later write a shell command's outcome as text
	// before its output: "Exit code: 1\nWall time: 2.5 seconds\nOutput:\n…",
	// or for exec_command "Chunk ID: …\nWall time: 0.05 seconds\nProcess
	// exited with code 1\n…".
	exitCodeRE = regexp.MustCompile(`(?m)^(?:Exit code: |Process exited with code )(-?\d+)\s*$`)
	wallTimeRE = regexp.MustCompile(`(?m)^Wall time: (\d+(?:\.\d+)?) seconds\s*$`)
)

// shellOutcome reads a shell command's exit code and run time from the
// text of its output: the JSON of {output, metadata} (Codex 0.3x to 0.5x)
// or the header lines of later versions. Only the header, before the
// command's own output, is read.
func shellOutcome(r *ToolResult, text string) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") && strings.Contains(t, `"metadata"`) {
		var o struct {
			Metadata *shellMetadata `json:"metadata"`
		}
		if json.Unmarshal([]byte(t), &o) == nil {
			o.Metadata.apply(r)
		}
		return
	}
	head := t
	if i := strings.Index(head, "\nOutput:"); i >= 0 {
		head = head[:i]
	} else if len(head) > 512 {
		head = head[:512]
	}
	if m := exitCodeRE.FindStringSubmatch(head); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil && n != 0 {
			r.IsError = true
		}
	}
	if m := wallTimeRE.FindStringSubmatch(head); m != nil {
		if f, err := strconv.ParseFloat(m[1], 64); err == nil && f < 1e9 {
			ms := int64(math.Round(f * 1000))
			r.DurationMs = &ms
		}
	}
}
