package measure

import (
	"fmt"
	"sort"
	"strings"
)

// SortKeys are the orders a report's tools can be listed in (measure
// --sort): by the tool's tokens or a part's, heaviest first and ties by
// name, or by name.
var SortKeys = []string{"tokens", "name", "description", "inputSchema", "outputSchema"}

// SortTools orders tools by key (one of SortKeys): "tokens" by the tool's
// own count, "description", "inputSchema" and "outputSchema" by that
// part's, each heaviest first with ties by name; "name" by name. Equal
// names keep their order.
func SortTools(tools []Tool, key string) error {
	var weight func(t *Tool) int
	switch key {
	case "tokens":
		weight = func(t *Tool) int { return t.Tokens }
	case "description", "inputSchema", "outputSchema":
		weight = func(t *Tool) int { return t.PartTokens(key) }
	case "name":
		sort.SliceStable(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
		return nil
	default:
		return fmt.Errorf("--sort must be one of %s, not %q", strings.Join(SortKeys, ", "), key)
	}
	sort.SliceStable(tools, func(i, j int) bool {
		wi, wj := weight(&tools[i]), weight(&tools[j])
		if wi != wj {
			return wi > wj
		}
		return tools[i].Name < tools[j].Name
	})
	return nil
}

// A Budget is measure --budget's verdict: whether the total is within
// Limit, and by how much it is over.
type Budget struct {
	Limit int  `json:"limit"`
	Pass  bool `json:"pass"`
	// Over is how many tokens the total is over Limit; 0 when within.
	Over int `json:"over"`
}

// CheckBudget sets r.Budget to the verdict of limit on r's total.
func (r *Report) CheckBudget(limit int) {
	b := &Budget{Limit: limit, Pass: r.TotalTokens <= limit}
	if !b.Pass {
		b.Over = r.TotalTokens - limit
	}
	r.Budget = b
}
