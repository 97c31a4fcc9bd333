package findings

import (
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
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
