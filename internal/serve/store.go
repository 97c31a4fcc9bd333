package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
)

// lazyStore reads transcripts into the usage store when a usage tool first
// needs them, and again when the last read is older than the interval. The
// read runs in the background: a call waits for it at most IngestWait, then
// answers from the store as it stands.
type lazyStore struct {
	o Options

	mu      sync.Mutex
	running chan struct{} // closed when the read in progress ends
	last    time.Time     // when the last read ended
	stats   *store.IngestStats
	err     error
	// sink receives the progress lines of the read in progress.
	sink *swapWriter
}

func newLazyStore(o Options) *lazyStore {
	return &lazyStore{o: o, sink: &swapWriter{}}
}

// fresh makes sure a read of the transcripts has ended within the interval,
// starting one if needed, and waits for it at most IngestWait. It reports
// whether the store is complete (false: a read is still going on) and what
// the last read found.
func (l *lazyStore) fresh(ctx context.Context, p *progress) (complete bool, stats *store.IngestStats, err error) {
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
		l.sink.set(p.lines(false))
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
	var stats *store.IngestStats
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

func (l *lazyStore) read() (*store.IngestStats, error) {
	st, err := store.Open(l.o.DBPath)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	stats, err := st.Ingest(context.Background(), store.IngestOptions{
		ClaudeRoots: l.o.ClaudeRoots,
		CodexRoots:  l.o.CodexRoots,
		Count:       token.O200k().Count,
		Progress:    l.sink,
		Now:         l.o.Now,
	})
	if err != nil {
		return nil, fmt.Errorf("reading transcripts into %s: %w", l.o.DBPath, err)
	}
	return stats, nil
}

// open opens the store for a query; it exists once a read has begun. A
// query writes nothing (store.OpenReadOnly), so it answers from a store on
// a full disk or in a folder it may not write.
func (l *lazyStore) open() (*store.Store, error) {
	if _, err := os.Stat(l.o.DBPath); err != nil {
		return nil, fmt.Errorf("no usage store at %s yet: %w", l.o.DBPath, errNotExist(err))
	}
	return store.OpenReadOnly(l.o.DBPath)
}

// errNotExist words a stat error without Go's "stat PATH:" prefix.
func errNotExist(err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("no such file")
	}
	return err
}

// notes words what a report should say about the read behind it.
func ingestNotes(complete bool, stats *store.IngestStats) []string {
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

// swapWriter forwards to the writer set last (nowhere when none).
type swapWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *swapWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

func (s *swapWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	if w != nil {
		w.Write(b)
	}
	return len(b), nil
}
