package findings

import (
	"testing"
	"time"
)

// The timeline: every day from the first request's to the last one's,
// the gap day at zero; tokens and cost by model; MCP result tokens by
// server; the definitions carried on the main requests of the sessions a
// config applies to, with the never-called servers' apart; sessions and
// projects, most expensive first. Days are cut in the report's zone.
func TestTimeline(t *testing.T) {
	h := newHome(t)
	s1 := h.session("s1", proj, start) // 2026-11-10 10:00 UTC
	read(t, h, s1, 3)
	s1.requests(2, "claude-haiku-4-5-20251001", use{in: 100, out: 10})
	s2 := h.session("s2", proj, start.Add(48*time.Hour)) // two days later
	read(t, h, s2, 1)
	s3 := h.session("s3", other, start.Add(48*time.Hour+time.Hour)) // another project
	s3.requests(4, model, use{in: 1000, out: 100})
	r := compute(t, h, fsAndMemory(), Options{})
	tl := r.Timeline
	if tl == nil {
		t.Fatal("no timeline")
	}
	var days []string
	for _, d := range tl.Days {
		days = append(days, d.Day)
	}
	if want := []string{"2026-11-10", "2026-11-11", "2026-11-12"}; len(days) != 3 || days[0] != want[0] || days[1] != want[1] || days[2] != want[2] {
		t.Fatalf("days %v, want %v", days, want)
	}
	d0, gap, d2 := tl.Days[0], tl.Days[1], tl.Days[2]
	if gap.Requests != 0 || gap.Tokens != 0 || len(gap.Models) != 0 || gap.CarriedTokens != 0 {
		t.Errorf("the gap day: %+v", gap)
	}
	if d0.Requests != 5 || d0.MainRequests != 5 || d0.MCPCalls != 3 || d2.Requests != 5 || d2.MCPCalls != 1 {
		t.Errorf("requests and calls: %+v / %+v", d0, d2)
	}
	// 3 cached reads (10+50+9,990 each) and 2 haiku requests of 110.
	if d0.Tokens != 3*10_050+2*110 || len(d0.Models) != 2 || d0.Models[0].Model != model || d0.Models[0].Tokens != 3*10_050 || d0.Models[1].Tokens != 220 {
		t.Errorf("day 0 tokens %d, models %+v", d0.Tokens, d0.Models)
	}
	if len(d0.Results) != 1 || d0.Results[0].Server != "filesystem" {
		t.Errorf("day 0 results %+v", d0.Results)
	}
	// proj's config carries filesystem (2,000) and memory (1,200, never
	// called) on each main request in proj: 5 on day 0, 1 on day 2; s3
	// is elsewhere and carries nothing.
	if d0.CarriedTokens != 5*3200 || d0.IdleTokens != 5*1200 || d2.CarriedTokens != 3200 || d2.IdleTokens != 1200 {
		t.Errorf("carried %d (idle %d) and %d (idle %d)", d0.CarriedTokens, d0.IdleTokens, d2.CarriedTokens, d2.IdleTokens)
	}
	var cost float64
	for _, d := range tl.Days {
		cost += d.Cost
	}
	if diff := cost - r.Window.Cost; diff > 0.0002 || diff < -0.0002 {
		t.Errorf("the days cost %v, the window %v", cost, r.Window.Cost)
	}
	if len(tl.Sessions) != 3 || len(tl.Projects) != 2 {
		t.Fatalf("%d sessions, %d projects", len(tl.Sessions), len(tl.Projects))
	}
	for i := 1; i < len(tl.Sessions); i++ {
		if tl.Sessions[i].Cost > tl.Sessions[i-1].Cost {
			t.Errorf("sessions not most expensive first: %+v", tl.Sessions)
		}
	}
	var s1u *SessionUse
	for i := range tl.Sessions {
		if tl.Sessions[i].Session == "s1" {
			s1u = &tl.Sessions[i]
		}
	}
	if s1u == nil || s1u.Requests != 5 || s1u.MCPCalls != 3 || s1u.Project != proj || s1u.Start != "2026-11-10T10:00:00Z" {
		t.Errorf("s1: %+v", s1u)
	}
	p := map[string]ProjectUse{}
	for _, x := range tl.Projects {
		p[x.Project] = x
	}
	if p[proj].Sessions != 2 || p[proj].Requests != 6 || p[other].Sessions != 1 || p[other].Requests != 4 {
		t.Errorf("projects %+v", tl.Projects)
	}

	// In a zone 14 hours ahead, 10:00 UTC is the same day's 24:00: the
	// next day.
	loc := time.FixedZone("UTC+14", 14*3600)
	r = compute(t, h, fsAndMemory(), Options{Location: loc})
	if got := r.Timeline.Days[0].Day; got != "2026-11-11" {
		t.Errorf("in UTC+14 the first day is %s", got)
	}
}
