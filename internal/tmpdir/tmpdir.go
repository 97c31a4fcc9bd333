// Package tmpdir makes mcpcost's temporary folders and removes those a
// dead mcpcost left behind (killed before it could remove them).
//
// A folder is named PREFIX + "PID.START-" + random, where PID is the
// process that made it and START when that process started (clock ticks
// since boot, as in /proc/PID/stat; 0 where the system does not tell).
// A folder of that name is stale when it is the current user's and its
// process is gone: no process PID, or one that started at another time
// (the pid was reused). Where the system cannot tell a process's start
// time, nothing is ever taken for stale.
package tmpdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Make makes a temporary folder PREFIX + "PID.START-" + random in the
// system's temporary folder.
func Make(prefix string) (string, error) {
	return os.MkdirTemp("", fmt.Sprintf("%s%d.%d-", prefix, os.Getpid(), selfStart()))
}

// CleanStale removes the stale folders of prefix in the system's
// temporary folder, and returns how many it removed. Errors (a folder
// that cannot be removed) are skipped: the next run tries again.
func CleanStale(prefix string) int {
	dir := os.TempDir()
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	n := 0
	for _, name := range names {
		pid, start, ok := owner(name, prefix)
		if !ok || start == 0 || pid == os.Getpid() || alive(pid, start) {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || !mine(fi) {
			continue
		}
		if os.RemoveAll(p) == nil {
			n++
		}
	}
	return n
}

// owner reads the pid and start time in a folder's name.
func owner(name, prefix string) (pid int, start uint64, ok bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, 0, false
	}
	mark, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, 0, false
	}
	p, s, ok := strings.Cut(mark, ".")
	if !ok {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return pid, start, true
}
