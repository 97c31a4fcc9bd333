package cli

import (
	"io"
	"os"
)

// isTerminal reports whether w is a terminal: a file the system answers
// a terminal's query for (isTerminalFd), not any character device, as
// /dev/null is one too.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	if err := rc.Control(func(fd uintptr) { tty = isTerminalFd(fd) }); err != nil {
		return false
	}
	return tty
}
