package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
)

// TestSessionFits: a session of 8 servers from two files, one of them
// overridden, is said in at most 25 lines, and each thing once: the
// verdict is one paragraph, the heaviest tools are named once (with the
// trim), the deferral exceptions come once after every session.
func TestSessionFits(t *testing.T) {
	var servers []audit.Server
	total := 0
	for i := range 8 {
		tok, n := 300+i*10, 3
		share := 0.125
		servers = append(servers, audit.Server{Name: fmt.Sprintf("server%d", i), Scope: "user", Source: "/h/.claude.json", Transport: "stdio",
			Status: "measured", Tokens: &tok, ToolCount: &n, Share: &share})
		total += tok
	}
	servers[0].Scope, servers[0].Source = "project", "/p/.mcp.json"
	for i := range servers {
		servers[i].Counted = true
	}
	servers = append(servers, audit.Server{Name: "server0", Scope: "user", Source: "/h/.claude.json", Status: audit.StatusOverridden, Detail: "the project-scope entry in /p/.mcp.json wins"})
	up := 90
	posture := clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeDeferred, Exceptions: []string{"a deployment where tool search is off", "an older model"}}
	sess := func(client string) audit.Session {
		return audit.Session{Config: audit.Config{Client: client, ClientTitle: clients.Title(client), Path: "/p", TotalTokens: total, ToolCount: 24, ServerCount: 8, Measured: 8,
			ContextShare: float64(total) / 200000, Servers: servers, Posture: posture, UpFrontTokens: &up, SessionStartTokens: up, RequestShapeTokens: total / 2,
			Trim: &audit.Trim{Tools: []audit.ToolRef{{Server: "server7", Tool: "big", Tokens: 200}, {Server: "server6", Tool: "big", Tokens: 190}}, RecoverableTokens: 390, RecoverableShare: 0.15}},
			Files: []audit.SessionFile{{Path: "/h/.claude.json", Scope: "user", Servers: 8, Counted: 7, TotalTokens: total - 300}, {Path: "/p/.mcp.json", Scope: "project", Servers: 1, Counted: 1, TotalTokens: 300}}}
	}
	rep := &audit.Report{MethodologyVersion: "1.0", Encoding: "o200k_base", ContextWindow: 200000,
		Sessions: []audit.Session{sess(clients.ClaudeCode), sess(clients.ClaudeCode)}, Configs: []audit.Config{{Client: clients.ClaudeCode, Path: "/h/.claude.json"}}}
	var b strings.Builder
	if err := AuditText(&b, rep, Screen{Width: 80}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	blocks := strings.Split(out, "\nClaude Code session in ")
	if len(blocks) != 3 {
		t.Fatalf("%d sessions in:\n%s", len(blocks)-1, out)
	}
	first := "Claude Code session in " + strings.SplitN(blocks[1], "\n\n", 3)[0] + "\n\n" + strings.SplitN(blocks[1], "\n\n", 3)[1]
	if n := strings.Count(first, "\n") + 1; n > 25 {
		t.Errorf("a session of 8 servers takes %d lines, over 25:\n%s", n, first)
	}
	for _, once := range []string{"a deployment where tool search is off", "server7 · big (200)"} {
		if n := strings.Count(out, once); n != map[bool]int{true: 1, false: 2}[once[0] == 'a'] {
			t.Errorf("%q said %d times:\n%s", once, n, out)
		}
	}
	if strings.Contains(out, "/h/.claude.json (user scope)") {
		t.Errorf("the per-file blocks are repeated after the sessions:\n%s", out)
	}
	if !strings.Contains(first, "server0 (user): overridden") || strings.Count(first, "server0 ") != 2 {
		t.Errorf("the overridden entry is not listed once, apart from the counted one:\n%s", first)
	}
}

// A session with nothing measured (no server, or none that answered) pays
// 0 tokens at session start, whatever the client's posture: not "all of
// it", and no deferred share.
func TestSessionVerdictNothingMeasured(t *testing.T) {
	zero := 0
	r := &audit.Report{ContextWindow: 200000}
	for _, mode := range []string{clients.ModeDeferred, clients.ModeNoRecord} {
		c := audit.Config{Client: clients.ClaudeCode, Posture: clients.Posture{Client: clients.ClaudeCode, Mode: mode}, UpFrontTokens: &zero}
		got := strings.Join(sessionVerdict(r, c, "0"), " ")
		if !strings.Contains(got, "Paid at session start: 0 tokens.") || strings.Contains(got, "all of it") || strings.Contains(got, "deferred, it would be") {
			t.Errorf("%v: %s", mode, got)
		}
	}
	// Measured tokens loaded up front are still "all of it".
	n := 951
	c := audit.Config{Client: clients.Cursor, TotalTokens: n, UpFrontTokens: &n, SessionStartTokens: 44, Posture: clients.Posture{Client: clients.Cursor, Mode: clients.ModeNoRecord}}
	if got := strings.Join(sessionVerdict(r, c, "951"), " "); !strings.Contains(got, "all of it; deferred, it would be 44 tokens.") {
		t.Errorf("up front: %s", got)
	}
}

// TestNoLaunchSaysOnce: with --no-launch and nothing cached, a session
// and a config say once which servers were not measured and why; no
// "≥0" total, no posture arithmetic on nothing, and each server's line
// only what it would run. One measured server keeps the lower bound.
func TestNoLaunchSaysOnce(t *testing.T) {
	unlaunched := func(name string) audit.Server {
		return audit.Server{Name: name, Scope: "project", Source: "/p/.mcp.json", Transport: "stdio", Counted: true,
			Status: "not-launched", Detail: "--no-launch: would run npx " + name}
	}
	posture := clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeDeferred}
	c := audit.Config{Client: clients.ClaudeCode, ClientTitle: clients.Title(clients.ClaudeCode), Path: "/p/.mcp.json", Scope: "project",
		ServerCount: 2, LowerBound: true, Unmeasured: []string{"fs", "mem"}, Servers: []audit.Server{unlaunched("fs"), unlaunched("mem")}, Posture: posture}
	up := 0
	c.UpFrontTokens = &up
	sess := c
	sess.Path = "/p"
	for _, rep := range []*audit.Report{
		{ContextWindow: 200000, Sessions: []audit.Session{{Config: sess, Files: []audit.SessionFile{{Path: "/p/.mcp.json", Scope: "project", Servers: 2, LowerBound: true}}}}, Configs: []audit.Config{c}},
		{ContextWindow: 200000, Configs: []audit.Config{c}},
	} {
		var b strings.Builder
		if err := AuditText(&b, rep, Screen{Width: 80}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if n := strings.Count(out, "--no-launch"); n != 1 {
			t.Errorf("--no-launch said %d times, not once:\n%s", n, out)
		}
		if !strings.Contains(strings.Join(strings.Fields(out), " "), "No tool definitions measured: fs and mem (not launched: --no-launch)") {
			t.Errorf("the servers not measured and why are not said:\n%s", out)
		}
		for _, not := range []string{"≥0", "could not be measured", "Paid at session start", "defers"} {
			if strings.Contains(out, not) {
				t.Errorf("%q in:\n%s", not, out)
			}
		}
		if !strings.Contains(out, "fs (project): would run npx fs") && !strings.Contains(out, "fs: would run npx fs") {
			t.Errorf("fs's line does not say what it would run:\n%s", out)
		}
	}

	// One server measured: a lower bound, the other named with its reason.
	tok, n := 120, 2
	c.Servers[0] = audit.Server{Name: "fs", Scope: "project", Transport: "stdio", Counted: true, Status: "measured", Tokens: &tok, ToolCount: &n}
	c.Servers[1].Status, c.Servers[1].Detail = "timeout", "no answer to initialize within 30s"
	c.Unmeasured, c.TotalTokens, c.ToolCount = []string{"mem"}, tok, n
	var b strings.Builder
	if err := AuditText(&b, &audit.Report{ContextWindow: 200000, Configs: []audit.Config{c}}, Screen{Width: 80}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "≥120") || !strings.Contains(strings.Join(strings.Fields(out), " "), "A lower bound: not measured, mem (timeout).") {
		t.Errorf("a partial measurement is not a lower bound naming mem and its status:\n%s", out)
	}
}

// TestSessionVerdictOneToken: a count of one is "1 token", in each of the
// verdict's counts.
func TestSessionVerdictOneToken(t *testing.T) {
	one := 1
	r := &audit.Report{ContextWindow: 200000}
	for _, c := range []audit.Config{
		{Client: clients.ClaudeCode, Posture: clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeDeferred}, UpFrontTokens: &one, Measured: 1, TotalTokens: 1, RequestShapeTokens: 1},
		{Client: clients.ClaudeCode, Posture: clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeUpFront}, UpFrontTokens: &one, SessionStartTokens: 1, Measured: 1, TotalTokens: 1, RequestShapeTokens: 1},
	} {
		got := strings.Join(sessionVerdict(r, c, "1"), " ")
		if strings.Contains(got, "1 tokens") || !strings.HasPrefix(got, "1 token of") {
			t.Errorf("%v: %s", c.Posture.Mode, got)
		}
	}
}

// TestSessionVerdictUnresolved: a posture that cannot be said is said so
// once, with why ("cannot be said: cannot be said: ..." before).
func TestSessionVerdictUnresolved(t *testing.T) {
	n := 340
	r := &audit.Report{ContextWindow: 200000}
	p := clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeUnresolved, Refusal: clients.RefusalDisagree, Setting: &clients.Setting{Variable: clients.VarToolSearch}}
	c := audit.Config{Client: clients.ClaudeCode, Posture: p, TotalTokens: n, Measured: 1, SessionStartTokens: 6}
	got := strings.Join(sessionVerdict(r, c, "340"), " ")
	if strings.Count(got, "cannot be said") != 1 || !strings.Contains(got, "Whether Claude Code defers them cannot be said: ENABLE_TOOL_SEARCH is set to different values by the shell and a settings file.") {
		t.Errorf("%s", got)
	}
}

// TestNoLaunchApart: servers left unlaunched by --no-launch are listed
// apart, as not launched by request, from the servers that failed (not
// measured) and from those the session or file does not count
// (overridden, awaiting approval), in a session and in a file alike.
func TestNoLaunchApart(t *testing.T) {
	tok, n := 120, 2
	servers := []audit.Server{
		{Name: "fs", Scope: "project", Transport: "stdio", Counted: true, Status: "measured", Tokens: &tok, ToolCount: &n},
		{Name: "mem", Scope: "project", Transport: "stdio", Counted: true, Status: "not-launched", Detail: "--no-launch: would run npx mem"},
		{Name: "slow", Scope: "user", Transport: "stdio", Counted: true, Status: "timeout", Detail: "no answer to initialize within 30s", Hint: "a larger --timeout"},
		{Name: "rogue", Scope: "project", Transport: "stdio", Status: "needs-approval", Detail: "not launched without approval: would run ./x.sh", Hint: "approve it"},
		{Name: "old", Scope: "user", Transport: "stdio", Status: "overridden", Detail: "the project-scope entry in /p/.mcp.json wins"},
	}
	c := audit.Config{Client: clients.ClaudeCode, ClientTitle: clients.Title(clients.ClaudeCode), Path: "/p/.mcp.json", Scope: "project",
		ServerCount: 3, Measured: 1, TotalTokens: tok, ToolCount: n, LowerBound: true, Unmeasured: []string{"mem", "slow"}, Servers: servers,
		Posture: clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeUpFront}, UpFrontTokens: &tok}
	sess := c
	sess.Path, sess.Scope = "/p", ""
	for _, tt := range []struct {
		name string
		rep  *audit.Report
		want []string
	}{
		{"session", &audit.Report{ContextWindow: 200000, NoLaunch: true, Sessions: []audit.Session{{Config: sess}}, Configs: []audit.Config{c}}, []string{
			"  not measured\n    slow (user): timeout: no answer to initialize within 30s\n      hint: a larger --timeout\n",
			"  not launched, by request\n    mem (project): would run npx mem\n",
			"  not counted\n    rogue (project): needs-approval: not launched without approval: would run ./x.sh\n      hint: approve it\n    old (user): overridden: the project-scope entry in /p/.mcp.json wins\n",
		}},
		{"file", &audit.Report{ContextWindow: 200000, NoLaunch: true, Configs: []audit.Config{c}}, []string{
			"\n  not measured\n    slow: timeout: no answer to initialize within 30s\n      hint: a larger --timeout\n",
			"\n  not launched, by request\n    mem: would run npx mem\n",
			"\n  not counted\n    rogue: needs-approval: not launched without approval: would run ./x.sh\n      hint: approve it\n    old: overridden: the project-scope entry in /p/.mcp.json wins\n",
		}},
	} {
		var b strings.Builder
		if err := AuditText(&b, tt.rep, Screen{Width: 100}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no\n%s\nin:\n%s", tt.name, w, out)
			}
		}
		if n := strings.Count(out, "--no-launch"); n != 1 {
			t.Errorf("%s: --no-launch said %d times, not once:\n%s", tt.name, n, out)
		}
	}
}
