package findings

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/canon/canontest"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/measure"
)

const (
	proj  = "/home/u/proj"
	other = "/home/u/elsewhere"
	model = "claude-sonnet-4-5-20250929"
)

var (
	start = time.Date(2026, 11, 10, 10, 0, 0, 0, time.UTC)
	now   = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
)

func (s *session) wait(d time.Duration) { s.at = s.at.Add(d) }

func tool(name string, tokens, descBytes int) measure.Tool {
	return measure.Tool{Name: name, Tokens: tokens, DescriptionTokens: tokens / 2, InputSchemaTokens: tokens - tokens/2, DescriptionBytes: descBytes}
}

// server is a measured server entry whose definitions are its tools.
func server(name string, upFront bool, tools ...measure.Tool) audit.Server {
	total := 0
	for _, t := range tools {
		total += t.Tokens
	}
	n := len(tools)
	return audit.Server{Name: name, Status: "measured", Tokens: &total, ToolCount: &n, LoadsUpFront: &upFront,
		SessionStartTokens: 10 * n, Tools: tools}
}

// project is the static audit of proj/.mcp.json under an up-front posture.
func project(servers ...audit.Server) *audit.Report {
	return &audit.Report{Schema: audit.Schema, Configs: []audit.Config{{
		Client: clients.ClaudeCode, ClientTitle: "Claude Code", Path: proj + "/.mcp.json", Scope: "project",
		Posture: clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeUpFront}, Servers: servers,
	}}}
}

// fsAndMemory: filesystem (2,000 tokens, 4 tools) and memory (1,200
// tokens, 9 tools... here 3 tools of 400).
func fsAndMemory() *audit.Report {
	return project(
		server("filesystem", true, tool("read_file", 800, 300), tool("list_directory", 600, 200), tool("search_files", 400, 200), tool("write_file", 200, 100)),
		server("memory", true, tool("create_entities", 400, 200), tool("read_graph", 400, 200), tool("search_nodes", 400, 200)),
	)
}

func compute(t *testing.T, h *home, static *audit.Report, o Options) *Report {
	t.Helper()
	st := h.ingest(t, filepath.Join(t.TempDir(), "usage.db"))
	o.Now = now
	o.Pricing = prices(t)
	if o.Cwd == "" {
		o.Cwd = proj
	}
	r, err := Compute(context.Background(), st, static, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func read(t *testing.T, h *home, s *session, n int) {
	for i := range n {
		s.request(model, cached, tcall{name: "mcp__filesystem__read_file", args: map[string]any{"path": "/f" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)}, result: "text", latency: 200 * time.Millisecond})
	}
}

func only(t *testing.T, r *Report, typ string) *Finding {
	t.Helper()
	if len(r.Findings) != 1 || r.Findings[0].Type != typ {
		var got []string
		for _, f := range r.Findings {
			got = append(got, f.Type+": "+f.Title)
		}
		t.Fatalf("want exactly one %s finding, got %d:\n%s", typ, len(r.Findings), strings.Join(got, "\n"))
	}
	f := &r.Findings[0]
	if f.ID == "" || f.Title == "" || f.Recommendation == "" || f.Confidence == "" || f.ConfidenceRule == "" || f.LevelRule == "" || len(f.Facts) == 0 {
		t.Errorf("incomplete finding: %+v", f)
	}
	if f.EstimatedSaving != nil && f.EstimatedSaving.Assumption == "" {
		t.Errorf("a saving without its assumption: %+v", f.EstimatedSaving)
	}
	return f
}

func none(t *testing.T, r *Report) {
	t.Helper()
	for _, f := range r.Findings {
		t.Errorf("unexpected %s finding: %s", f.Type, f.Title)
	}
}

func TestIdleServer(t *testing.T) {
	h := newHome(t)
	s := h.session("s1", proj, start)
	read(t, h, s, 12)
	r := compute(t, h, fsAndMemory(), Options{})
	f := only(t, r, TypeIdleServer)
	ev := f.Evidence.(IdleEvidence)
	if f.Subject.Server != "memory" || ev.Requests != 12 || ev.Calls != 0 || ev.PerRequestTokens != 1200 || ev.CarriedTokens != 14_400 || ev.Sessions != 1 {
		t.Errorf("evidence %+v", ev)
	}
	// Each request read 10 uncached and 9,990 cached input tokens: a
	// blended $0.3027 per million; 14,400 tokens cost $0.0044.
	if ev.CarriedUSD != 0.0044 || *f.EstimatedSaving.USD != 0.0044 || f.EstimatedSaving.Tokens != 14_400 {
		t.Errorf("carried %v, saving %+v", ev.CarriedUSD, f.EstimatedSaving)
	}
	if ev.CacheReadShare != 0.999 {
		t.Errorf("cache read share %v", ev.CacheReadShare)
	}
	if f.Level != LevelWarn || !strings.Contains(f.Title, "never called") || !strings.Contains(f.Recommendation, "ENABLE_TOOL_SEARCH") {
		t.Errorf("level %s, title %q, recommendation %q", f.Level, f.Title, f.Recommendation)
	}
	// The join per config says the same.
	if len(r.Configs) != 1 || r.Configs[0].Requests != 12 || r.Configs[0].Servers[0].Calls != 12 || r.Configs[0].Servers[1].Calls != 0 {
		t.Errorf("configs %+v", r.Configs)
	}
}

// A config file changed after the window began: the finding says how many
// requests came after the change, and is of low confidence when most came
// before.
func TestIdleServerConfigChanged(t *testing.T) {
	h := newHome(t)
	read(t, h, h.session("s1", proj, start), 12) // one request every 1.2 s
	changed := start.Add(9 * time.Second)        // after 8 of the 12
	o := Options{ConfigModified: func(path string) time.Time {
		if path == proj+"/.mcp.json" {
			return changed
		}
		return time.Time{}
	}}
	f := only(t, compute(t, h, fsAndMemory(), o), TypeIdleServer)
	ev := f.Evidence.(IdleEvidence)
	if ev.RequestsSinceChange == nil || *ev.RequestsSinceChange != 4 || ev.ConfigChanged != "2026-11-10T10:00:09Z" || f.Confidence != "low" {
		t.Errorf("evidence %+v, confidence %s", ev, f.Confidence)
	}
	if !strings.Contains(strings.Join(f.Facts, "\n"), "rode on the 4 requests after it (4,800 tokens)") {
		t.Errorf("facts %q", f.Facts)
	}
	// Changed before the window: nothing to say.
	o.ConfigModified = func(string) time.Time { return start.Add(-time.Hour) }
	f = only(t, compute(t, h, fsAndMemory(), o), TypeIdleServer)
	if ev := f.Evidence.(IdleEvidence); ev.RequestsSinceChange != nil || f.Confidence != "medium" {
		t.Errorf("changed before: %+v %s", ev, f.Confidence)
	}
}

func TestIdleServerNearMisses(t *testing.T) {
	cases := map[string]func(h *home){
		"too few requests": func(h *home) { read(t, h, h.session("s1", proj, start), 9) },
		"called once in 12 requests": func(h *home) {
			s := h.session("s1", proj, start)
			read(t, h, s, 11)
			s.request(model, cached, tcall{name: "mcp__memory__read_graph", args: map[string]any{}, result: "{}"})
		},
		"sessions of another project": func(h *home) { s := h.session("s1", other, start); s.requests(30, model, cached) },
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHome(t)
			build(h)
			none(t, compute(t, h, fsAndMemory(), Options{}))
		})
	}
}

func TestIdleServerDeferred(t *testing.T) {
	// Under tool search only names and instructions ride on each request.
	h := newHome(t)
	read(t, h, h.session("s1", proj, start), 12)
	static := project(server("filesystem", false, tool("read_file", 800, 300)), server("memory", false, tool("a", 400, 10), tool("b", 400, 10)))
	f := only(t, compute(t, h, static, Options{}), TypeIdleServer)
	ev := f.Evidence.(IdleEvidence)
	if ev.PerRequestTokens != 20 || ev.CarriedTokens != 240 || ev.DefinitionTokens != 800 {
		t.Errorf("evidence %+v", ev)
	}
	if strings.Contains(f.Recommendation, "ENABLE_TOOL_SEARCH") {
		t.Errorf("recommends deferring a deferred server: %s", f.Recommendation)
	}
}

func TestOversizedResults(t *testing.T) {
	h := newHome(t)
	s := h.session("s1", proj, start)
	s.request(model, cached, tcall{name: "mcp__filesystem__search_files", args: map[string]any{"q": "a"}, result: words(t, 6_000)})
	s.request(model, cached, tcall{name: "mcp__filesystem__search_files", args: map[string]any{"q": "b"}, result: words(t, 26_000)})
	f := only(t, compute(t, h, nil, Options{}), TypeOversizedResults)
	ev := f.Evidence.(ResultEvidence)
	if ev.Results != 2 || ev.AvgTokens != 16_000 || ev.MaxTokens != 26_000 || ev.OverLimit != 1 || ev.OverWarn != 1 || ev.Role != "search or list" {
		t.Errorf("evidence %+v", ev)
	}
	if f.Level != LevelHigh || f.EstimatedSaving.Tokens != 22_000 || f.EstimatedSaving.USD != nil || !strings.Contains(f.Recommendation, "paginate") {
		t.Errorf("level %s, saving %+v, recommendation %q", f.Level, f.EstimatedSaving, f.Recommendation)
	}

	// Near miss: average 4,500, none over 10,000.
	h = newHome(t)
	s = h.session("s1", proj, start)
	s.request(model, cached, tcall{name: "mcp__filesystem__read_file", args: map[string]any{"p": "a"}, result: words(t, 4_000)})
	s.request(model, cached, tcall{name: "mcp__filesystem__read_file", args: map[string]any{"p": "b"}, result: words(t, 5_000)})
	none(t, compute(t, h, nil, Options{}))

	// A lower threshold by option makes it fire, as info, with the read
	// role's advice.
	f = only(t, compute(t, h, nil, Options{Thresholds: Thresholds{ResultAvgTokens: 4_000}}), TypeOversizedResults)
	if f.Level != LevelInfo || !strings.Contains(f.Recommendation, "Pre-filter") {
		t.Errorf("level %s, recommendation %q", f.Level, f.Recommendation)
	}
}

func TestRepeatedCalls(t *testing.T) {
	h := newHome(t)
	s := h.session("s1", proj, start)
	for range 3 {
		s.request(model, cached, tcall{name: "mcp__filesystem__read_file", args: map[string]any{"path": "/a", "n": 1}, result: words(t, 50)})
		s.wait(time.Minute)
	}
	f := only(t, compute(t, h, nil, Options{}), TypeRepeatedCalls)
	ev := f.Evidence.(RepeatEvidence)
	if ev.Calls != 3 || ev.Repeats != 2 || ev.RepeatedTokens != 100 || ev.MostRepeats != 3 || ev.Sessions != 1 {
		t.Errorf("evidence %+v", ev)
	}
	if f.Level != LevelInfo || f.EstimatedSaving.Tokens != 100 || f.Confidence != "high" {
		t.Errorf("level %s saving %+v", f.Level, f.EstimatedSaving)
	}

	cases := map[string]func(s *session){
		"outside the window": func(s *session) {
			for range 3 {
				s.request(model, cached, tcall{name: "mcp__filesystem__read_file", args: map[string]any{"path": "/a"}, result: "x"})
				s.wait(11 * time.Minute)
			}
		},
		"different arguments": func(s *session) {
			for i := range 3 {
				s.request(model, cached, tcall{name: "mcp__filesystem__read_file", args: map[string]any{"path": "/a", "n": i}, result: "x"})
			}
		},
		"one repeat only": func(s *session) {
			for range 2 {
				s.request(model, cached, tcall{name: "mcp__filesystem__read_file", args: map[string]any{"path": "/a"}, result: "x"})
			}
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHome(t)
			build(h.session("s1", proj, start))
			none(t, compute(t, h, nil, Options{}))
		})
	}
	// Two sessions with one identical call each: not a repeat.
	h = newHome(t)
	for _, id := range []string{"s1", "s2"} {
		h.session(id, proj, start).request(model, cached, tcall{name: "mcp__filesystem__read_file", args: map[string]any{"path": "/a"}, result: "x"})
	}
	none(t, compute(t, h, nil, Options{Thresholds: Thresholds{RepeatMin: 1}}))
}

func TestSlowTool(t *testing.T) {
	build := func(lat time.Duration, n int) *home {
		h := newHome(t)
		s := h.session("s1", proj, start)
		for i := range n {
			s.request(model, cached, tcall{name: "mcp__browser__navigate", args: map[string]any{"i": i}, result: "ok", latency: lat})
		}
		return h
	}
	f := only(t, compute(t, build(20*time.Second, 3), nil, Options{}), TypeSlowTool)
	ev := f.Evidence.(SlowEvidence)
	if ev.Calls != 3 || ev.P50Ms != 20_000 || ev.P95Ms != 20_000 || f.Level != LevelInfo || f.EstimatedSaving != nil {
		t.Errorf("evidence %+v level %s", ev, f.Level)
	}
	if !strings.Contains(strings.Join(f.Facts, " "), "permission") {
		t.Errorf("the facts do not say the figure includes permission waits: %q", f.Facts)
	}
	none(t, compute(t, build(9*time.Second, 3), nil, Options{}))
	none(t, compute(t, build(20*time.Second, 2), nil, Options{}))

	// Allowed without asking: no prompt in the figures, said so.
	allowed := func(source, project, server, tool string) bool {
		return source == "claude" && project == proj && server == "browser" && tool == "navigate"
	}
	f = only(t, compute(t, build(20*time.Second, 3), nil, Options{PreApproved: allowed}), TypeSlowTool)
	if ev := f.Evidence.(SlowEvidence); !ev.PreApproved || f.Confidence != "high" || !strings.Contains(f.Facts[1], "no permission prompt") {
		t.Errorf("pre-approved: %+v %s %q", ev, f.Confidence, f.Facts)
	}
}

func TestExpensiveSession(t *testing.T) {
	build := func(out int64) *home {
		h := newHome(t)
		s := h.session("sess-expensive-1", proj, start)
		s.request(model, use{in: 1000, out: out, cr: 0})
		s.request(model, cached, tcall{name: "mcp__github__search_code", args: map[string]any{}, result: words(t, 300)})
		return h
	}
	f := only(t, compute(t, build(400_000), nil, Options{}), TypeExpensiveSession)
	ev := f.Evidence.(SessionEvidence)
	// 1,000 input at $3/M, 400,050 output at $15/M, 9,990 cache reads at
	// $0.30/M, 10 input.
	if ev.Cost != 6.0068 || ev.CostByKind.Output != 6.0008 || ev.Requests != 2 || ev.ToolCalls != 1 || ev.MCPResultTokens != 300 || ev.TopServers[0].Server != "github" {
		t.Errorf("evidence %+v", ev)
	}
	if f.Level != LevelInfo || !strings.Contains(f.Title, "output") || f.Subject.Session != "sess-expensive-1" {
		t.Errorf("level %s title %q", f.Level, f.Title)
	}
	none(t, compute(t, build(300_000), nil, Options{}))
}

// TestModes: the findings price requests as usage's --mode does: the cost
// Claude Code recorded where there is one (auto), the price table's
// (calculate), or only the recorded one (display); an expensive session's
// cost by kind adds up to its cost in each.
func TestModes(t *testing.T) {
	h := newHome(t)
	s := h.session("sess-recorded-1", proj, start)
	recorded := 7.25
	s.cost = &recorded
	s.request(model, use{in: 1000, out: 100_000, cr: 0}) // $1.503 from the table
	s.request(model, use{in: 1000, out: 100_000, cr: 0})
	st := h.ingest(t, filepath.Join(t.TempDir(), "usage.db"))
	run := func(mode string) *Report {
		r, err := Compute(context.Background(), st, nil, Options{Now: now, Pricing: prices(t), Cwd: proj, Mode: mode, Thresholds: Thresholds{SessionUSD: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		mode     string
		cost     float64
		unpriced bool
	}{
		{"", 7.25 + 1.503, false},
		{"auto", 7.25 + 1.503, false},
		{"calculate", 2 * 1.503, false},
		{"display", 7.25, true},
	} {
		r := run(tc.mode)
		want := tc.mode
		if want == "" {
			want = "auto"
		}
		if r.Mode != want || math.Abs(r.Window.Cost-tc.cost) > 1e-9 || (len(r.Window.UnpricedModels) > 0) != tc.unpriced {
			t.Errorf("mode %q: mode %q, cost %v, unpriced %q; want %v", tc.mode, r.Mode, r.Window.Cost, r.Window.UnpricedModels, tc.cost)
		}
		if tc.unpriced && !strings.Contains(strings.Join(r.Notes, "\n"), "without a recorded cost") {
			t.Errorf("mode %q: notes %q", tc.mode, r.Notes)
		}
		f := only(t, r, TypeExpensiveSession)
		ev := f.Evidence.(SessionEvidence)
		k := ev.CostByKind
		if math.Abs(ev.Cost-round4(tc.cost)) > 1e-9 || math.Abs(k.Input+k.Output+k.CacheWrite+k.CacheRead-ev.Cost) > 0.0005 {
			t.Errorf("mode %q: session cost %v, by kind %+v", tc.mode, ev.Cost, k)
		}
	}
	if _, err := Compute(context.Background(), st, nil, Options{Now: now, Mode: "guess"}); err == nil || !strings.Contains(err.Error(), "guess") {
		t.Errorf("mode guess: %v", err)
	}
}

func TestCacheInefficiency(t *testing.T) {
	build := func(cw int64) *home {
		h := newHome(t)
		s := h.session("s1", proj, start)
		s.request(model, use{in: 5, out: 10, cw5m: cw})
		s.request(model, use{in: 5, out: 10, cr: 50_000})
		return h
	}
	f := only(t, compute(t, build(190_000), nil, Options{}), TypeCacheInefficiency)
	ev := f.Evidence.(CacheEvidence)
	if ev.CacheWrites != 190_000 || ev.CacheReads != 50_000 || ev.Ratio != 3.8 || ev.Requests != 2 || f.Subject.Day != "2026-11-10" || f.Subject.Project != proj {
		t.Errorf("evidence %+v subject %+v", ev, f.Subject)
	}
	// 140,000 of the 190,000 writes as reads: 140,000 × ($3.75 − $0.30)/M.
	// (Kept under 200,000 input tokens: above, long-context rates apply.)
	if f.EstimatedSaving.Tokens != 140_000 || *f.EstimatedSaving.USD != 0.483 || f.Level != LevelWarn || f.Confidence != "low" {
		t.Errorf("saving %+v (%v) level %s", f.EstimatedSaving, *f.EstimatedSaving.USD, f.Level)
	}
	none(t, compute(t, build(90_000), nil, Options{}))
	none(t, compute(t, build(190_000), nil, Options{Thresholds: Thresholds{CacheRatio: 5}}))

	// Over 200,000 input tokens, Sonnet 4.5's long-context rates apply
	// (write $7.50, read $0.60): 150,000 × $6.90/M = $1.035, high.
	f = only(t, compute(t, build(200_000), nil, Options{}), TypeCacheInefficiency)
	if *f.EstimatedSaving.USD != 1.035 || f.Level != LevelHigh {
		t.Errorf("long context: saving %v level %s", *f.EstimatedSaving.USD, f.Level)
	}
}

func TestHeavyDefinition(t *testing.T) {
	h := newHome(t)
	read(t, h, h.session("s1", proj, start), 12)
	heavy := project(server("filesystem", true, tool("read_file", 1_600, 300), tool("list_directory", 1_400, 300)))
	f := only(t, compute(t, h, heavy, Options{}), TypeHeavyDefinition)
	ev := f.Evidence.(DefinitionEvidence)
	if f.Subject.Tool != "read_file" || ev.Tokens != 1_600 || ev.CutCharacters != 0 || f.Level != LevelInfo {
		t.Errorf("subject %+v evidence %+v level %s", f.Subject, ev, f.Level)
	}
	// 100 tokens over the threshold on each of 12 requests.
	if f.EstimatedSaving.Tokens != 1_200 || f.EstimatedSaving.USD == nil {
		t.Errorf("saving %+v", f.EstimatedSaving)
	}

	// A description Claude Code cuts, counted exactly in UTF-16 units.
	desc := strings.Repeat("é", 2_100) // 4,200 bytes, 2,100 characters
	cut := project(server("filesystem", true, tool("read_file", 1_000, len(desc)), tool("tail", 300, 2_048)))
	o := Options{Descriptions: func(ConfigRef, string) map[string]string {
		return map[string]string{"read_file": desc, "tail": strings.Repeat("a", 2_048)}
	}}
	f = only(t, compute(t, newHome(t), cut, o), TypeHeavyDefinition)
	ev = f.Evidence.(DefinitionEvidence)
	if f.Subject.Tool != "read_file" || ev.DescriptionLength != 2_100 || ev.CutCharacters != 52 || !ev.DescriptionExact || f.Level != LevelWarn || f.EstimatedSaving != nil {
		t.Errorf("evidence %+v level %s", ev, f.Level)
	}

	// Near miss: 3,000 bytes that are 1,500 characters are not cut.
	short := strings.Repeat("é", 1_500)
	o.Descriptions = func(ConfigRef, string) map[string]string { return map[string]string{"read_file": short} }
	none(t, compute(t, newHome(t), project(server("filesystem", true, tool("read_file", 1_000, len(short)))), o))
}

// Ids survive a second run and more, unrelated data.
func TestStableIDs(t *testing.T) {
	h := newHome(t)
	s := h.session("s1", proj, start)
	read(t, h, s, 12)
	for range 3 {
		s.request(model, cached, tcall{name: "mcp__filesystem__search_files", args: map[string]any{"q": "same"}, result: words(t, 20)})
	}
	db := filepath.Join(t.TempDir(), "usage.db")
	run := func() map[string]string {
		st := h.ingest(t, db)
		r, err := Compute(context.Background(), st, fsAndMemory(), Options{Now: now, Cwd: proj, Pricing: prices(t)})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		for _, f := range r.Findings {
			ids[f.Type] = f.ID
		}
		return ids
	}
	first := run()
	if len(first) != 2 || first[TypeIdleServer] == "" || first[TypeRepeatedCalls] == "" {
		t.Fatalf("findings %v", first)
	}
	if again := run(); again[TypeIdleServer] != first[TypeIdleServer] || again[TypeRepeatedCalls] != first[TypeRepeatedCalls] {
		t.Errorf("ids changed between two runs: %v, %v", first, again)
	}
	// More data: another project, another day, and more of the same.
	o := h.session("s2", other, start.AddDate(0, 0, 3))
	o.requests(20, model, cached)
	read(t, h, s, 5)
	more := run()
	for typ, id := range first {
		if more[typ] != id {
			t.Errorf("%s: id %s became %s after more data", typ, id, more[typ])
		}
	}
	if !strings.HasPrefix(first[TypeIdleServer], "idle-") {
		t.Errorf("id %s", first[TypeIdleServer])
	}
}

// The report is JSON with the schema, sorted, and nothing of the
// arguments.
func TestReportJSON(t *testing.T) {
	h := newHome(t)
	s := h.session("s1", proj, start)
	read(t, h, s, 12)
	s.request(model, cached, tcall{name: "mcp__filesystem__search_files", args: map[string]any{"q": "canary-arg"}, result: words(t, 26_000)})
	r := compute(t, h, fsAndMemory(), Options{})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	for _, want := range []string{`"schema":"mcpcost.findings/v1"`, `"type":"idle-server"`, `"estimatedSaving":{"tokens"`, `"confidenceRule"`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if strings.Contains(js, "canary-arg") {
		t.Error("the JSON holds a tool argument")
	}
	if r.Findings[0].Level != LevelHigh || r.Max() != LevelHigh || r.AtOrAbove(LevelWarn) != 2 || r.Counts.High != 1 || r.Counts.Warn != 1 {
		t.Errorf("order or counts: %+v", r.Counts)
	}
}

func TestToolRole(t *testing.T) {
	for name, want := range map[string]string{
		"search_files":  "search or list",
		"listIssues":    "search or list",
		"read_file":     "read, fetch or run",
		"browser-fetch": "read, fetch or run",
		"execute_sql":   "read, fetch or run",
		"create_entity": "unknown",
		"researcher":    "unknown", // "search" inside a word is not the word
	} {
		if got, _ := toolRole(name); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

// A Codex config applies to Codex sessions, not to Claude Code's; its
// advice speaks Codex (enabled = false, enabled_tools).
func TestIdleServerCodex(t *testing.T) {
	h := newHome(t)
	h.codexSession(t, "0199a000-1111-7222-8333-944445555666", "/home/u/codex-proj", start, 12, "mcp__github__search_issues")
	// Claude Code sessions in proj never called github or docs either.
	read(t, h, h.session("s1", proj, start), 12)
	static := fsAndMemory()
	static.Configs = append(static.Configs, audit.Config{
		Client: clients.Codex, ClientTitle: "Codex", Path: "/home/u/.codex/config.toml", Scope: "user",
		Posture: clients.Posture{Client: clients.Codex, Mode: clients.ModeNoRecord},
		Servers: []audit.Server{
			server("docs", true, tool("lookup", 500, 100), tool("fetch", 500, 100)),
			server("github", true, tool("search_issues", 700, 100), tool("get_issue", 300, 100)),
		},
	})
	r := compute(t, h, static, Options{})
	var idle []string
	for _, f := range r.Findings {
		if f.Type != TypeIdleServer {
			t.Errorf("unexpected %s: %s", f.Type, f.Title)
			continue
		}
		ev := f.Evidence.(IdleEvidence)
		idle = append(idle, fmt.Sprintf("%s %s %d %d %d", f.Subject.Client, f.Subject.Server, ev.Requests, ev.Calls, ev.CarriedTokens))
		if f.Subject.Client == clients.Codex && !strings.Contains(f.Recommendation, "enabled = false") {
			t.Errorf("codex advice: %s", f.Recommendation)
		}
	}
	want := []string{"claude-code memory 12 0 14400", "codex docs 12 0 12000"}
	sort.Strings(idle)
	if strings.Join(idle, "; ") != strings.Join(want, "; ") {
		t.Errorf("idle: %q, want %q", idle, want)
	}
	// Codex: 1,000 uncached at $1.25/M and 9,000 cached at $0.125/M: a
	// blended $0.2375/M; 1,000 tokens × 12 requests = $0.00285 (0.0028 at four
	// decimals: the float sum falls just below the half).
	for _, c := range r.Configs {
		if c.Client == clients.Codex && (c.Requests != 12 || c.Servers[1].Calls != 12 || c.Servers[0].CarriedUSD != 0.0028) {
			t.Errorf("codex join: %+v", c)
		}
	}
}

// Tool names are whatever servers publish: the role guess never panics,
// and its words come from the name.
func FuzzToolRole(f *testing.F) {
	for _, s := range []string{"search_files", "listIssues", "browser-fetch", "", "__", "ÉtatRead", "a.b/c:d e", "\xff\xfeget"} {
		f.Add(s)
	}
	for _, s := range canontest.SeedLines() {
		f.Add(string(s))
	}
	f.Fuzz(func(t *testing.T, name string) {
		role, advice := toolRole(name)
		if role == "" || advice == "" {
			t.Fatalf("%q: empty role or advice", name)
		}
		// The words are the name's, lowercased, in order: each is found
		// after the one before, which keeps the check linear.
		lower := strings.ToLower(name)
		for _, w := range splitWords(name) {
			i := strings.Index(lower, w)
			if w == "" || i < 0 {
				t.Fatalf("%q: word %q not from the name", name, w)
			}
			lower = lower[i+len(w):]
		}
	})
}

// What could not be judged is said, and makes the report partial.
func TestNotes(t *testing.T) {
	h := newHome(t)
	read(t, h, h.session("s1", proj, start), 3)
	r := compute(t, h, &audit.Report{Problems: []audit.Problem{{Path: proj + "/.mcp.json", Error: proj + "/.mcp.json:2:1: not valid JSON"}}}, Options{})
	notes := strings.Join(r.Notes, "\n")
	if !r.Partial || !strings.Contains(notes, "no MCP config with servers was found") || !strings.Contains(notes, "config not judged: "+proj+"/.mcp.json:2:1") {
		t.Errorf("partial %v, notes %q", r.Partial, r.Notes)
	}
	r = compute(t, h, nil, Options{})
	if !r.Partial || !strings.Contains(strings.Join(r.Notes, "\n"), "no static audit") {
		t.Errorf("partial %v, notes %q", r.Partial, r.Notes)
	}
	st := h.ingest(t, filepath.Join(t.TempDir(), "u.db"))
	r, err := Compute(context.Background(), st, fsAndMemory(), Options{Now: now, Cwd: proj})
	if err != nil || !strings.Contains(strings.Join(r.Notes, "\n"), "no price table") || r.Window.Cost != 0 {
		t.Errorf("without prices: %v %q", err, r.Notes)
	}
}

// TestNotesExtension: a server a client's extension provides is not
// measured, and the note says why, not that it failed when launched.
func TestNotesExtension(t *testing.T) {
	h := newHome(t)
	read(t, h, h.session("s1", proj, start), 3)
	static := fsAndMemory()
	static.Partial = true
	static.Configs[0].Servers = append(static.Configs[0].Servers, audit.Server{Name: "postgres", Status: audit.StatusExtension, Counted: true})
	r := compute(t, h, static, Options{})
	notes := strings.Join(r.Notes, "\n")
	if !r.Partial || !strings.Contains(notes, "postgres is provided by a client's extension") || strings.Contains(notes, "when launched") {
		t.Errorf("partial %v, notes %q", r.Partial, r.Notes)
	}
}

// TestIdleServerPerSession: with the audit's sessions, a user-scope server
// is judged on the sessions of the project folder, where it is one of the
// session's winning entries, and the finding names its own file: memory
// is called in another project only, so here it is idle; judged per file
// (no sessions), the user file covers every project and memory is not.
func TestIdleServerPerSession(t *testing.T) {
	h := newHome(t)
	s := h.session("s1", proj, start)
	read(t, h, s, 12)
	o := h.session("s2", other, start.Add(time.Hour))
	for i := range 12 {
		o.request(model, cached, tcall{name: "mcp__memory__read_graph", args: map[string]any{"i": i}, result: "text", latency: 200 * time.Millisecond})
	}
	fs := server("filesystem", true, tool("read_file", 800, 300))
	mem := server("memory", true, tool("read_graph", 400, 200))
	fs.Scope, fs.Source = "project", proj+"/.mcp.json"
	mem.Scope, mem.Source = "user", "/home/u/.claude.json"
	posture := clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeUpFront}
	userFile := audit.Config{Client: clients.ClaudeCode, ClientTitle: "Claude Code", Path: "/home/u/.claude.json", Scope: "user", Posture: posture,
		Servers: []audit.Server{server("memory", true, tool("read_graph", 400, 200))}}
	projFile := audit.Config{Client: clients.ClaudeCode, ClientTitle: "Claude Code", Path: proj + "/.mcp.json", Scope: "project", Posture: posture,
		Servers: []audit.Server{server("filesystem", true, tool("read_file", 800, 300))}}
	perFile := &audit.Report{Schema: audit.Schema, Configs: []audit.Config{userFile, projFile}}
	none(t, compute(t, h, perFile, Options{}))

	sess := audit.Session{Config: audit.Config{Client: clients.ClaudeCode, ClientTitle: "Claude Code", Path: proj, Posture: posture,
		Servers: []audit.Server{fs, mem}}}
	perSession := &audit.Report{Schema: audit.Schema, Sessions: []audit.Session{sess}, Configs: []audit.Config{userFile, projFile}}
	r := compute(t, h, perSession, Options{})
	f := only(t, r, TypeIdleServer)
	if f.Subject.Server != "memory" || f.Subject.Config != "/home/u/.claude.json" || f.Subject.Scope != "user" {
		t.Errorf("subject %+v, want memory of the user file", f.Subject)
	}
	if ev := f.Evidence.(IdleEvidence); ev.Requests != 12 || ev.Sessions != 1 {
		t.Errorf("evidence %+v: want the 12 requests of this folder's one session", ev)
	}
	if !strings.Contains(f.Recommendation, "remove it from /home/u/.claude.json") {
		t.Errorf("recommendation %q does not name the server's file", f.Recommendation)
	}
	if len(r.Configs) != 1 || r.Configs[0].AppliesTo != "Claude Code sessions in "+proj {
		t.Errorf("join %+v: want the one session, applying to this folder", r.Configs)
	}
}

// TestBuiltInCallsCounted checks that the calls of built-in tools, which
// the findings count but do not keep, are counted per session and in the
// window, from the rollups (a window at quarter hours) and from the rows
// (a window that starts between two), with a project filter.
func TestBuiltInCallsCounted(t *testing.T) {
	h := newHome(t)
	s := h.session("sess-builtin-1", proj, start)
	s.request(model, use{in: 1000, out: 400_000, cr: 0}, tcall{name: "Read", args: map[string]any{"p": 1}, result: "a"},
		tcall{name: "Bash", args: map[string]any{"c": 1}, result: "b"})
	s.request(model, cached, tcall{name: "mcp__github__search_code", args: map[string]any{}, result: words(t, 300)},
		tcall{name: "Read", args: map[string]any{"p": 2}, result: "c"})
	o := h.session("sess-builtin-2", "/home/u/other", start)
	o.request(model, cached, tcall{name: "Grep", args: map[string]any{}, result: "d"})
	for _, c := range []struct {
		name    string
		o       Options
		calls   int
		mcp     int
		session int
	}{
		{"rollups", Options{}, 5, 1, 4},
		{"rows", Options{Since: start.Add(-7 * time.Minute)}, 5, 1, 4},
		{"project", Options{Project: "proj"}, 4, 1, 4},
		{"project, rows", Options{Project: "proj", Since: start.Add(-7 * time.Minute)}, 4, 1, 4},
	} {
		r := compute(t, h, nil, c.o)
		if r.Window.ToolCalls != c.calls || r.Window.MCPCalls != c.mcp {
			t.Errorf("%s: window %+v", c.name, r.Window)
		}
		var got *SessionEvidence
		for _, f := range r.Findings {
			if f.Type == TypeExpensiveSession && f.Subject.Session == "sess-builtin-1" {
				ev := f.Evidence.(SessionEvidence)
				got = &ev
			}
		}
		if got == nil || got.ToolCalls != c.session {
			t.Errorf("%s: session evidence %+v", c.name, got)
		}
	}
}

// TestOverriddenEntryHasNoCalls: a name defined in two scopes runs once,
// as the winning entry; transcripts record calls by server name, so the
// calls are the winning entry's and the overridden entry shows none.
func TestOverriddenEntryHasNoCalls(t *testing.T) {
	h := newHome(t)
	s := h.session("s1", proj, start)
	read(t, h, s, 12)
	static := fsAndMemory()
	user := audit.Config{Client: clients.ClaudeCode, ClientTitle: "Claude Code", Path: "/home/u/.claude.json", Scope: "user",
		Posture: clients.Posture{Client: clients.ClaudeCode, Mode: clients.ModeUpFront},
		Servers: []audit.Server{{Name: "filesystem", Status: "overridden", Detail: "by the project scope entry"}}}
	static.Configs = append(static.Configs, user)
	r := compute(t, h, static, Options{})
	if len(r.Configs) != 2 {
		t.Fatalf("configs %+v", r.Configs)
	}
	if got := r.Configs[0].Servers[0]; got.Calls != 12 || got.ResultTokens == 0 {
		t.Errorf("winning entry %+v", got)
	}
	if got := r.Configs[1].Servers[0]; got.Calls != 0 || got.Sessions != 0 || got.ResultTokens != 0 || len(got.ToolsCalled) != 0 {
		t.Errorf("overridden entry counts the winning entry's calls: %+v", got)
	}
	calls := 0
	for _, c := range r.Configs {
		for _, su := range c.Servers {
			calls += su.Calls
		}
	}
	if calls != 12 {
		t.Errorf("%d calls over the configs, want 12", calls)
	}
}

// TestWindowBounds: the window's since and until are written whether or
// not the window is open at that end, null where it is.
func TestWindowBounds(t *testing.T) {
	h := newHome(t)
	since := now.Add(-7 * 24 * time.Hour)
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, `"since":null,"until":null`},
		{Options{Since: since}, `"since":"` + since.UTC().Format(time.RFC3339) + `","until":null`},
	} {
		c.o.Location = time.UTC
		r := compute(t, h, nil, c.o)
		for name, v := range map[string]any{"findings": r, "report": NewOverview(r, nil)} {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"window":{`+c.want) {
				t.Errorf("%s: window %s, want %s", name, b[strings.Index(string(b), `"window"`):][:80], c.want)
			}
		}
	}
}

// TestExpensiveSessionRefersToPresentFindings: a costly session whose MCP
// results were many but none oversized names no oversized-results
// finding; one whose server has such a finding names it.
func TestExpensiveSessionRefersToPresentFindings(t *testing.T) {
	build := func(result int) *home {
		h := newHome(t)
		s := h.session("sess-expensive-2", proj, start)
		s.request(model, use{in: 1000, out: 2_000_000, cr: 0})
		for i := range 20 {
			s.request(model, cached, tcall{name: "mcp__github__search_code", args: map[string]any{"q": fmt.Sprint(i)}, result: words(t, result)})
		}
		return h
	}
	for _, c := range []struct {
		result int
		want   string
	}{
		{3_000, "MCP results added 60,000 tokens to the context, github the most."},
		{6_000, "MCP results added 120,000 tokens to the context, github the most: see the oversized-results finding of github."},
	} {
		r := compute(t, build(c.result), nil, Options{})
		seen := false
		for _, f := range r.Findings {
			if f.Type != TypeExpensiveSession {
				continue
			}
			seen = true
			if !strings.HasSuffix(f.Recommendation, " "+c.want) {
				t.Errorf("results of %d tokens: recommendation %q, want it to end %q", c.result, f.Recommendation, c.want)
			}
		}
		if !seen {
			t.Errorf("results of %d tokens: no expensive-session finding", c.result)
		}
	}
}

// An idle server's finding says how its client loads it in words, the
// report's words, never the posture's mode name.
func TestIdleServerPostureInWords(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		mode    string
		upFront *bool
		want    string
	}{
		{clients.ModeUpFront, &yes, "its full definitions (1,200 tokens, 3 tools) ride on each request; Claude Code loads them up front (tool search off)"},
		{clients.ModeDeferred, &no, "only its tool names and instructions (30 tokens) ride on each request; Claude Code defers them (tool search): tool names and instructions only"},
		{clients.ModeDeferred, &yes, "its full definitions (1,200 tokens, 3 tools) ride on each request; Claude Code defers tools (tool search), but loads these up front: alwaysLoad pins them"},
		{clients.ModeThreshold, &yes, "its full definitions (1,200 tokens, 3 tools) ride on each request; Claude Code loads them up front, below its tool-search threshold"},
		{clients.ModeThreshold, &no, "only its tool names and instructions (30 tokens) ride on each request; Claude Code defers them, past its tool-search threshold"},
		{clients.ModeThreshold, nil, "its full definitions (1,200 tokens, 3 tools) are assumed to ride on each request; whether they pass Claude Code's tool-search threshold cannot be told ('mcpcost audit --claude' counts them exactly)"},
		{clients.ModeUnresolved, nil, "its full definitions (1,200 tokens, 3 tools) are assumed to ride on each request; whether Claude Code defers them cannot be told from its settings ('mcpcost audit' says which setting, and where)"},
		{clients.ModeNoRecord, &yes, "its full definitions (1,200 tokens, 3 tools) ride on each request; no deferral is on record for Claude Code, so all are counted as loaded up front"},
		{clients.ModeUnknownClient, &yes, "its full definitions (1,200 tokens, 3 tools) ride on each request; which client reads this file is not known, so all are counted as loaded up front (--client NAME reads it as that client does)"},
	}
	for _, c := range cases {
		name := c.mode + "/unknown"
		if c.upFront != nil {
			name = fmt.Sprintf("%s/%v", c.mode, *c.upFront)
		}
		t.Run(name, func(t *testing.T) {
			h := newHome(t)
			read(t, h, h.session("s1", proj, start), 12)
			up := c.upFront == nil || *c.upFront
			mem := server("memory", up, tool("create_entities", 400, 200), tool("read_graph", 400, 200), tool("search_nodes", 400, 200))
			mem.LoadsUpFront = c.upFront
			static := project(server("filesystem", true, tool("read_file", 800, 300)), mem)
			static.Configs[0].Posture.Mode = c.mode
			f := only(t, compute(t, h, static, Options{}), TypeIdleServer)
			if !slices.Contains(f.Facts, c.want) {
				t.Errorf("facts\n%s\nwant %q", strings.Join(f.Facts, "\n"), c.want)
			}
			for _, s := range append(f.Facts, f.ConfidenceRule) {
				if strings.Contains(s, "posture") {
					t.Errorf("the mode's name %q in %q", c.mode, s)
				}
			}
		})
	}
}
