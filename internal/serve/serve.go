// Package serve is mcpcost as an MCP server, so that an agent can budget its
// own context: it audits the MCP configs of this machine (audit_config),
// measures one server (measure_server), reports what past sessions cost
// (usage_summary, recent_sessions), Claude Code's billing blocks (blocks),
// what one session's tool results put into its context (session_tools)
// and what to change (findings).
//
// Every tool has an input schema, a structured result with an output schema
// and a short text rendering. The definitions themselves are kept small (a
// tool about context cost must not be a heavy one); a test holds them to a
// stated budget.
//
// Bad input from the client (an unknown tool, arguments of the wrong type, a
// path that does not exist, a server that fails) is answered with a tool
// error naming what was wrong; the server keeps running. Values of env and
// headers given to measure_server are used to launch and connect and never
// appear in a result.
//
// The usage store is read lazily: the first call to a usage tool reads what
// is new in the transcripts, in the background and under the store's lock,
// so the handshake never waits for it.
package serve

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// Name is the server's name in the initialize result.
const Name = "mcpcost"

// Options configure the server. The zero value serves the real machine.
type Options struct {
	// Version is the server's version in the initialize result.
	Version string
	// Getenv reads the environment (HOME, XDG folders, client variables);
	// nil for os.Getenv.
	Getenv func(string) string
	// Project is the project folder whose project configs audit_config
	// reads; "" for the current folder.
	Project string
	// Now is the clock; nil for time.Now.
	Now func() time.Time

	// CacheDir is the measurement cache; "" for audit.DefaultCacheDir.
	CacheDir string
	// MaxAge is how long a cached measurement is used; 0 for
	// audit.DefaultMaxAge.
	MaxAge time.Duration
	// Timeout bounds each request to a measured server; 0 for
	// app.DefaultTimeout.
	Timeout time.Duration

	// DBPath is the usage store. Empty: the usage tools answer with an
	// error saying there is none.
	DBPath string
	// Store names a shared store (app.Machine.Store): what is read into
	// the usage store is pushed there, and the usage tools answer from
	// it; "" for MCPCOST_STORE, else the local store alone. MachineName
	// and RedactProjects are as app.Machine's.
	Store          string
	MachineName    string
	RedactProjects bool
	// ClaudeRoots and CodexRoots are the transcript folders read into the
	// store.
	ClaudeRoots, CodexRoots []string
	// CopilotRoots are GitHub Copilot CLI's session-state folders.
	CopilotRoots []string
	// GooseRoots are Goose's sessions folders (sessions.db).
	GooseRoots []string
	// GeminiRoots and OpencodeRoots are the Gemini CLI and opencode folders
	// read into the store.
	GeminiRoots, OpencodeRoots []string
	// IngestInterval is the least time between two reads of the
	// transcripts; 0 for 30 seconds.
	IngestInterval time.Duration
	// IngestWait is how long a usage tool waits for a read in progress
	// before answering from the store as it stands (marked partial); 0 for
	// 25 seconds.
	IngestWait time.Duration
	// Location buckets days; nil for time.Local.
	Location *time.Location

	// NoLaunch refuses the tools that launch programs or connect to URLs
	// (measure_server, and audit_config and findings with launch); they
	// then work from the measurement cache only. [Handler] sets it unless
	// the operator allows launching.
	NoLaunch bool
	// Remote says the callers are not the serving user ([Handler] sets
	// it): audit_config tells them nothing about a path they name beyond
	// that it is no config, or the position of its parse error, and a
	// project they name is looked up among the usage store's projects
	// alone, never on the disk.
	Remote bool
}

func (o *Options) defaults() {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxAge <= 0 {
		o.MaxAge = audit.DefaultMaxAge
	}
	if o.Timeout <= 0 {
		o.Timeout = app.DefaultTimeout
	}
	if o.IngestInterval <= 0 {
		o.IngestInterval = 30 * time.Second
	}
	if o.IngestWait <= 0 {
		o.IngestWait = 25 * time.Second
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}

// machine is mcpcost on this machine as the server sees it: options are
// tool arguments, spelled without "--".
func (o *Options) machine() *app.Machine {
	return &app.Machine{Version: o.Version, Getenv: o.Getenv, Now: o.Now, CacheDir: o.CacheDir, DBPath: o.DBPath,
		Store: o.Store, MachineName: o.MachineName, RedactProjects: o.RedactProjects}
}

// instructions are sent with the initialize result; they are counted in
// what a client loads, so they stay one sentence.
const instructions = "Measures what MCP servers cost in context (o200k_base tokens) and what past agent sessions and their tool results cost."

// server holds what the handlers share.
type server struct {
	o     Options
	m     *app.Machine
	usage *lazyStore
}

// New returns the MCP server with every tool registered.
func New(o Options) *mcp.Server {
	o.defaults()
	s := &server{o: o, m: o.machine(), usage: newLazyStore(o)}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "mcpcost", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// Tools only: no logging capability to advertise.
		Capabilities: &mcp.ServerCapabilities{},
	})
	s.addAudit(srv)
	s.addMeasure(srv)
	s.addUsage(srv)
	s.addBlocks(srv)
	s.addFindings(srv)
	s.addPrompts(srv)
	srv.AddReceivingMiddleware(recoverPanics, escapeText, plainNumbers, unknownToolAsToolError, newCallLimit().middleware)
	return srv
}

// unknownToolAsToolError answers a call of a tool this server does not have
// with a tool error listing those it has, so that the model reading it can
// correct the call.
func unknownToolAsToolError(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil || method != "tools/call" {
			return res, err
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil || toolNames[call.Params.Name] {
			return res, err
		}
		return errorResult(fmt.Errorf("unknown tool %s; this server has %s", textsafe.Quote(call.Params.Name), strings.Join(sortedToolNames(), ", "))), nil
	}
}

// toolNames are the tools New registers.
var toolNames = map[string]bool{
	toolAudit: true, toolMeasure: true, toolUsage: true, toolSession: true, toolRecent: true, toolFindings: true, toolBlocks: true,
}

// The tools' names.
const (
	toolAudit    = "audit_config"
	toolMeasure  = "measure_server"
	toolUsage    = "usage_summary"
	toolSession  = "session_tools"
	toolRecent   = "recent_sessions"
	toolFindings = "findings"
	toolBlocks   = "blocks"
)

func sortedToolNames() []string {
	out := make([]string, 0, len(toolNames))
	for n := range toolNames {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func errorResult(err error) *mcp.CallToolResult {
	r := &mcp.CallToolResult{}
	r.SetError(err)
	return r
}

// escapeText is the last guard on what a client reads as text: the text
// content of every tool result (errors included, and those the SDK words)
// is escaped with textsafe.Lines, so that no control character, bidi
// override or line separator a server, a config or a transcript chose
// reaches the client raw. One-line fields are escaped with textsafe.Text
// where the text is written, so that they cannot start a line either. The
// structured content stays exact.
func escapeText(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
			for _, c := range r.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					t.Text = textsafe.Lines(t.Text)
				}
			}
		}
		return res, err
	}
}

// textResult is the short text rendering of a structured result.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// outputSchema is the schema inferred from T, made compact: it is part of
// the definitions every client loads. Objects do not repeat
// "additionalProperties": false, and lists, which are never null in a
// result, are plain arrays.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("serve: output schema of %T: %v", *new(T), err))
	}
	compactSchema(s)
	return s
}

func compactSchema(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
		s.Type, s.Types = "array", nil
	}
	for _, p := range s.Properties {
		compactSchema(p)
	}
	compactSchema(s.Items)
}

// readOnly marks a tool that changes nothing.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true}

// launches marks a tool that may launch programs or connect to URLs the
// caller names: not read-only, and open to the world.
var launches = &mcp.ToolAnnotations{OpenWorldHint: ptr(true)}

// errNoLaunch is the answer of a tool asked to launch where launching is
// not allowed.
func errNoLaunch(what string) error {
	return fmt.Errorf("%s launches programs or connects to URLs, which this server does not do for its callers over HTTP; its operator allows it with 'mcpcost serve --http ADDR --allow-launch'", what)
}
