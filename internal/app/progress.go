package app

import (
	"fmt"
	"time"

	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/store"
)

// A ProgressEvent is a step of slow work, as plain data for a front end
// to show: cli on stderr, serve as MCP progress notifications.
type ProgressEvent struct {
	// Work is what is under way: WorkMeasure (servers launched) or
	// WorkIngest (transcript files read).
	Work string `json:"work"`
	// Phase is PhaseStart (Total known, nothing done yet), PhaseStep
	// (Done of Total), PhaseWait (for another process) or PhaseEnd.
	Phase       string `json:"phase"`
	Done, Total int
	// Name, Status and Elapsed are the server a measure step finished,
	// how, and in what time.
	Name    string        `json:"name,omitempty"`
	Status  string        `json:"status,omitempty"`
	Elapsed time.Duration `json:"elapsed,omitempty"`
	// Bytes are the transcript bytes read so far.
	Bytes int64 `json:"bytes,omitempty"`
	// Store is the shared store a WorkShared note names (its URL without
	// its password); Pushed what was pushed to it first (nil for nothing:
	// --no-ingest).
	Store  string           `json:"store,omitempty"`
	Pushed *store.PushStats `json:"pushed,omitempty"`
}

// The work and phases of a ProgressEvent.
const (
	WorkMeasure = "measure"
	WorkIngest  = "ingest"
	// WorkShared is a note (PhaseNote) that a report reads the shared
	// store, and what it pushed there first.
	WorkShared = "shared"

	PhaseStart = "start"
	PhaseStep  = "step"
	PhaseWait  = "wait"
	PhaseEnd   = "end"
	PhaseNote  = "note"
)

// Progress receives ProgressEvents; nil for none. It may be called from
// several goroutines, one call at a time.
type Progress func(ProgressEvent)

// String words the event as one line: "measuring 8 servers…",
// "[3/8] github: measured (1.2s)", "reading 1,234 transcript files…". Names
// are raw: a front end escapes them.
func (e ProgressEvent) String() string {
	switch {
	case e.Work == WorkShared && e.Pushed == nil:
		return "reading the shared store " + e.Store + " (nothing pushed: --no-ingest)"
	case e.Work == WorkShared:
		return fmt.Sprintf("pushed %s to the shared store %s (%s added, %s updated, %s dropped); reading it",
			num.Count(e.Pushed.Rows, "row"), e.Store, num.Int(e.Pushed.Added), num.Int(e.Pushed.Updated), num.Int(e.Pushed.Dropped))
	case e.Work == WorkMeasure && e.Phase == PhaseStart:
		return fmt.Sprintf("measuring %s %s…", num.Int(e.Total), num.Plural(e.Total, "server", "servers"))
	case e.Work == WorkMeasure:
		return fmt.Sprintf("[%d/%d] %s: %s (%.1fs)", e.Done, e.Total, e.Name, e.Status, e.Elapsed.Seconds())
	case e.Phase == PhaseWait:
		return "waiting for another mcpcost process to finish reading transcripts…"
	case e.Phase == PhaseStart:
		return fmt.Sprintf("reading %s transcript %s…", num.Int(e.Total), num.Plural(e.Total, "file", "files"))
	case e.Phase == PhaseEnd:
		return fmt.Sprintf("read %s transcript %s, %.1f MB", num.Int(e.Done), num.Plural(e.Done, "file", "files"), float64(e.Bytes)/1e6)
	}
	return fmt.Sprintf("reading transcripts: %s/%s files, %.1f MB", num.Int(e.Done), num.Int(e.Total), float64(e.Bytes)/1e6)
}

// measureSteps turns a Progress into mcpclient's.
func (p Progress) measureSteps() func(mcpclient.Step) {
	if p == nil {
		return nil
	}
	return func(s mcpclient.Step) {
		e := ProgressEvent{Work: WorkMeasure, Phase: PhaseStep, Done: s.Done, Total: s.Total, Name: s.Name, Status: string(s.Status), Elapsed: s.Elapsed}
		if s.Done == 0 {
			e.Phase = PhaseStart
		}
		p(e)
	}
}

// ingestSteps turns a Progress into the store's.
func (p Progress) ingestSteps() func(store.IngestStep) {
	if p == nil {
		return nil
	}
	return func(s store.IngestStep) {
		phase := map[string]string{store.IngestStart: PhaseStart, store.IngestRead: PhaseStep, store.IngestWait: PhaseWait, store.IngestEnd: PhaseEnd}[s.Phase]
		p(ProgressEvent{Work: WorkIngest, Phase: phase, Done: s.Done, Total: s.Total, Bytes: s.Bytes})
	}
}
