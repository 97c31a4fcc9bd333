package findings

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
)

// CostByKind splits a cost by token kind.
type CostByKind struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cacheWrite"`
	CacheRead  float64 `json:"cacheRead"`
}

// ServerTokens is one MCP server's result tokens.
type ServerTokens struct {
	Server       string `json:"server"`
	Calls        int    `json:"calls"`
	ResultTokens int64  `json:"resultTokens"`
}

// SessionEvidence is the numbers behind an expensive-session finding.
type SessionEvidence struct {
	Cost             float64        `json:"cost"`
	CostByKind       CostByKind     `json:"costByKind"`
	Requests         int            `json:"requests"`
	SubAgentRequests int            `json:"subAgentRequests"`
	Models           []string       `json:"models"`
	First            time.Time      `json:"first"`
	Last             time.Time      `json:"last"`
	Compactions      int            `json:"compactions"`
	ToolCalls        int            `json:"toolCalls"`
	MCPResultTokens  int64          `json:"mcpResultTokens"`
	TopServers       []ServerTokens `json:"topServers"`
	Unpriced         int            `json:"unpricedRequests,omitempty"`
}

// expensiveSessions: the SessionTop costliest sessions of the window that
// cost at least SessionUSD. Level: warn from four times SessionUSD, info
// below.
func expensiveSessions(d *data, t Thresholds, big []Finding) []Finding {
	// bigServers: the servers with an oversized-results finding, which
	// a session's finding refers to.
	bigServers := map[string]int{}
	for _, f := range big {
		bigServers[f.Subject.Server]++
	}
	type sess struct {
		source, id, project string
		ev                  SessionEvidence
		models              map[string]bool
	}
	m := map[string]*sess{}
	for i := range d.requests {
		r := &d.requests[i]
		k := sessionKey(r.source, r.session)
		s := m[k]
		if s == nil {
			s = &sess{source: r.source, id: r.session, project: r.project, models: map[string]bool{}}
			s.ev.First = time.UnixMilli(r.ts).UTC()
			m[k] = s
		}
		s.ev.Last = time.UnixMilli(r.ts).UTC()
		s.ev.Requests++
		if !r.main() {
			s.ev.SubAgentRequests++
		}
		s.models[r.model] = true
		if !r.priced {
			if r.t.Total > 0 {
				s.ev.Unpriced++
			}
			continue
		}
		s.ev.Cost += r.cost
		// The split by kind uses the rates the request paid; the kinds sum
		// to its cost.
		s.ev.CostByKind.Input += float64(r.t.Input) * r.rates.Input / 1e6
		s.ev.CostByKind.Output += float64(r.t.Output) * r.rates.Output / 1e6
		s.ev.CostByKind.CacheWrite += (float64(r.t.CacheWrite5m)*r.rates.CacheWrite5m + float64(r.t.CacheWrite1h)*r.rates.CacheWrite1h) / 1e6
		s.ev.CostByKind.CacheRead += float64(r.t.CacheRead) * r.rates.CacheRead / 1e6
	}
	var list []*sess
	for _, s := range m {
		if s.ev.Cost >= t.SessionUSD {
			list = append(list, s)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].ev.Cost != list[j].ev.Cost {
			return list[i].ev.Cost > list[j].ev.Cost
		}
		return list[i].source+list[i].id < list[j].source+list[j].id
	})
	if len(list) > t.SessionTop {
		list = list[:t.SessionTop]
	}
	servers := map[string]map[string]*ServerTokens{}
	calls := map[string]int{}
	for k, n := range d.builtIn {
		if m[k] != nil {
			calls[k] = n
		}
	}
	for _, c := range d.calls {
		k := c.key()
		if m[k] == nil {
			continue
		}
		calls[k]++
		if c.server == "" {
			continue
		}
		if servers[k] == nil {
			servers[k] = map[string]*ServerTokens{}
		}
		st := servers[k][c.server]
		if st == nil {
			st = &ServerTokens{Server: c.server}
			servers[k][c.server] = st
		}
		st.Calls++
		st.ResultTokens += c.tokens
	}
	var out []Finding
	for _, s := range list {
		k := sessionKey(s.source, s.id)
		ev := s.ev
		ev.Cost = round4(ev.Cost)
		ev.CostByKind = CostByKind{round4(ev.CostByKind.Input), round4(ev.CostByKind.Output), round4(ev.CostByKind.CacheWrite), round4(ev.CostByKind.CacheRead)}
		ev.Compactions = d.compactions[k]
		ev.ToolCalls = calls[k]
		ev.TopServers = []ServerTokens{}
		for _, st := range servers[k] {
			ev.TopServers = append(ev.TopServers, *st)
			ev.MCPResultTokens += st.ResultTokens
		}
		sort.Slice(ev.TopServers, func(i, j int) bool {
			a, b := ev.TopServers[i], ev.TopServers[j]
			if a.ResultTokens != b.ResultTokens {
				return a.ResultTokens > b.ResultTokens
			}
			return a.Server < b.Server
		})
		if len(ev.TopServers) > 3 {
			ev.TopServers = ev.TopServers[:3]
		}
		for mdl := range s.models {
			if mdl == "" {
				mdl = "(unknown model)"
			}
			ev.Models = append(ev.Models, mdl)
		}
		sort.Strings(ev.Models)
		driver, share := topKind(ev.CostByKind)
		f := Finding{
			Type:      TypeExpensiveSession,
			Subject:   Subject{Source: s.source, Session: s.id, Project: s.project},
			Evidence:  ev,
			Level:     LevelInfo,
			LevelRule: fmt.Sprintf("warn from %s, info from %s (the %d costliest sessions at most)", money(4*t.SessionUSD), money(t.SessionUSD), t.SessionTop),
			Title:     fmt.Sprintf("session %s in %s cost %s over %s, %s of it %s", shortID(s.id), orUnknown(s.project), money(ev.Cost), num.Count(ev.Requests, "request"), pct(share), driver),
			Facts: []string{
				fmt.Sprintf("cost by kind: input %s, output %s, cache writes %s, cache reads %s", money(ev.CostByKind.Input), money(ev.CostByKind.Output), money(ev.CostByKind.CacheWrite), money(ev.CostByKind.CacheRead)),
				fmt.Sprintf("%s to %s, %s (%d by sub-agents), models %s, %s, %s", ev.First.Format(time.RFC3339), ev.Last.Format(time.RFC3339), num.Count(ev.Requests, "request"), ev.SubAgentRequests, strings.Join(ev.Models, ", "), num.Count(ev.Compactions, "compaction"), num.Count(ev.ToolCalls, "tool call")),
			},
			Confidence:     "high",
			ConfidenceRule: "token counts as the API reported them in the transcript, priced with the embedded price table (a list-price estimate: plans and discounts differ)",
		}
		if len(ev.TopServers) > 0 {
			var parts []string
			for _, st := range ev.TopServers {
				parts = append(parts, fmt.Sprintf("%s %s tokens in %s", st.Server, num.Int(st.ResultTokens), num.Count(st.Calls, "call")))
			}
			f.Facts = append(f.Facts, "MCP results put into the context: "+strings.Join(parts, "; "))
		}
		if ev.Unpriced > 0 {
			f.Facts = append(f.Facts, fmt.Sprintf("%s of models without a price %s not in the cost", num.Count(ev.Unpriced, "request"), num.Plural(ev.Unpriced, "is", "are")))
		}
		switch driver {
		case "cache reads":
			f.Recommendation = "Most of the cost is re-reading a long context on every request: start a new session (/clear) between unrelated tasks, compact earlier, and trim what loads up front (MCP servers not used in the session)."
		case "cache writes":
			f.Recommendation = "Most of the cost is writing the cache: the context prefix was rewritten often (pauses longer than the cache's lifetime, a model switch, or tool definitions that change mid-session)."
		case "output":
			f.Recommendation = "Most of the cost is output: long generated files or reasoning; ask for diffs or smaller steps."
		default:
			f.Recommendation = "Most of the cost is uncached input: check that prompt caching applies (a changing prefix defeats it)."
		}
		if len(ev.TopServers) > 0 && ev.MCPResultTokens >= 50_000 {
			f.Recommendation += fmt.Sprintf(" MCP results added %s tokens to the context, %s the most", num.Int(ev.MCPResultTokens), ev.TopServers[0].Server)
			var see []string
			n := 0
			for _, st := range ev.TopServers {
				if bigServers[st.Server] > 0 {
					see = append(see, st.Server)
					n += bigServers[st.Server]
				}
			}
			if len(see) > 0 {
				f.Recommendation += ": see the oversized-results " + num.Plural(n, "finding", "findings") + " of " + num.JoinAnd(see)
			}
			f.Recommendation += "."
		}
		if ev.Cost >= 4*t.SessionUSD {
			f.Level = LevelWarn
		}
		out = append(out, f)
	}
	return out
}

func topKind(c CostByKind) (string, float64) {
	total := c.Input + c.Output + c.CacheWrite + c.CacheRead
	kinds := []struct {
		name string
		v    float64
	}{{"cache reads", c.CacheRead}, {"cache writes", c.CacheWrite}, {"output", c.Output}, {"uncached input", c.Input}}
	best := kinds[0]
	for _, k := range kinds[1:] {
		if k.v > best.v {
			best = k
		}
	}
	if total == 0 {
		return best.name, 0
	}
	return best.name, best.v / total
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func orUnknown(p string) string {
	if p == "" {
		return "(unknown project)"
	}
	return p
}

// CacheEvidence is the numbers behind a cache-inefficiency finding.
type CacheEvidence struct {
	CacheWrites    int64   `json:"cacheWrites"`
	CacheReads     int64   `json:"cacheReads"`
	Ratio          float64 `json:"ratio"`
	Requests       int     `json:"requests"`
	Sessions       int     `json:"sessions"`
	CacheWriteCost float64 `json:"cacheWriteCost"`
	CacheReadCost  float64 `json:"cacheReadCost"`
}

// cacheInefficiency: a project and day (in the report's time zone) whose
// cache writes reach CacheMinWrites and exceed CacheRatio times its cache
// reads. Level: high when the estimated saving reaches HighUSD, warn
// below.
func cacheInefficiency(d *data, o Options, t Thresholds) []Finding {
	type day struct {
		project, day string
		ev           CacheEvidence
		sessions     map[string]bool
		reqs         []*request
	}
	m := map[string]*day{}
	for i := range d.requests {
		r := &d.requests[i]
		dk := time.UnixMilli(r.ts).In(o.Location).Format("2006-01-02")
		k := r.project + "\x00" + dk
		g := m[k]
		if g == nil {
			g = &day{project: r.project, day: dk, sessions: map[string]bool{}}
			m[k] = g
		}
		g.ev.Requests++
		g.sessions[sessionKey(r.source, r.session)] = true
		g.ev.CacheWrites = addTokens(g.ev.CacheWrites, r.t.CacheWrite5m+r.t.CacheWrite1h)
		g.ev.CacheReads = addTokens(g.ev.CacheReads, r.t.CacheRead)
		g.reqs = append(g.reqs, r)
		if r.priced {
			g.ev.CacheWriteCost += (float64(r.t.CacheWrite5m)*r.rates.CacheWrite5m + float64(r.t.CacheWrite1h)*r.rates.CacheWrite1h) / 1e6
			g.ev.CacheReadCost += float64(r.t.CacheRead) * r.rates.CacheRead / 1e6
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Finding
	for _, k := range keys {
		g := m[k]
		ev := g.ev
		if ev.CacheWrites < t.CacheMinWrites || float64(ev.CacheWrites) <= t.CacheRatio*float64(ev.CacheReads) {
			continue
		}
		ev.Sessions = len(g.sessions)
		if ev.CacheReads > 0 {
			ev.Ratio = round4(float64(ev.CacheWrites) / float64(ev.CacheReads))
		}
		ev.CacheWriteCost, ev.CacheReadCost = round4(ev.CacheWriteCost), round4(ev.CacheReadCost)
		// The saving: writes beyond the reads, had they been reads instead.
		excess := ev.CacheWrites - ev.CacheReads
		frac := float64(excess) / float64(ev.CacheWrites)
		usd := 0.0
		for _, r := range g.reqs {
			if r.priced {
				usd += frac * (float64(r.t.CacheWrite5m)*(r.rates.CacheWrite5m-r.rates.CacheRead) + float64(r.t.CacheWrite1h)*(r.rates.CacheWrite1h-r.rates.CacheRead)) / 1e6
			}
		}
		usd = round4(max(0, usd))
		ratio := "no cache reads at all"
		if ev.CacheReads > 0 {
			ratio = fmt.Sprintf("%.2f times the reads", ev.Ratio)
		}
		f := Finding{
			Type:      TypeCacheInefficiency,
			Subject:   Subject{Project: g.project, Day: g.day},
			Evidence:  ev,
			Level:     LevelWarn,
			LevelRule: fmt.Sprintf("fires when cache writes reach %s tokens and exceed %g times the reads; high when the estimated saving reaches %s, warn below", num.Int(t.CacheMinWrites), t.CacheRatio, money(t.HighUSD)),
			Title:     fmt.Sprintf("%s on %s: cache writes were %s (%s tokens written, %s read)", orUnknown(g.project), g.day, ratio, num.Int(ev.CacheWrites), num.Int(ev.CacheReads)),
			Facts: []string{
				fmt.Sprintf("%s in %s; cache writes cost %s, cache reads %s", num.Count(ev.Requests, "request"), num.Count(ev.Sessions, "session"), money(ev.CacheWriteCost), money(ev.CacheReadCost)),
			},
			Confidence:     "low",
			ConfidenceRule: "the token counts are exact; the cause is not in the transcripts, and the saving assumes the written prefix could have been reused",
			Recommendation: "A cached prefix that is written and seldom read again is paid at the write rate for nothing. Usual causes: pauses longer than the cache's lifetime (5 minutes by default), many short sessions, switching models, or tool definitions and instructions that change between requests (a server whose tool list changes rewrites the prefix). Keep sessions going instead of restarting them, and keep the set of MCP servers stable within a session.",
			EstimatedSaving: &Saving{Tokens: max(0, excess), USD: ptr(usd),
				Assumption: "if the writes beyond the day's reads had been cache reads instead, priced at each request's write rate minus its read rate; an estimate"},
		}
		if usd >= t.HighUSD {
			f.Level = LevelHigh
		}
		out = append(out, f)
	}
	return out
}

// DefinitionEvidence is the numbers behind a heavy-definition finding.
type DefinitionEvidence struct {
	Tokens            int `json:"tokens"`
	DescriptionTokens int `json:"descriptionTokens"`
	InputSchemaTokens int `json:"inputSchemaTokens"`
	Threshold         int `json:"threshold"`
	// DescriptionLength is in UTF-16 code units when the text is known
	// (DescriptionExact), else the UTF-8 byte length.
	DescriptionLength int  `json:"descriptionLength"`
	DescriptionExact  bool `json:"descriptionExact"`
	// CutCharacters is how much of the description Claude Code drops (its
	// upper bound when not exact).
	CutCharacters int   `json:"cutCharacters"`
	LoadsUpFront  *bool `json:"loadsUpFront"`
	Requests      int   `json:"requests"`
}

// heaviestPartAdvice says what to trim in a heavy tool, from its heaviest
// part (its name aside). A tool measured before parts were recorded falls
// back to comparing its description with its input schema.
func heaviestPartAdvice(tool measure.Tool) string {
	part, best := "", 0
	for _, p := range tool.Parts {
		if p.Name != "name" && p.Tokens > best {
			part, best = p.Name, p.Tokens
		}
	}
	if part == "" {
		part = "description"
		if tool.InputSchemaTokens > tool.DescriptionTokens {
			part = "inputSchema"
		}
	}
	switch part {
	case "description":
		return "Most of it is the description: keep what the model needs to choose and call the tool, move examples and background to documentation"
	case "inputSchema":
		return "Most of it is the input schema: drop optional parameters the agent never needs, shorten property descriptions and enums"
	case "outputSchema":
		return fmt.Sprintf("Most of it is the output schema (%s tokens): shorten it or leave it out; Claude Code does not send output schemas to the model, clients that forward the whole definition do", num.Int(best))
	case "annotations":
		return fmt.Sprintf("Most of it is the annotations (%s tokens): keep the standard hints and move the rest out of the definition", num.Int(best))
	case "_meta":
		return fmt.Sprintf("Most of it is _meta (%s tokens): move what the model does not need out of the definition", num.Int(best))
	}
	return fmt.Sprintf("Most of it is fields outside the MCP tool schema (%s tokens: %s): leave them out of the definition", num.Int(best), strings.Join(tool.OtherFields, ", "))
}

// heavyDefinitions: per config, a tool whose definition exceeds ToolTokens,
// or (in a Claude Code config) whose description is longer than Claude
// Code's 2,048-character cut. Level: warn when the description is cut or
// the tool is over twice the threshold, info otherwise.
func heavyDefinitions(static *audit.Report, uses []ConfigUse, o Options, t Thresholds) []Finding {
	var out []Finding
	for ci, c := range static.Configs {
		cu := uses[ci]
		for _, s := range c.Servers {
			if s.Tokens == nil {
				continue
			}
			home := serverHome(cu, s)
			var desc map[string]string
			if o.Descriptions != nil {
				desc = o.Descriptions(home.ConfigRef, s.Name)
			}
			for _, tool := range s.Tools {
				ev := DefinitionEvidence{Tokens: tool.Tokens, DescriptionTokens: tool.DescriptionTokens, InputSchemaTokens: tool.InputSchemaTokens,
					Threshold: t.ToolTokens, DescriptionLength: tool.DescriptionBytes, LoadsUpFront: s.LoadsUpFront, Requests: cu.Requests}
				if text, ok := desc[tool.Name]; ok {
					ev.DescriptionLength = claude.UTF16Len(text)
					ev.DescriptionExact = true
				}
				cut := c.Client == clients.ClaudeCode && ev.DescriptionLength > claude.CutLimit
				if cut {
					ev.CutCharacters = ev.DescriptionLength - claude.CutLimit
				}
				heavy := tool.Tokens > t.ToolTokens
				if !heavy && !cut {
					continue
				}
				f := Finding{
					Type:      TypeHeavyDefinition,
					Subject:   Subject{Client: c.Client, Config: home.Path, Scope: home.Scope, Server: s.Name, Tool: tool.Name},
					Evidence:  ev,
					Level:     LevelInfo,
					LevelRule: fmt.Sprintf("warn when Claude Code cuts the description or the definition exceeds %s tokens; info from %s", num.Int(2*t.ToolTokens), num.Int(t.ToolTokens)),
				}
				var what []string
				if heavy {
					what = append(what, fmt.Sprintf("its definition is %s tokens (threshold %s): description %s, input schema %s", num.Int(tool.Tokens), num.Int(t.ToolTokens), num.Int(tool.DescriptionTokens), num.Int(tool.InputSchemaTokens)))
				}
				if cut {
					if ev.DescriptionExact {
						what = append(what, fmt.Sprintf("its description is %s characters: Claude Code cuts it at %s, so the last %s characters never reach the model", num.Int(ev.DescriptionLength), num.Int(claude.CutLimit), num.Int(ev.CutCharacters)))
					} else {
						what = append(what, fmt.Sprintf("its description is %s bytes: Claude Code cuts at %s characters (UTF-16), so up to %s characters never reach the model (the text was not at hand to count characters)", num.Int(ev.DescriptionLength), num.Int(claude.CutLimit), num.Int(ev.CutCharacters)))
					}
				}
				f.Facts = what
				switch {
				case heavy && cut:
					f.Title = fmt.Sprintf("%s · %s: %s-token definition, description cut by Claude Code", s.Name, tool.Name, num.Int(tool.Tokens))
				case cut:
					f.Title = fmt.Sprintf("%s · %s: Claude Code cuts %s characters off its description", s.Name, tool.Name, num.Int(ev.CutCharacters))
				default:
					f.Title = fmt.Sprintf("%s · %s: its definition is %s tokens, over the %s-token threshold", s.Name, tool.Name, num.Int(tool.Tokens), num.Int(t.ToolTokens))
				}
				if cut || tool.Tokens > 2*t.ToolTokens {
					f.Level = LevelWarn
				}
				f.Confidence, f.ConfidenceRule = "high", "o200k_base counts of the definition as the server published it (measured, or from the measurement cache)"
				if cut && !ev.DescriptionExact {
					f.Confidence = "medium"
					f.ConfidenceRule += "; the cut is judged on the UTF-8 length, an upper bound of the UTF-16 length Claude Code measures"
				}
				var rec []string
				if heavy {
					rec = append(rec, heaviestPartAdvice(tool))
					if c.Client == clients.Codex {
						rec = append(rec, "or leave it out with disabled_tools in "+home.Path)
					}
				}
				if cut {
					rec = append(rec, "Put what matters in the first 2,048 characters of the description: Claude Code sends the rest as \"… [truncated]\"")
				}
				f.Recommendation = strings.Join(rec, "; ") + "."
				if heavy {
					per := int64(tool.Tokens - t.ToolTokens)
					sv := &Saving{Tokens: per, Assumption: fmt.Sprintf("if the definition were trimmed to the %s-token threshold: per request that loads it; not priced", num.Int(t.ToolTokens))}
					upFront := s.LoadsUpFront != nil && *s.LoadsUpFront
					if upFront && cu.Requests > 0 {
						sv.Tokens = per * int64(cu.Requests)
						sv.USD = ptr(round4(float64(per) * cu.sumRate))
						sv.Assumption = fmt.Sprintf("if the definition were trimmed to the %s-token threshold, on each of the %s main-conversation requests of the sessions this config applied to (it loads up front), at the rates those requests paid; an estimate", num.Int(t.ToolTokens), num.Int(cu.Requests))
					}
					f.EstimatedSaving = sv
				}
				out = append(out, f)
			}
		}
	}
	return out
}
