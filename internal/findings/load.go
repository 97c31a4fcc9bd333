package findings

import (
	"context"

	"github.com/mcpcost/mcpcost/internal/store"
)

// request is one de-duplicated request of the window, priced.
type request struct {
	source, session, agent string
	sidechain              bool
	ts                     int64
	model, project         string
	t                      tokens
	priced                 bool
	rates                  Rates // the rates this request paid
	cost                   float64
}

// main reports whether the request is of the main conversation.
func (r *request) main() bool { return r.agent == "" && !r.sidechain }

// inputTokens is everything the request read: uncached input, cache
// writes and cache reads.
func (r *request) inputTokens() int64 {
	return r.t.Input + r.t.CacheWrite5m + r.t.CacheWrite1h + r.t.CacheRead
}

// blendedRate is the USD per input token this request paid on average,
// weighting each rate by its share of the request's input.
func (r *request) blendedRate() float64 {
	in := r.inputTokens()
	if !r.priced || in == 0 {
		return 0
	}
	return (float64(r.t.Input)*r.rates.Input + float64(r.t.CacheWrite5m)*r.rates.CacheWrite5m +
		float64(r.t.CacheWrite1h)*r.rates.CacheWrite1h + float64(r.t.CacheRead)*r.rates.CacheRead) / float64(in) / 1e6
}

// tokens are a request's token counts by kind.
type tokens struct {
	Input, Output, CacheWrite5m, CacheWrite1h, CacheRead, Total int64
}

// call is one tool call of the window.
type call struct {
	source, session, name, tool, server string
	plugin, agent                       string
	hasCall, hasResult                  bool
	callTS, resultTS                    int64
	tokens, estimated, bytes            int64
	isError, spilled                    bool
	hash                                string // the arguments' hash, its bytes; "" when the call was not read
	project                             string
}

func (c *call) key() string { return c.source + "\x00" + c.session }

type data struct {
	requests []request
	// calls are the MCP servers' calls; builtIn counts the built-in
	// tools' calls per session key, and builtInCalls all of them.
	calls        []call
	builtIn      map[string]int
	builtInCalls int
	compactions  map[string]int // per session key
	unpriced     map[string]bool
}

func sessionKey(source, session string) string { return source + "\x00" + session }

// interner hands out one copy of each string: the rows of a window
// repeat a few sessions, models, projects and tools many times over.
type interner map[string]string

func (in interner) s(v string) string {
	if x, ok := in[v]; ok {
		return x
	}
	in[v] = v
	return v
}

func load(ctx context.Context, st *store.Store, o Options) (*data, error) {
	d := &data{compactions: map[string]int{}, unpriced: map[string]bool{}, builtIn: map[string]int{}}
	in := interner{}
	f := store.Filter{Since: o.Since, Until: o.Until, Project: o.Project, Machine: o.Machine, User: o.User, Order: store.ByTime}
	for x, err := range st.Requests(ctx, f) {
		if err != nil {
			return nil, err
		}
		r := request{source: in.s(x.Source), session: in.s(x.Session), agent: in.s(x.Agent), sidechain: x.Sidechain, ts: x.TS,
			model: in.s(x.Model), project: in.s(x.Project),
			t: tokens{Input: x.Input, Output: x.Output, CacheWrite5m: x.CacheWrite5m, CacheWrite1h: x.CacheWrite1h, CacheRead: x.CacheRead}}
		r.t.Total = r.t.Input + r.t.Output + r.t.CacheWrite5m + r.t.CacheWrite1h + r.t.CacheRead
		rates, ok := o.Pricing(r.model, r.inputTokens(), x.Speed == "fast")
		calculated := 0.0
		if ok {
			calculated = (float64(r.t.Input)*rates.Input + float64(r.t.Output)*rates.Output + float64(r.t.CacheWrite5m)*rates.CacheWrite5m +
				float64(r.t.CacheWrite1h)*rates.CacheWrite1h + float64(r.t.CacheRead)*rates.CacheRead) / 1e6
		}
		switch {
		case x.CostUSD != nil && o.Mode != "calculate":
			// The recorded cost; the rates scaled to it.
			r.priced, r.cost = true, *x.CostUSD
			if ok && calculated > 0 {
				f := r.cost / calculated
				r.rates = Rates{Input: rates.Input * f, Output: rates.Output * f, CacheWrite5m: rates.CacheWrite5m * f,
					CacheWrite1h: rates.CacheWrite1h * f, CacheRead: rates.CacheRead * f}
			}
		case ok && o.Mode != "display":
			r.priced, r.rates, r.cost = true, rates, calculated
		case r.t.Total > 0:
			d.unpriced[r.model] = true
		}
		d.requests = append(d.requests, r)
	}
	for x, err := range st.BuiltInCalls(ctx, f) {
		if err != nil {
			return nil, err
		}
		d.builtIn[sessionKey(x.Source, x.Session)] += x.N
		d.builtInCalls += x.N
	}
	mf := f
	mf.MCP = true
	for x, err := range st.ToolCalls(ctx, mf) {
		if err != nil {
			return nil, err
		}
		c := call{source: in.s(x.Source), session: in.s(x.Session), name: in.s(x.Name), tool: in.s(x.Tool), server: in.s(x.Server),
			plugin: in.s(x.Plugin), agent: in.s(x.Agent), hasCall: x.HasCall, hasResult: x.HasResult, callTS: x.CallTS, resultTS: x.ResultTS,
			tokens: x.ResultTokens, estimated: x.EstimatedTokens, bytes: x.ResultBytes, isError: x.IsError, spilled: x.Spilled, hash: string(x.ArgsHash), project: in.s(x.Project)}
		if c.tool == "" {
			c.tool = c.name
		}
		d.calls = append(d.calls, c)
	}
	counts, err := st.Compactions(ctx, store.Filter{Since: o.Since, Until: o.Until, Machine: o.Machine, User: o.User})
	if err != nil {
		return nil, err
	}
	for _, c := range counts {
		d.compactions[sessionKey(c.Source, c.Session)] = c.N
	}
	return d, nil
}
