package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/findings"
)

// A fake home whose .mcp.json names two servers that are never launched:
// their measurements come from a pre-filled measurement cache. One of
// them has a description Claude Code cuts; the findings count the cut
// exactly from the cached text, and read MAX_MCP_OUTPUT_TOKENS from
// Claude Code's settings.
func TestFindingsFromCache(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	cacheDir := filepath.Join(root, "cache")
	vars := map[string]string{"HOME": home, "MCPCOST_CACHE_DIR": cacheDir, "ENABLE_TOOL_SEARCH": "false"}
	getenv := func(k string) string { return vars[k] }
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mcpJSON := filepath.Join(proj, ".mcp.json")
	write(mcpJSON, `{"mcpServers": {"docs": {"command": "/nonexistent/docs-server"}, "notes": {"command": "/nonexistent/notes-server", "args": ["--db", "x"]}}}`)
	write(filepath.Join(home, ".claude", "settings.json"), `{"env": {"MAX_MCP_OUTPUT_TOKENS": "8000"}}`)

	// The cache: docs has one tool with a 2,100-character description
	// (4,200 bytes), notes two small tools.
	sys, err := clients.Local(getenv, proj)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clients.Load(sys, mcpJSON)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := audit.OpenCache(cacheDir, audit.DefaultMaxAge)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 2_100)
	tools := map[string]string{
		"docs":  `[{"name":"lookup","description":"` + long + `","inputSchema":{"type":"object"}}]`,
		"notes": `[{"name":"add_note","description":"Add a note.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},{"name":"list_notes","description":"List notes.","inputSchema":{"type":"object"}}]`,
	}
	measured := time.Now()
	for _, s := range cfg.Servers {
		if err := cache.Put(s.LaunchKey(cache.Key()), &audit.Entry{MeasuredAt: measured, Status: "measured", ServerName: s.Name, Transport: "stdio", Tools: json.RawMessage(tools[s.Name])}); err != nil {
			t.Fatal(err)
		}
	}

	// Twelve requests in the project, each calling docs; notes never.
	var lines []string
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i := range 12 {
		ts := at.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant","sessionId":"s1","cwd":%q,"timestamp":%q,"requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t%d","name":"mcp__docs__lookup","input":{"q":%d}}],"usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":9990}}}`, proj, ts, i, i, i, i),
			fmt.Sprintf(`{"type":"user","sessionId":"s1","cwd":%q,"timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}}`, proj, ts, i, strings.Repeat(" word", 9_000)))
	}
	write(filepath.Join(home, ".claude", "projects", "-proj", "s1.jsonl"), strings.Join(lines, "\n")+"\n")

	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Environ: func() []string { return nil }, Now: func() time.Time { return at.AddDate(0, 0, 2) }}
	code := Run(env, []string{"findings", "--json", "--project", proj, "--config", mcpJSON, "--db", filepath.Join(root, "usage.db")})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	var rep struct {
		Schema     string
		Thresholds findings.Thresholds
		Notes      []string
		Findings   []struct {
			Type     string
			Level    string
			Subject  findings.Subject
			Evidence json.RawMessage
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if rep.Schema != findings.Schema || rep.Thresholds.OutputLimit != 8_000 || !strings.Contains(strings.Join(rep.Notes, "\n"), "MAX_MCP_OUTPUT_TOKENS is 8,000") {
		t.Errorf("schema %s, output limit %d, notes %q", rep.Schema, rep.Thresholds.OutputLimit, rep.Notes)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		var ev bytes.Buffer
		if err := json.Compact(&ev, f.Evidence); err != nil {
			t.Fatal(err)
		}
		got[f.Type] = f.Subject.Server + "/" + f.Subject.Tool + " " + f.Level + " " + ev.String()
	}
	if len(got) != 3 {
		t.Errorf("findings: %v", got)
	}
	if g := got[findings.TypeIdleServer]; !strings.HasPrefix(g, "notes/ warn") || !strings.Contains(g, `"requests":12,`) || !strings.Contains(g, `"calls":0,`) {
		t.Errorf("idle: %s", g)
	}
	if g := got[findings.TypeHeavyDefinition]; !strings.HasPrefix(g, "docs/lookup warn") || !strings.Contains(g, `"descriptionLength":2100,"descriptionExact":true,"cutCharacters":52`) {
		t.Errorf("heavy definition: %s", g)
	}
	// Results of 9,000 tokens: over the 8,000 set in settings.json.
	if g := got[findings.TypeOversizedResults]; !strings.HasPrefix(g, "docs/lookup high") || !strings.Contains(g, `"overLimit":12`) {
		t.Errorf("oversized: %s", g)
	}

	// --fail-on high fails; an unknown level is a usage error.
	stdout.Reset()
	if code := Run(env, []string{"findings", "--no-ingest", "--fail-on", "high", "--project", proj, "--config", mcpJSON, "--db", filepath.Join(root, "usage.db")}); code != ExitFail {
		t.Errorf("--fail-on high: exit %d", code)
	}
	if code := Run(env, []string{"findings", "--fail-on", "severe"}); code != ExitError {
		t.Errorf("--fail-on severe: exit %d", code)
	}

	// The report, from the same data: JSON and an HTML file.
	args := []string{"report", "--no-ingest", "--project", proj, "--config", mcpJSON, "--db", filepath.Join(root, "usage.db")}
	stdout.Reset()
	if code := Run(env, append(args, "--json")); code != ExitOK || !strings.Contains(stdout.String(), `"schema": "mcpcost.report/v1"`) || !strings.Contains(stdout.String(), `"carriedTokens"`) {
		t.Errorf("report --json: exit %d\n%s", code, stdout.String())
	}
	page := filepath.Join(root, "report.html")
	if code := Run(env, append(args, "--html", page)); code != ExitOK {
		t.Errorf("report --html: exit %d\n%s", code, stderr.String())
	}
	if b, err := os.ReadFile(page); err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") || !strings.Contains(string(b), "docs · lookup") {
		t.Errorf("report.html: %v", err)
	}
	if code := Run(env, append(args, "--html", filepath.Join(root, "no-such-folder", "r.html"))); code != ExitError {
		t.Errorf("report --html into a missing folder: exit %d", code)
	}
}
