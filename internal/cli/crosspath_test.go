package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/serve"
)

// TestSamePathCLIAndMCP runs one fake home through the command line and
// through the MCP tools (audit_config, usage_summary, findings) and
// requires the same answers: both take the one path through app. The
// home's Claude Code settings set MAX_MCP_OUTPUT_TOKENS and pre-approve a
// tool, its cached tools have a description Claude Code cuts, so the
// findings differ if either path leaves out a setting.
func TestSamePathCLIAndMCP(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	cacheDir := filepath.Join(root, "cache")
	vars := map[string]string{"HOME": home, "MCPCOST_CACHE_DIR": cacheDir, "ENABLE_TOOL_SEARCH": "false", "TZ": "UTC"}
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
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	// User-scope servers: in every Claude Code session, no approval needed.
	write(filepath.Join(home, ".claude.json"), `{"mcpServers": {"docs": {"command": "/nonexistent/docs-server"}, "notes": {"command": "/nonexistent/notes-server", "args": ["--db", "x"]}}}`)
	write(filepath.Join(home, ".claude", "settings.json"), `{"env": {"MAX_MCP_OUTPUT_TOKENS": "8000"}, "permissions": {"allow": ["mcp__docs__lookup"]}}`)

	// The cache: docs has one tool with a 2,100-character description,
	// notes two small tools.
	sys, err := clients.Local(getenv, proj)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := audit.OpenCache(cacheDir, audit.DefaultMaxAge)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]string{
		"docs":  `[{"name":"lookup","description":"` + strings.Repeat("é", 2_100) + `","inputSchema":{"type":"object"}}]`,
		"notes": `[{"name":"add_note","description":"Add a note.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},{"name":"list_notes","description":"List notes.","inputSchema":{"type":"object"}}]`,
	}
	configs, _ := clients.Discover(sys, nil)
	n := 0
	for _, cfg := range configs {
		for _, s := range cfg.Servers {
			if err := cache.Put(s.LaunchKey(cache.Key()), &audit.Entry{MeasuredAt: time.Now(), Status: "measured", ServerName: s.Name, Transport: "stdio", Tools: json.RawMessage(tools[s.Name])}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d servers discovered, want 2", n)
	}

	// Twelve requests in the project, each calling docs, with results of
	// 9,000 tokens (over the 8,000 of the settings); slow ones (30 s).
	var lines []string
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i := range 12 {
		ts := at.Add(time.Duration(i) * time.Minute)
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant","sessionId":"s1","cwd":%q,"timestamp":%q,"requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t%d","name":"mcp__docs__lookup","input":{"q":%d}}],"usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":9990}}}`, proj, ts.Format("2006-01-02T15:04:05.000Z"), i, i, i, i),
			fmt.Sprintf(`{"type":"user","sessionId":"s1","cwd":%q,"timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}}`, proj, ts.Add(30*time.Second).Format("2006-01-02T15:04:05.000Z"), i, strings.Repeat(" word", 9_000)))
	}
	write(filepath.Join(home, ".claude", "projects", "-proj", "s1.jsonl"), strings.Join(lines, "\n")+"\n")
	now := at.AddDate(0, 0, 2)

	// The command line, with its own store.
	cliDB := filepath.Join(root, "cli.db")
	runJSON := func(out any, args ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Environ: func() []string { return nil }, Now: func() time.Time { return now }}
		if code := Run(env, args); code != ExitOK {
			t.Fatalf("mcpcost %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
			t.Fatalf("mcpcost %s: %v\n%s", strings.Join(args, " "), err, stdout.String())
		}
	}

	// The MCP server, with another store, reading the same transcripts.
	claudeRoots, codexRoots := (&app.Machine{Getenv: getenv}).TranscriptRoots()
	o := serve.Options{Version: "test", Getenv: getenv, Project: proj, Now: func() time.Time { return now },
		DBPath: filepath.Join(root, "serve.db"), ClaudeRoots: claudeRoots, CodexRoots: codexRoots, Location: time.UTC}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := serve.New(o).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "crosspath-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	callTool := func(out any, name string, args map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError || res.StructuredContent == nil {
			t.Fatalf("%s: error or no result: %+v", name, res.Content)
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
	}

	t.Run("audit", func(t *testing.T) {
		var c struct {
			ContextWindow int
			Partial       bool
			Configs       []struct {
				Client, Path, Scope string
				TotalTokens         int
				UpFrontTokens       *int
				Servers             []struct {
					Name, Status      string
					Tokens, ToolCount *int
				}
			}
		}
		runJSON(&c, "audit", "--json", "--offline", "--project", proj)
		var s serve.AuditResult
		callTool(&s, "audit_config", nil)
		cliView, serveView := []string{fmt.Sprintf("window %d partial %v", c.ContextWindow, c.Partial)}, []string{fmt.Sprintf("window %d partial %v", s.ContextWindow, s.Partial)}
		for _, cfg := range c.Configs {
			cliView = append(cliView, fmt.Sprintf("%s %s %s: %d tokens, %s up front", cfg.Client, cfg.Path, cfg.Scope, cfg.TotalTokens, intp(cfg.UpFrontTokens)))
			for _, sv := range cfg.Servers {
				cliView = append(cliView, fmt.Sprintf("  %s %s %s tokens %s tools", sv.Name, sv.Status, intp(sv.Tokens), intp(sv.ToolCount)))
			}
		}
		for _, cfg := range s.Configs {
			serveView = append(serveView, fmt.Sprintf("%s %s %s: %d tokens, %s up front", cfg.Client, cfg.Path, cfg.Scope, cfg.Tokens, intp(cfg.UpFrontTokens)))
			for _, sv := range cfg.Servers {
				serveView = append(serveView, fmt.Sprintf("  %s %s %s tokens %s tools", sv.Name, sv.Status, intp(sv.Tokens), intp(sv.Tools)))
			}
		}
		same(t, cliView, serveView)
		if len(c.Configs) != 1 || len(c.Configs[0].Servers) != 2 || c.Configs[0].TotalTokens == 0 {
			t.Errorf("not the fake home's config: %q", cliView)
		}
	})

	t.Run("usage", func(t *testing.T) {
		var c struct {
			Totals struct {
				Requests, Sessions, ToolCalls int
				Tokens                        struct{ Total int64 }
				ResultTokens, MCPResultTokens int64
			}
			Tools []struct {
				Server       string
				BuiltIn      bool
				Calls        int
				Errors       int
				ResultTokens int64
			}
		}
		runJSON(&c, "usage", "--json", "--by", "server", "--db", cliDB, "--tz", "UTC")
		var s serve.UsageResult
		callTool(&s, "usage_summary", map[string]any{"by": "server", "limit": 100})
		cliView := []string{fmt.Sprintf("%d requests, %d sessions, %d tokens, %d tool calls, results %d (MCP %d)", c.Totals.Requests, c.Totals.Sessions, c.Totals.Tokens.Total, c.Totals.ToolCalls, c.Totals.ResultTokens, c.Totals.MCPResultTokens)}
		serveView := []string{fmt.Sprintf("%d requests, %d sessions, %d tokens, %d tool calls, results %d (MCP %d)", s.Requests, s.Sessions, s.Tokens, s.ToolCalls, s.ResultTokens, s.MCPResultTokens)}
		for _, r := range c.Tools {
			key := r.Server
			if r.BuiltIn {
				key = "(built-in)"
			}
			cliView = append(cliView, fmt.Sprintf("%s: %d calls, %d errors, %d result tokens", key, r.Calls, r.Errors, r.ResultTokens))
		}
		for _, r := range s.Rows {
			serveView = append(serveView, fmt.Sprintf("%s: %d calls, %d errors, %d result tokens", r.Key, r.Calls, r.Errors, r.ResultTokens))
		}
		same(t, cliView, serveView)
		if c.Totals.Requests != 12 || c.Totals.ToolCalls != 12 {
			t.Errorf("not the fake home's transcripts: %q", cliView)
		}
	})

	t.Run("findings", func(t *testing.T) {
		var c struct {
			Counts   struct{ High, Warn, Info int }
			Notes    []string
			Findings []struct {
				ID, Type, Level string
				Title           string
				EstimatedSaving *struct {
					Tokens int64
					USD    *float64
				}
			}
		}
		runJSON(&c, "findings", "--json", "--project", proj, "--db", cliDB, "--tz", "UTC")
		var s serve.FindingsResult
		callTool(&s, "findings", map[string]any{"project": proj, "limit": 100})
		cliView := []string{fmt.Sprintf("%d high, %d warn, %d info", c.Counts.High, c.Counts.Warn, c.Counts.Info)}
		serveView := []string{fmt.Sprintf("%d high, %d warn, %d info", s.High, s.Warn, s.Info)}
		for _, f := range c.Findings {
			var tokens int64
			usd := "-"
			if sv := f.EstimatedSaving; sv != nil {
				tokens = sv.Tokens
				if sv.USD != nil {
					usd = fmt.Sprintf("%.4f", math.Round(*sv.USD*10000)/10000)
				}
			}
			cliView = append(cliView, fmt.Sprintf("%s %s %s %q saves %d tokens, $%s", f.ID, f.Type, f.Level, f.Title, tokens, usd))
		}
		for _, f := range s.Findings {
			usd := "-"
			if f.SavingUSD != nil {
				usd = fmt.Sprintf("%.4f", *f.SavingUSD)
			}
			serveView = append(serveView, fmt.Sprintf("%s %s %s %q saves %d tokens, $%s", f.ID, f.Type, f.Level, f.Title, f.SavingTokens, usd))
		}
		same(t, cliView, serveView)
		// The settings and the cache are in both: the limit of 8,000 makes
		// the results high, the cached description makes the cut exact.
		for _, want := range []string{"oversized-results high", "heavy-definition", "idle-server"} {
			if !strings.Contains(strings.Join(serveView, "\n"), want) {
				t.Errorf("no %s finding: %q", want, serveView)
			}
		}
		if !strings.Contains(strings.Join(s.Notes, "\n"), "MAX_MCP_OUTPUT_TOKENS is 8,000") {
			t.Errorf("the MCP findings do not read the output limit of the settings: %q", s.Notes)
		}
	})

	// The billing blocks, with the clock in the active block: the blocks
	// tool's result is the report "mcpcost blocks --json" prints, field
	// for field (the command's ingest stats aside).
	t.Run("blocks", func(t *testing.T) {
		blockNow := at.Add(40 * time.Minute)
		var stdout, stderr bytes.Buffer
		env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Environ: func() []string { return nil }, Now: func() time.Time { return blockNow }}
		args := []string{"blocks", "--json", "--db", filepath.Join(root, "cli-blocks.db"), "--token-limit", "5000", "--session-length", "2.5"}
		if code := Run(env, args); code != ExitOK {
			t.Fatalf("mcpcost %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		var c map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		delete(c, "ingest")
		bo := o
		bo.Now, bo.DBPath = func() time.Time { return blockNow }, filepath.Join(root, "serve-blocks.db")
		ct, st := mcp.NewInMemoryTransports()
		ss, err := serve.New(bo).Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		bs, err := mcp.NewClient(&mcp.Implementation{Name: "crosspath-test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			bs.Close()
			ss.Wait()
		}()
		res, err := bs.CallTool(ctx, &mcp.CallToolParams{Name: "blocks", Arguments: map[string]any{"token_limit": 5000, "session_length": 2.5}})
		if err != nil || res.IsError {
			t.Fatalf("blocks: %v %+v", err, res)
		}
		got, _ := json.Marshal(res.StructuredContent)
		want, _ := json.Marshal(c)
		if !bytes.Equal(got, want) {
			t.Errorf("the command line and the MCP server differ:\ncli:   %s\nserve: %s", want, got)
		}
		var rep struct {
			Blocks []struct {
				IsActive         bool
				BurnRate         *struct{ TokensPerMinute float64 }
				TokenLimitStatus *struct{ Status string }
			}
		}
		json.Unmarshal(got, &rep)
		if len(rep.Blocks) != 1 || !rep.Blocks[0].IsActive || rep.Blocks[0].BurnRate == nil || rep.Blocks[0].TokenLimitStatus == nil {
			t.Errorf("not the fake home's active block: %s", got)
		}
	})
}

func intp(p *int) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// same fails the test unless the two views list the same lines, in any
// order.
func same(t *testing.T, cliView, serveView []string) {
	t.Helper()
	a, b := append([]string(nil), cliView...), append([]string(nil), serveView...)
	sort.Strings(a)
	sort.Strings(b)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("the command line and the MCP server differ:\ncli:\n  %s\nserve:\n  %s", strings.Join(cliView, "\n  "), strings.Join(serveView, "\n  "))
	}
}
