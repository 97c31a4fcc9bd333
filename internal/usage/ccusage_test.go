package usage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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
			rep, err := usage.Build(context.Background(), s.DB(), usage.Options{By: tc.by, Source: tc.source, Location: time.UTC, Now: time.Now()})
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
