//go:build !windows

package app

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes f's exclusive flock(2) lock without waiting; busy when
// another open file holds it. (Every system but Windows that
// modernc.org/sqlite, and so this package, builds on has flock.)
func tryLock(f *os.File) (busy bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return false, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}
