//go:build unix

package store

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
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
	return readChild(db)
}

// readChild opens db read-only and prints its totals.
func readChild(db string) int {
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

// TestOpenReadOnlyFolder: a store in a folder its reader cannot write
// (a store closed cleanly: no -wal or -shm file) opens read-only and
// gives complete totals. As root, the reader is a child process run as
// nobody.
func TestOpenReadOnlyFolder(t *testing.T) {
	s, _, want := interruptedFirstIngest(t)
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		os.Chmod(d, 0o755)
	}
	path := filepath.Join(dir, "usage.db")
	if _, err := s.db.Exec(`VACUUM INTO ?`, path); err != nil {
		t.Fatal(err)
	}
	// VACUUM INTO writes a rollback-journal file: make it a WAL store, as
	// every store is, and close it cleanly.
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("a -wal file after a clean close")
	}
	os.Chmod(path, 0o444)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })

	var got string
	if os.Geteuid() != 0 {
		r, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got = totals(t, r)
	} else {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("root, and no setpriv to read as another user")
		}
		// The test binary, where nobody may run it.
		bin := filepath.Join(filepath.Dir(dir), "store.test")
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), "MCPCOST_STORE_TEST_READ="+path)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("reading as nobody: %v\n%s", err, stderr.String())
		}
		got = stdout.String()
	}
	if got != want {
		t.Errorf("totals from a read-only folder:\n%s\nwant:\n%s", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files beside the store: %v", entries)
	}
}
