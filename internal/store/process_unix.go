//go:build unix

package store

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// processAlive reports whether a process with this id runs on this
// system: signal 0 checks without sending anything, and on Linux a
// zombie (dead, not yet reaped by its parent) does not count.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// pid (comm) state ...: the name may hold anything, ")" included.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// processStart names the start of the process with this id, so that a
// later process given the same id (pid reuse, or PID 1 of one container
// after another) is told apart from it: on Linux, the boot id and the
// start time in clock ticks since boot (/proc/PID/stat field 22), as
// "BOOTID.TICKS". It is empty where this cannot be read (no /proc).
func processStart(pid int) string {
	boot := bootID()
	if boot == "" {
		return ""
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// pid (comm) state ppid ...: fields from the third on follow the
	// last ")"; the start time is the 22nd field.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(stat[i+1:]))
	const startField = 22 - 3
	if len(fields) <= startField {
		return ""
	}
	if _, err := strconv.ParseUint(fields[startField], 10, 64); err != nil {
		return ""
	}
	return boot + "." + fields[startField]
}

var bootOnce = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(b))
	if id == "" || strings.ContainsAny(id, "/. ") {
		return ""
	}
	return id
})

func bootID() string { return bootOnce() }
