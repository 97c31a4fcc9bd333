package clients

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Files of the kernel's pseudo filesystems pass for regular files; they
// are refused, naming the file and the filesystem, and /proc/kmsg (which
// waits for the kernel's next message, readable by root) does not hang.
func TestPseudoFilesystems(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"/proc/self/status":                 "procfs",
		"/proc/version":                     "procfs",
		"/sys/devices/system/cpu/online":    "sysfs",
		"/sys/fs/cgroup/cgroup.controllers": "cgroup2",
	}
	if os.Geteuid() == 0 {
		files["/proc/kmsg"] = "procfs"
	} else {
		t.Log("not root: /proc/kmsg is not tried")
	}
	for target, fs := range files {
		if _, err := os.Stat(target); err != nil {
			t.Logf("%s: %v", target, err)
			continue
		}
		t.Run(target, func(t *testing.T) {
			link := filepath.Join(dir, strings.ReplaceAll(target, "/", "_")+".json")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{target, link} {
				var err error
				within(t, 5*time.Second, func() { _, err = OSFS{}.ReadFileMax(name, MaxConfigSize) })
				want := name + ": a file of " + fs + ", a pseudo filesystem of the kernel, not a regular file"
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("got %v, want %q", err, want)
				}
			}
		})
	}
}

// A project config linked to /proc/kmsg (or, when not root, another file of
// /proc) is refused by discovery and by Load, as audit_config reads it.
func TestHostileRepoProc(t *testing.T) {
	target := "/proc/self/status"
	if os.Geteuid() == 0 {
		target = "/proc/kmsg"
	}
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(proj, ".cursor", "mcp.json")
	if err := os.Symlink(target, cfg); err != nil {
		t.Fatal(err)
	}
	sys := System{OS: "linux", Home: home, Cwd: proj, FS: OSFS{}, Getenv: func(string) string { return "" }}
	var looked []Location
	within(t, 20*time.Second, func() { _, looked = Discover(sys, []string{Cursor}) })
	found := false
	for _, l := range looked {
		if l.Path == cfg {
			found = true
			if l.State != StateUnreadable || !strings.Contains(l.Error, cfg+": a file of procfs, a pseudo filesystem") {
				t.Errorf("%s: %s %q", cfg, l.State, l.Error)
			}
		}
	}
	if !found {
		t.Errorf("%s was not looked at", cfg)
	}
	var err error
	within(t, 20*time.Second, func() { _, err = Load(sys, cfg) })
	if err == nil || !strings.Contains(err.Error(), "pseudo filesystem") {
		t.Errorf("Load: %v", err)
	}
}

// A read that waits is ended at its deadline: where the file can be
// polled (a pipe, /proc/kmsg) by the deadline itself, else by the timer,
// and the error names the file.
func TestReadDeadline(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	within(t, 5*time.Second, func() {
		_, err = readAll(r, "/x/pipe", 0, MaxConfigSize, time.Now().Add(100*time.Millisecond))
	})
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a pipe with no data: %v, want the deadline", err)
	}
	within(t, 5*time.Second, func() {
		_, err = withDeadline("/x/pipe", 100*time.Millisecond, func(deadline time.Time) ([]byte, error) {
			return readAll(r, "/x/pipe", 0, MaxConfigSize, deadline)
		})
	})
	if err == nil || !strings.Contains(err.Error(), "/x/pipe: not read within 100ms") {
		t.Errorf("a pipe with no data: %v", err)
	}
	block := make(chan struct{})
	defer close(block)
	within(t, 5*time.Second, func() {
		_, err = withDeadline("/x/stuck", 100*time.Millisecond, func(time.Time) ([]byte, error) {
			<-block
			return nil, nil
		})
	})
	if err == nil || !strings.Contains(err.Error(), "/x/stuck: not read within 100ms") {
		t.Errorf("a read that never returns: %v", err)
	}
	// What is read in time is returned as it is.
	data, err := withDeadline("/x/ok", time.Second, func(time.Time) ([]byte, error) { return []byte("ok"), nil })
	if string(data) != "ok" || err != nil {
		t.Errorf("got %q, %v", data, err)
	}
}
