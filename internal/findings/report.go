package findings

import (
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/measure"
)

// ReportSchema is the version of the combined report's JSON.
const ReportSchema = "mcpcost.report/v1"

// Overview is the static audit and the run time together, for the person
// at the keyboard: per config, what is paid before typing and what was
// used; every server called; the findings.
type Overview struct {
	Schema        string    `json:"schema"`
	GeneratedAt   time.Time `json:"generatedAt"`
	Window        Window    `json:"window"`
	PricesUpdated string    `json:"pricesUpdated"`
	// ContextWindow is the window shares are of.
	ContextWindow int `json:"contextWindow"`
	// Configs: per config, what it pays and what its sessions used.
	Configs []ConfigUse `json:"configs"`
	// Problems are config files that could not be read.
	Problems      []audit.Problem `json:"problems"`
	ServersCalled []ServerCalls   `json:"serversCalled"`
	Counts        Counts          `json:"counts"`
	Findings      []Finding       `json:"findings"`
	Partial       bool            `json:"partial"`
	// Offline is set when the configs were measured from the cache only.
	Offline bool     `json:"offline"`
	Notes   []string `json:"notes"`
	// Timeline is the window by day, session and project (the charts'
	// and tables' data).
	Timeline
	// TokensCapped is set when a token sum of the report (the findings'
	// or the timeline's) reached the largest 64-bit integer, where sums
	// stop rather than wrap: such a figure is a lower bound, not exact.
	TokensCapped bool `json:"tokensCapped"`
}

// NewOverview puts findings and the static audit they were computed from
// into one report.
func NewOverview(r *Report, static *audit.Report) *Overview {
	o := &Overview{
		Schema:        ReportSchema,
		GeneratedAt:   r.GeneratedAt,
		Window:        r.Window,
		PricesUpdated: r.PricesUpdated,
		ContextWindow: audit.DefaultContextWindow,
		Configs:       r.Configs,
		Problems:      []audit.Problem{},
		ServersCalled: r.ServersCalled,
		Counts:        r.Counts,
		Findings:      r.Findings,
		Partial:       r.Partial,
		Notes:         r.Notes,
		TokensCapped:  r.TokensCapped || r.Timeline != nil && r.Timeline.capped(),
		Timeline:      Timeline{Days: []DayUse{}, Sessions: []SessionUse{}, Projects: []ProjectUse{}},
	}
	if r.Timeline != nil {
		o.Timeline = *r.Timeline
	}
	if static != nil {
		// Each measured server's tools and their parts, for the treemap,
		// from the audited config the join was made of: on copies, so that
		// the findings' report is not changed.
		o.Configs = make([]ConfigUse, len(r.Configs))
		for i, c := range r.Configs {
			c.Servers = append([]ServerUse(nil), c.Servers...)
			if ac := auditedConfig(static, c.ConfigRef); ac != nil {
				for j := range c.Servers {
					if j < len(ac.Servers) && ac.Servers[j].Name == c.Servers[j].Name {
						c.Servers[j].Tools = toolSizes(ac.Servers[j].Tools)
					}
				}
			}
			o.Configs[i] = c
		}
	}
	if static != nil {
		o.ContextWindow = static.ContextWindow
		o.Problems = static.Problems
		o.Offline = static.Offline
		if len(static.Problems) > 0 {
			o.Partial = true
		}
	}
	return o
}

// ToolSize is one tool's definition tokens, with its parts'.
type ToolSize struct {
	Name   string         `json:"name"`
	Tokens int            `json:"tokens"`
	Parts  []measure.Part `json:"parts"`
}

func toolSizes(tools []measure.Tool) []ToolSize {
	if len(tools) == 0 {
		return nil
	}
	out := make([]ToolSize, len(tools))
	for i, t := range tools {
		parts := t.Parts
		if parts == nil {
			parts = []measure.Part{}
		}
		out[i] = ToolSize{Name: t.Name, Tokens: t.Tokens, Parts: parts}
	}
	return out
}

// auditedConfig is the session or config of the audit a join was made of.
func auditedConfig(static *audit.Report, ref ConfigRef) *audit.Config {
	for i := range static.Sessions {
		c := &static.Sessions[i].Config
		if c.Client == ref.Client && c.Path == ref.Path && c.Scope == ref.Scope {
			return c
		}
	}
	for i := range static.Configs {
		c := &static.Configs[i]
		if c.Client == ref.Client && c.Path == ref.Path && c.Scope == ref.Scope {
			return c
		}
	}
	return nil
}
