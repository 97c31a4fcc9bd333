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
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// AuditSchema versions audit_config's structured result.
const AuditSchema = "mcpcost.serve.audit/v1"

// An answer of audit_config lists at most maxConfigs configs, heaviest
// first (the audit's order), maxServers servers of a config or a session,
// in their order, maxEntries servers in all, sessions first, and
// maxProblems problems; moreConfigs, moreServers and moreProblems count
// the rest, and the totals are of everything. A cloned repository's
// .continue/mcpServers can hold 40,000 files, and the answer goes into a
// model's context; a machine's tens of configs and hundreds of servers
// are listed whole.
const (
	maxConfigs  = 100
	maxServers  = 200
	maxEntries  = 1_000
	maxProblems = 20
)

// allOf is what the text says of a list it cuts.
const allOf = "run `mcpcost audit` in a terminal for all"

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
	// Configs, heaviest first: maxConfigs at most; MoreConfigs counts the
	// rest.
	Configs     []AuditConfig `json:"configs"`
	MoreConfigs int           `json:"moreConfigs,omitempty"`
	// Problems name config files that could not be read: maxProblems at
	// most; MoreProblems counts the rest.
	Problems     []string `json:"problems"`
	MoreProblems int      `json:"moreProblems,omitempty"`
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
	// MoreServers counts the servers not listed (see maxServers); Tokens
	// is of every one.
	MoreServers int `json:"moreServers,omitempty"`
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
	MoreServers   int             `json:"moreServers,omitempty"`
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
	problems := rep.Problems
	if len(problems) > maxProblems {
		problems, out.MoreProblems = problems[:maxProblems], len(problems)-maxProblems
	}
	for _, p := range problems {
		out.Problems = append(out.Problems, prose(p.Error))
	}
	left := maxEntries // servers the answer may still list
	listed := func(servers []audit.Server) ([]audit.Server, int) {
		n := min(len(servers), maxServers, left)
		left -= n
		return servers[:n], len(servers) - n
	}
	for _, s := range rep.Sessions {
		as := AuditSession{Client: s.Client, Path: name(s.Path), Tokens: s.TotalTokens, UpFrontTokens: s.UpFrontTokens, Servers: []SessionServer{}}
		servers, more := listed(s.Servers)
		as.MoreServers = more
		for _, sv := range servers {
			as.Servers = append(as.Servers, SessionServer{Name: name(sv.Name), Scope: sv.Scope, Status: sv.Status, Tokens: sv.Tokens})
		}
		out.Sessions = append(out.Sessions, as)
	}
	configs := rep.Configs
	if len(configs) > maxConfigs {
		configs, out.MoreConfigs = configs[:maxConfigs], len(configs)-maxConfigs
	}
	for _, c := range configs {
		servers, more := listed(c.Servers)
		ac := auditConfigOf(c, servers)
		ac.MoreServers = more
		out.Configs = append(out.Configs, ac)
	}
	return out
}

// auditConfigOf is c with the servers listed.
func auditConfigOf(c audit.Config, servers []audit.Server) AuditConfig {
	ac := AuditConfig{Client: c.Client, Path: name(c.Path), Scope: c.Scope, Tokens: c.TotalTokens, UpFrontTokens: c.UpFrontTokens,
		ContextShare: c.ContextShare, Servers: []AuditServer{}, Heaviest: []string{}}
	for _, sv := range servers {
		detail, hint := sv.Detail, sv.Hint
		if sv.Status == string(status.NotCached) {
			// The caller has no --offline flag: a call without launch is
			// what left the server unmeasured.
			detail = strings.TrimPrefix(detail, "--offline: ")
			hint = "call " + toolAudit + " again with launch: true to measure it"
		}
		ac.Servers = append(ac.Servers, AuditServer{Name: name(sv.Name), Status: sv.Status, Tokens: sv.Tokens, Tools: sv.ToolCount, Detail: prose(detail), Hint: prose(hint)})
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
			fmt.Fprintf(&b, " (%s %s)", num.Count(len(rep.EmptyConfigs), "config"), num.Plural(len(rep.EmptyConfigs), "declares none", "declare none"))
		}
		b.WriteString("\n")
	}
	// What is to measure or approve is counted over every server, listed
	// or not: the sessions', else the configs'.
	notCached, approval := 0, 0
	counted := rep.Configs
	if len(rep.Sessions) > 0 {
		counted = nil
		for _, s := range rep.Sessions {
			counted = append(counted, s.Config)
		}
	}
	for _, c := range counted {
		for _, sv := range c.Servers {
			switch {
			case sv.Tokens != nil:
			case sv.Status == audit.StatusNotCached:
				notCached++
			case sv.Status == audit.StatusNeedsApproval:
				approval++
			}
		}
	}
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
			fmt.Fprintf(&b, "  %s (%s): %s\n", textsafe.Text(sv.Name), textsafe.Text(sv.Scope), sv.Status)
		}
		moreText(&b, "  ", c.MoreServers, "server")
	}
	for _, c := range out.Configs {
		if len(out.Sessions) > 0 {
			break // the files are the sessions' breakdown, in the structured result
		}
		who := clients.Title(c.Client)
		if c.Client == clients.Explicit {
			who = "given by path" // no client could be told from the file
		}
		fmt.Fprintf(&b, "%s (%s): %s tokens, %s of %s", textsafe.Text(c.Path), who, render.Int(c.Tokens), render.Percent(c.ContextShare), render.Int(out.ContextWindow))
		if c.UpFrontTokens != nil && *c.UpFrontTokens != c.Tokens {
			fmt.Fprintf(&b, "; %s loaded up front", render.Int(*c.UpFrontTokens))
		}
		b.WriteString("\n")
		for _, sv := range c.Servers {
			if sv.Tokens != nil {
				fmt.Fprintf(&b, "  %s: %s tokens, %s\n", textsafe.Text(sv.Name), render.Int(*sv.Tokens), num.Count(*sv.Tools, "tool"))
				continue
			}
			fmt.Fprintf(&b, "  %s: %s\n", textsafe.Text(sv.Name), sv.Status)
		}
		moreText(&b, "  ", c.MoreServers, "server")
		if len(c.Heaviest) > 0 {
			fmt.Fprintf(&b, "  heaviest: %s\n", textsafe.Text(strings.Join(c.Heaviest, ", ")))
		}
	}
	if len(out.Sessions) == 0 {
		moreText(&b, "", out.MoreConfigs, "config")
	} else if out.MoreConfigs > 0 {
		fmt.Fprintf(&b, "the structured result lists the %d heaviest of %s; %s\n", len(out.Configs), num.Count(len(out.Configs)+out.MoreConfigs, "config"), allOf)
	}
	for _, p := range out.Problems {
		fmt.Fprintf(&b, "problem: %s\n", textsafe.Text(p))
	}
	moreText(&b, "", out.MoreProblems, "problem")
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

// moreText says, on a line of its own, that n more of what was not listed.
func moreText(b *strings.Builder, indent string, n int, what string) {
	if n > 0 {
		fmt.Fprintf(b, "%s… and %s; %s\n", indent, num.Count(n, "more "+what), allOf)
	}
}
