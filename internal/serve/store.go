package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/mcpcost/mcpcost/internal/app"
)

// lazyStore reads transcripts into the usage store when a usage tool first
// needs them, and again when the last read is older than the interval. The
// read runs in the background: a call waits for it at most IngestWait, then
// answers from the store as it stands.
type lazyStore struct {
	o Options
	m *app.Machine

	mu      sync.Mutex
	running chan struct{} // closed when the read in progress ends
	last    time.Time     // when the last read ended
	stats   *app.IngestStats
	err     error
	// sink receives the progress of the read in progress.
	sink *swapProgress
}

func newLazyStore(o Options) *lazyStore {
	return &lazyStore{o: o, m: o.machine(), sink: &swapProgress{}}
}

// fresh makes sure a read of the transcripts has ended within the interval,
// starting one if needed, and waits for it at most IngestWait. It reports
// whether the store is complete (false: a read is still going on) and what
// the last read found.
func (l *lazyStore) fresh(ctx context.Context, p *progress) (complete bool, stats *app.IngestStats, err error) {
	if l.o.DBPath == "" {
		return false, nil, errors.New("no usage store is configured")
	}
	l.mu.Lock()
	if l.running == nil && (l.last.IsZero() || l.o.Now().Sub(l.last) >= l.o.IngestInterval) {
		done := make(chan struct{})
		l.running = done
		go l.ingest(done)
	}
	running := l.running
	l.mu.Unlock()
	if running != nil {
		l.sink.set(p.events(false))
		defer l.sink.set(nil)
		p.note("reading new transcript lines into the usage store")
		timer := time.NewTimer(l.o.IngestWait)
		defer timer.Stop()
		select {
		case <-running:
		case <-timer.C:
			return false, nil, nil
		case <-ctx.Done():
			return false, nil, ctx.Err()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return true, l.stats, l.err
}

// ingest reads the transcripts in the background. A panic in it (a reader
// meeting a line it cannot handle) ends the read with an error naming the
// store, and the server carries on.
func (l *lazyStore) ingest(done chan struct{}) {
	var stats *app.IngestStats
	var err error
	var last time.Time
	defer func() {
		if v := recover(); v != nil {
			stats, err = nil, fmt.Errorf("reading transcripts into %s: internal error: %v (at %s); please report it", l.o.DBPath, v, panicSite())
		}
		if last.IsZero() {
			last = time.Now()
		}
		l.mu.Lock()
		l.stats, l.err, l.last, l.running = stats, err, last, nil
		l.mu.Unlock()
		close(done)
	}()
	stats, err = l.read()
	last = l.o.Now()
}

func (l *lazyStore) read() (*app.IngestStats, error) {
	return l.m.Sync(context.Background(), app.IngestOptions{
		Roots:         &[2][]string{l.o.ClaudeRoots, l.o.CodexRoots},
		CopilotRoots:  l.o.CopilotRoots,
		GooseRoots:    l.o.GooseRoots,
		GeminiRoots:   l.o.GeminiRoots,
		OpencodeRoots: l.o.OpencodeRoots,
		Progress:      l.sink.send,
		Now:           l.o.Now,
	})
}

// queryError words the error of a query: the store exists once a read
// has begun.
func queryError(err error) error {
	var ns *app.NoStoreError
	if errors.As(err, &ns) {
		return fmt.Errorf("no usage store at %s yet: %w", ns.Path, errNotExist(ns.Err))
	}
	return err
}

// errNotExist words a stat error without Go's "stat PATH:" prefix.
func errNotExist(err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("no such file")
	}
	return err
}

// notes words what a report should say about the read behind it.
func ingestNotes(complete bool, stats *app.IngestStats) []string {
	notes := []string{}
	if !complete {
		notes = append(notes, "partial: transcripts are still being read into the usage store; call again for complete figures")
	}
	if stats != nil {
		if stats.Skipped {
			notes = append(notes, "partial: another mcpcost process is reading transcripts; figures are the store as it stands")
		}
		if stats.Corrupt > 0 {
			notes = append(notes, fmt.Sprintf("%d corrupt transcript lines skipped", stats.Corrupt))
		}
	}
	return notes
}

// swapProgress forwards progress to the one set last (nowhere when none).
type swapProgress struct {
	mu sync.Mutex
	p  app.Progress
}

func (s *swapProgress) set(p app.Progress) {
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
}

func (s *swapProgress) send(e app.ProgressEvent) {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p != nil {
		p(e)
	}
}
