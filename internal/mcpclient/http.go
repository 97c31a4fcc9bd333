package mcpclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/num"
)

// httpTap is the RoundTripper under the SDK's HTTP transports. It adds the
// target's headers (to the target's origin only: scheme, host and
// effective port), records every JSON-RPC message we POST, taps every
// successful response body (JSON or an SSE stream) for the raw messages,
// and notes each HTTP status for classification.
//
// A server/discover POST whose response has not begun after discoverWait
// is answered for the server (see discoverError), so that the SDK goes on
// with initialize.
type httpTap struct {
	base         http.RoundTripper
	rec          *recorder
	origin       string // of the target; see originOf
	headers      map[string]string
	max          int
	discoverWait time.Duration // 0: none
	// budget is the capture's context (the measurement's, ended also
	// when the capture is): every request ends with it,
	// whatever context it was sent with (the SDK sends some under a
	// context of its own, such as the notifications/cancelled of a call
	// the budget cut, which a server that never answers would otherwise
	// hold open for the SDK's own five seconds after the budget is spent).
	budget context.Context
	// hangUp ends the capture (its requests and the session's stream)
	// when the server floods it; answers counts the answers sent to the
	// server's own requests.
	hangUp  context.CancelCauseFunc
	answers atomic.Int64
}

// maxServerRequests is how many requests of its own a server may send
// during one capture (pings, sampling, roots), each answered with a POST:
// more ends the capture as a protocol error.
const maxServerRequests = 1000

// errServerFlood is the cause of the end of a capture whose server sent
// more than maxServerRequests requests of its own.
var errServerFlood = errors.New("the server sent too many requests of its own")

// isAnswer reports whether a JSON-RPC message sent to the server is a
// response (to a request of the server's): an id, a result or an error,
// and no method.
func isAnswer(body []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == nil && len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0)
}

func (h *httpTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if h.budget == nil {
		return h.send(req)
	}
	if err := context.Cause(h.budget); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	stop := context.AfterFunc(h.budget, func() { cancel(context.Cause(h.budget)) })
	release := func() { stop(); cancel(nil) }
	resp, err := h.send(req.WithContext(ctx))
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = cancelOnClose{resp.Body, release}
	return resp, nil
}

func (h *httpTap) send(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if originOf(r.URL) == h.origin {
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	if r.Body != nil && r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		method, id := h.rec.outgoing(body)
		if method == "" && isAnswer(body) {
			// Each answer to a request of the server's (a ping, a
			// sampling or roots request) is a POST of its own, on a
			// connection of its own: a server that floods requests
			// would use up the machine's ports to it within the budget.
			if n := h.answers.Add(1); n > maxServerRequests {
				f := failf(StatusProtocolError, "the server sent more than %d requests of its own (pings, sampling, roots) during the measurement; mcpcost answers at most %d", maxServerRequests, maxServerRequests)
				h.rec.fail(f)
				if h.hangUp != nil {
					h.hangUp(errServerFlood)
				}
				return nil, errServerFlood
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
		if method == "server/discover" && h.discoverWait > 0 {
			return h.discover(r, id)
		}
	}
	return h.roundTrip(r)
}

// discover sends a server/discover POST, answering it for the server when
// no response has begun within discoverWait.
func (h *httpTap) discover(r *http.Request, id json.RawMessage) (*http.Response, error) {
	ctx, cancel := context.WithCancel(r.Context())
	timer := time.AfterFunc(h.discoverWait, cancel)
	resp, err := h.roundTrip(r.WithContext(ctx))
	if !timer.Stop() && r.Context().Err() == nil && h.rec.injectFor(id) {
		if resp != nil {
			resp.Body.Close()
		}
		cancel()
		return &http.Response{
			Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:  http.Header{"Content-Type": {"application/json"}},
			Body:    io.NopCloser(bytes.NewReader(discoverError(id))),
			Request: r,
		}, nil
	}
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = cancelOnClose{resp.Body, cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

func (h *httpTap) roundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.base.RoundTrip(r)
	if err != nil {
		if r.Context().Err() == nil {
			h.rec.noteNetErr(err)
		}
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	h.rec.noteHTTP(httpExchange{Method: r.Method, Status: resp.StatusCode, WWWAuthenticate: resp.Header.Get("WWW-Authenticate"), ContentType: ct})
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// The SDK reads an error body whole, for a JSON-RPC error in it;
		// the status alone classifies the failure, so a body past the
		// limit is cut, not read on.
		resp.Body = limitedBody{io.LimitReader(resp.Body, maxErrorBody), resp.Body}
		return resp, nil
	}
	switch ct {
	case "application/json":
		resp.Body = &jsonBodyTap{rc: resp.Body, rec: h.rec, max: h.max}
	case "text/event-stream":
		resp.Body = &sseTap{rc: resp.Body, rec: h.rec, max: h.max}
	}
	return resp, nil
}

// maxErrorBody is how much of a response with an error status is read.
const maxErrorBody = 64 << 10

// limitedBody reads at most what its Reader allows of a body, and closes
// the body.
type limitedBody struct {
	io.Reader
	body io.Closer
}

func (b limitedBody) Close() error { return b.body.Close() }

// jsonBodyTap records a JSON response body once it has been read whole.
type jsonBodyTap struct {
	rc   io.ReadCloser
	rec  *recorder
	max  int
	buf  []byte
	done bool
}

func (t *jsonBodyTap) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if len(t.buf)+n > t.max {
		t.rec.fail(failf(StatusProtocolError, "a response body is larger than the %d-byte limit", t.max))
		return 0, errMessageTooLarge
	}
	t.buf = append(t.buf, p[:n]...)
	if err == io.EOF && !t.done {
		t.done = true
		// Checked before the SDK has the last bytes: it drops a message
		// that deep, and the recorder's own parser would read on deeper.
		if f := t.rec.checkDepth("a response body", t.buf); f != nil {
			return 0, errMessageTooLarge
		}
		t.rec.incoming(t.buf)
		if !utf8.Valid(t.buf) {
			t.rec.noteInvalidUTF8()
		}
	}
	return n, err
}

func (t *jsonBodyTap) Close() error { return t.rc.Close() }

// sseTap parses a server-sent event stream as it passes through and
// records the data of each message event (events named "message" or
// unnamed; the legacy "endpoint" event is not a message).
type sseTap struct {
	rc    io.ReadCloser
	rec   *recorder
	max   int
	line  []byte
	data  []byte
	event string
	has   bool // data seen for the current event
}

func (t *sseTap) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	for _, b := range p[:n] {
		if b != '\n' {
			t.line = append(t.line, b)
			if len(t.line) > t.max {
				t.rec.fail(failf(StatusProtocolError, "an event on the SSE stream is larger than the %d-byte limit", t.max))
				return 0, errMessageTooLarge
			}
			continue
		}
		if f := t.field(bytes.TrimSuffix(t.line, []byte("\r"))); f != nil {
			return 0, errMessageTooLarge
		}
		t.line = t.line[:0]
	}
	return n, err
}

func (t *sseTap) field(line []byte) *failure {
	if len(line) == 0 {
		if t.has && (t.event == "" || t.event == "message") {
			if f := t.rec.checkDepth("an event on the SSE stream", t.data); f != nil {
				return f
			}
			t.rec.incoming(t.data)
			if !utf8.Valid(t.data) {
				t.rec.noteInvalidUTF8()
			}
		}
		t.data, t.event, t.has = t.data[:0], "", false
		return nil
	}
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "data":
		if t.has {
			t.data = append(t.data, '\n')
		}
		t.data = append(t.data, value...)
		t.has = true
		if len(t.data) > t.max {
			f := failf(StatusProtocolError, "an event on the SSE stream is larger than the %d-byte limit", t.max)
			t.rec.fail(f)
			return f
		}
	case "event":
		t.event = string(value)
	}
	return nil
}

func (t *sseTap) Close() error { return t.rc.Close() }

// captureHTTP connects once over Streamable HTTP (kind "http") or the
// legacy HTTP+SSE transport (kind "sse") and captures the server.
// legacyOnly reports that the endpoint refused every POST with 400, 404 or
// 405 and answered none: a server that speaks only HTTP+SSE.
func captureHTTP(ctx context.Context, t Target, o Options, protocolVersion, kind string) (out sessionOutcome, legacyOnly bool) {
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return sessionOutcome{fail: failf(StatusStartupFailure, "not an http(s) URL: %s", redactURL(t.URL))}, false
	}
	rec := newRecorder(o.MaxCaptureBytes)
	// Every request carries the measurement's context: its deadline bounds
	// dialing, TLS, a trickle of headers, a slow body and an endless
	// stream alike.
	dialer := &net.Dialer{}
	base := &http.Transport{
		Proxy:             http.ProxyFromEnvironment,
		DialContext:       dialer.DialContext,
		DisableKeepAlives: true,
	}
	defer base.CloseIdleConnections()
	if testRootCAs != nil {
		base.TLSClientConfig = &tls.Config{RootCAs: testRootCAs}
	}
	// The capture's requests end with it: once the session has been
	// given the kill grace to close, whatever it still sends (the SDK's
	// DELETE of the session, under five seconds of its own, to a server
	// that never answers it) is cut, as a stdio server is killed.
	conn, hangUp := context.WithCancelCause(ctx)
	defer hangUp(nil)
	tap := &httpTap{base: base, rec: rec, origin: originOf(u), headers: t.Headers, max: o.MaxResponseBytes, budget: conn, hangUp: hangUp}
	if kind == "sse" && protocolVersion == "" {
		// The legacy HTTP+SSE transport predates server/discover.
		protocolVersion = legacyProtocolVersion
	}
	if protocolVersion == "" {
		tap.discoverWait = o.Timeout / DiscoverShare
	}
	hc := &http.Client{Transport: tap, CheckRedirect: func(next *http.Request, via []*http.Request) error {
		return checkRedirect(rec, t.URL, next, via)
	}}
	// The SDK's own event limit is set above ours, so that the tap, which
	// sees the bytes first, is the one to decide and name the limit.
	sdkMax := o.MaxResponseBytes + 64<<10
	var tr mcp.Transport
	if kind == "sse" {
		tr = &mcp.SSEClientTransport{Endpoint: t.URL, HTTPClient: hc, MaxEventSize: sdkMax}
	} else {
		tr = &mcp.StreamableClientTransport{Endpoint: t.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true, MaxEventSize: sdkMax}
	}
	l := link{
		kind:      kind,
		transport: tr,
		rec:       rec,
		diagnose: func(what string, err error) *failure {
			return diagnoseHTTP(ctx, rec, t, u, base, o.Timeout)
		},
	}
	out = runSession(ctx, l, o, protocolVersion)
	out.waitClosed(o.KillGrace)
	hangUp(errCaptureEnded)
	out.waitClosed(closeWait)
	if out.fail != nil && kind == "http" {
		legacyOnly = onlyLegacyRefusals(rec.exchanges())
	}
	return out, legacyOnly
}

// errCaptureEnded is the cause of the requests an HTTP capture still had
// open when it ended.
var errCaptureEnded = errors.New("the capture ended")

// testRootCAs, when set by a test, are the roots TLS certificates are
// verified against.
var testRootCAs *x509.CertPool

// originOf names a URL's origin: scheme, host name and effective port.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// checkRedirect follows a redirect only within the target's origin, and
// sends no Referer (it would carry the URL's query, secrets included). A
// redirect to another origin (another host, another port, or from https
// to http) is refused: the target's headers and query were given for its
// origin alone.
func checkRedirect(rec *recorder, target string, next *http.Request, via []*http.Request) error {
	next.Header.Del("Referer")
	if len(via) >= 10 {
		err := fmt.Errorf("%s redirected more than 10 times", redactURL(target))
		rec.fail(failf(StatusStartupFailure, "%v", err))
		return err
	}
	if from := originOf(via[0].URL); originOf(next.URL) != from {
		err := fmt.Errorf("%s redirected to another origin, %s; mcpcost follows redirects only within %s, so that the headers and the query given for it go nowhere else (measure the new URL if it is the server's)",
			redactURL(target), redactURL(next.URL.String()), from)
		rec.fail(failf(StatusStartupFailure, "%v", err))
		return err
	}
	return nil
}

// onlyLegacyRefusals reports whether no POST succeeded and at least one was
// refused with 400, 404 or 405: the fallback rule of the 2025 transports
// for reaching a 2024-11-05 HTTP+SSE server.
func onlyLegacyRefusals(xs []httpExchange) bool {
	refused := false
	for _, x := range xs {
		if x.Method != http.MethodPost {
			continue
		}
		switch {
		case x.Status >= 200 && x.Status < 300:
			return false
		case x.Status == 400 || x.Status == 404 || x.Status == 405:
			refused = true
		}
	}
	return refused
}

// diagnoseHTTP classifies a failure from the HTTP statuses and network
// errors the tap saw. A 401 whose WWW-Authenticate names resource metadata,
// or whose server publishes OAuth protected-resource metadata (RFC 9728),
// is a remote-auth-wall; any other 401 or a 403 is auth-required.
func diagnoseHTTP(ctx context.Context, rec *recorder, t Target, u *url.URL, base http.RoundTripper, timeout time.Duration) *failure {
	where := redactURL(t.URL)
	with := ""
	if len(t.Headers) > 0 {
		names := make([]string, 0, len(t.Headers))
		for k := range t.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
		with = " with the given headers (" + strings.Join(names, ", ") + ")"
	}
	xs := rec.exchanges()
	for _, x := range xs {
		switch x.Status {
		case http.StatusUnauthorized:
			scheme, _, _ := strings.Cut(strings.TrimSpace(x.WWWAuthenticate), " ")
			if hasAuthParam(x.WWWAuthenticate, "resource_metadata") {
				return failf(StatusRemoteAuthWall, "%s answered HTTP 401%s; it is OAuth-protected (WWW-Authenticate: %s with resource_metadata)", where, with, scheme)
			}
			if oauthMetadata(ctx, base, u, timeout) {
				return failf(StatusRemoteAuthWall, "%s answered HTTP 401%s; it is OAuth-protected (it publishes OAuth protected-resource metadata)", where, with)
			}
			if scheme != "" {
				return failf(StatusAuthRequired, "%s answered HTTP 401%s (WWW-Authenticate: %s)", where, with, scheme)
			}
			return failf(StatusAuthRequired, "%s answered HTTP 401%s", where, with)
		case http.StatusForbidden:
			return failf(StatusAuthRequired, "%s answered HTTP 403%s", where, with)
		}
	}
	for i := len(xs) - 1; i >= 0; i-- {
		x := xs[i]
		if x.Method == http.MethodDelete {
			continue // closing the session; not why it failed
		}
		if x.Status >= 200 && x.Status < 300 {
			break
		}
		if x.Status >= 500 {
			return failf(StatusStartupFailure, "%s answered %s %d %s", where, x.Method, x.Status, http.StatusText(x.Status))
		}
		if x.Status == http.StatusNotFound && postSucceeded(xs[:i]) {
			return failf(StatusProtocolError, "%s dropped the session mid-capture (HTTP 404 to a request in it)", where)
		}
		if x.Status >= 300 {
			return failf(StatusProtocolError, "%s answered %s with HTTP %d %s; no MCP endpoint there", where, x.Method, x.Status, http.StatusText(x.Status))
		}
	}
	if err := rec.networkError(); err != nil {
		return networkFailure(where, err, timeout)
	}
	return nil
}

func postSucceeded(xs []httpExchange) bool {
	for _, x := range xs {
		if x.Method == http.MethodPost && x.Status >= 200 && x.Status < 300 {
			return true
		}
	}
	return false
}

func networkFailure(where string, err error, timeout time.Duration) *failure {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	switch {
	case errors.As(err, &dnsErr):
		return failf(StatusStartupFailure, "cannot resolve the host of %s", where)
	case errors.As(err, &certErr):
		return failf(StatusStartupFailure, "%s: the TLS certificate does not verify", where)
	case errors.As(err, &recErr):
		return failf(StatusStartupFailure, "%s: the server does not speak TLS", where)
	case errors.As(err, &netErr) && netErr.Timeout():
		return failf(StatusTimeout, "%s: no response within %s", where, num.Setting(timeout))
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return failf(StatusStartupFailure, "cannot connect to %s (%v)", where, opErr.Err)
	}
	return failf(StatusStartupFailure, "cannot reach %s (%v)", where, err)
}

// hasAuthParam reports whether a WWW-Authenticate value carries the named
// auth-param (name=value, outside quoted strings).
func hasAuthParam(h, name string) bool {
	inQuote := false
	start := 0
	for i := 0; i <= len(h); i++ {
		if i < len(h) && h[i] == '"' {
			inQuote = !inQuote
		}
		if i == len(h) || (!inQuote && (h[i] == ',' || h[i] == ' ')) {
			tok := strings.TrimSpace(h[start:i])
			if k, _, ok := strings.Cut(tok, "="); ok && strings.EqualFold(strings.TrimSpace(k), name) {
				return true
			}
			start = i + 1
		}
	}
	return false
}

// oauthMetadata fetches the RFC 9728 protected-resource metadata of u (at
// the path-specific location, then the root one) without the target's
// headers, and reports whether it names an authorization server.
func oauthMetadata(ctx context.Context, base http.RoundTripper, u *url.URL, timeout time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	candidates := []string{u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource" + path}
	if path != "" {
		candidates = append(candidates, u.Scheme+"://"+u.Host+"/.well-known/oauth-protected-resource")
	}
	if timeout > 10*time.Second {
		timeout = 10 * time.Second
	}
	client := &http.Client{Transport: base, Timeout: timeout}
	for _, c := range candidates {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c, nil)
		if err != nil {
			continue
		}
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			continue
		}
		var md struct {
			AuthorizationServers []string `json:"authorization_servers"`
		}
		if json.Unmarshal(body, &md) == nil && len(md.AuthorizationServers) > 0 {
			return true
		}
	}
	return false
}

// captureURL captures an HTTP target with the transport it asks for,
// falling back from Streamable HTTP to HTTP+SSE when the server only
// speaks that.
func captureURL(ctx context.Context, t Target, o Options, protocolVersion string) sessionOutcome {
	if t.Transport == "sse" {
		out, _ := captureHTTP(ctx, t, o, protocolVersion, "sse")
		return out
	}
	out, legacyOnly := captureHTTP(ctx, t, o, protocolVersion, "http")
	if out.fail == nil || !legacyOnly || ctx.Err() != nil {
		return out
	}
	sse, _ := captureHTTP(ctx, t, o, protocolVersion, "sse")
	if sse.fail == nil {
		sse.capture.Warnings = append(sse.capture.Warnings, "the server speaks only the legacy HTTP+SSE transport (deprecated since 2025-03-26)")
		return sse
	}
	sse.fail.detail = fmt.Sprintf("%s (after Streamable HTTP failed: %s)", sse.fail.detail, out.fail.detail)
	return sse
}
