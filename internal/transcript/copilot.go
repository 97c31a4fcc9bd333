package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// GitHub Copilot CLI writes one events.jsonl per session, under
// ~/.copilot/session-state/<session-id>/ (COPILOT_HOME moves ~/.copilot).
// Every line is an event {"type", "id", "timestamp", "parentId", "data"}
// (the shape of the Copilot SDK's session events, which the CLI persists):
//
//	session.start           {"sessionId", "startTime", "context": {"cwd", ...}}
//	session.model_change    {"newModel"}
//	tool.execution_start    {"toolCallId", "toolName", "arguments",
//	                         "mcpServerName", "mcpToolName"}
//	tool.execution_complete {"toolCallId", "success", "result": {"content",
//	                         "detailedContent"}, "error": {"message"}}
//	session.compaction_complete
//	session.shutdown        {"shutdownType", "currentModel", "modelMetrics":
//	                         {"<model>": {"requests": {"count", "cost"},
//	                         "usage": {"inputTokens", "outputTokens",
//	                         "cacheReadTokens", "cacheWriteTokens"}}}}
//
// Token usage is recorded only at shutdown, per model, for the whole
// session so far: a resumed session appends another shutdown whose figures
// include the earlier ones. ccusage 20 reads these files so: the session is
// the folder's name; each shutdown's uncached input is inputTokens minus
// the cache reads and writes (at least 0); a session's figures per model
// are the largest any of its shutdowns recorded, each kind on its own, and
// a shutdown counts what it adds to them, at its own time. Shutdowns
// without a timestamp, and other events' usage (assistant.usage), are not
// counted. mcpcost does the same.

// CopilotParser parses the lines of one Copilot CLI events.jsonl file. It
// carries state from line to line (the session, its folder, the largest
// figures per model); State can be saved and restored so that reading
// resumes mid-file.
type CopilotParser struct {
	State CopilotState
}

// CopilotState is what an events.jsonl file has established up to a line.
type CopilotState struct {
	SessionID string `json:"sessionId,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	// Seen is, per model, the largest figures the session's shutdowns
	// have recorded so far.
	Seen map[string]CopilotUsage `json:"seen,omitempty"`
	// Shutdowns counts the shutdowns that added tokens.
	Shutdowns int `json:"shutdowns,omitempty"`
}

// CopilotMaxModels is the most models a session's figures are kept for
// (Seen): a shutdown's figures for further models are not counted, and
// the line is reported. The state is saved with every batch of lines
// read after it; a session uses a few models.
const CopilotMaxModels = 1000

// CopilotUsage is one model's figures at a shutdown, the input already
// net of cache reads and writes.
type CopilotUsage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Reasoning  int64 `json:"reasoning,omitempty"`
	Requests   int64 `json:"requests,omitempty"`
}

type copilotLine struct {
	Type      string
	Timestamp string
	Data      []byte
}

type copilotData struct {
	SessionID string `json:"sessionId"`
	Context   *struct {
		Cwd string `json:"cwd"`
	} `json:"context"`
	ModelMetrics map[string]struct {
		Requests *struct {
			Count *int64 `json:"count"`
		} `json:"requests"`
		Usage *struct {
			Input      int64 `json:"inputTokens"`
			Output     int64 `json:"outputTokens"`
			CacheRead  int64 `json:"cacheReadTokens"`
			CacheWrite int64 `json:"cacheWriteTokens"`
			Reasoning  int64 `json:"reasoningTokens"`
		} `json:"usage"`
	} `json:"modelMetrics"`
	// tool.execution_start and _complete
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	MCPServerName string          `json:"mcpServerName"`
	MCPToolName   string          `json:"mcpToolName"`
	Arguments     json.RawMessage `json:"arguments"`
	Success       *bool           `json:"success"`
	Result        *struct {
		Content json.RawMessage `json:"content"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

var (
	patShutdown      = []byte(`"session.shutdown"`)
	patSessionStart  = []byte(`"session.start"`)
	patToolExecution = []byte(`"tool.execution_`)
	patCompaction    = []byte(`"session.compaction_complete"`)
)

func copilotWanted(line []byte) bool {
	return bytes.Contains(line, patShutdown) || bytes.Contains(line, patSessionStart) ||
		bytes.Contains(line, patToolExecution) || bytes.Contains(line, patCompaction)
}

// ParseLine implements Parser. A shutdown gives a Record whose Request is
// its first model's (by name) and whose More holds the others'.
func (p *CopilotParser) ParseLine(line []byte) (*Record, error) {
	line, ok, err := wantedLine(line, copilotWanted)
	if !ok {
		return nil, err
	}
	var l copilotLine
	err = splitObject(line, func(key string, val []byte) error {
		var err error
		switch key {
		case "type":
			l.Type, err = str(key, val)
		case "timestamp":
			l.Timestamp, err = str(key, val)
		case "data":
			l.Data = val
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var d copilotData
	if len(l.Data) > 0 && l.Data[0] == '{' {
		if err := decodeField("data", l.Data, &d); err != nil {
			return nil, err
		}
	}
	st := &p.State
	rec := &Record{}
	switch l.Type {
	case "session.start":
		if d.Context != nil && d.Context.Cwd != "" {
			st.Cwd = BoundName(d.Context.Cwd)
		}
		return nil, nil
	case "session.compaction_complete":
		rec.Compaction = &Compaction{Trigger: "compaction"}
	case "tool.execution_start":
		if d.ToolCallID == "" || d.ToolName == "" {
			return nil, nil
		}
		tool := ParseToolName(d.ToolName)
		if d.MCPServerName != "" {
			// The CLI names an MCP tool <server>-<tool> and says which
			// server and tool it is.
			tool = Tool{Server: d.MCPServerName, Name: d.MCPToolName}
			if tool.Name == "" {
				tool.Name = d.ToolName
			}
		}
		args := d.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = nil
		}
		rec.Calls = []ToolCall{{ID: d.ToolCallID, Name: d.ToolName, Tool: tool, Args: args}}
	case "tool.execution_complete":
		if d.ToolCallID == "" {
			return nil, nil
		}
		r := ToolResult{ID: d.ToolCallID, IsError: d.Success != nil && !*d.Success}
		switch {
		case d.Result != nil && len(d.Result.Content) > 0 && string(d.Result.Content) != "null":
			r.addContent(d.Result.Content, nil, nil)
		case len(d.Error) > 0 && d.Error[0] == '{':
			// What the model is told of a failure: the error's message.
			var e struct {
				Message json.RawMessage `json:"message"`
			}
			if json.Unmarshal(d.Error, &e) == nil && len(e.Message) > 0 {
				r.addContent(e.Message, nil, nil)
			}
		case len(d.Error) > 0 && d.Error[0] == '"':
			r.addContent(d.Error, nil, nil)
		}
		rec.Results = []ToolResult{r}
	case "session.shutdown":
		if l.Timestamp == "" {
			return nil, nil // as ccusage: a shutdown without a time is not counted
		}
		if _, err := parseTime(l.Timestamp); err != nil {
			return nil, err // before the figures are taken in
		}
		reqs, dropped, err := st.shutdown(&d)
		if err != nil {
			return nil, err
		}
		if dropped > 0 {
			rec.Warning = fmt.Sprintf("the figures of %d models not counted: over %d models in a session", dropped, CopilotMaxModels)
		}
		if len(reqs) == 0 && dropped == 0 {
			return nil, nil
		}
		if len(reqs) > 0 {
			rec.Request = &reqs[0]
			rec.More = reqs[1:]
		}
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
		return nil, errors.New("no session id (the file is not in a session's folder)")
	}
	return rec, nil
}

// shutdown takes what a shutdown adds to the largest figures seen, per
// model, and returns it as requests, models in name order, with the
// number of models left out for want of room in Seen.
func (st *CopilotState) shutdown(d *copilotData) (reqs []Request, dropped int, err error) {
	models := make([]string, 0, len(d.ModelMetrics))
	for m := range d.ModelMetrics {
		models = append(models, m)
	}
	sort.Strings(models)
	now := map[string]CopilotUsage{}
	for _, m := range models {
		mm := d.ModelMetrics[m]
		var u CopilotUsage
		if mm.Usage != nil {
			u = CopilotUsage{Input: mm.Usage.Input, Output: mm.Usage.Output, CacheRead: mm.Usage.CacheRead,
				CacheWrite: mm.Usage.CacheWrite, Reasoning: mm.Usage.Reasoning}
		}
		if mm.Requests != nil && mm.Requests.Count != nil {
			u.Requests = *mm.Requests.Count
		}
		if err := (Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheCreation: u.CacheWrite,
			Reasoning: u.Reasoning, WebSearch: u.Requests}).check(); err != nil {
			return nil, 0, err
		}
		// inputTokens counts the cached input too.
		u.Input = max(0, u.Input-u.CacheRead-u.CacheWrite)
		now[BoundName(m)] = u
	}
	for _, m := range models {
		m = BoundName(m)
		u, old := now[m], st.Seen[m]
		if _, ok := st.Seen[m]; !ok && len(st.Seen) >= CopilotMaxModels {
			dropped++
			continue
		}
		add := CopilotUsage{
			Input: max(0, u.Input-old.Input), Output: max(0, u.Output-old.Output),
			CacheRead: max(0, u.CacheRead-old.CacheRead), CacheWrite: max(0, u.CacheWrite-old.CacheWrite),
			Reasoning: max(0, u.Reasoning-old.Reasoning), Requests: max(0, u.Requests-old.Requests),
		}
		if st.Seen == nil {
			st.Seen = map[string]CopilotUsage{}
		}
		st.Seen[m] = CopilotUsage{
			Input: max(u.Input, old.Input), Output: max(u.Output, old.Output),
			CacheRead: max(u.CacheRead, old.CacheRead), CacheWrite: max(u.CacheWrite, old.CacheWrite),
			Reasoning: max(u.Reasoning, old.Reasoning), Requests: max(u.Requests, old.Requests),
		}
		if add.Input == 0 && add.Output == 0 && add.CacheRead == 0 && add.CacheWrite == 0 {
			continue // nothing new for this model (a repeated shutdown)
		}
		reqs = append(reqs, Request{
			Model: m,
			Usage: Usage{Input: add.Input, Output: add.Output, CacheRead: add.CacheRead,
				CacheCreation: add.CacheWrite, CacheWrite5m: add.CacheWrite, Reasoning: add.Reasoning},
		})
	}
	if len(reqs) > 0 {
		st.Shutdowns++
		for i := range reqs {
			reqs[i].Turn = st.Shutdowns
		}
	}
	return reqs, dropped, nil
}
