package usage_test

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// TestAgainstCcusageGoose compares Goose usage per day and per session,
// and per model within each, with ccusage 20.0.24's goose daily and
// session reports on the same generated sessions.db: input and total
// tokens exactly, and output as the total's part beyond input (ccusage
// shows the output column alone and prices the rest as output, mcpcost
// counts it in output, as reasoning); costs within 0.5% where both price
// the model.
func TestAgainstCcusageGoose(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.GenerateGoose(home, 35, 60, 9, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Ingest(context.Background(), store.IngestOptions{
		GooseRoots: []string{filepath.Join(home, ".local", "share", "goose", "sessions")},
		Count:      token.O200k().Count,
	}); err != nil {
		t.Fatal(err)
	}
	for _, by := range []string{"day", "session"} {
		t.Run(by, func(t *testing.T) {
			doc := ccusageJSON(t, home, "UTC", "goose", map[string]string{"day": "daily", "session": "session"}[by])
			var want []ccusageModelRow
			if err := json.Unmarshal(doc[map[string]string{"day": "daily", "session": "sessions"}[by]], &want); err != nil {
				t.Fatal(err)
			}
			rep, err := usage.Build(context.Background(), s, usage.Options{By: by, Source: "goose", Breakdown: true, Location: time.UTC, Now: time.Now()})
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
			models, priced := 0, 0
			for _, w := range want {
				key := w.Date
				if by == "session" {
					key = w.SessionID
				}
				g, ok := got[key]
				if !ok {
					t.Errorf("%s: ccusage has it, mcpcost does not", key)
					continue
				}
				gt := g.Tokens
				if gt.Input != w.InputTokens || gt.Output != w.TotalTokens-w.InputTokens || gt.CacheRead != 0 || gt.Total != w.TotalTokens || gt.Output < w.OutputTokens {
					t.Errorf("%s: tokens in %d out %d total %d; ccusage in %d out %d total %d", key,
						gt.Input, gt.Output, gt.Total, w.InputTokens, w.OutputTokens, w.TotalTokens)
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
					if gm.Tokens.Input != wm.InputTokens || gm.Tokens.Output < wm.OutputTokens {
						t.Errorf("%s %s: in %d out %d; ccusage in %d out %d", key, wm.ModelName, gm.Tokens.Input, gm.Tokens.Output, wm.InputTokens, wm.OutputTokens)
					}
					lc := false
					if mp, _, ok := usage.DefaultPrices().Lookup(wm.ModelName); ok && mp.LongContext != nil {
						// A Goose session is one row: past the threshold,
						// ccusage prices each kind's tokens beyond it at the
						// long-context rate (see prices.json's notes).
						th := mp.LongContext.Threshold
						lc = wm.InputTokens > th || gm.Tokens.Output > th
					}
					switch {
					case lc && gm.Cost != nil:
						t.Logf("%s %s: long context, priced otherwise by ccusage (%.6f here, %.6f there)", key, wm.ModelName, *gm.Cost, wm.Cost)
					case gm.Cost != nil && wm.Cost > 0:
						priced++
						if math.Abs(*gm.Cost-wm.Cost) > 0.005*wm.Cost {
							t.Errorf("%s %s: cost %.6f, ccusage %.6f", key, wm.ModelName, *gm.Cost, wm.Cost)
						}
					case gm.Cost == nil && wm.Cost > 0:
						t.Logf("%s %s: unpriced here; ccusage prices it at %.6f", key, wm.ModelName, wm.Cost)
					}
				}
			}
			if priced == 0 {
				t.Error("no cost compared")
			}
			t.Logf("%d rows and %d model rows agree (%d priced by both)", len(want), models, priced)
		})
	}
}
