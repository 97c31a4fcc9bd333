package serve

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// FindingsSchema versions the findings tool's structured result.
const FindingsSchema = "mcpcost.serve.findings/v1"

type findingsIn struct {
	Days    int    `json:"days,omitempty" jsonschema:"last N days (up to 36525); default all"`
	Level   string `json:"level,omitempty" jsonschema:"lowest level: info (default), warn or high"`
	Project string `json:"project,omitempty" jsonschema:"path or folder name"`
	Machine string `json:"machine,omitempty"`
	User    string `json:"user,omitempty"`
	Launch  bool   `json:"launch,omitempty" jsonschema:"launch servers not in the measurement cache"`
	Limit   int    `json:"limit,omitempty" jsonschema:"default 10"`
	Mode    string `json:"mode,omitempty" jsonschema:"costs: auto (default), calculate or display"`
}

func (in findingsIn) subject() string {
	return "the findings " + windowSubject(in.Days, in.Project)
}

// FindingsResult is the findings tool's structured result: what to change,
// most important first.
type FindingsResult struct {
	Schema   string    `json:"schema"`
	High     int       `json:"high"`
	Warn     int       `json:"warn"`
	Info     int       `json:"info"`
	Findings []Finding `json:"findings"`
	More     int       `json:"more,omitempty"`
	// Partial is set when some part could not be judged; Notes say which.
	Partial bool     `json:"partial"`
	Notes   []string `json:"notes"`
}

// Finding is one finding: its stable id, level, what and what to do, and
// the estimated saving (tokens, and USD when priced).
type Finding struct {
	ID             string   `json:"id"`
	Type           string   `json:"type"`
	Level          string   `json:"level"`
	Title          string   `json:"title"`
	Recommendation string   `json:"recommendation"`
	SavingTokens   int64    `json:"savingTokens,omitempty"`
	SavingUSD      *float64 `json:"savingUsd,omitempty"`
}

func (s *server) addFindings(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{
		Name:         toolFindings,
		Description:  "What to change: idle servers, oversized or repeated tool results, slow tools, costly sessions, cache loss, heavy definitions.",
		OutputSchema: outputSchema[FindingsResult](),
		Annotations:  launches,
	}, s.findings)
}

func (s *server) findings(ctx context.Context, req *mcp.CallToolRequest, in findingsIn) (*mcp.CallToolResult, *FindingsResult, error) {
	if in.Level == "" {
		in.Level = findings.LevelInfo
	}
	if findings.LevelRank(in.Level) == 0 {
		return nil, nil, fmt.Errorf("level must be one of %s, not %s", strings.Join(findings.Levels, ", "), textsafe.Quote(in.Level))
	}
	limit, err := limitOr(in.Limit, 10)
	if err != nil {
		return nil, nil, err
	}
	if in.Launch && s.o.NoLaunch {
		return nil, nil, errNoLaunch("launch: true")
	}
	var notes []string
	p := newProgress(ctx, req, 0)
	// What goes wrong without stopping the findings (no measurement
	// cache) is said in the result's notes.
	m := *s.m
	var warnings []string
	m.Warn = func(msg string) { warnings = append(warnings, msg) }
	res, err := m.Findings(ctx, app.FindingsOptions{
		Window:   usage.WindowArgs{Days: in.Days},
		Location: s.o.Location,
		Project:  in.Project,
		Machine:  in.Machine,
		User:     in.User,
		Folder:   s.o.Project,
		Mode:     in.Mode,
		Launch:   in.Launch,
		MaxAge:   s.o.MaxAge,
		Timeout:  s.o.Timeout,
		Progress: p.events(true),
		Auditing: func(n int) { p.step("auditing " + num.Count(n, "config")) },
		Store:    s.store(req, &notes),
		Remote:   s.o.Remote,
	})
	if err != nil {
		return nil, nil, queryError(err)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	rep := res.Report
	out := &FindingsResult{Schema: FindingsSchema, High: rep.Counts.High, Warn: rep.Counts.Warn, Info: rep.Counts.Info,
		Findings: []Finding{}, Partial: rep.Partial || len(notes) > 0 && strings.HasPrefix(notes[0], "partial"), Notes: append(append(notes, rep.Notes...), warnings...)}
	min := findings.LevelRank(in.Level)
	for _, f := range rep.Findings {
		if findings.LevelRank(f.Level) < min {
			continue
		}
		if len(out.Findings) == limit {
			out.More++
			continue
		}
		fo := Finding{ID: f.ID, Type: f.Type, Level: f.Level, Title: prose(f.Title), Recommendation: prose(f.Recommendation)}
		if sv := f.EstimatedSaving; sv != nil {
			fo.SavingTokens = sv.Tokens
			if sv.USD != nil {
				usd := round(*sv.USD)
				fo.SavingUSD = &usd
			}
		}
		out.Findings = append(out.Findings, fo)
	}
	proses(out.Notes)
	var b strings.Builder
	fmt.Fprintf(&b, "%d high, %d warn, %d info\n", out.High, out.Warn, out.Info)
	for _, f := range out.Findings {
		fmt.Fprintf(&b, "[%s] %s (%s)", f.Level, textsafe.Text(f.Title), textsafe.Text(f.ID))
		if f.SavingTokens > 0 {
			fmt.Fprintf(&b, "; saves ~%s tokens", render.Int(int(f.SavingTokens)))
		}
		if f.SavingUSD != nil && *f.SavingUSD >= 0.005 {
			fmt.Fprintf(&b, " ($%.2f)", *f.SavingUSD)
		}
		fmt.Fprintf(&b, "\n  %s\n", textsafe.Text(f.Recommendation))
	}
	if out.More > 0 {
		fmt.Fprintf(&b, "... %d more\n", out.More)
	}
	for _, n := range out.Notes {
		b.WriteString(textsafe.Text(n) + "\n")
	}
	return textResult(strings.TrimRight(b.String(), "\n")), out, nil
}
