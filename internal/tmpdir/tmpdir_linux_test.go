//go:build linux

package tmpdir

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// started runs cmd and returns its pid and start time.
func started(t *testing.T, cmd *exec.Cmd) (int, uint64) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s, _, ok := statOf(strconv.Itoa(cmd.Process.Pid))
	if !ok {
		t.Fatal("no start time")
	}
	return cmd.Process.Pid, s
}

func TestCleanStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const prefix = "mcpcost-test-"

	dead := exec.Command("true")
	deadPid, deadStart := started(t, dead)
	dead.Wait()
	// A process killed and not yet reaped is gone too.
	zombie := exec.Command("sleep", "60")
	zombiePid, zombieStart := started(t, zombie)
	zombie.Process.Kill()
	for {
		st, _ := os.ReadFile("/proc/" + strconv.Itoa(zombiePid) + "/stat")
		if i := bytes.LastIndexByte(st, ')'); i > 0 && bytes.HasPrefix(st[i+1:], []byte(" Z")) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	t.Cleanup(func() { zombie.Wait() })
	live := exec.Command("sleep", "60")
	livePid, liveStart := started(t, live)
	t.Cleanup(func() { live.Process.Kill(); live.Wait() })

	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "sub", "f"), []byte("x"), 0o600)
		return p
	}
	gone := map[string]string{
		"dead":   mk(fmt.Sprintf("%s%d.%d-a", prefix, deadPid, deadStart)),
		"reused": mk(fmt.Sprintf("%s%d.%d-b", prefix, livePid, liveStart+1)),
		"zombie": mk(fmt.Sprintf("%s%d.%d-z", prefix, zombiePid, zombieStart)),
	}
	kept := map[string]string{
		"live":         mk(fmt.Sprintf("%s%d.%d-c", prefix, livePid, liveStart)),
		"self":         mk(fmt.Sprintf("%s%d.%d-d", prefix, os.Getpid(), selfStart()+1)),
		"no start":     mk(fmt.Sprintf("%s%d.0-e", prefix, deadPid)),
		"other prefix": mk(fmt.Sprintf("mcpcost-other-%d.%d-f", deadPid, deadStart)),
		"unmarked":     mk(prefix + "g"),
	}
	target := mk("target")
	link := filepath.Join(tmp, fmt.Sprintf("%s%d.%d-h", prefix, deadPid, deadStart))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	kept["link"] = link
	if os.Getuid() == 0 {
		p := mk(fmt.Sprintf("%s%d.%d-i", prefix, deadPid, deadStart))
		if err := os.Chown(p, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		kept["another user's"] = p
	}

	if n := CleanStale(prefix); n != len(gone) {
		t.Errorf("removed %d folders, want %d", n, len(gone))
	}
	for what, p := range gone {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s: %s is still there (%v)", what, p, err)
		}
	}
	for what, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %s was removed (%v)", what, p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "sub", "f")); err != nil {
		t.Errorf("the link's target was emptied: %v", err)
	}
}

// Make names its folder after the process.
func TestMake(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	p, err := Make("mcpcost-test-")
	if err != nil {
		t.Fatal(err)
	}
	pid, start, ok := owner(filepath.Base(p), "mcpcost-test-")
	if !ok || pid != os.Getpid() || start != selfStart() || start == 0 {
		t.Errorf("%s: pid %d start %d (%v), want %d %d", p, pid, start, ok, os.Getpid(), selfStart())
	}
	if !alive(pid, start) {
		t.Error("this process is not alive")
	}
	if CleanStale("mcpcost-test-") != 0 {
		t.Error("removed a folder of this process")
	}
}
