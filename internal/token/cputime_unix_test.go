//go:build unix

package token

import (
	"syscall"
	"time"
)

// cpuTime returns the process's CPU time. Shared machines are noisy; CPU
// time is steadier than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
