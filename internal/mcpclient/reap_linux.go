//go:build linux

package mcpclient

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// On Linux mcpcost makes itself a child subreaper: a process a server
// detaches (a double fork with setsid(), a daemon leaving the server's
// process group) is re-parented to mcpcost instead of init when its parent
// exits, so that it can still be found, ended and reaped. After each
// capture, every child mcpcost adopted from that server is killed with
// its descendants and reaped.
//
// Which capture an adopted process came from is known from its process
// group (a process that stayed in the server's group), from the server's
// stdio pipes it still holds, or else from when it started: a process
// that started during one capture alone is that capture's; one that
// started while several captures ran is ended by the last of them to
// finish, so that a capture never kills what a server still running may
// need.

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

var reaper struct {
	once sync.Once
	on   bool // mcpcost is a subreaper
	self int  // mcpcost's pid
	pgrp int  // mcpcost's process group

	mu     sync.Mutex
	active map[int]*tracked // by server pid (its process group)
}

// tracked is a started server whose leftovers reapLeftovers ends.
type tracked struct {
	pid   int
	start uint64          // clock ticks since boot, as in /proc/PID/stat
	pipes map[string]bool // its stdio pipes, as /proc/PID/fd names them
}

// startTracked starts cmd (a process group leader whose stdio are the
// pipes) and registers it, so that no other capture's sweep takes it, or
// its group, for a leftover.
func startTracked(cmd *exec.Cmd, pipes ...*os.File) (*tracked, error) {
	reaper.once.Do(func() {
		_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
		reaper.on = errno == 0
		reaper.self = os.Getpid()
		reaper.pgrp = syscall.Getpgrp()
		reaper.active = map[int]*tracked{}
	})
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if !reaper.on {
		return nil, launch(cmd)
	}
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if err := launch(cmd); err != nil {
		return nil, err
	}
	// Until it is waited for, the server's /proc entry exists (as a
	// zombie at worst).
	t := &tracked{pid: cmd.Process.Pid, pipes: map[string]bool{}}
	if st, ok := readStat(t.pid); ok {
		t.start = st.start
	}
	for _, f := range pipes {
		if fi, err := f.Stat(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				t.pipes["pipe:["+strconv.FormatUint(st.Ino, 10)+"]"] = true
			}
		}
	}
	reaper.active[t.pid] = t
	return t, nil
}

// A server is started with Pdeathsig SIGKILL: when mcpcost dies, killed
// with SIGKILL among others, the kernel kills the server too, instead of
// leaving it to run under init. The signal is tied to the thread that
// forked the server, not to the process: it fires when that thread exits.
// The Go runtime ends a thread when a goroutine locked to it returns
// without unlocking, so every server is forked from one goroutine locked
// to its thread for good, which never returns: the signal fires when
// mcpcost itself is gone, and only then.
var launcher struct {
	once sync.Once
	req  chan func()
}

// launch starts cmd on the launcher's thread.
func launch(cmd *exec.Cmd) error {
	launcher.once.Do(func() {
		launcher.req = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as mcpcost
			for f := range launcher.req {
				f()
			}
		}()
	})
	done := make(chan error, 1)
	launcher.req <- func() { done <- cmd.Start() }
	return <-done
}

// holdsPipe reports whether process pid has one of t's pipes open.
func (t *tracked) holdsPipe(fds []string) bool {
	for _, fd := range fds {
		if t.pipes[fd] {
			return true
		}
	}
	return false
}

// openPipes lists the pipes process pid has open.
func openPipes(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var pipes []string
	for _, n := range names {
		if l, err := os.Readlink(dir + "/" + n); err == nil && len(l) > 5 && l[:5] == "pipe:" {
			pipes = append(pipes, l)
		}
	}
	return pipes
}

// procStat is what reapLeftovers reads of a process.
type procStat struct {
	pid, ppid, pgrp int
	zombie          bool
	start           uint64
}

func readStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// pid (comm) state ppid pgrp session ...: comm may hold anything, so
	// the fields are counted from its last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 20 {
		return procStat{}, false
	}
	st := procStat{pid: pid, zombie: string(f[0]) == "Z"}
	st.ppid, _ = strconv.Atoi(string(f[1]))
	st.pgrp, _ = strconv.Atoi(string(f[2]))
	st.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	return st, true
}

// processes reads every process of the system.
func processes() []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var out []procStat
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out = append(out, st)
		}
	}
	return out
}

// reapLeftovers ends every process the server left behind: it unregisters
// the server (which has exited and been waited for), then kills each child
// mcpcost adopted from it, with all their descendants, and reaps them,
// until none is left or wait has passed.
func (t *tracked) reapLeftovers(wait time.Duration) {
	if t == nil {
		return
	}
	reaper.mu.Lock()
	delete(reaper.active, t.pid)
	reaper.mu.Unlock()
	deadline := time.Now().Add(wait)
	killed := map[int]bool{}
	for {
		procs := processes()
		children := map[int][]int{}
		for _, p := range procs {
			children[p.ppid] = append(children[p.ppid], p.pid)
		}
		var kill, reap []int
		reaper.mu.Lock()
		for _, p := range procs {
			if p.ppid != reaper.self || !(killed[p.pid] || t.owns(p)) {
				continue
			}
			if p.zombie {
				reap = append(reap, p.pid)
				continue
			}
			// The child and everything under it.
			stack := []int{p.pid}
			for len(stack) > 0 {
				pid := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				kill = append(kill, pid)
				stack = append(stack, children[pid]...)
			}
		}
		reaper.mu.Unlock()
		if len(kill) == 0 && len(reap) == 0 {
			return
		}
		for _, pid := range kill {
			killed[pid] = true
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range reap {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
		if time.Now().After(deadline) {
			return
		}
		if len(reap) == 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// owns reports whether p, a child of mcpcost, is a leftover of t's server.
// Called with reaper.mu held.
func (t *tracked) owns(p procStat) bool {
	switch {
	case p.pgrp == reaper.pgrp:
		return false // started by mcpcost itself, not by a server
	case p.pgrp == t.pid:
		return true // stayed in the server's group
	}
	if _, running := reaper.active[p.pid]; running {
		return false
	}
	if _, running := reaper.active[p.pgrp]; running {
		return false // in another running server's group
	}
	if p.start < t.start {
		return false
	}
	if len(reaper.active) == 0 {
		return true
	}
	if fds := openPipes(p.pid); len(fds) > 0 {
		if t.holdsPipe(fds) {
			return true
		}
		for _, o := range reaper.active {
			if o.holdsPipe(fds) {
				return false
			}
		}
	}
	for _, o := range reaper.active {
		if o.start <= p.start {
			return false // may be that server's: the last capture ends it
		}
	}
	return true
}
