package cli

import (
	"sort"
	"strings"

	"github.com/mcpcost/mcpcost/internal/render"
)

func init() {
	register(&Command{
		Name:  "prices",
		Short: "the price table in force, with dates and sources",
		Usage: `usage: mcpcost prices [MODEL...] [--prices FILE] [--json]

Prints the prices that usage, blocks, findings and report apply: USD per
million tokens of uncached input, output, 5-minute and 1-hour cache writes
and cache reads, the long-context and fast-mode rates where a model has
them, the date the price took effect (where a source gives it) and the
source it was checked against. With MODEL names, prints the entry each
name resolves to (case, provider prefixes such as anthropic/ or
us.anthropic., a [1m] suffix, Bedrock versions and date suffixes are
ignored), or the reason a model known to the table has no price. A name
the table does not know is an error, with the closest names it knows.

A model without a price is never guessed: usage reports count its tokens
and show its cost as unpriced (null in JSON), and a total that leaves such
requests out says it is partial.

Long context: a request whose input (uncached input + cache writes + cache
reads) exceeds a model's threshold pays the long-context rates for the
whole request, output included, as Anthropic and OpenAI bill it (Claude
Sonnet 4 and 4.5 above 200,000 tokens; GPT-5.4 and later above 272,000). A
request of exactly the threshold pays standard rates. ccusage 20.0.24
prices Claude's long context per kind of token instead: each kind at
standard rates up to 200,000 tokens of that kind and at premium rates
beyond, whatever the request's total, so its figures differ for such
requests.

Flags:
  --prices FILE  a price table instead of the embedded one: mcpcost's format
                 (that of 'mcpcost prices --json' without the rows' model
                 and key, or of the embedded prices.json), or LiteLLM's
                 model_prices_and_context_window.json, the file ccusage
                 uses (input_cost_per_token, output_cost_per_token,
                 cache_creation_input_token_cost, cache_read_input_token_cost
                 and their *_above_200k_tokens variants, per token; a 1-hour
                 cache write without its own price costs 2x input, as
                 ccusage prices it)
  --json         the table as JSON (schema mcpcost.prices/v1)

JSON fields: schema, updated (YYYY-MM-DD), file (absent for the embedded
table), format (mcpcost or litellm), unit, sources [{id, name, url, read}],
longContextRule, notes, models [{model, key, input, output, cacheWrite5m,
cacheWrite1h, cacheRead, longContext {threshold, input, ...}, fast {...},
source, since}], unpriced [{model, reason}].

Exit status: 0 done, 2 a model the table does not know, a --prices file
that does not exist or cannot be read, or a usage error.`,
		Run: runPrices,
	})
}

func runPrices(env *Env, args []string) int {
	f := newFlags("prices")
	asJSON := f.Bool("json", "")
	pricesFile := f.String("prices", "", "")
	pos, rest, ok := f.parseOrUsage(env, args)
	if !ok {
		return ExitError
	}
	if len(rest) > 0 {
		return usageError(env, "prices", "prices takes model names, not %q after --", rest[0])
	}
	p, err := machine(env).Prices(*pricesFile)
	if err != nil {
		return fail(env, err)
	}
	// A name the table does not know is an error; one it leaves without a
	// price on purpose (with its reason) is an answer.
	var known, unknown []string
	for _, m := range pos {
		_, key, ok := p.Lookup(m)
		if _, unpriced := p.Unpriced[key]; ok || unpriced {
			known = append(known, m)
		} else {
			unknown = append(unknown, m)
		}
	}
	if len(pos) == 0 || len(known) > 0 {
		t := p.Table(known)
		if *asJSON {
			err = render.JSON(env.Stdout, t)
		} else {
			err = t.WriteText(env.Stdout, env.Screen())
		}
		if err != nil {
			return fail(env, err)
		}
	}
	for _, m := range unknown {
		errorf(env, "no model %q in the price table", m)
		if near := closeModels(m, p.ModelNames()); len(near) > 0 {
			hintf(env, "close names: %s ('mcpcost prices' lists every model)", strings.Join(near, ", "))
		} else {
			hintf(env, "'mcpcost prices' lists every model in the table")
		}
	}
	if len(unknown) > 0 {
		return ExitError
	}
	return ExitOK
}

// closeModels returns up to three of names close to model: within a few
// edits of it, or holding it, or held by it (case and a provider prefix
// aside), the closest first.
func closeModels(model string, names []string) []string {
	m := strings.ToLower(model)
	if i := strings.LastIndexAny(m, "/."); i >= 0 && i < len(m)-1 && strings.Contains(m[:i], "anthropic") {
		m = m[i+1:]
	}
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, n := range names {
		d := editDistance(m, n)
		switch {
		case d <= 3:
		case len(m) >= 4 && (strings.Contains(n, m) || strings.Contains(m, n)):
			d = 4 + abs(len(n)-len(m))
		default:
			continue
		}
		cs = append(cs, cand{n, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
