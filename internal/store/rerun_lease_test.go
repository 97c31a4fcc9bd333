package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// TestRawReadsFreeTheirConnection: a break, a panic or a cancelled
// context in the middle of a read through the driver leaves no
// connection in use.
func TestRawReadsFreeTheirConnection(t *testing.T) {
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	n := 0
	for _, err := range s.RequestSums(context.Background(), Filter{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 2 {
		t.Skipf("only %d sums", n)
	}
	for range 5 {
		for range s.RequestSums(context.Background(), Filter{}) {
			break
		}
	}
	if u := s.db.Stats().InUse; u != 0 {
		t.Errorf("after break: %d connections in use", u)
	}
	func() {
		defer func() { recover() }()
		for range s.ToolSums(context.Background(), Filter{}) {
			panic("x")
		}
	}()
	if u := s.db.Stats().InUse; u != 0 {
		t.Errorf("after panic: %d connections in use", u)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	got := 0
	for _, err := range s.RequestSums(ctx, Filter{}) {
		got++
		cancel()
		last = err
	}
	if last == nil {
		t.Errorf("cancelled read: no error after %d rows", got)
	}
	if u := s.db.Stats().InUse; u != 0 {
		t.Errorf("after cancel: %d connections in use", u)
	}
	t.Logf("cancelled: %d rows, %v", got, last)
}

// TestRerunWaitsForLiveLease: a re-run with nothing new while another
// live process holds the lease. Before the check, it waited (Waited set,
// or Skipped after LockWait); now it returns at once.
func TestRerunWaitsForLiveLease(t *testing.T) {
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	// A live lease of another host (never abandoned), a minute long.
	if _, err := s.db.Exec(`INSERT OR REPLACE INTO ingest_lock (id, owner, pid, expires_at) VALUES (1, 'otherhost/1/1/x', 1, ?)`,
		time.Now().Add(time.Minute).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	o := options(home)
	o.LockWait = 500 * time.Millisecond
	st, err := s.Ingest(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("re-run while leased: waited %v skipped %v", st.Waited, st.Skipped)
	if !st.Skipped {
		t.Errorf("a re-run while another process holds the lease is not Skipped (waited %v): the CLI no longer warns the report may be partial", st.Waited)
	}
}
