//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cli

import (
	"syscall"
	"unsafe"
)

// isTerminalFd asks for the terminal attributes of fd (tcgetattr), which
// only a terminal has.
func isTerminalFd(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, ioctlGetTermios, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
