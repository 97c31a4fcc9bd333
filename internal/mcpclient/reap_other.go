//go:build !linux

package mcpclient

import (
	"os"
	"os/exec"
	"time"
)

// Outside Linux there is no child subreaper: a process a server detaches
// from its process group (setsid) is not found after the capture.
type tracked struct{}

func startTracked(cmd *exec.Cmd, _ ...*os.File) (*tracked, error) { return nil, cmd.Start() }

func (*tracked) reapLeftovers(time.Duration) {}
