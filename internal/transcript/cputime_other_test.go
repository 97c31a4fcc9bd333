//go:build !unix

package transcript_test

import "time"

// cpuTime is 0 where the process's CPU time is not read: no CPU figure.
func cpuTime() time.Duration { return 0 }
