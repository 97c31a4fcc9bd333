package usage

import "github.com/mcpcost/mcpcost/internal/findings"

// FindingsPricing adapts a price table to the findings: the rates a request paid,
// as usage prices it (long-context rates above the threshold, fast mode).
func (p *Prices) FindingsPricing() findings.Pricing {
	return func(model string, input int64, fast bool) (findings.Rates, bool) {
		mp, _, ok := p.Lookup(model)
		if !ok {
			return findings.Rates{}, false
		}
		r := mp.RatesFor(input, fast)
		return findings.Rates{Input: r.Input, Output: r.Output, CacheWrite5m: r.CacheWrite5m, CacheWrite1h: r.CacheWrite1h, CacheRead: r.CacheRead}, true
	}
}
