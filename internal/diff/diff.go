// Package diff compares two mcpcost or mcp-context-cost reports (audit
// JSON, measure JSON, measurement.json) and gates the increase: "what did
// this pull request add to every session we will ever run?"
//
// Configs are paired by path (and scope and client where both give them),
// then by path alone, then, when each side has exactly one config of the
// same client, with each other (the sole-config fallback: the base branch
// and the pull request checked out in different folders). Servers pair by name, tools by
// name (a repeated name by its occurrence), parts by name. Each entry is
// added, removed, changed or unchanged, with before → after, the delta and
// the change in share of the context window.
//
// # Honesty
//
// A comparison that cannot establish the increase says why, with a named
// [Issue]: a server measured in the baseline and not now (its cost is
// missing from the total, not gone from the config), a server added now
// that cannot be measured, one not measured in either run, a config in the
// baseline not found now, a config with no baseline, a baseline from
// another methodology, encoding, schema version or kind of report. [Diff.Check]
// fails on every one of them, and on any config whose increase is over the
// limit; it never passes on what it could not measure. A server measured
// now and not in the baseline only makes the delta an upper bound (the
// baseline paid for it unmeasured): the gate passes when that bound is
// within the limit, and fails otherwise.
//
// A server that is switched off (disabled, overridden) costs nothing, and
// that is known: it counts as absent, not as unmeasured.
package diff

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/status"
)

type partT = measure.Part

// Schema is the version of the diff's JSON.
const Schema = "mcpcost.diff/v1"

// Change kinds.
const (
	Added     = "added"
	Removed   = "removed"
	Changed   = "changed"
	Unchanged = "unchanged"
	// Servers only.
	AddedUnmeasured   = "added-unmeasured"
	RemovedUnmeasured = "removed-unmeasured"
	UnmeasuredNow     = "unmeasured-now"
	UnmeasuredBefore  = "unmeasured-before"
	UnmeasuredBoth    = "unmeasured-both"
	// Configs only.
	ConfigNew     = "config-new"
	ConfigMissing = "config-missing"
)

// Issue codes: each names why an increase could not be established.
const (
	IssueNotAReport         = "not-a-report"
	IssueSchemaChanged      = "schema-changed"
	IssueMethodologyChanged = "methodology-changed"
	IssueEncodingChanged    = "encoding-changed"
	IssueKindMismatch       = "kind-mismatch"
	IssueConfigMissing      = ConfigMissing
	IssueConfigNew          = ConfigNew
	IssueUnmeasuredNow      = UnmeasuredNow
	IssueAddedUnmeasured    = AddedUnmeasured
	IssueUnmeasuredBoth     = UnmeasuredBoth
	IssueUnmeasuredBefore   = UnmeasuredBefore
	IssueNothingCompared    = "nothing-compared"
	IssueOverLimit          = "over-limit"
)

// Diff is the comparison of two reports.
type Diff struct {
	Schema  string `json:"schema"`
	Base    *Doc   `json:"base"`
	Current *Doc   `json:"current"`
	// Comparable is false when the two are not the same measurement
	// (methodology, encoding, schema version, kind): the numbers are shown
	// but are not a change.
	Comparable bool `json:"comparable"`
	// Detail is the finest level both sides have.
	Detail        Detail `json:"detail"`
	ContextWindow int    `json:"contextWindow"`
	// Of is what was paired: "sessions" (each ConfigDiff's Path is a
	// session's project folder) or "configs".
	Of string `json:"of"`
	// ConfigDiffs, in the current report's order, then the baseline's
	// configs not found now.
	ConfigDiffs []ConfigDiff `json:"configs"`
	// Increase is the largest delta of a paired config (negative when all
	// got cheaper); nil when nothing was compared.
	Increase *int `json:"increase"`
	// Issues say why an increase could not be established; empty for a
	// clean comparison.
	Issues   []Issue  `json:"issues"`
	Warnings []string `json:"warnings"`
	Gate     *Gate    `json:"gate,omitempty"`
}

// ConfigDiff is one config compared.
type ConfigDiff struct {
	Path   string `json:"path"`
	Client string `json:"client,omitempty"`
	Scope  string `json:"scope,omitempty"`
	// Server names the server when the reports measure one server.
	Server string `json:"server,omitempty"`
	// BasePath is the baseline's path when it differs (sole-config pairing).
	BasePath string `json:"basePath,omitempty"`
	// Pairing: path, path-only, sole-config, server, or none.
	Pairing string `json:"pairing"`
	// Change: changed, unchanged, config-new, config-missing.
	Change      string   `json:"change"`
	Before      *int     `json:"before"`
	After       *int     `json:"after"`
	Delta       *int     `json:"delta"`
	BeforeShare *float64 `json:"beforeShare"`
	AfterShare  *float64 `json:"afterShare"`
	// ShareDelta is the change in share of the context window.
	ShareDelta *float64 `json:"shareDelta"`
	// Bound says what Delta is: exact, lower (the true increase may be
	// larger: a cost went unmeasured now), upper (the baseline paid for
	// something unmeasured), or unknown.
	Bound string `json:"bound"`
	// Understated is the baseline cost of servers measured then and not
	// now; Overstated the current cost of servers measured now and not
	// then. A server removed that was never measured also makes the delta
	// an upper bound, by an unknown amount.
	Understated int          `json:"understated"`
	Overstated  int          `json:"overstated"`
	Unreadable  string       `json:"unreadable,omitempty"`
	Servers     []ServerDiff `json:"servers"`
	Unchanged   int          `json:"unchangedServers"`
}

// Name is the config as it reads in a report.
func (c *ConfigDiff) Name() string {
	if c.Path == "" {
		if c.Server != "" {
			return "server " + c.Server
		}
		return "(server)"
	}
	return c.Path
}

// ServerDiff is one server compared.
type ServerDiff struct {
	Name         string     `json:"name"`
	BaseName     string     `json:"baseName,omitempty"`
	Change       string     `json:"change"`
	StatusBefore string     `json:"statusBefore,omitempty"`
	StatusAfter  string     `json:"statusAfter,omitempty"`
	Before       *int       `json:"before"`
	After        *int       `json:"after"`
	Delta        *int       `json:"delta"`
	ShareDelta   *float64   `json:"shareDelta"`
	Detail       Detail     `json:"detail"`
	Note         string     `json:"note,omitempty"`
	Tools        []ToolDiff `json:"tools"`
	// UnchangedTools counts the tools with no change.
	UnchangedTools int `json:"unchangedTools"`
}

// ToolDiff is one tool compared.
type ToolDiff struct {
	Name string `json:"name"`
	// Occurrence is set (from 2) for a repeated tool name.
	Occurrence int        `json:"occurrence,omitempty"`
	Change     string     `json:"change"`
	Before     *int       `json:"before"`
	After      *int       `json:"after"`
	Delta      int        `json:"delta"`
	Parts      []PartDiff `json:"parts"`
}

// Label is the tool's name, with "#k" for a repeated name.
func (t *ToolDiff) Label() string {
	if t.Occurrence > 1 {
		return t.Name + " #" + strconv.Itoa(t.Occurrence)
	}
	return t.Name
}

// PartDiff is one part of a tool compared.
type PartDiff struct {
	Name   string `json:"name"`
	Change string `json:"change"`
	Before *int   `json:"before"`
	After  *int   `json:"after"`
	Delta  int    `json:"delta"`
}

// Issue is one reason the increase could not be established.
type Issue struct {
	Code    string `json:"code"`
	Config  string `json:"config,omitempty"`
	Server  string `json:"server,omitempty"`
	Message string `json:"message"`
}

func (i Issue) String() string { return i.Code + ": " + i.Message }

// Compare compares current against base.
//
// Two audits that both hold sessions (discovered configs) are compared
// session by session (Of "sessions"): the files of one session may move
// between scopes while the session stays what it is. Otherwise the files
// are compared (Of "configs").
func Compare(base, current *Doc) *Diff {
	of := "configs"
	if len(base.Sessions) > 0 && len(current.Sessions) > 0 {
		b, c := *base, *current
		b.Configs, c.Configs = base.Sessions, current.Sessions
		base, current, of = &b, &c, "sessions"
	}
	d := &Diff{Schema: Schema, Base: base, Current: current, Comparable: true, Of: of,
		ContextWindow: current.ContextWindow, Issues: []Issue{}, Warnings: []string{}, ConfigDiffs: []ConfigDiff{}}
	d.Detail = min2(base.Detail, current.Detail)
	d.checkComparable()
	if base.Detail != current.Detail {
		coarse := base
		if rank(current.Detail) < rank(base.Detail) {
			coarse = current
		}
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s (%s) has %s-level numbers only, so the comparison goes no finer than %ss", coarse.File, coarse.Kind.Title(), coarse.Detail, coarse.Detail))
	}
	if base.ContextWindow != current.ContextWindow {
		d.Warnings = append(d.Warnings, fmt.Sprintf("context window changed (%s → %s): shares are not comparable, token counts still are", num.Int(base.ContextWindow), num.Int(current.ContextWindow)))
	}
	d.pairConfigs()
	compared := false
	for i := range d.ConfigDiffs {
		c := &d.ConfigDiffs[i]
		if c.Delta != nil && c.Change != ConfigNew && c.Change != ConfigMissing {
			compared = true
			if d.Increase == nil || *c.Delta > *d.Increase {
				v := *c.Delta
				d.Increase = &v
			}
		}
	}
	if !compared && len(d.Issues) == 0 {
		d.issue(Issue{Code: IssueNothingCompared, Message: "neither report has a config to compare"})
	}
	return d
}

func rank(x Detail) int {
	return map[Detail]int{DetailServer: 0, DetailTool: 1, DetailPart: 2}[x]
}

func (d *Diff) issue(i Issue) { d.Issues = append(d.Issues, i) }

func (d *Diff) checkComparable() {
	b, c := d.Base, d.Current
	notSame := func(code, format string, a ...any) {
		d.Comparable = false
		d.issue(Issue{Code: code, Message: fmt.Sprintf(format, a...)})
	}
	if b.Kind.Server() != c.Kind.Server() {
		notSame(IssueKindMismatch, "%s is a %s and %s a %s: a config's servers and one server's measurement are not the same thing", b.File, b.Kind.Title(), c.File, c.Kind.Title())
	}
	for _, doc := range []*Doc{b, c} {
		if doc.SchemaUnknown {
			notSame(IssueSchemaChanged, "%s has schema %s, which this mcpcost does not read (it reads %s): re-record it with this version", doc.File, doc.Schema, knownSchema(doc.Kind))
		}
	}
	// An audit of v1 and one of v2 hold their configs alike (v2 added
	// the sessions beside them).
	if b.Kind == c.Kind && b.Schema != c.Schema && !b.SchemaUnknown && !c.SchemaUnknown && b.Kind != KindAudit {
		notSame(IssueSchemaChanged, "schema changed (%s → %s)", b.Schema, c.Schema)
	}
	if b.MethodologyVersion != c.MethodologyVersion {
		notSame(IssueMethodologyChanged, "methodology changed (%s → %s): token counts from the two runs are not the same measurement", orNone(b.MethodologyVersion), orNone(c.MethodologyVersion))
	}
	if b.Encoding != c.Encoding {
		notSame(IssueEncodingChanged, "encoding changed (%s → %s): the counts are in different units", orNone(b.Encoding), orNone(c.Encoding))
	}
}

func knownSchema(k Kind) string {
	switch k {
	case KindAudit:
		return auditSchema
	case KindMeasure:
		return measureSchema
	case KindMeasurement:
		return fileSchema
	}
	return "no schema"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func configKey(c *Config) string { return c.Path + "\x00" + c.Scope + "\x00" + c.Client }

func (d *Diff) pairConfigs() {
	base, cur := d.Base.Configs, d.Current.Configs
	usedBase := make([]bool, len(base))
	pair := make([]int, len(cur))
	how := make([]string, len(cur))
	for i := range pair {
		pair[i] = -1
	}
	if d.Base.Kind.Server() && d.Current.Kind.Server() {
		if len(base) == 1 && len(cur) == 1 {
			pair[0], how[0], usedBase[0] = 0, "server", true
		}
	} else {
		// Exact key, then path alone when unique on both sides.
		byKey := map[string]int{}
		for j := range base {
			byKey[configKey(&base[j])] = j
		}
		for i := range cur {
			if j, ok := byKey[configKey(&cur[i])]; ok && !usedBase[j] {
				pair[i], how[i], usedBase[j] = j, "path", true
			}
		}
		count := func(cs []Config, p string) int {
			n := 0
			for k := range cs {
				if cs[k].Path == p {
					n++
				}
			}
			return n
		}
		for i := range cur {
			if pair[i] >= 0 || count(cur, cur[i].Path) != 1 || count(base, cur[i].Path) != 1 {
				continue
			}
			for j := range base {
				if !usedBase[j] && base[j].Path == cur[i].Path {
					pair[i], how[i], usedBase[j] = j, "path-only", true
				}
			}
		}
		if len(base) == 1 && len(cur) == 1 && pair[0] < 0 && base[0].Unreadable == "" && cur[0].Unreadable == "" && base[0].Client == cur[0].Client {
			pair[0], how[0], usedBase[0] = 0, "sole-config", true
			d.Warnings = append(d.Warnings, fmt.Sprintf("paired %s with the baseline's %s: one config on each side, different paths", cur[0].Path, base[0].Path))
		}
	}
	for i := range cur {
		c := &cur[i]
		if pair[i] < 0 {
			d.ConfigDiffs = append(d.ConfigDiffs, d.newConfig(c))
			continue
		}
		d.ConfigDiffs = append(d.ConfigDiffs, d.compareConfig(&base[pair[i]], c, how[i]))
	}
	for j := range base {
		if !usedBase[j] {
			d.ConfigDiffs = append(d.ConfigDiffs, d.missingConfig(&base[j]))
		}
	}
}

func ip(n int) *int { return &n }

func (d *Diff) share(n int, cw int) *float64 {
	if cw <= 0 {
		return nil
	}
	f := float64(n) / float64(cw)
	return &f
}

func (d *Diff) newConfig(c *Config) ConfigDiff {
	cd := ConfigDiff{Path: c.Path, Client: c.Client, Scope: c.Scope, Pairing: "none", Change: ConfigNew, Bound: "unknown", Servers: []ServerDiff{}}
	if c.Unreadable != "" {
		cd.Unreadable = c.Unreadable
		d.issue(Issue{Code: IssueConfigNew, Config: c.Path, Message: fmt.Sprintf("%s: no baseline for this config, and it could not be read now: %s", c.Path, c.Unreadable)})
		return cd
	}
	cd.After = ip(c.Total)
	cd.AfterShare = d.share(c.Total, d.Current.ContextWindow)
	for _, s := range c.Servers {
		if s.Off {
			continue
		}
		sd := ServerDiff{Name: s.Name, Change: Added, StatusAfter: s.Status, After: s.Tokens, Delta: s.Tokens, Detail: s.Detail, Tools: []ToolDiff{}}
		if s.Tokens == nil {
			sd.Change = AddedUnmeasured
		}
		cd.Servers = append(cd.Servers, sd)
	}
	sortServers(cd.Servers)
	d.issue(Issue{Code: IssueConfigNew, Config: c.Path, Message: fmt.Sprintf("%s: no baseline to check its %s tokens against: a new config has no before", c.Path, num.Int(c.Total))})
	return cd
}

func (d *Diff) missingConfig(c *Config) ConfigDiff {
	cd := ConfigDiff{Path: c.Path, Client: c.Client, Scope: c.Scope, Pairing: "none", Change: ConfigMissing, Bound: "unknown", Servers: []ServerDiff{}}
	if c.Unreadable != "" {
		cd.Unreadable = c.Unreadable
		return cd
	}
	cd.Before = ip(c.Total)
	cd.BeforeShare = d.share(c.Total, d.Base.ContextWindow)
	d.issue(Issue{Code: IssueConfigMissing, Config: c.Path, Message: fmt.Sprintf("%s: in the baseline (%s tokens) and not found now: a config that disappeared is not a config that got cheaper", c.Path, num.Int(c.Total))})
	return cd
}

func (d *Diff) compareConfig(b, c *Config, how string) ConfigDiff {
	cd := ConfigDiff{Path: c.Path, Client: c.Client, Scope: c.Scope, Pairing: how, Bound: "exact", Servers: []ServerDiff{}}
	if how == "server" && len(c.Servers) == 1 {
		cd.Server = c.Servers[0].Name
	}
	if b.Path != c.Path {
		cd.BasePath = b.Path
	}
	name := cd.Name()
	if c.Unreadable != "" || b.Unreadable != "" {
		cd.Change, cd.Bound = ConfigMissing, "unknown"
		if c.Unreadable != "" {
			cd.Unreadable = c.Unreadable
			if b.Unreadable == "" {
				cd.Before = ip(b.Total)
			}
			d.issue(Issue{Code: IssueConfigMissing, Config: c.Path, Message: fmt.Sprintf("%s: in the baseline and unreadable now (%s): its cost now is unknown", c.Path, c.Unreadable)})
		} else {
			cd.Change = ConfigNew
			cd.After = ip(c.Total)
			d.issue(Issue{Code: IssueConfigNew, Config: c.Path, Message: fmt.Sprintf("%s: unreadable in the baseline (%s): no baseline to check its %s tokens against", c.Path, b.Unreadable, num.Int(c.Total))})
		}
		return cd
	}
	cd.Before, cd.After, cd.Delta = ip(b.Total), ip(c.Total), ip(c.Total-b.Total)
	cd.BeforeShare = d.share(b.Total, d.Base.ContextWindow)
	cd.AfterShare = d.share(c.Total, d.Current.ContextWindow)
	if cd.BeforeShare != nil && cd.AfterShare != nil {
		v := *cd.AfterShare - *cd.BeforeShare
		cd.ShareDelta = &v
	}
	cd.Change = Changed
	// Servers by name; a server measurement pairs its one server whatever
	// its name.
	bs := map[string]*Server{}
	for i := range b.Servers {
		bs[b.Servers[i].Name] = &b.Servers[i]
	}
	seen := map[string]bool{}
	lower, upper, unknown := false, false, false
	add := func(bsrv, csrv *Server) {
		sd := d.compareServer(bsrv, csrv, name)
		if sd == nil {
			return
		}
		switch sd.Change {
		case UnmeasuredNow:
			lower = true
			cd.Understated += *bsrv.Tokens
		case AddedUnmeasured:
			lower = true
		case UnmeasuredBoth:
			unknown = true
		case UnmeasuredBefore:
			upper = true
			cd.Overstated += *csrv.Tokens
		case RemovedUnmeasured:
			// The baseline paid for it, unmeasured: the true change is the
			// delta less that unknown cost.
			upper = true
		}
		if sd.Change == Unchanged {
			cd.Unchanged++
		}
		cd.Servers = append(cd.Servers, *sd)
	}
	if how == "server" && len(b.Servers) == 1 && len(c.Servers) == 1 {
		add(&b.Servers[0], &c.Servers[0])
	} else {
		for i := range c.Servers {
			s := &c.Servers[i]
			seen[s.Name] = true
			add(bs[s.Name], s)
		}
		for i := range b.Servers {
			if !seen[b.Servers[i].Name] {
				add(&b.Servers[i], nil)
			}
		}
	}
	sortServers(cd.Servers)
	switch {
	case unknown || lower && upper:
		cd.Bound = "unknown"
	case lower:
		cd.Bound = "lower"
	case upper:
		cd.Bound = "upper"
	}
	if *cd.Delta == 0 && cd.Unchanged == len(cd.Servers) && cd.Bound == "exact" {
		cd.Change = Unchanged
	}
	return cd
}

// compareServer compares one server; b or c is nil when absent. It
// returns nil when the server is off (or absent) on both sides.
func (d *Diff) compareServer(b, c *Server, config string) *ServerDiff {
	present := func(s *Server) bool { return s != nil && !s.Off }
	measured := func(s *Server) bool { return present(s) && s.Tokens != nil }
	if !present(b) && !present(c) {
		return nil
	}
	sd := &ServerDiff{Tools: []ToolDiff{}}
	if c != nil {
		sd.Name = c.Name
		if b != nil && b.Name != c.Name {
			sd.BaseName = b.Name
		}
	} else {
		sd.Name = b.Name
	}
	if present(b) {
		sd.StatusBefore = b.Status
		sd.Before = b.Tokens
	}
	if present(c) {
		sd.StatusAfter = c.Status
		sd.After = c.Tokens
	}
	cw := d.Current.ContextWindow
	setDelta := func(n int) {
		sd.Delta = ip(n)
		sd.ShareDelta = d.share(n, cw)
	}
	for _, s := range []*Server{b, c} {
		if present(s) && status.Status(s.Status).Dynamic() {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %s is dynamic (its tools/list differed between two captures): its number is the first capture's", config, sd.Name))
			break
		}
	}
	switch {
	case measured(b) && measured(c):
		setDelta(*c.Tokens - *b.Tokens)
		sd.Detail = min2(b.Detail, c.Detail)
		sd.Tools, sd.UnchangedTools = compareTools(b.Tools, c.Tools, sd.Detail)
		sd.Change = Unchanged
		if *sd.Delta != 0 || len(sd.Tools) > 0 {
			sd.Change = Changed
		}
	case !present(b) && measured(c):
		sd.Change = Added
		setDelta(*c.Tokens)
		sd.Detail = c.Detail
		sd.Tools, _ = compareTools(nil, c.Tools, c.Detail)
		if b != nil {
			sd.Note = "switched on (was " + b.Status + ")"
		}
	case measured(b) && !present(c):
		sd.Change = Removed
		setDelta(-*b.Tokens)
		sd.Detail = b.Detail
		sd.Tools, _ = compareTools(b.Tools, nil, b.Detail)
		if c != nil {
			sd.Note = "switched off (" + c.Status + ")"
		}
	case !present(b) && present(c): // c unmeasured
		sd.Change = AddedUnmeasured
		sd.Note = "added but not measured (" + c.Status + "): its cost is unknown, not zero"
		d.issue(Issue{Code: IssueAddedUnmeasured, Config: config, Server: sd.Name, Message: fmt.Sprintf("%s: %s was added and could not be measured (%s): its cost is unknown, not zero", config, sd.Name, c.Status)})
	case present(b) && !present(c): // b unmeasured
		sd.Change = RemovedUnmeasured
		sd.Note = "was in the config but never measured (" + b.Status + "): removing it took off an unknown cost, so the true change is at most the delta shown"
	case measured(b): // c unmeasured
		sd.Change = UnmeasuredNow
		sd.Note = fmt.Sprintf("measured in the baseline (%s tokens), not now (%s): its cost is missing from the total, not gone from the config", num.Int(*b.Tokens), c.Status)
		d.issue(Issue{Code: IssueUnmeasuredNow, Config: config, Server: sd.Name, Message: fmt.Sprintf("%s: %s was measured in the baseline (%s tokens) and not now (%s): its cost is missing from the total, not gone from the config; if it still costs what it did, the true cost is at least %s higher than measured", config, sd.Name, num.Int(*b.Tokens), c.Status, num.Int(*b.Tokens))})
	case measured(c): // b unmeasured
		sd.Change = UnmeasuredBefore
		sd.Note = fmt.Sprintf("not measured in the baseline (%s), measured now (%s tokens): the baseline paid for it unmeasured, so the delta is an upper bound", b.Status, num.Int(*c.Tokens))
	default:
		sd.Change = UnmeasuredBoth
		sd.Note = fmt.Sprintf("not measured in either run (%s, then %s): whatever it costs, and however that changed, is unknown", b.Status, c.Status)
		d.issue(Issue{Code: IssueUnmeasuredBoth, Config: config, Server: sd.Name, Message: fmt.Sprintf("%s: %s could not be measured in the baseline (%s) or now (%s): how its cost changed is unknown", config, sd.Name, b.Status, c.Status)})
	}
	return sd
}

// sortServers: unknown deltas first, then by size of the change, then by
// name.
func sortServers(s []ServerDiff) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if (a.Delta == nil) != (b.Delta == nil) {
			return a.Delta == nil
		}
		if a.Delta != nil && abs(*a.Delta) != abs(*b.Delta) {
			return abs(*a.Delta) > abs(*b.Delta)
		}
		return a.Name < b.Name
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

type toolKey struct {
	name string
	occ  int
}

// compareTools pairs tools by name and occurrence. It returns the tools
// that changed (added, removed, changed), biggest change first, and the
// count of unchanged ones. detail says whether parts are compared.
func compareTools(base, cur []Tool, detail Detail) ([]ToolDiff, int) {
	if detail == DetailServer {
		return []ToolDiff{}, 0
	}
	keys := func(ts []Tool) []toolKey {
		n := map[string]int{}
		out := make([]toolKey, len(ts))
		for i, t := range ts {
			n[t.Name]++
			out[i] = toolKey{t.Name, n[t.Name]}
		}
		return out
	}
	bk, ck := keys(base), keys(cur)
	bm := map[toolKey]*Tool{}
	for i := range base {
		bm[bk[i]] = &base[i]
	}
	var out []ToolDiff
	unchanged := 0
	seen := map[toolKey]bool{}
	for i := range cur {
		k := ck[i]
		seen[k] = true
		t := &cur[i]
		td := ToolDiff{Name: k.name, After: ip(t.Tokens)}
		if k.occ > 1 {
			td.Occurrence = k.occ
		}
		if bt, ok := bm[k]; ok {
			td.Before = ip(bt.Tokens)
			td.Delta = t.Tokens - bt.Tokens
			td.Change = Changed
			if detail == DetailPart {
				td.Parts = compareParts(bt.Parts, t.Parts)
			}
			if td.Delta == 0 && len(td.Parts) == 0 {
				unchanged++
				continue
			}
		} else {
			td.Change = Added
			td.Delta = t.Tokens
		}
		out = append(out, td)
	}
	for i := range base {
		k := bk[i]
		if seen[k] {
			continue
		}
		t := &base[i]
		td := ToolDiff{Name: k.name, Change: Removed, Before: ip(t.Tokens), Delta: -t.Tokens}
		if k.occ > 1 {
			td.Occurrence = k.occ
		}
		out = append(out, td)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if abs(out[i].Delta) != abs(out[j].Delta) {
			return abs(out[i].Delta) > abs(out[j].Delta)
		}
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Occurrence < out[j].Occurrence
	})
	if out == nil {
		out = []ToolDiff{}
	}
	return out, unchanged
}

// partOrder is the display order of parts.
var partOrder = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "other"}

// compareParts returns the parts that changed, in display order.
func compareParts(base, cur []partT) []PartDiff {
	get := func(ps []partT, n string) *int {
		for _, p := range ps {
			if p.Name == n {
				return ip(p.Tokens)
			}
		}
		return nil
	}
	names := append([]string{}, partOrder...)
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var extra []string
	for _, ps := range [][]partT{base, cur} {
		for _, p := range ps {
			if !known[p.Name] {
				known[p.Name] = true
				extra = append(extra, p.Name)
			}
		}
	}
	sort.Strings(extra)
	names = append(names, extra...)
	var out []PartDiff
	for _, n := range names {
		b, c := get(base, n), get(cur, n)
		switch {
		case b == nil && c == nil:
			continue
		case b == nil:
			out = append(out, PartDiff{Name: n, Change: Added, After: c, Delta: *c})
		case c == nil:
			out = append(out, PartDiff{Name: n, Change: Removed, Before: b, Delta: -*b})
		case *b != *c:
			out = append(out, PartDiff{Name: n, Change: Changed, Before: b, After: c, Delta: *c - *b})
		}
	}
	return out
}
