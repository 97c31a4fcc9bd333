//go:build unix

package mcpclient

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the server as the leader of its own process group,
// so that it and every descendant can be signalled at once.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to the server's
// whole process group. Errors (the group is already gone) are ignored.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
