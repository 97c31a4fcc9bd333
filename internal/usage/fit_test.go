package usage_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/usage"
)

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// long is data a terminal draws wide, narrow or not at all, and escapes.
const long = "名前名前名前名前名前 e\u0301\u0301 🚀 /home/dev/src/a-very-long-project-name-that-goes-on/and-on\x1b[2J\u202e" + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

func fitReport(by string) *usage.Report {
	cost, big := 1234.5678, int64(9_876_543_210)
	first := time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)
	toks := usage.Tokens{Input: big, Output: big, CacheWrite5m: big, CacheRead: big, Total: 4 * big, Reasoning: big}
	r := &usage.Report{By: by, Timezone: "Europe/" + long, Source: "all", Project: long, Mode: "auto",
		Prices:   usage.PriceInfo{Updated: "2026-12-01", File: long},
		Totals:   usage.Totals{Requests: 123456, Sessions: 789, Tokens: toks, Cost: &cost, CostPartial: true, UnpricedRequests: 3, ToolCalls: 99999, MCPCalls: 5555, ToolErrors: 12, ResultTokens: big, MCPResultTokens: big},
		Unpriced: []string{long, long},
	}
	p50, p95 := int64(1234), int64(987654)
	for range 3 {
		r.Usage = append(r.Usage, usage.UsageRow{Key: "claude:" + long, Requests: 123456, Tokens: toks, Cost: &cost, CostPartial: true, Project: long, Source: "claude", First: &first, ToolCalls: 99999, ResultTokens: big})
		r.Tools = append(r.Tools, usage.ToolRow{Server: long, Plugin: long, Tool: long, Tools: 99, Calls: 99999, Errors: 999, Sessions: 789, ResultTokens: big, EstimatedTokens: big, AvgResultTokens: 123456.7, MaxResultTokens: big, LatencyP50Ms: &p50, LatencyP95Ms: &p95})
	}
	if by == "week" || by == "month" {
		for i := range r.Usage {
			r.Usage[i].Key = "2026-11-" + long
			r.Usage[i].Breakdown = []usage.ModelRow{{Model: long, Requests: 123456, Tokens: toks, Cost: &cost, CostPartial: true}, {Model: "claude-opus-4-5-20251101", Requests: 1, Tokens: toks}}
		}
	}
	return r
}

// fitBlocks is a blocks report of long and hostile data: a finished
// block, a gap and an active block with a burn rate, a projection and a
// token limit.
func fitBlocks() *usage.BlocksReport {
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	end := start.Add(3 * time.Hour)
	limit := int64(9_876_543_210)
	big := int64(9_876_543_210)
	r := &usage.BlocksReport{GeneratedAt: start.Add(30 * time.Hour), Timezone: "UTC " + long, LengthHours: 5, TokenLimit: &limit, Unpriced: []string{long, long}}
	r.Blocks = []usage.Block{
		{StartTime: start, EndTime: start.Add(5 * time.Hour), ActualEndTime: &end, Entries: 123456, TotalTokens: big, CostUSD: 1234.5678, Unpriced: 3, Models: []string{long, long}, MCPCalls: 99999, MCPResultTokens: big},
		{StartTime: start.Add(5 * time.Hour), EndTime: start.Add(28 * time.Hour), IsGap: true},
		{StartTime: start.Add(28 * time.Hour), EndTime: start.Add(33 * time.Hour), ActualEndTime: &end, IsActive: true, Entries: 123456, TotalTokens: big, CostUSD: 1234.5678, Models: []string{long},
			MCPCalls: 99999, MCPResultTokens: big,
			BurnRate:         &usage.BurnRate{TokensPerMinute: 123456789, TokensPerMinuteForIndicator: 12345678, CostPerHour: 1234.56},
			Projection:       &usage.Projection{TotalTokens: big, TotalCost: 12345.67, RemainingMinutes: 150},
			TokenLimitStatus: &usage.TokenLimitStatus{Limit: limit, ProjectedUsage: big, PercentUsed: 100, Status: "exceeds"}},
	}
	return r
}

// Every line of the usage reports (by week and month with their models,
// --compact too), the blocks (--compact too) and the price table fits
// widths from 40 to 200 columns, on long and hostile data, in colour or
// not.
func TestTextFitsTheWidth(t *testing.T) {
	prices := usage.DefaultPrices().Table([]string{long})
	for width := 40; width <= 200; width++ {
		for _, color := range []bool{false, true} {
			s := render.Screen{Width: width, Color: color}
			outs := map[string]string{}
			for _, by := range []string{"server", "tool", "session", "day", "week", "month", "model", "project"} {
				var b, c strings.Builder
				if err := fitReport(by).WriteText(&b, s); err != nil {
					t.Fatal(err)
				}
				outs["usage --by "+by] = b.String()
				if err := fitReport(by).WriteCompact(&c, s); err != nil {
					t.Fatal(err)
				}
				outs["usage --compact --by "+by] = c.String()
			}
			for _, compact := range []bool{false, true} {
				var b strings.Builder
				write := fitBlocks().WriteText
				if compact {
					write = fitBlocks().WriteCompact
				}
				if err := write(&b, s); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(b.String(), "Projected by its end") {
					t.Errorf("blocks at %d columns: no projection:\n%s", width, b.String())
				}
				outs[fmt.Sprintf("blocks (compact %v)", compact)] = b.String()
			}
			var b strings.Builder
			if err := prices.WriteText(&b, s); err != nil {
				t.Fatal(err)
			}
			outs["prices"] = b.String()
			for what, out := range outs {
				if !strings.Contains(out, "TOTAL") && strings.HasPrefix(what, "usage") && !strings.HasSuffix(what, "server") && !strings.HasSuffix(what, "tool") {
					t.Errorf("%s: no TOTAL row", what)
				}
				for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if w := render.Width(sgr.ReplaceAllString(l, "")); w > width {
						t.Fatalf("%s at %d columns: line %d is %d wide: %q", what, width, i+1, w, l)
					}
				}
			}
		}
	}
}

// TestPricesKeepModelNames checks that the price table at a usual
// terminal width shows every model's name whole (the table's key): the
// other columns give way first.
func TestPricesKeepModelNames(t *testing.T) {
	table := usage.DefaultPrices().Table(nil)
	for _, width := range []int{80, 100, 120} {
		var b strings.Builder
		if err := table.WriteText(&b, render.Screen{Width: width}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		for _, m := range table.Models {
			name := m.Model
			if m.Key != m.Model {
				name += " (" + m.Key + ")"
			}
			found := false
			for _, l := range lines {
				if strings.HasPrefix(l, name+" ") {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("at %d columns: no row starts with %q:\n%s", width, name, b.String())
				break
			}
		}
	}
}
