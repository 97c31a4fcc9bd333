package serve

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// Schemas of the usage tools' structured results.
const (
	UsageSchema    = "mcpcost.serve.usage/v1"
	SessionsSchema = "mcpcost.serve.sessions/v1"
	SessionSchema  = "mcpcost.serve.session/v1"
)

type usageIn struct {
	Days    int    `json:"days,omitempty" jsonschema:"last N days (up to 36525); default all"`
	By      string `json:"by,omitempty" jsonschema:"server (default), tool, session, day, week, month, model, project, machine, user or block"`
	Project string `json:"project,omitempty" jsonschema:"path or folder name"`
	Machine string `json:"machine,omitempty"`
	User    string `json:"user,omitempty"`
	Limit   int    `json:"limit,omitempty" jsonschema:"rows; default 20"`
	Mode    string `json:"mode,omitempty" jsonschema:"costs: auto (default), calculate or display"`
}

func (in usageIn) subject() string {
	return "the usage " + windowSubject(in.Days, in.Project) + " by " + textsafe.Short(or(in.By, "server"))
}

// windowSubject words a days and project filter for an error message.
func windowSubject(days int, project string) string {
	s := "of all history"
	if days > 0 {
		s = fmt.Sprintf("of the last %d days", days)
	}
	if project != "" {
		s += " of project " + textsafe.Quote(project)
	}
	return s
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// UsageResult is usage_summary's structured result.
type UsageResult struct {
	Schema string `json:"schema"`
	By     string `json:"by"`
	// Since and Until are the window's RFC 3339 start and exclusive end,
	// null where it is open, as usage --json has them (by block: the
	// first block's start with days, and no end).
	Since *string `json:"since"`
	Until *string `json:"until"`
	// Requests, Tokens and Cost (USD) total the period; ToolCalls and
	// ResultTokens count every tool call and the o200k_base tokens of its
	// result, MCPResultTokens those of MCP tools.
	Requests        int      `json:"requests"`
	Sessions        int      `json:"sessions"`
	Tokens          int64    `json:"tokens"`
	Cost            *float64 `json:"cost"` // null when nothing had a price
	ToolCalls       int      `json:"toolCalls"`
	ResultTokens    int64    `json:"resultTokens"`
	MCPResultTokens int64    `json:"mcpResultTokens"`
	Rows            []Row    `json:"rows"`
	// More counts the rows left out by the limit.
	More  int      `json:"more,omitempty"`
	Notes []string `json:"notes"`
}

// Row is one group: a server, a server's tool, a session, a day, a week
// (its Monday), a month (YYYY-MM), a model or a project.
type Row struct {
	Key          string   `json:"key"`
	Requests     int      `json:"requests,omitempty"`
	Tokens       int64    `json:"tokens,omitempty"`
	Cost         *float64 `json:"cost,omitempty"`
	Calls        int      `json:"calls"`
	Errors       int      `json:"errors,omitempty"`
	ResultTokens int64    `json:"resultTokens"`
	MaxResult    int64    `json:"maxResult,omitempty"`
}

type sessionsIn struct {
	Limit   int    `json:"limit,omitempty" jsonschema:"default 10"`
	Project string `json:"project,omitempty" jsonschema:"path or folder name"`
}

func (in sessionsIn) subject() string {
	if in.Project != "" {
		return "the sessions of project " + textsafe.Quote(in.Project)
	}
	return "the recent sessions"
}

// SessionsResult is recent_sessions' structured result, newest first.
type SessionsResult struct {
	Schema   string    `json:"schema"`
	Sessions []Session `json:"sessions"`
	More     int       `json:"more,omitempty"`
	Notes    []string  `json:"notes"`
}

// Session is one session.
type Session struct {
	ID           string   `json:"id"`
	Source       string   `json:"source"`
	Project      string   `json:"project"`
	First        string   `json:"first"`
	Last         string   `json:"last"`
	Requests     int      `json:"requests"`
	Tokens       int64    `json:"tokens"`
	Cost         *float64 `json:"cost"`
	ToolCalls    int      `json:"toolCalls"`
	ResultTokens int64    `json:"resultTokens"`
	// Models lists maxListed models at most; MoreModels counts the rest.
	Models     []string `json:"models"`
	MoreModels int      `json:"moreModels,omitempty"`
}

type sessionIn struct {
	Session string `json:"session,omitempty" jsonschema:"session id or prefix; default the latest"`
	Limit   int    `json:"limit,omitempty" jsonschema:"default 20"`
}

func (in sessionIn) subject() string {
	if in.Session != "" {
		return "session " + textsafe.Quote(in.Session)
	}
	return "the latest session"
}

// SessionResult is session_tools' structured result: one session's tools by
// the tokens their results put into its context, heaviest first.
type SessionResult struct {
	Schema       string        `json:"schema"`
	Session      string        `json:"session"`
	Source       string        `json:"source"`
	Project      string        `json:"project"`
	Calls        int           `json:"calls"`
	ResultTokens int64         `json:"resultTokens"`
	Tools        []SessionTool `json:"tools"`
	More         int           `json:"more,omitempty"`
	Notes        []string      `json:"notes"`
}

// SessionTool is one tool of a session; Server is empty for the agent's
// built-in tools.
type SessionTool struct {
	Server       string `json:"server"`
	Tool         string `json:"tool"`
	Calls        int    `json:"calls"`
	Errors       int    `json:"errors,omitempty"`
	ResultTokens int64  `json:"resultTokens"`
	MaxResult    int64  `json:"maxResult"`
}

func (s *server) addUsage(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{
		Name:         toolUsage,
		Description:  "What past agent sessions cost: requests, tokens, USD, tool calls and result tokens, grouped.",
		OutputSchema: outputSchema[UsageResult](),
		Annotations:  readOnly,
	}, s.usageSummary)
	addTool(srv, &mcp.Tool{
		Name:         toolRecent,
		Description:  "The latest agent sessions with their tokens, cost and tool result tokens.",
		OutputSchema: outputSchema[SessionsResult](),
		Annotations:  readOnly,
	}, s.recentSessions)
	addTool(srv, &mcp.Tool{
		Name:         toolSession,
		Description:  "One session's tools ranked by the tokens their results added to context.",
		OutputSchema: outputSchema[SessionResult](),
		Annotations:  readOnly,
	}, s.sessionTools)
}

// store is how a query of req reaches the usage store: once its
// arguments are checked, new transcript lines are read (lazily), and
// notes receive what the result should say about that read. The query
// then reads the store as it stands and writes nothing, so it answers
// from a store on a full disk or in a folder it may not write.
func (s *server) store(req *mcp.CallToolRequest, notes *[]string) app.StoreOptions {
	return app.StoreOptions{NoIngest: true, Refresh: func(ctx context.Context) error {
		complete, stats, err := s.usage.fresh(ctx, newProgress(ctx, req, 0))
		*notes = ingestNotes(complete, stats)
		return err
	}}
}

func limitOr(n, def int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("limit must be positive, got %d", n)
	case n == 0:
		return def, nil
	}
	return n, nil
}

func (s *server) usageSummary(ctx context.Context, req *mcp.CallToolRequest, in usageIn) (*mcp.CallToolResult, *UsageResult, error) {
	if in.By == "" {
		in.By = "server"
	}
	if in.By == "block" {
		return s.blockSummary(ctx, req, in)
	}
	valid := false
	for _, d := range usage.Dimensions {
		valid = valid || d == in.By
	}
	if !valid {
		return nil, nil, fmt.Errorf("by must be one of %s, block, not %s", strings.Join(usage.Dimensions, ", "), textsafe.Quote(in.By))
	}
	limit, err := limitOr(in.Limit, 20)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	rep, _, err := s.m.Usage(ctx, app.UsageOptions{Window: usage.WindowArgs{Days: in.Days}, Location: s.o.Location,
		By: in.By, Project: in.Project, Machine: in.Machine, User: in.User, Source: "all", Mode: in.Mode, Store: s.store(req, &notes), Remote: s.o.Remote})
	if err != nil {
		return nil, nil, queryError(err)
	}
	out := &UsageResult{Schema: UsageSchema, By: rep.By, Requests: rep.Totals.Requests, Sessions: rep.Totals.Sessions,
		Tokens: rep.Totals.Tokens.Total, Cost: roundCost(rep.Totals.Cost), ToolCalls: rep.Totals.ToolCalls,
		ResultTokens: rep.Totals.ResultTokens, MCPResultTokens: rep.Totals.MCPResultTokens, Rows: []Row{}, Notes: notes}
	out.Since, out.Until = rep.Since, rep.Until
	if len(rep.Unpriced) > 0 {
		out.Notes = append(out.Notes, "no price for "+joinNames(rep.Unpriced)+": not in the cost")
	}
	if rep.TokensCapped {
		out.Notes = append(out.Notes, usage.CappedNote)
	}
	for _, t := range rep.Tools {
		key := name(t.Server)
		if t.BuiltIn {
			key = "(built-in)"
		}
		if in.By == "tool" {
			key += "/" + name(t.Tool)
		}
		out.Rows = append(out.Rows, Row{Key: key, Calls: t.Calls, Errors: t.Errors, ResultTokens: t.ResultTokens, MaxResult: t.MaxResultTokens})
	}
	for _, u := range rep.Usage {
		out.Rows = append(out.Rows, Row{Key: name(u.Key), Requests: u.Requests, Tokens: u.Tokens.Total, Cost: roundCost(u.Cost), Calls: u.ToolCalls, ResultTokens: u.ResultTokens})
	}
	if len(out.Rows) > limit {
		out.More = len(out.Rows) - limit
		out.Rows = out.Rows[:limit]
	}
	proses(out.Notes)
	return textResult(usageText(out)), out, nil
}

// blockSummary is usage_summary by block: Claude Code's 5-hour billing
// blocks of the period, newest first, gaps left out, a row each (keyed by
// its start, RFC 3339 in UTC, the active one marked), and the active
// block's burn rate and projection in the notes.
func (s *server) blockSummary(ctx context.Context, req *mcp.CallToolRequest, in usageIn) (*mcp.CallToolResult, *UsageResult, error) {
	if in.Project != "" {
		return nil, nil, fmt.Errorf("by block takes no project: a billing block holds every project's requests")
	}
	limit, err := limitOr(in.Limit, 20)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	rep, _, err := s.m.Blocks(ctx, app.BlocksOptions{Window: usage.WindowArgs{Days: in.Days}, Location: s.o.Location, Order: "desc",
		TokenLimit: "max", Machine: in.Machine, User: in.User, Store: s.store(req, &notes)})
	if err != nil {
		return nil, nil, queryError(err)
	}
	out := &UsageResult{Schema: UsageSchema, By: "block", Rows: []Row{}, Notes: notes}
	if len(rep.Blocks) > 0 && in.Days > 0 {
		since := rep.Blocks[len(rep.Blocks)-1].StartTime.Format(time.RFC3339)
		out.Since = &since
	}
	var total float64
	for _, b := range rep.Blocks {
		if b.IsGap {
			continue
		}
		key := b.StartTime.UTC().Format(time.RFC3339)
		if b.IsActive {
			key += " (active)"
			if br, p := b.BurnRate, b.Projection; br != nil && p != nil {
				n := fmt.Sprintf("active block: %s tokens a minute, $%.2f an hour; projected %s tokens, $%.2f by its end in %s",
					num.Int(usage.RoundTokens(br.TokensPerMinute)), br.CostPerHour, num.Int(p.TotalTokens), p.TotalCost, num.Count(int(p.RemainingMinutes), "minute"))
				if st := b.TokenLimitStatus; st != nil {
					n += fmt.Sprintf(", %.0f%% of the largest earlier block (%s)", st.PercentUsed, st.Status)
				}
				out.Notes = append(out.Notes, n)
			}
		}
		cost := round(b.CostUSD)
		total += b.CostUSD
		out.Requests += b.Entries
		out.Tokens = usage.AddTokens(out.Tokens, b.TotalTokens)
		out.ToolCalls += b.ToolCalls
		out.ResultTokens = usage.AddTokens(out.ResultTokens, b.ResultTokens)
		out.MCPResultTokens = usage.AddTokens(out.MCPResultTokens, b.MCPResultTokens)
		out.Rows = append(out.Rows, Row{Key: key, Requests: b.Entries, Tokens: b.TotalTokens, Cost: &cost, Calls: b.ToolCalls, ResultTokens: b.ResultTokens})
	}
	t := round(total)
	out.Cost = &t
	// The blocks' sum stops at the largest integer too, where no one
	// block may have.
	if rep.TokensCapped || out.Tokens == math.MaxInt64 || out.ResultTokens == math.MaxInt64 || out.MCPResultTokens == math.MaxInt64 {
		out.Notes = append(out.Notes, usage.CappedNote)
	}
	if len(rep.Unpriced) > 0 {
		out.Notes = append(out.Notes, "no price for "+joinNames(rep.Unpriced)+": not in the cost")
	}
	if len(out.Rows) > limit {
		out.More = len(out.Rows) - limit
		out.Rows = out.Rows[:limit]
	}
	proses(out.Notes)
	return textResult(usageText(out)), out, nil
}

func round(usd float64) float64 { return math.Round(usd*10000) / 10000 }

// roundCost rounds a cost that may be unpriced (nil).
func roundCost(usd *float64) *float64 {
	if usd == nil {
		return nil
	}
	v := round(*usd)
	return &v
}

// usd prints a cost: "unpriced" for none.
func usd(c *float64) string {
	if c == nil {
		return "unpriced"
	}
	return fmt.Sprintf("$%.2f", *c)
}

func usageText(u *UsageResult) string {
	var b strings.Builder
	period := "all history"
	if u.Since != nil {
		period = "since " + *u.Since
	}
	fmt.Fprintf(&b, "%s: %s requests in %s, %s tokens, %s; %s tool calls, results %s tokens (MCP %s)\n",
		period, render.Int(u.Requests), num.Count(u.Sessions, "session"), render.Int(int(u.Tokens)), usd(u.Cost),
		render.Int(u.ToolCalls), render.Int(int(u.ResultTokens)), render.Int(int(u.MCPResultTokens)))
	fmt.Fprintf(&b, "by %s:\n", u.By)
	for _, r := range u.Rows {
		if r.Requests > 0 || (u.By != "server" && u.By != "tool") {
			fmt.Fprintf(&b, "  %s: %s, %s tokens, %s, %s, results %s tokens\n", textsafe.Text(r.Key), num.Count(r.Requests, "request"), render.Int(int(r.Tokens)), usd(r.Cost), num.Count(r.Calls, "tool call"), render.Int(int(r.ResultTokens)))
			continue
		}
		fmt.Fprintf(&b, "  %s: %s, %s, results %s tokens (max %s)\n", textsafe.Text(r.Key), num.Count(r.Calls, "call"), num.Count(r.Errors, "error"), render.Int(int(r.ResultTokens)), render.Int(int(r.MaxResult)))
	}
	if len(u.Rows) == 0 {
		b.WriteString("  (none)\n")
	}
	if u.More > 0 {
		fmt.Fprintf(&b, "  ... %d more\n", u.More)
	}
	for _, n := range u.Notes {
		b.WriteString(textsafe.Text(n) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (s *server) recentSessions(ctx context.Context, req *mcp.CallToolRequest, in sessionsIn) (*mcp.CallToolResult, *SessionsResult, error) {
	limit, err := limitOr(in.Limit, 10)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	rep, _, err := s.m.Usage(ctx, app.UsageOptions{Location: time.UTC, By: "session", Project: in.Project, Source: "all", Store: s.store(req, &notes), Remote: s.o.Remote})
	if err != nil {
		return nil, nil, queryError(err)
	}
	out := &SessionsResult{Schema: SessionsSchema, Sessions: []Session{}, Notes: notes}
	rows := rep.Usage
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].Last, rows[j].Last
		if a != nil && b != nil && !a.Equal(*b) {
			return a.After(*b)
		}
		if (a == nil) != (b == nil) {
			return a != nil
		}
		return rows[i].Key < rows[j].Key
	})
	for _, u := range rows {
		src, id, _ := strings.Cut(u.Key, ":")
		se := Session{ID: name(id), Source: src, Project: name(u.Project), Requests: u.Requests, Tokens: u.Tokens.Total, Cost: roundCost(u.Cost),
			ToolCalls: u.ToolCalls, ResultTokens: u.ResultTokens, Models: names(u.Models)}
		if se.Models == nil {
			se.Models = []string{}
		}
		if more := len(se.Models) - maxListed; more > 0 {
			se.Models, se.MoreModels = se.Models[:maxListed], more
		}
		if u.First != nil {
			se.First, se.Last = u.First.UTC().Format(time.RFC3339), u.Last.UTC().Format(time.RFC3339)
		}
		out.Sessions = append(out.Sessions, se)
	}
	if len(out.Sessions) > limit {
		out.More = len(out.Sessions) - limit
		out.Sessions = out.Sessions[:limit]
	}
	proses(out.Notes)
	var b strings.Builder
	for _, se := range out.Sessions {
		// The models are said only when some were left out of the
		// structured result.
		models := ""
		if se.MoreModels > 0 {
			models = fmt.Sprintf("; %s, %d listed, %s more", num.Count(len(se.Models)+se.MoreModels, "model"), len(se.Models), render.Int(se.MoreModels))
		}
		fmt.Fprintf(&b, "%s %s (%s) %s: %s requests, %s tokens, %s; %s tool calls, results %s tokens%s\n", se.Last, textsafe.Text(se.ID), se.Source, textsafe.Text(se.Project),
			render.Int(se.Requests), render.Int(int(se.Tokens)), usd(se.Cost), render.Int(se.ToolCalls), render.Int(int(se.ResultTokens)), models)
	}
	if len(out.Sessions) == 0 {
		b.WriteString("no sessions in the usage store\n")
	}
	if out.More > 0 {
		fmt.Fprintf(&b, "... %d more\n", out.More)
	}
	for _, n := range out.Notes {
		b.WriteString(textsafe.Text(n) + "\n")
	}
	return textResult(strings.TrimRight(b.String(), "\n")), out, nil
}

func (s *server) sessionTools(ctx context.Context, req *mcp.CallToolRequest, in sessionIn) (*mcp.CallToolResult, *SessionResult, error) {
	limit, err := limitOr(in.Limit, 20)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	st, err := s.m.SessionTools(ctx, in.Session, s.store(req, &notes))
	if err != nil {
		return nil, nil, queryError(err)
	}
	out := &SessionResult{Schema: SessionSchema, Session: name(st.ID), Source: st.Source, Project: name(st.Project), Tools: []SessionTool{}, Notes: proses(notes)}
	for _, t := range st.Tools {
		out.Calls += t.Calls
		out.ResultTokens = usage.AddTokens(out.ResultTokens, t.ResultTokens)
		out.Tools = append(out.Tools, SessionTool{Server: name(t.Server), Tool: name(t.Tool), Calls: t.Calls, Errors: t.Errors, ResultTokens: t.ResultTokens, MaxResult: t.MaxResult})
	}
	if len(out.Tools) > limit {
		out.More = len(out.Tools) - limit
		out.Tools = out.Tools[:limit]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s (%s) %s: %s tool calls, results %s tokens\n", textsafe.Text(out.Session), out.Source, textsafe.Text(out.Project), render.Int(out.Calls), render.Int(int(out.ResultTokens)))
	for _, t := range out.Tools {
		server := t.Server
		if server == "" {
			server = "(built-in)"
		}
		fmt.Fprintf(&b, "  %s/%s: %s, results %s tokens (max %s)", textsafe.Text(server), textsafe.Text(t.Tool), num.Count(t.Calls, "call"), render.Int(int(t.ResultTokens)), render.Int(int(t.MaxResult)))
		if t.Errors > 0 {
			fmt.Fprintf(&b, ", %s", num.Count(t.Errors, "error"))
		}
		b.WriteString("\n")
	}
	if out.More > 0 {
		fmt.Fprintf(&b, "  ... %d more\n", out.More)
	}
	for _, n := range out.Notes {
		b.WriteString(textsafe.Text(n) + "\n")
	}
	return textResult(strings.TrimRight(b.String(), "\n")), out, nil
}
