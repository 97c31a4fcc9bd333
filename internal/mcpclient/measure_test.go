//go:build unix

package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestDynamicCapturesDiffer(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	r := Measure(context.Background(), Target{Command: bin(t, "stdioserver"), Args: []string{"dynamic"}, Env: map[string]string{"STATEFILE": state}}, testOptions())
	if r.Status != StatusMeasured {
		t.Fatalf("%s: %s", r.Status, r.Detail)
	}
	a, b := r.First.ToolsPages[0], r.Second.ToolsPages[0]
	if bytes.Equal(a, b) || !bytes.Contains(a, []byte("launch ")) || !bytes.Contains(b, []byte("launch ")) {
		t.Errorf("the two launches were not both captured:\n%s\n%s", a, b)
	}
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	o := testOptions()
	server := bin(t, "stdioserver")
	start := time.Now()
	r := Measure(ctx, Target{Command: server, Args: []string{"silent"}}, o)
	if r.Status != StatusTimeout || !strings.Contains(r.Detail, "the caller's deadline passed") {
		t.Errorf("%s: %s", r.Status, r.Detail)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	r = Measure(ctx, Target{Command: server, Args: []string{"silent"}}, o)
	if r.Status != StatusCancelled || !strings.Contains(r.Detail, "cancelled while waiting for the handshake") {
		t.Errorf("%s: %s", r.Status, r.Detail)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestOnceTakesOneCapture(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	o := testOptions()
	o.Once = true
	r := Measure(context.Background(), Target{Command: bin(t, "stdioserver"), Args: []string{"dynamic"}, Env: map[string]string{"STATEFILE": state}}, o)
	if r.Status != StatusMeasured || r.First == nil || r.Second != nil {
		t.Fatalf("%s: first %v second %v", r.Status, r.First != nil, r.Second != nil)
	}
}

// TestRelistListsTwiceInOneSession checks that Relist asks tools/list a
// second time in the one launch: the same pages from a steady server,
// other pages from one that changes on every call, and the same from one
// that changes only from launch to launch.
func TestRelistListsTwiceInOneSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		same bool
	}{
		{"ok", true},
		{"full", true},
		{"dynamic-call", false},
		{"dynamic", true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			o := testOptions()
			o.Once, o.Relist = true, true
			state := filepath.Join(t.TempDir(), "state")
			r := Measure(context.Background(), Target{Command: bin(t, "stdioserver"), Args: []string{tc.mode}, Env: map[string]string{"STATEFILE": state}}, o)
			if r.Status != StatusMeasured || r.First == nil || r.Second != nil {
				t.Fatalf("%s: %s", r.Status, r.Detail)
			}
			if len(r.First.RelistPages) != len(r.First.ToolsPages) {
				t.Fatalf("%d pages listed again, want %d", len(r.First.RelistPages), len(r.First.ToolsPages))
			}
			same := true
			for i := range r.First.ToolsPages {
				same = same && string(r.First.ToolsPages[i]) == string(r.First.RelistPages[i])
			}
			if same != tc.same {
				t.Errorf("the two lists are the same: %v, want %v", same, tc.same)
			}
			if tc.mode == "dynamic" {
				if n, _ := os.ReadFile(state); string(n) != "1" {
					t.Errorf("launched %q times, want 1", n)
				}
			}
		})
	}
	// Without Relist there is no second list.
	o := testOptions()
	o.Once = true
	r := Measure(context.Background(), Target{Command: bin(t, "stdioserver"), Args: []string{"ok"}}, o)
	if r.Status != StatusMeasured || r.First.RelistPages != nil {
		t.Fatalf("%s: relist %v", r.Status, r.First != nil && r.First.RelistPages != nil)
	}
}

// TestChildEnvironment checks that a stdio server sees PATH and HOME from
// the host plus the target's Env, and nothing else.
func TestChildEnvironment(t *testing.T) {
	t.Setenv("MCPCOST_TEST_LEAK", "1")
	o := testOptions()
	o.Once = true
	r := Measure(context.Background(), Target{Command: bin(t, "stdioserver"), Args: []string{"env"}, Env: map[string]string{"API_KEY": "k", "PATH": "/usr/bin:/bin"}}, o)
	if r.Status != StatusMeasured {
		t.Fatalf("%s: %s", r.Status, r.Detail)
	}
	var page struct {
		Tools []struct{ Description string } `json:"tools"`
	}
	json.Unmarshal(r.First.ToolsPages[0], &page)
	if got := page.Tools[0].Description; got != "API_KEY,HOME,PATH" {
		t.Errorf("the server saw %q, want API_KEY,HOME,PATH", got)
	}
}

func TestStartFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		target Target
		detail string
	}{
		{"missing", Target{Command: "mcpcost-no-such-server"}, "cannot start mcpcost-no-such-server: mcpcost-no-such-server not found on the PATH"},
		{"missing-path", Target{Command: "/nonexistent/server"}, "cannot start server: no such file or directory"},
		{"not-executable", Target{Command: "./measure_test.go"}, "cannot start measure_test.go: permission denied"},
		{"bad-cwd", Target{Command: bin(t, "stdioserver"), Cwd: "/nonexistent/dir"}, "cannot start stdioserver: the folder it starts in (cwd) does not exist"},
		{"bad-cwd-path-entry", Target{Command: "stdioserver", Cwd: "/nonexistent/dir", Env: map[string]string{"PATH": "bin:" + filepath.Dir(bin(t, "stdioserver"))}}, "cannot start stdioserver: the folder it starts in (cwd) does not exist"},
		{"cwd-file", Target{Command: bin(t, "stdioserver"), Cwd: "measure_test.go"}, "cannot start stdioserver: the folder it starts in (cwd) is not a folder"},
		{"empty", Target{Transport: "stdio"}, "no command to run"},
		{"no-url", Target{Transport: "http"}, "no URL to connect to"},
		{"bad-url", Target{URL: "ftp://example.com/x"}, "not an http(s) URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Measure(context.Background(), tc.target, testOptions())
			if r.Status != StatusStartupFailure || !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("%s: %s; want startup-failure saying %q", r.Status, r.Detail, tc.detail)
			}
		})
	}
}

// TestSecretsNeverLeave runs every way a secret can reach mcpcost (env,
// headers, a token in the URL) through successes and failures, and checks
// that no Result field but Target, and no progress line, carries it.
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	const canary = "canary-7f3a9c1e"
	bearer := startHTTPServer(t, "bearer", "TOKEN="+canary)
	oauth := startHTTPServer(t, "oauth")
	targets := []Target{
		{Name: "stdio-ok", Command: bin(t, "stdioserver"), Args: []string{"ok"}, Env: map[string]string{"SECRET": canary}},
		{Name: "stdio-echo", Command: bin(t, "stdioserver"), Args: []string{"echo-secret"}, Env: map[string]string{"SECRET": canary}},
		{Name: "http-ok", URL: bearer + "/mcp", Headers: map[string]string{"Authorization": "Bearer " + canary}},
		{Name: "http-wrong", URL: bearer + "/mcp", Headers: map[string]string{"Authorization": "Bearer " + canary + "x"}},
		{Name: "http-oauth", URL: oauth + "/mcp?token=" + canary, Headers: map[string]string{"X-Api-Key": canary}},
		{URL: bearer + "/mcp?key=" + canary},
	}
	var progress strings.Builder
	o := testOptions()
	o.Progress = func(s Step) { fmt.Fprintf(&progress, "%+v\n", s) }
	results := MeasureAll(context.Background(), targets, o, 3)
	want := []Status{StatusMeasured, StatusStartupFailure, StatusMeasured, StatusAuthRequired, StatusRemoteAuthWall, StatusAuthRequired}
	for i, r := range results {
		if r.Status != want[i] {
			t.Errorf("%s: %s (%s), want %s", targets[i].Name, r.Status, r.Detail, want[i])
		}
		r.Target = Target{}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(canary)) || strings.Contains(fmt.Sprintf("%+v", r), canary) {
			t.Errorf("%s: the secret appears in the result: %s", targets[i].Name, data)
		}
	}
	if !strings.Contains(results[1].StderrTail, "starting with key ***") {
		t.Errorf("stderr tail %q", results[1].StderrTail)
	}
	if strings.Contains(progress.String(), canary) {
		t.Errorf("the secret appears in the progress: %s", progress.String())
	}
}

func TestMeasureAll(t *testing.T) {
	t.Parallel()
	var targets []Target
	for i := range 7 {
		mode := "ok"
		if i%3 == 1 {
			mode = "crash"
		}
		targets = append(targets, Target{Name: fmt.Sprintf("s%d", i), Command: bin(t, "stdioserver"), Args: []string{mode}})
	}
	var steps []Step
	o := testOptions()
	o.Progress = func(s Step) { steps = append(steps, s) }
	results := MeasureAll(context.Background(), targets, o, 2)
	// Told of the start, then of each target as it ends.
	if len(steps) != len(targets)+1 || steps[0] != (Step{Total: len(targets)}) || steps[len(steps)-1].Done != len(targets) {
		t.Errorf("progress %+v", steps)
	}
	for i, r := range results {
		if r.Target.Name != targets[i].Name {
			t.Fatalf("result %d is for %s", i, r.Target.Name)
		}
		want := StatusMeasured
		if i%3 == 1 {
			want = StatusStartupFailure
		}
		if r.Status != want {
			t.Errorf("%s: %s, want %s", r.Target.Name, r.Status, want)
		}
	}
}

// TestMeasureAllBoundsConcurrency checks that no more than the given
// number of measurements run at once.
func TestMeasureAllBoundsConcurrency(t *testing.T) {
	var running, peak atomic.Int32
	orig := measureHook
	measureHook = func() func() {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
		return func() { running.Add(-1) }
	}
	defer func() { measureHook = orig }()
	targets := make([]Target, 9)
	for i := range targets {
		targets[i] = Target{Transport: "stdio"} // fails at once: no command
	}
	MeasureAll(context.Background(), targets, testOptions(), 3)
	if p := peak.Load(); p != 3 {
		t.Errorf("peak concurrency %d, want 3", p)
	}
	peak.Store(0)
	MeasureAll(context.Background(), targets, testOptions(), 0)
	if p, want := peak.Load(), int32(min(DefaultConcurrency(), len(targets))); p != want {
		t.Errorf("default: peak concurrency %d, want %d", p, want)
	}
}

// TestNoGoroutineLeft measures hostile servers one after another and
// checks that the goroutine count returns to where it was.
func TestNoGoroutineLeft(t *testing.T) {
	base := startHTTPServer(t, "hang")
	sse := startHTTPServer(t, "sse")
	streamable := startHTTPServer(t, "streamable")
	o := testOptions()
	o.Timeout = 300 * time.Millisecond
	targets := []Target{
		{Command: bin(t, "stdioserver"), Args: []string{"ok"}},
		{Command: bin(t, "stdioserver"), Args: []string{"silent"}},
		{Command: bin(t, "stdioserver"), Args: []string{"exit-mid-list"}},
		{Command: bin(t, "stdioserver"), Args: []string{"huge"}},
		{Command: bin(t, "stdioserver"), Args: []string{"spawn-child"}},
		{Command: bin(t, "stdioserver"), Args: []string{"deaf-pinger"}},
		{URL: base + "/mcp"},
		{URL: sse + "/sse"},
		{URL: streamable + "/mcp"},
	}
	// Warm up whatever the runtime and the SDK start once per process.
	Measure(context.Background(), targets[0], o)
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	for _, tg := range targets {
		start := time.Now()
		r := Measure(context.Background(), tg, o)
		t.Logf("%s %v: %s (%s)", tg.Args, time.Since(start), r.Status, r.Detail)
	}
	if after := settleGoroutines(before); after > before {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Errorf("%d goroutines before, %d after:\n%s", before, after, buf[:n])
	}
}

func TestScrubberAndURLs(t *testing.T) {
	s := (Target{
		Env:     map[string]string{"A": "abc", "B": "abcdef", "SHORT": "x"},
		Headers: map[string]string{"Authorization": "Bearer tok123"},
		URL:     "https://user:pw-secret@example.com/mcp?api_key=qv9&x=1",
	}).Scrubber()
	got := s.String("abcdef abc x Bearer tok123 tok123 pw-secret qv9")
	want := "*** *** x *** *** *** ***"
	if got != want {
		t.Errorf("scrub: %q, want %q", got, want)
	}
	for in, want := range map[string]string{
		"https://user:pw@example.com/mcp?api_key=qv9#frag": "https://example.com/mcp?…",
		"http://127.0.0.1:8080/sse":                        "http://127.0.0.1:8080/sse",
		"not a url":                                        "(invalid URL)",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 16}
	for _, s := range []string{"one\n", "two\n", "three\n", "four\n", "five\n"} {
		b.Write([]byte(s))
	}
	if got := string(b.buf); got != "ee\nfour\nfive\n" && len(b.buf) > 16 {
		t.Errorf("kept %q", got)
	}
	if got := b.lastLines(2); got != "four\nfive" {
		t.Errorf("lastLines(2) = %q", got)
	}
	b.Write([]byte(strings.Repeat("z", 100)))
	if len(b.buf) != 16 {
		t.Errorf("kept %d bytes, max 16", len(b.buf))
	}
}

func TestHasAuthParam(t *testing.T) {
	for _, tc := range []struct {
		h    string
		want bool
	}{
		{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`, true},
		{`Bearer realm="mcp", Resource_Metadata="https://x"`, true},
		{`Bearer realm="resource_metadata=x"`, false},
		{`Bearer error="invalid_token"`, false},
		{``, false},
	} {
		if got := hasAuthParam(tc.h, "resource_metadata"); got != tc.want {
			t.Errorf("hasAuthParam(%q) = %v", tc.h, got)
		}
	}
}

func TestTransportOf(t *testing.T) {
	got := []string{
		transportOf(Target{Command: "x"}),
		transportOf(Target{URL: "http://x"}),
		transportOf(Target{URL: "http://x", Transport: "sse"}),
		transportOf(Target{Command: "x", Transport: "bogus"}),
	}
	if want := []string{"stdio", "http", "sse", "stdio"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}
