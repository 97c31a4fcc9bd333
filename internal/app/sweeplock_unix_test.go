//go:build unix

package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/sweep"
)

// TestSweepsRace: two sweeps into one folder, each measuring a server of
// its own, both read the folder before either writes it (each server's
// first launch waits on a FIFO until the test has seen both launched),
// then both publish: the history holds the rows of both and the row it
// held before, and every page both servers measured.
func TestSweepsRace(t *testing.T) {
	stdio := testServer(t, "stdioserver")
	out := t.TempDir()
	const old = "date,server,tokens,toolCount,status,isolation\n2026-11-30,a,80,3,measured,host\n"
	if err := os.WriteFile(filepath.Join(out, "history.csv"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	gates := t.TempDir()
	// The first launch of each server says it runs by opening its gate,
	// and waits for a line there; the second runs at once.
	const script = `if [ ! -e "$GATE.launched" ]; then : > "$GATE.launched"; read line < "$GATE"; fi; exec "$SERVER" ok`
	var servers []sweep.Server
	for _, n := range []string{"a", "b"} {
		gate := filepath.Join(gates, n)
		if err := syscall.Mkfifo(gate, 0o600); err != nil {
			t.Fatal(err)
		}
		servers = append(servers, sweep.Server{Name: n, Command: "sh", Args: []string{"-c", script}, CommandLine: "sh -c gated",
			EnvValues: map[string]string{"GATE": gate, "SERVER": stdio}})
	}
	var wg sync.WaitGroup
	errs := make([]error, len(servers))
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(),
				SweepOptions{Servers: servers, Swept: map[string]bool{s.Name: true}, Out: out, Date: "2026-12-01"})
		}()
	}
	// Opening a gate returns once its server has opened it: both sweeps
	// have read the folder and launched. Then both go on.
	var opened []*os.File
	for _, s := range servers {
		f, err := os.OpenFile(s.EnvValues["GATE"], os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		opened = append(opened, f)
	}
	for _, f := range opened {
		f.WriteString("go\n")
		f.Close()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("sweep of %s: %v", servers[i].Name, err)
		}
	}
	const want = "date,server,tokens,toolCount,status,isolation\n2026-11-30,a,80,3,measured,host\n2026-12-01,a,81,3,measured,host\n2026-12-01,b,81,3,measured,host\n"
	if b, _ := os.ReadFile(filepath.Join(out, "history.csv")); string(b) != want {
		t.Errorf("history.csv:\n%s\nwant:\n%s", b, want)
	}
	lb, _ := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	for _, n := range []string{"a", "b"} {
		if !strings.Contains(string(lb), "["+n+"](servers/"+n+".md) | 81 |") {
			t.Errorf("leaderboard.md does not list %s as measured:\n%s", n, lb)
		}
		if _, err := os.Stat(filepath.Join(out, "results", n, "measurement.json")); err != nil {
			t.Error(err)
		}
	}
}

// TestSweepLock: a sweep finding the folder's lock held waits for it up
// to sweepLockWait, then fails, saying another sweep is writing the
// folder, with a hint, and writes nothing; a sweep that fails while it
// holds the lock releases it.
func TestSweepLock(t *testing.T) {
	old := sweepLockWait
	sweepLockWait = 0
	t.Cleanup(func() { sweepLockWait = old })
	servers := []sweep.Server{{Name: "walled", Command: "npx", Args: []string{"walled"}, CommandLine: "npx walled", Remote: true}}
	run := func(out string) error {
		_, err := sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Out: out, Date: "2026-12-01"})
		return err
	}
	lock := func(t *testing.T, out string) (func(), error) {
		t.Helper()
		dir, err := openOutFolder(out, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(dir.Close)
		return dir.lock(context.Background(), 0)
	}
	for _, tt := range []struct {
		name string
		// setup prepares out; it returns what to do after the sweep.
		setup   func(t *testing.T, out string) func()
		wantErr string
		// nothing: nothing is written (a sweep that fails on a file
		// midway has written those before it)
		nothing bool
	}{
		{"held", func(t *testing.T, out string) func() {
			unlock, err := lock(t, out)
			if err != nil {
				t.Fatal(err)
			}
			return unlock
		}, "another sweep is writing OUT", true},
		{"failing", func(t *testing.T, out string) func() {
			if err := os.WriteFile(filepath.Join(out, "servers"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}, "OUT/servers is not a folder", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			after := tt.setup(t, out)
			err := run(out)
			want := strings.ReplaceAll(tt.wantErr, "OUT", out)
			if err == nil || !strings.Contains(err.Error(), want) || errorHintOf(err) == "" {
				t.Fatalf("got %v (hint %q), want an error saying %q, with a hint", err, errorHintOf(err), want)
			}
			if _, err := os.Stat(filepath.Join(out, "index.html")); err == nil && tt.nothing {
				t.Error("index.html written")
			}
			after()
			unlock, err := lock(t, out)
			if err != nil {
				t.Fatalf("the lock is still held after the sweep failed: %v", err)
			}
			unlock()
			os.Remove(filepath.Join(out, "servers"))
			if err := run(out); err != nil {
				t.Errorf("a sweep once the lock is free: %v", err)
			}
		})
	}
}
