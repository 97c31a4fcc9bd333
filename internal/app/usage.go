package app

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// UsageOptions configure [Machine.Usage].
type UsageOptions struct {
	// Window bounds the period.
	Window usage.WindowArgs
	// Location buckets days; nil for the zone TZ names (see
	// [Machine.Location]).
	Location *time.Location
	TZ       string
	// By is the dimension of the rows (usage.Dimensions); Project keeps
	// one project (its path or folder name); Source is claude, codex,
	// copilot, goose or all.
	By, Project, Source string
	// Machine and User keep one machine's, or one OS user's, rows (the
	// names --by machine and --by user list).
	Machine, User string
	// Mode is how a request's cost is found (usage.Modes); "" for auto.
	Mode string
	// SplitAgents, by session, lists Claude Code's older sub-agent files
	// as sessions of their own.
	SplitAgents bool
	// StartOfWeek names the first day of a week, by week (usage.Weekdays);
	// "" for ccusage's: Sunday for Claude Code alone (as "ccusage claude
	// weekly"), Monday otherwise (as "ccusage weekly").
	StartOfWeek string
	// Breakdown adds each row's figures per model.
	Breakdown bool
	// Order is asc or desc ("" for asc), for rows in time.
	Order string
	// Last keeps the last Last days, weeks or months, the current one
	// included; 0 for all.
	Last int
	// PricesFile is a price table instead of the embedded one.
	PricesFile string
	Store      StoreOptions
	// Remote says the caller is not the user (an MCP caller over HTTP):
	// Project is looked up among the store's projects alone, never on the
	// disk, so that the answer tells nothing of the machine's folders.
	Remote bool
}

// Usage reads what is new in the transcripts into the usage store (unless
// o.Store.NoIngest) and reports from it. ingested is that read's stats,
// nil without one; the report carries them too.
func (m *Machine) Usage(ctx context.Context, o UsageOptions) (rep *usage.Report, ingested *IngestStats, err error) {
	uo := usage.Options{By: o.By, Project: o.Project, Source: o.Source, Machine: o.Machine, User: o.User, SplitAgents: o.SplitAgents, Now: m.now()}
	if uo.Mode, err = m.mode(o.Mode); err != nil {
		return nil, nil, err
	}
	switch uo.Source {
	case "claude", "codex", "copilot", "goose", "gemini", "opencode", "all":
	default:
		return nil, nil, valueErrorf(m.flag("source"), uo.Source, []string{"claude", "codex", "copilot", "goose", "gemini", "opencode", "all"},
			"%s must be claude, codex, copilot, goose, gemini, opencode or all, not %s", m.flag("source"), textsafe.Quote(uo.Source))
	}
	valid := false
	for _, d := range usage.Dimensions {
		valid = valid || d == uo.By
	}
	if !valid {
		return nil, nil, valueErrorf(m.flag("by"), uo.By, usage.Dimensions, "%s must be one of %s, not %s", m.flag("by"), strings.Join(usage.Dimensions, ", "), textsafe.Quote(uo.By))
	}
	if uo.SplitAgents && uo.By != "session" {
		return nil, nil, optionErrorf("%s goes with %s session", m.flag("split-agents"), m.flag("by"))
	}
	if err := m.periodOptions(o, &uo); err != nil {
		return nil, nil, err
	}
	if uo.Location, err = m.location(o.Location, o.TZ); err != nil {
		return nil, nil, err
	}
	if uo.Since, uo.Until, err = m.window(o.Window, uo.Now, uo.Location); err != nil {
		return nil, nil, err
	}
	uo.Period = o.Window.Period(uo.Since)
	if uo.Prices, err = m.Prices(o.PricesFile); err != nil {
		return nil, nil, err
	}
	if uo.Project, err = m.projectFilter(uo.Project, o.Remote); err != nil {
		return nil, nil, err
	}
	st, ingested, err := m.openStore(ctx, o.Store)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	if err := m.checkProject(ctx, st, uo.Project, o.Project, o.Remote); err != nil {
		return nil, nil, err
	}
	if rep, err = usage.Build(ctx, st, uo); err != nil {
		return nil, nil, err
	}
	if ingested != nil {
		rep.Ingest = ingested
	}
	rep.Store = m.sharedStore(o.Store)
	return rep, ingested, nil
}

// periodOptions checks and sets the options of rows in time: the first
// day of a week, the order, the last periods and the breakdown.
func (m *Machine) periodOptions(o UsageOptions, uo *usage.Options) error {
	switch {
	case o.StartOfWeek != "":
		if uo.By != "week" {
			return optionErrorf("%s goes with %s week", m.flag("start-of-week"), m.flag("by"))
		}
		d, ok := usage.ParseWeekday(o.StartOfWeek)
		if !ok {
			return valueErrorf(m.flag("start-of-week"), o.StartOfWeek, usage.Weekdays, "%s must be one of %s, not %s", m.flag("start-of-week"), strings.Join(usage.Weekdays, ", "), textsafe.Quote(o.StartOfWeek))
		}
		uo.StartOfWeek = d
	case uo.Source == "claude":
		uo.StartOfWeek = time.Sunday
	default:
		uo.StartOfWeek = time.Monday
	}
	uo.Order = o.Order
	if uo.Order != "" && !slices.Contains(usage.Orders, uo.Order) {
		return valueErrorf(m.flag("order"), uo.Order, usage.Orders, "%s must be asc or desc, not %s", m.flag("order"), textsafe.Quote(uo.Order))
	}
	if uo.Order == "desc" && uo.By != "session" && !slices.Contains(usage.Periods, uo.By) {
		return optionErrorf("%s desc goes with %s day, week, month or session, not %s", m.flag("order"), m.flag("by"), uo.By)
	}
	if o.Last != 0 {
		if !slices.Contains(usage.Periods, uo.By) {
			return optionErrorf("%s goes with %s day, week or month, not %s", m.flag("last"), m.flag("by"), uo.By)
		}
		if o.Last < 1 || o.Last > usage.MaxDays {
			return optionErrorf("%s must be from 1 (this %s alone) to %d, not %d", m.flag("last"), uo.By, usage.MaxDays, o.Last)
		}
		if o.Window.Days > 0 {
			return optionErrorf("%s and %s exclude each other", m.flag("last"), m.flag("days"))
		}
		uo.Last = o.Last
	}
	uo.Breakdown = o.Breakdown
	if uo.Breakdown && (uo.By == "server" || uo.By == "tool" || uo.By == "model") {
		return optionErrorf("%s goes with %s day, week, month, session or project, not %s", m.flag("breakdown"), m.flag("by"), uo.By)
	}
	return nil
}

// location is loc, or the zone tz names.
func (m *Machine) location(loc *time.Location, tz string) (*time.Location, error) {
	if loc != nil {
		return loc, nil
	}
	loc, err := m.Location(tz)
	if err != nil {
		return nil, optionErrorf("%s: %v", m.flag("tz"), err)
	}
	return loc, nil
}

// window resolves the period of w in loc.
func (m *Machine) window(w usage.WindowArgs, now time.Time, loc *time.Location) (since, until time.Time, err error) {
	since, until, err = w.Window(now, loc, m.FlagPrefix)
	if err != nil {
		return since, until, &OptionError{msg: err.Error()}
	}
	return since, until, nil
}

// Prices is the price table in force: the one in file, or the embedded
// one ("").
func (m *Machine) Prices(file string) (*usage.Prices, error) {
	if file == "" {
		return usage.DefaultPrices(), nil
	}
	p, err := usage.LoadPrices(file)
	if err != nil {
		return nil, WithHint(err, m.flag("prices")+" takes a price table: mcpcost's format (that of 'mcpcost prices --json') or LiteLLM's model_prices_and_context_window.json")
	}
	return p, nil
}

// mode checks how requests' costs are to be found (usage.Modes), the same
// for usage and findings; "" is auto.
func (m *Machine) mode(mode string) (string, error) {
	if mode == "" {
		return "auto", nil
	}
	if !slices.Contains(usage.Modes, mode) {
		return "", valueErrorf(m.flag("mode"), mode, usage.Modes, "%s must be one of %s, not %s", m.flag("mode"), strings.Join(usage.Modes, ", "), textsafe.Quote(mode))
	}
	return mode, nil
}
