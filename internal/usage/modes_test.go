package usage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// A tree of transcripts written line by line, shaped as Claude Code and
// Codex write them, for the cost modes and the long-context rule.
type tree struct {
	t    *testing.T
	home string
	n    int
}

// claudeReq is one Claude Code response line.
type claudeReq struct {
	session string
	id      string // the message and request id, when a copy shares it
	at      time.Time
	model   string
	in, out int64
	w5, w1  int64
	read    int64
	speed   string   // usage.speed, if any
	costUSD *float64 // recorded costUSD, if any
}

func usd(v float64) *float64 { return &v }

func (tr *tree) claude(reqs ...claudeReq) {
	tr.t.Helper()
	files := map[string]*strings.Builder{}
	for _, r := range reqs {
		tr.n++
		id := fmt.Sprintf("%04d", tr.n)
		if r.id != "" {
			id = r.id
		}
		line := map[string]any{
			"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/u/proj", "sessionId": r.session,
			"version": "2.0.30", "gitBranch": "main", "type": "assistant", "requestId": "req_" + id,
			"uuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", tr.n), "timestamp": r.at.UTC().Format("2006-01-02T15:04:05.000Z"),
			"message": map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": r.model,
				"content": []any{map[string]any{"type": "text", "text": "done"}},
				"usage": map[string]any{"input_tokens": r.in, "cache_creation_input_tokens": r.w5 + r.w1, "cache_read_input_tokens": r.read,
					"cache_creation": map[string]any{"ephemeral_5m_input_tokens": r.w5, "ephemeral_1h_input_tokens": r.w1},
					"output_tokens":  r.out, "service_tier": "standard"}},
		}
		if r.costUSD != nil {
			line["costUSD"] = *r.costUSD
		}
		if r.speed != "" {
			line["message"].(map[string]any)["usage"].(map[string]any)["speed"] = r.speed
		}
		b, err := json.Marshal(line)
		if err != nil {
			tr.t.Fatal(err)
		}
		if files[r.session] == nil {
			files[r.session] = &strings.Builder{}
		}
		files[r.session].Write(append(b, '\n'))
	}
	dir := filepath.Join(tr.home, ".claude", "projects", "-home-u-proj")
	os.MkdirAll(dir, 0o755)
	for s, b := range files {
		if err := os.WriteFile(filepath.Join(dir, s+".jsonl"), []byte(b.String()), 0o644); err != nil {
			tr.t.Fatal(err)
		}
	}
}

// codexTurn is one turn of a Codex rollout: uncached input, cached input
// and output (reasoning included).
type codexTurn struct {
	in, cached, out, reasoning int64
}

func (tr *tree) codex(id, model, version string, start time.Time, turns ...codexTurn) {
	tr.t.Helper()
	var b strings.Builder
	add := func(at time.Time, typ string, payload any) {
		l, err := json.Marshal(map[string]any{"timestamp": at.UTC().Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
		if err != nil {
			tr.t.Fatal(err)
		}
		b.Write(append(l, '\n'))
	}
	add(start, "session_meta", map[string]any{"id": id, "timestamp": start.UTC().Format(time.RFC3339), "cwd": "/home/u/codex-proj",
		"originator": "codex_cli_rs", "cli_version": version})
	var in, cached, out, reasoning int64
	at := start
	for _, t := range turns {
		at = at.Add(time.Minute)
		add(at, "turn_context", map[string]any{"cwd": "/home/u/codex-proj", "approval_policy": "on-request", "model": model})
		in, cached, out, reasoning = in+t.in+t.cached, cached+t.cached, out+t.out, reasoning+t.reasoning
		last := map[string]any{"input_tokens": t.in + t.cached, "cached_input_tokens": t.cached, "output_tokens": t.out,
			"reasoning_output_tokens": t.reasoning, "total_tokens": t.in + t.cached + t.out}
		total := map[string]any{"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out,
			"reasoning_output_tokens": reasoning, "total_tokens": in + out}
		add(at.Add(2*time.Second), "event_msg", map[string]any{"type": "token_count",
			"info": map[string]any{"total_token_usage": total, "last_token_usage": last, "model_context_window": 272000}})
	}
	dir := filepath.Join(tr.home, ".codex", "sessions", start.Format("2006/01/02"))
	os.MkdirAll(dir, 0o755)
	name := fmt.Sprintf("rollout-%s-%s.jsonl", start.Format("2006-01-02T15-04-05"), id)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) store() *store.Store {
	tr.t.Helper()
	s, err := store.Open(filepath.Join(tr.t.TempDir(), "usage.db"))
	if err != nil {
		tr.t.Fatal(err)
	}
	tr.t.Cleanup(func() { s.Close() })
	if _, err := s.Ingest(context.Background(), store.IngestOptions{
		ClaudeRoots: []string{filepath.Join(tr.home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(tr.home, ".codex", "sessions")},
		Count:       token.O200k().Count,
	}); err != nil {
		tr.t.Fatal(err)
	}
	return s
}

var day1 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// modeTree: Claude lines with and without a recorded cost, one of a model
// without a price; Codex rollouts of gpt-5.2 and gpt-5.3-codex.
func modeTree(t *testing.T) *tree {
	tr := &tree{t: t, home: t.TempDir()}
	tr.claude(
		// A streaming copy of the next response, with its partial output
		// count and cost: the complete copy is the one counted.
		claudeReq{session: "s1", id: "a", at: day1, model: "claude-sonnet-4-5-20250929", in: 1200, out: 12, w5: 3000, read: 40000, costUSD: usd(0.03)},
		claudeReq{session: "s1", id: "a", at: day1, model: "claude-sonnet-4-5-20250929", in: 1200, out: 800, w5: 3000, read: 40000, costUSD: usd(0.25)},
		claudeReq{session: "s1", at: day1.Add(time.Minute), model: "claude-sonnet-4-5-20250929", in: 300, out: 2500, w1: 5000, read: 45000},
		claudeReq{session: "s1", at: day1.Add(2 * time.Minute), model: "claude-mystery-9", in: 100, out: 100, costUSD: usd(0.125)},
		claudeReq{session: "s2", at: day1.Add(26 * time.Hour), model: "claude-opus-4-6", in: 50, out: 4000, w5: 12000, read: 90000},
		claudeReq{session: "s2", at: day1.Add(27 * time.Hour), model: "claude-mystery-9", in: 700, out: 90},
		claudeReq{session: "s3", at: day1.Add(50 * time.Hour), model: "claude-haiku-4-5-20251001", in: 10, out: 300, read: 8000, costUSD: usd(0.0123)},
	)
	tr.codex("0199a000-1111-7222-8333-944445555601", "gpt-5.2", "0.63.0", day1.Add(3*time.Hour),
		codexTurn{9000, 21000, 1500, 500}, codexTurn{3000, 30000, 2200, 900}, codexTurn{1200, 33000, 800, 100})
	tr.codex("0199a000-1111-7222-8333-944445555602", "gpt-5.3-codex", "0.98.0", day1.Add(28*time.Hour),
		codexTurn{20000, 100000, 9000, 4000}, codexTurn{5000, 130000, 12000, 6000})
	return tr
}

// TestModes checks auto, calculate and display on recorded and calculated
// costs, and that an unpriced group is null, never zero.
func TestModes(t *testing.T) {
	s := modeTree(t).store()
	p := usage.DefaultPrices()
	sonnet, _, _ := p.Lookup("claude-sonnet-4-5")
	opus, _, _ := p.Lookup("claude-opus-4-6")
	haiku, _, _ := p.Lookup("claude-haiku-4-5")
	calc1 := sonnet.Cost(usage.Tokens{Input: 1200, Output: 800, CacheWrite5m: 3000, CacheRead: 40000}, false)
	calc2 := sonnet.Cost(usage.Tokens{Input: 300, Output: 2500, CacheWrite1h: 5000, CacheRead: 45000}, false)
	calcOpus := opus.Cost(usage.Tokens{Input: 50, Output: 4000, CacheWrite5m: 12000, CacheRead: 90000}, false)
	calcHaiku := haiku.Cost(usage.Tokens{Input: 10, Output: 300, CacheRead: 8000}, false)
	type want struct {
		cost     *float64
		partial  bool
		unpriced int
	}
	tests := []struct {
		mode     string
		sessions map[string]want
		recorded int
	}{
		{"auto", map[string]want{
			"s1": {usd(0.25 + calc2 + 0.125), false, 0},
			"s2": {usd(calcOpus), true, 1},
			"s3": {usd(0.0123), false, 0},
		}, 3},
		{"calculate", map[string]want{
			"s1": {usd(calc1 + calc2), true, 1},
			"s2": {usd(calcOpus), true, 1},
			"s3": {usd(calcHaiku), false, 0},
		}, 0},
		{"display", map[string]want{
			"s1": {usd(0.25 + 0.125), true, 1},
			"s2": {nil, false, 2},
			"s3": {usd(0.0123), false, 0},
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			rep, err := usage.Build(context.Background(), s, usage.Options{By: "session", Source: "claude", Mode: tt.mode, Location: time.UTC, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Mode != tt.mode || rep.Totals.RecordedRequests != tt.recorded {
				t.Errorf("mode %q, %d recorded; want %q, %d", rep.Mode, rep.Totals.RecordedRequests, tt.mode, tt.recorded)
			}
			for _, u := range rep.Usage {
				_, id, _ := strings.Cut(u.Key, ":")
				w := tt.sessions[id]
				if (u.Cost == nil) != (w.cost == nil) || u.Cost != nil && math.Abs(*u.Cost-*w.cost) > 1e-9 ||
					u.CostPartial != w.partial || u.Unpriced != w.unpriced {
					t.Errorf("%s: cost %v partial %v unpriced %d; want %v %v %d", id, fmtCost(u.Cost), u.CostPartial, u.Unpriced, fmtCost(w.cost), w.partial, w.unpriced)
				}
			}
			if rep.Totals.Cost == nil || !rep.Totals.CostPartial {
				t.Errorf("totals: cost %v partial %v; want a partial cost", fmtCost(rep.Totals.Cost), rep.Totals.CostPartial)
			}
			var b strings.Builder
			rep.WriteText(&b, render.Screen{})
			if strings.Contains(b.String(), "$0.00*") || !strings.Contains(b.String(), "(partial: ") {
				t.Errorf("text:\n%s", b.String())
			}
			j, _ := json.Marshal(rep)
			if tt.mode == "display" && !strings.Contains(string(j), `"cost":null`) {
				t.Errorf("display: no null cost in %s", j)
			}
		})
	}
	// Codex records no cost: display leaves it unpriced, and says so.
	rep, err := usage.Build(context.Background(), s, usage.Options{By: "day", Source: "codex", Mode: "display", Location: time.UTC, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteText(&b, render.Screen{})
	if rep.Totals.Cost != nil || rep.Totals.UnpricedRequests != 5 || !strings.Contains(b.String(), "cost unpriced (5 requests without a price)") ||
		!strings.Contains(b.String(), "no recorded cost (display mode)") {
		t.Errorf("codex in display mode: cost %v, %d unpriced\n%s", fmtCost(rep.Totals.Cost), rep.Totals.UnpricedRequests, b.String())
	}
	if _, err := usage.Build(context.Background(), s, usage.Options{Mode: "recorded"}); err == nil {
		t.Error("an unknown mode is accepted")
	}
}

func fmtCost(c *float64) string {
	if c == nil {
		return "null"
	}
	return fmt.Sprintf("%.9f", *c)
}

// ccusageMode runs ccusage on home with a cost mode (Claude reports only).
func ccusageRows(t *testing.T, home string, args ...string) map[string]float64 {
	out := map[string]float64{}
	for _, r := range ccusage(t, home, args...) {
		key := r.Date
		if r.SessionID != "" && r.Date == "" {
			key = r.SessionID
		}
		if r.SessionFile != "" {
			key = r.SessionFile[len(r.SessionFile)-36:]
		}
		out[key] = r.cost()
	}
	return out
}

// TestModesAgainstCcusage compares per-day costs with ccusage 20.0.24 in
// each mode, on Claude lines with recorded costs and Codex rollouts of
// gpt-5.2 and gpt-5.3-codex: within 0.5%. Where mcpcost has no cost
// (unpriced), ccusage shows 0.
func TestModesAgainstCcusage(t *testing.T) {
	tr := modeTree(t)
	s := tr.store()
	for _, mode := range usage.Modes {
		for _, src := range []string{"claude", "codex"} {
			t.Run(mode+"-"+src, func(t *testing.T) {
				args := []string{src, "daily"}
				if src == "claude" {
					args = append(args, "--mode", mode)
				}
				want := ccusageRows(t, tr.home, args...)
				rep, err := usage.Build(context.Background(), s, usage.Options{By: "day", Source: src, Mode: mode, Location: time.UTC, Now: fixedNow})
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Usage) != len(want) || len(want) < 2 {
					t.Fatalf("%d days, ccusage %d", len(rep.Usage), len(want))
				}
				for _, u := range rep.Usage {
					c, ok := want[u.Key]
					switch {
					case !ok:
						t.Errorf("%s: not in ccusage", u.Key)
					case src == "codex" && mode == "display":
						// ccusage's Codex reports have no mode: it calculates.
						if u.Cost != nil {
							t.Errorf("%s: Codex records no cost, but display mode shows %s", u.Key, fmtCost(u.Cost))
						}
					case u.Cost == nil:
						if c != 0 {
							t.Errorf("%s: unpriced, ccusage %.6f", u.Key, c)
						}
					case c == 0 || math.Abs(*u.Cost-c) > 0.005*c:
						t.Errorf("%s: cost %s, ccusage %.6f", u.Key, fmtCost(u.Cost), c)
					default:
						t.Logf("%s: %s, ccusage %.6f", u.Key, fmtCost(u.Cost), c)
					}
				}
			})
		}
	}
}

// TestLongContextAgainstCcusage prices requests around 200,000 input
// tokens (uncached input, cache writes and reads together) and compares
// with ccusage 20.0.24, which prices each kind of token on its own: equal
// up to the threshold, and above it mcpcost's whole-request premium where
// ccusage's per-kind rule keeps standard rates for kinds under 200,000.
// GPT-5.4 above 272,000: both apply the whole-request rule.
func TestLongContextAgainstCcusage(t *testing.T) {
	tr := &tree{t: t, home: t.TempDir()}
	spread := func(session string, n int64) claudeReq {
		return claudeReq{session: session, at: day1, model: "claude-sonnet-4-5-20250929", in: 1000, w5: 20000, w1: 9000, read: n - 30000, out: 2000}
	}
	tr.claude(spread("00000000-0000-4000-8000-000000199999", 199999), spread("00000000-0000-4000-8000-000000200000", 200000),
		spread("00000000-0000-4000-8000-000000200001", 200001),
		claudeReq{session: "00000000-0000-4000-8000-000000250000", at: day1, model: "claude-sonnet-4-5-20250929", in: 250000, out: 1000})
	tr.codex("0199a000-1111-7222-8333-000000272000", "gpt-5.4", "0.110.0", day1, codexTurn{in: 72000, cached: 200000, out: 3000})
	tr.codex("0199a000-1111-7222-8333-000000272001", "gpt-5.4", "0.110.0", day1, codexTurn{in: 72001, cached: 200000, out: 3000})
	s := tr.store()
	sonnet, _, _ := usage.DefaultPrices().Lookup("claude-sonnet-4-5")
	// ccusage's rule: per kind, standard up to 200,000 of that kind.
	perKind := func(r claudeReq) float64 {
		tier := func(n int64, base, premium float64) float64 {
			return (float64(min(n, 200000))*base + float64(max(0, n-200000))*premium) / 1e6
		}
		b, lc := sonnet.Rates, sonnet.LongContext.Rates
		return tier(r.in, b.Input, lc.Input) + tier(r.out, b.Output, lc.Output) + tier(r.w5, b.CacheWrite5m, lc.CacheWrite5m) +
			tier(r.w1, b.CacheWrite1h, lc.CacheWrite1h) + tier(r.read, b.CacheRead, lc.CacheRead)
	}
	whole := func(r claudeReq) float64 {
		return sonnet.Cost(usage.Tokens{Input: r.in, Output: r.out, CacheWrite5m: r.w5, CacheWrite1h: r.w1, CacheRead: r.read}, false)
	}
	big := claudeReq{in: 250000, out: 1000}
	tests := map[string]struct{ ours, ccusage float64 }{
		"00000000-0000-4000-8000-000000199999": {whole(spread("", 199999)), perKind(spread("", 199999))},
		"00000000-0000-4000-8000-000000200000": {whole(spread("", 200000)), perKind(spread("", 200000))},
		"00000000-0000-4000-8000-000000200001": {whole(spread("", 200001)), perKind(spread("", 200001))},
		"00000000-0000-4000-8000-000000250000": {whole(big), perKind(big)},
	}
	if a, b := tests["00000000-0000-4000-8000-000000200000"], tests["00000000-0000-4000-8000-000000200001"]; a.ours != a.ccusage || b.ours < 1.9*b.ccusage {
		t.Fatalf("the rules should agree at 200,000 and differ above: %+v %+v", a, b)
	}
	got := ccusageRows(t, tr.home, "claude", "session", "--mode", "calculate")
	rep, err := usage.Build(context.Background(), s, usage.Options{By: "session", Source: "claude", Location: time.UTC, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range rep.Usage {
		_, id, _ := strings.Cut(u.Key, ":")
		w := tests[id]
		if u.Cost == nil || math.Abs(*u.Cost-w.ours) > 1e-9 {
			t.Errorf("%s: cost %s, want %.9f (whole request)", id, fmtCost(u.Cost), w.ours)
		}
		if c := got[id]; math.Abs(c-w.ccusage) > 1e-9 {
			t.Errorf("%s: ccusage %.9f, want %.9f (its per-kind rule)", id, c, w.ccusage)
		}
	}
	codex := ccusageRows(t, tr.home, "codex", "session")
	rep, err = usage.Build(context.Background(), s, usage.Options{By: "session", Source: "codex", Location: time.UTC, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	gpt, _, _ := usage.DefaultPrices().Lookup("gpt-5.4")
	for _, u := range rep.Usage {
		_, id, _ := strings.Cut(u.Key, ":")
		rate := gpt.Rates
		if strings.HasSuffix(id, "272001") {
			rate = gpt.LongContext.Rates
		}
		var in int64 = 72000
		if strings.HasSuffix(id, "272001") {
			in = 72001
		}
		want := (float64(in)*rate.Input + 200000*rate.CacheRead + 3000*rate.Output) / 1e6
		if u.Cost == nil || math.Abs(*u.Cost-want) > 1e-9 || math.Abs(codex[id]-want) > 1e-9 {
			t.Errorf("%s: cost %s, ccusage %.9f, want %.9f", id, fmtCost(u.Cost), codex[id], want)
		}
	}
}

// TestFastAgainstCcusage prices fast-mode requests as ccusage 20.0.24 does:
// Opus 4.6 and 4.7 at 6x, Opus 4.8 and 5 at 2x, a model without fast
// rates at its standard ones.
func TestFastAgainstCcusage(t *testing.T) {
	tr := &tree{t: t, home: t.TempDir()}
	models := []string{"claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8", "claude-opus-5", "claude-sonnet-4-6"}
	var reqs []claudeReq
	for i, m := range models {
		for j, speed := range []string{"fast", "standard"} {
			reqs = append(reqs, claudeReq{session: fmt.Sprintf("00000000-0000-4000-8000-%012d", 10*i+j), at: day1, model: m,
				in: 50000, read: 100000, w5: 5000, out: 10000, speed: speed})
		}
	}
	tr.claude(reqs...)
	s := tr.store()
	want := ccusageRows(t, tr.home, "claude", "session", "--mode", "calculate")
	rep, err := usage.Build(context.Background(), s, usage.Options{By: "session", Source: "claude", Location: time.UTC, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Usage) != len(reqs) {
		t.Fatalf("%d sessions, want %d", len(rep.Usage), len(reqs))
	}
	for _, u := range rep.Usage {
		_, id, _ := strings.Cut(u.Key, ":")
		c := want[id]
		if u.Cost == nil || c == 0 || math.Abs(*u.Cost-c) > 0.005*c {
			t.Errorf("%s (%v): cost %s, ccusage %.6f", id, u.Models, fmtCost(u.Cost), c)
		}
	}
	// Above 200,000 input tokens Opus 4.6's fast mode costs 12x input and
	// 9x output (Anthropic); ccusage keeps 6x.
	op, _, _ := usage.DefaultPrices().Lookup("claude-opus-4-6")
	for _, tt := range []struct {
		in   int64
		want float64
	}{{200000, 200000*30/1e6 + 1000*150/1e6}, {200001, 200001*60/1e6 + 1000*225/1e6}} {
		if c := op.Cost(usage.Tokens{Input: tt.in, Output: 1000}, true); math.Abs(c-tt.want) > 1e-12 {
			t.Errorf("opus 4.6 fast at %d: %.9f, want %.9f", tt.in, c, tt.want)
		}
	}
}
