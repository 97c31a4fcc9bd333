//go:build unix

package store

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
)

// TestOpenReadOnlyOnFullDisk: where no file may grow (RLIMIT_FSIZE 0, as
// on a full disk), a store left by an interrupted first ingest opens for
// reading and gives complete totals.
func TestOpenReadOnlyOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	_, path, want := interruptedFirstIngest(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MCPCOST_STORE_TEST_FULL_DISK="+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != want {
		t.Errorf("totals on a full disk:\n%s\nwant:\n%s", got, want)
	}
	t.Logf("child: %s", stderr.String())
	if !strings.Contains(stderr.String(), "writable open failed") {
		t.Errorf("the full disk was not simulated (a writable open succeeded): %s", stderr.String())
	}
}

// fullDiskChild opens db where no file may grow and prints its totals.
func fullDiskChild(db string) int {
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 0, Max: 0}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// The writable open rebuilds the indexes, which cannot be done here.
	if s, err := Open(db); err == nil {
		s.Close()
		fmt.Fprintln(os.Stderr, "writable open succeeded")
	} else {
		fmt.Fprintln(os.Stderr, "writable open failed:", err)
	}
	s, err := OpenReadOnly(db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	got, err := totalsOf(s)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Print(got)
	return 0
}
