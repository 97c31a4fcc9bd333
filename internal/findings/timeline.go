package findings

import (
	"math"
	"sort"
	"time"
)

// Timeline is the window over time and by session and project: what the
// report's charts and tables draw. It is part of the report's JSON
// (Overview), not of the findings' own.
type Timeline struct {
	// Days are the days from the first request's to the last one's, in
	// the report's time zone, each present (a day without requests is
	// zero).
	Days []DayUse `json:"days"`
	// Sessions, most expensive first (then most tokens, then by id).
	Sessions []SessionUse `json:"sessions"`
	// Projects, most expensive first (then most tokens, then by path).
	Projects []ProjectUse `json:"projects"`
}

// DayUse is one day of the window.
type DayUse struct {
	Day string `json:"day"` // YYYY-MM-DD in the report's time zone
	// Requests counts every request; MainRequests those of the main
	// conversations.
	Requests     int `json:"requests"`
	MainRequests int `json:"mainRequests"`
	// Tokens counts all the requests' tokens (input, output, cache writes
	// and reads); Cost is their estimated USD.
	Tokens int64   `json:"tokens"`
	Cost   float64 `json:"cost"`
	// Models splits Tokens and Cost by model, most tokens first.
	Models []ModelUse `json:"models"`
	// MCPCalls counts the calls to MCP servers that day; Results splits
	// their result tokens by server, most first.
	MCPCalls int           `json:"mcpCalls"`
	Results  []ServerTotal `json:"results"`
	// CarriedTokens are the measured definitions of the audited configs'
	// servers times that day's main-conversation requests those configs
	// applied to (what rode on the requests before anything was typed);
	// IdleTokens the part of them of servers never called in the window.
	CarriedTokens int64 `json:"carriedTokens"`
	IdleTokens    int64 `json:"idleTokens"`
}

// ModelUse is one model's share of a day.
type ModelUse struct {
	Model  string  `json:"model"`
	Tokens int64   `json:"tokens"`
	Cost   float64 `json:"cost"`
}

// ServerTotal is one MCP server's result tokens.
type ServerTotal struct {
	Server string `json:"server"`
	Tokens int64  `json:"tokens"`
}

// SessionUse is one session of the window.
type SessionUse struct {
	Source       string  `json:"source"`
	Session      string  `json:"session"`
	Project      string  `json:"project"`
	Start        string  `json:"start"` // RFC 3339, the report's time zone
	End          string  `json:"end"`
	Requests     int     `json:"requests"`
	Tokens       int64   `json:"tokens"`
	Cost         float64 `json:"cost"`
	MCPCalls     int     `json:"mcpCalls"`
	ResultTokens int64   `json:"resultTokens"`
}

// ProjectUse is one project's sessions in the window.
type ProjectUse struct {
	Project      string  `json:"project"`
	Sessions     int     `json:"sessions"`
	Requests     int     `json:"requests"`
	Tokens       int64   `json:"tokens"`
	Cost         float64 `json:"cost"`
	MCPCalls     int     `json:"mcpCalls"`
	ResultTokens int64   `json:"resultTokens"`
}

// capped reports whether a token sum of tl stopped at math.MaxInt64.
func (tl *Timeline) capped() bool {
	for _, d := range tl.Days {
		if d.Tokens == math.MaxInt64 || d.CarriedTokens == math.MaxInt64 || d.IdleTokens == math.MaxInt64 {
			return true
		}
		for _, m := range d.Models {
			if m.Tokens == math.MaxInt64 {
				return true
			}
		}
		for _, x := range d.Results {
			if x.Tokens == math.MaxInt64 {
				return true
			}
		}
	}
	for _, x := range tl.Sessions {
		if x.Tokens == math.MaxInt64 || x.ResultTokens == math.MaxInt64 {
			return true
		}
	}
	for _, x := range tl.Projects {
		if x.Tokens == math.MaxInt64 || x.ResultTokens == math.MaxInt64 {
			return true
		}
	}
	return false
}

// timeline builds the Timeline of the window's data and the per-config
// join, days in loc.
func timeline(d *data, configs []ConfigUse, loc *time.Location) *Timeline {
	tl := &Timeline{Days: []DayUse{}, Sessions: []SessionUse{}, Projects: []ProjectUse{}}
	day := func(ms int64) string { return time.UnixMilli(ms).In(loc).Format(time.DateOnly) }
	type dayAgg struct {
		DayUse
		models  map[string]*ModelUse
		results map[string]int64
	}
	days := map[string]*dayAgg{}
	at := func(ms int64) *dayAgg {
		k := day(ms)
		a := days[k]
		if a == nil {
			a = &dayAgg{DayUse: DayUse{Day: k}, models: map[string]*ModelUse{}, results: map[string]int64{}}
			days[k] = a
		}
		return a
	}
	sessions := map[string]*SessionUse{}
	span := map[string][2]int64{}
	for i := range d.requests {
		q := &d.requests[i]
		a := at(q.ts)
		a.Requests++
		if q.main() {
			a.MainRequests++
		}
		a.Tokens = addTokens(a.Tokens, q.t.Total)
		a.Cost += q.cost
		m := a.models[q.model]
		if m == nil {
			m = &ModelUse{Model: q.model}
			a.models[q.model] = m
		}
		m.Tokens = addTokens(m.Tokens, q.t.Total)
		m.Cost += q.cost
		k := sessionKey(q.source, q.session)
		s := sessions[k]
		if s == nil {
			s = &SessionUse{Source: q.source, Session: q.session, Project: q.project}
			sessions[k] = s
			span[k] = [2]int64{q.ts, q.ts}
		}
		sp := span[k]
		span[k] = [2]int64{min(sp[0], q.ts), max(sp[1], q.ts)}
		if s.Project == "" {
			s.Project = q.project
		}
		s.Requests++
		s.Tokens = addTokens(s.Tokens, q.t.Total)
		s.Cost += q.cost
	}
	for i := range d.calls {
		c := &d.calls[i]
		if c.server == "" || !c.hasCall {
			continue
		}
		a := at(c.callTS)
		a.MCPCalls++
		a.results[c.server] = addTokens(a.results[c.server], c.tokens)
		if s := sessions[c.key()]; s != nil {
			s.MCPCalls++
			s.ResultTokens = addTokens(s.ResultTokens, c.tokens)
		}
	}
	for _, cu := range configs {
		var per, idle int64
		for _, su := range cu.Servers {
			if su.Tokens == nil {
				continue
			}
			per += int64(su.PerRequestTokens)
			if su.Calls == 0 {
				idle += int64(su.PerRequestTokens)
			}
		}
		for _, r := range cu.reqs {
			a := at(r.ts)
			a.CarriedTokens = addTokens(a.CarriedTokens, per)
			a.IdleTokens = addTokens(a.IdleTokens, idle)
		}
	}
	// Every day from the first to the last, so that a chart's bars stand
	// at their dates.
	if len(days) > 0 {
		keys := make([]string, 0, len(days))
		for k := range days {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		lo, _ := time.ParseInLocation(time.DateOnly, keys[0], loc)
		hi, _ := time.ParseInLocation(time.DateOnly, keys[len(keys)-1], loc)
		for t := lo; !t.After(hi); t = t.AddDate(0, 0, 1) {
			k := t.Format(time.DateOnly)
			a := days[k]
			if a == nil {
				tl.Days = append(tl.Days, DayUse{Day: k, Models: []ModelUse{}, Results: []ServerTotal{}})
				continue
			}
			a.Cost = round4(a.Cost)
			a.Models = []ModelUse{}
			for _, m := range a.models {
				m.Cost = round4(m.Cost)
				a.Models = append(a.Models, *m)
			}
			sort.Slice(a.Models, func(i, j int) bool {
				if a.Models[i].Tokens != a.Models[j].Tokens {
					return a.Models[i].Tokens > a.Models[j].Tokens
				}
				return a.Models[i].Model < a.Models[j].Model
			})
			a.Results = []ServerTotal{}
			for s, n := range a.results {
				a.Results = append(a.Results, ServerTotal{Server: s, Tokens: n})
			}
			sort.Slice(a.Results, func(i, j int) bool {
				if a.Results[i].Tokens != a.Results[j].Tokens {
					return a.Results[i].Tokens > a.Results[j].Tokens
				}
				return a.Results[i].Server < a.Results[j].Server
			})
			tl.Days = append(tl.Days, a.DayUse)
		}
	}
	projects := map[string]*ProjectUse{}
	for k, s := range sessions {
		s.Cost = round4(s.Cost)
		s.Start, s.End = fmtTS(span[k][0], loc), fmtTS(span[k][1], loc)
		tl.Sessions = append(tl.Sessions, *s)
		p := projects[s.Project]
		if p == nil {
			p = &ProjectUse{Project: s.Project}
			projects[s.Project] = p
		}
		p.Sessions++
		p.Requests += s.Requests
		p.Tokens = addTokens(p.Tokens, s.Tokens)
		p.Cost += s.Cost
		p.MCPCalls += s.MCPCalls
		p.ResultTokens = addTokens(p.ResultTokens, s.ResultTokens)
	}
	sort.Slice(tl.Sessions, func(i, j int) bool {
		a, b := tl.Sessions[i], tl.Sessions[j]
		if a.Cost != b.Cost {
			return a.Cost > b.Cost
		}
		if a.Tokens != b.Tokens {
			return a.Tokens > b.Tokens
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.Session < b.Session
	})
	for _, p := range projects {
		p.Cost = round4(p.Cost)
		tl.Projects = append(tl.Projects, *p)
	}
	sort.Slice(tl.Projects, func(i, j int) bool {
		a, b := tl.Projects[i], tl.Projects[j]
		if a.Cost != b.Cost {
			return a.Cost > b.Cost
		}
		if a.Tokens != b.Tokens {
			return a.Tokens > b.Tokens
		}
		return a.Project < b.Project
	})
	return tl
}

func fmtTS(ms int64, loc *time.Location) string {
	return time.UnixMilli(ms).In(loc).Format(time.RFC3339)
}

// addTokens adds token counts, saturating at the largest int64.
func addTokens(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
