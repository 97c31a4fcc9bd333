package usage_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// ccusageJSON runs ccusage's native binary on home in zone tz and returns
// its --json document.
func ccusageJSON(t *testing.T, home, tz string, args ...string) map[string]json.RawMessage {
	t.Helper()
	bin := filepath.Join(testpeers.NPMPackage(t, "@ccusage/ccusage-linux-x64"), "bin", "ccusage")
	if _, err := os.Stat(bin); err != nil {
		bin = testpeers.NPMBin(t, "ccusage")
	}
	cmd := exec.Command(bin, append(args, "--json", "--offline", "--timezone", tz)...)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "CODEX_HOME=" + filepath.Join(home, ".codex"),
		"TZ=" + tz, "PATH=" + os.Getenv("PATH")}
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
	return doc
}

// ccusagePeriod is one row of ccusage's weekly or monthly report: unified
// ("period"), Claude's ("week", "month", with modelBreakdowns) or Codex's
// ("month", with models).
type ccusagePeriod struct {
	Period              string   `json:"period"`
	Week                string   `json:"week"`
	Month               string   `json:"month"`
	InputTokens         int64    `json:"inputTokens"`
	OutputTokens        int64    `json:"outputTokens"`
	CacheCreationTokens int64    `json:"cacheCreationTokens"`
	CacheReadTokens     int64    `json:"cacheReadTokens"`
	TotalTokens         int64    `json:"totalTokens"`
	TotalCost           *float64 `json:"totalCost"`
	CostUSD             *float64 `json:"costUSD"`
	ModelBreakdowns     []struct {
		ModelName           string  `json:"modelName"`
		InputTokens         int64   `json:"inputTokens"`
		OutputTokens        int64   `json:"outputTokens"`
		CacheCreationTokens int64   `json:"cacheCreationTokens"`
		CacheReadTokens     int64   `json:"cacheReadTokens"`
		Cost                float64 `json:"cost"`
	} `json:"modelBreakdowns"`
	Models map[string]struct {
		InputTokens     int64 `json:"inputTokens"`
		OutputTokens    int64 `json:"outputTokens"`
		CacheReadTokens int64 `json:"cacheReadTokens"`
		TotalTokens     int64 `json:"totalTokens"`
	} `json:"models"`
}

func (p ccusagePeriod) key() string { return p.Period + p.Week + p.Month }

func (p ccusagePeriod) cost() float64 {
	if p.TotalCost != nil {
		return *p.TotalCost
	}
	if p.CostUSD != nil {
		return *p.CostUSD
	}
	return math.NaN()
}

// TestAgainstCcusagePeriods compares the reports by week and by month with
// ccusage 20.0.24's weekly and monthly reports on one generated tree of
// about two months that crosses a change of daylight saving time, in New
// York: periods in the same order, tokens exactly, costs within 0.5%, each
// model's part of a period (--breakdown), weeks from each first day
// (--start-of-week), the newest first (--order desc) and the last periods
// (--last).
func TestAgainstCcusagePeriods(t *testing.T) {
	home := t.TempDir()
	now := time.Now()
	o := transcripttest.Small()
	o.Sessions, o.Codex, o.Days = 40, 8, 60
	o.Start = now.AddDate(0, 0, -62).Truncate(time.Hour)
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
	const tz = "America/New_York"
	loc, err := time.LoadLocation(tz)
	if err != nil {
		t.Fatal(err)
	}
	// day is the midnight in loc n days from today.
	day := func(n int) time.Time {
		d := now.In(loc)
		return time.Date(d.Year(), d.Month(), d.Day()+n, 0, 0, 0, 0, loc)
	}
	for _, tc := range []struct {
		name   string
		o      usage.Options
		args   []string
		models bool // compare each model's part
	}{
		{"weekly", usage.Options{By: "week", StartOfWeek: time.Monday}, []string{"weekly"}, true},
		{"claude-weekly", usage.Options{By: "week", Source: "claude", StartOfWeek: time.Sunday}, []string{"claude", "weekly"}, true},
		{"claude-weekly-wednesday", usage.Options{By: "week", Source: "claude", StartOfWeek: time.Wednesday}, []string{"claude", "weekly", "--start-of-week", "wednesday"}, true},
		{"claude-weekly-saturday-desc", usage.Options{By: "week", Source: "claude", StartOfWeek: time.Saturday, Order: "desc"}, []string{"claude", "weekly", "-w", "saturday", "--order", "desc"}, true},
		{"claude-weekly-last-4", usage.Options{By: "week", Source: "claude", Last: 4}, []string{"claude", "weekly", "--last", "4"}, true},
		{"weekly-last-3", usage.Options{By: "week", StartOfWeek: time.Monday, Last: 3}, []string{"weekly", "--last", "3"}, true},
		{"monthly", usage.Options{By: "month"}, []string{"monthly"}, true},
		{"claude-monthly-desc", usage.Options{By: "month", Source: "claude", Order: "desc"}, []string{"claude", "monthly", "--order", "desc"}, true},
		{"codex-monthly", usage.Options{By: "month", Source: "codex"}, []string{"codex", "monthly"}, true},
		{"monthly-last-2", usage.Options{By: "month", Last: 2}, []string{"monthly", "--last", "2"}, true},
		// A window that starts and ends inside a period: the periods
		// hold only its days.
		{"claude-monthly-since-until", usage.Options{By: "month", Source: "claude", Since: day(-55), Until: day(-20).AddDate(0, 0, 1)},
			[]string{"claude", "monthly", "--since", day(-55).Format("20060102"), "--until", day(-20).Format("20060102")}, false},
		{"claude-weekly-since-until", usage.Options{By: "week", Source: "claude", StartOfWeek: time.Thursday, Since: day(-40), Until: day(-25).AddDate(0, 0, 1)},
			[]string{"claude", "weekly", "-w", "thursday", "--since", day(-40).Format("20060102"), "--until", day(-25).Format("20060102")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := ccusageJSON(t, home, tz, tc.args...)
			var want []ccusagePeriod
			raw, ok := doc["weekly"]
			if !ok {
				raw = doc["monthly"]
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			op := tc.o
			op.Location, op.Now, op.Breakdown = loc, now, tc.models
			rep, err := usage.Build(context.Background(), s, op)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) < 1 || (op.Last == 0 && len(want) < 2) {
				t.Fatalf("ccusage has %d rows: the tree does not test this", len(want))
			}
			if len(rep.Usage) != len(want) {
				t.Errorf("%d rows, ccusage has %d", len(rep.Usage), len(want))
			}
			var sum usage.Tokens
			for i, w := range want {
				if i >= len(rep.Usage) {
					break
				}
				g := rep.Usage[i]
				sum.Total += g.Tokens.Total
				if g.Key != w.key() {
					t.Errorf("row %d is %s, ccusage's is %s", i, g.Key, w.key())
					continue
				}
				gt := g.Tokens
				if gt.Input != w.InputTokens || gt.Output != w.OutputTokens || gt.CacheWrite5m+gt.CacheWrite1h != w.CacheCreationTokens ||
					gt.CacheRead != w.CacheReadTokens || gt.Total != w.TotalTokens {
					t.Errorf("%s: tokens in %d out %d cw %d cr %d total %d; ccusage in %d out %d cw %d cr %d total %d", g.Key,
						gt.Input, gt.Output, gt.CacheWrite5m+gt.CacheWrite1h, gt.CacheRead, gt.Total,
						w.InputTokens, w.OutputTokens, w.CacheCreationTokens, w.CacheReadTokens, w.TotalTokens)
				}
				if c := w.cost(); g.Cost == nil || math.Abs(*g.Cost-c) > 0.005*c {
					t.Errorf("%s: cost %v, ccusage %.6f", g.Key, g.Cost, c)
				}
				if !tc.models {
					continue
				}
				parts := map[string]usage.ModelRow{}
				for _, b := range g.Breakdown {
					parts[b.Model] = b
				}
				n := len(w.ModelBreakdowns) + len(w.Models)
				if n == 0 || len(parts) != n {
					t.Errorf("%s: %d models, ccusage has %d", g.Key, len(parts), n)
				}
				for _, mb := range w.ModelBreakdowns {
					p := parts[mb.ModelName]
					if p.Tokens.Input != mb.InputTokens || p.Tokens.Output != mb.OutputTokens || p.Tokens.CacheWrite5m+p.Tokens.CacheWrite1h != mb.CacheCreationTokens ||
						p.Tokens.CacheRead != mb.CacheReadTokens {
						t.Errorf("%s %s: tokens %+v, ccusage %+v", g.Key, mb.ModelName, p.Tokens, mb)
					}
					if p.Cost == nil || math.Abs(*p.Cost-mb.Cost) > 0.005*mb.Cost {
						t.Errorf("%s %s: cost %v, ccusage %.6f", g.Key, mb.ModelName, p.Cost, mb.Cost)
					}
				}
				for name, mm := range w.Models {
					p := parts[name]
					if p.Tokens.Input != mm.InputTokens || p.Tokens.Output != mm.OutputTokens || p.Tokens.CacheRead != mm.CacheReadTokens || p.Tokens.Total != mm.TotalTokens {
						t.Errorf("%s %s: tokens %+v, ccusage %+v", g.Key, name, p.Tokens, mm)
					}
				}
			}
			if sum.Total != rep.Totals.Tokens.Total {
				t.Errorf("the rows add up to %d tokens, the totals say %d", sum.Total, rep.Totals.Tokens.Total)
			}
			t.Logf("%d periods agree", len(want))
		})
	}
}
