package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dial connects a real client to the handler at url with the token.
func dial(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPLaunch: over HTTP the tools that launch are refused unless the
// operator allows it; nothing is launched when refused.
func TestHTTPLaunch(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "launched")
	o := Options{Version: "test", Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Project: dir, CacheDir: filepath.Join(dir, "cache"), Timeout: 5 * time.Second}
	launch := map[string]any{"command": "/bin/sh", "args": []string{"-c", "touch " + marker}}

	ts := httptest.NewServer(mustHandler(t, o, HTTPOptions{Token: "launch-test-token"}))
	t.Cleanup(ts.Close)
	cs := dial(t, ts.URL, "launch-test-token")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{toolMeasure, launch},
		{toolMeasure, map[string]any{"url": "http://127.0.0.1:9/mcp"}},
		{toolAudit, map[string]any{"launch": true}},
		{toolFindings, map[string]any{"launch": true}},
	} {
		if msg := callErr(t, cs, c.tool, c.args); !strings.Contains(msg, "--allow-launch") {
			t.Errorf("%s %v over HTTP: %s", c.tool, c.args, msg)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a refused measure_server launched its command")
	}
	// Without launch, audit_config reads the cache as before.
	var a AuditResult
	call(t, cs, toolAudit, nil, &a)

	ts2 := httptest.NewServer(mustHandler(t, o, HTTPOptions{Token: "launch-test-token", AllowLaunch: true}))
	t.Cleanup(ts2.Close)
	cs2 := dial(t, ts2.URL, "launch-test-token")
	if msg := callErr(t, cs2, toolMeasure, launch); strings.Contains(msg, "--allow-launch") {
		t.Errorf("with AllowLaunch: %s", msg)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("with AllowLaunch, measure_server did not launch: %v", err)
	}
}

// TestLaunchAnnotations: the tools that may launch say so.
func TestLaunchAnnotations(t *testing.T) {
	cs, _ := connect(t, withDefaults(Options{Version: "test"}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		may := tool.Name == toolMeasure || tool.Name == toolAudit || tool.Name == toolFindings
		switch {
		case a == nil:
			t.Errorf("%s: no annotations", tool.Name)
		case may && (a.ReadOnlyHint || a.OpenWorldHint == nil || !*a.OpenWorldHint):
			t.Errorf("%s launches: annotations %+v, want readOnlyHint false, openWorldHint true", tool.Name, a)
		case !may && !a.ReadOnlyHint:
			t.Errorf("%s: not read-only", tool.Name)
		}
	}
}

// TestHTTPOrigin: a request with an Origin that is not the server's own
// loopback origin, nor allowed, is refused 403, before the token is looked
// at; no Origin (a client that is not a browser) goes on.
func TestHTTPOrigin(t *testing.T) {
	const token = "origin-test-token"
	ts := httptest.NewServer(mustHandler(t, Options{Version: "test"}, HTTPOptions{Token: token, AllowedOrigins: []string{"https://App.Example:443"}}))
	t.Cleanup(ts.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
	tests := []struct {
		origins []string
		auth    string
		status  int
	}{
		{nil, "Bearer " + token, 200},
		{[]string{"http://127.0.0.1:" + port}, "Bearer " + token, 200},
		{[]string{"http://localhost:" + port}, "Bearer " + token, 200},
		{[]string{"http://[::1]:" + port}, "Bearer " + token, 200},
		{[]string{"https://app.example"}, "Bearer " + token, 200},
		{[]string{"http://127.0.0.1:1"}, "Bearer " + token, 403},
		{[]string{"https://127.0.0.1:" + port}, "Bearer " + token, 403},
		{[]string{"http://evil.example"}, "Bearer " + token, 403},
		{[]string{"http://app.example"}, "Bearer " + token, 403},
		{[]string{"null"}, "Bearer " + token, 403},
		{[]string{""}, "Bearer " + token, 403},
		{[]string{"http://localhost:" + port, "http://evil.example"}, "Bearer " + token, 403},
		{[]string{"http://evil.example"}, "", 403},
		{[]string{"http://localhost:" + port}, "", 401},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		for _, o := range tt.origins {
			req.Header.Add("Origin", o)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.status {
			t.Errorf("Origin %q, auth %v: status %d, want %d", tt.origins, tt.auth != "", res.StatusCode, tt.status)
		}
	}
}

// initSession opens a session (an initialize POST) and returns the status.
func initSession(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Retry-After")
}

// TestHTTPSessions: abandoned sessions are capped and end when idle, so
// that memory stays bounded however many a caller opens; a good client gets
// in once idle ones have ended.
func TestHTTPSessions(t *testing.T) {
	const token = "session-test-token"
	srv := New(withDefaults(Options{Version: "test"}))
	h, err := handler(srv, HTTPOptions{Token: token, MaxSessions: 8, SessionTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	for i := range 8 {
		if code, _ := initSession(t, ts.URL, token); code != 200 {
			t.Fatalf("session %d: status %d", i+1, code)
		}
	}
	if code, retry := initSession(t, ts.URL, token); code != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("a session over the cap: status %d, Retry-After %q; want 503 with Retry-After", code, retry)
	}
	deadline := time.Now().Add(5 * time.Second)
	for sessions(srv) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := sessions(srv); n != 0 {
		t.Fatalf("%d idle sessions still open after their timeout", n)
	}
	cs := dial(t, ts.URL, token)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("a good client after the idle sessions ended: %v", err)
	}

	// Many abandoned sessions: at most the cap stay, and the heap does
	// not grow with their number (without a cap, 20,000 held 285 MB).
	srv2 := New(withDefaults(Options{Version: "test"}))
	h2, _ := handler(srv2, HTTPOptions{Token: token})
	ts2 := httptest.NewServer(h2)
	t.Cleanup(ts2.Close)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	refused := 0
	const tries = 2000
	for range tries {
		if code, _ := initSession(t, ts2.URL, token); code == http.StatusServiceUnavailable {
			refused++
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := sessions(srv2)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d initialize requests: %d sessions open, %d refused, heap %+.1f MB", tries, n, refused, float64(grew)/(1<<20))
	if n > DefaultMaxSessions || refused != tries-DefaultMaxSessions {
		t.Errorf("%d sessions open and %d refused, want %d and %d", n, refused, DefaultMaxSessions, tries-DefaultMaxSessions)
	}
	if grew > 16<<20 {
		t.Errorf("the heap grew %.1f MB for %d abandoned sessions", float64(grew)/(1<<20), tries)
	}
}

// TestHTTPTrickle: 1,000 connections that trickle their headers or their
// bodies, with and without the token, neither lock out a good client nor
// stay open past the server's read timeouts.
func TestHTTPTrickle(t *testing.T) {
	const token = "trickle-test-token"
	h := mustHandler(t, withDefaults(Options{Version: "test"}), HTTPOptions{Token: token})
	hs := HTTPServer(h)
	hs.ReadHeaderTimeout, hs.ReadTimeout = 500*time.Millisecond, time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	defer hs.Close()
	addr := ln.Addr().String()

	const conns = 1000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	closedAt := make(chan time.Duration, conns)
	start := time.Now()
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		defer c.Close()
		var head string
		switch i % 3 {
		case 0: // headers, slowly
			head = "POST / HTTP/1.1\r\nHost: " + addr + "\r\n"
		case 1: // a body, slowly, without the token
			head = fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{", addr)
		case 2: // a body, slowly, with the token
			head = fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{", addr, token)
		}
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Trickle a byte every 100 ms; read whatever comes back
			// until the server closes the connection.
			go func() {
				for ctx.Err() == nil {
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			io.Copy(io.Discard, c)
			closedAt <- time.Since(start)
		}()
	}

	// A good client, meanwhile.
	t0 := time.Now()
	cs := dial(t, "http://"+addr, token)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("the good client: %v", err)
	}
	good := time.Since(t0)
	if good > 2*time.Second {
		t.Errorf("the good client took %s among %d trickling connections", good, conns)
	}
	wg.Wait()
	close(closedAt)
	var last time.Duration
	for d := range closedAt {
		last = max(last, d)
	}
	t.Logf("good client answered in %s; the %d trickling connections were all closed by %s", good.Round(time.Millisecond), conns, last.Round(time.Millisecond))
	if last > 5*time.Second {
		t.Errorf("a trickling connection stayed open %s, past the read timeout of %s", last, hs.ReadTimeout)
	}
}

// TestHTTPHeaderLimit: headers over MaxHeaderBytes are refused.
func TestHTTPHeaderLimit(t *testing.T) {
	hs := HTTPServer(mustHandler(t, Options{Version: "test"}, HTTPOptions{Token: "t0000"}))
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go hs.Serve(ln)
	defer hs.Close()
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String(), strings.NewReader(initialize))
	req.Header.Set("X-Big", strings.Repeat("a", 2*MaxHeaderBytes))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("headers of %d bytes: status %d, want 431", 2*MaxHeaderBytes, res.StatusCode)
	}
}

// TestHTTPSecondUser serves the built binary over HTTP as its user does,
// with no token named, and calls it as another local user would: without
// the token it is refused; the token is in a file only the serving user
// can read, never printed; even with the token, measure_server is refused
// unless the operator passed --allow-launch.
func TestHTTPSecondUser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpcost")
	}
	bin := build(t, "cmd/mcpcost")
	home := t.TempDir()
	config := filepath.Join(home, "config")
	marker := filepath.Join(home, "launched")
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+config, "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatalf("no line on stderr: %v", lines.Err())
	}
	first := lines.Text()
	go io.Copy(io.Discard, stderr)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp) \(bearer token in (\S+)\); launching refused`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("stderr: %q", first)
	}
	url, file := m[1], m[2]
	if file != filepath.Join(config, "mcpcost", "serve-token") {
		t.Errorf("token file %s, want it in XDG_CONFIG_HOME", file)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(file)
	token := strings.TrimSpace(string(b))
	if len(token) < 32 || strings.Contains(first, token) {
		t.Fatalf("token %q (printed: %v)", token, strings.Contains(first, token))
	}

	// The second user: no token, a guessed one.
	for _, auth := range []string{"", "Bearer ", "Bearer " + token[:len(token)-1]} {
		if res := post(t, url, auth); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, res.StatusCode)
		}
	}
	secondUserReads(t, file)

	// The token without --allow-launch: no launch.
	cs := dial(t, url, token)
	msg := callErr(t, cs, toolMeasure, map[string]any{"command": "/bin/sh", "args": []string{"-c", "id > " + marker}})
	if !strings.Contains(msg, "--allow-launch") {
		t.Errorf("measure_server without --allow-launch: %s", msg)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("measure_server launched a command over HTTP without --allow-launch")
	}
	var r SessionsResult
	call(t, cs, toolRecent, nil, &r)

	// A second start keeps the token.
	cs.Close()
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	again, _, err := TokenFile(file)
	if err != nil || again != token {
		t.Errorf("the token file read again: %q, %v", again, err)
	}
}

// TestTokenFile: a token file others could read, or that is a link, is
// replaced; the folder is private.
func TestTokenFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcpcost")
	file := filepath.Join(dir, "serve-token")
	tok, created, err := TokenFile(file)
	if err != nil || !created || len(tok) != 64 {
		t.Fatalf("first: %q %v %v", tok, created, err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", fi.Mode().Perm())
	}
	if again, created, _ := TokenFile(file); again != tok || created {
		t.Errorf("second: %q created %v", again, created)
	}
	os.Chmod(file, 0o644)
	if again, created, _ := TokenFile(file); again == tok || !created {
		t.Errorf("a token others could read was kept")
	}
	other := filepath.Join(t.TempDir(), "other")
	os.WriteFile(other, []byte(strings.Repeat("x", 64)), 0o600)
	os.Remove(file)
	os.Symlink(other, file)
	if again, _, _ := TokenFile(file); again == strings.Repeat("x", 64) {
		t.Errorf("a linked token file was used")
	}
	if b, _ := os.ReadFile(other); string(b) != strings.Repeat("x", 64) {
		t.Errorf("the link's target was written")
	}
}

// TestAuditPathPositionOnly: audit_config over HTTP, on a path the remote
// caller chose, says no more than needed: the same words for a missing file, a folder and a
// device, and for a file that does not parse its position only, never its
// keys or values.
func TestAuditPathPositionOnly(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	codex := write(".codex/config.toml", "[mcp_servers.x]\ncommand = \"srv\"\naws_secret_access_key = \"canary-toml-6a1f\"\n[[broken\n")
	jsonBad := write("proj/.mcp.json", `{"mcpServers": {"canary-key-77": {"command": "x", "env": {"TOKEN": "canary-json-9c2e"}}`)
	yamlBad := write("cfg.yaml", "mcpServers:\n  canary-yaml-key: [\n")
	notMCP := write("creds.json", `{"canary_api_key": "canary-value-31d0"}`)
	o := withDefaults(Options{Version: "test", Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Project: dir, CacheDir: filepath.Join(dir, "cache")})
	ts := httptest.NewServer(mustHandler(t, o, HTTPOptions{Token: "path-test-token"}))
	t.Cleanup(ts.Close)
	cs := dial(t, ts.URL, "path-test-token")

	unreadable := `: not found, or not readable as an MCP config`
	for _, p := range []string{filepath.Join(dir, "missing.json"), dir, "/dev/null/x", filepath.Join(dir, "proj")} {
		if msg := callErr(t, cs, toolAudit, map[string]any{"path": p}); msg != "config "+p+unreadable {
			t.Errorf("%s: %q, want %q", p, msg, "config "+p+unreadable)
		}
	}
	for _, c := range []struct{ path, want string }{
		{codex, "config " + codex + ":4"},
		{jsonBad, "config " + jsonBad + ":1"},
		{yamlBad, "config " + yamlBad + ":"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolAudit, Arguments: map[string]any{"path": c.path}})
		if err != nil {
			t.Fatal(err)
		}
		text := resultText(res)
		if !strings.Contains(text, c.want) || !strings.Contains(text, ": not valid ") {
			t.Errorf("%s: %q, want its position (%s)", c.path, text, c.want)
		}
		if strings.Contains(text, "canary") || strings.Contains(text, "aws_secret") || strings.Contains(text, "broken") {
			t.Errorf("%s: the error repeats the file: %q", c.path, text)
		}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolAudit, Arguments: map[string]any{"path": notMCP}})
	if err != nil {
		t.Fatal(err)
	}
	if text := resultText(res); strings.Contains(text, "canary") {
		t.Errorf("a file that is no MCP config: %q", text)
	}
}

// TestAuditPathLocal: over stdio the caller is the serving user's own
// agent, told why a path is refused.
func TestAuditPathLocal(t *testing.T) {
	dir := t.TempDir()
	cs, _ := connect(t, withDefaults(Options{Version: "test", Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Project: dir}))
	if msg := callErr(t, cs, toolAudit, map[string]any{"path": "missing.json"}); !strings.Contains(msg, "missing.json: no such file") {
		t.Errorf("a missing file over stdio: %q", msg)
	}
}
