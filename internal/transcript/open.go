package transcript

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenFile opens an agent's file to read it (a transcript, a chat, a
// database or its log): a regular file only, not in /proc, /sys or /dev
// nor on a pseudo file system. The file listed may have been swapped
// since for a FIFO, whose open waits for a writer, forever: it is opened
// without waiting (O_NONBLOCK, where the system has it), and what was
// opened is checked by its descriptor, before anything is read. A check
// that fails is an error that does not name the file (its caller does).
// O_NONBLOCK changes nothing of a regular file's reads.
func OpenFile(path string) (*os.File, fs.FileInfo, error) {
	if systemFolder(path) {
		return nil, nil, notRead("a link into /proc, /sys or /dev, not read")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = notRead(fmt.Sprintf("not a regular file (%s), not read", kind(fi.Mode())))
	case pseudoFSFile(f):
		err = notRead("on a pseudo file system, not read")
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// notRead is why OpenFile refused a file.
type notRead string

func (e notRead) Error() string { return string(e) }
