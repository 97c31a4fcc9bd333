package usage

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// LongContextRule says how long-context rates apply, as mcpcost applies
// them (and how ccusage differs).
const LongContextRule = "whole request: a request whose input (uncached input + cache writes + cache reads) exceeds the threshold pays the long-context rates for all of its tokens, output included, as Anthropic and OpenAI bill it; a request of exactly the threshold pays standard rates. " +
	"ccusage 20.0.24 differs for Claude: it prices each kind of token on its own, standard up to 200,000 tokens of that kind and premium beyond, whatever the request's total input (for GPT-5.4 and later it applies the whole-request rule)"

// PriceTable is the price table in force, as 'mcpcost prices' prints it.
// Keep in sync with the prices command's manual.
type PriceTable struct {
	Schema  string `json:"schema"`
	Updated string `json:"updated"`
	// File is the table's file; empty for the table embedded in mcpcost.
	File            string        `json:"file,omitempty"`
	Format          string        `json:"format"` // mcpcost or litellm
	Unit            string        `json:"unit"`
	Sources         []PriceSource `json:"sources"`
	LongContextRule string        `json:"longContextRule"`
	Notes           []string      `json:"notes"`
	Models          []PriceRow    `json:"models"`
	// Unpriced lists models left without a price on purpose, and models
	// asked for that the table does not know.
	Unpriced []UnpricedModel `json:"unpriced"`
}

// PriceRow is one model's prices.
type PriceRow struct {
	// Model is the name asked for, or the table's name when listing all.
	Model string `json:"model"`
	// Key is the table's entry the name resolves to.
	Key string `json:"key"`
	ModelPrice
}

// UnpricedModel is a model without a price, and why.
type UnpricedModel struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
}

// Table lists the prices of models (every model in the table when none
// are named), sorted by name when listing all.
func (p *Prices) Table(models []string) *PriceTable {
	t := &PriceTable{Schema: PricesSchema, Updated: p.Updated, File: p.File, Format: p.Format, Unit: "USD per million tokens",
		Sources: p.Sources, LongContextRule: LongContextRule, Notes: p.Notes, Models: []PriceRow{}, Unpriced: []UnpricedModel{}}
	if t.Sources == nil {
		t.Sources = []PriceSource{}
	}
	if len(models) == 0 {
		for _, name := range p.ModelNames() {
			t.Models = append(t.Models, PriceRow{Model: name, Key: name, ModelPrice: p.Models[name]})
		}
		names := make([]string, 0, len(p.Unpriced))
		for n := range p.Unpriced {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			t.Unpriced = append(t.Unpriced, UnpricedModel{Model: n, Reason: p.Unpriced[n]})
		}
		return t
	}
	for _, m := range models {
		mp, key, ok := p.Lookup(m)
		if ok {
			t.Models = append(t.Models, PriceRow{Model: m, Key: key, ModelPrice: mp})
			continue
		}
		reason := "not in the price table"
		if r, known := p.Unpriced[key]; known {
			reason = r
		}
		t.Unpriced = append(t.Unpriced, UnpricedModel{Model: m, Reason: reason})
	}
	return t
}

func rate(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// rates are a model's other rates in the table's column order: input,
// output, 5-minute and 1-hour cache writes, cache read.
func rates(r Rates) string {
	return strings.Join([]string{rate(r.Input), rate(r.Output), rate(r.CacheWrite5m), rate(r.CacheWrite1h), rate(r.CacheRead)}, " / ")
}

// WriteText prints the table for a terminal.
func (t *PriceTable) WriteText(w io.Writer, scr render.Screen) error {
	var b strings.Builder
	from := "the table embedded in mcpcost"
	if t.File != "" {
		from = t.File
		if t.Format == "litellm" {
			from += " (LiteLLM's model-price JSON)"
		}
	}
	para := func(head, text, indent string) {
		for _, l := range render.Wrap(head, textsafe.Text(text), indent, scr.Width) {
			b.WriteString(l + "\n")
		}
	}
	para("", fmt.Sprintf("Prices in force: %s, updated %s, in %s", from, t.Updated, t.Unit), "  ")
	b.WriteString("\n")
	R, L := render.Right, render.Left
	tb := render.Table{Header: []string{"MODEL", "INPUT", "OUTPUT", "CACHE WRITE 5M", "CACHE WRITE 1H", "CACHE READ", "LONG CONTEXT", "FAST", "SINCE", "SOURCE"},
		Align: []render.Align{L, R, R, R, R, R, L, L, L, L},
		Min:   []int{0, 0, 0, 0, 0, 0, 14, 10, 0, 8},
		Drop:  []int{0, 0, 0, 0, 2, 0, 4, 5, 3, 1},
		Wrap:  []bool{false, false, false, false, false, false, true, true}}
	tb.Fit(scr)
	for _, m := range t.Models {
		name := m.Model
		if m.Key != m.Model {
			name += " (" + m.Key + ")"
		}
		lc, fast := "-", "-"
		if m.LongContext != nil {
			lc = "above " + render.Int(int(m.LongContext.Threshold)) + ": " + rates(m.LongContext.Rates)
		}
		if m.Fast != nil {
			fast = rates(m.Fast.Rates)
			if lc := m.Fast.LongContext; lc != nil {
				fast += "; above " + render.Int(int(lc.Threshold)) + ": " + rates(lc.Rates)
			}
		}
		since, src := m.Since, m.Source
		if since == "" {
			since = "-"
		}
		if src == "" {
			src = "-"
		}
		tb.Add(name, rate(m.Input), rate(m.Output), rate(m.CacheWrite5m), rate(m.CacheWrite1h), rate(m.CacheRead), lc, fast, since, src)
	}
	if len(t.Models) > 0 {
		if err := tb.Write(&b); err != nil {
			return err
		}
		b.WriteString("\n")
	}
	if len(t.Unpriced) > 0 {
		b.WriteString("Unpriced (their tokens are counted, their cost is not):\n")
		for _, u := range t.Unpriced {
			para("  ", u.Model+": "+u.Reason, "    ")
		}
		b.WriteString("\n")
	}
	para("", "LONG CONTEXT and FAST give the rates in the columns' order (input / output / cache write 5m / cache write 1h / cache read).", "")
	para("", "Long context: "+t.LongContextRule+".", "  ")
	if len(t.Sources) > 0 {
		b.WriteString("\nSources:\n")
		for _, s := range t.Sources {
			line := ""
			if s.ID != "" {
				line += s.ID + ": "
			}
			line += s.Name
			if s.URL != "" {
				line += ", " + s.URL
			}
			if s.Read != "" {
				line += " (read " + s.Read + ")"
			}
			para("  ", line, "    ")
		}
	}
	if len(t.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range t.Notes {
			para("  - ", n, "    ")
		}
	}
	return scr.Emit(w, b.String())
}
