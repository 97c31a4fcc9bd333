package usage_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// ccusageRow is one row of ccusage's --json reports (daily or session,
// Claude or Codex).
type ccusageRow struct {
	Date                string   `json:"date"`
	Period              string   `json:"period"` // the unified report's day or session
	Agent               string   `json:"agent"`
	SessionID           string   `json:"sessionId"`
	SessionFile         string   `json:"sessionFile"`
	InputTokens         int64    `json:"inputTokens"`
	OutputTokens        int64    `json:"outputTokens"`
	CacheCreationTokens int64    `json:"cacheCreationTokens"`
	CacheReadTokens     int64    `json:"cacheReadTokens"`
	TotalTokens         int64    `json:"totalTokens"`
	TotalCost           *float64 `json:"totalCost"`
	CostUSD             *float64 `json:"costUSD"`
	FirstActivity       string   `json:"firstActivity"` // the session report's
	LastActivity        string   `json:"lastActivity"`
}

func (r ccusageRow) cost() float64 {
	if r.TotalCost != nil {
		return *r.TotalCost
	}
	if r.CostUSD != nil {
		return *r.CostUSD
	}
	return math.NaN()
}

// ccusage runs ccusage's native binary (the npm launcher's target) on home.
func ccusage(t *testing.T, home string, args ...string) []ccusageRow {
	t.Helper()
	bin := filepath.Join(testpeers.NPMPackage(t, "@ccusage/ccusage-linux-x64"), "bin", "ccusage")
	if _, err := os.Stat(bin); err != nil {
		bin = testpeers.NPMBin(t, "ccusage")
	}
	cmd := exec.Command(bin, append(args, "--json", "--offline", "--timezone", "UTC")...)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "CODEX_HOME=" + filepath.Join(home, ".codex"),
		"TZ=UTC", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("ccusage %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("ccusage %s: %v", strings.Join(args, " "), err)
	}
	for _, k := range []string{"daily", "sessions", "session"} {
		if raw, ok := doc[k]; ok {
			var rows []ccusageRow
			if err := json.Unmarshal(raw, &rows); err != nil {
				t.Fatal(err)
			}
			return rows
		}
	}
	t.Fatalf("ccusage %s: no rows in %s", strings.Join(args, " "), out)
	return nil
}

// TestAgainstCcusage compares per-day and per-session totals with ccusage
// 20 on the same generated tree: tokens exactly, costs within 0.5%.
func TestAgainstCcusage(t *testing.T) {
	home := t.TempDir()
	o := transcripttest.Small()
	o.Sessions, o.Codex, o.Days = 16, 5, 6
	if _, err := transcripttest.Generate(home, o); err != nil {
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
	for _, tc := range []struct {
		source, by string
		args       []string
	}{
		{"claude", "day", []string{"claude", "daily"}},
		{"claude", "session", []string{"claude", "session"}},
		{"codex", "day", []string{"codex", "daily"}},
		{"codex", "session", []string{"codex", "session"}},
		{"all", "day", []string{"daily"}},
		{"all", "session", []string{"session"}},
	} {
		t.Run(tc.source+"-"+tc.by, func(t *testing.T) {
			want := ccusage(t, home, tc.args...)
			rep, err := usage.Build(context.Background(), s, usage.Options{By: tc.by, Source: tc.source, Location: time.UTC, Now: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]usage.UsageRow{}
			for _, r := range rep.Usage {
				key := r.Key
				if tc.by == "session" {
					_, key, _ = strings.Cut(key, ":")
				}
				got[key] = r
			}
			if len(want) != len(got) || len(want) < 2 {
				t.Errorf("%d rows, ccusage has %d", len(got), len(want))
			}
			var keys []string
			for _, w := range want {
				key := w.Date
				if w.Period != "" {
					key = w.Period
					if len(key) > 36 && strings.Contains(key, "rollout-") {
						key = key[len(key)-36:]
					}
				}
				if tc.by == "session" && w.Period == "" {
					key = w.SessionID
					if w.SessionFile != "" {
						key = w.SessionFile[len(w.SessionFile)-36:] // rollout-…-<uuid>
					}
				}
				keys = append(keys, key)
				g, ok := got[key]
				if !ok {
					t.Errorf("%s: ccusage has it, mcpcost does not", key)
					continue
				}
				gt := g.Tokens
				// ccusage's input for Codex is the uncached input, as ours.
				if gt.Input != w.InputTokens || gt.Output != w.OutputTokens || gt.CacheWrite5m+gt.CacheWrite1h != w.CacheCreationTokens ||
					gt.CacheRead != w.CacheReadTokens || gt.Total != w.TotalTokens {
					t.Errorf("%s: tokens in %d out %d cw %d cr %d total %d; ccusage in %d out %d cw %d cr %d total %d", key,
						gt.Input, gt.Output, gt.CacheWrite5m+gt.CacheWrite1h, gt.CacheRead, gt.Total,
						w.InputTokens, w.OutputTokens, w.CacheCreationTokens, w.CacheReadTokens, w.TotalTokens)
				}
				if c := w.cost(); g.Cost == nil || math.Abs(*g.Cost-c) > 0.005*c {
					t.Errorf("%s: cost %v, ccusage %.6f", key, g.Cost, c)
				}
			}
			sort.Strings(keys)
			t.Logf("%d rows agree: %s", len(keys), strings.Join(keys, " "))
		})
	}
}

func TestLoadPrices(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "p.json")
	os.WriteFile(good, []byte(`{"updated":"2027-01-01","sources":[{"name":"mine"}],"models":{"My-Model":{"input":1,"output":2}}}`), 0o644)
	p, err := usage.LoadPrices(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := p.Lookup("my-model"); !ok || p.File != good {
		t.Error("a loaded table's model is not found")
	}
	for name, body := range map[string]string{
		"empty":    `{"models":{}}`,
		"negative": `{"models":{"m":{"input":-1}}}`,
		"not json": `{`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := usage.LoadPrices(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v should name the file", name, err)
		}
	}
	if _, err := usage.LoadPrices(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file loads")
	}
	_ = fmt.Sprint
}

// TestAgainstCcusageQuirks compares with ccusage 20.0.24 on the shapes that
// readers get wrong (transcripttest's Quirks): gateway requests without
// request ids, a resumed session, an older sub-agent file, an API-error
// placeholder, lines without a type, and Codex rollouts of versions 0.47,
// 0.63 and 0.128. Daily totals and Codex sessions equal ccusage's to the
// token; Claude sessions, with --split-agents, too, but where ccusage's
// session report keeps one of the requests a gateway gave the same message
// id within a session (its daily report keeps each, as mcpcost does): there
// the difference is exactly those requests.
func TestAgainstCcusageQuirks(t *testing.T) {
	home := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	o.Sessions, o.Codex = 4, 6
	m, err := transcripttest.Generate(home, o)
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "usage.db")
	s, err := store.Open(dbPath)
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
	agentFiles := map[string]string{} // older sub-agent file: its session
	var reasoning int64
	for _, r := range m.Requests {
		if r.AgentFile != "" {
			agentFiles[r.AgentFile] = r.SessionID
		}
		reasoning += r.Reasoning
	}
	if len(agentFiles) == 0 || reasoning == 0 {
		t.Fatal("the tree has no older sub-agent file or no reasoning tokens")
	}
	build := func(t *testing.T, by, source string, split bool) map[string]usage.UsageRow {
		rep, err := usage.Build(context.Background(), s, usage.Options{By: by, Source: source, Location: time.UTC, Now: time.Now(), SplitAgents: split})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]usage.UsageRow{}
		for _, r := range rep.Usage {
			key := r.Key
			if by == "session" {
				_, key, _ = strings.Cut(key, ":")
			}
			got[key] = r
		}
		if source == "codex" && by == "day" && rep.Totals.Tokens.Reasoning != reasoning {
			t.Errorf("reasoning %d, want %d", rep.Totals.Tokens.Reasoning, reasoning)
		}
		return got
	}
	// What ccusage's session report drops: requests without a request id
	// whose message id and line session repeat (the largest is kept).
	collapsed := map[string]usage.Tokens{}
	// The same database through a second connection, for a query of
	// its own.
	raw, err := sql.Open("sqlite", "file:"+filepath.ToSlash(dbPath))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT session_id, sum(input), sum(output), sum(cache_write_5m + cache_write_1h), sum(cache_read) FROM (
		SELECT session_id, input, output, cache_write_5m, cache_write_1h, cache_read, row_number() OVER (
			PARTITION BY source, dedup_session, message_id ORDER BY input + output + cache_write_5m + cache_write_1h + cache_read DESC, ts, id) AS n
		FROM requests WHERE source = 'claude' AND message_id <> '' AND request_id = '') WHERE n > 1 GROUP BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var c usage.Tokens
		rows.Scan(&id, &c.Input, &c.Output, &c.CacheWrite5m, &c.CacheRead)
		c.Total = c.Input + c.Output + c.CacheWrite5m + c.CacheRead
		collapsed[id] = c
	}
	rows.Close()
	if len(collapsed) == 0 {
		t.Fatal("no gateway requests share a message id within a session")
	}
	check := func(t *testing.T, key string, g usage.UsageRow, w ccusageRow, less usage.Tokens) {
		t.Helper()
		gt := g.Tokens
		in, out, cw, cr, total := gt.Input-less.Input, gt.Output-less.Output, gt.CacheWrite5m+gt.CacheWrite1h-less.CacheWrite5m, gt.CacheRead-less.CacheRead, gt.Total-less.Total
		if in != w.InputTokens || out != w.OutputTokens || cw != w.CacheCreationTokens || cr != w.CacheReadTokens || total != w.TotalTokens {
			t.Errorf("%s: tokens in %d out %d cw %d cr %d total %d; ccusage in %d out %d cw %d cr %d total %d", key,
				in, out, cw, cr, total, w.InputTokens, w.OutputTokens, w.CacheCreationTokens, w.CacheReadTokens, w.TotalTokens)
		}
		if c := w.cost(); less == (usage.Tokens{}) && (g.Cost == nil || math.Abs(*g.Cost-c) > 0.005*c) {
			t.Errorf("%s: cost %v, ccusage %.6f", key, g.Cost, c)
		}
	}
	for _, tc := range []struct {
		source, by string
		args       []string
	}{
		{"claude", "day", []string{"claude", "daily"}},
		{"codex", "day", []string{"codex", "daily"}},
		{"codex", "session", []string{"codex", "session"}},
		{"all", "day", []string{"daily"}},
		{"claude", "session", []string{"claude", "session"}},
	} {
		t.Run(tc.source+"-"+tc.by, func(t *testing.T) {
			want := ccusage(t, home, tc.args...)
			got := build(t, tc.by, tc.source, tc.source == "claude" && tc.by == "session")
			if len(want) != len(got) || len(want) < 2 {
				t.Errorf("%d rows, ccusage has %d", len(got), len(want))
			}
			for _, w := range want {
				key := w.Date
				if w.Period != "" {
					key = w.Period
				}
				if tc.by == "session" {
					key = w.SessionID
					if w.SessionFile != "" {
						key = w.SessionFile[len(w.SessionFile)-36:]
					}
				}
				g, ok := got[key]
				if !ok {
					t.Errorf("%s: ccusage has it, mcpcost does not", key)
					continue
				}
				var less usage.Tokens
				if tc.by == "session" {
					less = collapsed[key]
				}
				check(t, key, g, w, less)
			}
		})
	}
	// Resumed sessions: a session's span is that of the lines it keeps, as
	// ccusage's session report has it (its first and last activity), the
	// copies another session keeps left out. Where ccusage and mcpcost
	// differ: ccusage lists no session that kept none of its requests, and
	// dates a session from the requests it keeps, where mcpcost dates it
	// from all its own lines (a session whose first requests were copied
	// into a resumed session that keeps them still began when it began).
	spans := func(t *testing.T, got map[string]usage.UsageRow, want []ccusageRow) {
		t.Helper()
		byID := map[string]ccusageRow{}
		for _, w := range want {
			byID[w.SessionID] = w
		}
		at := func(s string) time.Time {
			v, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				t.Fatalf("ccusage's time %q: %v", s, err)
			}
			return v
		}
		span := func(id string) (time.Time, time.Time) {
			g, ok := got[id]
			if !ok || g.First == nil || g.Last == nil {
				t.Fatalf("session %s: no row or no span (%+v)", id, g)
			}
			return g.First.UTC(), g.Last.UTC()
		}
		for _, r := range m.Resumed {
			first, last := span(r.To)
			w := byID[r.To]
			if !first.Equal(r.ToSpan[0]) || !last.Equal(r.ToSpan[1]) || !first.Equal(at(w.FirstActivity)) || !last.Equal(at(w.LastActivity)) {
				t.Errorf("resumed session %s: %v to %v; want %v to %v; ccusage %s to %s", r.To, first, last, r.ToSpan[0], r.ToSpan[1], w.FirstActivity, w.LastActivity)
			}
			_, listed := byID[r.From]
			_, ours := got[r.From]
			switch {
			case r.Kept && !r.Live:
				// Every request of the old session is kept by the new one.
				if listed || ours {
					t.Errorf("session %s, whose every request the resumed one keeps: listed by ccusage %v, by mcpcost %v", r.From, listed, ours)
				}
			case r.Live:
				// It keeps the request that was being written, and those
				// after it: ccusage dates it from the first of those.
				first, last := span(r.From)
				w := byID[r.From]
				if !first.Equal(r.FromSpan[0]) || !last.Equal(r.FromSpan[1]) || !last.Equal(at(w.LastActivity)) || !at(w.FirstActivity).After(first) {
					t.Errorf("session %s: %v to %v; want %v to %v; ccusage %s to %s, from a later start", r.From, first, last, r.FromSpan[0], r.FromSpan[1], w.FirstActivity, w.LastActivity)
				}
			default:
				first, last := span(r.From)
				w := byID[r.From]
				if !first.Equal(r.FromSpan[0]) || !last.Equal(r.FromSpan[1]) || !first.Equal(at(w.FirstActivity)) || !last.Equal(at(w.LastActivity)) {
					t.Errorf("session %s: %v to %v; want %v to %v; ccusage %s to %s", r.From, first, last, r.FromSpan[0], r.FromSpan[1], w.FirstActivity, w.LastActivity)
				}
			}
		}
	}
	t.Run("claude-session-resumed-spans", func(t *testing.T) {
		if len(m.Resumed) < 2 {
			t.Fatalf("%d resumed sessions", len(m.Resumed))
		}
		for _, r := range m.Resumed {
			t.Logf("%s resumed in %s: copies kept by the new session %v, while writing %v", r.From, r.To, r.Kept, r.Live)
		}
		spans(t, build(t, "session", "claude", true), ccusage(t, home, "claude", "session"))
	})
	// Without --split-agents, an older sub-agent file is in its session:
	// the session's row is ccusage's session and agent rows together.
	t.Run("claude-session-parents", func(t *testing.T) {
		want := map[string]ccusageRow{}
		for _, w := range ccusage(t, home, "claude", "session") {
			want[w.SessionID] = w
		}
		got := build(t, "session", "claude", false)
		for file, parent := range agentFiles {
			if _, ok := got[file]; ok {
				t.Errorf("%s is a session of its own without --split-agents", file)
			}
			w, a := want[parent], want[file]
			if a.TotalTokens == 0 {
				t.Fatalf("ccusage does not list %s as a session", file)
			}
			w.InputTokens += a.InputTokens
			w.OutputTokens += a.OutputTokens
			w.CacheCreationTokens += a.CacheCreationTokens
			w.CacheReadTokens += a.CacheReadTokens
			w.TotalTokens += a.TotalTokens
			tc, ac := w.cost(), a.cost()
			sum := tc + ac
			w.TotalCost = &sum
			check(t, parent, got[parent], w, collapsed[parent])
		}
	})
	// The same tree read a few files at a time in other orders: the
	// sessions are the same, and still ccusage's.
	var files []string
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(home, p)
			files = append(files, rel)
		}
		return nil
	})
	want := ccusage(t, home, "claude", "session")
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprintf("claude-session-order-%d", seed), func(t *testing.T) {
			part := t.TempDir()
			so, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer so.Close()
			order := append([]string(nil), files...)
			rnd := rand.New(rand.NewPCG(seed, 7))
			rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for len(order) > 0 {
				n := min(len(order), 1+rnd.IntN(3))
				for _, rel := range order[:n] {
					data, err := os.ReadFile(filepath.Join(home, rel))
					if err != nil {
						t.Fatal(err)
					}
					os.MkdirAll(filepath.Dir(filepath.Join(part, rel)), 0o755)
					os.WriteFile(filepath.Join(part, rel), data, 0o644)
				}
				order = order[n:]
				if _, err := so.Ingest(context.Background(), store.IngestOptions{
					ClaudeRoots: []string{filepath.Join(part, ".claude", "projects")},
					CodexRoots:  []string{filepath.Join(part, ".codex", "sessions")},
					Count:       token.O200k().Count,
				}); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := usage.Build(context.Background(), so, usage.Options{By: "session", Source: "claude", Location: time.UTC, Now: time.Now(), SplitAgents: true})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]usage.UsageRow{}
			for _, r := range rep.Usage {
				_, key, _ := strings.Cut(r.Key, ":")
				got[key] = r
			}
			if len(got) != len(want) {
				t.Errorf("%d sessions, ccusage has %d", len(got), len(want))
			}
			for _, w := range want {
				check(t, w.SessionID, got[w.SessionID], w, collapsed[w.SessionID])
			}
			spans(t, got, want)
		})
	}
}
