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
	"time"
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

// fullDiskChild opens db where no file may grow and prints its totals,
// trying a writable open first when tryOpen.
func fullDiskChild(db string, tryOpen bool) int {
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 0, Max: 0}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// The writable open rebuilds the indexes, which cannot be done here.
	if !tryOpen {
		return readChild(db)
	}
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

// fullDiskRead reads the store at path in a child process where no file
// may grow, returning its output and error.
func fullDiskRead(t *testing.T, path string) (stdout, stderr string, err error) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MCPCOST_STORE_TEST_FULL_DISK="+path, "MCPCOST_STORE_TEST_NO_OPEN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// TestOpenReadOnlyCleanStoreOnFullDisk: a store closed cleanly (no -wal,
// no -shm file) opens for reading where no file may grow, gives complete
// totals, and leaves no file beside it.
func TestOpenReadOnlyCleanStoreOnFullDisk(t *testing.T) {
	s, path, want := interruptedFirstIngest(t)
	s.Close()
	for _, f := range []string{path + "-wal", path + "-shm"} {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("%s after a clean close", f)
		}
	}
	got, stderr, err := fullDiskRead(t, path)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr)
	}
	if got != want {
		t.Errorf("totals on a full disk:\n%s\nwant:\n%s", got, want)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("files beside the store: %v", entries)
	}
}

// TestOpenReadOnlyUnreadableWAL: a store whose -wal file holds writes,
// without its -shm file, where no file may grow (not beside the store,
// not in the temporary folder), is refused with an error that says why,
// rather than read without those writes.
func TestOpenReadOnlyUnreadableWAL(t *testing.T) {
	s, path, _ := interruptedFirstIngest(t)
	dir := t.TempDir()
	copyWAL(t, path, filepath.Join(dir, "usage.db"))
	s.Close()
	_, stderr, err := fullDiskRead(t, filepath.Join(dir, "usage.db"))
	if err == nil || !strings.Contains(stderr, "write-ahead log usage.db-wal holds writes") {
		t.Errorf("child: %v, %s; want a refusal that names the -wal file", err, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files beside the store: %v", entries)
	}
}

// copyWAL copies the store at from and its -wal file (not its -shm) to
// to, as a store killed in its ingest leaves them.
func copyWAL(t *testing.T, from, to string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(from + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(data) == 0 {
			t.Fatal("an empty -wal file")
		}
		if err := os.WriteFile(to+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenReadOnlyFolderWithWAL: a store left by a killed ingest (its
// -wal file holding writes, no -shm file) in a folder its reader cannot
// write gives complete totals, the -wal's writes included, and leaves
// nothing behind.
func TestOpenReadOnlyFolderWithWAL(t *testing.T) {
	s, path, want := interruptedFirstIngest(t)
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		os.Chmod(d, 0o755)
	}
	copyWAL(t, path, filepath.Join(dir, "usage.db"))
	s.Close()
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if got := readAsOther(t, filepath.Join(dir, "usage.db")); got != want {
		t.Errorf("totals from a read-only folder:\n%s\nwant:\n%s", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files beside the store: %v", entries)
	}
}

// readAsOther reads the totals of the store at path as a user who cannot
// write its folder: this one, or as root nobody, in a child process.
func readAsOther(t *testing.T, path string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		r, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return totals(t, r)
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("root, and no setpriv to read as another user")
	}
	// The test binary, where nobody may run it.
	bin := filepath.Join(t.TempDir(), "store.test")
	os.Chmod(filepath.Dir(bin), 0o755)
	os.Chmod(filepath.Dir(filepath.Dir(bin)), 0o755)
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
	return stdout.String()
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

// TestOpenNotRegular: a store path that is a named pipe or a folder is
// refused at once, by both opens, rather than hang or fail in SQLite.
func TestOpenNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{fifo, dir} {
		done := make(chan error, 2)
		go func() {
			_, err := OpenReadOnly(p)
			done <- err
			_, err = Open(p)
			done <- err
		}()
		for range 2 {
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("%s: %v; want not a regular file", p, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: opening hangs", p)
			}
		}
	}
}

// TestOpenNewStoreOwnerOnly: a store made where others may read the
// folder (a --db path of the user's choosing), under the usual umask, is
// readable by its owner alone, and so are SQLite's log and shared-memory
// files beside it: the store holds the arguments' hash key and the
// projects' paths.
func TestOpenNewStoreOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "usage.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ownerOnly(t, path, "")
}

// TestOpenNewStoreOwnerOnlyThroughLink: a store path that is a symbolic
// link to a file not yet made (a dotfile kept elsewhere), through a
// second link and a relative one, gets the store made at the link's end,
// readable by its owner alone; a link to a store that exists leaves it as
// it is.
func TestOpenNewStoreOwnerOnlyThroughLink(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "kept"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "kept", "usage.db")
	if err := os.Symlink("kept/usage.db", filepath.Join(dir, "hop")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "usage.db")
	if err := os.Symlink(filepath.Join(dir, "hop"), link); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s, err := Open(link)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		fi, err := os.Stat(target)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("the store at the link's end: mode %v, want 0600", fi.Mode().Perm())
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v", err)
		}
	}
}

// TestOpenOldStoreOwnerOnly: a store made before new stores were made
// private, readable by every local user (0644, 0640), is made readable by
// its owner alone when it is opened for writing, and so is a log beside
// it; a store of another user's is left as it is, and opening for reading
// changes nothing.
func TestOpenOldStoreOwnerOnly(t *testing.T) {
	for _, mode := range []os.FileMode{0o644, 0o640, 0o666} {
		dir := t.TempDir()
		path := filepath.Join(dir, "usage.db")
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if r, err := OpenReadOnly(path); err == nil {
			r.Close()
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != mode {
			t.Errorf("%v: opening for reading changed the mode to %v", mode, fi.Mode().Perm())
		}
		s, err = Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ownerOnly(t, path, mode.String()+": ")
		s.Close()
	}
	if os.Getuid() != 0 {
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "theirs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Skip(err)
	}
	if s, err := Open(path); err == nil {
		s.Close()
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("another user's store: mode changed to %v", fi.Mode().Perm())
	}
}

// ownerOnly checks that the store at path, and its log and shared memory
// where they exist, are its owner's alone (0600); label starts each error.
func ownerOnly(t *testing.T, path, label string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			if p == path {
				t.Fatal(err)
			}
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s%s: mode %v, want 0600", label, filepath.Base(p), fi.Mode().Perm())
		}
	}
}
