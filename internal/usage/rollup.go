package usage

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
)

// errNoRollup means a rollup straddles two of the report's days (a time
// zone whose offset is not a whole number of quarter hours): the report
// is read from the rows themselves.
var errNoRollup = errors.New("a rollup straddles two days")

// rolledUp reports whether the store's rollups can answer the report's
// requests and tool call totals exactly: its period is bounded at
// quarter hours, the prices' long-context thresholds are the rollups'
// bands, and no row needs a sub-agent file's own first and last request.
// (rollupDay checks each rollup's day as it is read.) The rollups keep
// no machine or user: a report by machine or user, or keeping one, reads
// the rows.
func rolledUp(o Options) bool {
	if o.rows || o.Machine != "" || o.User != "" || o.By == "machine" || o.By == "user" {
		return false
	}
	b := store.RollupBucket.Milliseconds()
	for _, t := range []time.Time{o.Since, o.Until} {
		if !t.IsZero() && t.UnixMilli()%b != 0 {
			return false
		}
	}
	return o.Prices.bandsExact() && !(o.SplitAgents && o.By == "session")
}

// rollupDay reports whether a rollup's quarter hour, from bucket, falls
// in one day of the report: always, but in a time zone whose offset is
// not a whole number of quarter hours.
func rollupDay(o Options, bucket int64) bool {
	if o.By != "day" && o.By != "week" && o.By != "month" {
		return true // weeks and months start at midnight too
	}
	first := time.UnixMilli(bucket).In(o.Location)
	last := time.UnixMilli(bucket + store.RollupBucket.Milliseconds() - 1).In(o.Location)
	return first.YearDay() == last.YearDay() && first.Year() == last.Year()
}

// requestSums adds the request rollups of the report's period to a.
func requestSums(ctx context.Context, st *store.Store, o Options, a *usageAcc) error {
	f := filter(o, store.AsStored)
	// Only a report by project or session reads the sums' projects and
	// sub-agent files.
	f.NoProject = o.By != "project" && o.By != "session"
	for x, err := range st.RequestSums(ctx, f) {
		if err != nil {
			return err
		}
		if !rollupDay(o, x.Bucket) {
			return errNoRollup
		}
		a.add(requests{src: x.Source, sess: x.Session, model: x.Model, project: x.Project, speed: x.Speed, ts: x.Bucket,
			n: x.Requests, nonzero: x.Nonzero, recorded: x.Recorded, recordedUSD: x.CostUSD, band: x.Band,
			t: Tokens{Input: x.Input, Output: x.Output, CacheWrite5m: x.CacheWrite5m, CacheWrite1h: x.CacheWrite1h,
				CacheRead: x.CacheRead, Reasoning: x.Reasoning}})
	}
	return nil
}

// toolSums is toolTotals from the tool call rollups; it adds nothing to r
// when it returns an error.
func toolSums(ctx context.Context, st *store.Store, o Options, r *Report) error {
	if o.Project == "" && (o.By == "model" || slices.Contains(Periods, o.By)) {
		err := toolDaySums(ctx, st, o, r)
		if !errors.Is(err, errNoRollup) && !errors.Is(err, store.ErrNoRollup) {
			return err
		}
	}
	a := newToolAcc(r)
	for x, err := range st.ToolSums(ctx, filter(o, store.AsStored)) {
		if err != nil {
			return err
		}
		if !rollupDay(o, x.Bucket) {
			return errNoRollup
		}
		a.add(x.Calls, x.Errors, x.ResultTokens, x.MCP, o.By != "model", groupKey(o, x.Source, x.Session, "", x.Project, "", "", x.Bucket))
	}
	a.apply(r)
	return nil
}

// toolAcc sums tool call rollups into a report's totals and rows, which
// apply changes only once the whole read has succeeded.
type toolAcc struct {
	idx  map[string]int // the rows by key
	tot  Totals
	adds []toolAdd
}

type toolAdd struct {
	i      int
	calls  int
	tokens int64
}

func newToolAcc(r *Report) *toolAcc {
	idx := make(map[string]int, len(r.Usage))
	for i, u := range r.Usage {
		idx[u.Key] = i
	}
	return &toolAcc{idx: idx}
}

// add counts a rollup in the totals and, when row, in the row of key
// (none when the period has no requests in it).
func (a *toolAcc) add(calls, errs int, tokens int64, mcp, row bool, key string) {
	a.tot.ToolCalls += calls
	a.tot.ResultTokens = addTokens(a.tot.ResultTokens, tokens)
	if mcp {
		a.tot.MCPCalls += calls
		a.tot.MCPResultTokens = addTokens(a.tot.MCPResultTokens, tokens)
	}
	a.tot.ToolErrors += errs
	if !row {
		return
	}
	if i, ok := a.idx[key]; ok {
		a.adds = append(a.adds, toolAdd{i, calls, tokens})
	}
}

// apply adds what was summed to r.
func (a *toolAcc) apply(r *Report) {
	r.Totals.ToolCalls += a.tot.ToolCalls
	r.Totals.ResultTokens = addTokens(r.Totals.ResultTokens, a.tot.ResultTokens)
	r.Totals.MCPCalls += a.tot.MCPCalls
	r.Totals.MCPResultTokens = addTokens(r.Totals.MCPResultTokens, a.tot.MCPResultTokens)
	r.Totals.ToolErrors += a.tot.ToolErrors
	for _, x := range a.adds {
		r.Usage[x.i].ToolCalls += x.calls
		r.Usage[x.i].ResultTokens = addTokens(r.Usage[x.i].ResultTokens, x.tokens)
	}
}

// toolDaySums is toolSums by day, week, month or model, from the rollups
// summed by day in the store (by model, as one), which reads a few rows
// instead of one per quarter hour and session; errNoRollup where a
// quarter hour may straddle two days. It adds nothing to r when it
// returns an error.
func toolDaySums(ctx context.Context, st *store.Store, o Options, r *Report) error {
	var spans []store.ZoneSpan
	if o.By != "model" {
		first, last, ok, err := st.ToolRollupSpan(ctx)
		if err != nil {
			return err
		}
		if !ok {
			// None: no calls, or rollups that wait to be filled in, which
			// ToolSums tells apart.
			return errNoRollup
		}
		if spans, ok = zoneSpans(o.Location, first, last); !ok {
			return errNoRollup
		}
	}
	a := newToolAcc(r)
	for x, err := range st.ToolDaySums(ctx, filter(o, store.AsStored), spans) {
		if err != nil {
			return err
		}
		a.add(x.Calls, x.Errors, x.ResultTokens, x.MCP, o.By != "model", groupKey(o, "", "", "", "", "", "", x.Bucket))
	}
	a.apply(r)
	return nil
}

// zoneSpans returns the offsets of loc from the quarter hour first to
// the end of the quarter hour last, and false where a quarter hour in
// between may straddle two days: an offset, or a change of offset, that
// is not at a quarter hour.
func zoneSpans(loc *time.Location, first, last int64) ([]store.ZoneSpan, bool) {
	q := store.RollupBucket.Milliseconds()
	end := last + q
	t := time.UnixMilli(first).In(loc)
	var spans []store.ZoneSpan
	for {
		_, off := t.Zone()
		z := store.ZoneSpan{From: t.UnixMilli(), Offset: int64(off) * 1000}
		if (len(spans) > 0 && z.From%q != 0) || z.Offset%q != 0 || len(spans) == maxZoneSpans {
			return nil, false
		}
		spans = append(spans, z)
		_, next := t.ZoneBounds()
		if next.IsZero() || next.UnixMilli() >= end {
			return spans, true
		}
		t = next
	}
}

// maxZoneSpans bounds the offsets a query by day is given (two a year
// in a zone with summer time): past it, the rollups are summed here.
const maxZoneSpans = 200
