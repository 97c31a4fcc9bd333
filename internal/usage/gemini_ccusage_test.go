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
	"github.com/mcpcost/mcpcost/internal/usage"
)

// geminiModels are the models the generated chats use: all priced here
// and by ccusage.
var geminiModels = []string{"gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-3-pro-preview", "gemini-3-flash-preview"}

// writeGeminiTree writes Gemini CLI chats under home/.gemini/tmp, shaped
// as gemini-cli's chatRecordingService writes them (see the transcript
// package's testdata/gemini): JSON documents and JSONL files, chats of
// sub-agents in chats/<session>/, messages written again in JSONL files,
// responses that name no model (after one that does), the three shapes
// of total (input including the cached input, no total, input excluding
// it), user, info and error messages, and tool calls with MCP servers
// named in their displayName. Requests stay under 200,000 input tokens:
// ccusage prices long context otherwise (see prices.json's notes).
func writeGeminiTree(t *testing.T, home string, sessions int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 21))
	day0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for s := range sessions {
		project := fmt.Sprintf("%010x", r.Uint64()>>24)
		chats := filepath.Join(home, ".gemini", "tmp", project, "chats")
		id := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()>>16)
		start := day0.Add(time.Duration(r.IntN(6*24*60)) * time.Minute)
		jsonl := s%3 != 0
		model := geminiModels[r.IntN(len(geminiModels))]
		var msgs []map[string]any
		at := start
		for m := range 3 + r.IntN(12) {
			at = at.Add(time.Duration(1+r.IntN(90)) * time.Minute) // some sessions cross midnight
			msgs = append(msgs, map[string]any{"id": fmt.Sprintf("u-%d", m), "timestamp": at.Format(time.RFC3339Nano), "type": "user", "content": "next step"})
			if r.IntN(8) == 0 {
				msgs = append(msgs, map[string]any{"id": fmt.Sprintf("i-%d", m), "timestamp": at.Format(time.RFC3339Nano), "type": "info", "content": "Request cancelled."})
			}
			if r.IntN(3) == 0 {
				model = geminiModels[r.IntN(len(geminiModels))]
			}
			input := 500 + r.Int64N(150000)
			cached := int64(0)
			if r.IntN(3) > 0 {
				cached = r.Int64N(input)
			}
			output, thoughts, tool := 1+r.Int64N(3000), r.Int64N(2000), int64(0)
			if r.IntN(4) == 0 {
				tool = r.Int64N(200)
			}
			tokens := map[string]any{"input": input, "output": output, "cached": cached, "thoughts": thoughts, "tool": tool}
			switch r.IntN(10) {
			case 0: // no total
			case 1: // a total that leaves the input uncached
				tokens["total"] = input + output + cached + thoughts + tool
			default:
				tokens["total"] = input + output + thoughts + tool
			}
			msg := map[string]any{"id": fmt.Sprintf("g-%d", m), "timestamp": at.Add(7 * time.Second).Format(time.RFC3339Nano), "type": "gemini",
				"content": "done", "tokens": tokens, "model": model}
			if jsonl && m > 0 && r.IntN(4) == 0 {
				delete(msg, "model") // the model named on a line before counts
			}
			if r.IntN(2) == 0 {
				server := []string{"github", "linear", "postgres"}[r.IntN(3)]
				msg["toolCalls"] = []map[string]any{{
					"id": fmt.Sprintf("search-%d-%d", s, m), "name": "search", "args": map[string]any{"q": "x"}, "status": "success",
					"timestamp": at.Add(8 * time.Second).Format(time.RFC3339Nano), "displayName": "search (" + server + " MCP Server)",
					"result": []map[string]any{{"functionResponse": map[string]any{"id": fmt.Sprintf("search-%d-%d", s, m), "name": "search",
						"response": map[string]any{"output": strings.Repeat("a result line\n", 1+r.IntN(40))}}}},
				}}
			}
			if jsonl && r.IntN(5) == 0 {
				// Written first without its final output, then again.
				early := map[string]any{}
				for k, v := range msg {
					early[k] = v
				}
				early["tokens"] = map[string]any{"input": input, "output": 1, "cached": cached, "total": input + 1}
				msgs = append(msgs, early)
			}
			msgs = append(msgs, msg)
			if r.IntN(10) == 0 {
				msgs = append(msgs, map[string]any{"id": fmt.Sprintf("e-%d", m), "timestamp": at.Format(time.RFC3339Nano), "type": "error", "content": "[API Error: 503]"})
			}
		}
		head := map[string]any{"sessionId": id, "projectHash": project, "startTime": start.Format(time.RFC3339Nano), "lastUpdated": at.Format(time.RFC3339Nano)}
		name := "session-" + start.Format("2006-01-02T15-04") + "-" + id[:8]
		var data []byte
		if jsonl {
			b, _ := json.Marshal(head)
			data = append(b, '\n')
			for _, m := range msgs {
				b, _ := json.Marshal(m)
				data = append(append(data, b...), '\n')
			}
			name += ".jsonl"
			if s%7 == 1 {
				// A sub-agent's chat, in the session's own folder.
				chats = filepath.Join(chats, id)
				name = "codebase_investigator.jsonl"
			}
		} else {
			head["messages"] = msgs
			data, _ = json.MarshalIndent(head, "", "  ")
			name += ".json"
		}
		if err := os.MkdirAll(chats, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(chats, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ccusageGeminiRow is a row of ccusage gemini daily or session.
type ccusageGeminiRow struct {
	ccusageRow
	ModelBreakdowns []struct {
		ModelName           string  `json:"modelName"`
		InputTokens         int64   `json:"inputTokens"`
		OutputTokens        int64   `json:"outputTokens"`
		CacheCreationTokens int64   `json:"cacheCreationTokens"`
		CacheReadTokens     int64   `json:"cacheReadTokens"`
		Cost                float64 `json:"cost"`
	} `json:"modelBreakdowns"`
}

func ccusageGemini(t *testing.T, home string, args ...string) []ccusageGeminiRow {
	t.Helper()
	bin := filepath.Join(testpeers.NPMPackage(t, "@ccusage/ccusage-linux-x64"), "bin", "ccusage")
	if _, err := os.Stat(bin); err != nil {
		bin = testpeers.NPMBin(t, "ccusage")
	}
	cmd := exec.Command(bin, append(args, "--json", "--offline", "--timezone", "UTC")...)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "TZ=UTC", "PATH=" + os.Getenv("PATH")}
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

// TestGeminiAgainstCcusage compares per-day, per-day-and-model and
// per-session totals of Gemini CLI chats with ccusage 20.0.24's on the
// same generated tree: tokens exactly, costs within 0.5%. ccusage's
// outputTokens leave out the reasoning that its totals and costs hold;
// ours include it (Tokens.Reasoning is its part), so output less
// reasoning is compared.
func TestGeminiAgainstCcusage(t *testing.T) {
	home := t.TempDir()
	writeGeminiTree(t, home, 40, 7)
	s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Ingest(context.Background(), store.IngestOptions{GeminiRoots: []string{filepath.Join(home, ".gemini")}, Count: token.O200k().Count})
	if err != nil || len(st.Warnings) > 0 {
		t.Fatal(err, st.Warnings)
	}
	check := func(t *testing.T, key string, gt usage.Tokens, cost *float64, in, out, cr, total int64, want float64) {
		t.Helper()
		if gt.Input != in || gt.Output-gt.Reasoning != out || gt.CacheRead != cr || gt.CacheWrite5m+gt.CacheWrite1h != 0 || (total >= 0 && gt.Total != total) {
			t.Errorf("%s: tokens in %d out %d (%d reasoning) cr %d total %d; ccusage in %d out %d cr %d total %d", key,
				gt.Input, gt.Output, gt.Reasoning, gt.CacheRead, gt.Total, in, out, cr, total)
		}
		if cost == nil || math.Abs(*cost-want) > 0.005*want {
			t.Errorf("%s: cost %v, ccusage %.6f", key, cost, want)
		}
	}
	for _, by := range []string{"day", "session"} {
		t.Run(by, func(t *testing.T) {
			args := []string{"gemini", "daily"}
			if by == "session" {
				args = []string{"gemini", "session"}
			}
			want := ccusageGemini(t, home, args...)
			rep, err := usage.Build(context.Background(), s, usage.Options{By: by, Source: "gemini", Breakdown: true, Location: time.UTC, Now: time.Now()})
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
				check(t, key, g.Tokens, g.Cost, w.InputTokens, w.OutputTokens, w.CacheReadTokens, w.TotalTokens, w.cost())
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
					check(t, key+" "+wm.ModelName, m.Tokens, m.Cost, wm.InputTokens, wm.OutputTokens, wm.CacheReadTokens, -1, wm.Cost)
				}
			}
			sort.Strings(keys)
			t.Logf("%d rows agree: %s", len(keys), strings.Join(keys, " "))
		})
	}
}
