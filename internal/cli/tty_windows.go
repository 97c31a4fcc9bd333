package cli

import (
	"syscall"
	"unsafe"
)

// isTerminalFd reports whether fd is a console (GetConsoleMode succeeds
// only for one).
func isTerminalFd(fd uintptr) bool {
	var mode uint32
	return syscall.GetConsoleMode(syscall.Handle(fd), &mode) == nil
}

// terminalColumnsFd asks the console fd for the width of its window.
func terminalColumnsFd(fd uintptr) int {
	var info struct {
		Size, CursorPosition     struct{ X, Y int16 }
		Attributes               uint16
		Left, Top, Right, Bottom int16
		MaximumWindowSize        struct{ X, Y int16 }
	}
	proc := syscall.NewLazyDLL("kernel32.dll").NewProc("GetConsoleScreenBufferInfo")
	if r, _, _ := proc.Call(fd, uintptr(unsafe.Pointer(&info))); r == 0 {
		return 0
	}
	return int(info.Right-info.Left) + 1
}
