//go:build linux || darwin || freebsd

package transcript

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// nextData returns where the next run of data of f at or after off
// starts and ends (SEEK_DATA, SEEK_HOLE), ok false when only a hole is
// left. Where the file system cannot tell, the rest is data.
func nextData(f *os.File, off, size int64) (start, end int64, ok bool) {
	start, err := unix.Seek(int(f.Fd()), off, unix.SEEK_DATA)
	if errors.Is(err, unix.ENXIO) {
		return 0, 0, false
	}
	if err != nil {
		return off, size, true
	}
	end, err = unix.Seek(int(f.Fd()), start, unix.SEEK_HOLE)
	if err != nil || end > size {
		end = size
	}
	return start, end, start < size
}
