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

// TestPushKilled: a push killed (SIGKILL) at points chosen from a fixed
// seed over its run leaves the shared store as it was or with the whole
// push (one transaction), and a push again then gives exactly the local
// store's totals.
func TestPushKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	home := t.TempDir()
	o := transcripttest.Small()
	o.Seed, o.Sessions, o.Codex = 23, 40, 12
	if _, err := transcripttest.Generate(home, o); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "usage.db")
	local := open(t, dbPath)
	ingest(t, local, home)
	want := localTotals(t, local)

	child := func(u string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MCPCOST_STORE_TEST_PUSH="+dbPath, "MCPCOST_STORE_TEST_PG="+u)
		cmd.Stderr = new(bytes.Buffer)
		return cmd
	}
	// How long a whole push takes, process start included.
	// Each database is made and migrated before the kill.
	fresh := func() string {
		u := pgDatabase(t)
		db, err := OpenShared(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		return u
	}
	u := fresh()
	empty := sharedTotals(t, u)
	start := time.Now()
	if cmd := child(u); cmd.Run() != nil {
		t.Fatalf("child: %s", cmd.Stderr)
	}
	whole := time.Since(start)
	rnd := rand.New(rand.NewPCG(23, 5))
	for i := 0; i < 6; i++ {
		u := fresh()
		cmd := child(u)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rnd.Int64N(int64(whole))))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if got := sharedTotals(t, u); got != empty && got != want {
			t.Fatalf("point %d: a killed push left part of itself:\n%s", i, got)
		}
		if _, err := local.Push(context.Background(), u, pushOpts("killed")); err != nil {
			t.Fatalf("point %d: %v", i, err)
		}
		if got := sharedTotals(t, u); got != want {
			t.Errorf("point %d: after a killed push and a push again:\n%s\nwant:\n%s", i, got, want)
		}
	}
}

// TestPushKilledIncremental: an incremental push (the transcripts grew
// since the last one) killed at points chosen from a fixed seed, then a
// push again, gives exactly the local store's totals, and a mirror of
// the shared store reports what the local store reports.
func TestPushKilledIncremental(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	src := t.TempDir()
	o := transcripttest.Small()
	o.Seed, o.Sessions, o.Codex = 29, 40, 12
	if _, err := transcripttest.Generate(src, o); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(29, 7))
	var whole time.Duration
	for i := 0; i < 6; i++ {
		home := t.TempDir()
		rests := copyTree(t, src, home, 0.5)
		dbPath := filepath.Join(t.TempDir(), "usage.db")
		local := open(t, dbPath)
		ingest(t, local, home)
		u := pgDatabase(t)
		if _, err := local.Push(context.Background(), u, pushOpts("killed")); err != nil {
			t.Fatal(err)
		}
		for rel, rest := range rests {
			f, err := os.OpenFile(filepath.Join(home, rel), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(rest)
			f.Close()
		}
		ingest(t, local, home)
		want := localTotals(t, local)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MCPCOST_STORE_TEST_PUSH="+dbPath, "MCPCOST_STORE_TEST_PG="+u)
		cmd.Stderr = new(bytes.Buffer)
		// The first push runs whole, timed, process start included; the
		// others are killed within that time.
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v: %s", err, cmd.Stderr)
			}
			whole = time.Since(start)
		} else {
			time.Sleep(time.Duration(rnd.Int64N(int64(whole))))
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
		}
		st, err := local.Push(context.Background(), u, pushOpts("killed"))
		if err != nil {
			t.Fatalf("point %d: %v", i, err)
		}
		if i == 0 && *st != (PushStats{}) {
			t.Errorf("a push again after a whole one: %+v, want nothing sent", st)
		}
		t.Logf("point %d: the push again: %+v", i, st)
		if got := sharedTotals(t, u); got != want {
			t.Errorf("point %d: after a killed push and a push again (%+v):\n%s\nwant:\n%s", i, st, got, want)
		}
		m, _ := mirror(t, u, filepath.Join(t.TempDir(), "mirror.db"))
		if got, want := reportTotals(t, m, Filter{}), reportTotals(t, local, Filter{}); got != want {
			t.Errorf("point %d: the mirror reports\n%s\nwant\n%s", i, got, want)
		}
	}
}
