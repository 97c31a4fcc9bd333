package usage

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// hm is d to the minute as hours and minutes: "4h 05m", "35m".
func hm(d time.Duration) string {
	m := int64(d.Round(time.Minute) / time.Minute)
	if m < 60 {
		return strconv.FormatInt(m, 10) + "m"
	}
	return fmt.Sprintf("%dh %02dm", m/60, m%60)
}

// Active is the report's active block, nil when none is.
func (r *BlocksReport) Active() *Block {
	for i := range r.Blocks {
		if r.Blocks[i].IsActive {
			return &r.Blocks[i]
		}
	}
	return nil
}

// WriteText prints the blocks as a table, times in the report's zone,
// then the active block's burn rate and projection.
func (r *BlocksReport) WriteText(w io.Writer) error { return r.write(w, false) }

// WriteCompact prints the blocks for a narrow terminal: start, status,
// tokens and cost.
func (r *BlocksReport) WriteCompact(w io.Writer) error { return r.write(w, true) }

func (r *BlocksReport) write(w io.Writer, compact bool) error {
	loc := r.loc
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Claude Code's usage in billing blocks of %s (%s)\n\n", hm(time.Duration(r.LengthHours*float64(time.Hour))), r.Timezone)
	R, L := render.Right, render.Left
	t := render.Table{Header: []string{"BLOCK START", "STATUS", "MODELS", "REQUESTS", "TOKENS"}, Align: []render.Align{L, L, L, R, R}}
	if r.TokenLimit != nil {
		t.Header = append(t.Header, "% OF LIMIT")
		t.Align = append(t.Align, R)
	}
	t.Header = append(t.Header, "COST", "MCP CALLS", "MCP RESULT TOKENS")
	t.Align = append(t.Align, R, R, R)
	for _, x := range r.Blocks {
		start := x.StartTime.In(loc).Format("2006-01-02 15:04")
		if x.IsGap {
			row := []string{start, "gap of " + hm(x.EndTime.Sub(x.StartTime).Round(time.Minute)), "", "", ""}
			if r.TokenLimit != nil {
				row = append(row, "")
			}
			t.Add(append(row, "", "", "")...)
			continue
		}
		status := hm(x.ActualEndTime.Sub(x.StartTime).Round(time.Minute))
		if x.IsActive {
			status = "ACTIVE, " + hm(max(0, x.EndTime.Sub(r.GeneratedAt)).Round(time.Minute)) + " left"
		}
		row := []string{start, status, strings.Join(x.Models, ", "), num.Int(x.Entries), num.Int(x.TotalTokens)}
		if r.TokenLimit != nil {
			row = append(row, render.Percent(float64(x.TotalTokens)/float64(*r.TokenLimit)))
		}
		c := cost(&x.CostUSD, x.Unpriced > 0)
		if x.Unpriced > 0 && x.Unpriced == x.Entries {
			c = "unpriced"
		}
		t.Add(append(row, c, num.Int(x.MCPCalls), num.Int(x.MCPResultTokens))...)
	}
	if compact {
		keep := []int{0, 1, 4, len(t.Header) - 3}
		var k render.Table
		for _, i := range keep {
			k.Header, k.Align = append(k.Header, t.Header[i]), append(k.Align, t.Align[i])
		}
		for _, row := range t.Rows {
			var kr []string
			for _, i := range keep {
				kr = append(kr, row[i])
			}
			k.Rows = append(k.Rows, kr)
		}
		t = k
	}
	switch {
	case len(t.Rows) == 0 && r.ActiveOnly:
		b.WriteString("No active block: no block holds a request of the last " + hm(time.Duration(r.LengthHours*float64(time.Hour))) + ".\n")
	case len(t.Rows) == 0:
		b.WriteString("No blocks in this period.\n")
	default:
		if err := t.Write(&b); err != nil {
			return err
		}
	}
	if a := r.Active(); a != nil {
		b.WriteString("\n")
		for _, l := range r.activeLines(a, loc) {
			b.WriteString(l + "\n")
		}
	}
	if len(r.Unpriced) > 0 {
		b.WriteString("\n* unpriced models (tokens counted, cost not; a cost marked * is partial): " + strings.Join(r.Unpriced, ", ") + "\n")
	}
	_, err := io.WriteString(w, textsafe.Lines(b.String()))
	return err
}

// activeLines say what the active block used, how fast, and where it ends.
func (r *BlocksReport) activeLines(a *Block, loc *time.Location) []string {
	left := max(0, a.EndTime.Sub(r.GeneratedAt)).Round(time.Minute)
	lines := []string{fmt.Sprintf("Active block: from %s to %s (%s left): %s tokens in %s, %s; %s MCP calls, their results %s tokens",
		a.StartTime.In(loc).Format("15:04"), a.EndTime.In(loc).Format("15:04"), hm(left), num.Int(a.TotalTokens),
		num.Count(a.Entries, "request"), cost(&a.CostUSD, a.Unpriced > 0), num.Int(a.MCPCalls), num.Int(a.MCPResultTokens))}
	if br := a.BurnRate; br != nil {
		lines = append(lines, fmt.Sprintf("Burn rate: %s tokens a minute (%s input and output), %s an hour",
			num.Int(int64(br.TokensPerMinute+0.5)), num.Int(int64(br.TokensPerMinuteForIndicator+0.5)), "$"+strconv.FormatFloat(br.CostPerHour, 'f', 2, 64)))
	}
	if p := a.Projection; p != nil {
		l := fmt.Sprintf("Projected by its end: %s tokens, $%.2f", num.Int(p.TotalTokens), p.TotalCost)
		if s := a.TokenLimitStatus; s != nil {
			l += fmt.Sprintf(", %s of the limit of %s tokens (%s)", render.Percent(s.PercentUsed/100), num.Int(s.Limit), s.Status)
		}
		lines = append(lines, l)
	}
	return lines
}
