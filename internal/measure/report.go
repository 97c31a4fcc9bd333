package measure

import (
	"fmt"

	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
)

// Report is the result of "mcpcost measure" for one server: the plain data
// behind its text, JSON and Markdown forms.
type Report struct {
	Schema             string  `json:"schema"`
	Server             string  `json:"server"`
	Status             string  `json:"status"`
	Detail             string  `json:"detail,omitempty"`
	MethodologyVersion string  `json:"methodologyVersion"`
	Encoding           string  `json:"encoding"`
	Source             *Source `json:"source,omitempty"`
	ServerVersion      string  `json:"serverVersion,omitempty"`

	TotalTokens     int    `json:"totalTokens"`
	ToolCount       int    `json:"toolCount"`
	CanonicalSha256 string `json:"canonicalSha256"`
	CanonicalBytes  int    `json:"canonicalBytes"`
	SumOfToolTokens int    `json:"sumOfToolTokens"`
	// Note explains why per-tool counts do not add up to the total.
	Note string `json:"note"`
	// Tools, heaviest first (ties in capture order).
	Tools []Tool `json:"tools"`

	Extras       *Extras  `json:"extras,omitempty"`
	ChangedTools []string `json:"changedTools"`
	Warnings     []string `json:"warnings"`
	// Claude is what Claude receives: a different number from the
	// headline, shown beside it.
	Claude *claude.Report `json:"claude,omitempty"`
	// Budget is the verdict of --budget; null without one.
	Budget *Budget `json:"budget"`
	// Top, when over 0, is how many of Tools the text lists (--top); the
	// JSON keeps every tool, so that a report saved with --top is still
	// a whole baseline.
	Top int `json:"-"`
}

// NewReport builds the report of a measured capture.
func NewReport(server string, st status.Status, src *Source, r *Result) *Report {
	rep := &Report{
		Schema:             Schema,
		Server:             server,
		Status:             string(st),
		MethodologyVersion: MethodologyVersion,
		Encoding:           "o200k_base",
		Source:             src,
		TotalTokens:        r.TotalTokens,
		ToolCount:          r.ToolCount,
		CanonicalSha256:    r.CanonicalSha256,
		CanonicalBytes:     r.CanonicalBytes,
		SumOfToolTokens:    r.SumOfToolTokens,
		Note:               JoinNote(r.TotalTokens, r.SumOfToolTokens),
		Tools:              make([]Tool, 0, len(r.Tools)),
	}
	for _, i := range r.Heaviest() {
		rep.Tools = append(rep.Tools, r.Tools[i])
	}
	return rep
}

// JoinNote says how the per-tool counts relate to the total.
func JoinNote(total, sum int) string {
	switch d := total - sum; {
	case d == 0:
		return "per-tool counts add up to the total here; in general they need not: the total counts the whole canonical array once"
	default:
		return fmt.Sprintf("per-tool counts add up to %s, not %s: the total counts the whole canonical array once, and tokens merge differently at the joins between tools (brackets, commas)", num.Int(sum), num.Int(total))
	}
}

// PartsPresent returns the part names that any tool of r has, in display
// order.
func (r *Report) PartsPresent() []string {
	seen := map[string]bool{}
	for _, t := range r.Tools {
		for _, p := range t.Parts {
			seen[p.Name] = true
		}
	}
	var out []string
	for _, n := range PartNames {
		if seen[n] {
			out = append(out, n)
		}
	}
	return out
}

// FailedReport is the report of a server that could not be measured.
func FailedReport(server string, st status.Status, detail string, src *Source) *Report {
	return &Report{
		Schema:             Schema,
		Server:             server,
		Status:             string(st),
		Detail:             detail,
		MethodologyVersion: MethodologyVersion,
		Encoding:           "o200k_base",
		Source:             src,
		Tools:              []Tool{},
	}
}
