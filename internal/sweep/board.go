package sweep

import (
	"fmt"
	"sort"

	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/status"
)

// Isolation names, as history.csv records them.
const (
	IsolationHost    = "host"
	IsolationSandbox = "sandbox"
	IsolationDocker  = "docker"
)

// Entry is one server of the sweep file with its latest measurement.
type Entry struct {
	Server Server
	// File is results/<name>/measurement.json, nil when there is none.
	File *measure.File
	// Status is the leaderboard's: remote-auth-wall for a remote entry
	// without a url, the file's status, or not-yet-run.
	Status string
	// Note says why a server is not measured.
	Note string
	// Trend is the server's history (see Trend).
	Trend []HistoryRow
}

// Measured reports whether the entry has a number.
func (e Entry) Measured() bool {
	return e.File != nil && status.Status(e.File.Status).OK() && e.File.TotalTokens != nil
}

// Tokens is the headline number, 0 when not measured.
func (e Entry) Tokens() int {
	if e.Measured() {
		return *e.File.TotalTokens
	}
	return 0
}

// NotYetRun is the status of an entry without a measurement.
const NotYetRun = "not-yet-run"

// Entries joins the servers with their files (by name) and history.
func Entries(servers []Server, files map[string]*measure.File, history []HistoryRow) []Entry {
	out := make([]Entry, 0, len(servers))
	for _, s := range servers {
		e := Entry{Server: s, File: files[s.Name], Trend: Trend(history, s.Name, 12)}
		switch {
		case s.Remote && s.URL == "":
			e.Status, e.Note = string(status.RemoteAuthWall), "remote server behind a sign-in wall: listed, not measured"
		case e.File != nil:
			e.Status, e.Note = e.File.Status, e.File.Notes
		default:
			e.Status = NotYetRun
		}
		out = append(out, e)
	}
	return out
}

// Ranked is the measured entries by tokens, most first (ties in the file's
// order), then the others in the file's order.
func Ranked(entries []Entry) (measured, not []Entry) {
	for _, e := range entries {
		if e.Measured() && e.Status != string(status.RemoteAuthWall) {
			measured = append(measured, e)
		} else {
			not = append(not, e)
		}
	}
	sort.SliceStable(measured, func(i, j int) bool { return measured[i].Tokens() > measured[j].Tokens() })
	return measured, not
}

// Verdict is the harness guard's.
type Verdict struct {
	// Comparable counts the servers measured (or dynamic) before and swept
	// now; Regressed those of them that failed now.
	Comparable, Regressed int
	// RegressedNames are the regressed servers, sorted.
	RegressedNames []string
	// Fault is set when Regressed >= FaultMin and Regressed/Comparable >=
	// one half: a broken harness rather than broken servers.
	Fault  bool
	Reason string
}

// FaultMin is the fewest regressed servers that can make a harness fault.
const FaultMin = 5

// Guard compares the statuses before a sweep (of the servers that had a
// measurement) with those after it (of the servers swept).
func Guard(before, after map[string]string) Verdict {
	var v Verdict
	for name, now := range after {
		prev, ok := before[name]
		if !ok || !status.Status(prev).OK() {
			continue
		}
		v.Comparable++
		if !status.Status(now).OK() {
			v.Regressed++
			v.RegressedNames = append(v.RegressedNames, name)
		}
	}
	sort.Strings(v.RegressedNames)
	switch {
	case v.Comparable == 0:
		v.Reason = "no prior measurement to compare against: harness check not performed"
	default:
		pct := 100 * v.Regressed / v.Comparable
		v.Fault = v.Regressed >= FaultMin && 2*v.Regressed >= v.Comparable
		if v.Fault {
			v.Reason = fmt.Sprintf("%d of %d previously measured servers (%d%%) failed in this sweep: at or above the %d-server, 50%% threshold that reads as a broken harness rather than broken servers", v.Regressed, v.Comparable, pct, FaultMin)
		} else {
			v.Reason = fmt.Sprintf("%d of %d previously measured servers (%d%%) failed in this sweep: below the harness-fault threshold, publishing normally", v.Regressed, v.Comparable, pct)
		}
	}
	return v
}

// Figures are an entry's figures beside its headline: the session-start
// load (method deferred-load/v1) and the Claude count, each nil where
// unknown.
type Figures struct {
	SessionStart *int
	// Floor marks a session-start figure of tool names only (the
	// instructions were never captured).
	Floor        bool
	NameTokens   *int
	Instructions *int
	// Claude is mcp-context-cost's published Claude figure of this exact
	// capture (by its hash): nil when there is none or it is stale.
	Claude      *int
	ClaudeModel string
}

// Figures of e.
func (e Entry) Figures() Figures {
	var f Figures
	if !e.Measured() {
		return f
	}
	var pub claude.PublishedFigures
	ok := false
	if e.File.CanonicalSha256 != nil {
		pub, ok = claude.Published(*e.File.CanonicalSha256)
	}
	if x := e.File.Extras; x != nil {
		ss, in := x.SessionStartTokens, x.InstructionsTokens
		names := ss - in
		f.SessionStart, f.Instructions, f.NameTokens = &ss, &in, &names
	} else if ok {
		ss, names := pub.SessionStartTokens, pub.ToolNameTokens
		f.SessionStart, f.NameTokens, f.Floor = &ss, &names, pub.SessionStartIsFloor
		f.Instructions = pub.InstructionsTokens
	}
	if ok && pub.ClaudeTokens != nil {
		c := *pub.ClaudeTokens
		f.Claude, f.ClaudeModel = &c, pub.ClaudeModel
	}
	return f
}
