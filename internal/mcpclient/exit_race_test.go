//go:build unix

package mcpclient

import (
	"context"
	"testing"
	"time"
)

// TestExitAtOnceIsStartupFailure: a server that exits before reading
// anything is a startup failure with its exit status, whichever end the
// client notices first (EOF on stdout, or a broken pipe on stdin).
func TestExitAtOnceIsStartupFailure(t *testing.T) {
	for i := 0; i < 20; i++ {
		r := Measure(context.Background(), Target{Command: "sh", Args: []string{"-c", "echo started >&2; exit 3"}},
			Options{Once: true, Timeout: 10 * time.Second, KillGrace: 200 * time.Millisecond})
		if r.Status != StatusStartupFailure {
			t.Fatalf("run %d: %s: %s", i, r.Status, r.Detail)
		}
	}
}
