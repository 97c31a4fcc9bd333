// Package outfile writes an output file whole or not at all: a new file
// of a name of its own in the same folder, written, synced to the disk
// and renamed over the name. A reader of the name finds the old file or
// the new one, never a part of one: a crash or a full disk midway leaves
// the old file as it was (and, after a crash, at most a ".mcpcost-*"
// file beside it; an error that returns removes it). A symbolic link or
// a FIFO at the name is replaced, never written through or waited on.
//
// mcpcost measure --out, badge, report --html, the sweep's pages and the
// library's Measurement.WriteFile all write through here.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// The modes of what mcpcost writes, by one rule: the mode follows who
// places the file, not what it holds.
//
//   - An output is a file the user names on the command line (measure
//     --out and --html, badge --svg and --shields, report --html) or that
//     a sweep publishes in its --out folder (results, badges, pages,
//     leaderboards, history), and the library's WriteFile: Shared (its
//     folders SharedFolder), less the umask, as the shell's > and
//     os.Create make a file. An output is made to be read by others
//     (published, attached, committed); one that holds private data
//     (report --html: each project's path and spend) gets the mode that
//     report --json, the same data, gets from the shell when sent to the
//     same place, since a stricter mode on one of the two protects
//     nothing. The umask, or the folder named, keeps an output private.
//   - mcpcost's own files, in the folders it chooses (the usage store,
//     the measurement cache, the status line's memo, the shared store's
//     project key, serve's token): 0600 in 0700 folders, where they are
//     made; they hold what the user never asked to publish.
const (
	Shared       os.FileMode = 0o666
	SharedFolder os.FileMode = 0o777
)

// FS is where a file is replaced: the machine's file system ([OS]) or an
// [os.Root], whose methods these are, which keeps every access below its
// folder.
type FS interface {
	OpenFile(name string, flag int, perm os.FileMode) (*os.File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
}

type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (osFS) Remove(name string) error             { return os.Remove(name) }

// OS is the machine's file system, names taken as they are.
var OS FS = osFS{}

// ErrIsDir is the error of a name that is a folder.
var ErrIsDir = errors.New("is a directory")

// deviceFolder holds the devices a path may name (/dev/null, /dev/stdout).
var deviceFolder = "/dev"

// Write writes data to path as a new file of mode perm (less the umask),
// replaced whole (see the package's doc). A folder at path is refused
// with [ErrIsDir]. A path below /dev is written through: the user sends
// the output there (/dev/null, /dev/stdout), where a file renamed would
// replace the device (as root) or could not be made. Its errors name
// path: "writing PATH: ...".
func Write(path string, data []byte, perm os.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("writing %s: %w", path, ErrIsDir)
	}
	if belowDevices(path) {
		if err := os.WriteFile(path, data, perm); err != nil {
			return fmt.Errorf("writing %s: %w", path, unwrap(err))
		}
		return nil
	}
	if err := Replace(OS, path, data, perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Replace writes data at name in fsys as a new file of mode perm (less
// the umask) in name's folder, synced, then renamed over name; on any
// error the new file is removed and name is left as it was. Its errors
// do not name the file: the caller names it as it shows it.
func Replace(fsys FS, name string, data []byte, perm os.FileMode) error {
	tmp, err := Stage(fsys, name, data, perm)
	if err != nil {
		return err
	}
	if err := fsys.Rename(tmp, name); err != nil {
		fsys.Remove(tmp)
		return unwrap(err)
	}
	return nil
}

// Stage is [Replace] up to the rename: it writes data as a new file of
// mode perm (less the umask) in name's folder in fsys, synced, and
// returns the new file's name, for the caller to rename over name or to
// remove. A caller that publishes several files stages them all before
// it renames any. On an error nothing is left; its errors do not name
// the file.
func Stage(fsys FS, name string, data []byte, perm os.FileMode) (tmp string, err error) {
	f, tmp, err := CreateTemp(fsys, filepath.Dir(name), perm)
	if err != nil {
		return "", unwrap(err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fsys.Remove(tmp)
		return "", unwrap(err)
	}
	return tmp, nil
}

// CreateTemp makes a new file ".mcpcost-" + random in dir in fsys, of
// mode perm (less the umask; os.CreateTemp's are 0600), and returns it
// and its name.
func CreateTemp(fsys FS, dir string, perm os.FileMode) (*os.File, string, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, ".mcpcost-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, name, err
	}
}

// belowDevices says whether path, made absolute, is below deviceFolder.
func belowDevices(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(deviceFolder, abs)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}

// unwrap drops a PathError's or LinkError's naming of the path, which
// the caller names as it shows it.
func unwrap(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
