package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/findings"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// FindingsOptions configure [Machine.Findings].
type FindingsOptions struct {
	// Window bounds the period; Location (nil: the zone TZ names) buckets
	// its days.
	Window   usage.WindowArgs
	Location *time.Location
	TZ       string
	// Project keeps one project: its path or its folder's name. When it
	// is a folder, its project configs are read; otherwise those of
	// Folder ("" for the current folder).
	Project, Folder string
	// Machine and User keep one machine's, or one OS user's, rows.
	Machine, User string
	// PricesFile is a price table instead of the embedded one.
	PricesFile string
	// Mode is how a request's cost is found (usage.Modes), as for usage;
	// "" for auto.
	Mode string
	// Thresholds: zero fields take findings.Defaults(), but for the
	// output limit, read from Claude Code's settings or the environment
	// when not given (clients.ClaudeOutputLimit).
	Thresholds findings.Thresholds
	// Configs are config files to judge instead of those discovered;
	// Clients keeps these clients' configs.
	Configs, Clients []string
	// TrustProject also judges the servers of the project's own config
	// files that their client has no approval of.
	TrustProject bool
	// Launch measures the servers missing from the measurement cache.
	Launch bool
	// MaxAge is how long a cached measurement is used (0 for
	// audit.DefaultMaxAge); Timeout bounds the measurement of each
	// launched server.
	MaxAge, Timeout time.Duration
	// Progress is told of the audit's measurements; Auditing of how many
	// configs are audited.
	Progress Progress
	Auditing func(configs int)
	Store    StoreOptions
	// Remote says the caller is not the user (an MCP caller over HTTP):
	// Project is looked up among the store's projects alone, never on the
	// disk (nor its configs read), so that the answer tells nothing of
	// the machine's folders.
	Remote bool
}

// Findings are the findings with what they were computed from.
type Findings struct {
	Report *findings.Report
	// Static is the audit of the configs that apply, from the cache (or
	// measured, with Launch).
	Static *audit.Report
	// Ingest is the read of the transcripts before, nil without one.
	Ingest *IngestStats
}

// Overview is the report of static and run time together.
func (f *Findings) Overview() *findings.Overview { return findings.NewOverview(f.Report, f.Static) }

// Findings reads what is new in the transcripts into the usage store
// (unless o.Store.NoIngest), audits the configs that apply from the
// measurement cache (launching what is missing with o.Launch), and joins
// the two: the findings, with the pre-approved tools, the config files'
// change times, the cached tool descriptions and the output limit of
// Claude Code's settings. [Findings.Overview] adds the static audit: the report.
func (m *Machine) Findings(ctx context.Context, o FindingsOptions) (*Findings, error) {
	defer limitHeap(findingsHeap)()
	fo := findings.Options{Project: o.Project, Machine: o.Machine, User: o.User, Now: m.now(), Thresholds: o.Thresholds}
	var err error
	if fo.Mode, err = m.mode(o.Mode); err != nil {
		return nil, err
	}
	if fo.Location, err = m.location(o.Location, o.TZ); err != nil {
		return nil, err
	}
	if fo.Since, fo.Until, err = m.window(o.Window, fo.Now, fo.Location); err != nil {
		return nil, err
	}
	fo.Period = o.Window.Period(fo.Since)
	prices, err := m.Prices(o.PricesFile)
	if err != nil {
		return nil, err
	}
	fo.Pricing, fo.PricesUpdated = prices.FindingsPricing(), prices.Updated
	want, err := m.clientNames(o.Clients)
	if err != nil {
		return nil, err
	}

	// The project whose project configs are read: Project when it is a
	// folder (and the caller is the user), else Folder.
	dir := o.Folder
	if p := o.Project; p != "" && !o.Remote && isDir(p) {
		dir = p
		if abs, err := filepath.Abs(p); err == nil {
			fo.Project = abs // a relative folder filters by its full path
		}
	}
	sys, err := m.system(dir, o.TrustProject)
	if err != nil {
		return nil, err
	}
	fo.Cwd = sys.Cwd
	from := ""
	if fo.Thresholds.OutputLimit > 0 {
		from = m.flag("output-limit")
	} else if n, at := clients.ClaudeOutputLimit(sys); n > 0 {
		fo.Thresholds.OutputLimit, from = n, at
	}

	if fo.Project, err = m.projectFilter(fo.Project, o.Remote); err != nil {
		return nil, err
	}
	st, ingested, err := m.openStore(ctx, o.Store)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := m.checkProject(ctx, st, fo.Project, o.Project, o.Remote); err != nil {
		return nil, err
	}

	// The static half: the configs that apply, measured from the cache.
	ao := AuditOptions{Configs: o.Configs, Project: dir, TrustProject: o.TrustProject, Offline: !o.Launch, MaxAge: o.MaxAge, Timeout: o.Timeout,
		Progress: o.Progress, Auditing: o.Auditing, cacheOptional: true,
		// With Configs, as for an audit: the one client whose reader
		// reads the files.
		Clients: want}
	run, unread, err := m.audit(ctx, ao)
	if len(unread) > 0 {
		return nil, unread[0]
	}
	if err != nil {
		return nil, err
	}
	if run.cache != nil {
		fo.Descriptions = cachedDescriptions(run.configs, run.cache, fo.Now)
	}
	fo.PreApproved = clients.ClaudePreApproved(sys)
	fo.ConfigModified = func(path string) time.Time {
		if fi, err := os.Stat(path); err == nil {
			return fi.ModTime()
		}
		return time.Time{}
	}
	rep, err := findings.Compute(ctx, st, run.rep, fo)
	if err != nil {
		return nil, err
	}
	if from != "" {
		rep.Notes = append(rep.Notes, "MAX_MCP_OUTPUT_TOKENS is "+render.Int(rep.Thresholds.OutputLimit)+" (from "+from+")")
	}
	return &Findings{Report: rep, Static: run.rep, Ingest: ingested}, nil
}

// cachedDescriptions reads tool descriptions from the measurement cache,
// for the exact length of Claude Code's 2 KB cut.
func cachedDescriptions(configs []clients.Config, cache *audit.Cache, now time.Time) func(findings.ConfigRef, string) map[string]string {
	return func(ref findings.ConfigRef, server string) map[string]string {
		for _, c := range configs {
			if c.Client != ref.Client || c.Path != ref.Path || c.Scope != ref.Scope {
				continue
			}
			for _, s := range c.Servers {
				if s.Name != server || !s.Launchable() {
					continue
				}
				e, _ := cache.Get(s.LaunchKey(cache.Key()), now)
				if e == nil {
					return nil
				}
				var tools []struct {
					Name        string  `json:"name"`
					Description *string `json:"description"`
				}
				if json.Unmarshal(e.Tools, &tools) != nil {
					return nil
				}
				m := map[string]string{}
				for _, t := range tools {
					if t.Description != nil {
						m[t.Name] = *t.Description
					}
				}
				return m
			}
		}
		return nil
	}
}
