package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpcost/mcpcost/internal/audit"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// buildDir holds what the tests build once per run.
var buildDir string

func TestMain(m *testing.M) {
	if n := os.Getenv(manyToolsEnv); n != "" {
		var tools int
		fmt.Sscan(n, &tools)
		serveManyTools(tools)
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "mcpcost-serve-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	builds   sync.Map // package → *buildResult
	buildsMu sync.Mutex
)

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// build builds a main package of this module (once per run) and returns
// the executable.
func build(t *testing.T, pkg string) string {
	t.Helper()
	buildsMu.Lock()
	v, _ := builds.LoadOrStore(pkg, &buildResult{})
	buildsMu.Unlock()
	b := v.(*buildResult)
	b.once.Do(func() {
		b.path = filepath.Join(buildDir, filepath.Base(pkg))
		cmd := exec.Command("go", "build", "-o", b.path, "./"+pkg)
		cmd.Dir = testpeers.Root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// fixture is a fake machine: a home, a project with a .mcp.json naming the
// example servers, a transcript tree, a measurement cache and a usage store.
type fixture struct {
	home, project, cache, db string
	notes, units             string
	manifest                 *transcripttest.Manifest
	opts                     Options
}

func newFixture(t *testing.T, transcripts bool) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{
		home:    filepath.Join(root, "home"),
		project: filepath.Join(root, "project"),
		cache:   filepath.Join(root, "cache"),
		db:      filepath.Join(root, "data", "usage.db"),
		notes:   build(t, "examples/servers/notes"),
		units:   build(t, "examples/servers/units"),
	}
	for _, d := range []string{f.home, f.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}, "units": {"command": %q, "env": {"UNITS_TOKEN": "canary-cfg-5150"}}}}`, f.notes, f.units)
	if err := os.WriteFile(filepath.Join(f.project, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// A user-scope server, in every Claude Code session and never called
	// in the generated transcripts: an idle server.
	user := fmt.Sprintf(`{"mcpServers": {"scratch": {"type": "stdio", "command": %q}}}`, f.notes)
	if err := os.WriteFile(filepath.Join(f.home, ".claude.json"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	if transcripts {
		m, err := transcripttest.Generate(f.home, transcripttest.Small())
		if err != nil {
			t.Fatal(err)
		}
		f.manifest = m
	}
	env := map[string]string{"HOME": f.home, "PATH": os.Getenv("PATH")}
	f.opts = Options{
		Version:     "test",
		Getenv:      func(k string) string { return env[k] },
		Project:     f.project,
		CacheDir:    f.cache,
		Timeout:     20 * time.Second,
		DBPath:      f.db,
		ClaudeRoots: []string{filepath.Join(f.home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(f.home, ".codex", "sessions")},
		Location:    time.UTC,
		// A usage tool answers once the read is done, however slow the
		// machine (the race detector on a loaded one reads a 100,000-line
		// transcript for over 25 seconds); TestIngestWait sets its own.
		IngestWait: 10 * time.Minute,
	}
	return f
}

// progressLog collects the progress notifications a client receives.
type progressLog struct {
	mu   sync.Mutex
	msgs []string
}

func (p *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.msgs = append(p.msgs, req.Params.Message)
	p.mu.Unlock()
}

// wait waits a little for n notifications (the client handles them
// apart from the result) and returns those received.
func (p *progressLog) wait(n int) []string {
	for i := 0; i < 100 && len(p.all()) < n; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	return p.all()
}

func (p *progressLog) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.msgs...)
}

// connect serves New(o) in process and connects a real go-sdk client.
func connect(t *testing.T, o Options) (*mcp.ClientSession, *progressLog) {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(o).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := &progressLog{}
	c := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs, log
}

// call calls a tool and decodes its structured result into out; it fails
// the test on a tool error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{"progressToken": name}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := resultText(res)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text)
	}
	if res.StructuredContent == nil {
		t.Fatalf("%s: no structured content", name)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decoding %s: %v", name, b, err)
	}
	return text
}

// callErr calls a tool that must fail with a tool error and returns its
// message.
func callErr(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error instead of a tool error: %v", name, err)
	}
	if !res.IsError {
		t.Fatalf("%s: no error; got %s", name, resultText(res))
	}
	return resultText(res)
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestListTools(t *testing.T) {
	cs, _ := connect(t, Options{Version: "test"})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: description, input schema and output schema are all required", tool.Name)
		}
		if tool.Annotations == nil {
			t.Errorf("%s: no annotations (TestLaunchAnnotations says which)", tool.Name)
		}
	}
	want := sortedToolNames()
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("tools = %v, want %v", names, want)
	}
	init := cs.InitializeResult()
	if init.ServerInfo.Name != Name || init.Instructions == "" {
		t.Errorf("server info %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
}

func TestAuditConfig(t *testing.T) {
	f := newFixture(t, false)
	cs, progress := connect(t, f.opts)

	// From the cache only (the default): nothing is cached yet.
	var cold AuditResult
	text := call(t, cs, toolAudit, map[string]any{"path": ".mcp.json"}, &cold)
	if cold.Schema != AuditSchema || len(cold.Configs) != 1 || !cold.Partial {
		t.Fatalf("cold audit: %+v", cold)
	}
	for _, s := range cold.Configs[0].Servers {
		if s.Status != "not-cached" || s.Tokens != nil {
			t.Errorf("cold audit launched %s: %+v", s.Name, s)
		}
		// The caller has no --offline flag: the detail and hint speak of
		// the tool's launch argument.
		if strings.Contains(s.Detail+s.Hint, "--offline") || !strings.Contains(s.Hint, "launch: true") {
			t.Errorf("cold audit of %s: detail %q, hint %q, want no --offline and a hint of launch: true", s.Name, s.Detail, s.Hint)
		}
	}
	if !strings.Contains(text, "launch: true") || strings.Contains(text, "--offline") {
		t.Errorf("cold audit text does not say how to measure, or names a flag the caller has not:\n%s", text)
	}

	// Launching measures both servers and fills the cache.
	var warm AuditResult
	text = call(t, cs, toolAudit, map[string]any{"path": filepath.Join(f.project, ".mcp.json"), "launch": true}, &warm)
	c := warm.Configs[0]
	if warm.Partial || len(c.Servers) != 2 {
		t.Fatalf("launched audit: %+v\n%s", warm, text)
	}
	byName := map[string]AuditServer{}
	sum := 0
	for _, s := range c.Servers {
		byName[s.Name] = s
		if s.Status != "measured" || s.Tokens == nil || s.Tools == nil {
			t.Fatalf("%s: %+v", s.Name, s)
		}
		sum += *s.Tokens
	}
	// The notes server's figure is the one "mcpcost measure" gives.
	if n := byName["notes"]; *n.Tokens != 611 || *n.Tools != 4 {
		t.Errorf("notes: %d tokens in %d tools, want 611 in 4", *n.Tokens, *n.Tools)
	}
	if c.Tokens != sum || c.Client != "claude-code" || len(c.Heaviest) == 0 {
		t.Errorf("config: %+v (sum of servers %d)", c, sum)
	}
	if !strings.Contains(text, "notes: 611 tokens, 4 tools") {
		t.Errorf("text:\n%s", text)
	}
	if len(progress.wait(2)) < 2 {
		t.Errorf("progress notifications: %q", progress.all())
	}
	b, _ := json.Marshal(warm)
	if strings.Contains(string(b)+text, "canary") {
		t.Errorf("an env value reached the result: %s", b)
	}

	// Again without launch: the cache answers.
	var cached AuditResult
	call(t, cs, toolAudit, map[string]any{"path": ".mcp.json"}, &cached)
	if cached.Partial || cached.Configs[0].Tokens != c.Tokens {
		t.Errorf("from the cache: %+v, want %d tokens", cached, c.Tokens)
	}

	// No path: the configs discovered, the project's .mcp.json among them.
	var found AuditResult
	call(t, cs, toolAudit, map[string]any{"client": "claude-code"}, &found)
	paths := []string{}
	for _, cfg := range found.Configs {
		paths = append(paths, cfg.Path)
		if cfg.Client != "claude-code" {
			t.Errorf("client filter let through %s", cfg.Client)
		}
	}
	if !slices.Contains(paths, filepath.Join(f.project, ".mcp.json")) {
		t.Errorf("discovery did not find the project's .mcp.json: %v", paths)
	}
}

func TestMeasureServer(t *testing.T) {
	f := newFixture(t, false)
	cs, progress := connect(t, f.opts)
	var m MeasureResult
	text := call(t, cs, toolMeasure, map[string]any{"command": f.notes, "env": map[string]any{"API_TOKEN": "canary-7f3a9c2e41"}}, &m)
	if m.Schema != MeasureSchema || m.Status != "measured" || m.Tokens != 611 || m.ToolCount != 4 || len(m.Tools) != 4 {
		t.Fatalf("notes: %+v", m)
	}
	if m.Tools[0].Name != "add_note" || m.Tools[0].Tokens != 188 || m.InstructionsTokens != 25 || m.SessionStartTokens != 38 {
		t.Errorf("notes details: %+v", m)
	}
	if len(m.CanonicalSha256) != 64 {
		t.Errorf("sha256 %q", m.CanonicalSha256)
	}
	if !strings.HasPrefix(text, "notes: 611 tokens in 4 tools") {
		t.Errorf("text:\n%s", text)
	}
	b, _ := json.Marshal(m)
	if strings.Contains(string(b)+text, "canary") {
		t.Errorf("an env value was echoed: %s", b)
	}
	if got := progress.wait(2); len(got) != 2 || !strings.HasPrefix(got[0], "measuring ") {
		t.Errorf("progress: %q", got)
	}

	// A command that fails: a tool error with the scrubbed stderr; the
	// server keeps serving.
	msg := callErr(t, cs, toolMeasure, map[string]any{
		"command": "sh",
		"args":    []string{"-c", `echo "args: $* token: $API_TOKEN" >&2; exit 3`, "sh", "--api-key=canary-arg-99ab77"},
		"env":     map[string]string{"API_TOKEN": "canary-env-31337"},
	})
	if !strings.Contains(msg, "startup-failure") || !strings.Contains(msg, "args: ") || strings.Contains(msg, "canary") {
		t.Errorf("failing command: %s", msg)
	}
	msg = callErr(t, cs, toolMeasure, map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")})
	if !strings.Contains(msg, "startup-failure") {
		t.Errorf("missing command: %s", msg)
	}
	msg = callErr(t, cs, toolMeasure, map[string]any{"url": "ftp://example.com/?token=canary-url-4242"})
	if !strings.Contains(msg, "not an http(s) URL") || strings.Contains(msg, "canary") {
		t.Errorf("bad url: %s", msg)
	}
	msg = callErr(t, cs, toolMeasure, map[string]any{
		"url":     "http://127.0.0.1:9/mcp?api_key=canary-query-1234",
		"headers": map[string]string{"Authorization": "Bearer canary-header-8080"},
	})
	if !strings.Contains(msg, "startup-failure") || strings.Contains(msg, "canary") {
		t.Errorf("unreachable url: %s", msg)
	}
	call(t, cs, toolMeasure, map[string]any{"command": f.units}, &m)
	if m.Server == "" || m.Tokens == 0 {
		t.Errorf("units after failures: %+v", m)
	}
}

func TestUsageTools(t *testing.T) {
	f := newFixture(t, true)
	cs, progress := connect(t, f.opts)

	var u UsageResult
	text := call(t, cs, toolUsage, map[string]any{"by": "server"}, &u)
	if u.Schema != UsageSchema || u.By != "server" || u.Requests != len(f.manifest.Requests) || u.ToolCalls != len(f.manifest.Calls) {
		t.Fatalf("usage: %d requests, %d tool calls; want %d and %d\n%s", u.Requests, u.ToolCalls, len(f.manifest.Requests), len(f.manifest.Calls), text)
	}
	if len(u.Rows) == 0 || u.ResultTokens == 0 || len(u.Notes) == 0 || !strings.Contains(u.Notes[0], "corrupt") {
		t.Errorf("usage: %+v", u)
	}
	if len(progress.wait(1)) == 0 {
		t.Errorf("no progress while reading transcripts")
	}

	// The figures are usage's: compare with a report built on the store.
	st, err := store.Open(f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ref, err := usage.Build(context.Background(), st, usage.Options{By: "session", Source: "all", Location: time.UTC, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if ref.Totals.Requests != u.Requests || ref.Totals.ResultTokens != u.ResultTokens {
		t.Errorf("usage_summary %+v, usage %+v", u, ref.Totals)
	}

	// The cost mode, as usage's --mode: the tree records no costUSD, so
	// that display prices nothing.
	for _, mode := range []string{"calculate", "display"} {
		var um UsageResult
		call(t, cs, toolUsage, map[string]any{"by": "server", "mode": mode}, &um)
		ref, err := usage.Build(context.Background(), st, usage.Options{By: "server", Source: "all", Location: time.UTC, Now: time.Now(), Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		show := func(v *float64) string {
			if v == nil {
				return "null"
			}
			return fmt.Sprint(*v)
		}
		if show(roundCost(ref.Totals.Cost)) != show(um.Cost) || (mode == "display") != (um.Cost == nil) {
			t.Errorf("mode %s: cost %s, usage %s", mode, show(um.Cost), show(ref.Totals.Cost))
		}
	}
	for _, tool := range []string{toolUsage, toolFindings} {
		if msg := callErr(t, cs, tool, map[string]any{"mode": "guess"}); !strings.Contains(msg, "mode must be one of auto, calculate, display") {
			t.Errorf("%s with mode guess: %s", tool, msg)
		}
	}

	var byTool UsageResult
	call(t, cs, toolUsage, map[string]any{"by": "tool", "limit": 2}, &byTool)
	if len(byTool.Rows) != 2 || byTool.More == 0 || !strings.Contains(byTool.Rows[0].Key, "/") {
		t.Errorf("by tool, limit 2: %+v", byTool)
	}
	if byTool.Rows[0].ResultTokens < byTool.Rows[1].ResultTokens && !strings.HasPrefix(byTool.Rows[1].Key, "(built-in)") {
		t.Errorf("by tool not heaviest first: %+v", byTool.Rows)
	}
	var byDay UsageResult
	call(t, cs, toolUsage, map[string]any{"by": "day", "days": usage.MaxDays}, &byDay)
	if byDay.Since == nil || byDay.Requests != u.Requests {
		t.Errorf("by day over all days: %+v", byDay)
	}
	// By week (from Monday) and by month, as the command line's: the rows
	// add up to the totals.
	for _, by := range []string{"week", "month"} {
		var r UsageResult
		text := call(t, cs, toolUsage, map[string]any{"by": by}, &r)
		want, err := usage.Build(context.Background(), st, usage.Options{By: by, StartOfWeek: time.Monday, Source: "all", Location: time.UTC, Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		requests := 0
		for i, row := range r.Rows {
			requests += row.Requests
			if i < len(want.Usage) && (row.Key != want.Usage[i].Key || row.Tokens != want.Usage[i].Tokens.Total) {
				t.Errorf("by %s row %d: %+v, usage %+v", by, i, row, want.Usage[i])
			}
		}
		if r.By != by || len(r.Rows) != len(want.Usage) || requests != u.Requests || !strings.Contains(text, "by "+by+":") {
			t.Errorf("by %s: %+v\n%s", by, r, text)
		}
	}
	// By block: Claude Code's billing blocks, newest first, Claude's
	// requests all in them.
	var byBlock UsageResult
	text = call(t, cs, toolUsage, map[string]any{"by": "block"}, &byBlock)
	claude := 0
	for _, r := range f.manifest.Requests {
		if r.Source == "claude" {
			claude++
		}
	}
	if byBlock.By != "block" || len(byBlock.Rows) < 2 || byBlock.Requests != claude || byBlock.Rows[0].Key < byBlock.Rows[1].Key {
		t.Errorf("by block: %+v\n%s", byBlock, text)
	}
	if text := callErr(t, cs, toolUsage, map[string]any{"by": "block", "project": "x"}); !strings.Contains(text, "by block takes no project") {
		t.Errorf("by block with a project: %s", text)
	}

	var recent SessionsResult
	call(t, cs, toolRecent, map[string]any{"limit": 3}, &recent)
	if recent.Schema != SessionsSchema || len(recent.Sessions) != 3 || recent.More != len(ref.Usage)-3 {
		t.Fatalf("recent sessions: %+v (store has %d)", recent, len(ref.Usage))
	}
	if !sort.SliceIsSorted(recent.Sessions, func(i, j int) bool { return recent.Sessions[i].Last > recent.Sessions[j].Last }) {
		t.Errorf("recent sessions not newest first: %+v", recent.Sessions)
	}

	// One session's tools agree with usage's per-session figures and with
	// the generated calls.
	calls := map[string]int{}
	for _, c := range f.manifest.Calls {
		calls[c.Source+":"+c.SessionID]++
	}
	checked := 0
	for _, row := range ref.Usage {
		if row.ToolCalls == 0 {
			continue
		}
		src, id, _ := strings.Cut(row.Key, ":")
		var s SessionResult
		call(t, cs, toolSession, map[string]any{"session": row.Key}, &s)
		if s.Schema != SessionSchema || s.Session != id || s.Source != src || s.Calls != row.ToolCalls || s.ResultTokens != row.ResultTokens {
			t.Errorf("session %s: %d calls, %d result tokens; usage says %d and %d", row.Key, s.Calls, s.ResultTokens, row.ToolCalls, row.ResultTokens)
		}
		if s.Calls != calls[row.Key] {
			t.Errorf("session %s: %d calls, generated %d", row.Key, s.Calls, calls[row.Key])
		}
		for i := 1; i < len(s.Tools); i++ {
			if s.Tools[i].ResultTokens > s.Tools[i-1].ResultTokens {
				t.Errorf("session %s: tools not heaviest first: %+v", row.Key, s.Tools)
			}
		}
		// A prefix of the id finds it too.
		var p SessionResult
		call(t, cs, toolSession, map[string]any{"session": id[:len(id)-2]}, &p)
		if p.Session != id {
			t.Errorf("prefix of %s found %s", id, p.Session)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no session with tool calls in the generated tree")
	}
	// No session named: the one active last.
	var latest SessionResult
	call(t, cs, toolSession, nil, &latest)
	if latest.Session == "" {
		t.Errorf("latest session: %+v", latest)
	}
	msg := callErr(t, cs, toolSession, map[string]any{"session": "no-such-session"})
	if !strings.Contains(msg, `no session "no-such-session"`) {
		t.Errorf("unknown session: %s", msg)
	}
}

// TestIngestIsLazy: the handshake and the listing read no transcript; the
// first usage call does, and a call within the interval reads nothing new.
func TestIngestIsLazy(t *testing.T) {
	f := newFixture(t, true)
	cs, _ := connect(t, f.opts)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.db); !os.IsNotExist(err) {
		t.Fatalf("the store exists before any usage call: %v", err)
	}
	var r SessionsResult
	call(t, cs, toolRecent, nil, &r)
	if _, err := os.Stat(f.db); err != nil {
		t.Fatalf("no store after a usage call: %v", err)
	}
}

// TestIngestWait: a read longer than IngestWait answers from the store as
// it stands, marked partial.
func TestIngestWait(t *testing.T) {
	f := newFixture(t, true)
	o := f.opts
	o.IngestWait = time.Nanosecond
	l := newLazyStore(withDefaults(o))
	complete, _, err := l.fresh(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if complete {
		t.Skip("the read ended within a nanosecond")
	}
	notes := ingestNotes(complete, nil)
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "partial:") {
		t.Errorf("notes %q", notes)
	}
	// Wait for the read to end before the temp folder goes.
	for {
		l.mu.Lock()
		done := l.running == nil
		l.mu.Unlock()
		if done {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func withDefaults(o Options) Options {
	o.defaults()
	return o
}

func TestBadInput(t *testing.T) {
	f := newFixture(t, false)
	o := f.opts
	o.DBPath = ""
	cs, _ := connect(t, o)
	tests := []struct {
		tool string
		args any
		want string
	}{
		{"no_such_tool", map[string]any{}, `unknown tool "no_such_tool"; this server has audit_config`},
		{toolUsage, map[string]any{"days": "seven"}, "days"},
		{toolUsage, map[string]any{"by": "fortnight"}, "by must be one of server, tool, session, day, week, month, model, project, machine, user, block"},
		{toolUsage, map[string]any{"days": -1}, "days must be from 0 (all history) to 36525 (100 years), not -1"},
		{toolUsage, map[string]any{"days": json.RawMessage("1e18")}, "days must be from 0 (all history) to 36525 (100 years), not 1000000000000000000"},
		{toolUsage, map[string]any{"days": int64(1e18)}, "days must be from 0 (all history) to 36525 (100 years), not 1000000000000000000"},
		{toolUsage, map[string]any{"days": 36526}, "days must be from 0 (all history) to 36525"},
		{toolFindings, map[string]any{"days": -3}, "days must be from 0 (all history) to 36525 (100 years), not -3"},
		{toolFindings, map[string]any{"days": 1 << 40}, "days must be from 0 (all history) to 36525"},
		{toolUsage, map[string]any{"nope": 1}, "nope"},
		{toolUsage, map[string]any{}, "no usage store"},
		{toolRecent, map[string]any{"limit": -3}, "limit must be positive"},
		{toolAudit, map[string]any{"path": "missing/.mcp.json"}, "missing/.mcp.json: no such file"},
		{toolAudit, map[string]any{"client": "notepad"}, `unknown client "notepad"`},
		{toolAudit, map[string]any{"launch": "yes"}, "launch"},
		{toolAudit, map[string]any{"path": ".mcp.json", "client": "cursor"}, "not both"},
		{toolMeasure, map[string]any{}, "give a command"},
		{toolMeasure, map[string]any{"command": "x", "url": "http://127.0.0.1:9/"}, "not both"},
		{toolMeasure, map[string]any{"command": "x", "headers": map[string]any{"Authorization": "Bearer canary-h"}}, "headers are for a url"},
		{toolMeasure, map[string]any{"args": "not-a-list", "command": "x"}, "args"},
	}
	for _, tt := range tests {
		msg := callErr(t, cs, tt.tool, tt.args)
		if !strings.Contains(msg, tt.want) {
			t.Errorf("%s %v: %q, want it to mention %q", tt.tool, tt.args, msg, tt.want)
		}
		if strings.Contains(msg, "canary") {
			t.Errorf("%s: a secret was echoed: %s", tt.tool, msg)
		}
	}
	// The server is still there.
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatalf("ping after bad input: %v", err)
	}
	var a AuditResult
	call(t, cs, toolAudit, map[string]any{"path": ".mcp.json"}, &a)
}

// definitionsBudget is the most mcpcost's own tool definitions may cost
// (o200k_base over the canonical JSON of tools/list, methodology 1.0): a
// tool about context cost must not be a heavy one. (2,000 until the cost
// mode argument of usage_summary and findings, 2,039 tokens in all; 2,100
// until the seventh tool, blocks: 251 tokens with its output schema kept
// to the report's top level, audit_config's trust_project said shorter
// and usage_summary's by naming week, month and block, 2,286 in all.
// Dropping the output schemas' lists of required keys would have saved
// 261 tokens, and told a client that validates a result less: they stay.
// 2,350 until audit_config's lists were bounded: moreConfigs, moreProblems
// and the moreServers of a config and of a session cost 32 tokens, 2,366
// in all.)
const definitionsBudget = 2400

func TestDefinitionsBudget(t *testing.T) {
	// Measured as "mcpcost measure" and "mcpcost audit" measure any server:
	// the built binary over stdio, the bytes it sends.
	bin := build(t, "cmd/mcpcost")
	home := t.TempDir()
	res := mcpclient.Measure(context.Background(), mcpclient.Target{Command: bin, Args: []string{"serve"}, Env: map[string]string{"HOME": home}},
		mcpclient.Options{Timeout: 30 * time.Second})
	live := measure.FromLive(res, nil)
	if live.Result == nil {
		t.Fatalf("measuring mcpcost serve: %s: %s\n%s", live.Status, live.Detail, live.StderrTail)
	}
	r := live.Result
	var perTool []string
	for _, i := range r.Heaviest() {
		perTool = append(perTool, fmt.Sprintf("%s %d", r.Tools[i].Name, r.Tools[i].Tokens))
	}
	t.Logf("mcpcost serve: %d tokens in %d tools (%s); instructions %d tokens; session start %d",
		r.TotalTokens, r.ToolCount, strings.Join(perTool, ", "), live.Extras.InstructionsTokens, live.Extras.SessionStartTokens)
	if r.ToolCount != len(toolNames) {
		t.Errorf("%d tools measured, the server has %d", r.ToolCount, len(toolNames))
	}
	if r.TotalTokens > definitionsBudget {
		t.Errorf("the tool definitions cost %d tokens, over the budget of %d: %s", r.TotalTokens, definitionsBudget, strings.Join(perTool, ", "))
	}
	if r.TotalTokens < 100*r.ToolCount {
		t.Errorf("%d tokens for %d tools: the measurement is not counting the definitions", r.TotalTokens, r.ToolCount)
	}
	if live.Status != "measured" {
		t.Errorf("status %s: the definitions must not change between launches", live.Status)
	}

	// The README says what they cost: it must say what was measured.
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := readmeCost.FindStringSubmatch(string(readme))
	if m == nil {
		t.Fatalf("the README does not say what mcpcost's own definitions cost (%s)", readmeCost)
	}
	want := fmt.Sprintf("mcpcost's own definitions cost **%s tokens** (o200k_base, %d tools); a\ndeferring client loads %d of them at session start",
		num.Int(r.TotalTokens), r.ToolCount, live.Extras.SessionStartTokens)
	if m[0] != want {
		t.Errorf("the README says\n%s\nwhere the measurement gives\n%s", m[0], want)
	}
}

// readmeCost finds the README's sentence on the cost of mcpcost's own
// tool definitions.
var readmeCost = regexp.MustCompile(`mcpcost's own definitions cost \*\*[0-9,]+ tokens\*\* \(o200k_base, \d+ tools\); a\s+deferring client loads \d+ of them at session start`)

func TestFindings(t *testing.T) {
	f := newFixture(t, true)
	// Findings judge the session of the project folder against that
	// folder's transcripts: serve in the folder the generated Claude Code
	// sessions ran in, whose session holds the user-scope scratch server.
	// sessions ran in, whose session holds the user-scope scratch server:
	// the sessions of one generated project are moved to the fixture's.
	moved := ""
	for _, r := range f.manifest.Requests {
		if r.Source == "claude" {
			moved = r.Project
			break
		}
	}
	err := filepath.WalkDir(filepath.Join(f.home, ".claude", "projects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, bytes.ReplaceAll(b, []byte(`"`+moved+`"`), []byte(`"`+f.project+`"`)), 0o644)
	})
	if err != nil || moved == "" {
		t.Fatalf("moving the sessions of %q: %v", moved, err)
	}
	cs, _ := connect(t, f.opts)
	var all FindingsResult
	text := call(t, cs, toolFindings, map[string]any{"launch": true, "limit": 100}, &all)
	if all.Schema != FindingsSchema || len(all.Findings) == 0 {
		t.Fatalf("findings: %+v\n%s", all, text)
	}
	idle := false
	for _, fi := range all.Findings {
		idle = idle || fi.Type == "idle-server" && strings.Contains(fi.Title, "scratch")
	}
	if !idle {
		t.Errorf("the user-scope scratch server, never called, is not found idle:\n%s", text)
	}
	if n := all.High + all.Warn + all.Info; n != len(all.Findings)+all.More {
		t.Errorf("counts %d/%d/%d, %d findings listed and %d more", all.High, all.Warn, all.Info, len(all.Findings), all.More)
	}
	seen := map[string]bool{}
	for i, fi := range all.Findings {
		if fi.ID == "" || fi.Title == "" || fi.Recommendation == "" || seen[fi.ID] {
			t.Errorf("finding %d: %+v", i, fi)
		}
		seen[fi.ID] = true
		if i > 0 && rank(fi.Level) > rank(all.Findings[i-1].Level) {
			t.Errorf("findings not most important first: %s after %s", fi.Level, all.Findings[i-1].Level)
		}
		if !strings.Contains(text, fi.ID) {
			t.Errorf("text does not name %s", fi.ID)
		}
	}
	// The same findings keep their ids; a level keeps those at or above it.
	var warn FindingsResult
	call(t, cs, toolFindings, map[string]any{"level": "warn", "limit": 100}, &warn)
	if len(warn.Findings) != all.High+all.Warn {
		t.Errorf("level warn: %d findings, want %d", len(warn.Findings), all.High+all.Warn)
	}
	for _, fi := range warn.Findings {
		if !seen[fi.ID] || fi.Level == "info" {
			t.Errorf("level warn: %+v", fi)
		}
	}
	var one FindingsResult
	call(t, cs, toolFindings, map[string]any{"limit": 1}, &one)
	if len(one.Findings) != 1 || one.More != len(all.Findings)-1 || one.Findings[0].ID != all.Findings[0].ID {
		t.Errorf("limit 1: %+v", one)
	}
	msg := callErr(t, cs, toolFindings, map[string]any{"level": "urgent"})
	if !strings.Contains(msg, "level must be one of info, warn, high") {
		t.Errorf("bad level: %s", msg)
	}
}

func rank(level string) int {
	return map[string]int{"info": 1, "warn": 2, "high": 3}[level]
}

// TestStdio runs the built binary and talks to it over stdio, as a client
// that launches "mcpcost serve" does.
func TestStdio(t *testing.T) {
	f := newFixture(t, false)
	bin := build(t, "cmd/mcpcost")
	cmd := exec.Command(bin, "serve")
	cmd.Dir = f.project
	cmd.Env = append(os.Environ(), "HOME="+f.home, "XDG_CACHE_HOME="+f.cache, "XDG_DATA_HOME="+filepath.Join(f.home, "data"), "MCPCOST_CACHE_DIR="+f.cache)
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(toolNames) {
		t.Errorf("%d tools over stdio, want %d", len(res.Tools), len(toolNames))
	}
	var a AuditResult
	call(t, cs, toolAudit, map[string]any{"path": ".mcp.json", "launch": true}, &a)
	if len(a.Configs) != 1 || a.Partial || a.Configs[0].Tokens == 0 {
		t.Errorf("audit over stdio: %+v", a)
	}
	var r SessionsResult
	text := call(t, cs, toolRecent, nil, &r)
	if len(r.Sessions) != 0 || !strings.Contains(text, "no sessions") {
		t.Errorf("recent sessions of an empty home: %+v %q", r, text)
	}
	if _, err := os.Stat(filepath.Join(f.home, "data", "mcpcost", "usage.db")); err != nil {
		t.Errorf("the store is not in the data folder: %v", err)
	}
}

// TestIngestInterval: a usage call within the interval of the last read
// reads nothing; one after it reads again.
func TestIngestInterval(t *testing.T) {
	f := newFixture(t, true)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	o := f.opts
	o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	l := newLazyStore(withDefaults(o))
	complete, first, err := l.fresh(context.Background(), nil)
	if err != nil || !complete || first == nil || first.Files == 0 {
		t.Fatalf("first read: %v %v %+v", complete, err, first)
	}
	_, again, _ := l.fresh(context.Background(), nil)
	if again != first {
		t.Errorf("read again within the interval: %+v", again)
	}
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	_, later, _ := l.fresh(context.Background(), nil)
	if later == first || later.Requests != 0 || later.Files != first.Files {
		t.Errorf("after the interval: %+v (first %+v)", later, first)
	}
}

// TestPrompts: the prompts for the common questions are listed, each
// names only tools this server has, and takes no arguments.
func TestPrompts(t *testing.T) {
	f := newFixture(t, false)
	cs, _ := connect(t, f.opts)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != len(prompts) {
		t.Fatalf("%d prompts, want %d", len(list.Prompts), len(prompts))
	}
	for _, p := range list.Prompts {
		got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		text := got.Messages[0].Content.(*mcp.TextContent).Text
		named := 0
		for name := range toolNames {
			if strings.Contains(text, name) {
				named++
			}
		}
		if named == 0 || p.Title == "" || p.Description == "" {
			t.Errorf("%s: names %d tools: %s", p.Name, named, text)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: map[string]string{"x": "1"}}); err == nil {
			t.Errorf("%s takes an argument", p.Name)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"}); err == nil {
		t.Error("an unknown prompt is answered")
	}
}

// TestHugeArguments: an error quotes at most a short, escaped start of an
// argument, however long the argument and whatever it holds.
func TestHugeArguments(t *testing.T) {
	f := newFixture(t, true)
	cs, _ := connect(t, f.opts)
	huge := "\x1b[31m\r\n" + strings.Repeat("x\u202e", 1<<20)
	tests := []struct {
		tool string
		args map[string]any
	}{
		{"no_such_tool_" + huge, map[string]any{}},
		{toolSession, map[string]any{"session": huge}},
		{toolRecent, map[string]any{"project": huge}},
		{toolUsage, map[string]any{"by": huge}},
		{toolUsage, map[string]any{"project": huge}},
		{toolUsage, map[string]any{"mode": huge}},
		{toolUsage, map[string]any{"by": "block", "project": huge}},
		{toolFindings, map[string]any{"level": huge}},
		{toolFindings, map[string]any{"project": huge}},
		{toolFindings, map[string]any{"mode": huge}},
		{toolAudit, map[string]any{"path": huge}},
		{toolAudit, map[string]any{"client": huge}},
		{toolMeasure, map[string]any{"url": "http://" + huge}},
		{toolMeasure, map[string]any{"command": "/nonexistent/" + huge}},
		{toolMeasure, map[string]any{"command": "/bin/false", "args": []string{huge}}},
		{toolMeasure, map[string]any{"url": "http://127.0.0.1:9/", "headers": map[string]any{huge: "v"}}},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		var msg string
		switch {
		case err != nil:
			msg = err.Error()
		case res.IsError:
			msg = resultText(res)
		default:
			continue // answered: nothing quoted in an error
		}
		name := tt.tool[:min(len(tt.tool), 20)]
		for k := range tt.args {
			name += " " + k[:min(len(k), 20)]
		}
		if len(msg) > 2048 {
			t.Errorf("%s: a %d-byte error: %.200q", name, len(msg), msg)
		}
		if strings.ContainsAny(msg, "\x1b\r\u202e") {
			t.Errorf("%s: the error holds the argument's control characters raw: %.200q", name, msg)
		}
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatalf("ping after huge input: %v", err)
	}
}

// TestAuditTextEmptyConfigs: the answer with no server names how many
// configs were read and declare none, in agreement with their number.
func TestAuditTextEmptyConfigs(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{1, "no MCP server found in any config (1 config declares none)"},
		{2, "no MCP server found in any config (2 configs declare none)"},
	} {
		rep := &audit.Report{EmptyConfigs: make([]audit.EmptyConfig, tt.n)}
		if got := auditText(auditResult(rep), rep, false); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%d empty configs: %q, want it to start %q", tt.n, got, tt.want)
		}
	}
}
