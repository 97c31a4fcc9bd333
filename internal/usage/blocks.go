package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
)

// BlocksSchema is the version of the blocks report's JSON.
const BlocksSchema = "mcpcost.blocks/v1"

// BlockLength is the length of a billing block, as Claude's plans count
// usage: five hours.
const BlockLength = 5 * time.Hour

// MaxBlockLength is the longest block BlocksOptions.Length may ask for.
const MaxBlockLength = 8760 * time.Hour

// BlockWarning is the share of a token limit above which a block's
// projection is a warning (ccusage's 80%).
const BlockWarning = 0.8

// BlocksOptions select what a blocks report covers.
type BlocksOptions struct {
	// Since and Until keep the blocks that start in the period (Until
	// exclusive), as ccusage filters blocks by the day they start; the
	// blocks themselves are drawn from all of Claude Code's requests.
	Since, Until time.Time
	// Location names days, for Since and Until and Recent; nil for UTC.
	Location *time.Location
	Prices   *Prices
	// Mode is how a request's cost is found (Modes).
	Mode string
	Now  time.Time
	// Length is a block's length; zero for BlockLength.
	Length time.Duration
	// TokenLimit is the tokens a block may use, to say how close the
	// active block's projection comes to it; 0 for none. TokenLimitMax
	// takes the most any finished block used instead.
	TokenLimit    int64
	TokenLimitMax bool
	// Active keeps the active block alone; Recent the blocks of the last
	// three days and the active one.
	Active, Recent bool
	// Order is "asc" (the default) or "desc".
	Order string
	// Machine and User keep the requests and tool calls of one machine,
	// or one OS user, as Options.Machine and Options.User.
	Machine, User string
}

// BlocksReport is Claude Code's usage in billing blocks, as ccusage's
// blocks report draws them: a block starts at the hour of its first request
// and lasts five hours; a request after its end, or more than five hours
// after the previous request, starts the next one, and a pause longer than
// five hours is a gap of its own. Its JSON keeps the names of "ccusage
// blocks --json" for the figures both have.
type BlocksReport struct {
	Schema      string    `json:"schema"`
	GeneratedAt time.Time `json:"generatedAt"`
	Timezone    string    `json:"timezone"`
	Mode        string    `json:"mode"`
	Prices      PriceInfo `json:"prices"`
	// LengthHours is a block's length.
	LengthHours float64 `json:"lengthHours"`
	// TokenLimit is the limit the active block is held to, when there is
	// one (the most a finished block used, for max).
	TokenLimit *int64 `json:"tokenLimit,omitempty"`
	// ActiveOnly is set when the report keeps the active block alone.
	ActiveOnly bool    `json:"activeOnly,omitempty"`
	Blocks     []Block `json:"blocks"`
	// Unpriced lists the models of requests without a cost.
	Unpriced []string `json:"unpriced"`
	// MoreUnpriced counts the models left out of Unpriced where a reader
	// bounds the list (mcpcost serve); the report itself lists them all.
	MoreUnpriced int `json:"moreUnpriced,omitempty"`
	// TokensCapped is set when a block's token sum (or its projection)
	// reached the largest 64-bit integer, where sums stop rather than
	// wrap: such a figure is a lower bound, not exact.
	TokensCapped bool `json:"tokensCapped"`
	// Ingest reports the ingest run just before, when there was one.
	Ingest any `json:"ingest,omitempty"`

	loc *time.Location // Timezone's zone, for the text
}

// Block is one billing block, or a gap between two.
type Block struct {
	ID            string     `json:"id"`
	StartTime     time.Time  `json:"startTime"`
	EndTime       time.Time  `json:"endTime"`
	ActualEndTime *time.Time `json:"actualEndTime"`
	IsActive      bool       `json:"isActive"`
	IsGap         bool       `json:"isGap"`
	// Entries counts the block's requests.
	Entries     int         `json:"entries"`
	TokenCounts BlockTokens `json:"tokenCounts"`
	TotalTokens int64       `json:"totalTokens"`
	// CostUSD sums the priced requests' costs; Unpriced counts those
	// without one, which are not in it.
	CostUSD  float64  `json:"costUSD"`
	Unpriced int      `json:"unpriced,omitempty"`
	Models   []string `json:"models"`
	// MoreModels counts the models left out of Models where a reader
	// bounds the list (mcpcost serve); the report itself lists them all.
	MoreModels int `json:"moreModels,omitempty"`
	// BurnRate and Projection are set for the active block only.
	BurnRate         *BurnRate         `json:"burnRate"`
	Projection       *Projection       `json:"projection"`
	TokenLimitStatus *TokenLimitStatus `json:"tokenLimitStatus,omitempty"`
	// UsageLimitResetTime is when Claude's usage limit that a request of
	// the block ran into resets, as Claude Code's placeholder for it says
	// ("Claude AI usage limit reached|<epoch>"); the first in the block,
	// as ccusage reports it.
	UsageLimitResetTime *time.Time `json:"usageLimitResetTime,omitempty"`
	// What ccusage does not report: tokens by kind (cache writes by
	// lifetime), and the block's tool calls and their results' tokens,
	// and those of MCP servers.
	Tokens          Tokens `json:"tokens"`
	ToolCalls       int    `json:"toolCalls"`
	ResultTokens    int64  `json:"resultTokens"`
	MCPCalls        int    `json:"mcpCalls"`
	MCPResultTokens int64  `json:"mcpResultTokens"`

	first int64 // the first request's time, in ms
}

// ccTime is how ccusage writes a time in JSON: UTC, to the millisecond.
const ccTime = "2006-01-02T15:04:05.000Z"

// MarshalJSON writes the block's times as ccusage writes them
// ("2026-11-03T13:00:00.000Z").
func (b Block) MarshalJSON() ([]byte, error) {
	type plain Block
	ms := func(t *time.Time) *string {
		if t == nil {
			return nil
		}
		s := t.UTC().Format(ccTime)
		return &s
	}
	return json.Marshal(struct {
		plain
		StartTime           string  `json:"startTime"`
		EndTime             string  `json:"endTime"`
		ActualEndTime       *string `json:"actualEndTime"`
		UsageLimitResetTime *string `json:"usageLimitResetTime,omitempty"`
	}{plain(b), b.StartTime.UTC().Format(ccTime), b.EndTime.UTC().Format(ccTime), ms(b.ActualEndTime), ms(b.UsageLimitResetTime)})
}

// BlockTokens are a block's tokens as ccusage names them.
type BlockTokens struct {
	InputTokens              int64 `json:"inputTokens"`
	OutputTokens             int64 `json:"outputTokens"`
	CacheCreationInputTokens int64 `json:"cacheCreationInputTokens"`
	CacheReadInputTokens     int64 `json:"cacheReadInputTokens"`
}

// BurnRate is how fast the active block uses tokens and money, from its
// first request to its last.
type BurnRate struct {
	TokensPerMinute float64 `json:"tokensPerMinute"`
	// TokensPerMinuteForIndicator counts input and output alone.
	TokensPerMinuteForIndicator float64 `json:"tokensPerMinuteForIndicator"`
	CostPerHour                 float64 `json:"costPerHour"`
}

// Projection is where the active block ends at its burn rate.
type Projection struct {
	TotalTokens      int64   `json:"totalTokens"`
	TotalCost        float64 `json:"totalCost"`
	RemainingMinutes int64   `json:"remainingMinutes"`
}

// TokenLimitStatus is the active block's projection against the limit.
type TokenLimitStatus struct {
	Limit          int64   `json:"limit"`
	ProjectedUsage int64   `json:"projectedUsage"`
	PercentUsed    float64 `json:"percentUsed"`
	// Status is ok, warning (above BlockWarning of the limit) or exceeds.
	Status string `json:"status"`
}

// entry is one request in a block.
type entry struct {
	ts     int64
	t      Tokens
	cost   float64
	priced bool
	model  string
}

// Blocks computes the blocks report from Claude Code's requests in st.
func Blocks(ctx context.Context, st *store.Store, o BlocksOptions) (*BlocksReport, error) {
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Prices == nil {
		o.Prices = DefaultPrices()
	}
	if o.Mode == "" {
		o.Mode = "auto"
	}
	if !validMode(o.Mode) {
		return nil, fmt.Errorf("unknown mode %q (want one of %s)", o.Mode, strings.Join(Modes, ", "))
	}
	if o.Order == "" {
		o.Order = "asc"
	}
	if !slices.Contains(Orders, o.Order) {
		return nil, fmt.Errorf("unknown order %q (want asc or desc)", o.Order)
	}
	if o.Length == 0 {
		o.Length = BlockLength
	}
	if o.Length < time.Second || o.Length > MaxBlockLength {
		return nil, fmt.Errorf("a block's length must be from a second to a year, not %s", o.Length)
	}
	if o.TokenLimit < 0 {
		return nil, fmt.Errorf("a token limit must be positive, not %d", o.TokenLimit)
	}
	r := &BlocksReport{
		Schema:      BlocksSchema,
		GeneratedAt: o.Now.UTC(),
		Timezone:    ZoneName(o.Location, o.Now),
		Mode:        o.Mode,
		Prices:      PriceInfo{Updated: o.Prices.Updated, File: o.Prices.File, Sources: o.Prices.Sources},
		LengthHours: o.Length.Hours(),
		ActiveOnly:  o.Active,
		Blocks:      []Block{},
		Unpriced:    []string{},
		loc:         o.Location,
	}
	who := store.Filter{Source: "claude", Machine: o.Machine, User: o.User}
	entries, unpriced, err := loadEntries(ctx, st, newPricer(o.Prices, o.Mode), who)
	if err != nil {
		return nil, err
	}
	if unpriced != nil { // a list is [] when empty, never null
		r.Unpriced = unpriced
	}
	blocks := drawBlocks(entries, o.Length, o.Now)
	if err := blockTools(ctx, st, who, blocks); err != nil {
		return nil, err
	}
	if err := blockLimits(ctx, st, who, blocks); err != nil {
		return nil, err
	}
	// The limit: the one given, or the most a finished block used.
	limit := o.TokenLimit
	if o.TokenLimitMax {
		limit = 0
		for _, b := range blocks {
			if !b.IsGap && !b.IsActive {
				limit = max(limit, b.TotalTokens)
			}
		}
	}
	if limit > 0 {
		r.TokenLimit = &limit
	}
	for i := range blocks {
		b := &blocks[i]
		if !b.IsActive {
			continue
		}
		b.BurnRate = burnRate(b)
		b.Projection = project(b, o.Now)
		if b.Projection != nil && limit > 0 {
			p := b.Projection.TotalTokens
			st := &TokenLimitStatus{Limit: limit, ProjectedUsage: p, PercentUsed: float64(p) / float64(limit) * 100, Status: "ok"}
			switch {
			case p > limit:
				st.Status = "exceeds"
			case float64(p) > float64(limit)*BlockWarning:
				st.Status = "warning"
			}
			b.TokenLimitStatus = st
		}
	}
	recent := o.Now.Add(-3 * 24 * time.Hour)
	for _, b := range blocks {
		switch {
		case o.Active && !b.IsActive:
			continue
		case o.Recent && !b.IsActive && b.StartTime.Before(recent):
			continue
		case !o.Since.IsZero() && b.StartTime.Before(o.Since):
			continue
		case !o.Until.IsZero() && !b.StartTime.Before(o.Until):
			continue
		}
		r.Blocks = append(r.Blocks, b)
	}
	if o.Order == "desc" {
		slices.Reverse(r.Blocks)
	}
	for _, b := range r.Blocks {
		if b.Tokens.atMax() || b.ResultTokens == math.MaxInt64 || b.MCPResultTokens == math.MaxInt64 ||
			b.Projection != nil && b.Projection.TotalTokens == math.MaxInt64 {
			r.TokensCapped = true
		}
	}
	return r, nil
}

// loadEntries reads Claude Code's requests that f keeps (from f.Since,
// zero for all) in time order, priced; unpriced names the models without
// a price.
func loadEntries(ctx context.Context, st *store.Store, pc *pricer, f store.Filter) (entries []entry, unpriced []string, err error) {
	models := map[string]bool{}
	f.Source, f.Order = "claude", store.ByIdentity
	for x, err := range st.Requests(ctx, f) {
		if err != nil {
			return nil, nil, err
		}
		t, valid := requestTokens(x)
		if !valid {
			continue
		}
		cost, ok, _ := pc.cost(x, t)
		if !ok && t.Total > 0 {
			models[displayModel(x.Model)] = true
		}
		entries = append(entries, entry{ts: x.TS, t: t, cost: cost, priced: ok || t.Total == 0, model: x.Model})
	}
	for m := range models {
		unpriced = append(unpriced, m)
	}
	slices.Sort(unpriced)
	return entries, unpriced, nil
}

// ActiveBlock is the block active at o.Now (with its burn rate and
// projection), nil when none is, read from as few of the store's requests
// as it takes: those of the last day, then of four times as long, and so
// on, until a pause longer than a block comes before the last block (after
// which blocks are drawn alike whatever came before), or all of them.
// The other options but Prices, Mode and Length are not used.
func ActiveBlock(ctx context.Context, st *store.Store, o BlocksOptions) (*Block, error) {
	if o.Prices == nil {
		o.Prices = DefaultPrices()
	}
	if o.Mode == "" {
		o.Mode = "auto"
	}
	if o.Length == 0 {
		o.Length = BlockLength
	}
	pc := newPricer(o.Prices, o.Mode)
	span := o.Length.Milliseconds()
	for back := 24 * time.Hour; ; back *= 4 {
		since := o.Now.Add(-back)
		all := back > 4*366*24*time.Hour
		if all {
			since = time.Time{}
		}
		entries, _, err := loadEntries(ctx, st, pc, store.Filter{Since: since})
		if err != nil {
			return nil, err
		}
		blocks := drawBlocks(entries, o.Length, o.Now)
		var last *Block
		li := 0
		for i := len(blocks) - 1; i >= 0 && last == nil; i-- {
			// The last block that has started: one after now is never
			// active, and does not hide the one now.
			if !blocks[i].IsGap && !blocks[i].StartTime.After(o.Now) {
				last, li = &blocks[i], i
			}
		}
		exact := all || last == nil
		prev := since.UnixMilli()
		for _, e := range entries {
			if last != nil && e.ts > last.first {
				break
			}
			if e.ts-prev > span {
				exact = true
			}
			prev = e.ts
		}
		if !exact {
			continue
		}
		if last == nil || !last.IsActive {
			return nil, nil
		}
		if err := blockLimits(ctx, st, store.Filter{Source: "claude", Since: last.StartTime}, blocks[li:li+1]); err != nil {
			return nil, err
		}
		last.BurnRate = burnRate(last)
		last.Projection = project(last, o.Now)
		return last, nil
	}
}

// drawBlocks draws the blocks of entries (in time order) as ccusage does,
// with the gaps between them, in the order they start.
func drawBlocks(entries []entry, length time.Duration, now time.Time) []Block {
	var blocks []Block
	span := length.Milliseconds()
	var cur []entry
	var start int64
	for _, e := range entries {
		if len(cur) > 0 {
			last := cur[len(cur)-1].ts
			if e.ts-start > span || e.ts-last > span {
				blocks = append(blocks, newBlock(start, cur, span, now))
				if e.ts-last > span {
					blocks = append(blocks, gapBlock(last+span, e.ts))
				}
				cur = nil
			}
		}
		if len(cur) == 0 {
			start = floorHour(e.ts)
		}
		cur = append(cur, e)
	}
	if len(cur) > 0 {
		blocks = append(blocks, newBlock(start, cur, span, now))
	}
	// A gap begins five hours after a block's last request, which can be
	// after the next block's first hour: in the order they start.
	slices.SortStableFunc(blocks, func(a, b Block) int { return a.StartTime.Compare(b.StartTime) })
	return blocks
}

// floorHour is the start of the hour of ms, in UTC (as ccusage floors it:
// whole hours are the same in every zone but those a fraction off UTC).
func floorHour(ms int64) int64 {
	const hour = int64(time.Hour / time.Millisecond)
	return ms - ((ms%hour)+hour)%hour
}

func newBlock(start int64, es []entry, span int64, now time.Time) Block {
	st := time.UnixMilli(start).UTC()
	end := time.UnixMilli(start + span).UTC()
	last := time.UnixMilli(es[len(es)-1].ts).UTC()
	b := Block{
		ID:            st.Format(ccTime),
		StartTime:     st,
		EndTime:       end,
		ActualEndTime: &last,
		// Active from its start (a block after now, from a clock running
		// fast or a forged time, is not) to its end, while its last
		// request is under a block's length old.
		IsActive: !now.Before(st) && now.Sub(last) < time.Duration(span)*time.Millisecond && now.Before(end),
		Entries:  len(es),
		Models:   []string{},
	}
	var cost float64
	// The models in the order they first appear, as ccusage lists them;
	// a set, as a block can hold a hundred thousand of them.
	seen := map[string]bool{}
	for _, e := range es {
		b.Tokens.add(e.t)
		if e.priced {
			cost += e.cost
		} else {
			b.Unpriced++
		}
		if m := displayModel(e.model); !seen[m] {
			seen[m] = true
			b.Models = append(b.Models, m)
		}
	}
	b.CostUSD = roundCost(cost)
	b.TokenCounts = BlockTokens{InputTokens: b.Tokens.Input, OutputTokens: b.Tokens.Output,
		CacheCreationInputTokens: addTokens(b.Tokens.CacheWrite5m, b.Tokens.CacheWrite1h), CacheReadInputTokens: b.Tokens.CacheRead}
	b.TotalTokens = b.Tokens.Total
	b.first = es[0].ts
	return b
}

func gapBlock(from, to int64) Block {
	st, end := time.UnixMilli(from).UTC(), time.UnixMilli(to).UTC()
	return Block{ID: "gap-" + st.Format(ccTime), StartTime: st, EndTime: end, IsGap: true, Models: []string{}}
}

// burnRate is the block's rate from its first request to its last; nil
// when they are at the same instant.
func burnRate(b *Block) *BurnRate {
	if b.IsGap || b.Entries == 0 {
		return nil
	}
	minutes := float64(b.ActualEndTime.UnixMilli()-b.first) / 60000
	if minutes <= 0 {
		return nil
	}
	return &BurnRate{
		TokensPerMinute:             float64(b.TotalTokens) / minutes,
		TokensPerMinuteForIndicator: float64(addTokens(b.Tokens.Input, b.Tokens.Output)) / minutes,
		CostPerHour:                 b.CostUSD / minutes * 60,
	}
}

// tokensOf is a whole number of tokens as an int64, at most
// math.MaxInt64 (float64 cannot hold that exactly, and converting 2^63 to
// an int64 is not defined).
func tokensOf(f float64) int64 {
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f)
}

// project is the active block's end at its burn rate: tokens rounded to
// the unit, the cost to the cent and the minutes left to the minute, as
// ccusage rounds them.
func project(b *Block, now time.Time) *Projection {
	br := b.BurnRate
	if br == nil || !b.IsActive {
		return nil
	}
	left := max(0, float64(b.EndTime.Sub(now).Milliseconds())/60000)
	tokens := float64(b.TotalTokens) + br.TokensPerMinute*left
	cost := b.CostUSD + br.CostPerHour/60*left
	return &Projection{
		TotalTokens:      tokensOf(math.Round(tokens)),
		TotalCost:        math.Round(cost*100) / 100,
		RemainingMinutes: int64(math.Round(left)),
	}
}

// blockLimits marks each block with the reset time of the first usage-limit
// placeholder at a time in it that f keeps, as ccusage marks
// the block of its first such entry. A placeholder is no request of
// mcpcost's: one after the end of every block (where ccusage would start a
// block with it) marks none.
func blockLimits(ctx context.Context, st *store.Store, f store.Filter, blocks []Block) error {
	if len(blocks) == 0 {
		return nil
	}
	limits, err := st.UsageLimits(ctx, f)
	if err != nil {
		return err
	}
	for _, l := range limits {
		// The last block starting at or before the placeholder that is
		// not a gap, as for tool calls.
		i, _ := slices.BinarySearchFunc(blocks, l.TS, func(b Block, ts int64) int {
			if b.StartTime.UnixMilli() > ts {
				return 1
			}
			return -1
		})
		for i--; i >= 0 && blocks[i].IsGap; i-- {
		}
		if i < 0 || l.TS >= blocks[i].EndTime.UnixMilli() || blocks[i].UsageLimitResetTime != nil {
			continue
		}
		reset := time.UnixMilli(l.Reset).UTC()
		blocks[i].UsageLimitResetTime = &reset
	}
	return nil
}

// blockTools adds each block's tool calls that f keeps: those at a time
// in the block.
func blockTools(ctx context.Context, st *store.Store, f store.Filter, blocks []Block) error {
	if len(blocks) == 0 {
		return nil
	}
	for x, err := range st.ToolCalls(ctx, f) {
		if err != nil {
			return err
		}
		ts := x.TS()
		// The last block starting at or before ts that is not a gap (a
		// gap can start inside the block before it in time).
		i, _ := slices.BinarySearchFunc(blocks, ts, func(b Block, ts int64) int {
			if b.StartTime.UnixMilli() > ts {
				return 1
			}
			return -1
		})
		for i--; i >= 0 && blocks[i].IsGap; i-- {
		}
		if i < 0 || ts >= blocks[i].EndTime.UnixMilli() {
			continue
		}
		b := &blocks[i]
		b.ToolCalls++
		b.ResultTokens = addTokens(b.ResultTokens, x.ResultTokens)
		if x.Server != "" {
			b.MCPCalls++
			b.MCPResultTokens = addTokens(b.MCPResultTokens, x.ResultTokens)
		}
	}
	return nil
}
