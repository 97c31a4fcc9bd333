package usage_test

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/usage"
)

// TestLookup resolves the names agents write to the table's entries.
func TestLookup(t *testing.T) {
	p := usage.DefaultPrices()
	tests := []struct {
		model string
		key   string
		ok    bool
		input float64
	}{
		{"gpt-5.2", "gpt-5.2", true, 1.75},
		{"gpt-5.2-codex", "gpt-5.2-codex", true, 1.75},
		{"gpt-5.3-codex", "gpt-5.3-codex", true, 1.75},
		{"openai/GPT-5.3-Codex", "gpt-5.3-codex", true, 1.75},
		{"gpt-5.4", "gpt-5.4", true, 2.5},
		{"gpt-5-codex", "gpt-5-codex", true, 1.25},
		{"claude-opus-5-5", "claude-opus-5-5", true, 4},
		{"claude-opus-5-5[1m]", "claude-opus-5-5", true, 4},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", true, 3},
		{"us.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4", true, 3},
		{"anthropic/claude-haiku-4-5", "claude-haiku-4-5", true, 1},
		// Left unpriced on purpose, and unknown: never guessed from a
		// prefix, as ccusage does (it prices spark as gpt-5.3-codex).
		{"gpt-5.3-codex-spark", "gpt-5.3-codex-spark", false, 0},
		{"gpt-5-codex-mini", "gpt-5-codex-mini", false, 0},
		{"gpt-5.2-codex-preview", "gpt-5.2-codex-preview", false, 0},
		{"claude-unknown-9", "claude-unknown-9", false, 0},
		{"<synthetic>", "<synthetic>", false, 0},
		{"", "", false, 0},
	}
	for _, tt := range tests {
		mp, key, ok := p.Lookup(tt.model)
		if key != tt.key || ok != tt.ok || mp.Input != tt.input {
			t.Errorf("Lookup(%q) = %q %v (input %v), want %q %v (input %v)", tt.model, key, ok, mp.Input, tt.key, tt.ok, tt.input)
		}
	}
}

// TestPricesSourced checks the embedded table: every price names a source
// the table lists, dates are dates, and a model left unpriced on purpose
// says why and has no price.
func TestPricesSourced(t *testing.T) {
	p := usage.DefaultPrices()
	if p.Schema != usage.PricesSchema || p.Updated == "" {
		t.Fatalf("schema %q updated %q", p.Schema, p.Updated)
	}
	ids := map[string]bool{}
	for _, s := range p.Sources {
		if s.ID == "" || s.URL == "" || s.Read == "" {
			t.Errorf("source %+v lacks an id, url or read date", s)
		}
		ids[s.ID] = true
	}
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for name, m := range p.Models {
		if !ids[m.Source] {
			t.Errorf("%s: source %q is not in the table's sources", name, m.Source)
		}
		if m.Since != "" {
			if _, err := time.Parse("2006-01-02", m.Since); err != nil || !date.MatchString(m.Since) {
				t.Errorf("%s: since %q is not a date", name, m.Since)
			}
		}
		if m.Input <= 0 || m.Output <= 0 || m.CacheRead <= 0 {
			t.Errorf("%s: input, output and cache read must be priced: %+v", name, m.Rates)
		}
		// Claude Haiku 3 is the exception Anthropic lists: $0.30 and $0.50.
		if strings.HasPrefix(name, "claude-") && name != "claude-3-haiku" && (m.CacheWrite5m != 1.25*m.Input || m.CacheWrite1h != 2*m.Input) {
			t.Errorf("%s: cache writes %v / %v are not 1.25x / 2x input %v", name, m.CacheWrite5m, m.CacheWrite1h, m.Input)
		}
	}
	for name, why := range p.Unpriced {
		if _, ok := p.Models[name]; ok || why == "" {
			t.Errorf("%s: unpriced on purpose but priced, or no reason given", name)
		}
	}
	// The models of issue 14's Codex sessions are priced.
	for _, m := range []string{"gpt-5.2", "gpt-5.2-codex", "gpt-5.3-codex"} {
		if _, _, ok := p.Lookup(m); !ok {
			t.Errorf("%s is unpriced", m)
		}
	}
}

// TestLongContextBoundary prices requests around the threshold, with the
// input spread over uncached input, cache writes and cache reads as
// Anthropic counts it: above the threshold, the whole request (output
// included) pays the long-context rates; at it, the standard ones.
func TestLongContextBoundary(t *testing.T) {
	p := usage.DefaultPrices()
	sonnet, _, _ := p.Lookup("claude-sonnet-4-5-20250929")
	gpt, _, _ := p.Lookup("gpt-5.4")
	opus, _, _ := p.Lookup("claude-opus-4-6")
	claude := func(n int64) usage.Tokens {
		// 1,000 uncached, 20,000 5-minute and 9,000 1-hour writes, the rest
		// read from the cache; 2,000 output.
		return usage.Tokens{Input: 1000, CacheWrite5m: 20000, CacheWrite1h: 9000, CacheRead: n - 30000, Output: 2000}
	}
	codex := func(n int64) usage.Tokens { return usage.Tokens{Input: 50000, CacheRead: n - 50000, Output: 2000} }
	price := func(t usage.Tokens, in, out, w5, w1, r float64) float64 {
		return (float64(t.Input)*in + float64(t.Output)*out + float64(t.CacheWrite5m)*w5 + float64(t.CacheWrite1h)*w1 + float64(t.CacheRead)*r) / 1e6
	}
	tests := []struct {
		name string
		mp   usage.ModelPrice
		t    usage.Tokens
		want float64
	}{
		{"sonnet 199,999", sonnet, claude(199999), price(claude(199999), 3, 15, 3.75, 6, 0.3)},
		{"sonnet 200,000", sonnet, claude(200000), price(claude(200000), 3, 15, 3.75, 6, 0.3)},
		{"sonnet 200,001", sonnet, claude(200001), price(claude(200001), 6, 22.5, 7.5, 12, 0.6)},
		// Input alone decides: output does not count towards the threshold.
		{"sonnet 200,000 + big output", sonnet, usage.Tokens{Input: 200000, Output: 50000}, price(usage.Tokens{Input: 200000, Output: 50000}, 3, 15, 0, 0, 0)},
		{"sonnet input alone 200,001", sonnet, usage.Tokens{Input: 200001}, 200001 * 6 / 1e6},
		// Claude 4.6 and later: the whole window at standard rates.
		{"opus 4.6 500,000", opus, claude(500000), price(claude(500000), 5, 25, 6.25, 10, 0.5)},
		{"gpt-5.4 271,999", gpt, codex(271999), price(codex(271999), 2.5, 15, 0, 0, 0.25)},
		{"gpt-5.4 272,000", gpt, codex(272000), price(codex(272000), 2.5, 15, 0, 0, 0.25)},
		{"gpt-5.4 272,001", gpt, codex(272001), price(codex(272001), 5, 22.5, 0, 0, 0.5)},
	}
	for _, tt := range tests {
		if got := tt.mp.Cost(tt.t, false); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: cost %.9f, want %.9f", tt.name, got, tt.want)
		}
	}
	if n := usage.LongContextInput(claude(200001)); n != 200001 {
		t.Errorf("long-context input %d, want 200001", n)
	}
	// The findings price a request the same way.
	fp := p.FindingsPricing()
	for _, in := range []int64{200000, 200001} {
		r, ok := fp("claude-sonnet-4-5", in, false)
		want := 3.0
		if in > 200000 {
			want = 6
		}
		if !ok || r.Input != want {
			t.Errorf("findings rate at %d: %v %v, want %v", in, r.Input, ok, want)
		}
	}
}

func TestFastMode(t *testing.T) {
	p := usage.DefaultPrices()
	op, _, _ := p.Lookup("claude-opus-4-8")
	if c := op.Cost(usage.Tokens{Input: 1e6}, true); c != 10 {
		t.Errorf("fast input cost %v, want 10", c)
	}
	if c := op.Cost(usage.Tokens{Input: 1e6}, false); c != 5 {
		t.Errorf("standard input cost %v, want 5", c)
	}
	// A model without fast rates pays its standard ones.
	s, _, _ := p.Lookup("claude-sonnet-5")
	if c := s.Cost(usage.Tokens{Output: 1e6}, true); c != 10 {
		t.Errorf("fast output cost without fast rates %v, want 10", c)
	}
}

// TestLoadLiteLLM reads LiteLLM's model-price JSON: per-token costs,
// above-200k variants, 1-hour writes, prefixed entries that do not win.
func TestLoadLiteLLM(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model_prices_and_context_window.json")
	os.WriteFile(path, []byte(`{
  "sample_spec": {"input_cost_per_token": 1, "output_cost_per_token": 1},
  "bedrock/anthropic.claude-sonnet-4-5": {"input_cost_per_token": 9e-06, "output_cost_per_token": 9e-05},
  "claude-sonnet-4-5": {"input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
    "cache_creation_input_token_cost": 3.75e-06, "cache_read_input_token_cost": 3e-07,
    "input_cost_per_token_above_200k_tokens": 6e-06, "output_cost_per_token_above_200k_tokens": 2.25e-05,
    "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06, "cache_read_input_token_cost_above_200k_tokens": 6e-07},
  "claude-opus-9": {"input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05,
    "cache_creation_input_token_cost": 6.25e-06, "cache_creation_input_token_cost_above_1hr": 1.2e-05, "cache_read_input_token_cost": 5e-07},
  "gpt-5.9": {"input_cost_per_token": 2e-06, "output_cost_per_token": 1.6e-05, "cache_read_input_token_cost": 2e-07,
    "input_cost_per_token_above_272k_tokens": 4e-06, "output_cost_per_token_above_272k_tokens": 2.4e-05},
  "openrouter/vendor/only-here": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "cache_read_input_token_cost": null},
  "no-input": {"input_cost_per_token": null, "output_cost_per_token": 2e-06},
  "claude-opus-7-20270101": {"input_cost_per_token": 7e-06, "output_cost_per_token": 3.5e-05},
  "text-embedding-9": {"input_cost_per_token": 1e-07, "mode": "embedding"}
}`), 0o644)
	p, err := usage.LoadPrices(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != "litellm" || p.File != path || p.Updated == "" || len(p.Sources) != 1 {
		t.Errorf("format %q file %q updated %q sources %v", p.Format, p.File, p.Updated, p.Sources)
	}
	tests := []struct {
		model string
		want  usage.Rates
		lc    *usage.LongContext
	}{
		{"claude-sonnet-4-5-20250929", usage.Rates{Input: 3, Output: 15, CacheWrite5m: 3.75, CacheWrite1h: 6, CacheRead: 0.3},
			&usage.LongContext{Threshold: 200000, Rates: usage.Rates{Input: 6, Output: 22.5, CacheWrite5m: 7.5, CacheWrite1h: 12, CacheRead: 0.6}}},
		{"claude-opus-9", usage.Rates{Input: 5, Output: 25, CacheWrite5m: 6.25, CacheWrite1h: 12, CacheRead: 0.5}, nil},
		{"gpt-5.9", usage.Rates{Input: 2, Output: 16, CacheRead: 0.2},
			&usage.LongContext{Threshold: 272000, Rates: usage.Rates{Input: 4, Output: 24, CacheRead: 0.2}}},
		{"only-here", usage.Rates{Input: 1, Output: 2}, nil},
		// Only a dated entry: it answers for the undated name, and the
		// dated one of another day.
		{"claude-opus-7", usage.Rates{Input: 7, Output: 35}, nil},
		{"claude-opus-7-20270315", usage.Rates{Input: 7, Output: 35}, nil},
	}
	for _, tt := range tests {
		mp, _, ok := p.Lookup(tt.model)
		if !ok || mp.Rates != tt.want {
			t.Errorf("%s: %+v %v, want %+v", tt.model, mp.Rates, ok, tt.want)
			continue
		}
		if (mp.LongContext == nil) != (tt.lc == nil) || mp.LongContext != nil && *mp.LongContext != *tt.lc {
			t.Errorf("%s: long context %+v, want %+v", tt.model, mp.LongContext, tt.lc)
		}
	}
	for _, m := range []string{"text-embedding-9", "sample_spec", "no-input"} {
		if _, _, ok := p.Lookup(m); ok {
			t.Errorf("%s is priced", m)
		}
	}
	// Whole-request rule on the file's rates too.
	mp, _, _ := p.Lookup("claude-sonnet-4-5")
	if c := mp.Cost(usage.Tokens{Input: 100000, CacheRead: 100001}, false); math.Abs(c-(100000*6+100001*0.6)/1e6) > 1e-12 {
		t.Errorf("long-context cost %v", c)
	}
	for name, body := range map[string]string{
		"no priced model": `{"a": {"mode": "chat"}}`,
		"bad number":      `{"a": {"input_cost_per_token": "x", "output_cost_per_token": 1}}`,
		"negative":        `{"a": {"input_cost_per_token": -1, "output_cost_per_token": 1}}`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := usage.LoadPrices(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v should name the file", name, err)
		}
	}
}

// TestPriceBounds: a price file's rate is from 0 to usage.MaxRate dollars
// per million tokens, so that no cost computed from it, nor any sum of
// such costs, leaves float64's finite range. Both sides of each bound,
// in both formats.
func TestPriceBounds(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, body string
		ok         bool
	}{
		{"litellm zero", `{"a": {"input_cost_per_token": 0, "output_cost_per_token": 0}}`, true},
		{"litellm at the bound", `{"a": {"input_cost_per_token": 1, "output_cost_per_token": 1}}`, true},
		{"litellm over", `{"a": {"input_cost_per_token": 1.0000001, "output_cost_per_token": 1}}`, false},
		{"litellm 1e308", `{"a": {"input_cost_per_token": 1, "output_cost_per_token": 1e308}}`, false},
		{"litellm long context over", `{"a": {"input_cost_per_token": 1, "output_cost_per_token": 1, "input_cost_per_token_above_200k_tokens": 2}}`, false},
		{"litellm cache read over", `{"a": {"input_cost_per_token": 1, "output_cost_per_token": 1, "cache_read_input_token_cost": 1e300}}`, false},
		{"mcpcost at the bound", `{"models": {"a": {"input": 1000000, "output": 1000000}}}`, true},
		{"mcpcost over", `{"models": {"a": {"input": 1000000.01, "output": 1}}}`, false},
		{"mcpcost fast over", `{"models": {"a": {"input": 1, "output": 1, "fast": {"input": 1e308, "output": 1}}}}`, false},
		{"mcpcost long context over", `{"models": {"a": {"input": 1, "output": 1, "longContext": {"threshold": 200000, "input": 1, "output": 1e7}}}}`, false},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
		os.WriteFile(path, []byte(tt.body), 0o644)
		_, err := usage.LoadPrices(path)
		if tt.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "over $1,000,000 per million tokens") {
			t.Errorf("%s: %v; want ok %v", tt.name, err, tt.ok)
		}
	}
}
