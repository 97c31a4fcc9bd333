package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const testKey = "sk-ant-test-0123456789-SECRET"

// fakeAPI speaks POST /v1/messages/count_tokens as Anthropic does. Each
// request takes the next scripted answer; when the script runs out it
// answers 200 with a count derived from the body: 7 for the bare message
// plus one per 10 bytes of tools.
type fakeAPI struct {
	t      *testing.T
	mu     sync.Mutex
	script []answer
	bodies []map[string]json.RawMessage
}

type answer struct {
	status int
	header map[string]string
	body   string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages/count_tokens" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}`, 404)
		return
	}
	if r.Header.Get("anthropic-version") != "2023-06-01" || r.Header.Get("content-type") != "application/json" {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad headers"}}`, 400)
		return
	}
	if r.Header.Get("x-api-key") != testKey {
		w.WriteHeader(401)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
		return
	}
	data, _ := io.ReadAll(r.Body)
	var body map[string]json.RawMessage
	if err := json.Unmarshal(data, &body); err != nil {
		f.t.Errorf("request body is not JSON: %s", data)
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	var a *answer
	if len(f.script) > 0 {
		a = &f.script[0]
		f.script = f.script[1:]
	}
	f.mu.Unlock()
	if a != nil {
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
		return
	}
	n := 7 + len(body["tools"])/10
	fmt.Fprintf(w, `{"input_tokens":%d}`, n)
}

func newFake(t *testing.T, script ...answer) (*fakeAPI, *httptest.Server) {
	f := &fakeAPI{t: t, script: script}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// testClient returns a client whose waits are recorded, not slept.
func testClient(base string, key string) (*Client, *[]time.Duration) {
	c := NewClient(key, base, "")
	var waits []time.Duration
	c.Sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return c, &waits
}

const tools = `[{"name":"mcp__x__echo","description":"Echo <b>it</b>","input_schema":{"type":"object","properties":{}}}]`

func TestCountToolsSuccess(t *testing.T) {
	f, srv := newFake(t)
	c, waits := testClient(srv.URL, testKey)
	got, err := c.CountTools(context.Background(), []byte(tools))
	if err != nil {
		t.Fatal(err)
	}
	with := 7 + len(tools)/10
	want := Count{Method: CountMethod, Model: DefaultModel, Tokens: with - 7, WithTools: with, WithoutTools: 7}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(*waits) != 0 || c.Requests() != 2 {
		t.Errorf("%d requests, waits %v", c.Requests(), *waits)
	}
	// The request: the model, one user message, the tools exactly as
	// given (no HTML escaping); the second request has no tools.
	if len(f.bodies) != 2 {
		t.Fatalf("%d bodies", len(f.bodies))
	}
	b := f.bodies[0]
	if string(b["model"]) != `"claude-sonnet-5"` || string(b["messages"]) != `[{"role":"user","content":"."}]` || string(b["tools"]) != tools {
		t.Errorf("body %s / %s / %s", b["model"], b["messages"], b["tools"])
	}
	if _, ok := f.bodies[1]["tools"]; ok || len(f.bodies[1]) != 2 {
		t.Errorf("the bare request has keys %v", f.bodies[1])
	}
}

func TestCountToolsCache(t *testing.T) {
	_, srv := newFake(t)
	c, _ := testClient(srv.URL, testKey)
	first, err := c.CountTools(context.Background(), []byte(tools))
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.CountTools(context.Background(), []byte(tools))
	if err != nil {
		t.Fatal(err)
	}
	if first != second || c.Requests() != 2 {
		t.Errorf("second count %+v after %d requests; the cache should have answered", second, c.Requests())
	}
	// Other tools cost one request: the bare count is cached.
	if _, err := c.CountTools(context.Background(), []byte(`[]`)); err != nil {
		t.Fatal(err)
	}
	if c.Requests() != 3 {
		t.Errorf("%d requests, want 3", c.Requests())
	}
	// Another model is another key.
	other := NewClient(testKey, srv.URL, "claude-opus-5")
	if _, err := other.CountTools(context.Background(), []byte(tools)); err != nil || other.Requests() != 2 {
		t.Errorf("other model: %d requests, %v", other.Requests(), err)
	}
}

func TestCountToolsRetries(t *testing.T) {
	ok := answer{200, nil, `{"input_tokens":100}`}
	tests := []struct {
		name      string
		script    []answer
		attempts  int
		wantWaits []time.Duration
		wantErr   string // empty: success
	}{
		{"429 then success", []answer{{429, map[string]string{"retry-after": "3"}, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}, ok},
			0, []time.Duration{3 * time.Second}, ""},
		{"429 without retry-after backs off", []answer{{429, nil, `{}`}, {429, nil, `{}`}, ok},
			0, []time.Duration{time.Second, 2 * time.Second}, ""},
		{"500 then success", []answer{{500, nil, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`}, ok},
			0, []time.Duration{time.Second}, ""},
		{"529 overloaded then success", []answer{{529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, ok},
			0, []time.Duration{time.Second}, ""},
		{"503 with an HTML body", []answer{{503, nil, `<html>upstream unavailable</html>`}, ok},
			0, []time.Duration{time.Second}, ""},
		{"429 gives up", []answer{{429, map[string]string{"retry-after": "1"}, `{}`}, {429, map[string]string{"retry-after": "1"}, `{}`}, {429, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}},
			3, []time.Duration{time.Second, time.Second}, "rate limited (429 rate_limit_error: slow down) (gave up after 3 attempts)"},
		{"retry-after too long", []answer{{429, map[string]string{"retry-after": "3600"}, `{}`}},
			0, nil, "the API asks to wait 1h0m0s before retrying, longer than 1m0s"},
		{"400 is not retried", []answer{{400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.name: String should match pattern"}}`}},
			0, nil, "request refused (400 invalid_request_error: tools.0.name: String should match pattern)"},
		{"404 names the model", []answer{{404, nil, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}`}},
			0, nil, `not found (404 not_found_error: model: claude-nope); is the model "claude-sonnet-5" right?`},
		{"malformed JSON", []answer{{200, nil, `{"input_tokens":`}},
			0, nil, `malformed response (no input_tokens count): "{\"input_tokens\":"`},
		{"no count", []answer{{200, nil, `{"tokens":3}`}},
			0, nil, "malformed response"},
		{"negative count", []answer{{200, nil, `{"input_tokens":-1}`}},
			0, nil, "malformed response"},
		{"empty body", []answer{{200, nil, ``}},
			0, nil, "malformed response (no input_tokens count): empty body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, srv := newFake(t, tt.script...)
			c, waits := testClient(srv.URL, testKey)
			c.Attempts = tt.attempts
			got, err := c.CountTools(context.Background(), []byte(tools))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got.WithTools != 100 {
					t.Errorf("with tools %d, want 100", got.WithTools)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if fmt.Sprint(*waits) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits %v, want %v", *waits, tt.wantWaits)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("the key is in the error: %v", err)
			}
		})
	}
}

func TestCountToolsBadKey(t *testing.T) {
	_, srv := newFake(t)
	c, _ := testClient(srv.URL, "sk-ant-wrong-KEY-value")
	_, err := c.CountTools(context.Background(), []byte(tools))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "the API key was refused (401 authentication_error: invalid x-api-key); check ANTHROPIC_API_KEY") {
		t.Errorf("error %q", msg)
	}
	if strings.Contains(msg, "sk-ant-wrong-KEY-value") || strings.Contains(fmt.Sprintf("%v %+v %#v", c, c, c), "sk-ant-wrong-KEY-value") {
		t.Errorf("the key is printed: %q", msg)
	}
	if c.Requests() != 1 {
		t.Errorf("%d requests; a refused key is not retried", c.Requests())
	}
}

// An answer that echoes the key (a misbehaving proxy) does not put it in
// the error.
func TestCountToolsKeyEchoed(t *testing.T) {
	_, srv := newFake(t, answer{400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"bad key ` + testKey + `"}}`})
	c, _ := testClient(srv.URL, testKey)
	_, err := c.CountTools(context.Background(), []byte(tools))
	if err == nil || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "***") {
		t.Errorf("error %v", err)
	}
}

// A base URL that redirects to another origin does not get the key sent
// there (Go's client forwards every header but Authorization and cookies).
func TestCountToolsRedirectKeepsKey(t *testing.T) {
	keys := make(chan string, 4)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys <- r.Header.Get("x-api-key")
		io.WriteString(w, `{"input_tokens":7}`)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c, _ := testClient(srv.URL, testKey)
	_, err := c.CountTools(context.Background(), []byte(tools))
	close(keys)
	for k := range keys {
		if k != "" {
			t.Errorf("the other origin got x-api-key %q", k)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "redirected to another origin") || strings.Contains(err.Error(), testKey) {
		t.Errorf("error %v", err)
	}
}

func TestCountToolsOffline(t *testing.T) {
	// A port nothing listens on: take one, then close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, waits := testClient("http://user:pw@"+addr+"/proxy?token=abc", testKey)
	_, err = c.CountTools(context.Background(), []byte(tools))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	want := "cannot reach http://" + addr + " ("
	if !strings.HasPrefix(msg, want) || !strings.Contains(msg, "connection refused") {
		t.Errorf("error %q, want it to start %q and say connection refused", msg, want)
	}
	for _, secret := range []string{"pw", "token=abc", "/proxy", testKey} {
		if strings.Contains(msg, secret) {
			t.Errorf("error %q shows %q", msg, secret)
		}
	}
	if len(*waits) != 0 || c.Requests() != 1 {
		t.Errorf("%d requests, waits %v; an unreachable API is not retried", c.Requests(), *waits)
	}
}

func TestCountToolsCancelled(t *testing.T) {
	_, srv := newFake(t, answer{429, map[string]string{"retry-after": "5"}, `{}`})
	c := NewClient(testKey, srv.URL, "")
	ctx, cancel := context.WithCancel(context.Background())
	c.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	_, err := c.CountTools(ctx, []byte(tools))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestCountToolsInput(t *testing.T) {
	c := NewClient("", "http://127.0.0.1:1", "")
	if _, err := c.CountTools(context.Background(), []byte(tools)); err == nil || !strings.Contains(err.Error(), "needs an API key (ANTHROPIC_API_KEY)") {
		t.Errorf("no key: %v", err)
	}
	c = NewClient(testKey, "http://127.0.0.1:1", "")
	for _, bad := range []string{``, `{}`, `[`, `"x"`} {
		if _, err := c.CountTools(context.Background(), []byte(bad)); err == nil || !strings.Contains(err.Error(), "not a JSON array") {
			t.Errorf("tools %q: %v", bad, err)
		}
	}
	if c.Requests() != 0 {
		t.Errorf("%d requests for bad input", c.Requests())
	}
}

func TestNewClientDefaults(t *testing.T) {
	c := NewClient(testKey, "", "")
	if c.Model() != DefaultModel || c.baseURL != DefaultBaseURL {
		t.Errorf("model %s base %s", c.Model(), c.baseURL)
	}
	if got := NewClient(testKey, "https://proxy.example/anthropic/", "claude-opus-5"); got.baseURL != "https://proxy.example/anthropic" || got.Model() != "claude-opus-5" {
		t.Errorf("base %s", got.baseURL)
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"Mon, 02 Jan 2006 15:04:05 GMT", 0, true}, // in the past: now
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v %v, want %v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.anthropic.com":                  "https://api.anthropic.com",
		"https://u:p@proxy.example:8443/a/b?key=123": "https://proxy.example:8443",
		"not a url": "the configured ANTHROPIC_BASE_URL",
		"":          "the configured ANTHROPIC_BASE_URL",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The default wait sleeps for retry-after, and stops when ctx ends.
func TestCountToolsRealSleep(t *testing.T) {
	_, srv := newFake(t, answer{429, map[string]string{"retry-after": "0.01"}, `{}`})
	c := NewClient(testKey, srv.URL, "")
	if _, err := c.CountTools(context.Background(), []byte(tools)); err != nil {
		t.Fatal(err)
	}
	_, srv = newFake(t, answer{503, map[string]string{"retry-after": "30"}, `{}`})
	c = NewClient(testKey, srv.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.CountTools(ctx, []byte(tools))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("error %v after %v", err, time.Since(start))
	}
}

// Concurrent counts of the same tools send each request once; a failed
// count is not kept.
func TestCountToolsConcurrent(t *testing.T) {
	_, srv := newFake(t)
	c, _ := testClient(srv.URL, testKey)
	var wg sync.WaitGroup
	results := make([]Count, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := c.CountTools(context.Background(), []byte(tools))
			if err != nil {
				t.Error(err)
			}
			results[i] = n
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r != results[0] || r.WithTools == 0 {
			t.Errorf("results differ: %+v", results)
			break
		}
	}
	if c.Requests() != 2 {
		t.Errorf("%d requests for 8 identical counts, want 2", c.Requests())
	}

	_, srv = newFake(t, answer{400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"no"}}`})
	c, _ = testClient(srv.URL, testKey)
	if _, err := c.CountTools(context.Background(), []byte(tools)); err == nil {
		t.Fatal("no error")
	}
	if _, err := c.CountTools(context.Background(), []byte(tools)); err != nil || c.Requests() != 3 {
		t.Errorf("after a failure: %v, %d requests (want 3: the failed one is sent again)", err, c.Requests())
	}
}
