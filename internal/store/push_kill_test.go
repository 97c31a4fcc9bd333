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
