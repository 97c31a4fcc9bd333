package usage_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// ccusageBlock is one block of "ccusage blocks --json".
type ccusageBlock struct {
	ID            string  `json:"id"`
	StartTime     string  `json:"startTime"`
	EndTime       string  `json:"endTime"`
	ActualEndTime *string `json:"actualEndTime"`
	IsActive      bool    `json:"isActive"`
	IsGap         bool    `json:"isGap"`
	Entries       int     `json:"entries"`
	TokenCounts   struct {
		InputTokens              int64 `json:"inputTokens"`
		OutputTokens             int64 `json:"outputTokens"`
		CacheCreationInputTokens int64 `json:"cacheCreationInputTokens"`
		CacheReadInputTokens     int64 `json:"cacheReadInputTokens"`
	} `json:"tokenCounts"`
	TotalTokens         int64                   `json:"totalTokens"`
	CostUSD             float64                 `json:"costUSD"`
	Models              []string                `json:"models"`
	BurnRate            *usage.BurnRate         `json:"burnRate"`
	Projection          *usage.Projection       `json:"projection"`
	TokenLimitStatus    *usage.TokenLimitStatus `json:"tokenLimitStatus"`
	UsageLimitResetTime *string                 `json:"usageLimitResetTime"`
}

// blocksTree writes two days of Claude Code sessions ending some hours
// ago (with the shapes readers get wrong: gateways, resumed sessions,
// older sub-agent files, API-error placeholders) and two sessions of the
// last three hours, so that one block is active.
func blocksTree(t *testing.T, now time.Time) (st *store.Store, home, dbPath string) {
	t.Helper()
	home = t.TempDir()
	o := transcripttest.Small()
	o.Sessions, o.Codex, o.Days, o.Quirks = 10, 2, 2, true
	o.Start = now.Add(-52 * time.Hour)
	if _, err := transcripttest.Generate(home, o); err != nil {
		t.Fatal(err)
	}
	o.Sessions, o.Codex, o.Quirks, o.Seed = 2, 0, false, 9
	o.Start, o.Span = now.Add(-3*time.Hour), 80*time.Minute
	if _, err := transcripttest.Generate(home, o); err != nil {
		t.Fatal(err)
	}
	dbPath = filepath.Join(t.TempDir(), "usage.db")
	s, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ingest := func() {
		t.Helper()
		if _, err := s.Ingest(context.Background(), store.IngestOptions{
			ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
			CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
			Count:       token.O200k().Count,
		}); err != nil {
			t.Fatal(err)
		}
	}
	ingest()
	limitLines(t, s, home, now)
	ingest()
	return s, home, dbPath
}

// limitLines writes, into a session of its own, Claude Code's placeholders
// for requests refused at the usage limit ("Claude AI usage limit
// reached|<epoch>"), between the first two requests of blocks of the
// tree: in the oldest, two that mark it (the first in time, written
// second, names the later reset); in the next, shapes that mark nothing
// (no isApiErrorMessage, "|0", letters after the "|", a phrase whose
// digits come after a second one); in the third, a content that is one
// string and one whose digits are in the next block; in the active block,
// a reset two hours from now.
func limitLines(t *testing.T, s *store.Store, home string, now time.Time) {
	t.Helper()
	rep, err := usage.Blocks(context.Background(), s, usage.BlocksOptions{Now: now, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	var times []int64
	for x, err := range s.Requests(context.Background(), store.Filter{Source: "claude", Order: store.ByIdentity}) {
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, x.TS)
	}
	slices.Sort(times)
	// Where a placeholder goes in each block: a second after its first
	// request, when the next comes 20 seconds later or more.
	var at []time.Time
	var active time.Time
	for _, b := range rep.Blocks {
		var in []int64
		for _, ts := range times {
			if !b.IsGap && ts >= b.StartTime.UnixMilli() && ts < b.EndTime.UnixMilli() && (len(in) == 0 || ts != in[len(in)-1]) {
				in = append(in, ts)
			}
		}
		if len(in) < 2 || in[1]-in[0] < 20_000 {
			continue
		}
		if b.IsActive {
			active = time.UnixMilli(in[0] + 1000)
		} else {
			at = append(at, time.UnixMilli(in[0]+1000))
		}
	}
	if len(at) < 3 || active.IsZero() {
		t.Fatalf("%d finished blocks and no active one (%v) to mark", len(at), active)
	}
	var b strings.Builder
	n := 0
	line := func(ts time.Time, flag, content string) {
		n++
		fmt.Fprintf(&b, `{"type":"assistant","cwd":"/home/u/limits","sessionId":"usage-limits","version":"2.1.97","timestamp":%q%s,`+
			`"message":{"id":"limit-%d","model":"<synthetic>","role":"assistant","content":%s,`+
			`"usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"uuid":"l%d"}`+"\n",
			ts.UTC().Format("2006-01-02T15:04:05.000Z"), flag, n, content, n)
	}
	api := `,"isApiErrorMessage":true`
	text := func(s string) string { return `[{"type":"text","text":"` + s + `"}]` }
	reset := func(ts time.Time, h int) int64 { return ts.Add(time.Duration(h) * time.Hour).Unix() }
	line(at[0].Add(2*time.Second), api, text(fmt.Sprintf("Claude AI usage limit reached|%d", reset(at[0], 1))))
	line(at[0], api, text(fmt.Sprintf("Claude AI usage limit reached|%d", reset(at[0], 3))))
	line(at[1], "", text(fmt.Sprintf("Claude AI usage limit reached|%d", reset(at[1], 3))))
	line(at[1].Add(time.Second), api, text("Claude AI usage limit reached|0"))
	line(at[1].Add(2*time.Second), api, text(fmt.Sprintf("Claude AI usage limit reached|abc|%d", reset(at[1], 3))))
	line(at[1].Add(3*time.Second), api, fmt.Sprintf(`[{"type":"text","text":"Claude AI usage limit reached|soon"},{"type":"text","text":"Claude AI usage limit reached|%d"}]`, reset(at[1], 3)))
	line(at[2], api, fmt.Sprintf(`"Claude AI usage limit reached|%d"`, reset(at[2], 4)))
	line(at[2].Add(time.Second), api, fmt.Sprintf(`[{"type":"text","text":"Claude AI usage limit reached"},{"type":"text","text":"|%d"}]`, reset(at[2], 5)))
	line(active, api, text(fmt.Sprintf("Claude AI usage limit reached|%d", now.Add(2*time.Hour).Unix())))
	dir := filepath.Join(home, ".claude", "projects", "-home-u-limits")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "usage-limits.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// collapsedRequests are the requests that ccusage's blocks report (as its
// session report) leaves out and its daily report and mcpcost count: those
// a gateway recorded without a request id under a message id already seen
// in the same session, all but the largest.
func collapsedRequests(t *testing.T, dbPath string) []usage.Tokens {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+filepath.ToSlash(dbPath))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT ts, input, output, cache_write_5m + cache_write_1h, cache_read FROM (
		SELECT ts, input, output, cache_write_5m, cache_write_1h, cache_read, row_number() OVER (
			PARTITION BY source, dedup_session, message_id ORDER BY input + output + cache_write_5m + cache_write_1h + cache_read DESC, ts, id) AS n
		FROM requests WHERE source = 'claude' AND message_id <> '' AND request_id = '') WHERE n > 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []usage.Tokens
	for rows.Next() {
		var ts int64
		var c usage.Tokens
		if err := rows.Scan(&ts, &c.Input, &c.Output, &c.CacheWrite5m, &c.CacheRead); err != nil {
			t.Fatal(err)
		}
		c.Total = c.Input + c.Output + c.CacheWrite5m + c.CacheRead
		c.Reasoning = ts // the time, to find its block
		out = append(out, c)
	}
	return out
}

// TestAgainstCcusageBlocks compares the billing blocks with "ccusage
// blocks --json" (20.0.24) on the same tree: the same blocks and gaps in
// the same order, each with its times, requests, tokens exactly, models
// in the order they first appear, cost within 0.5%; for the active block,
// the burn rate, the projection (to the minute the two clocks can differ
// by) and the token limit's status, for a number and for max; and the
// selections --active, --recent, --since and --order desc.
func TestAgainstCcusageBlocks(t *testing.T) {
	// The tree is laid out from the hour, not the second: blocks start at
	// the hour of their first request, so the blocks (and which of them
	// part a gateway's copies, left out below) are the same whenever the
	// test runs; the clock both reports read is the real one.
	now := time.Now().Truncate(time.Hour)
	s, home, dbPath := blocksTree(t, now)
	collapsed := collapsedRequests(t, dbPath)
	placeholders := syntheticLines(t, home)
	if len(placeholders) == 0 {
		t.Fatal("the tree has no API-error placeholder")
	}
	if len(collapsed) == 0 {
		t.Fatal("no gateway requests share a message id within a session")
	}
	var all []ccusageBlock
	if err := json.Unmarshal(ccusageJSON(t, home, "UTC", "blocks")["blocks"], &all); err != nil {
		t.Fatal(err)
	}
	var active *ccusageBlock
	for i := range all {
		if all[i].IsActive {
			active = &all[i]
		}
	}
	if active == nil || active.Projection == nil || len(all) < 6 || !slices.ContainsFunc(all, func(b ccusageBlock) bool { return b.IsGap }) {
		t.Fatalf("the tree has no active block, no gap or few blocks: %d blocks", len(all))
	}
	if marked := len(slices.DeleteFunc(slices.Clone(all), func(b ccusageBlock) bool { return b.UsageLimitResetTime == nil })); marked != 3 || active.UsageLimitResetTime == nil {
		t.Fatalf("ccusage marks %d blocks with a usage limit's reset, want 3 (the active one among them)", marked)
	}
	// A limit that the projection comes within 80% to 100% of: a warning.
	warn := strconv.FormatInt(int64(float64(active.Projection.TotalTokens)/0.9), 10)
	since := now.AddDate(0, 0, -1).UTC()
	for _, tc := range []struct {
		name string
		o    usage.BlocksOptions
		args []string
	}{
		{"all", usage.BlocksOptions{}, nil},
		{"token-limit-max", usage.BlocksOptions{TokenLimitMax: true}, []string{"--token-limit", "max"}},
		{"token-limit-ok", usage.BlocksOptions{TokenLimit: 1 << 40}, []string{"--token-limit", strconv.FormatInt(1<<40, 10)}},
		{"token-limit-warning", usage.BlocksOptions{TokenLimit: mustInt(t, warn)}, []string{"--token-limit", warn}},
		{"token-limit-exceeds", usage.BlocksOptions{TokenLimit: 1000}, []string{"--token-limit", "1000"}},
		{"active", usage.BlocksOptions{Active: true}, []string{"--active"}},
		{"recent-desc", usage.BlocksOptions{Recent: true, Order: "desc"}, []string{"--recent", "--order", "desc"}},
		{"since", usage.BlocksOptions{Since: time.Date(since.Year(), since.Month(), since.Day(), 0, 0, 0, 0, time.UTC)}, []string{"--since", since.Format("20060102")}},
		{"calculate", usage.BlocksOptions{Mode: "calculate"}, []string{"--mode", "calculate"}},
		{"session-length-2.5", usage.BlocksOptions{Length: 150 * time.Minute, TokenLimitMax: true}, []string{"--session-length", "2.5", "--token-limit", "max"}},
		{"session-length-1", usage.BlocksOptions{Length: time.Hour}, []string{"--session-length", "1"}},
		{"session-length-7", usage.BlocksOptions{Length: 7 * time.Hour, Recent: true}, []string{"--session-length", "7", "--recent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []ccusageBlock
			asked := time.Now()
			if err := json.Unmarshal(ccusageJSON(t, home, "UTC", append([]string{"blocks"}, tc.args...)...)["blocks"], &want); err != nil {
				t.Fatal(err)
			}
			o := tc.o
			o.Now, o.Location = time.Now(), time.UTC
			// ccusage read its clock somewhere between asked and o.Now:
			// the minutes the two clocks can differ by, one more for the
			// rounding to whole minutes (a loaded machine can take more
			// than a minute to run ccusage).
			skew := math.Ceil(o.Now.Sub(asked).Minutes()) + 1
			rep, err := usage.Blocks(context.Background(), s, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Blocks) != len(want) || len(want) == 0 {
				t.Fatalf("%d blocks, ccusage has %d", len(rep.Blocks), len(want))
			}
			skipped := 0
			defer func() {
				if 2*skipped > len(want) {
					t.Errorf("%d of %d blocks left out", skipped, len(want))
				}
			}()
			for i, w := range want {
				g := rep.Blocks[i]
				js, _ := json.Marshal(g)
				var gc ccusageBlock
				if err := json.Unmarshal(js, &gc); err != nil {
					t.Fatal(err)
				}
				// Less what ccusage leaves out.
				less := false
				for _, c := range collapsed {
					if !g.IsGap && c.Reasoning >= g.StartTime.UnixMilli() && c.Reasoning < g.EndTime.UnixMilli() {
						gc.Entries--
						gc.TokenCounts.InputTokens -= c.Input
						gc.TokenCounts.OutputTokens -= c.Output
						gc.TokenCounts.CacheCreationInputTokens -= c.CacheWrite5m
						gc.TokenCounts.CacheReadInputTokens -= c.CacheRead
						gc.TotalTokens -= c.Total
						less = true
					}
				}
				if less && tc.o.Length != 0 {
					// Blocks shorter or longer than five hours can part a
					// gateway's copies of one message: which copy
					// ccusage then keeps is not the rule above. Such a
					// block is left out of these cases.
					skipped++
					continue
				}
				if less {
					gc.CostUSD, gc.Models = w.CostUSD, w.Models // checked by the daily report's test
				}
				// Plus what ccusage counts and mcpcost does not: Claude
				// Code's placeholders for an API error, no request, no
				// tokens, in the block; one after the block's last
				// request moves ccusage's actual end to it.
				for _, p := range placeholders {
					if !g.IsGap && !p.Before(g.StartTime) && p.Before(g.EndTime) {
						gc.Entries++
						if p.After(*g.ActualEndTime) {
							end := p.UTC().Format("2006-01-02T15:04:05.000Z")
							if gc.ActualEndTime == nil || end > *gc.ActualEndTime {
								gc.ActualEndTime = &end
							}
						}
					}
				}
				if gc.ID != w.ID || gc.StartTime != w.StartTime || gc.EndTime != w.EndTime || !equalPtr(gc.ActualEndTime, w.ActualEndTime) ||
					gc.IsActive != w.IsActive || gc.IsGap != w.IsGap || gc.Entries != w.Entries || gc.TokenCounts != w.TokenCounts ||
					gc.TotalTokens != w.TotalTokens || !slices.Equal(gc.Models, w.Models) || !equalPtr(gc.UsageLimitResetTime, w.UsageLimitResetTime) {
					t.Errorf("block %d:\n got %s\nwant %+v (actual end %v)", i, js, w, *w.ActualEndTime)
					continue
				}
				if math.Abs(gc.CostUSD-w.CostUSD) > 0.005*w.CostUSD {
					t.Errorf("%s: cost %f, ccusage %f", w.ID, gc.CostUSD, w.CostUSD)
				}
				if (gc.BurnRate == nil) != (w.BurnRate == nil) || (gc.Projection == nil) != (w.Projection == nil) ||
					(gc.TokenLimitStatus == nil) != (w.TokenLimitStatus == nil) {
					t.Errorf("%s: burn rate, projection, limit %v %v %v; ccusage %v %v %v", w.ID, gc.BurnRate, gc.Projection, gc.TokenLimitStatus,
						w.BurnRate, w.Projection, w.TokenLimitStatus)
					continue
				}
				if w.BurnRate != nil {
					gb, wb := gc.BurnRate, w.BurnRate
					if !near(gb.TokensPerMinute, wb.TokensPerMinute, 1e-9) || !near(gb.TokensPerMinuteForIndicator, wb.TokensPerMinuteForIndicator, 1e-9) ||
						!near(gb.CostPerHour, wb.CostPerHour, 0.005) {
						t.Errorf("%s: burn rate %+v, ccusage %+v", w.ID, *gb, *wb)
					}
				}
				if w.Projection != nil {
					gp, wp := gc.Projection, w.Projection
					// The two clocks are read skew minutes apart at most.
					if d := float64(gp.RemainingMinutes - wp.RemainingMinutes); math.Abs(d) > skew ||
						math.Abs(float64(gp.TotalTokens-wp.TotalTokens)) > skew*w.BurnRate.TokensPerMinute+1 ||
						math.Abs(gp.TotalCost-wp.TotalCost) > 0.01+0.005*wp.TotalCost+skew*w.BurnRate.CostPerHour/60 {
						t.Errorf("%s: projection %+v, ccusage %+v", w.ID, *gp, *wp)
					}
				}
				if w.TokenLimitStatus != nil {
					gs, ws := gc.TokenLimitStatus, w.TokenLimitStatus
					// A projection within the clocks' skew of the limit, or
					// of its warning threshold, may fall on either side.
					tol := skew*w.BurnRate.TokensPerMinute + 1
					atEdge := func(at float64) bool {
						return math.Abs(float64(gs.ProjectedUsage)-at) <= tol || math.Abs(float64(ws.ProjectedUsage)-at) <= tol
					}
					sameStatus := gs.Status == ws.Status || atEdge(float64(ws.Limit)) || atEdge(float64(ws.Limit)*usage.BlockWarning)
					if gs.Limit != ws.Limit || !sameStatus || math.Abs(gs.PercentUsed-ws.PercentUsed) > 100*tol/float64(ws.Limit) {
						t.Errorf("%s: limit %+v, ccusage %+v", w.ID, *gs, *ws)
					}
				}
			}
		})
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// syntheticLines are the times of Claude Code's placeholders for an API
// error (model <synthetic>) in home's transcripts.
func syntheticLines(t *testing.T, home string) []time.Time {
	t.Helper()
	var out []time.Time
	filepath.WalkDir(filepath.Join(home, ".claude"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var l struct {
				Timestamp time.Time `json:"timestamp"`
				Message   struct {
					Model string `json:"model"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Message.Model == "<synthetic>" {
				out = append(out, l.Timestamp)
			}
		}
		return nil
	})
	return out
}

func equalPtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b)+1e-12 }
