//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly && !windows

package cli

// isTerminalFd has no terminal query to make on this system: no stream is
// taken for a terminal.
func isTerminalFd(uintptr) bool { return false }

// terminalColumnsFd has no terminal to ask on this system.
func terminalColumnsFd(uintptr) int { return 0 }
