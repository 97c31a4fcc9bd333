package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/num"
)

// legacyProtocolVersion is what the SDK falls back to after server/discover,
// and what a relaunch uses when a server never answers server/discover.
const legacyProtocolVersion = "2025-11-25"

// modernProtocolVersion is the era of server/discover.
const modernProtocolVersion = "2026-07-28"

// supportedProtocolVersions are the versions the SDK speaks.
var supportedProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// link is one connection to a server, below the SDK: the transport to hand
// to Client.Connect, the recorder tapping its bytes, and what the transport
// knows about a failure (the process's exit, the HTTP status).
type link struct {
	kind      string // "stdio", "http", "sse"
	transport mcp.Transport
	rec       *recorder
	// diagnose classifies a failed call from transport signals, or returns
	// nil when the transport saw nothing wrong. what names the call.
	diagnose func(what string, err error) *failure
}

// sessionOutcome is what one session gave. discoverUnanswered is set with
// a failure when the server hung up on server/discover (a legacy server
// that chokes on requests it does not know): the caller relaunches with
// the legacy handshake. lateDiscover is set with a failure when the server
// answered server/discover only after the session had gone on with
// initialize: the caller relaunches speaking 2026-07-28 alone.
type sessionOutcome struct {
	capture            *Capture
	fail               *failure
	discoverUnanswered bool
	lateDiscover       bool
	closed             <-chan struct{} // closed when the SDK session has closed; nil if none
}

// waitClosed waits up to d for the SDK session to finish closing.
func (s sessionOutcome) waitClosed(d time.Duration) {
	if s.closed == nil {
		return
	}
	select {
	case <-s.closed:
	case <-time.After(d):
	}
}

// closeWait bounds the wait for the SDK session to finish closing once the
// transport underneath has been torn down (which unblocks it), in case a
// transport cannot be unblocked.
const closeWait = 10 * time.Second

// boundedTransport runs the wrapped transport's Connect under the
// measurement context (the connection must outlive the handshake's
// context), so that the connection ends when the budget does.
type boundedTransport struct {
	inner  mcp.Transport
	ctx    context.Context
	cancel context.CancelFunc
}

func (b *boundedTransport) Connect(context.Context) (mcp.Connection, error) {
	ctx, cancel := context.WithCancel(b.ctx)
	b.cancel = cancel
	return b.inner.Connect(ctx)
}

func (b *boundedTransport) close() {
	if b.cancel != nil {
		b.cancel()
	}
}

// refuseClientFeatures answers the server-to-client requests a measuring
// client does not offer with method-not-found. ping is left to the SDK.
func refuseClientFeatures(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "roots/list", "sampling/createMessage", "elicitation/create":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
		}
		return next(ctx, method, req)
	}
}

// runSession connects over l, captures everything that costs context, and
// closes the session. ctx is the measurement context (its deadline is the
// budget of the whole measurement).
func runSession(ctx context.Context, l link, o Options, protocolVersion string) sessionOutcome {
	start := time.Now()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcost", Version: o.ClientVersion}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	client.AddReceivingMiddleware(refuseClientFeatures)
	bt := &boundedTransport{inner: l.transport, ctx: ctx}
	defer bt.close()

	s := &session{ctx: ctx, l: l, o: o}
	cs, err := client.Connect(ctx, bt, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		f := s.classify(err, "the handshake")
		// A legacy server that exits or hangs up on a request it does not
		// know, before initialize, is still a server a legacy client can
		// use: the caller relaunches it with the initialize handshake.
		unanswered := protocolVersion == "" && ctx.Err() == nil && l.rec.failure() == nil && l.rec.awaiting("server/discover") && l.rec.count("server/discover") == 0 &&
			(f.status == StatusStartupFailure || f.status == StatusProtocolError)
		late := l.rec.discoverInjected() && l.rec.last("server/discover") != nil
		return sessionOutcome{fail: f, discoverUnanswered: unanswered, lateDiscover: late}
	}
	// Closing waits for the SDK's in-flight handlers, which may be blocked
	// writing to a server that stopped reading: it runs in the background
	// while the caller stops the server (a stdio server's stop closes its
	// stdin, which unblocks them) or gives the session the kill grace to
	// close before it tears the transport down, and then waits for it.
	closed := make(chan struct{})
	defer func() {
		go func() {
			cs.Close()
			close(closed)
		}()
	}()
	out := s.capture(cs, start)
	out.closed = closed
	if out.fail != nil {
		out.lateDiscover = l.rec.discoverInjected() && l.rec.last("server/discover") != nil
	} else if l.rec.discoverInjected() {
		out.capture.Warnings = append(out.capture.Warnings, fmt.Sprintf("the server did not answer server/discover within %s; measured with the initialize handshake", num.Setting(o.Timeout/DiscoverShare)))
	}
	return out
}

// capture lists everything over a connected session.
func (s *session) capture(cs *mcp.ClientSession, start time.Time) sessionOutcome {
	l, o := s.l, s.o
	c := &Capture{Transport: l.kind}
	init := cs.InitializeResult()
	c.ProtocolVersion = init.ProtocolVersion
	method := "initialize"
	if c.ProtocolVersion >= "2026-07-28" {
		method = "server/discover"
	}
	c.Initialize = l.rec.last(method)
	if c.Initialize == nil {
		return sessionOutcome{fail: failf(StatusProtocolError, "the %s result was not seen on the wire", method)}
	}
	caps, f := readInitialize(c)
	if f != nil {
		return sessionOutcome{fail: f}
	}

	// tools/list is asked of every server, as the published methodology
	// does; it may fail only for a server that declares no tools.
	pages, f := s.list("tools/list", "tools", func(ctx context.Context, cursor string) error {
		_, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		return err
	}, caps["tools"])
	if f != nil {
		return sessionOutcome{fail: f}
	}
	c.ToolsPages = pages
	if f := checkTools(pages, o.MaxTools); f != nil {
		return sessionOutcome{fail: f}
	}
	if o.Relist && pages != nil {
		again, f := s.list("tools/list", "tools", func(ctx context.Context, cursor string) error {
			_, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			return err
		}, true)
		if f == nil {
			f = checkTools(again, o.MaxTools)
		}
		if f != nil {
			second := *f
			second.detail = "second tools/list of the session: " + f.detail
			return sessionOutcome{fail: &second}
		}
		c.RelistPages = again
	}

	if caps["prompts"] {
		c.PromptsPages, f = s.list("prompts/list", "prompts", func(ctx context.Context, cursor string) error {
			_, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			return err
		}, false)
		if f != nil {
			return sessionOutcome{fail: f}
		}
	}
	if caps["resources"] {
		c.ResourcesPages, f = s.list("resources/list", "resources", func(ctx context.Context, cursor string) error {
			_, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			return err
		}, false)
		if f != nil {
			return sessionOutcome{fail: f}
		}
		c.ResourceTemplatesPages, f = s.list("resources/templates/list", "resourceTemplates", func(ctx context.Context, cursor string) error {
			_, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			return err
		}, false)
		if f != nil {
			return sessionOutcome{fail: f}
		}
	}
	if f := l.rec.failure(); f != nil {
		return sessionOutcome{fail: f}
	}
	c.Warnings = append(append(c.Warnings, s.warnings...), l.rec.warnings()...)
	c.SkippedStdoutLines = l.rec.skippedLines()
	c.Elapsed = time.Since(start)
	return sessionOutcome{capture: c}
}

type session struct {
	ctx      context.Context
	l        link
	o        Options
	warnings []string
}

// list pages through method until nextCursor is absent, returning the raw
// result of each page. A required list fails the capture on any error; an
// optional one (prompts, resources) turns a JSON-RPC error, a malformed
// page or a request timeout into a warning and returns nil pages.
func (s *session) list(method, key string, call func(ctx context.Context, cursor string) error, required bool) ([]json.RawMessage, *failure) {
	var pages []json.RawMessage
	seen := map[string]bool{}
	cursor := ""
	soft := func(f *failure) ([]json.RawMessage, *failure) {
		if required {
			return nil, f
		}
		s.warnings = append(s.warnings, fmt.Sprintf("%s not counted: %s", key, f.detail))
		return nil, nil
	}
	for page := 1; ; page++ {
		if page > s.o.MaxPages {
			return soft(failf(StatusProtocolError, "%s returned more than %d pages", method, s.o.MaxPages))
		}
		what := method
		if page > 1 {
			what = fmt.Sprintf("%s page %d", method, page)
		}
		n := s.l.rec.count(method)
		// An optional list may take a share of the budget, not all of it.
		rctx, cancel := s.ctx, context.CancelFunc(func() {})
		if !required {
			rctx, cancel = context.WithTimeout(s.ctx, s.o.Timeout/DiscoverShare)
		}
		err := call(rctx, cursor)
		cancel()
		resp, ok := s.l.rec.since(method, n)
		if !ok {
			if f := s.l.rec.failure(); f != nil {
				return nil, f
			}
			if err == nil {
				return nil, failf(StatusProtocolError, "the %s result was not seen on the wire", what)
			}
			if s.ctx.Err() == nil && rctx.Err() != nil {
				return soft(failf(StatusTimeout, "no answer to %s within %s", what, num.Setting(s.o.Timeout/DiscoverShare)))
			}
			return nil, s.classify(err, what)
		}
		if resp.Err != nil {
			return soft(failf(StatusProtocolError, "%s: the server answered with JSON-RPC error %d (%s)", what, resp.Err.Code, clip(resp.Err.Message, 200)))
		}
		next, f := parsePage(resp.Result, key, what)
		if f != nil {
			return soft(f)
		}
		pages = append(pages, resp.Result)
		if next == "" {
			return pages, nil
		}
		if seen[next] {
			return soft(failf(StatusProtocolError, "%s returned a cursor it had already returned (pagination loop)", what))
		}
		seen[next] = true
		cursor = next
	}
}

// parsePage checks that a page is an object whose key is an array, and
// returns its nextCursor ("" when absent, null or empty).
func parsePage(raw json.RawMessage, key, what string) (string, *failure) {
	var page map[string]json.RawMessage
	if err := json.Unmarshal(raw, &page); err != nil {
		return "", failf(StatusProtocolError, "%s: the result is not a JSON object", what)
	}
	items, ok := page[key]
	if !ok {
		return "", failf(StatusProtocolError, "%s: the result has no %q array", what, key)
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(items, &arr); err != nil || string(items) == "null" {
		return "", failf(StatusProtocolError, "%s: %q is not an array", what, key)
	}
	nc, ok := page["nextCursor"]
	if !ok || string(nc) == "null" {
		return "", nil
	}
	var cursor string
	if err := json.Unmarshal(nc, &cursor); err != nil {
		return "", failf(StatusProtocolError, "%s: nextCursor is not a string", what)
	}
	return cursor, nil
}

// checkTools enforces what every client relies on: each tool is an object
// with a non-empty string name, names are unique, and there are not absurdly
// many.
func checkTools(pages []json.RawMessage, maxTools int) *failure {
	seen := map[string]int{}
	n := 0
	for _, p := range pages {
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(p, &page)
		for _, raw := range page.Tools {
			n++
			if n > maxTools {
				return failf(StatusProtocolError, "tools/list returned more than %d tools", maxTools)
			}
			var tool struct {
				Name *string `json:"name"`
			}
			if err := json.Unmarshal(raw, &tool); err != nil {
				return failf(StatusProtocolError, "tools/list: tool %d is not a JSON object", n)
			}
			if tool.Name == nil || *tool.Name == "" {
				return failf(StatusProtocolError, "tools/list: tool %d has no name", n)
			}
			if first, dup := seen[*tool.Name]; dup {
				return failf(StatusProtocolError, "tools/list: tools %d and %d are both named %q", first, n, clip(*tool.Name, 128))
			}
			seen[*tool.Name] = n
		}
	}
	return nil
}

// readInitialize fills the server fields of c from its raw initialize (or
// discover) result and returns which list capabilities the server declared.
func readInitialize(c *Capture) (map[string]bool, *failure) {
	var r struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
		Instructions json.RawMessage            `json:"instructions"`
		Meta         map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(c.Initialize, &r); err != nil {
		return nil, failf(StatusProtocolError, "the initialize result is not a JSON object")
	}
	info := r.ServerInfo
	if info == nil && r.Meta != nil {
		if raw, ok := r.Meta[mcp.MetaKeyServerInfo]; ok {
			_ = json.Unmarshal(raw, &info)
		}
	}
	if info != nil {
		c.ServerName, c.ServerVersion = info.Name, info.Version
	}
	if len(r.Instructions) > 0 && string(r.Instructions) != "null" {
		var s string
		if err := json.Unmarshal(r.Instructions, &s); err == nil {
			c.Instructions = &s
		} else {
			c.Warnings = append(c.Warnings, "instructions is not a string; ignored")
		}
	}
	caps := map[string]bool{}
	for k, v := range r.Capabilities {
		caps[k] = string(v) != "null"
	}
	return caps, nil
}

// classify turns a failed SDK call into a failure, from structured signals
// only, in this order: what the transport tap saw (oversized messages,
// floods), what the transport knows (exit status, HTTP status), the
// measurement's budget and the caller's context, JSON-RPC errors, and
// finally a closed connection.
func (s *session) classify(err error, what string) *failure {
	if f := s.l.rec.failure(); f != nil {
		return f
	}
	if f := s.l.diagnose(what, err); f != nil {
		return f
	}
	if s.ctx.Err() != nil {
		switch {
		case context.Cause(s.ctx) == errMeasureBudget:
			return failf(StatusTimeout, "no answer to %s within the %s budget of the measurement", what, num.Setting(s.o.Timeout))
		case errors.Is(s.ctx.Err(), context.Canceled):
			return failf(StatusCancelled, "cancelled while waiting for %s", what)
		default:
			return failf(StatusTimeout, "the caller's deadline passed while waiting for %s", what)
		}
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		if werr.Code == mcp.CodeUnsupportedProtocolVersion {
			return failf(StatusProtocolError, "%s: the server supports none of the protocol versions mcpcost speaks (JSON-RPC error %d)", what, werr.Code)
		}
		return failf(StatusProtocolError, "%s: the server answered with JSON-RPC error %d (%s)", what, werr.Code, clip(werr.Message, 200))
	}
	for _, method := range []string{"initialize", "server/discover"} {
		if raw := s.l.rec.last(method); raw != nil {
			if f := checkInitialize(method, raw); f != nil {
				return f
			}
		}
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		return failf(StatusProtocolError, "the connection closed while waiting for %s", what)
	}
	return failf(StatusProtocolError, "%s failed: %s", what, clip(err.Error(), 300))
}

// checkInitialize names what is wrong with a raw initialize (or discover)
// result that the SDK refused: a field of the wrong JSON type, or a
// protocol version nobody speaks. It returns nil when it finds nothing.
func checkInitialize(method string, raw json.RawMessage) *failure {
	var r map[string]json.RawMessage
	if err := json.Unmarshal(raw, &r); err != nil {
		return failf(StatusProtocolError, "the %s result is not a JSON object", method)
	}
	want := map[string]byte{"protocolVersion": '"', "instructions": '"', "serverInfo": '{', "capabilities": '{', "supportedVersions": '['}
	for _, field := range sortedKeys(want) {
		v, ok := r[field]
		if !ok || len(v) == 0 || string(v) == "null" {
			continue
		}
		if v[0] != want[field] {
			return failf(StatusProtocolError, "the %s result is malformed: %s is %s, not %s", method, field, jsonKind(v), jsonKind([]byte{want[field]}))
		}
	}
	if method == "initialize" {
		var pv string
		if json.Unmarshal(r["protocolVersion"], &pv) == nil && !slices.Contains(supportedProtocolVersions, pv) {
			return failf(StatusProtocolError, "the server answered initialize with protocol version %q, which mcpcost does not speak", clip(pv, 40))
		}
	}
	return nil
}

// jsonKind names the type of a JSON value from its first byte.
func jsonKind(v []byte) string {
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
