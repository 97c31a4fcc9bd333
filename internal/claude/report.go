package claude

import (
	"context"

	"github.com/mcpcost/mcpcost/internal/canon"
)

// ReportSchema versions the JSON of a [Report].
const ReportSchema = "mcpcost.claude/v1"

// An Input is one measured server, as the Claude figures need it.
type Input struct {
	// Server is the server's name in the MCP config (it prefixes the tool
	// names Claude Code sends).
	Server string
	// ServerFrom says where Server came from: "--name" (the user's),
	// "serverInfo" (the server's own name), "serverName" (a
	// measurement.json's), or a guess from the "command", "url" or "file"
	// name; "" when not said.
	ServerFrom string
	// Tools is the capture's tools array, in server order.
	Tools []*canon.Value
	// Instructions are the initialize instructions: nil when never
	// captured, "" when the server sent none.
	Instructions *string
	// HeadlineTokens is the headline methodology count of Tools.
	HeadlineTokens int
	// CaptureSHA256 is the capture's canonical SHA-256 (lowercase hex).
	CaptureSHA256 string
	// Model is the model the overhead is looked up for; "" means
	// [DefaultModel].
	Model string
	// Spans, when set, locate Tools in their counted canonical array, so
	// that the request is copied and its counts derived from it (the same
	// bytes and counts).
	Spans *Spans
}

// A Report puts together, for one server, what Claude receives beside the
// headline number it does not replace.
type Report struct {
	Schema string `json:"schema"`
	Server string `json:"server"`
	// ServerFrom says where Server came from (Input.ServerFrom).
	ServerFrom     string `json:"serverFrom,omitempty"`
	HeadlineTokens int    `json:"headlineTokens"`
	// Request is what Claude Code sends for the server's tools.
	Request Shape `json:"request"`
	// SessionStart is what a deferring client loads at start;
	// DeferringCostsMore says it exceeds the full definitions.
	SessionStart       SessionStartLoad `json:"sessionStart"`
	DeferringCostsMore bool             `json:"deferringCostsMore"`
	// Model and ToolUseOverhead: the once-per-request tool-use system
	// prompt of that model (nil when the table does not cover it), paid by
	// any request with tools, not by this server alone.
	Model           string           `json:"model"`
	ToolUseOverhead *ToolUseOverhead `json:"toolUseOverhead"`
	OverheadSource  string           `json:"overheadSource"`
	// Published is mcp-context-cost's published figures for this exact
	// capture, nil when no published capture has its hash.
	Published *PublishedFigures `json:"published"`
	// Claude is the request counted with Claude's own tokenizer (nil
	// until [Report.Count] succeeds).
	Claude *Count `json:"claude,omitempty"`
}

// Describe computes the Claude figures of one server. It does no I/O.
func Describe(in Input) Report {
	model := in.Model
	if model == "" {
		model = DefaultModel
	}
	r := Report{
		Schema:         ReportSchema,
		Server:         in.Server,
		ServerFrom:     in.ServerFrom,
		HeadlineTokens: in.HeadlineTokens,
		Request:        RequestShapeOf(in.Server, in.Tools, in.Spans),
		SessionStart:   SessionStart(in.Server, in.Tools, in.Instructions),
		Model:          model,
		OverheadSource: OverheadSource + ", " + OverheadAsOf,
	}
	r.DeferringCostsMore = r.SessionStart.CostsMoreThanLoading(in.HeadlineTokens)
	if o, ok := OverheadFor(model); ok {
		r.ToolUseOverhead = &o
	}
	if p, ok := Published(in.CaptureSHA256); ok {
		r.Published = &p
	}
	return r
}

// Count counts r.Request with Claude's tokenizer through c and records it
// in r.Claude. On error r is unchanged.
func (r *Report) Count(ctx context.Context, c *Client) error {
	n, err := c.CountTools(ctx, r.Request.JSON)
	if err != nil {
		return err
	}
	r.Claude = &n
	return nil
}
