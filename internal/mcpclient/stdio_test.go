//go:build unix

package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testOptions are small budgets and limits, so that every hostile case
// ends quickly.
// TestStdioClasses runs each hostile behaviour of testdata/stdioserver and
// checks its class, its detail, its time bound and that no process of it
// is left.
func TestStdioClasses(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		status Status
		detail string        // substring of Detail
		bound  time.Duration // Measure must return within this
		opts   func(o *Options)
		check  func(t *testing.T, r Result)
	}{
		{mode: "ok", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if n := len(r.First.Tools()); n != 3 {
				t.Errorf("%d tools, want 3", n)
			}
			if r.First.Instructions != nil || r.First.PromptsPages != nil {
				t.Error("instructions or prompts captured from a server without them")
			}
			if r.First.ServerName != "stdioserver" || r.First.ServerVersion != "1.0.0" {
				t.Errorf("server %q %q", r.First.ServerName, r.First.ServerVersion)
			}
		}},
		{mode: "full", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			c := r.First
			if len(c.ToolsPages) != 3 || len(c.Tools()) != 3 {
				t.Errorf("%d pages, %d tools; want 3 and 3", len(c.ToolsPages), len(c.Tools()))
			}
			if c.Instructions == nil || *c.Instructions != "Use these tools for testing." {
				t.Errorf("instructions %v", c.Instructions)
			}
			if len(c.PromptsPages) != 2 || len(c.ResourcesPages) != 1 || c.ResourceTemplatesPages != nil {
				t.Errorf("prompts %d pages, resources %d, templates %v", len(c.PromptsPages), len(c.ResourcesPages), c.ResourceTemplatesPages)
			}
			if !hasWarning(c, "resourceTemplates not counted") {
				t.Errorf("no warning about the failed templates list: %q", c.Warnings)
			}
		}},
		{mode: "banner", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if r.First.SkippedStdoutLines < 4 {
				t.Errorf("skipped %d lines, warnings %q", r.First.SkippedStdoutLines, r.First.Warnings)
			}
			if n := len(r.First.Tools()); n != 3 {
				t.Errorf("%d tools, want 3", n)
			}
		}},
		{mode: "stderr-flood", status: StatusMeasured, bound: 10 * time.Second, opts: func(o *Options) { o.MaxStderrBytes = 4096 }},
		{mode: "huge", status: StatusProtocolError, detail: "larger than the 1048576-byte limit", bound: 8 * time.Second},
		{mode: "endless-pages", status: StatusProtocolError, detail: "more than 20 pages", bound: 8 * time.Second},
		{mode: "endless-pages", status: StatusProtocolError, detail: "more than 2000 bytes of results", bound: 8 * time.Second, opts: func(o *Options) { o.MaxCaptureBytes = 2000 }},
		{mode: "repeat-cursor", status: StatusProtocolError, detail: "pagination loop", bound: 8 * time.Second},
		{mode: "many-tools", status: StatusProtocolError, detail: "more than 100 tools", bound: 8 * time.Second, opts: func(o *Options) { o.MaxTools = 100 }},
		{mode: "dup-names", status: StatusProtocolError, detail: `tools 1 and 3 are both named "alpha"`, bound: 8 * time.Second},
		{mode: "no-name", status: StatusProtocolError, detail: "tool 2 has no name", bound: 8 * time.Second},
		{mode: "not-array", status: StatusProtocolError, detail: `"tools" is not an array`, bound: 8 * time.Second},
		{mode: "invalid-utf8", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if !bytes.Contains(r.First.ToolsPages[0], []byte("caf\xe9\xff ok")) {
				t.Errorf("raw page lost the bytes the server sent: %q", r.First.ToolsPages[0])
			}
			if !hasWarning(r.First, "invalid UTF-8") {
				t.Errorf("warnings %q", r.First.Warnings)
			}
		}},
		{mode: "server-requests", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			var page struct {
				Tools []struct{ Description string } `json:"tools"`
			}
			json.Unmarshal(r.First.ToolsPages[0], &page)
			want := "elicitation=error -32601; ping=result; roots=error -32601; sampling=error -32601"
			if len(page.Tools) != 1 || page.Tools[0].Description != want {
				t.Errorf("the server saw %+v, want %q", page.Tools, want)
			}
			for _, w := range []string{"roots/list", "sampling/createMessage", "elicitation/create", "ping", "tools/list_changed"} {
				if !hasWarning(r.First, w) {
					t.Errorf("no warning about %s: %q", w, r.First.Warnings)
				}
			}
		}},
		// Timeout bounds the whole measurement: a server that never
		// answers ends at the budget, plus the kill grace.
		{mode: "silent", status: StatusTimeout, detail: "no answer to the handshake within the 300ms budget of the measurement", bound: 2500 * time.Millisecond, opts: func(o *Options) { o.Timeout = 300 * time.Millisecond }},
		{mode: "slow-pages", status: StatusTimeout, detail: "within the 1.5s budget of the measurement", bound: 3500 * time.Millisecond, opts: func(o *Options) { o.Timeout = 1500 * time.Millisecond }},
		{mode: "deaf-pinger", status: StatusTimeout, bound: 2500 * time.Millisecond, opts: func(o *Options) { o.Timeout = 500 * time.Millisecond }},
		// server/discover unanswered for a quarter of the budget: the same
		// launch goes on with initialize, and the second capture speaks
		// that era at once.
		{mode: "no-discover", status: StatusMeasured, bound: 3 * time.Second, opts: func(o *Options) { o.Timeout = 2 * time.Second }, check: func(t *testing.T, r Result) {
			if !hasWarning(r.First, "did not answer server/discover within 500ms") || r.First.ProtocolVersion != legacyProtocolVersion || r.Second.ProtocolVersion != legacyProtocolVersion {
				t.Errorf("protocol %s, warnings %q", r.First.ProtocolVersion, r.First.Warnings)
			}
		}},
		// Slow to start and modern only: server/discover is answered for
		// it, initialize is refused, its late discover answer shows what it
		// speaks, and the relaunch speaks 2026-07-28 alone.
		{mode: "slow-modern", status: StatusMeasured, bound: 5 * time.Second, opts: func(o *Options) { o.Timeout = 4 * time.Second }, check: func(t *testing.T, r Result) {
			if r.First.ProtocolVersion != modernProtocolVersion || r.Second.ProtocolVersion != modernProtocolVersion || len(r.First.Tools()) != 3 {
				t.Errorf("protocols %s and %s, %d tools", r.First.ProtocolVersion, r.Second.ProtocolVersion, len(r.First.Tools()))
			}
		}},
		{mode: "discover-crash", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if !hasWarning(r.First, "never answered server/discover") || r.First.ProtocolVersion != legacyProtocolVersion {
				t.Errorf("protocol %s, warnings %q", r.First.ProtocolVersion, r.First.Warnings)
			}
		}},
		{mode: "bad-version", status: StatusProtocolError, detail: `"1999-01-01"`, bound: 8 * time.Second},
		{mode: "odd-init", status: StatusProtocolError, detail: "the initialize result is malformed: instructions is a number, not a string", bound: 8 * time.Second},
		{mode: "no-tools", status: StatusMeasured, bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			c := r.First
			if len(c.Tools()) != 0 || len(c.PromptsPages) != 2 || !hasWarning(c, "tools not counted") {
				t.Errorf("%d tools, %d prompt pages, warnings %q", len(c.Tools()), len(c.PromptsPages), c.Warnings)
			}
		}},
		{mode: "rpc-error", status: StatusProtocolError, detail: "JSON-RPC error -32603", bound: 8 * time.Second},
		{mode: "exit-mid-list", status: StatusStartupFailure, detail: "exit status 3", bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if !strings.Contains(r.StderrTail, "lost the second page") {
				t.Errorf("stderr tail %q", r.StderrTail)
			}
		}},
		{mode: "crash", status: StatusStartupFailure, detail: "exit status 1", bound: 8 * time.Second, check: func(t *testing.T, r Result) {
			if r.StderrTail != "loading configuration\nfatal: the database is not reachable" {
				t.Errorf("stderr tail %q", r.StderrTail)
			}
		}},
		{mode: "ignore-stdin", status: StatusMeasured, bound: 9 * time.Second},
		{mode: "spawn-child", status: StatusMeasured, bound: 9 * time.Second},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			pidfile := filepath.Join(t.TempDir(), "pids")
			target := Target{Command: bin(t, "stdioserver"), Args: []string{tc.mode}, Env: map[string]string{"PIDFILE": pidfile, "STATEFILE": filepath.Join(t.TempDir(), "state")}, Cwd: t.TempDir()}
			o := testOptions()
			if tc.opts != nil {
				tc.opts(&o)
			}
			start := time.Now()
			r := Measure(context.Background(), target, o)
			elapsed := time.Since(start)
			if r.Status != tc.status {
				t.Fatalf("status %s (%s), want %s\nstderr: %s", r.Status, r.Detail, tc.status, r.StderrTail)
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
			if !r.OK() && (r.First != nil || r.Second != nil) {
				t.Error("a failed result carries captures")
			}
			if _, err := os.Stat(pidfile); err == nil {
				assertGone(t, pidsIn(t, pidfile))
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func hasWarning(c *Capture, sub string) bool {
	for _, w := range c.Warnings {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}
