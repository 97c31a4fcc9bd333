package cli

import (
	"fmt"
	"io"

	"github.com/mcpcost/mcpcost/internal/app"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// Progress is where slow work tells how it goes, on stderr: on a terminal
// one line redrawn in place (a carriage return, the line cleared) and
// cleared when the work ends; elsewhere one plain line as each piece of
// work starts and as each server ends (an ingest's start and end, not its
// steps); nothing with --quiet. Names are escaped with textsafe.Text.
func (e *Env) Progress() app.Progress {
	if e.Quiet || e.Stderr == nil {
		return nil
	}
	return e.progress
}

func (e *Env) progress(ev app.ProgressEvent) {
	e.progressMu.Lock()
	defer e.progressMu.Unlock()
	line := "mcpcost: " + textsafe.Text(ev.String())
	if ev.Phase == app.PhaseNote {
		// A note stays: a line of its own, after any progress line.
		if e.progressOpen {
			io.WriteString(e.Stderr, eraseLine)
			e.progressOpen = false
		}
		fmt.Fprintln(e.Stderr, line)
		return
	}
	if !e.StderrTTY {
		if ev.Work == app.WorkIngest && ev.Phase == app.PhaseStep {
			return
		}
		fmt.Fprintln(e.Stderr, line)
		return
	}
	io.WriteString(e.Stderr, redrawLine(line, e.ErrColumns))
	e.progressOpen = true
	if ev.Phase == app.PhaseEnd || ev.Work == app.WorkMeasure && ev.Phase == app.PhaseStep && ev.Done == ev.Total {
		io.WriteString(e.Stderr, eraseLine)
		e.progressOpen = false
	}
}

// status prints one line of progress that is no step of a count
// ("measuring NAME"): as Progress prints lines.
func (e *Env) status(msg string) {
	if e.Quiet || e.Stderr == nil {
		return
	}
	e.progressMu.Lock()
	defer e.progressMu.Unlock()
	if e.progressOpen {
		io.WriteString(e.Stderr, eraseLine)
		e.progressOpen = false
	}
	fmt.Fprintln(e.Stderr, "mcpcost: "+textsafe.Text(msg))
}

// endProgress clears a progress line left on the terminal, before a
// diagnostic is written.
func (e *Env) endProgress() {
	e.progressMu.Lock()
	defer e.progressMu.Unlock()
	if e.progressOpen {
		io.WriteString(e.Stderr, eraseLine)
		e.progressOpen = false
	}
}

// progressWriter passes lines of progress that work writes itself (a
// sweep's servers) to w, each through textsafe.Lines, after clearing a
// progress line left on the terminal.
type progressWriter struct {
	e *Env
	w io.Writer
}

func (p progressWriter) Write(b []byte) (int, error) {
	p.e.endProgress()
	if _, err := io.WriteString(p.w, textsafe.Lines(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
