package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// AuditSchema versions audit_config's structured result.
const AuditSchema = "mcpcost.serve.audit/v1"

type auditIn struct {
	Path   string `json:"path,omitempty" jsonschema:"config file; default: every config found"`
	Client string `json:"client,omitempty" jsonschema:"only this client's configs"`
	Launch bool   `json:"launch,omitempty" jsonschema:"launch servers not in the measurement cache"`
	// TrustProject is the user's word for the servers of the project's own
	// config files that their client has no approval of.
	TrustProject bool `json:"trust_project,omitempty" jsonschema:"also the project's own configs (a cloned repository's .mcp.json) that their client has not approved; only if the user asks"`
}

func (in auditIn) subject() string {
	switch {
	case in.Path != "":
		return "config " + textsafe.Quote(in.Path)
	case in.Client != "":
		return textsafe.Quote(in.Client) + "'s configs"
	}
	return "the configs found"
}

// AuditResult is audit_config's structured result: per client session in
// the project folder (when the configs were discovered) and per config
// file, what their servers cost.
type AuditResult struct {
	Schema        string `json:"schema"`
	ContextWindow int    `json:"contextWindow"`
	// Sessions are what one session of each client loads in the project
	// folder (Path is the folder; each server names its scope and file);
	// empty when a path was given.
	Sessions []AuditSession `json:"sessions"`
	Configs  []AuditConfig  `json:"configs"`
	// Problems name config files that could not be read.
	Problems []string `json:"problems"`
	// Partial is set when a server could not be measured (or was not in
	// the cache): the totals are lower bounds.
	Partial bool `json:"partial"`
}

// AuditConfig is one config file as one client reads it.
type AuditConfig struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Scope  string `json:"scope,omitempty"`
	// Tokens is the sum of the measured servers' tool definitions.
	Tokens int `json:"tokens"`
	// UpFrontTokens is what the client loads before anything is typed,
	// under its deferral posture (nil when unknown).
	UpFrontTokens *int          `json:"upFrontTokens"`
	ContextShare  float64       `json:"contextShare"`
	Servers       []AuditServer `json:"servers"`
	// Heaviest are the heaviest tools, "server/tool tokens".
	Heaviest []string `json:"heaviest"`
}

// AuditSession is one client's session in the project folder (Path):
// its servers with the scope each comes from, its total and what is paid
// up front. The configs hold the details of each file.
type AuditSession struct {
	Client        string          `json:"client"`
	Path          string          `json:"path"`
	Tokens        int             `json:"tokens"`
	UpFrontTokens *int            `json:"upFrontTokens"`
	Servers       []SessionServer `json:"servers"`
}

// SessionServer is one server entry of a session.
type SessionServer struct {
	Name   string `json:"name"`
	Scope  string `json:"scope"`
	Status string `json:"status"`
	Tokens *int   `json:"tokens"`
}

// AuditServer is one server entry.
type AuditServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Tokens *int   `json:"tokens"`
	Tools  *int   `json:"tools"`
	Detail string `json:"detail,omitempty"`
	// Hint says what to do about a server not measured (how to approve a
	// needs-approval one).
	Hint string `json:"hint,omitempty"`
}

func (s *server) addAudit(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{
		Name:         toolAudit,
		Description:  "Tokens each configured MCP server's tool definitions cost, per client session here and per config file. Uses cached measurements unless launch is set.",
		OutputSchema: outputSchema[AuditResult](),
		Annotations:  launches,
	}, s.auditConfig)
}

func ptr[T any](v T) *T { return &v }

func (s *server) auditConfig(ctx context.Context, req *mcp.CallToolRequest, in auditIn) (*mcp.CallToolResult, *AuditResult, error) {
	p := newProgress(ctx, req, 0)
	rep, err := s.audit(ctx, p, in)
	if err != nil {
		return nil, nil, err
	}
	out := auditResult(rep)
	return textResult(auditText(out, rep, in.Launch)), out, nil
}

// audit runs the static audit of the config at in.Path, or of those
// discovered (of in.Client), from the cache unless in.Launch.
func (s *server) audit(ctx context.Context, p *progress, in auditIn) (*audit.Report, error) {
	if in.Launch && s.o.NoLaunch {
		return nil, errNoLaunch("launch: true")
	}
	if in.Client != "" && in.Path != "" {
		return nil, fmt.Errorf("give a path or a client, not both: a config file's client is told from the file")
	}
	o := app.AuditOptions{Project: s.o.Project, TrustProject: in.TrustProject, Resolve: true, Remote: s.o.Remote,
		Offline: !in.Launch, MaxAge: s.o.MaxAge, Timeout: s.o.Timeout, Progress: p.events(true),
		Auditing: func(n int) { p.step("auditing " + num.Count(n, "config")) }}
	if in.Path != "" {
		o.Configs = []string{in.Path}
	}
	if in.Client != "" {
		o.Clients = []string{in.Client}
	}
	rep, unread, err := s.m.Audit(ctx, o)
	switch {
	case len(unread) > 0:
		return nil, unread[0]
	case errors.Is(err, app.ErrNoCache):
		return nil, fmt.Errorf("the measurement cache is unavailable; call again with launch: true to measure the servers")
	case err != nil:
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rep, nil
}

func auditResult(rep *audit.Report) *AuditResult {
	out := &AuditResult{Schema: AuditSchema, ContextWindow: rep.ContextWindow, Sessions: []AuditSession{}, Configs: []AuditConfig{}, Problems: []string{}, Partial: rep.Partial}
	for _, p := range rep.Problems {
		out.Problems = append(out.Problems, prose(p.Error))
	}
	for _, s := range rep.Sessions {
		as := AuditSession{Client: s.Client, Path: s.Path, Tokens: s.TotalTokens, UpFrontTokens: s.UpFrontTokens, Servers: []SessionServer{}}
		for _, sv := range s.Servers {
			as.Servers = append(as.Servers, SessionServer{Name: name(sv.Name), Scope: sv.Scope, Status: sv.Status, Tokens: sv.Tokens})
		}
		out.Sessions = append(out.Sessions, as)
	}
	for _, c := range rep.Configs {
		out.Configs = append(out.Configs, auditConfigOf(c))
	}
	return out
}

func auditConfigOf(c audit.Config) AuditConfig {
	ac := AuditConfig{Client: c.Client, Path: c.Path, Scope: c.Scope, Tokens: c.TotalTokens, UpFrontTokens: c.UpFrontTokens,
		ContextShare: c.ContextShare, Servers: []AuditServer{}, Heaviest: []string{}}
	for _, sv := range c.Servers {
		ac.Servers = append(ac.Servers, AuditServer{Name: name(sv.Name), Status: sv.Status, Tokens: sv.Tokens, Tools: sv.ToolCount, Detail: prose(sv.Detail), Hint: prose(sv.Hint)})
	}
	for i, t := range c.HeaviestTools {
		if i == 5 {
			break
		}
		ac.Heaviest = append(ac.Heaviest, fmt.Sprintf("%s/%s %d", name(t.Server), name(t.Tool), t.Tokens))
	}
	return ac
}

func auditText(out *AuditResult, rep *audit.Report, launched bool) string {
	var b strings.Builder
	if len(out.Configs) == 0 && len(out.Sessions) == 0 {
		b.WriteString("no MCP server found in any config")
		if len(rep.EmptyConfigs) > 0 {
			fmt.Fprintf(&b, " (%s declare none)", num.Count(len(rep.EmptyConfigs), "config"))
		}
		b.WriteString("\n")
	}
	notCached, approval := 0, 0
	for _, c := range out.Sessions {
		fmt.Fprintf(&b, "%s session in %s: %s tokens", clients.Title(c.Client), textsafe.Text(c.Path), render.Int(c.Tokens))
		if c.UpFrontTokens != nil && *c.UpFrontTokens != c.Tokens {
			fmt.Fprintf(&b, "; %s loaded up front", render.Int(*c.UpFrontTokens))
		}
		b.WriteString("\n")
		for _, sv := range c.Servers {
			if sv.Tokens != nil {
				fmt.Fprintf(&b, "  %s (%s): %s tokens\n", textsafe.Text(sv.Name), textsafe.Text(sv.Scope), render.Int(*sv.Tokens))
				continue
			}
			switch sv.Status {
			case audit.StatusNotCached:
				notCached++
			case audit.StatusNeedsApproval:
				approval++
			}
			fmt.Fprintf(&b, "  %s (%s): %s\n", textsafe.Text(sv.Name), textsafe.Text(sv.Scope), sv.Status)
		}
	}
	for _, c := range out.Configs {
		if len(out.Sessions) > 0 {
			break // the files are the sessions' breakdown, in the structured result
		}
		fmt.Fprintf(&b, "%s (%s): %s tokens, %s of %s", textsafe.Text(c.Path), clients.Title(c.Client), render.Int(c.Tokens), render.Percent(c.ContextShare), render.Int(out.ContextWindow))
		if c.UpFrontTokens != nil && *c.UpFrontTokens != c.Tokens {
			fmt.Fprintf(&b, "; %s loaded up front", render.Int(*c.UpFrontTokens))
		}
		b.WriteString("\n")
		for _, sv := range c.Servers {
			if sv.Tokens != nil {
				fmt.Fprintf(&b, "  %s: %s tokens, %s\n", textsafe.Text(sv.Name), render.Int(*sv.Tokens), num.Count(*sv.Tools, "tool"))
				continue
			}
			switch sv.Status {
			case audit.StatusNotCached:
				notCached++
			case audit.StatusNeedsApproval:
				approval++
			}
			fmt.Fprintf(&b, "  %s: %s\n", textsafe.Text(sv.Name), sv.Status)
		}
		if len(c.Heaviest) > 0 {
			fmt.Fprintf(&b, "  heaviest: %s\n", textsafe.Text(strings.Join(c.Heaviest, ", ")))
		}
	}
	for _, p := range out.Problems {
		fmt.Fprintf(&b, "problem: %s\n", textsafe.Text(p))
	}
	if approval > 0 {
		fmt.Fprintf(&b, "%s of the project's own config files not launched: their client has no approval of them (each hint says how to give it); trust_project: true launches them, on the user's explicit word only\n", num.Count(approval, "server"))
	}
	if notCached > 0 && !launched {
		fmt.Fprintf(&b, "%s not in the cache: call again with launch: true to measure them\n", num.Count(notCached, "server"))
	} else if out.Partial {
		b.WriteString("partial: some servers could not be measured; totals are lower bounds\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
