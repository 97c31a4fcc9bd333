package cli

import "syscall"

// isTerminalFd reports whether fd is a console (GetConsoleMode succeeds
// only for one).
func isTerminalFd(fd uintptr) bool {
	var mode uint32
	return syscall.GetConsoleMode(syscall.Handle(fd), &mode) == nil
}
