//go:build linux

package tmpdir

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// startOf is when process pid started (clock ticks since boot), from
// /proc/PID/stat; ok is false when there is no such process, or when it
// has exited and waits to be reaped (a zombie).
func startOf(pid string) (uint64, bool) {
	start, state, ok := statOf(pid)
	return start, ok && state != "Z" && state != "X"
}

// statOf reads the start time and the state of process pid.
func statOf(pid string) (start uint64, state string, ok bool) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, "", false
	}
	// pid (comm) state ...: comm may hold anything, so the fields are
	// counted from its last ')'; starttime is the 22nd field.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, "", false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 20 {
		return 0, "", false
	}
	start, err = strconv.ParseUint(string(f[19]), 10, 64)
	return start, string(f[0]), err == nil
}

func selfStart() uint64 {
	s, _ := startOf(strconv.Itoa(os.Getpid()))
	return s
}

// alive reports whether process pid, started at start, still runs. A
// /proc that cannot be read says nothing: the process is taken for alive.
func alive(pid int, start uint64) bool {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return true
	}
	s, ok := startOf(strconv.Itoa(pid))
	return ok && s == start
}

func mine(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
