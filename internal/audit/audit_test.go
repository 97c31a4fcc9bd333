package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/testpeers"
)

const canary = "canary-5e6f7a8b9c0d"

// TestNPMReferenceServers audits a .mcp.json holding the npm filesystem and
// memory reference servers: 14 + 9 tools, 2,823 + 2,378 tokens, as in the
// corpus; a second run from the cache takes under a tenth of the first; a
// canary secret in env, headers, args and URL appears in no output and in
// no cache file.
func TestNPMReferenceServers(t *testing.T) {
	fsBin := testpeers.NPMBin(t, "mcp-server-filesystem")
	memBin := testpeers.NPMBin(t, "mcp-server-memory")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, ".mcp.json")
	cfg := map[string]any{"mcpServers": map[string]any{
		"filesystem": map[string]any{"command": fsBin, "args": []string{dir}, "env": map[string]string{"API_TOKEN": canary}},
		"memory": map[string]any{"command": memBin, "args": []string{"--token=" + canary},
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
		"remote": map[string]any{"type": "http", "url": "http://127.0.0.1:1/mcp?apiKey=" + canary,
			"headers": map[string]string{"Authorization": "Bearer " + canary}},
	}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sys := clients.System{OS: "linux", Home: filepath.Join(dir, "home"), Cwd: dir, Getenv: func(string) string { return "" }, FS: clients.OSFS{}}
	c, err := clients.Load(sys, cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(dir, "cache")
	cache, err := audit.OpenCache(cacheDir, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	opts := audit.Options{
		Cache:   cache,
		Measure: mcpclient.Options{Timeout: 30 * time.Second},
		Posture: func(client string) clients.Posture { return clients.PostureFor(sys, client) },
		Now:     func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
	}
	start := time.Now()
	rep := audit.Run(context.Background(), []clients.Config{c}, opts)
	first := time.Since(start)
	check := func(rep *audit.Report, cached bool) {
		t.Helper()
		if len(rep.Configs) != 1 {
			t.Fatalf("configs: %d", len(rep.Configs))
		}
		got := map[string]audit.Server{}
		for _, s := range rep.Configs[0].Servers {
			got[s.Name] = s
		}
		for name, want := range map[string][2]int{"filesystem": {14, 2823}, "memory": {9, 2378}} {
			s := got[name]
			if s.Tokens == nil || *s.ToolCount != want[0] || *s.Tokens != want[1] {
				t.Errorf("%s: status %s %s, tools %v tokens %v; want %d tools, %d tokens", name, s.Status, s.Detail, s.ToolCount, s.Tokens, want[0], want[1])
			}
			if s.Cached != cached {
				t.Errorf("%s: cached = %v, want %v", name, s.Cached, cached)
			}
		}
		if r := got["remote"]; r.Tokens != nil || r.Status != string(mcpclient.StatusStartupFailure) {
			t.Errorf("remote: %s %v", r.Status, r.Tokens)
		}
		if c := rep.Configs[0]; c.TotalTokens != 2823+2378 || !c.LowerBound || !rep.Partial {
			t.Errorf("total %d lowerBound %v partial %v", c.TotalTokens, c.LowerBound, rep.Partial)
		}
	}
	check(rep, false)

	start = time.Now()
	rep2 := audit.Run(context.Background(), []clients.Config{c}, opts)
	second := time.Since(start)
	check(rep2, true)
	t.Logf("first audit %v, second (cached) %v: %.1f%%", first, second, 100*float64(second)/float64(first))
	if second*10 > first {
		t.Errorf("cached audit took %v, more than a tenth of the first (%v)", second, first)
	}

	// The canary appears nowhere: text, JSON, Markdown, cache files.
	var out bytes.Buffer
	render.AuditText(&out, rep, render.Screen{Width: 80})
	render.JSON(&out, rep)
	render.AuditMarkdown(&out, rep)
	if strings.Contains(out.String(), canary) {
		t.Errorf("the canary secret appears in the output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "--token=***") || !strings.Contains(out.String(), "apiKey=***") {
		t.Errorf("redacted launch forms missing from the output")
	}
	filepath.Walk(cacheDir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(canary)) {
				t.Errorf("the canary secret is in cache file %s", p)
			}
		}
		return nil
	})
}

// TestServerEchoScrubbed: a server that repeats its whole launch (its
// arguments, env values and the values of ${VAR}s expanded into them) in
// its stderr and its error message shows the marker in every format and
// in the cache, whoever measured it.
func TestServerEchoScrubbed(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, ".mcp.json")
	cfg := map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": "srv", "args": []string{"--token=" + canary + "-a", "--api-key", canary + "-b",
			"postgresql://app:" + canary + "-c@db/x", "API_KEY=" + canary + "-d", "Bearer " + canary + "-e", "${SECRET}"},
			"env": map[string]string{"X": canary + "-f"}},
	}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"SECRET": canary + "-g"}
	sys := clients.System{OS: "linux", Home: filepath.Join(dir, "home"), Cwd: dir, Getenv: func(k string) string { return vars[k] }, FS: clients.OSFS{}}
	c, err := clients.Load(sys, cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	echo := func(_ context.Context, ts []mcpclient.Target, _ mcpclient.Options, _ int) []mcpclient.Result {
		out := make([]mcpclient.Result, len(ts))
		for i, tg := range ts {
			said := strings.Join(tg.Args, " ") + " " + tg.Env["X"]
			// No Target: the audit scrubs with the launch it asked for.
			out[i] = mcpclient.Result{Status: mcpclient.StatusStartupFailure, Detail: "refused " + said, StderrTail: "starting with " + said}
		}
		return out
	}
	cacheDir := filepath.Join(dir, "cache")
	cache, err := audit.OpenCache(cacheDir, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	rep := audit.Run(context.Background(), []clients.Config{c}, audit.Options{Measurer: echo, Cache: cache})
	var out bytes.Buffer
	render.AuditText(&out, rep, render.Screen{Width: 80})
	render.JSON(&out, rep)
	render.AuditMarkdown(&out, rep)
	if strings.Contains(out.String(), canary) {
		t.Errorf("the canary secret appears in the output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "refused --token=*** --api-key *** postgresql://app:***@db/x API_KEY=*** Bearer *** ***") {
		t.Errorf("the echo is not in the output, or not as redacted:\n%s", out.String())
	}
}
