//go:build unix

package store

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// TestKillAndRerun: an ingest killed (SIGKILL) at 20 points (4 under the
// race detector), chosen from a
// fixed seed over its run, then run again, gives exactly the totals of a
// clean ingest, and the run again does not wait for the dead process's
// lease. Even points kill a first ingest into an empty store (which
// builds its indexes at its end); odd ones an ingest of grown files into a
// store that holds their first half.
func TestKillAndRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	full := t.TempDir()
	o := transcripttest.Small()
	o.Seed, o.Sessions, o.Codex, o.ResultBytes = 21, 40, 12, 2000
	if _, err := transcripttest.Generate(full, o); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, full)
	want := totals(t, ref)
	wantTriggers := triggers(t, ref)

	child := func(home, db string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MCPCOST_STORE_TEST_CHILD="+db, "MCPCOST_STORE_TEST_HOME="+home)
		cmd.Stderr = new(bytes.Buffer)
		return cmd
	}
	// How long a whole child ingest takes, process start included (the
	// shorter of two runs, on a loaded machine).
	var whole time.Duration
	for i := 0; i < 2; i++ {
		start := time.Now()
		if cmd := child(full, filepath.Join(t.TempDir(), "whole.db")); cmd.Run() != nil {
			t.Fatalf("child: %s", cmd.Stderr)
		}
		if d := time.Since(start); i == 0 || d < whole {
			whole = d
		}
	}
	points := 20
	if raceEnabled {
		points = 4 // each ingest takes seconds under the race detector
	}

	rng := rand.New(rand.NewPCG(20, 26))
	killed := 0
	var maxWait time.Duration
	// prepare makes point i's home and store: for an even point the tree
	// and no store, for an odd one the tree grown since a store was filled
	// from its first half.
	prepare := func(i int) (home, db string) {
		home, db = full, filepath.Join(t.TempDir(), "usage.db")
		if i%2 == 0 {
			return home, db
		}
		home = t.TempDir()
		rests := copyTree(t, full, home, 0.5)
		s := open(t, db)
		ingest(t, s, home)
		s.Close()
		for rel, rest := range rests {
			f, err := os.OpenFile(filepath.Join(home, rel), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(rest)
			f.Close()
		}
		return home, db
	}
	for i := 0; i < points; i++ {
		// A point the child outran (the machine is faster than measured)
		// is tried again, earlier, from a fresh start.
		var home, db string
		delay := time.Duration(rng.Float64() * float64(whole))
		for try := 0; try < 5; try++ {
			home, db = prepare(i)
			cmd := child(home, db)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			cmd.Process.Kill()
			if err := cmd.Wait(); err != nil {
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
					t.Fatalf("point %d: child: %v\n%s", i, err, cmd.Stderr)
				}
				killed++
				break
			}
			delay /= 2
		}

		s := open(t, db)
		opts := options(home)
		opts.LockWait = 3 * time.Second
		// The dead process's lease is taken at the first try: the re-run
		// never waits (a wait is announced before the first retry). Its
		// time is not the test, which a loaded machine stretches.
		waitedForLease := false
		opts.Progress = func(step IngestStep) {
			if step.Phase == IngestWait {
				waitedForLease = true
			}
		}
		st, err := s.Ingest(context.Background(), opts)
		if err != nil {
			t.Fatalf("point %d (%v): re-run: %v", i, delay, err)
		}
		maxWait = max(maxWait, st.Waited)
		if st.Skipped || waitedForLease {
			t.Errorf("point %d (%v): the re-run waited %v for the dead process's lease", i, delay, st.Waited)
		}
		if got := totals(t, s); got != want {
			t.Errorf("point %d (%v): after a kill and a re-run:\n%s\nwant (a clean ingest):\n%s", i, delay, got, want)
		}
		if got := triggers(t, s); got != wantTriggers {
			t.Errorf("point %d (%v): triggers after a kill and a re-run:\n%s\nwant (a clean ingest):\n%s", i, delay, got, wantTriggers)
		}
		s.Close()
	}
	t.Logf("a whole child ingest takes %v; %d of %d points killed it before its end; longest wait for a lease %v", whole, killed, points, maxWait)
	if killed < points*3/4 {
		t.Errorf("only %d of %d points killed the ingest before its end: the points do not test it", killed, points)
	}
}
