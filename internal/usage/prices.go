package usage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

//go:embed prices.json
var embeddedPrices []byte

// Rates are prices in USD per million tokens.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cacheWrite5m"`
	CacheWrite1h float64 `json:"cacheWrite1h"`
	CacheRead    float64 `json:"cacheRead"`
}

// ModelPrice is one model's prices.
type ModelPrice struct {
	Rates
	// LongContext rates apply to a whole request whose input exceeds
	// Threshold tokens.
	LongContext *struct {
		Threshold int64 `json:"threshold"`
		Rates
	} `json:"longContext,omitempty"`
	// Fast rates apply to fast-mode requests.
	Fast *Rates `json:"fast,omitempty"`
}

// PriceSource names where prices come from.
type PriceSource struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
	Read string `json:"read,omitempty"`
}

// Prices is a dated price table.
type Prices struct {
	Schema  string                `json:"schema"`
	Updated string                `json:"updated"`
	Sources []PriceSource         `json:"sources"`
	Notes   []string              `json:"notes,omitempty"`
	Models  map[string]ModelPrice `json:"models"`
	// File is where the table was read from; empty for the embedded one.
	File string `json:"-"`
}

// DefaultPrices returns the table embedded in mcpcost.
func DefaultPrices() *Prices {
	p, err := parsePrices(embeddedPrices)
	if err != nil {
		panic("usage: embedded prices.json: " + err.Error())
	}
	return p
}

// LoadPrices reads a price table in the embedded table's format.
func LoadPrices(path string) (*Prices, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading prices: %w", err)
	}
	p, err := parsePrices(data)
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
		if m.Input < 0 || m.Output < 0 || m.CacheRead < 0 || m.CacheWrite5m < 0 || m.CacheWrite1h < 0 {
			return nil, fmt.Errorf("model %s: negative price", name)
		}
	}
	lower := make(map[string]ModelPrice, len(p.Models))
	for name, m := range p.Models {
		lower[strings.ToLower(name)] = m
	}
	p.Models = lower
	return &p, nil
}

var (
	dateSuffix    = regexp.MustCompile(`[-@](20\d{6}|\d{4}-\d{2}-\d{2})$`)
	bracketSuffix = regexp.MustCompile(`\[[^\]]*\]$`)
	bedrockSuffix = regexp.MustCompile(`-v\d+(:\d+)?$`)
)

// Lookup finds a model's prices. It ignores case, provider prefixes
// (anthropic/, us.anthropic.), a [1m]-style suffix, a Bedrock version
// suffix and a date suffix; it returns false for a model it does not
// know.
func (p *Prices) Lookup(model string) (ModelPrice, string, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	m = bracketSuffix.ReplaceAllString(m, "")
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, prefix := range []string{"us.anthropic.", "eu.anthropic.", "apac.anthropic.", "global.anthropic.", "anthropic.", "openai."} {
		m = strings.TrimPrefix(m, prefix)
	}
	if mp, ok := p.Models[m]; ok {
		return mp, m, true
	}
	m = bedrockSuffix.ReplaceAllString(m, "")
	m = dateSuffix.ReplaceAllString(m, "")
	mp, ok := p.Models[m]
	return mp, m, ok
}

// Cost prices one request. The input for the long-context threshold is
// the uncached input plus cache writes and reads.
func (mp ModelPrice) Cost(t Tokens, fast bool) float64 {
	r := mp.Rates
	if lc := mp.LongContext; lc != nil && t.Input+t.CacheWrite5m+t.CacheWrite1h+t.CacheRead > lc.Threshold {
		r = lc.Rates
	}
	if fast && mp.Fast != nil {
		r = *mp.Fast
	}
	return (float64(t.Input)*r.Input + float64(t.Output)*r.Output + float64(t.CacheWrite5m)*r.CacheWrite5m +
		float64(t.CacheWrite1h)*r.CacheWrite1h + float64(t.CacheRead)*r.CacheRead) / 1e6
}
