//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// marked lists the processes whose environment holds the entry kv
// (NAME=value).
func marked(kv string) []int {
	names, _ := os.ReadDir("/proc")
	var pids []int
	for _, n := range names {
		pid, err := strconv.Atoi(n.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + n.Name() + "/environ")
		if err != nil {
			continue
		}
		if st, err := os.ReadFile("/proc/" + n.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i > 0 && strings.HasPrefix(string(st[i+1:]), " Z") {
				continue // a zombie is gone already
			}
		}
		for _, e := range bytes.Split(env, []byte{0}) {
			if string(e) == kv {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// cmdProcs: "procs NAME=value" waits (up to a minute) until a process
// whose environment holds that entry runs; "! procs NAME=value" waits (up
// to 10s) until none does, and kills those left when it fails.
func cmdProcs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || !strings.Contains(args[0], "=") {
		ts.Fatalf("usage: [!] procs NAME=value")
	}
	wait := time.Minute
	if neg {
		wait = 10 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		pids := marked(args[0])
		if !neg && len(pids) > 0 || neg && len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			if neg {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				ts.Fatalf("processes %v still run", pids)
			}
			ts.Fatalf("no process holds %s", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
