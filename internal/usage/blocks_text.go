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

// WriteText prints the blocks as a table fitted to the screen, times in
// the report's zone, then the active block's burn rate and projection.
func (r *BlocksReport) WriteText(w io.Writer, s render.Screen) error { return r.write(w, s, false) }

// WriteCompact prints the blocks for a narrow terminal: start, status,
// tokens and cost.
func (r *BlocksReport) WriteCompact(w io.Writer, s render.Screen) error { return r.write(w, s, true) }

// String is the text of the blocks as WriteText prints it, colour marks
// and all, for a screen redrawn in place.
func (r *BlocksReport) String(s render.Screen) string { return r.text(s, false) }

func (r *BlocksReport) write(w io.Writer, s render.Screen, compact bool) error {
	return s.Emit(w, r.text(s, compact))
}

func (r *BlocksReport) text(s render.Screen, compact bool) string {
	loc := r.loc
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Claude Code's usage in billing blocks of %s (%s)\n\n", hm(time.Duration(r.LengthHours*float64(time.Hour))), r.Timezone)
	R, L := render.Right, render.Left
	// Left out first on a narrow terminal, and all of them with
	// --compact: the MCP result tokens, the requests, the models, the MCP
	// calls; then the share of the limit. Never the start, the status,
	// the tokens or the cost; the models are cut first.
	t := render.Table{Header: []string{"BLOCK START", "STATUS", "MODELS", "REQUESTS", "TOKENS"}, Align: []render.Align{L, L, L, R, R},
		Drop: []int{0, 0, 3, 4, 0}, Min: []int{0, 0, 12}}
	if r.TokenLimit != nil {
		t.Header = append(t.Header, "% OF LIMIT")
		t.Align = append(t.Align, R)
		t.Drop = append(t.Drop, 1)
	}
	t.Header = append(t.Header, "COST", "MCP CALLS", "MCP RESULT TOKENS")
	t.Align = append(t.Align, R, R, R)
	t.Drop = append(t.Drop, 0, 2, 5)
	t.Fit(s)
	if compact {
		t.Compact = 1
	}
	t.Tint = func(_, _ int, cell string) render.Tint {
		switch {
		case strings.HasPrefix(cell, "ACTIVE"):
			return render.Good
		case cell == "unpriced" || strings.HasSuffix(cell, "*"):
			return render.Warn
		}
		return render.Plain
	}
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
		// A finished block: done, and how long from its first request to its
		// last.
		status := "done, " + hm(x.ActualEndTime.Sub(x.StartTime).Round(time.Minute))
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
	switch {
	case len(t.Rows) == 0 && r.ActiveOnly:
		b.WriteString("No active block: no block holds a request of the last " + hm(time.Duration(r.LengthHours*float64(time.Hour))) + ".\n")
	case len(t.Rows) == 0:
		b.WriteString("No blocks in this period.\n")
	default:
		b.WriteString(t.String())
	}
	if a := r.Active(); a != nil {
		b.WriteString("\n")
		for _, l := range r.activeLines(a, loc) {
			for _, line := range render.Wrap("", textsafe.Text(l), "  ", s.Width) {
				b.WriteString(line + "\n")
			}
		}
	}
	if r.TokensCapped {
		b.WriteString("\n")
		for _, line := range render.Wrap("", CappedNote, "  ", s.Width) {
			b.WriteString(line + "\n")
		}
	}
	if len(r.Unpriced) > 0 {
		b.WriteString("\n")
		note := "* unpriced models (tokens counted, cost not; a cost marked * is partial): " + nameList(r.Unpriced)
		for _, line := range render.Wrap("", textsafe.Text(note), "  ", s.Width) {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// activeLines say what the active block used, how fast, and where it ends.
func (r *BlocksReport) activeLines(a *Block, loc *time.Location) []string {
	left := max(0, a.EndTime.Sub(r.GeneratedAt)).Round(time.Minute)
	lines := []string{fmt.Sprintf("Active block: from %s to %s (%s left): %s tokens in %s, %s; %s MCP calls, their results %s tokens",
		a.StartTime.In(loc).Format("15:04"), a.EndTime.In(loc).Format("15:04"), hm(left), num.Int(a.TotalTokens),
		num.Count(a.Entries, "request"), cost(&a.CostUSD, a.Unpriced > 0), num.Int(a.MCPCalls), num.Int(a.MCPResultTokens))}
	if br := a.BurnRate; br != nil {
		lines = append(lines, fmt.Sprintf("Burn rate: %s tokens a minute (%s input and output), %s an hour",
			num.Int(RoundTokens(br.TokensPerMinute)), num.Int(RoundTokens(br.TokensPerMinuteForIndicator)), "$"+strconv.FormatFloat(br.CostPerHour, 'f', 2, 64)))
	}
	if p := a.Projection; p != nil {
		l := fmt.Sprintf("Projected by its end: %s tokens, $%.2f", num.Int(p.TotalTokens), p.TotalCost)
		if s := a.TokenLimitStatus; s != nil {
			l += fmt.Sprintf(", %s of the limit of %s tokens (%s)", render.Percent(s.PercentUsed/100), num.Int(s.Limit), s.Status)
		}
		lines = append(lines, l)
	}
	if t := a.UsageLimitResetTime; t != nil {
		lines = append(lines, "Usage limit reached: it resets at "+t.In(loc).Format("2006-01-02 15:04"))
	}
	return lines
}
