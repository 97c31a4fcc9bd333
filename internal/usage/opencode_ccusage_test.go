package usage_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// opencodeModels are priced alike here and by ccusage (requests stay
// under 200,000 input tokens, where ccusage prices Claude's long context
// otherwise).
var opencodeModels = [][2]string{{"anthropic", "claude-sonnet-4-5"}, {"anthropic", "claude-haiku-4-5"}, {"anthropic", "claude-opus-4-5"},
	{"openai", "gpt-5"}, {"openai", "gpt-5-mini"}, {"google", "gemini-2.5-pro"}}

// writeOpencodeTree writes opencode sessions under dir, shaped as
// opencode writes them (see the transcript package's testdata/opencode):
// the storage/ tree of older versions and an opencode.db, a part of the
// messages in both (opencode moved its storage into the database), sub-
// agents' sessions, user messages, aborted ones without tokens, recorded
// costs, reasoning, and tool parts (MCP servers' and opencode's own).
func writeOpencodeTree(t *testing.T, dir string, sessions int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 42))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w := transcripttest.OpencodeDB(t, filepath.Join(dir, "opencode.db"), false)
	defer w.Close()
	day0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	write := func(path string, v any) {
		b, _ := json.Marshal(v)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for s := range sessions {
		ses := fmt.Sprintf("ses_%012x%s", r.Uint64()>>16, "Ab")
		at := day0.Add(time.Duration(r.IntN(6*24*60)) * time.Minute)
		where := r.IntN(3) // 0: storage/, 1: the database, 2: both
		for m := range 2 + r.IntN(10) {
			n++
			at = at.Add(time.Duration(1+r.IntN(120)) * time.Minute)
			id := fmt.Sprintf("msg_%012x%04d", uint64(at.UnixMilli()), n)
			pm := opencodeModels[r.IntN(len(opencodeModels))]
			msg := map[string]any{"id": id, "sessionID": ses, "role": "assistant", "time": map[string]any{"created": at.UnixMilli(), "completed": at.UnixMilli() + 9000},
				"modelID": pm[1], "providerID": pm[0], "mode": "build", "path": map[string]any{"cwd": "/home/dev/p" + fmt.Sprint(s%4), "root": "/home/dev"},
				"cost": 0, "tokens": map[string]any{"input": r.Int64N(60000), "output": 1 + r.Int64N(4000), "reasoning": r.Int64N(3) * r.Int64N(2000),
					"cache": map[string]any{"read": r.Int64N(100000), "write": r.Int64N(20000)}}}
			if pm[0] != "anthropic" {
				// Only Anthropic bills cache writes: opencode records none for
				// the others.
				msg["tokens"].(map[string]any)["cache"].(map[string]any)["write"] = 0
			}
			switch r.IntN(10) {
			case 0:
				msg["role"] = "user"
				delete(msg, "tokens")
			case 1:
				msg["tokens"] = map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}
			case 2:
				msg["cost"] = float64(r.IntN(5000)) / 10000
			}
			var parts []map[string]any
			if r.IntN(2) == 0 {
				tool := []string{"github_search_issues", "linear_get_issue", "bash", "read"}[r.IntN(4)]
				parts = append(parts, map[string]any{"id": fmt.Sprintf("prt_%d", n), "sessionID": ses, "messageID": id, "type": "tool", "callID": fmt.Sprintf("call_%d", n),
					"tool": tool, "state": map[string]any{"status": "completed", "input": map[string]any{"q": "x"}, "output": strings.Repeat("result line\n", 1+r.IntN(30)),
						"time": map[string]any{"start": at.UnixMilli() + 1000, "end": at.UnixMilli() + 1000 + r.Int64N(5000)}}})
			}
			if where != 1 {
				write(filepath.Join(dir, "storage", "message", ses, id+".json"), msg)
				for _, p := range parts {
					write(filepath.Join(dir, "storage", "part", id, p["id"].(string)+".json"), p)
				}
			}
			if where != 0 {
				data := map[string]any{}
				for k, v := range msg {
					if k != "id" && k != "sessionID" {
						data[k] = v
					}
				}
				b, _ := json.Marshal(data)
				w.Message(id, ses, at.UnixMilli(), string(b))
				for _, p := range parts {
					pd := map[string]any{}
					for k, v := range p {
						if k != "id" && k != "sessionID" && k != "messageID" {
							pd[k] = v
						}
					}
					b, _ := json.Marshal(pd)
					w.Part(p["id"].(string), id, ses, at.UnixMilli(), string(b))
				}
			}
			_ = m
		}
	}
}

func ccusageOpencode(t *testing.T, home, dir string, args ...string) []ccusageGeminiRow {
	t.Helper()
	bin := filepath.Join(testpeers.NPMPackage(t, "@ccusage/ccusage-linux-x64"), "bin", "ccusage")
	if _, err := os.Stat(bin); err != nil {
		bin = testpeers.NPMBin(t, "ccusage")
	}
	cmd := exec.Command(bin, append(args, "--json", "--offline", "--timezone", "UTC")...)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "OPENCODE_DATA_DIR=" + dir, "TZ=UTC", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccusage %s: %v", strings.Join(args, " "), err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"daily", "sessions"} {
		if raw, ok := doc[k]; ok {
			var rows []ccusageGeminiRow
			if err := json.Unmarshal(raw, &rows); err != nil {
				t.Fatal(err)
			}
			return rows
		}
	}
	t.Fatalf("ccusage %s: no rows in %s", strings.Join(args, " "), out)
	return nil
}

// TestOpencodeAgainstCcusage compares per-day, per-day-and-model and
// per-session totals of opencode sessions with ccusage 20.0.24's on the
// same generated folder: tokens exactly, costs within 0.5% (recorded costs
// included). As for Gemini CLI, ccusage's outputTokens leave out the
// reasoning its totals and costs hold; output less reasoning is compared.
func TestOpencodeAgainstCcusage(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "opencode")
	writeOpencodeTree(t, dir, 30, 11)
	s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Ingest(context.Background(), store.IngestOptions{OpencodeRoots: []string{dir}, Count: token.O200k().Count})
	if err != nil || len(st.Warnings) > 0 {
		t.Fatal(err, st.Warnings)
	}
	if st.Duplicates == 0 {
		t.Error("no message was in both the storage/ tree and the database")
	}
	check := func(t *testing.T, key string, gt usage.Tokens, cost *float64, in, out, cw, cr, total int64, want float64) {
		t.Helper()
		if gt.Input != in || gt.Output-gt.Reasoning != out || gt.CacheRead != cr || gt.CacheWrite5m+gt.CacheWrite1h != cw || (total >= 0 && gt.Total != total) {
			t.Errorf("%s: tokens in %d out %d (%d reasoning) cw %d cr %d total %d; ccusage in %d out %d cw %d cr %d total %d", key,
				gt.Input, gt.Output, gt.Reasoning, gt.CacheWrite5m+gt.CacheWrite1h, gt.CacheRead, gt.Total, in, out, cw, cr, total)
		}
		if cost == nil || math.Abs(*cost-want) > 0.005*want {
			t.Errorf("%s: cost %s, ccusage %.6f", key, costText(cost), want)
		}
	}
	for _, by := range []string{"day", "session"} {
		t.Run(by, func(t *testing.T) {
			args := []string{"opencode", "daily"}
			if by == "session" {
				args = []string{"opencode", "session"}
			}
			want := ccusageOpencode(t, home, dir, args...)
			rep, err := usage.Build(context.Background(), s, usage.Options{By: by, Source: "opencode", Breakdown: true, Location: time.UTC, Now: time.Now()})
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
				check(t, key, g.Tokens, g.Cost, w.InputTokens, w.OutputTokens, w.CacheCreationTokens, w.CacheReadTokens, w.TotalTokens, w.cost())
				models := map[string]usage.ModelRow{}
				for _, m := range g.Breakdown {
					models[m.Model] = m
				}
				if len(models) != len(w.ModelBreakdowns) {
					t.Errorf("%s: %d models, ccusage %d", key, len(models), len(w.ModelBreakdowns))
				}
				for _, wm := range w.ModelBreakdowns {
					m, ok := models[wm.ModelName]
					if !ok {
						t.Errorf("%s: no %s", key, wm.ModelName)
						continue
					}
					check(t, key+" "+wm.ModelName, m.Tokens, m.Cost, wm.InputTokens, wm.OutputTokens, wm.CacheCreationTokens, wm.CacheReadTokens, -1, wm.Cost)
				}
			}
			sort.Strings(keys)
			t.Logf("%d rows agree: %s", len(keys), strings.Join(keys, " "))
		})
	}
}

func costText(c *float64) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%.6f", *c)
}
