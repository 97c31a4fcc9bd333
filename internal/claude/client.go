package claude

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcost/mcpcost/internal/redact"
)

// The Anthropic API the [Client] speaks.
const (
	// DefaultBaseURL is Anthropic's first-party API.
	DefaultBaseURL = "https://api.anthropic.com"
	// APIVersion is sent as the anthropic-version header.
	APIVersion = "2023-06-01"
	// DefaultModel is the current Sonnet, as Anthropic's pricing page
	// names it (Claude Sonnet 5).
	DefaultModel = "claude-sonnet-5"
	// CountMethod names how a [Count] is obtained: count_tokens of a user
	// message "." with the tools, minus the same request without tools.
	// The message is the one mcp-context-cost's tools-delta/v1 run uses, so
	// the two agree on a request that is the same.
	CountMethod = "count-tokens-delta/v1"

	countPath   = "/v1/messages/count_tokens"
	userMessage = "."
	maxBody     = 1 << 20
)

// A Count is the cost of a tools array in Claude's own tokenizer.
type Count struct {
	Method string `json:"method"`
	Model  string `json:"model"`
	// Tokens is WithTools minus WithoutTools: the tools' own cost. It
	// includes the tool-use system prompt Anthropic adds to any request
	// with tools (see [OverheadFor]), which the tools alone do not cause
	// but any request carrying them pays.
	Tokens       int `json:"tokens"`
	WithTools    int `json:"withTools"`
	WithoutTools int `json:"withoutTools"`
}

// A Client counts request shapes with Anthropic's
// POST /v1/messages/count_tokens. It keeps a cache for its lifetime (one
// run), keyed by the SHA-256 of the tools JSON and the model, so the same
// tools are never sent twice. It is safe for concurrent use.
//
// The API key is sent in the x-api-key header and nowhere else: it is never
// part of an error, a log line or the cache, and printing a Client with
// %v or %#v does not show it.
type Client struct {
	key     string
	baseURL string
	model   string

	// HTTP is the client requests go through; nil means one with a 60 s
	// timeout.
	HTTP *http.Client
	// Attempts bounds the tries of one request (first try included) when
	// the API answers 429 or 5xx; 0 means 4.
	Attempts int
	// MaxWait is the longest single wait before a retry; a 429 whose
	// retry-after asks for longer fails at once. 0 means 60 s.
	MaxWait time.Duration
	// Sleep waits between attempts; nil means a timer that stops with ctx.
	// Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error

	requests atomic.Int64
	mu       sync.Mutex
	cache    map[cacheKey]*call
}

// A call is one count, done or in flight. Callers asking for the same
// count while it is in flight wait for it instead of sending it again.
type call struct {
	done chan struct{}
	n    int
	err  error
}

type cacheKey struct {
	model string
	tools [sha256.Size]byte
	bare  bool // the request without tools
}

// NewClient returns a client that authenticates with key (from
// ANTHROPIC_API_KEY), talks to baseURL (from ANTHROPIC_BASE_URL; empty
// means [DefaultBaseURL]) and counts for model (empty means
// [DefaultModel]).
func NewClient(key, baseURL, model string) *Client {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	if model == "" {
		model = DefaultModel
	}
	return &Client{key: key, baseURL: strings.TrimRight(baseURL, "/"), model: model, cache: map[cacheKey]*call{}}
}

// Model returns the model the client counts for.
func (c *Client) Model() string { return c.model }

// Requests returns how many HTTP requests the client has sent, retries
// included.
func (c *Client) Requests() int { return int(c.requests.Load()) }

// String describes the client without its key.
func (c *Client) String() string {
	return fmt.Sprintf("claude.Client{model: %s, endpoint: %s}", c.model, redactURL(c.baseURL))
}

// GoString is String, so that %#v does not print the key either.
func (c *Client) GoString() string { return c.String() }

// CountTools counts tools, the JSON array of an Anthropic request's tools
// parameter (for example [Shape].JSON), with Claude's tokenizer.
func (c *Client) CountTools(ctx context.Context, tools []byte) (Count, error) {
	if c.key == "" {
		return Count{}, errors.New("anthropic count_tokens needs an API key (ANTHROPIC_API_KEY)")
	}
	if !json.Valid(tools) || !strings.HasPrefix(strings.TrimSpace(string(tools)), "[") {
		return Count{}, errors.New("anthropic count_tokens: the tools are not a JSON array")
	}
	with, err := c.count(ctx, tools)
	if err != nil {
		return Count{}, err
	}
	without, err := c.count(ctx, nil)
	if err != nil {
		return Count{}, err
	}
	return Count{Method: CountMethod, Model: c.model, Tokens: with - without, WithTools: with, WithoutTools: without}, nil
}

// count returns input_tokens for the probe message with tools (nil: with
// none), from the cache when it has been counted before. Failed counts are
// not kept, so a later call tries again.
func (c *Client) count(ctx context.Context, tools []byte) (int, error) {
	key := cacheKey{model: c.model, tools: sha256.Sum256(tools), bare: tools == nil}
	c.mu.Lock()
	if cl, ok := c.cache[key]; ok {
		c.mu.Unlock()
		select {
		case <-cl.done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		if cl.err == nil {
			return cl.n, nil
		}
		if ctx.Err() == nil && (errors.Is(cl.err, context.Canceled) || errors.Is(cl.err, context.DeadlineExceeded)) {
			// The caller that sent it gave up; this one has not.
			return c.count(ctx, tools)
		}
		return 0, cl.err
	}
	cl := &call{done: make(chan struct{})}
	c.cache[key] = cl
	c.mu.Unlock()

	body := []byte(`{"model":`)
	body = strconv.AppendQuote(body, c.model) // model ids are ASCII
	body = append(body, `,"messages":[{"role":"user","content":"`+userMessage+`"}]`...)
	if tools != nil {
		body = append(body, `,"tools":`...)
		body = append(body, tools...)
	}
	body = append(body, '}')
	cl.n, cl.err = c.post(ctx, body)
	if cl.err != nil {
		c.mu.Lock()
		delete(c.cache, key)
		c.mu.Unlock()
	}
	close(cl.done)
	return cl.n, cl.err
}

// post sends one count_tokens request, retrying 429 and 5xx answers.
func (c *Client) post(ctx context.Context, body []byte) (int, error) {
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 4
	}
	maxWait := c.MaxWait
	if maxWait <= 0 {
		maxWait = 60 * time.Second
	}
	endpoint := c.baseURL + countPath
	var last error
	for try := 1; ; try++ {
		status, header, data, err := c.do(ctx, endpoint, body)
		if err != nil {
			return 0, err
		}
		if status == http.StatusOK {
			var res struct {
				InputTokens *int `json:"input_tokens"`
			}
			if err := json.Unmarshal(data, &res); err != nil || res.InputTokens == nil || *res.InputTokens < 0 {
				return 0, fmt.Errorf("anthropic count_tokens at %s: malformed response (no input_tokens count): %s",
					redactURL(c.baseURL), c.excerpt(data))
			}
			return *res.InputTokens, nil
		}
		last = c.apiError(status, data)
		retryable := status == http.StatusTooManyRequests || status >= 500
		if !retryable {
			return 0, last
		}
		if try >= attempts {
			return 0, fmt.Errorf("%w (gave up after %d attempts)", last, try)
		}
		wait, ok := retryAfter(header.Get("retry-after"))
		if !ok {
			wait = time.Duration(1<<(try-1)) * time.Second // 1 s, 2 s, 4 s, ...
		}
		if wait > maxWait {
			return 0, fmt.Errorf("%w: the API asks to wait %s before retrying, longer than %s", last, wait, maxWait)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return 0, fmt.Errorf("%w: %w", last, err)
		}
	}
}

// do sends one request and reads its answer.
func (c *Client) do(ctx context.Context, endpoint string, body []byte) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(body)))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("anthropic count_tokens: bad base URL %s", redactURL(c.baseURL))
	}
	req.Header.Set("x-api-key", c.key)
	req.Header.Set("anthropic-version", APIVersion)
	req.Header.Set("content-type", "application/json")
	req.Header.Set("accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second, CheckRedirect: sameOrigin}
	}
	c.requests.Add(1)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, nil, c.netError(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("anthropic count_tokens at %s: reading the answer: %s",
			redactURL(c.baseURL), c.redact(errText(err)))
	}
	return resp.StatusCode, resp.Header, data, nil
}

// sameOrigin follows a redirect only within the origin of the first
// request: Go's client would send x-api-key on to any other (it drops
// only Authorization and cookies there).
func sameOrigin(next *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("redirected more than 10 times")
	}
	from, to := via[0].URL, next.URL
	if !strings.EqualFold(from.Scheme, to.Scheme) || !strings.EqualFold(from.Host, to.Host) {
		return fmt.Errorf("redirected to another origin, %s; the API key goes to %s alone", redactURL(to.String()), redactURL(from.String()))
	}
	return nil
}

// netError words a failure to reach the API.
func (c *Client) netError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its text repeats the full URL
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("anthropic count_tokens at %s: %w", redactURL(c.baseURL), err)
	}
	what := c.redact(errText(err))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		what = "timed out"
	}
	return fmt.Errorf("cannot reach %s (%s); counting with Claude's tokenizer needs the network", redactURL(c.baseURL), what)
}

// apiError words an answer other than 200.
func (c *Client) apiError(status int, data []byte) error {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &e)
	detail := e.Error.Type
	if e.Error.Message != "" {
		detail += ": " + e.Error.Message
	}
	if detail == "" {
		detail = c.excerpt(data)
	}
	detail = c.redact(detail)
	where := redactURL(c.baseURL)
	switch {
	case status == http.StatusUnauthorized:
		return fmt.Errorf("anthropic count_tokens at %s: the API key was refused (401 %s); check ANTHROPIC_API_KEY", where, detail)
	case status == http.StatusForbidden:
		return fmt.Errorf("anthropic count_tokens at %s: the API key may not use this (403 %s)", where, detail)
	case status == http.StatusNotFound:
		return fmt.Errorf("anthropic count_tokens at %s: not found (404 %s); is the model %q right?", where, detail, c.model)
	case status == http.StatusTooManyRequests:
		return fmt.Errorf("anthropic count_tokens at %s: rate limited (429 %s)", where, detail)
	case status >= 500:
		return fmt.Errorf("anthropic count_tokens at %s: server error (%d %s)", where, status, detail)
	default:
		return fmt.Errorf("anthropic count_tokens at %s: request refused (%d %s)", where, status, detail)
	}
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// excerpt is the start of an answer body, for an error message.
func (c *Client) excerpt(data []byte) string {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "empty body"
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return strconv.Quote(c.redact(s))
}

// redact removes the key (and the secrets of the base URL) from text that
// came from elsewhere (an answer, a transport error), in case something
// echoed it.
func (c *Client) redact(s string) string {
	return redact.New(append(redact.URLSecrets(c.baseURL), c.key)...).String(s)
}

func errText(err error) string { return err.Error() }

// retryAfter reads a retry-after header: delay seconds or an HTTP date.
func retryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e6 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := time.Until(t)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// redactURL shows a base URL by scheme and host only: a proxy URL may carry
// credentials in its user info, path or query.
func redactURL(raw string) string {
	if o := redact.Origin(raw); o != "" {
		return o
	}
	return "the configured ANTHROPIC_BASE_URL"
}
