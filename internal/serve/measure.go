package serve

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// MeasureSchema versions measure_server's structured result.
const MeasureSchema = "mcpcost.serve.measure/v1"

type measureIn struct {
	Command string            `json:"command,omitempty" jsonschema:"stdio server command"`
	Args    []string          `json:"args,omitempty"`
	URL     string            `json:"url,omitempty" jsonschema:"or a Streamable HTTP/SSE URL"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"values never echoed"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"values never echoed"`
}

func (in measureIn) subject() string {
	return "server " + textsafe.Clip(app.Target{Command: in.Command, Args: in.Args, Env: in.Env, URL: in.URL, Headers: in.Headers}.Display(), maxShownLaunch)
}

// MeasureResult is measure_server's structured result.
type MeasureResult struct {
	Schema string `json:"schema"`
	Server string `json:"server"`
	// Launch is the command line or URL with secrets redacted.
	Launch string `json:"launch"`
	// Status is measured, dynamic (the two captures differed) or a
	// failure class.
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Tokens counts the canonical JSON of the tools array (o200k_base,
	// methodology 1.0).
	Tokens             int    `json:"tokens"`
	ToolCount          int    `json:"toolCount"`
	InstructionsTokens int    `json:"instructionsTokens"`
	SessionStartTokens int    `json:"sessionStartTokens"`
	CanonicalSha256    string `json:"canonicalSha256"`
	// Tools, heaviest first: the maxTools heaviest at most; MoreTools
	// counts the rest (a server can list 100,000 tools). Tokens and
	// ToolCount are of every tool.
	Tools     []MeasuredTool `json:"tools"`
	MoreTools int            `json:"moreTools,omitempty"`
}

// maxTools is the most tools measure_server's structured result lists.
const maxTools = 50

// MeasuredTool is one tool's own count.
type MeasuredTool struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

func (s *server) addMeasure(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{
		Name:         toolMeasure,
		Description:  "Launch one MCP server (command+args) or connect to a URL, and count the tokens of its tool definitions, per tool.",
		OutputSchema: outputSchema[MeasureResult](),
		Annotations:  launches,
	}, s.measureServer)
}

func (s *server) measureServer(ctx context.Context, req *mcp.CallToolRequest, in measureIn) (*mcp.CallToolResult, *MeasureResult, error) {
	if s.o.NoLaunch {
		return nil, nil, errNoLaunch("measure_server")
	}
	t := app.Target{Command: in.Command, Args: in.Args, Env: in.Env, URL: in.URL, Headers: in.Headers}
	switch {
	case in.Command == "" && in.URL == "":
		return nil, nil, fmt.Errorf("give a command (with args) or a url")
	case in.Command != "" && in.URL != "":
		return nil, nil, fmt.Errorf("give a command or a url, not both")
	case in.Command != "" && len(in.Headers) > 0:
		return nil, nil, fmt.Errorf("headers are for a url; a command gets its secrets in env")
	case in.URL != "" && (len(in.Env) > 0 || len(in.Args) > 0):
		return nil, nil, fmt.Errorf("env and args are for a command; a url gets its secrets in headers")
	}
	if in.URL != "" {
		u, err := url.Parse(in.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, nil, fmt.Errorf("%s is not an http(s) URL", textsafe.Short(redact.URL(in.URL)))
		}
	}
	for name := range in.Headers {
		if name == "" || strings.ContainsAny(name, " :\r\n") {
			return nil, nil, fmt.Errorf("a header name may not be empty or hold spaces, colons or line breaks")
		}
	}
	// A launch of megabytes is named by its start, in progress and result.
	display := textsafe.Clip(t.Display(), maxShownLaunch)
	p := newProgress(ctx, req, 2)
	p.step("measuring " + display)
	// Measure scrubs what the server said (its name, detail, stderr).
	live := s.m.Measure(ctx, t, app.MeasureOptions{Timeout: s.o.Timeout})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	p.step("measured " + display)
	// The server's own strings are cut in the text and the structured
	// result alike (see bound.go): a server can send a name of a megabyte.
	server := live.ServerName
	if server == "" {
		server = defaultName(t)
	}
	out := &MeasureResult{Schema: MeasureSchema, Server: name(server), Launch: display, Status: string(live.Status),
		Detail: prose(live.Detail), Tools: []MeasuredTool{}}
	if live.Result == nil {
		msg := fmt.Sprintf("%s: %s: %s", textsafe.Short(out.Server), out.Status, textsafe.Clip(out.Detail, maxShownLaunch))
		if tail := strings.TrimSpace(live.StderrTail); tail != "" {
			lines := lastLines(tail, 8)
			for i, l := range lines {
				lines[i] = textsafe.Text(l)
			}
			msg += "\nthe server's stderr ended with:\n" + strings.Join(lines, "\n")
		}
		return nil, nil, fmt.Errorf("%s", msg)
	}
	r := live.Result
	out.Tokens, out.ToolCount, out.CanonicalSha256 = r.TotalTokens, r.ToolCount, r.CanonicalSha256
	if live.Extras != nil {
		out.InstructionsTokens = live.Extras.InstructionsTokens
		out.SessionStartTokens = live.Extras.SessionStartTokens
	}
	heaviest := r.Heaviest()
	if len(heaviest) > maxTools {
		heaviest, out.MoreTools = heaviest[:maxTools], len(heaviest)-maxTools
	}
	for _, i := range heaviest {
		out.Tools = append(out.Tools, MeasuredTool{Name: name(r.Tools[i].Name), Tokens: r.Tools[i].Tokens})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s tokens in %s (o200k_base, methodology %s)", textsafe.Text(out.Server), render.Int(out.Tokens), num.Count(out.ToolCount, "tool"), measure.MethodologyVersion)
	if live.Status.Dynamic() {
		fmt.Fprintf(&b, "; %s: %s", out.Status, textsafe.Text(out.Detail))
	}
	for i, tool := range out.Tools {
		if i == 10 {
			fmt.Fprintf(&b, "\n  ... %d more", len(out.Tools)+out.MoreTools-10)
			break
		}
		fmt.Fprintf(&b, "\n  %s %s", textsafe.Text(tool.Name), render.Int(tool.Tokens))
	}
	return textResult(b.String()), out, nil
}

// defaultName names a target without a server name: the URL's host, or the
// command's base name.
// maxShownLaunch is the most of a launch, or of a failure's detail, in
// runes, that a result or an error repeats.
const maxShownLaunch = 200

func defaultName(t app.Target) string {
	if t.URL != "" {
		if u, err := url.Parse(t.URL); err == nil && u.Hostname() != "" {
			return u.Hostname()
		}
		return "remote"
	}
	name := t.Command
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func lastLines(s string, n int) []string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
