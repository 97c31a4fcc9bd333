//go:build unix

// Package cputime reads the process's CPU time, for the benchmarks that
// report it beside wall time: on a shared machine it is steadier.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the user and system CPU time of the process so far.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
