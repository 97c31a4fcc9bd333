package serve

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompts for the common questions: each asks the model to call this
// server's tools and answer from their results.
var prompts = []struct {
	name, title, description, text string
}{
	{"mcp_cost_this_week", "What do my MCP servers cost me this week?",
		"This week's cost of each MCP server: its definitions in every request and its results.",
		"What did my MCP servers cost me this week? Call " + toolUsage + " with by=week and days=7 for this week's requests and cost, " +
			toolUsage + " with by=server and days=7 for each server's calls and result tokens, and " + toolAudit +
			" for the tokens each server's definitions put into every request. Answer per server: definition tokens, calls, result tokens, and their share of the week's tokens."},
	{"servers_to_drop", "Which MCP server should I drop?",
		"The servers that cost the most context for the least use, from the findings.",
		"Which of my MCP servers should I drop or trim? Call " + toolFindings + " and " + toolAudit +
			", and " + toolUsage + " with by=server and days=30. Rank the servers by the tokens their definitions cost against how often they were called, and say which to drop, which to trim (their heaviest tools), and what each change saves per request."},
	{"billing_block_now", "Where am I in my 5-hour block?",
		"The active billing block: its cost so far, burn rate, projection and MCP calls.",
		"Where am I in my current 5-hour billing block? Call " + toolUsage + " with by=block and answer with the active block's cost so far, its burn rate, where it is projected to end, how much of it went to MCP calls, and how that compares with my largest earlier block."},
}

func (s *server) addPrompts(srv *mcp.Server) {
	for _, p := range prompts {
		text := p.text
		srv.AddPrompt(&mcp.Prompt{Name: p.name, Title: p.title, Description: p.description},
			func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				if req != nil && req.Params != nil && len(req.Params.Arguments) > 0 {
					return nil, fmt.Errorf("prompt %s takes no arguments", p.name)
				}
				return &mcp.GetPromptResult{Description: p.description,
					Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
			})
	}
}
