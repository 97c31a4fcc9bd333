package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/mcpcost/mcpcost/internal/usage"
)

type blocksIn struct {
	Days   int    `json:"days,omitempty" jsonschema:"blocks started in the last N days"`
	Active bool   `json:"active,omitempty" jsonschema:"the active block alone"`
	Recent bool   `json:"recent,omitempty" jsonschema:"the last 3 days and the active block"`
	Order  string `json:"order,omitempty" jsonschema:"asc (default) or desc"`
	// TokenLimit is a number of tokens or "max", as a JSON number or a
	// string.
	TokenLimit    any     `json:"token_limit,omitempty" jsonschema:"tokens, or max (the most a finished block used)"`
	SessionLength float64 `json:"session_length,omitempty" jsonschema:"hours a block lasts; default 5"`
	Mode          string  `json:"mode,omitempty" jsonschema:"costs: auto (default), calculate or display"`
}

func (in blocksIn) subject() string { return "the billing blocks" }

// blocksOutput is the blocks tool's output schema: the report of "mcpcost
// blocks --json" (mcpcost.blocks/v1) by its top-level names; each block's
// are ccusage's, which the tool's description names.
var blocksOutput = &jsonschema.Schema{Type: "object", Required: []string{"schema", "blocks"}, Properties: map[string]*jsonschema.Schema{
	"schema":     {Type: "string"},
	"tokenLimit": {Type: "integer"},
	"blocks":     {Type: "array", Items: &jsonschema.Schema{Type: "object"}},
	"unpriced":   {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
}}

func (s *server) addBlocks(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{
		Name:         toolBlocks,
		Description:  "Claude Code's 5-hour billing blocks, as mcpcost blocks --json: tokens, cost, MCP calls; the active block's burnRate and projection.",
		OutputSchema: blocksOutput,
		Annotations:  readOnly,
	}, s.blocks)
}

// tokenLimit spells the token_limit argument as the command line's
// --token-limit: a whole number or "max".
func tokenLimit(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case float64:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10), nil
		}
	case json.Number:
		return v.String(), nil
	}
	return "", fmt.Errorf("token_limit must be a number of tokens or \"max\", not %v", v)
}

func (s *server) blocks(ctx context.Context, req *mcp.CallToolRequest, in blocksIn) (*mcp.CallToolResult, *usage.BlocksReport, error) {
	limit, err := tokenLimit(in.TokenLimit)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	rep, _, err := s.m.Blocks(ctx, app.BlocksOptions{Window: usage.WindowArgs{Days: in.Days}, Location: s.o.Location,
		Mode: in.Mode, TokenLimit: limit, Active: in.Active, Recent: in.Recent, Order: in.Order, SessionLength: in.SessionLength,
		Store: s.store(req, &notes)})
	if err != nil {
		return nil, nil, queryError(err)
	}
	// A block lists maxListed models, and counts the rest (a note says so): a
	// forged transcript can hold a hundred thousand models in one block.
	for i := range rep.Blocks {
		bl := &rep.Blocks[i]
		if more := len(bl.Models) - maxListed; more > 0 {
			notes = append(notes, fmt.Sprintf("the block of %s used %s: %d are listed, %s more", bl.StartTime.UTC().Format(time.RFC3339), num.Count(len(bl.Models), "model"), maxListed, num.Int(more)))
			bl.Models, bl.MoreModels = bl.Models[:maxListed], more
		}
		names(bl.Models)
	}
	unpriced := rep.Unpriced
	if more := len(unpriced) - maxListed; more > 0 {
		notes = append(notes, fmt.Sprintf("%s without a price: %d are listed, %s more", num.Count(len(unpriced), "model"), maxListed, num.Int(more)))
		rep.Unpriced, rep.MoreUnpriced = slices.Clone(unpriced[:maxListed]), more
	}
	names(rep.Unpriced)
	if rep.TokensCapped {
		notes = append(notes, usage.CappedNote)
	}
	return textResult(blocksText(rep, unpriced, proses(notes))), rep, nil
}

// blocksText is the blocks report in a few lines: one per block (gaps
// left out), then the active block's rate and projection; unpriced is
// every model without a price, which the text counts past maxListed.
func blocksText(rep *usage.BlocksReport, unpriced, notes []string) string {
	var b strings.Builder
	n := 0
	for _, bl := range rep.Blocks {
		if bl.IsGap {
			continue
		}
		n++
		state := ""
		if bl.IsActive {
			state = " (active)"
		}
		fmt.Fprintf(&b, "%s%s: %s, %s tokens, $%.2f, %s (results %s tokens)", bl.StartTime.UTC().Format(time.RFC3339), state,
			num.Count(bl.Entries, "request"), num.Int(bl.TotalTokens), bl.CostUSD, num.Count(bl.MCPCalls, "MCP call"), num.Int(bl.MCPResultTokens))
		if bl.UsageLimitResetTime != nil {
			fmt.Fprintf(&b, "; usage limit reached, reset at %s", bl.UsageLimitResetTime.UTC().Format(time.RFC3339))
		}
		b.WriteString("\n")
		if br, p := bl.BurnRate, bl.Projection; br != nil && p != nil {
			fmt.Fprintf(&b, "  burn rate %s tokens a minute, $%.2f an hour; projected %s tokens, $%.2f by its end in %s",
				num.Int(usage.RoundTokens(br.TokensPerMinute)), br.CostPerHour, num.Int(p.TotalTokens), p.TotalCost, num.Count(int(p.RemainingMinutes), "minute"))
			if st := bl.TokenLimitStatus; st != nil {
				fmt.Fprintf(&b, ", %.0f%% of the limit of %s (%s)", st.PercentUsed, num.Int(st.Limit), st.Status)
			}
			b.WriteString("\n")
		}
	}
	if n == 0 {
		if rep.ActiveOnly {
			b.WriteString("no active block\n")
		} else {
			b.WriteString("no billing blocks\n")
		}
	}
	if len(unpriced) > 0 {
		b.WriteString(textsafe.Text("no price for "+joinNames(unpriced)+": not in the cost") + "\n")
	}
	for _, n := range notes {
		b.WriteString(textsafe.Text(n) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
