//go:build unix

package store

import (
	"errors"
	"io"
	"syscall"
)

// edgeFile is a file opened for edgeHash's two reads. It is opened by
// the system call alone: os.Open would also try to register each file
// with the runtime's poller (four fcntl calls and an epoll_ctl that a
// regular file refuses), which is most of the cost of checking every
// file on every run.
type edgeFile int

// openEdge opens path without waiting (O_NONBLOCK), and refuses it
// unless it is a regular file: a FIFO swapped in for the file since it
// was listed would wait for a writer forever, and a device could read
// without end. O_NONBLOCK changes nothing of a regular file's reads.
func openEdge(path string) (edgeFile, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, err
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			syscall.Close(fd)
			return -1, errNotRegular
		}
		return edgeFile(fd), nil
	}
}

var errNotRegular = errors.New("not a regular file")

// ReadAt reads len(b) bytes from off, as os.File's does: fewer only at
// the end of the file (io.EOF) or on an error.
func (f edgeFile) ReadAt(b []byte, off int64) (n int, err error) {
	for len(b) > 0 {
		m, err := syscall.Pread(int(f), b, off)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
		b = b[m:]
		off += int64(m)
	}
	return n, nil
}

func (f edgeFile) Close() error { return syscall.Close(int(f)) }
