package serve

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func post(t *testing.T, url, auth string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func TestHTTPToken(t *testing.T) {
	const token = "canary-http-token-8d1e"
	ts := httptest.NewServer(mustHandler(t, Options{Version: "test"}, HTTPOptions{Token: token}))
	defer ts.Close()

	for _, auth := range []string{"", "Bearer wrong", "Basic " + token, token, "Bearer " + token + "x"} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, res.StatusCode)
		}
		h := res.Header.Get("WWW-Authenticate")
		if !strings.HasPrefix(h, "Bearer") || strings.Contains(h, token) {
			t.Errorf("Authorization %q: WWW-Authenticate %q", auth, h)
		}
		// No token: one is required; a wrong one: it is invalid (RFC 6750).
		want, wantErr := "a bearer token is required", false
		if auth != "" {
			want, wantErr = "the bearer token is invalid", true
		}
		if got := strings.TrimSpace(string(body)); got != want || strings.Contains(h, `error="invalid_token"`) != wantErr {
			t.Errorf("Authorization %q: %q, WWW-Authenticate %q; want %q", auth, got, h, want)
		}
	}
	if res := post(t, ts.URL, "Bearer "+token); res.StatusCode != http.StatusOK {
		t.Errorf("with the token: status %d, want 200", res.StatusCode)
	}

	// A real client with the token lists the tools and calls one.
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != len(toolNames) {
		t.Fatalf("list tools over HTTP: %v, %d tools", err, len(res.Tools))
	}
	if msg := callErr(t, cs, toolUsage, map[string]any{}); !strings.Contains(msg, "no usage store") {
		t.Errorf("tool error over HTTP: %s", msg)
	}

	// Without the token the client cannot connect.
	if _, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil); err == nil {
		t.Error("connected without the token")
	}
}

func mustHandler(t *testing.T, o Options, h HTTPOptions) http.Handler {
	t.Helper()
	hh, err := Handler(o, h)
	if err != nil {
		t.Fatal(err)
	}
	return hh
}

// TestHTTPNeedsToken: there is no HTTP handler without a token.
func TestHTTPNeedsToken(t *testing.T) {
	if _, err := Handler(Options{Version: "test"}, HTTPOptions{}); err == nil || !strings.Contains(err.Error(), "needs a bearer token") {
		t.Errorf("a handler without a token: %v", err)
	}
	if _, err := Handler(Options{Version: "test"}, HTTPOptions{Token: "t", AllowedOrigins: []string{"evil.example"}}); err == nil || !strings.Contains(err.Error(), "is not an origin") {
		t.Errorf("an allowed origin without a scheme: %v", err)
	}
}

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr  string
		token bool
		ok    bool
	}{
		{"127.0.0.1:8765", false, true},
		{"localhost:0", false, true},
		{"[::1]:8765", false, true},
		{"127.5.5.5:1", false, true},
		{"0.0.0.0:8765", false, false},
		{"0.0.0.0:8765", true, true},
		{":8765", false, false},
		{":8765", true, true},
		{"192.168.1.20:80", false, false},
		{"[::]:80", false, false},
		{"example.com:80", false, false},
		{"example.com:80", true, true},
		{"8765", false, false},
		{"8765", true, false},
	}
	for _, tt := range tests {
		err := CheckAddr(tt.addr, tt.token)
		if (err == nil) != tt.ok {
			t.Errorf("CheckAddr(%q, %v) = %v, want ok=%v", tt.addr, tt.token, err, tt.ok)
		}
	}
}

// TestHTTPBinary serves the built binary with --http on a free loopback
// port and a token from the environment: 401 without it, a working session
// with it, and a clean exit on an interrupt.
func TestHTTPBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpcost")
	}
	const token = "canary-bin-token-5d2a"
	bin := build(t, "cmd/mcpcost")
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--token-env", "MCPCOST_TEST_TOKEN")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"), "MCPCOST_TEST_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatalf("no line on stderr: %v", lines.Err())
	}
	first := lines.Text()
	go io.Copy(io.Discard, stderr)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp) \(bearer token from \$MCPCOST_TEST_TOKEN\); launching refused`).FindStringSubmatch(first)
	if m == nil || strings.Contains(first, token) {
		t.Fatalf("stderr: %q", first)
	}
	url := m[1]
	if res := post(t, url, ""); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %d", res.StatusCode)
	}
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "http-bin-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var r SessionsResult
	call(t, cs, toolRecent, nil, &r)
	cs.Close()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after an interrupt: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("mcpcost serve --http did not stop on an interrupt")
	}
}
