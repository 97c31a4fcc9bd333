package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/mcpcost/mcpcost/internal/outfile"
)

// sweepLockName is the lock file of a sweep's folder: empty, made by the
// first sweep, left in place (removing it would let a sweep that opened
// it before the removal lock a file no longer in the folder).
const sweepLockName = ".mcpcost-sweep.lock"

// sweepLockWait bounds how long a sweep waits for another to finish
// writing the folder: a sweep holds the lock only while it reads the
// folder again and writes it, never while it measures.
var sweepLockWait = 10 * time.Minute

// lock takes the folder's exclusive lock, waiting up to wait (and until
// ctx ends) for another sweep to release it. The lock is the operating
// system's (flock, LockFileEx), held by the open file: a sweep that dies
// releases it with its process, so a lock is never stale. unlock
// releases it.
func (o *outFolder) lock(ctx context.Context, wait time.Duration) (unlock func(), err error) {
	f, err := o.openLock()
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	pause := 10 * time.Millisecond
	for {
		busy, err := tryLock(f)
		switch {
		case err != nil:
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", o.show(sweepLockName), err)
		case !busy:
			return func() { f.Close() }, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			f.Close()
			return nil, WithHint(fmt.Errorf("waited %s for the lock %s: another sweep is writing %s", wait.Round(time.Second), o.show(sweepLockName), o.path),
				"run this sweep again when that one has ended (a sweep holds the lock only while it writes the folder, and its process ending releases it), or publish to another folder with --out")
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("the sweep was interrupted while another sweep was writing %s: nothing written", o.path)
		case <-time.After(min(pause, left)):
		}
		pause = min(2*pause, time.Second)
	}
}

// openLock opens the lock file, made when it does not exist: a regular
// file, never a link or a FIFO followed or waited on.
func (o *outFolder) openLock() (*os.File, error) {
	fi, err := o.root.Lstat(sweepLockName)
	if errors.Is(err, fs.ErrNotExist) {
		f, cerr := o.root.OpenFile(sweepLockName, os.O_RDWR|os.O_CREATE|os.O_EXCL, outfile.Shared)
		if !errors.Is(cerr, fs.ErrExist) {
			if cerr != nil {
				return nil, fmt.Errorf("%s: %w", o.show(sweepLockName), unwrapPath(cerr))
			}
			return f, nil
		}
		// Another sweep made it first.
		fi, err = o.root.Lstat(sweepLockName)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.show(sweepLockName), unwrapPath(err))
	}
	return o.openRegular(sweepLockName, fi, os.O_RDWR)
}
