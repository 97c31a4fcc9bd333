package audit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/measure"
)

// page reads the tools/list result of a captured wire line, or of a
// measurement.json's rawToolsCapture.
func page(t *testing.T, file string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := measure.ParseInput(file, b)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(`{"tools":`), append(canon.Marshal(canon.NewArray(c.Tools)), '}')...)
}

// measurer answers for commands named in pages; other commands fail to
// start. It counts the launches.
type measurer struct {
	pages    map[string]json.RawMessage
	launches atomic.Int32
}

func (m *measurer) measure(_ context.Context, ts []mcpclient.Target, _ mcpclient.Options, _ int) []mcpclient.Result {
	out := make([]mcpclient.Result, len(ts))
	for i, t := range ts {
		m.launches.Add(1)
		p, ok := m.pages[t.Command]
		if !ok {
			out[i] = mcpclient.Result{Target: t, Status: mcpclient.StatusStartupFailure, Detail: "cannot start " + t.Command}
			continue
		}
		c := &mcpclient.Capture{ServerName: t.Command, ToolsPages: []json.RawMessage{p}, Transport: "stdio"}
		out[i] = mcpclient.Result{Target: t, Status: mcpclient.StatusMeasured, First: c, Second: c}
	}
	return out
}

func server(name, command string) clients.Server {
	return clients.Server{Name: name, Client: clients.ClaudeCode, Transport: clients.Stdio, Command: command}
}

func newMeasurer(t *testing.T) *measurer {
	return &measurer{pages: map[string]json.RawMessage{
		"fs":   page(t, "testdata/filesystem.jsonl"),
		"mem":  page(t, "testdata/memory.jsonl"),
		"kube": page(t, "testdata/kubernetes-measurement.json"),
	}}
}

func run(t *testing.T, m *measurer, configs []clients.Config, o Options) *Report {
	t.Helper()
	o.Measurer = m.measure
	o.Now = func() time.Time { return time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) }
	return Run(context.Background(), configs, o)
}

func TestSharedLaunchMeasuredOnce(t *testing.T) {
	m := newMeasurer(t)
	configs := []clients.Config{
		{Client: clients.ClaudeCode, Path: "/a/.mcp.json", Servers: []clients.Server{server("fs", "fs"), server("memory", "mem")}},
		{Client: clients.Cursor, Path: "/home/.cursor/mcp.json", Servers: []clients.Server{server("files", "fs")}},
	}
	rep := run(t, m, configs, Options{})
	if n := m.launches.Load(); n != 2 {
		t.Errorf("launches = %d, want 2 (fs shared)", n)
	}
	if len(rep.Configs) != 2 || rep.Configs[0].TotalTokens != 2823+2378 || rep.Configs[1].TotalTokens != 2823 {
		t.Fatalf("totals: %+v", rep.Configs)
	}
	c := rep.Configs[0]
	if c.Servers[0].Name != "fs" || *c.Servers[0].Share < 0.54 || c.HeaviestTools[0].Tool != "read_media_file" && c.HeaviestTools[0].Server != "memory" {
		t.Errorf("order, share or heaviest: %+v %+v", c.Servers[0].Name, c.HeaviestTools)
	}
}

func TestFilterTrimAndGates(t *testing.T) {
	m := newMeasurer(t)
	fs := server("fs", "fs")
	fs.Filter = &clients.ToolFilter{Exclude: []string{"read_media_file", "edit_file"}, Source: "test"}
	configs := []clients.Config{{Client: clients.Codex, Path: "/c.toml",
		Servers: []clients.Server{fs, server("memory", "mem"), server("broken", "nope")}}}
	rep := run(t, m, configs, Options{Budget: 4000, Threshold: 250})
	c := rep.Configs[0]
	var s Server
	for _, x := range c.Servers {
		if x.Name == "fs" {
			s = x
		}
	}
	if *s.ToolCount != 12 || *s.UnfilteredToolCount != 14 || *s.UnfilteredTokens != 2823 || strings.Join(s.FilteredOut, ",") != "read_media_file,edit_file" {
		t.Errorf("filter: %d of %d tools, unfiltered %d tokens, out %q", *s.ToolCount, *s.UnfilteredToolCount, *s.UnfilteredTokens, s.FilteredOut)
	}
	if *s.Tokens >= 2823-290-245+10 || *s.Tokens <= 2823-290-245-10 {
		t.Errorf("filtered tokens %d, want about %d", *s.Tokens, 2823-290-245)
	}
	// The budget fails twice over: the total, and an unmeasured server.
	if rep.Budget.Pass || len(rep.Budget.Configs[0].Reasons) != 2 ||
		!strings.Contains(rep.Budget.Configs[0].Reasons[1], "broken could not be measured, so the total is a lower bound") {
		t.Errorf("budget: %+v", rep.Budget)
	}
	if !c.LowerBound || !rep.Partial || strings.Join(c.Unmeasured, ",") != "broken" {
		t.Errorf("lower bound %v partial %v unmeasured %q", c.LowerBound, rep.Partial, c.Unmeasured)
	}
	// The threshold names every tool over 250 tokens: memory's heavy ones,
	// read_text_file; not the filtered-out read_media_file (290).
	for _, tool := range rep.Threshold.Tools {
		if tool.Tokens <= 250 || tool.Tool == "read_media_file" {
			t.Errorf("threshold lists %+v", tool)
		}
	}
	if rep.Threshold.Pass || len(rep.Threshold.Tools) == 0 {
		t.Errorf("threshold: %+v", rep.Threshold)
	}
	// The trim recovery is exact: the servers counted again without the
	// trimmed tools.
	tr := c.Trim
	if tr == nil || len(tr.Tools) == 0 {
		t.Fatal("no trim")
	}
	if tr.RecoverableTokens <= 0 || tr.RecoverableTokens > c.TotalTokens {
		t.Errorf("trim recovers %d of %d", tr.RecoverableTokens, c.TotalTokens)
	}
	// With --allow-unmeasured only the total decides.
	rep = run(t, m, configs, Options{Budget: 6000, AllowUnmeasured: true})
	if !rep.Budget.Pass {
		t.Errorf("budget with --allow-unmeasured: %+v", rep.Budget)
	}
}

func TestWhoPays(t *testing.T) {
	m := newMeasurer(t)
	configs := []clients.Config{{Client: clients.ClaudeCode, Path: "/p/.mcp.json", Servers: []clients.Server{server("fs", "fs"), server("memory", "mem")}}}
	for _, tt := range []struct {
		mode   string
		upFull bool
	}{{clients.ModeDeferred, false}, {clients.ModeUpFront, true}, {clients.ModeNoRecord, true}} {
		rep := run(t, m, configs, Options{Posture: func(c string) clients.Posture { return clients.Posture{Client: c, Mode: tt.mode} }})
		c := rep.Configs[0]
		if c.UpFrontTokens == nil {
			t.Fatalf("%s: no up-front figure", tt.mode)
		}
		want := c.SessionStartTokens
		if tt.upFull {
			want = c.TotalTokens
		}
		if *c.UpFrontTokens != want || c.SessionStartTokens <= 0 || c.SessionStartTokens >= c.TotalTokens/10 {
			t.Errorf("%s: up front %d, session start %d, total %d", tt.mode, *c.UpFrontTokens, c.SessionStartTokens, c.TotalTokens)
		}
		if c.RequestShapeTokens <= 0 || c.RequestShapeTokens == c.TotalTokens || len(c.PostureText) == 0 {
			t.Errorf("%s: request shape %d, posture text %q", tt.mode, c.RequestShapeTokens, c.PostureText)
		}
	}
}

func TestClaudePublished(t *testing.T) {
	m := newMeasurer(t)
	configs := []clients.Config{{Client: clients.ClaudeCode, Path: "/p/.mcp.json", Servers: []clients.Server{server("kubernetes", "kube"), server("fs", "fs")}}}
	rep := run(t, m, configs, Options{ClaudeColumn: true})
	byName := map[string]Server{}
	for _, s := range rep.Configs[0].Servers {
		byName[s.Name] = s
	}
	if k := byName["kubernetes"]; k.ClaudeTokens == nil || *k.ClaudeTokens != 9165 || !strings.HasPrefix(k.ClaudeSource, "published ") {
		t.Errorf("kubernetes: %v %q", k.ClaudeTokens, k.ClaudeSource)
	}
	// No published capture has filesystem's hash: a dash, never a guess;
	// so the config has no Claude total.
	if f := byName["fs"]; f.ClaudeTokens != nil || rep.Configs[0].ClaudeTokens != nil || rep.Claude.Mode != "published" {
		t.Errorf("fs: %v; config %v", f.ClaudeTokens, rep.Configs[0].ClaudeTokens)
	}
}

func TestClaudeCountTokens(t *testing.T) {
	const key = "sk-ant-canary-0123456789"
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/v1/messages/count_tokens" || r.Header.Get("x-api-key") != key {
			http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"bad"}}`, http.StatusUnauthorized)
			return
		}
		var body struct {
			Tools json.RawMessage `json:"tools"`
		}
		b := new(bytes.Buffer)
		b.ReadFrom(r.Body)
		json.Unmarshal(b.Bytes(), &body)
		// A deterministic stand-in for Claude's tokenizer: 10 for the
		// message, one per 3 bytes of tools.
		json.NewEncoder(w).Encode(map[string]int{"input_tokens": 10 + len(body.Tools)/3})
	}))
	defer srv.Close()
	m := newMeasurer(t)
	configs := []clients.Config{{Client: clients.ClaudeCode, Path: "/p/.mcp.json", Servers: []clients.Server{server("fs", "fs")}}}
	cl := claude.NewClient(key, srv.URL, "claude-test")
	rep := run(t, m, configs, Options{ClaudeColumn: true, Claude: cl})
	s := rep.Configs[0].Servers[0]
	if s.ClaudeTokens == nil || *s.ClaudeTokens <= 0 || s.ClaudeSource != "count_tokens claude-test" || rep.Claude.Mode != "count_tokens" {
		t.Fatalf("claude: %v %q %q", s.ClaudeTokens, s.ClaudeSource, s.ClaudeError)
	}
	if rep.Configs[0].ClaudeTokens == nil || *rep.Configs[0].ClaudeTokens != *s.ClaudeTokens {
		t.Errorf("config claude total %v", rep.Configs[0].ClaudeTokens)
	}
	b, _ := json.Marshal(rep)
	if bytes.Contains(b, []byte(key)) {
		t.Error("the API key is in the report")
	}
	// A refused key is an error on the server, never a number.
	rep = run(t, m, configs, Options{ClaudeColumn: true, Claude: claude.NewClient("wrong", srv.URL, "claude-test")})
	if s := rep.Configs[0].Servers[0]; s.ClaudeTokens != nil || s.ClaudeError == "" || strings.Contains(s.ClaudeError, "wrong") {
		t.Errorf("refused key: %v %q", s.ClaudeTokens, s.ClaudeError)
	}
}

// TestNoLaunchMemory: --no-launch over a config at clients.MaxServers
// allocates a bounded amount per server (each server's launch key is
// computed once, the report's slices are sized once).
func TestNoLaunchMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under the race detector are its own")
	}
	cfg := clients.Config{Client: clients.ClaudeCode, Path: "/p/.mcp.json", Scope: "project"}
	for i := 0; i < clients.MaxServers; i++ {
		s := server(fmt.Sprintf("s%d", i), "node")
		s.Args = []string{fmt.Sprintf("s%d.js", i)}
		cfg.Servers = append(cfg.Servers, s)
	}
	opts := Options{NoLaunch: true}
	Run(context.Background(), []clients.Config{cfg}, opts) // warm up
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	rep := Run(context.Background(), []clients.Config{cfg}, opts)
	runtime.ReadMemStats(&m1)
	if n := len(rep.Configs[0].Servers); n != clients.MaxServers {
		t.Fatalf("%d servers in the report", n)
	}
	per := (m1.TotalAlloc - m0.TotalAlloc) / uint64(clients.MaxServers)
	if per > 5<<10 {
		t.Errorf("%d bytes allocated per server, want at most 5 KiB", per)
	}
}

// TestSessions: the session of a client stacks its files: the entry that
// wins a name is counted once (the overridden one is listed, not counted,
// not launched), a server needing approval is listed and not launched,
// the files are the breakdown, and Claude Code's auto:3 threshold on a
// 200,000-token window (6,000 tokens) is judged on the session's sum:
// filesystem (2,823) and memory (2,378) are each under the band alone and
// straddle it together (5,201). The gates judge the session.
func TestSessions(t *testing.T) {
	m := newMeasurer(t)
	over := server("memory", "fs")
	over.Scope, over.Source, over.OverriddenBy = "user", "/h/.claude.json", "the project-scope entry in /p/.mcp.json"
	rogue := server("rogue", "rogue")
	rogue.Scope, rogue.Source, rogue.NeedsApproval = "project", "/p/.mcp.json", "approve it"
	fs := server("filesystem", "fs")
	fs.Scope, fs.Source = "user", "/h/.claude.json"
	mem := server("memory", "mem")
	mem.Scope, mem.Source = "project", "/p/.mcp.json"
	other := server("files", "fs")
	other.Client, other.Scope, other.Source = clients.Cursor, "user", "/h/.cursor/mcp.json"
	configs := []clients.Config{
		{Client: clients.ClaudeCode, Path: "/h/.claude.json", Scope: "user", Servers: []clients.Server{fs, over}},
		{Client: clients.ClaudeCode, Path: "/p/.mcp.json", Scope: "project", Servers: []clients.Server{mem, rogue}},
		{Client: clients.Cursor, Path: "/h/.cursor/mcp.json", Scope: "user", Servers: []clients.Server{other}},
	}
	posture := func(c string) clients.Posture {
		if c == clients.ClaudeCode {
			return clients.Posture{Client: c, Mode: clients.ModeThreshold, ThresholdPercent: 3}
		}
		return clients.Posture{Client: c, Mode: clients.ModeNoRecord}
	}
	rep := run(t, m, configs, Options{Sessions: true, Folder: "/p", Posture: posture, Budget: 5200})
	if n := m.launches.Load(); n != 2 {
		t.Errorf("launches = %d, want 2: fs once for three entries of two clients, mem once, rogue never", n)
	}
	if len(rep.Sessions) != 2 {
		t.Fatalf("%d sessions, want 2", len(rep.Sessions))
	}
	s := rep.Sessions[0]
	if s.Client != clients.ClaudeCode || s.Path != "/p" || s.TotalTokens != 5201 || s.ServerCount != 2 || s.LowerBound {
		t.Fatalf("session %s %s: %d tokens of %d servers (lower bound %v), want claude-code /p 5,201 of 2", s.Client, s.Path, s.TotalTokens, s.ServerCount, s.LowerBound)
	}
	counted := map[string]string{}
	for _, sv := range s.Servers {
		if sv.Counted {
			counted[sv.Name] = sv.Scope
		}
	}
	if len(counted) != 2 || counted["filesystem"] != "user" || counted["memory"] != "project" {
		t.Errorf("counted %v, want filesystem (user) and memory (project)", counted)
	}
	for _, c := range rep.Configs {
		for _, sv := range c.Servers {
			if sv.Name == "rogue" && sv.Status != StatusNeedsApproval {
				t.Errorf("rogue is %s", sv.Status)
			}
		}
	}
	want := []SessionFile{{Path: "/h/.claude.json", Scope: "user", Servers: 2, Counted: 1, TotalTokens: 2823}, {Path: "/p/.mcp.json", Scope: "project", Servers: 2, Counted: 1, TotalTokens: 2378}}
	if fmt.Sprint(s.Files) != fmt.Sprint(want) {
		t.Errorf("files %+v, want %+v", s.Files, want)
	}
	c := s.Check
	if c == nil || c.ThresholdTokens != 6000 || c.WireTokens != 5201 || c.Low >= 6000 || c.High < 6000 || c.Crosses != nil {
		t.Errorf("threshold on the sum: %+v, want 5,201 straddling 6,000", c)
	}
	for _, f := range rep.Configs {
		if f.Client == clients.ClaudeCode && (f.Check == nil || f.Check.Crosses == nil || *f.Check.Crosses) {
			t.Errorf("file %s alone: %+v, want under the threshold", f.Path, f.Check)
		}
	}
	if g := rep.Budget; g == nil || g.Of != OfSessions || g.Pass || len(g.Configs) != 2 || g.Configs[0].Path != "/p" || g.Configs[0].Total != 5201 {
		t.Errorf("budget %+v, want the sessions judged: /p 5,201 over 5,200", g)
	}
	// Within the budget, the session still fails: rogue awaits approval
	// and would join it once approved; the reason names it and its file.
	// Without it, the same session passes.
	wide := run(t, m, configs, Options{Sessions: true, Folder: "/p", Posture: posture, Budget: 10000})
	if g := wide.Budget; g == nil || g.Pass || g.Configs[0].Path != "/p" || g.Configs[0].Pass ||
		fmt.Sprint(g.Configs[0].Reasons) != "[rogue in /p/.mcp.json awaits approval, so it is not counted; judge it with --trust-project, or the file with --config]" {
		t.Errorf("budget with a server awaiting approval: %+v, want /p failing on rogue", g)
	}
	approved := slices.Clone(configs)
	approved[1].Servers = []clients.Server{mem}
	if g := run(t, m, approved, Options{Sessions: true, Folder: "/p", Posture: posture, Budget: 10000}).Budget; g == nil || !g.Pass {
		t.Errorf("budget without a server awaiting approval: %+v, want a pass", g)
	}
	// Judged as files (--config), every file is within the budget.
	files := run(t, m, configs, Options{Posture: posture, Budget: 5200})
	if len(files.Sessions) != 0 || files.Budget.Of != OfConfigs || !files.Budget.Pass {
		t.Errorf("files: %d sessions, budget %+v; want none, and the files judged and passing", len(files.Sessions), files.Budget)
	}
}

// TestOneLaunchAgainstTheCache checks the options a default and a strict
// audit measure with, and that a single launch whose tools differ from
// the cached capture of the same launch is dynamic, naming what changed,
// unless the server's version changed (a new server) or nothing did.
func TestOneLaunchAgainstTheCache(t *testing.T) {
	fs, mem := page(t, "testdata/filesystem.jsonl"), page(t, "testdata/memory.jsonl")
	cfg := []clients.Config{{Client: clients.ClaudeCode, Path: "/a/.mcp.json", Servers: []clients.Server{server("fs", "fs")}}}
	for _, tc := range []struct {
		name          string
		strict        bool
		before, after json.RawMessage
		version       string
		want          string
		wantLaunch    int
	}{
		{name: "same tools", before: fs, after: fs, want: "measured", wantLaunch: 1},
		{name: "other tools", before: fs, after: mem, want: "dynamic", wantLaunch: 1},
		{name: "other version", before: fs, after: mem, version: "2", want: "measured", wantLaunch: 1},
		{name: "strict", strict: true, before: fs, after: mem, want: "measured", wantLaunch: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache, err := OpenCache(t.TempDir(), time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			var got []mcpclient.Options
			measurer := func(p json.RawMessage, version string) func(context.Context, []mcpclient.Target, mcpclient.Options, int) []mcpclient.Result {
				return func(_ context.Context, ts []mcpclient.Target, o mcpclient.Options, _ int) []mcpclient.Result {
					got = append(got, o)
					c := &mcpclient.Capture{ServerName: "fs", ServerVersion: version, ToolsPages: []json.RawMessage{p}, Transport: "stdio"}
					return []mcpclient.Result{{Target: ts[0], Status: mcpclient.StatusMeasured, First: c}}
				}
			}
			now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
			opts := Options{Cache: cache, Strict: tc.strict, Now: func() time.Time { return now }, Measurer: measurer(tc.before, "1")}
			rep := Run(context.Background(), cfg, opts)
			if s := rep.Configs[0].Servers[0]; s.Status != "measured" {
				t.Fatalf("first audit: %s %s", s.Status, s.Detail)
			}
			opts.Refresh, opts.Measurer = true, measurer(tc.after, cmp.Or(tc.version, "1"))
			rep = Run(context.Background(), cfg, opts)
			s := rep.Configs[0].Servers[0]
			if s.Status != tc.want {
				t.Errorf("status %s (%s), want %s", s.Status, s.Detail, tc.want)
			}
			if tc.want == "dynamic" && (len(s.ChangedTools) == 0 || !strings.Contains(s.Detail, "previous capture of the same launch")) {
				t.Errorf("changed %v, detail %q", s.ChangedTools, s.Detail)
			}
			for _, o := range got {
				if o.Once == tc.strict || o.Relist == tc.strict {
					t.Errorf("strict %v: measured with Once %v Relist %v", tc.strict, o.Once, o.Relist)
				}
			}
			if rep.Launch == nil || rep.Launch.PerServer != tc.wantLaunch || !strings.Contains(rep.Launch.Note, "--strict") {
				t.Errorf("launch %+v, want %d per server", rep.Launch, tc.wantLaunch)
			}
		})
	}
}

// TestExtensionServer: a server a client's extension provides is counted
// without a number (the client loads it; its command is not in the file):
// the total is a lower bound, nothing is launched for it, and the empty
// file beside it keeps its notes and hint.
func TestExtensionServer(t *testing.T) {
	m := newMeasurer(t)
	ext := clients.Server{Name: "postgres", Client: clients.Zed, ProvidedBy: "a Zed extension"}
	configs := []clients.Config{
		{Client: clients.Zed, Path: "/p/.zed/settings.json", Scope: "project", Servers: []clients.Server{server("fs", "fs"), ext}},
		{Client: clients.ClaudeCode, Path: "/p/.mcp.json", Scope: "project", Servers: []clients.Server{},
			Notes: []string{`top-level key "x" looks like a server`}, Hint: "move it"},
	}
	rep := run(t, m, configs, Options{})
	if n := m.launches.Load(); n != 1 {
		t.Errorf("launches = %d, want 1 (fs)", n)
	}
	c := rep.Configs[0]
	var got *Server
	for i := range c.Servers {
		if c.Servers[i].Name == "postgres" {
			got = &c.Servers[i]
		}
	}
	if got == nil || got.Status != StatusExtension || !got.Counted || got.Tokens != nil || !strings.Contains(got.Detail, "Zed extension") || got.Hint == "" {
		t.Fatalf("postgres: %+v", got)
	}
	if !c.LowerBound || !rep.Partial || !slices.Contains(c.Unmeasured, "postgres") || c.TotalTokens != 2823 {
		t.Errorf("lower bound %v, partial %v, unmeasured %v, total %d", c.LowerBound, rep.Partial, c.Unmeasured, c.TotalTokens)
	}
	if len(rep.EmptyConfigs) != 1 || len(rep.EmptyConfigs[0].Notes) != 1 || rep.EmptyConfigs[0].Hint != "move it" {
		t.Errorf("empty configs %+v", rep.EmptyConfigs)
	}
}

// TestCacheDepthLimit: a cached capture is read with the limit a server's
// message is read with (mcpclient.MaxDepth, for the tools/list response
// the cached tools array stands in): at the limit the server is measured
// from the cache, one level deeper the entry is not used (--offline: not
// cached), and the process stands whatever the depth.
func TestCacheDepthLimit(t *testing.T) {
	max := mcpclient.MaxDepth
	cfg := []clients.Config{{Client: clients.ClaudeCode, Path: "/a/.mcp.json", Servers: []clients.Server{server("fs", "fs")}}}
	for _, depth := range []int{max - 1, max, max + 1, max + 2, 10000, 100000} {
		for _, objects := range []bool{false, true} {
			name := fmt.Sprint(depth)
			if objects {
				name += "/objects"
			}
			t.Run(name, func(t *testing.T) {
				cache, err := OpenCache(t.TempDir(), time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				// The response nests depth levels: the message, its
				// result, the tools array, the tool, its inputSchema, then
				// arrays or objects down to depth.
				k := depth - 5
				nest := strings.Repeat("[", k) + strings.Repeat("]", k)
				if objects {
					nest = strings.Repeat(`{"a":`, k-1) + "{}" + strings.Repeat("}", k-1)
				}
				tools := `[{"name":"deep","inputSchema":{"type":"object","x":` + nest + `}}]`
				now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
				key := cfg[0].Servers[0].LaunchKey(cache.Key())
				// Written as Put writes it, which encoding/json cannot
				// do past its own limit of 10,000 levels.
				entry := `{"version":1,"measuredAt":"2026-11-29T00:00:00Z","status":"measured","serverName":"fs","instructions":null,"tools":` + tools + `}`
				if err := os.WriteFile(cache.path(key), []byte(entry), 0o600); err != nil {
					t.Fatal(err)
				}
				e, _ := cache.Get(key, now)
				rep := Run(context.Background(), cfg, Options{Cache: cache, Offline: true, Now: func() time.Time { return now }})
				s := rep.Configs[0].Servers[0]
				if depth <= max {
					if e == nil || s.Status != "measured" || s.ToolCount == nil || *s.ToolCount != 1 {
						t.Fatalf("entry %v, status %s (%s): want measured from the cache, the limit is %d", e != nil, s.Status, s.Detail, max)
					}
					return
				}
				if e != nil || s.Status != "not-cached" {
					t.Fatalf("entry %v, status %s (%s): want the entry not used", e != nil, s.Status, s.Detail)
				}
			})
		}
	}
}
