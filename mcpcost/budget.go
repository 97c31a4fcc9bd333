package mcpcost

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// A Budget is a limit on what a server's tool definitions may cost, in
// tokens of the headline methodology. A limit of zero (or less) is no limit.
type Budget struct {
	// Total limits Measurement.TotalTokens.
	Total int
	// PerTool limits each tool's Tokens.
	PerTool int
	// Tools limits the named tools, in place of PerTool. A name the
	// server has no tool for is itself over budget (a renamed tool would
	// otherwise slip out of its limit).
	Tools map[string]int
}

// A BudgetError says what is over a [Budget].
type BudgetError struct {
	Server string
	// Total and TotalLimit are set when the total is over its limit.
	Total, TotalLimit int
	// Tools are the tools over their limit, in capture order.
	Tools []ToolOver
	// Missing names the tools Budget.Tools limits that the server does
	// not have, sorted.
	Missing []string
}

// A ToolOver is a tool over its limit.
type ToolOver struct {
	Name          string
	Tokens, Limit int
}

// Error names the total and each tool over its limit; the names are
// escaped (a control character reads as \x1b, ...), as a server chose
// them and a test prints them on a terminal.
func (e *BudgetError) Error() string {
	var parts []string
	if e.TotalLimit > 0 {
		parts = append(parts, fmt.Sprintf("total %d tokens, limit %d (%d over)", e.Total, e.TotalLimit, e.Total-e.TotalLimit))
	}
	for _, t := range e.Tools {
		parts = append(parts, fmt.Sprintf("tool %s %d tokens, limit %d (%d over)", textsafe.Text(t.Name), t.Tokens, t.Limit, t.Tokens-t.Limit))
	}
	for _, n := range e.Missing {
		parts = append(parts, fmt.Sprintf("tool %s has a limit but the server has no such tool", textsafe.Text(n)))
	}
	return textsafe.Text(e.Server) + " is over its token budget: " + strings.Join(parts, "; ")
}

// CheckBudget checks m against b. It returns nil when m is within every
// limit, else a *[BudgetError] naming the total and each tool over its
// limit. A figure equal to its limit is within it.
func (m *Measurement) CheckBudget(b Budget) error {
	e := &BudgetError{Server: m.Name}
	if b.Total > 0 && m.TotalTokens > b.Total {
		e.Total, e.TotalLimit = m.TotalTokens, b.Total
	}
	seen := map[string]bool{}
	for _, t := range m.Tools {
		seen[t.Name] = true
		limit, ok := b.Tools[t.Name]
		if !ok {
			limit = b.PerTool
		}
		if limit > 0 && t.Tokens > limit {
			e.Tools = append(e.Tools, ToolOver{Name: t.Name, Tokens: t.Tokens, Limit: limit})
		}
	}
	for n := range b.Tools {
		if !seen[n] {
			e.Missing = append(e.Missing, n)
		}
	}
	sort.Strings(e.Missing)
	if e.TotalLimit == 0 && len(e.Tools) == 0 && len(e.Missing) == 0 {
		return nil
	}
	return e
}
