package transcript

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// copySnapshot copies the file at from (an agent's database, or its
// write-ahead log) to a new file at to, as it is at the moment it is
// opened: only a regular file, not on a pseudo file system nor under
// /proc, /sys or /dev, and at most the size it had then. It never blocks
// on a FIFO (opened without waiting for a writer) and never copies more
// than the file held: a link to /dev/zero or a FIFO is an error, not a
// copy that fills the disk or waits forever.
func copySnapshot(from, to string) error {
	if systemFolder(from) {
		return fmt.Errorf("%s: a link into /proc, /sys or /dev, not read", from)
	}
	in, err := os.OpenFile(from, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s), not read", from, kind(fi.Mode()))
	}
	if pseudoFSType(from) {
		return fmt.Errorf("%s: on a pseudo file system, not read", from)
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(out, in, fi.Size()); err != nil && !errors.Is(err, io.EOF) {
		out.Close()
		return err
	}
	return out.Close()
}
