package usage_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

var update = flag.Bool("update", false, "rewrite golden files")

func smallStore(t *testing.T) (*store.Store, *transcripttest.Manifest) {
	t.Helper()
	home := t.TempDir()
	m, err := transcripttest.Generate(home, transcripttest.Small())
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Ingest(context.Background(), store.IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
	}); err != nil {
		t.Fatal(err)
	}
	return s, m
}

var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// TestByServer checks the per-server figures against the generator's own
// record of every call.
func TestByServer(t *testing.T) {
	s, m := smallStore(t)
	rep, err := usage.Build(context.Background(), s, usage.Options{By: "server", Location: time.UTC, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	type agg struct {
		calls, errors int
		tokens, max   int64
		latencies     []int64
	}
	want := map[string]*agg{}
	for _, c := range m.Calls {
		server := transcript.ParseToolName(c.Name).Server
		a := want[server]
		if a == nil {
			a = &agg{}
			want[server] = a
		}
		a.calls++
		if c.IsError {
			a.errors++
		}
		n := int64(0)
		for _, tx := range c.Texts {
			n += int64(token.O200k().Count(tx))
		}
		a.tokens += n
		a.max = max(a.max, n)
		a.latencies = append(a.latencies, c.Latency.Milliseconds())
	}
	if len(rep.Tools) != len(want) {
		t.Errorf("%d server rows, want %d", len(rep.Tools), len(want))
	}
	nearest := func(v []int64, p float64) int64 {
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[int(math.Ceil(p*float64(len(v))))-1]
	}
	total := 0
	for _, r := range rep.Tools {
		w := want[r.Server]
		if w == nil {
			t.Errorf("unexpected server %q", r.Server)
			continue
		}
		total += r.Calls
		if r.Calls != w.calls || r.Errors != w.errors || r.ResultTokens != w.tokens || r.MaxResultTokens != w.max {
			t.Errorf("%q: calls %d errors %d tokens %d max %d; want %d %d %d %d", r.Server, r.Calls, r.Errors, r.ResultTokens, r.MaxResultTokens, w.calls, w.errors, w.tokens, w.max)
		}
		if r.LatencyP50Ms == nil || *r.LatencyP50Ms != nearest(w.latencies, 0.5) || *r.LatencyP95Ms != nearest(w.latencies, 0.95) {
			t.Errorf("%q: latency p50 %v p95 %v, want %d %d", r.Server, *r.LatencyP50Ms, *r.LatencyP95Ms, nearest(w.latencies, 0.5), nearest(w.latencies, 0.95))
		}
		if r.BuiltIn != (r.Server == "") {
			t.Errorf("%q: builtIn %v", r.Server, r.BuiltIn)
		}
	}
	if total != len(m.Calls) || rep.Totals.ToolCalls != len(m.Calls) {
		t.Errorf("%d calls in rows, %d in totals, want %d", total, rep.Totals.ToolCalls, len(m.Calls))
	}
	// MCP servers first, then the built-in tools.
	if last := rep.Tools[len(rep.Tools)-1]; !last.BuiltIn {
		t.Errorf("the built-in tools are not last: %+v", last)
	}
}

// TestGolden renders reports of the small tree in every form.
func TestGolden(t *testing.T) {
	s, _ := smallStore(t)
	for _, tc := range []struct {
		name string
		o    usage.Options
		form string
	}{
		{"server", usage.Options{By: "server"}, "text"},
		{"tool", usage.Options{By: "tool"}, "markdown"},
		{"day", usage.Options{By: "day"}, "text"},
		{"session", usage.Options{By: "session", Source: "claude"}, "text"},
		{"model", usage.Options{By: "model"}, "json"},
		{"project", usage.Options{By: "project", Project: "infra"}, "text"},
		{"period", usage.Options{By: "day", Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}, "text"},
		{"tz", usage.Options{By: "day", Location: time.FixedZone("UTC+9", 9*3600)}, "text"},
		{"week", usage.Options{By: "week", StartOfWeek: time.Monday, Breakdown: true}, "text"},
		{"week_sunday_desc", usage.Options{By: "week", StartOfWeek: time.Sunday, Order: "desc"}, "markdown"},
		{"month_compact", usage.Options{By: "month", Breakdown: true}, "compact"},
		{"week_csv", usage.Options{By: "week", StartOfWeek: time.Monday, Breakdown: true}, "csv"},
		{"session_csv", usage.Options{By: "session", Source: "codex"}, "csv"},
		{"tool_csv", usage.Options{By: "tool"}, "csv"},
		{"model_csv", usage.Options{By: "model"}, "csv"},
		{"day_last", usage.Options{By: "day", Last: 30, Breakdown: true}, "json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Now = fixedNow
			if o.Location == nil {
				o.Location = time.UTC
			}
			rep, err := usage.Build(context.Background(), s, o)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			switch tc.form {
			case "text":
				err = rep.WriteText(&b, render.Screen{})
			case "markdown":
				err = rep.WriteMarkdown(&b)
			case "compact":
				err = rep.WriteCompact(&b, render.Screen{})
			case "csv":
				err = rep.WriteCSV(&b)
			case "json":
				err = render.JSON(&b, rep)
			}
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "report_"+tc.name+".golden")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("differs from %s (-update to rewrite):\n%s", golden, b.String())
			}
		})
	}
}

func TestBuildRejectsUnknownGrouping(t *testing.T) {
	s, _ := smallStore(t)
	if _, err := usage.Build(context.Background(), s, usage.Options{By: "color"}); err == nil || !strings.Contains(err.Error(), "color") {
		t.Errorf("err = %v", err)
	}
	for _, tc := range []struct {
		o    usage.Options
		want string
	}{
		{usage.Options{By: "day", Order: "up"}, `unknown order "up"`},
		{usage.Options{By: "server", Order: "desc"}, "not by server"},
		{usage.Options{By: "model", Last: 2}, "not by model"},
		{usage.Options{By: "week", Last: -1}, "from 1 to 36525, not -1"},
		{usage.Options{By: "week", Last: usage.MaxDays + 1}, "not 36526"},
		{usage.Options{By: "tool", Breakdown: true}, "not by tool"},
		{usage.Options{By: "week", StartOfWeek: 7}, "first day of the week 7"},
	} {
		if _, err := usage.Build(context.Background(), s, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestPeriods checks the reports by week and month against the
// generator's record of every request: each period holds the requests of
// its days, the rows add up to the totals, a breakdown's models add up to
// their period, --last keeps the periods from the one it names, and desc
// is asc reversed.
func TestPeriods(t *testing.T) {
	s, m := smallStore(t)
	loc := time.FixedZone("UTC-11", -11*3600) // the small tree's late evenings fall on the day before
	for _, tc := range []struct {
		by    string
		first time.Weekday
		key   func(time.Time) string
	}{
		{"week", time.Monday, func(t time.Time) string { return usage.WeekStart(t, loc, time.Monday).Format("2006-01-02") }},
		{"week", time.Sunday, func(t time.Time) string { return usage.WeekStart(t, loc, time.Sunday).Format("2006-01-02") }},
		{"week", time.Tuesday, func(t time.Time) string { return usage.WeekStart(t, loc, time.Tuesday).Format("2006-01-02") }},
		{"month", 0, func(t time.Time) string { return t.In(loc).Format("2006-01") }},
	} {
		t.Run(tc.by+"-"+tc.first.String(), func(t *testing.T) {
			want := map[string]int64{}
			for _, r := range m.Requests {
				want[tc.key(r.Time)] += r.Input + r.Output + r.Cache5m + r.Cache1h + r.CacheRead
			}
			o := usage.Options{By: tc.by, StartOfWeek: tc.first, Location: loc, Now: fixedNow, Breakdown: true}
			rep, err := usage.Build(context.Background(), s, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Usage) != len(want) || len(want) < 2 {
				t.Errorf("%d rows, want %d", len(rep.Usage), len(want))
			}
			var sum int64
			for i, u := range rep.Usage {
				if u.Tokens.Total != want[u.Key] {
					t.Errorf("%s: %d tokens, want %d", u.Key, u.Tokens.Total, want[u.Key])
				}
				if i > 0 && rep.Usage[i-1].Key >= u.Key {
					t.Errorf("%s after %s", u.Key, rep.Usage[i-1].Key)
				}
				var parts int64
				var cost float64
				for _, b := range u.Breakdown {
					parts += b.Tokens.Total
					cost += *b.Cost
				}
				if parts != u.Tokens.Total || math.Abs(cost-*u.Cost) > 1e-6 {
					t.Errorf("%s: the models add up to %d tokens $%f, the period %d $%f", u.Key, parts, cost, u.Tokens.Total, *u.Cost)
				}
				sum += u.Tokens.Total
			}
			if sum != rep.Totals.Tokens.Total {
				t.Errorf("rows %d, totals %d", sum, rep.Totals.Tokens.Total)
			}
			o.Order = "desc"
			desc, err := usage.Build(context.Background(), s, o)
			if err != nil {
				t.Fatal(err)
			}
			for i, u := range desc.Usage {
				if u.Key != rep.Usage[len(rep.Usage)-1-i].Key {
					t.Errorf("desc row %d is %s", i, u.Key)
				}
			}
			// The last periods: those from the start of the one Last names.
			o.Order = ""
			for n := 1; n <= 6; n++ {
				o.Last = n
				last, err := usage.Build(context.Background(), s, o)
				if err != nil {
					t.Fatal(err)
				}
				from := tc.key(usage.PeriodStart(tc.by, fixedNow, loc, tc.first, n))
				var keep []string
				for _, u := range rep.Usage {
					if u.Key >= from {
						keep = append(keep, u.Key)
					}
				}
				var got []string
				for _, u := range last.Usage {
					got = append(got, u.Key)
				}
				if strings.Join(got, " ") != strings.Join(keep, " ") {
					t.Errorf("last %d: %v, want %v", n, got, keep)
				}
			}
		})
	}
}

// TestSplitAgents: by session, an older sub-agent file (agent-<id>.jsonl
// beside the sessions) is in the session that started it, or with
// SplitAgents a session of its own with its own span; either way the
// totals are the same. Codex reasoning tokens are shown where output is.
func TestSplitAgents(t *testing.T) {
	home := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	m, err := transcripttest.Generate(home, o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Ingest(context.Background(), store.IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
	}); err != nil {
		t.Fatal(err)
	}
	type want struct {
		parent      string
		requests    int
		total       int64
		first, last time.Time
	}
	agents := map[string]*want{}
	var reasoning int64
	for _, r := range m.Requests {
		reasoning += r.Reasoning
		if r.AgentFile == "" {
			continue
		}
		w := agents["claude:"+r.AgentFile]
		if w == nil {
			w = &want{parent: "claude:" + r.SessionID, first: r.Time, last: r.Time}
			agents["claude:"+r.AgentFile] = w
		}
		w.requests++
		w.total += r.Input + r.Output + r.Cache5m + r.Cache1h + r.CacheRead
		w.first, w.last = minTime(w.first, r.Time), maxTime(w.last, r.Time)
	}
	if len(agents) == 0 {
		t.Fatal("no older sub-agent file in the tree")
	}
	build := func(split bool) (*usage.Report, map[string]usage.UsageRow) {
		rep, err := usage.Build(context.Background(), s, usage.Options{By: "session", Location: time.UTC, Now: fixedNow, SplitAgents: split})
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]usage.UsageRow{}
		for _, r := range rep.Usage {
			rows[r.Key] = r
		}
		return rep, rows
	}
	joined, jrows := build(false)
	split, srows := build(true)
	if !split.SplitAgents || joined.SplitAgents || len(srows) != len(jrows)+len(agents) {
		t.Fatalf("split %v with %d rows, joined %v with %d rows, %d agent files", split.SplitAgents, len(srows), joined.SplitAgents, len(jrows), len(agents))
	}
	if !reflect.DeepEqual(split.Totals, joined.Totals) {
		t.Errorf("totals differ: split %+v, joined %+v", split.Totals, joined.Totals)
	}
	for key, w := range agents {
		a, ok := srows[key]
		if !ok {
			t.Errorf("%s: no row of its own", key)
			continue
		}
		p, sp := jrows[w.parent], srows[w.parent]
		if a.Requests != w.requests || a.Tokens.Total != w.total || a.First == nil || !a.First.Equal(w.first) || !a.Last.Equal(w.last) ||
			a.Project != p.Project || a.Source != "claude" {
			t.Errorf("%s: %+v; want %d requests, %d tokens, %v to %v, project %s", key, a, w.requests, w.total, w.first, w.last, p.Project)
		}
		if p.Tokens.Total != sp.Tokens.Total+a.Tokens.Total || p.Requests != sp.Requests+a.Requests || p.ToolCalls != sp.ToolCalls+a.ToolCalls {
			t.Errorf("%s: joined %+v is not split %+v and agent %+v", w.parent, p, sp, a)
		}
	}
	if joined.Totals.Tokens.Reasoning != reasoning || reasoning == 0 {
		t.Errorf("reasoning %d, want %d", joined.Totals.Tokens.Reasoning, reasoning)
	}
	var text bytes.Buffer
	if err := split.WriteText(&text, render.Screen{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"REASONING", render.Int(int(reasoning)) + " of it reasoning", "claude:agent-"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("the text has no %q:\n%s", s, text.String())
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TestTokenSumsSaturate: counts at transcript.MaxTokens, enough of them
// to pass the largest int64, give totals that stop there rather than
// wrap; negative counts are skipped with a warning naming the line.
func TestTokenSumsSaturate(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	dir := filepath.Join(projects, "-tmp-d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(i int, n int64) string {
		return `{"type":"assistant","sessionId":"a","cwd":"/tmp/d","timestamp":"2026-11-20T10:00:00.000Z","requestId":"r` + strconv.Itoa(i) + `","message":{"id":"m` + strconv.Itoa(i) +
			`","model":"claude-sonnet-4-20250514","content":[],"usage":{"input_tokens":` + strconv.FormatInt(n, 10) + `,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}` + "\n"
	}
	var b strings.Builder
	b.WriteString(line(0, -5))
	for i := 1; i <= 1100; i++ {
		b.WriteString(line(i, transcript.MaxTokens))
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Ingest(context.Background(), store.IngestOptions{ClaudeRoots: []string{projects}, Count: token.O200k().Count})
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests != 1100 || st.Corrupt != 1 || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "a.jsonl:1: ") {
		t.Errorf("requests %d, corrupt lines %d, warnings %q; want 1100, 1 and one naming a.jsonl:1", st.Requests, st.Corrupt, st.Warnings)
	}
	rep, err := usage.Build(context.Background(), s, usage.Options{By: "day", Now: fixedNow, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	tk := rep.Totals.Tokens
	if tk.Input != math.MaxInt64 || tk.Total != math.MaxInt64 || tk.Output != 1100 {
		t.Errorf("totals %+v; want input and total at the largest int64, output 1100", tk)
	}
	for _, r := range rep.Usage {
		if r.Tokens.Input < 0 || r.Tokens.Total < 0 {
			t.Errorf("a negative row: %+v", r)
		}
	}
	if c := rep.Totals.Cost; c == nil || *c <= 0 || math.IsInf(*c, 0) {
		t.Errorf("cost %v; want a positive, finite cost", c)
	}
}

// TestBlocksGolden renders the small tree's blocks at ten minutes after
// its last Claude request, so that the last block is active: as text with
// a token limit, compact, and JSON.
func TestBlocksGolden(t *testing.T) {
	s, m := smallStore(t)
	var last time.Time
	for _, r := range m.Requests {
		if r.Source == "claude" && r.Time.After(last) {
			last = r.Time
		}
	}
	now := last.Add(10 * time.Minute)
	for _, tc := range []struct {
		name string
		o    usage.BlocksOptions
		form string
	}{
		{"blocks", usage.BlocksOptions{TokenLimit: 400000}, "text"},
		{"blocks_compact", usage.BlocksOptions{Order: "desc", Location: time.FixedZone("UTC+9", 9*3600)}, "compact"},
		{"blocks_active", usage.BlocksOptions{Active: true, TokenLimitMax: true}, "json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Now = now
			rep, err := usage.Blocks(context.Background(), s, o)
			if err != nil {
				t.Fatal(err)
			}
			if a := rep.Active(); a == nil || a.Projection == nil {
				t.Fatal("no active block with a projection")
			}
			var b bytes.Buffer
			switch tc.form {
			case "text":
				err = rep.WriteText(&b, render.Screen{})
			case "compact":
				err = rep.WriteCompact(&b, render.Screen{})
			case "json":
				err = render.JSON(&b, rep)
			}
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("differs from %s (-update to rewrite):\n%s", golden, b.String())
			}
		})
	}
	for _, tc := range []struct {
		o    usage.BlocksOptions
		want string
	}{
		{usage.BlocksOptions{Mode: "guess"}, `unknown mode "guess"`},
		{usage.BlocksOptions{Order: "up"}, `unknown order "up"`},
		{usage.BlocksOptions{Length: time.Millisecond}, "from a second to a year"},
		{usage.BlocksOptions{Length: usage.MaxBlockLength + time.Hour}, "from a second to a year"},
		{usage.BlocksOptions{TokenLimit: -1}, "positive"},
	} {
		if _, err := usage.Blocks(context.Background(), s, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestCSVHeaderNames: every dimension's CSV names each column once (a
// reader keyed by name keeps only one of two columns of the same name),
// and every line has as many cells as the header.
func TestCSVHeaderNames(t *testing.T) {
	s, _ := smallStore(t)
	for _, by := range []string{"server", "tool", "day", "week", "month", "session", "model", "project"} {
		rep, err := usage.Build(context.Background(), s, usage.Options{By: by, Breakdown: by != "server" && by != "tool" && by != "model", Now: fixedNow, Location: time.UTC})
		if err != nil {
			t.Fatal(by, err)
		}
		var b bytes.Buffer
		if err := rep.WriteCSV(&b); err != nil {
			t.Fatal(by, err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatalf("by %s: %v", by, err)
		}
		if len(recs) < 2 {
			t.Fatalf("by %s: %d lines", by, len(recs))
		}
		seen := map[string]bool{}
		for _, h := range recs[0] {
			if seen[h] {
				t.Errorf("by %s: the column %q twice in %q", by, h, recs[0])
			}
			seen[h] = true
		}
		if first := map[string]string{"tool": "server"}[by]; recs[0][0] != by && recs[0][0] != first {
			t.Errorf("by %s: the first column is %q", by, recs[0][0])
		}
	}
}

// TestSummaryNamesSourcesRead checks that a report over every source names
// the sources that have rows in it, and "all sources" when none has.
func TestSummaryNamesSourcesRead(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		claude bool
		codex  bool
		want   string
	}{
		{"claude only", true, false, "Usage by server, all history (UTC), Claude Code\n"},
		{"codex only", false, true, "Usage by server, all history (UTC), Codex\n"},
		{"both", true, true, "Usage by server, all history (UTC), Claude Code and Codex\n"},
		{"none", false, false, "Usage by server, all history (UTC), all sources\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			io := store.IngestOptions{Count: token.O200k().Count}
			if tc.claude {
				io.ClaudeRoots = []string{filepath.Join(home, ".claude", "projects")}
			}
			if tc.codex {
				io.CodexRoots = []string{filepath.Join(home, ".codex", "sessions")}
			}
			if _, err := s.Ingest(context.Background(), io); err != nil {
				t.Fatal(err)
			}
			rep, err := usage.Build(context.Background(), s, usage.Options{By: "server", Location: time.UTC, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := rep.WriteText(&b, render.Screen{}); err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(b.String(), "\n"); first+"\n" != tc.want {
				t.Errorf("header %q, want %q", first, strings.TrimSuffix(tc.want, "\n"))
			}
		})
	}
}

// TestSessionIDsTellApart checks that the table by session shows each
// session's id far enough to tell it from the others (at least 8
// characters), and the JSON the whole id.
func TestSessionIDsTellApart(t *testing.T) {
	first := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	r := &usage.Report{Schema: usage.Schema, By: "session", Period: "all history", Timezone: "UTC", Source: "all", Mode: "auto", Tools: []usage.ToolRow{}}
	for _, k := range []string{"claude:11111111-aaaa-4000", "claude:11111111-abbb-4000", "claude:22222222-cccc-4000", "codex:11111111-aaaa-4000", "claude:agent-1234567890"} {
		src, _, _ := strings.Cut(k, ":")
		r.Usage = append(r.Usage, usage.UsageRow{Key: k, Source: src, Requests: 1, First: &first, Models: []string{}})
	}
	var b bytes.Buffer
	if err := r.WriteText(&b, render.Screen{Width: 200}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"claude:11111111-aa ", "claude:11111111-ab ", "claude:22222222 ", "codex:11111111 ", "claude:agent-1234567890 "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := render.JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"key": "claude:11111111-abbb-4000"`) {
		t.Errorf("JSON without the whole id:\n%s", b.String())
	}
}

// TestLatencyNote: the note on what latency means stands under the tables
// that show it (P50 and P95, by server and tool), in text, compact and
// Markdown alike, and under no other.
func TestLatencyNote(t *testing.T) {
	s, _ := smallStore(t)
	for _, tc := range []struct {
		by   string
		want bool
	}{
		{"server", true}, {"tool", true},
		{"day", false}, {"week", false}, {"month", false}, {"session", false}, {"model", false}, {"project", false}, {"machine", false}, {"user", false},
	} {
		for _, form := range []string{"text", "compact", "markdown"} {
			t.Run(tc.by+"/"+form, func(t *testing.T) {
				rep, err := usage.Build(context.Background(), s, usage.Options{By: tc.by, Now: fixedNow, Location: time.UTC})
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				switch form {
				case "text":
					err = rep.WriteText(&b, render.Screen{})
				case "compact":
					err = rep.WriteCompact(&b, render.Screen{})
				case "markdown":
					err = rep.WriteMarkdown(&b)
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Contains(b.String(), "latency"); got != tc.want {
					t.Errorf("by %s, %s: note on latency %v, want %v:\n%s", tc.by, form, got, tc.want, b.String())
				}
				if got := strings.Contains(b.String(), "prices of "); !got {
					t.Errorf("by %s, %s: no note on prices:\n%s", tc.by, form, b.String())
				}
			})
		}
	}
}
