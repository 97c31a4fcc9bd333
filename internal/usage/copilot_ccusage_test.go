package usage_test

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// ccusageModelRow is one row of ccusage's per-agent daily or session
// report, with its figures per model.
type ccusageModelRow struct {
	Date                string   `json:"date"`
	SessionID           string   `json:"sessionId"`
	InputTokens         int64    `json:"inputTokens"`
	OutputTokens        int64    `json:"outputTokens"`
	CacheCreationTokens int64    `json:"cacheCreationTokens"`
	CacheReadTokens     int64    `json:"cacheReadTokens"`
	TotalTokens         int64    `json:"totalTokens"`
	TotalCost           *float64 `json:"totalCost"`
	FirstActivity       string   `json:"firstActivity"`
	LastActivity        string   `json:"lastActivity"`
	ModelBreakdowns     []struct {
		ModelName           string  `json:"modelName"`
		InputTokens         int64   `json:"inputTokens"`
		OutputTokens        int64   `json:"outputTokens"`
		CacheCreationTokens int64   `json:"cacheCreationTokens"`
		CacheReadTokens     int64   `json:"cacheReadTokens"`
		Cost                float64 `json:"cost"`
	} `json:"modelBreakdowns"`
}

// TestAgainstCcusageCopilot compares GitHub Copilot CLI usage per day and
// per session, and per model within each, with ccusage 20.0.24's copilot
// daily and session reports on the same generated tree (resumed sessions,
// repeated shutdowns, model switches, corrupt and cut lines): tokens
// exactly, costs within 0.5% where both price the model.
func TestAgainstCcusageCopilot(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.GenerateCopilot(home, 21, 40, 9, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Ingest(context.Background(), store.IngestOptions{
		CopilotRoots: []string{filepath.Join(home, ".copilot", "session-state")},
		Count:        token.O200k().Count,
	}); err != nil {
		t.Fatal(err)
	}
	for _, by := range []string{"day", "session"} {
		t.Run(by, func(t *testing.T) {
			cmd := map[string]string{"day": "daily", "session": "session"}[by]
			doc := ccusageJSON(t, home, "UTC", "copilot", cmd)
			var want []ccusageModelRow
			if err := json.Unmarshal(doc[map[string]string{"day": "daily", "session": "sessions"}[by]], &want); err != nil {
				t.Fatal(err)
			}
			rep, err := usage.Build(context.Background(), s, usage.Options{By: by, Source: "copilot", Breakdown: true, Location: time.UTC, Now: time.Now()})
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
			if len(want) != len(got) || len(want) < 5 {
				t.Errorf("%d rows, ccusage has %d", len(got), len(want))
			}
			var keys []string
			models := 0
			for _, w := range want {
				key := w.Date
				if by == "session" {
					key = w.SessionID
				}
				keys = append(keys, key)
				g, ok := got[key]
				if !ok {
					t.Errorf("%s: ccusage has it, mcpcost does not", key)
					continue
				}
				gt := g.Tokens
				if gt.Input != w.InputTokens || gt.Output != w.OutputTokens || gt.CacheWrite5m+gt.CacheWrite1h != w.CacheCreationTokens ||
					gt.CacheRead != w.CacheReadTokens || gt.Total != w.TotalTokens {
					t.Errorf("%s: tokens in %d out %d cw %d cr %d total %d; ccusage in %d out %d cw %d cr %d total %d", key,
						gt.Input, gt.Output, gt.CacheWrite5m+gt.CacheWrite1h, gt.CacheRead, gt.Total,
						w.InputTokens, w.OutputTokens, w.CacheCreationTokens, w.CacheReadTokens, w.TotalTokens)
				}
				if by == "session" && g.First != nil && g.Last != nil {
					// ccusage's activity is that of the shutdowns; ours spans every event.
					if f, err := time.Parse(time.RFC3339, w.FirstActivity); err == nil && g.First.After(f) {
						t.Errorf("%s: first %s after ccusage's %s", key, g.First, f)
					}
				}
				byModel := map[string]usage.ModelRow{}
				for _, mr := range g.Breakdown {
					byModel[mr.Model] = mr
				}
				for _, wm := range w.ModelBreakdowns {
					models++
					gm, ok := byModel[wm.ModelName]
					if !ok {
						t.Errorf("%s: no %s; ccusage has it", key, wm.ModelName)
						continue
					}
					mt := gm.Tokens
					if mt.Input != wm.InputTokens || mt.Output != wm.OutputTokens || mt.CacheWrite5m != wm.CacheCreationTokens || mt.CacheRead != wm.CacheReadTokens {
						t.Errorf("%s %s: in %d out %d cw %d cr %d; ccusage in %d out %d cw %d cr %d", key, wm.ModelName,
							mt.Input, mt.Output, mt.CacheWrite5m, mt.CacheRead, wm.InputTokens, wm.OutputTokens, wm.CacheCreationTokens, wm.CacheReadTokens)
					}
					if gm.Cost != nil && wm.Cost > 0 && math.Abs(*gm.Cost-wm.Cost) > 0.005*wm.Cost {
						t.Errorf("%s %s: cost %.6f, ccusage %.6f", key, wm.ModelName, *gm.Cost, wm.Cost)
					}
					if gm.Cost == nil && wm.Cost > 0 {
						t.Errorf("%s %s: unpriced; ccusage prices it at %.6f", key, wm.ModelName, wm.Cost)
					}
				}
				if len(byModel) != len(w.ModelBreakdowns) {
					t.Errorf("%s: %d models, ccusage %d", key, len(byModel), len(w.ModelBreakdowns))
				}
			}
			sort.Strings(keys)
			t.Logf("%d rows and %d model rows agree", len(keys), models)
		})
	}
}
