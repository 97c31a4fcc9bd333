//go:build unix

package mcpclient

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startHTTPServer starts testdata/httpserver in mode and returns its base
// URL. The server is killed when the test ends.
func startHTTPServer(t *testing.T, mode string, env ...string) string {
	t.Helper()
	cmd := exec.Command(bin(t, "httpserver"), mode)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("httpserver %s: %v", mode, err)
	}
	return strings.TrimSpace(line)
}

func TestHTTPClasses(t *testing.T) {
	for _, tc := range []struct {
		name, mode, path string
		target           func(t *Target)
		opts             func(o *Options)
		status           Status
		detail           string
		bound            time.Duration
		check            func(t *testing.T, r Result)
	}{
		{name: "streamable", mode: "streamable", path: "/mcp", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			c := r.First
			if c.ProtocolVersion != "2025-11-25" || c.Transport != "http" {
				t.Errorf("protocol %s over %s, want 2025-11-25 over http", c.ProtocolVersion, c.Transport)
			}
			if c.Instructions == nil || *c.Instructions != "Call alpha first." || c.ServerName != "httpserver" {
				t.Errorf("instructions %v, server %q", c.Instructions, c.ServerName)
			}
			if len(c.Tools()) != 2 || len(c.PromptsPages) != 1 {
				t.Errorf("%d tools, %d prompt pages", len(c.Tools()), len(c.PromptsPages))
			}
		}},
		{name: "streamable-legacy-era", mode: "streamable", path: "/mcp", opts: func(o *Options) { o.ProtocolVersion = "2025-06-18" }, status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if r.First.ProtocolVersion != "2025-06-18" || !strings.Contains(string(r.First.Initialize), `"serverInfo"`) {
				t.Errorf("protocol %s, initialize %s", r.First.ProtocolVersion, r.First.Initialize)
			}
			if r.First.Instructions == nil || len(r.First.Tools()) != 2 {
				t.Errorf("instructions %v, %d tools", r.First.Instructions, len(r.First.Tools()))
			}
		}},
		{name: "stateless", mode: "stateless", path: "/mcp", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			c := r.First
			if c.ProtocolVersion != "2026-07-28" || !strings.Contains(string(c.Initialize), `"supportedVersions"`) {
				t.Errorf("protocol %s, discover result %s", c.ProtocolVersion, c.Initialize)
			}
			if c.Instructions == nil || c.ServerName != "httpserver" || len(c.Tools()) != 2 || len(c.PromptsPages) != 1 {
				t.Errorf("instructions %v, server %q, %d tools, %d prompt pages", c.Instructions, c.ServerName, len(c.Tools()), len(c.PromptsPages))
			}
		}},
		{name: "modern-only", mode: "modern", path: "/mcp", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if r.First.ProtocolVersion != "2026-07-28" {
				t.Errorf("protocol %s", r.First.ProtocolVersion)
			}
		}},
		{name: "sse-fallback", mode: "sse", path: "/sse", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if r.First.Transport != "sse" || !hasWarning(r.First, "only the legacy HTTP+SSE") {
				t.Errorf("transport %s, warnings %q", r.First.Transport, r.First.Warnings)
			}
		}},
		{name: "sse", mode: "sse", path: "/sse", target: func(t *Target) { t.Transport = "sse" }, status: StatusMeasured, bound: 8 * time.Second},
		{name: "bearer-missing", mode: "bearer", path: "/mcp", status: StatusAuthRequired, detail: "answered HTTP 401 (WWW-Authenticate: Bearer)", bound: 8 * time.Second},
		{name: "bearer-wrong", mode: "bearer", path: "/mcp", target: func(t *Target) { t.Headers = map[string]string{"Authorization": "Bearer wrong"} }, status: StatusAuthRequired, detail: "with the given headers (Authorization)", bound: 8 * time.Second},
		{name: "bearer-given", mode: "bearer", path: "/mcp", target: func(t *Target) { t.Headers = map[string]string{"Authorization": "Bearer s3cret-token"} }, status: StatusMeasured, bound: 8 * time.Second},
		{name: "oauth", mode: "oauth", path: "/mcp", status: StatusRemoteAuthWall, detail: "resource_metadata", bound: 8 * time.Second},
		{name: "oauth-wellknown", mode: "oauth-wellknown", path: "/mcp", status: StatusRemoteAuthWall, detail: "publishes OAuth protected-resource metadata", bound: 8 * time.Second},
		{name: "session-dropped", mode: "forgetful", path: "/mcp", status: StatusProtocolError, detail: "dropped the session mid-capture", bound: 8 * time.Second},
		{name: "forbidden", mode: "forbidden", path: "/mcp", status: StatusAuthRequired, detail: "HTTP 403", bound: 8 * time.Second},
		{name: "server-error", mode: "error", path: "/mcp", status: StatusStartupFailure, detail: "500 Internal Server Error", bound: 8 * time.Second},
		{name: "hang", mode: "hang", path: "/mcp", opts: func(o *Options) { o.Timeout = 300 * time.Millisecond }, status: StatusTimeout, detail: "within the 300ms budget of the measurement", bound: 10 * time.Second},
		// server/discover unanswered for a quarter of the budget: answered
		// for the server, the same session goes on with initialize.
		{name: "no-discover", mode: "no-discover", path: "/mcp", opts: func(o *Options) { o.Timeout = 2 * time.Second }, status: StatusMeasured, bound: 10 * time.Second, check: func(t *testing.T, r Result) {
			if r.First.ProtocolVersion != legacyProtocolVersion || !hasWarning(r.First, "did not answer server/discover within 500ms") {
				t.Errorf("protocol %s, warnings %q", r.First.ProtocolVersion, r.First.Warnings)
			}
		}},
		{name: "json-bodies", mode: "json", path: "/mcp", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if len(r.First.Tools()) != 2 || r.First.Instructions == nil {
				t.Errorf("%d tools, instructions %v", len(r.First.Tools()), r.First.Instructions)
			}
		}},
		{name: "huge-sse", mode: "huge-sse", path: "/mcp", status: StatusProtocolError, detail: "an event on the SSE stream is larger than the 1048576-byte limit", bound: 8 * time.Second},
		{name: "huge", mode: "huge-json", path: "/mcp", status: StatusProtocolError, detail: "a response body is larger than the 1048576-byte limit", bound: 8 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The cases with a tight bound run alone, before the parallel
			// ones: a bound says how long mcpcost takes after its budget,
			// not how long a starved machine takes to schedule it among
			// fifteen other measurements.
			if tc.bound > 2500*time.Millisecond {
				t.Parallel()
			}
			base := startHTTPServer(t, tc.mode, "TOKEN=s3cret-token")
			target := Target{URL: base + tc.path}
			if tc.target != nil {
				tc.target(&target)
			}
			o := testOptions()
			if tc.opts != nil {
				tc.opts(&o)
			}
			start := time.Now()
			r := Measure(context.Background(), target, o)
			elapsed := time.Since(start)
			if r.Status != tc.status {
				t.Fatalf("status %s (%s), want %s", r.Status, r.Detail, tc.status)
			}
			if !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("detail %q does not say %q", r.Detail, tc.detail)
			}
			// Only a timeout's wall time is the behaviour under test (it
			// ends at the budget, not a multiple of it); any other class
			// is proved by its status, and a loaded machine stretches it.
			if tc.status == StatusTimeout && elapsed > tc.bound {
				t.Errorf("took %v, bound %v", elapsed, tc.bound)
			}
			if r.OK() && (r.First == nil || r.Second == nil) {
				t.Fatal("a measured result without both captures")
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestHTTPUnreachable(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	r := Measure(context.Background(), Target{URL: "http://127.0.0.1:" + port + "/mcp?key=abc123"}, testOptions())
	if r.Status != StatusStartupFailure || !strings.Contains(r.Detail, "cannot connect to http://127.0.0.1:"+port+"/mcp?…") {
		t.Errorf("%s: %s", r.Status, r.Detail)
	}
	if strings.Contains(r.Detail, "abc123") {
		t.Errorf("detail shows the query: %s", r.Detail)
	}
}
