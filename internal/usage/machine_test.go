package usage_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/usage"
)

// TestByMachine checks the rows by machine and by user, and the machine
// and user filters, on a local store: its own rows are the machine's and
// user's it was told of, and the figures those of the whole store.
func TestByMachine(t *testing.T) {
	s, _ := smallStore(t)
	ctx := context.Background()
	build := func(o usage.Options) *usage.Report {
		t.Helper()
		o.Location, o.Now = time.UTC, fixedNow
		rep, err := usage.Build(ctx, s, o)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	all := build(usage.Options{By: "day"})
	if all.Totals.Requests == 0 || all.Totals.ToolCalls == 0 {
		t.Fatalf("the store holds %d requests and %d tool calls", all.Totals.Requests, all.Totals.ToolCalls)
	}
	if rep := build(usage.Options{By: "machine"}); len(rep.Usage) != 1 || rep.Usage[0].Key != "(unknown machine)" {
		t.Errorf("by machine, the store not told its name: %+v", rep.Usage)
	}
	s.SetSelf("laptop-7", "ana")
	for _, c := range []struct{ by, key string }{{"machine", "laptop-7"}, {"user", "ana"}} {
		rep := build(usage.Options{By: c.by})
		if len(rep.Usage) != 1 || rep.Usage[0].Key != c.key {
			t.Fatalf("by %s: %+v, want one row %s", c.by, rep.Usage, c.key)
		}
		u := rep.Usage[0]
		if u.Requests != all.Totals.Requests || u.Tokens != all.Totals.Tokens || u.ToolCalls != all.Totals.ToolCalls || !sameTotals(rep.Totals, all.Totals) {
			t.Errorf("by %s: row %d requests, %d tool calls, totals %+v; want the store's %+v", c.by, u.Requests, u.ToolCalls, rep.Totals, all.Totals)
		}
	}
	for _, o := range []usage.Options{{By: "day", Machine: "laptop-7"}, {By: "day", User: "ana"}, {By: "server", Machine: "laptop-7", User: "ana"}} {
		rep := build(o)
		if rep.Totals.Requests != all.Totals.Requests || rep.Totals.ToolCalls != all.Totals.ToolCalls || rep.Totals.ResultTokens != all.Totals.ResultTokens {
			t.Errorf("%s %q %q: totals %+v, want the store's %+v", o.By, o.Machine, o.User, rep.Totals, all.Totals)
		}
		if rep.Machine != o.Machine || rep.User != o.User {
			t.Errorf("the report names machine %q user %q, want %q %q", rep.Machine, rep.User, o.Machine, o.User)
		}
	}
	if rep := build(usage.Options{By: "day", Machine: "laptop-8"}); rep.Totals.Requests != 0 || rep.Totals.ToolCalls != 0 || len(rep.Usage) != 0 {
		t.Errorf("another machine's rows: %+v", rep.Totals)
	}
	br, err := usage.Blocks(ctx, s, usage.BlocksOptions{Now: fixedNow, Location: time.UTC, User: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if len(br.Blocks) != 0 {
		t.Errorf("blocks of a user with no requests: %d", len(br.Blocks))
	}
}

// sameTotals compares totals, their costs by value.
func sameTotals(a, b usage.Totals) bool {
	if (a.Cost == nil) != (b.Cost == nil) || (a.Cost != nil && math.Abs(*a.Cost-*b.Cost) > 1e-9) {
		return false
	}
	a.Cost, b.Cost = nil, nil
	return a == b
}
