//go:build !unix

package mcpclient

import "os/exec"

// setProcessGroup does nothing where there are no process groups.
func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup kills the server process; without process groups its
// descendants cannot be reached from here.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil && kill {
		_ = cmd.Process.Kill()
	}
}
