package usage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

//go:embed prices.json
var embeddedPrices []byte

// PricesSchema is the version of the price table's JSON, embedded or
// printed by 'mcpcost prices --json'.
const PricesSchema = "mcpcost.prices/v1"

// Rates are prices in USD per million tokens.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cacheWrite5m"`
	CacheWrite1h float64 `json:"cacheWrite1h"`
	CacheRead    float64 `json:"cacheRead"`
}

// LongContext is the premium a whole request pays when its input is
// larger than Threshold tokens.
type LongContext struct {
	Threshold int64 `json:"threshold"`
	Rates
}

// FastRates are the rates of fast-mode requests, with their own
// long-context rates where fast mode has them.
type FastRates struct {
	Rates
	LongContext *LongContext `json:"longContext,omitempty"`
}

// ModelPrice is one model's prices.
type ModelPrice struct {
	Rates
	// LongContext rates apply to a whole request whose input (uncached
	// input, cache writes and cache reads) exceeds Threshold tokens, as
	// Anthropic and OpenAI bill it.
	LongContext *LongContext `json:"longContext,omitempty"`
	// Fast rates apply to fast-mode requests.
	Fast *FastRates `json:"fast,omitempty"`
	// Source is the id of the source (in Prices.Sources) the price was
	// checked against.
	Source string `json:"source,omitempty"`
	// Since is the date (YYYY-MM-DD) the model became available at this
	// price, where a source gives it.
	Since string `json:"since,omitempty"`
}

// PriceSource names where prices come from.
type PriceSource struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
	Read string `json:"read,omitempty"`
}

// Prices is a dated price table.
type Prices struct {
	Schema  string        `json:"schema"`
	Updated string        `json:"updated"`
	Sources []PriceSource `json:"sources"`
	Notes   []string      `json:"notes,omitempty"`
	// Unpriced names models known to be left without a price, and why.
	Unpriced map[string]string     `json:"unpriced,omitempty"`
	Models   map[string]ModelPrice `json:"models"`
	// File is where the table was read from; empty for the embedded one.
	File string `json:"-"`
	// Format is the file's format: "mcpcost" or "litellm".
	Format string `json:"-"`
}

// DefaultPrices returns the table embedded in mcpcost.
func DefaultPrices() *Prices {
	p, err := parsePrices(embeddedPrices)
	if err != nil {
		panic("usage: embedded prices.json: " + err.Error())
	}
	return p
}

// LoadPrices reads a price table: mcpcost's own format (that of the
// embedded table), or the model-price JSON of LiteLLM that ccusage uses
// (model_prices_and_context_window.json).
func LoadPrices(path string) (*Prices, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return nil, fmt.Errorf("reading prices %s: %w", path, err)
	}
	var p *Prices
	if isLiteLLM(data) {
		p, err = parseLiteLLM(data)
		if p != nil {
			if fi, serr := os.Stat(path); serr == nil {
				p.Updated = fi.ModTime().UTC().Format("2006-01-02")
			}
			p.Sources = []PriceSource{{ID: "file", Name: "LiteLLM model_prices_and_context_window.json", URL: path}}
		}
	} else {
		p, err = parsePrices(data)
	}
	if err != nil {
		return nil, fmt.Errorf("reading prices %s: %w", path, err)
	}
	p.File = path
	return p, nil
}

func parsePrices(data []byte) (*Prices, error) {
	var p Prices
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if len(p.Models) == 0 {
		return nil, fmt.Errorf("no models")
	}
	for name, m := range p.Models {
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("model %s: %w", name, err)
		}
	}
	lower := make(map[string]ModelPrice, len(p.Models))
	for name, m := range p.Models {
		lower[strings.ToLower(name)] = m
	}
	p.Models = lower
	p.Format = "mcpcost"
	return &p, nil
}

func (r Rates) negative() bool {
	return r.Input < 0 || r.Output < 0 || r.CacheRead < 0 || r.CacheWrite5m < 0 || r.CacheWrite1h < 0
}

// MaxRate is the highest price a price file may give, in USD per million
// tokens: $1,000,000, a thousand times today's dearest. Costs computed
// from such rates (at most 2^53 tokens of a kind in a request) and their
// sums stay finite, so that no report, nor its JSON, holds an infinity.
const MaxRate = 1_000_000

func (r Rates) tooHigh() bool {
	for _, x := range [...]float64{r.Input, r.Output, r.CacheRead, r.CacheWrite5m, r.CacheWrite1h} {
		if !(x <= MaxRate) {
			return true
		}
	}
	return false
}

func (m ModelPrice) check() error {
	all := []Rates{m.Rates}
	if m.LongContext != nil {
		all = append(all, m.LongContext.Rates)
	}
	if m.Fast != nil {
		all = append(all, m.Fast.Rates)
		if m.Fast.LongContext != nil {
			all = append(all, m.Fast.LongContext.Rates)
		}
	}
	for _, r := range all {
		if r.negative() {
			return fmt.Errorf("negative price")
		}
		if r.tooHigh() {
			return fmt.Errorf("a price over $1,000,000 per million tokens")
		}
	}
	for _, lc := range []*LongContext{m.LongContext, m.fastLongContext()} {
		if lc != nil && lc.Threshold <= 0 {
			return fmt.Errorf("long-context threshold %d is not positive", lc.Threshold)
		}
	}
	return nil
}

func (m ModelPrice) fastLongContext() *LongContext {
	if m.Fast == nil {
		return nil
	}
	return m.Fast.LongContext
}

// isLiteLLM reports whether a price file is LiteLLM's: an object of
// models without mcpcost's "models" member.
func isLiteLLM(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ours := top["models"]
	return !ours
}

// liteLLMEntry is the part of a LiteLLM model entry that prices tokens;
// costs are USD per token.
type liteLLMEntry struct {
	Input          *float64 `json:"input_cost_per_token"`
	Output         *float64 `json:"output_cost_per_token"`
	CacheWrite     *float64 `json:"cache_creation_input_token_cost"`
	CacheWrite1h   *float64 `json:"cache_creation_input_token_cost_above_1hr"`
	CacheRead      *float64 `json:"cache_read_input_token_cost"`
	LongInput      map[int64]float64
	LongOutput     map[int64]float64
	LongCacheWrite map[int64]float64
	LongCacheRead  map[int64]float64
}

var aboveTokens = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_creation_input_token_cost|cache_read_input_token_cost)_above_(\d+)k_tokens$`)

// parseLiteLLM reads LiteLLM's model_prices_and_context_window.json:
// per-token costs, with *_above_<N>k_tokens variants for long context.
// A model without input and output costs is skipped; a 1-hour cache
// write without its own price costs 2x input, as ccusage prices it.
func parseLiteLLM(data []byte) (*Prices, error) {
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not LiteLLM's model-price JSON (an object of model objects): %w", err)
	}
	p := &Prices{Schema: PricesSchema, Format: "litellm", Models: map[string]ModelPrice{}}
	// Names without a provider prefix win over prefixed ones (bedrock/…,
	// openrouter/…), which often carry a reseller's price.
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		pi, pj := strings.Count(names[i], "/"), strings.Count(names[j], "/")
		if pi != pj {
			return pi < pj
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		if name == "sample_spec" {
			continue
		}
		fields := raw[name]
		var e liteLLMEntry
		for k, v := range fields {
			var dst **float64
			switch k {
			case "input_cost_per_token":
				dst = &e.Input
			case "output_cost_per_token":
				dst = &e.Output
			case "cache_creation_input_token_cost":
				dst = &e.CacheWrite
			case "cache_creation_input_token_cost_above_1hr":
				dst = &e.CacheWrite1h
			case "cache_read_input_token_cost":
				dst = &e.CacheRead
			}
			if string(v) == "null" {
				continue
			}
			if dst != nil {
				var f float64
				if err := json.Unmarshal(v, &f); err != nil {
					return nil, fmt.Errorf("model %s: %s: not a number", name, k)
				}
				*dst = &f
				continue
			}
			m := aboveTokens.FindStringSubmatch(k)
			if m == nil {
				continue
			}
			var f float64
			if err := json.Unmarshal(v, &f); err != nil {
				return nil, fmt.Errorf("model %s: %s: not a number", name, k)
			}
			n, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil {
				continue
			}
			at := map[string]*map[int64]float64{"input_cost_per_token": &e.LongInput, "output_cost_per_token": &e.LongOutput,
				"cache_creation_input_token_cost": &e.LongCacheWrite, "cache_read_input_token_cost": &e.LongCacheRead}[m[1]]
			if *at == nil {
				*at = map[int64]float64{}
			}
			(*at)[n*1000] = f
		}
		if e.Input == nil || e.Output == nil {
			continue
		}
		mp := ModelPrice{Rates: liteRates(e.Input, e.Output, e.CacheWrite, e.CacheWrite1h, e.CacheRead), Source: "file"}
		if len(e.LongInput) > 0 {
			// The lowest threshold given for input is the long-context one.
			var th int64
			for n := range e.LongInput {
				if th == 0 || n < th {
					th = n
				}
			}
			get := func(m map[int64]float64, base *float64) *float64 {
				if v, ok := m[th]; ok {
					return &v
				}
				return base
			}
			lc := liteRates(get(e.LongInput, e.Input), get(e.LongOutput, e.Output), get(e.LongCacheWrite, e.CacheWrite), nil, get(e.LongCacheRead, e.CacheRead))
			mp.LongContext = &LongContext{Threshold: th, Rates: lc}
		}
		if err := mp.check(); err != nil {
			return nil, fmt.Errorf("model %s: %w", name, err)
		}
		key := normalizeModel(name)
		if _, ok := p.Models[key]; !ok && key != "" {
			p.Models[key] = mp
		}
	}
	if len(p.Models) == 0 {
		return nil, fmt.Errorf("no models with input_cost_per_token and output_cost_per_token")
	}
	// A dated name (claude-opus-4-1-20250805) also answers for its
	// undated one, unless the file has that too; the earliest date wins,
	// as names sort.
	dated := p.ModelNames()
	for _, name := range dated {
		short := dateSuffix.ReplaceAllString(bedrockSuffix.ReplaceAllString(name, ""), "")
		if _, ok := p.Models[short]; !ok && short != name {
			p.Models[short] = p.Models[name]
		}
	}
	return p, nil
}

// liteRates turns per-token costs into rates per million tokens.
func liteRates(in, out, cw, cw1h, cr *float64) Rates {
	perM := func(v *float64) float64 {
		if v == nil {
			return 0
		}
		// 2e-07 per token is 0.2 per million, not 0.19999999999999998.
		m, _ := strconv.ParseFloat(strconv.FormatFloat(*v*1e6, 'g', 12, 64), 64)
		return m
	}
	r := Rates{Input: perM(in), Output: perM(out), CacheWrite5m: perM(cw), CacheRead: perM(cr)}
	switch {
	case cw1h != nil:
		r.CacheWrite1h = perM(cw1h)
	case cw != nil:
		// A model with cache writes writes for an hour at 2x input.
		r.CacheWrite1h = 2 * r.Input
	}
	return r
}

var (
	dateSuffix    = regexp.MustCompile(`[-@](20\d{6}|\d{4}-\d{2}-\d{2})$`)
	bracketSuffix = regexp.MustCompile(`\[[^\]]*\]$`)
	bedrockSuffix = regexp.MustCompile(`-v\d+(:\d+)?$`)
)

// normalizeModel lowercases a model name and drops a provider prefix
// (anthropic/, us.anthropic.) and a [1m]-style suffix.
func normalizeModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m = bracketSuffix.ReplaceAllString(m, "")
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, prefix := range []string{"us.anthropic.", "eu.anthropic.", "apac.anthropic.", "global.anthropic.", "anthropic.", "openai."} {
		m = strings.TrimPrefix(m, prefix)
	}
	return m
}

// Lookup finds a model's prices. It ignores case, provider prefixes
// (anthropic/, us.anthropic.), a [1m]-style suffix, a Bedrock version
// suffix, a date suffix and a dot for a dash in a Claude model's version
// (claude-sonnet-4.5); it returns false for a model it does not
// know.
func (p *Prices) Lookup(model string) (ModelPrice, string, bool) {
	m := normalizeModel(model)
	if mp, ok := p.Models[m]; ok {
		return mp, m, true
	}
	m = bedrockSuffix.ReplaceAllString(m, "")
	m = dateSuffix.ReplaceAllString(m, "")
	mp, ok := p.Models[m]
	if !ok && strings.HasPrefix(m, "claude-") && strings.Contains(m, ".") {
		// GitHub Copilot names Claude models with a dot: claude-sonnet-4.5.
		m = strings.ReplaceAll(m, ".", "-")
		mp, ok = p.Models[m]
	}
	return mp, m, ok
}

// LongContextInput is the input that decides whether a request pays
// long-context rates: the uncached input, cache writes and cache reads,
// as Anthropic counts it ("requests that exceed 200K input tokens",
// cache tokens included) and OpenAI too (cached input is input).
func LongContextInput(t Tokens) int64 {
	return t.Input + t.CacheWrite5m + t.CacheWrite1h + t.CacheRead
}

// RatesFor are the rates a request pays: the long-context rates for the
// whole request when its input exceeds the threshold (a request of
// exactly the threshold pays standard rates); for a fast-mode request,
// fast mode's rates (and fast mode's long-context rates above their
// threshold). A model without fast rates pays its standard ones.
func (mp ModelPrice) RatesFor(input int64, fast bool) Rates {
	if fast && mp.Fast != nil {
		if lc := mp.Fast.LongContext; lc != nil && input > lc.Threshold {
			return lc.Rates
		}
		return mp.Fast.Rates
	}
	if lc := mp.LongContext; lc != nil && input > lc.Threshold {
		return lc.Rates
	}
	return mp.Rates
}

// Cost prices one request.
func (mp ModelPrice) Cost(t Tokens, fast bool) float64 {
	return costAt(t, mp.RatesFor(LongContextInput(t), fast))
}

// costAt prices tokens at rates r.
func costAt(t Tokens, r Rates) float64 {
	return (float64(t.Input)*r.Input + float64(t.Output)*r.Output + float64(t.CacheWrite5m)*r.CacheWrite5m +
		float64(t.CacheWrite1h)*r.CacheWrite1h + float64(t.CacheRead)*r.CacheRead) / 1e6
}

// bandInputs are an input in each of the store's long-context bands
// (store.RequestSum.Band): up to 200,000 tokens, up to 272,000, above.
var bandInputs = [...]int64{0, 200_001, 272_001}

// bandsExact reports whether the store's long-context bands decide every
// price's rates: each threshold is one of the bands' bounds, so that
// every request of a band pays the rates of bandInputs[band].
func (p *Prices) bandsExact() bool {
	ok := func(lc *LongContext) bool { return lc == nil || lc.Threshold == 200_000 || lc.Threshold == 272_000 }
	for _, mp := range p.Models {
		if !ok(mp.LongContext) || (mp.Fast != nil && !ok(mp.Fast.LongContext)) {
			return false
		}
	}
	return true
}

// ModelNames lists the table's models, sorted.
func (p *Prices) ModelNames() []string {
	names := make([]string, 0, len(p.Models))
	for n := range p.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
