//go:build unix

package mcpclient

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The test servers under testdata are built on first use, once per test
// binary, into bins (removed by TestMain).
var (
	bins      string
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bins != "" {
		os.RemoveAll(bins)
	}
	os.Exit(code)
}

// bin returns the path of a test server, building them all the first time.
func bin(tb testing.TB, name string) string {
	tb.Helper()
	buildOnce.Do(func() {
		bins, buildErr = os.MkdirTemp("", "mcpclient-test-")
		if buildErr != nil {
			return
		}
		for _, n := range []string{"stdioserver", "httpserver"} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(bins, n), "./testdata/"+n).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("building testdata/%s: %v\n%s", n, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return filepath.Join(bins, name)
}

// alive reports whether pid is a live process (a zombie counts as gone).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return runtime.GOOS != "linux"
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// pidsIn reads the pids a test server wrote to its PIDFILE.
func pidsIn(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading pid file: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, n)
	}
	return pids
}

// assertGone fails if any of pids still runs shortly after.
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d is still running after Measure returned", pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// settleGoroutines waits until no more than n goroutines run, and reports
// the count it settled at.
func settleGoroutines(n int) int {
	deadline := time.Now().Add(3 * time.Second)
	for {
		g := runtime.NumGoroutine()
		if g <= n || time.Now().After(deadline) {
			return g
		}
		time.Sleep(20 * time.Millisecond)
	}
}
