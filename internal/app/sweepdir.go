package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcpcost/mcpcost/internal/outfile"
)

// outFolder is a sweep's output folder. Below it, a sweep reads and writes
// only regular files in real folders: what a stale or hostile folder holds
// in their place (a symbolic link to /etc/passwd, a FIFO, a device) is
// never followed, opened for writing or waited on. A file is written as a
// temporary file in its real folder, then renamed over its name, which
// replaces a link or a FIFO there; a link or anything else that is not a
// regular file where a sweep reads, and a link or a file where it needs a
// folder, is refused, naming it. Every access goes through an [os.Root],
// so that nothing outside the folder is reached even when its content
// changes meanwhile.
type outFolder struct {
	path string
	root *os.Root // nil while the folder does not exist
}

// openOutFolder opens dir; create makes it first when it does not exist.
// A folder that does not exist reads as one that holds nothing.
func openOutFolder(dir string, create bool) (*outFolder, error) {
	if create {
		if err := os.MkdirAll(dir, outfile.SharedFolder); err != nil {
			return nil, err
		}
	}
	r, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return &outFolder{path: dir}, nil
	}
	if err != nil {
		return nil, err
	}
	return &outFolder{path: dir, root: r}, nil
}

// Close releases the folder.
func (o *outFolder) Close() {
	if o.root != nil {
		o.root.Close()
	}
}

// show is rel as messages name it.
func (o *outFolder) show(rel string) string { return filepath.Join(o.path, rel) }

// refused is the error of a name below the folder that holds what a sweep
// does not read or write through.
func (o *outFolder) refused(rel, what string) error {
	return WithHint(fmt.Errorf("%s is %s: a sweep reads and writes only regular files and folders in its output folder, and follows no link there", o.show(rel), what),
		"remove it, or publish to a new folder with --out")
}

// folders checks each folder of rel (a relative folder, "." for the root)
// from the top: a real folder, made when create and it does not exist.
// made are the folders it made, from the top, also on an error.
func (o *outFolder) folders(rel string, create bool) (made []string, err error) {
	if rel == "." || rel == "" {
		return nil, nil
	}
	if o.root == nil {
		return nil, fs.ErrNotExist
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		fi, err := o.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) && create {
			err = o.root.Mkdir(p, outfile.SharedFolder)
			if err == nil {
				made = append(made, p)
			}
			if err == nil || errors.Is(err, fs.ErrExist) {
				fi, err = o.root.Lstat(p)
			}
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return made, err
			}
			return made, fmt.Errorf("%s: %w", o.show(p), unwrapPath(err))
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return made, o.refused(p, "a symbolic link")
		case !fi.IsDir():
			return made, o.refused(p, "not a folder")
		}
	}
	return made, nil
}

// kindOf names what a file that is not regular is.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// openRegular opens rel, which Lstat found as fi, with flag: refused
// unless fi is a regular file and what is opened is that file (it never
// waits on a FIFO put in its place between the look and the open).
func (o *outFolder) openRegular(rel string, fi fs.FileInfo, flag int) (*os.File, error) {
	if !fi.Mode().IsRegular() {
		return nil, o.refused(rel, kindOf(fi.Mode()))
	}
	f, err := o.root.OpenFile(rel, flag|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.show(rel), unwrapPath(err))
	}
	got, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", o.show(rel), err)
	}
	if !got.Mode().IsRegular() || !os.SameFile(fi, got) {
		f.Close()
		return nil, o.refused(rel, "no longer the regular file it was")
	}
	return f, nil
}

// read reads the regular file rel, at most max bytes; an error that
// wraps fs.ErrNotExist when it does not exist, and a refusal when
// something else is in its place. It never waits on a FIFO: what it opens
// is what it found, a regular file, or it is refused.
func (o *outFolder) read(rel string, max int64) ([]byte, error) {
	if o.root == nil {
		return nil, fs.ErrNotExist
	}
	if _, err := o.folders(filepath.Dir(rel), false); err != nil {
		return nil, err
	}
	fi, err := o.root.Lstat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", o.show(rel), unwrapPath(err))
	}
	f, err := o.openRegular(rel, fi, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.show(rel), err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes: not read", o.show(rel), max)
	}
	return b, nil
}

// testOnlyBeforeRename, when set, runs before each rename of publish.
var testOnlyBeforeRename func(rel string)

// publish puts each of names (relative to the folder) with its data in
// files, all of them or, as far as a file system allows, none: each is
// first written as a temporary file in its real folder (made where it
// does not exist), synced; only when all of them are written are they
// renamed over their names, in the order of names (see package outfile).
// An error before the renames (a folder where a file goes, a folder that
// cannot be written, a full disk) removes the temporary files and the
// folders made, leaving the folder as it was, and names the file. A
// rename that fails (rare: the folder changed meanwhile) leaves the files
// renamed before it published and the others as they were, and names
// both. Files are of mode outfile.Shared less the umask, their folders
// outfile.SharedFolder: a sweep's folder is published. A regular file
// that already holds its data is left as it is, so that a re-run that
// changes nothing changes no file. Meanwhile the folder holds each
// changed file twice: the disk needs room for both.
func (o *outFolder) publish(names []string, files map[string][]byte) error {
	type staged struct{ rel, tmp string }
	var todo []staged
	var made []string
	for _, rel := range names {
		tmp, dirs, err := o.stage(rel, files[rel])
		made = append(made, dirs...)
		if err != nil {
			for _, s := range todo {
				o.root.Remove(s.tmp)
			}
			for i := len(made) - 1; i >= 0; i-- {
				o.root.Remove(made[i])
			}
			return fmt.Errorf("%w; nothing published: %s is as it was", err, o.path)
		}
		if tmp != "" {
			todo = append(todo, staged{rel, tmp})
		}
	}
	for i, s := range todo {
		if testOnlyBeforeRename != nil {
			testOnlyBeforeRename(s.rel)
		}
		if err := o.root.Rename(s.tmp, s.rel); err != nil {
			for _, r := range todo[i:] {
				o.root.Remove(r.tmp)
			}
			var done, left []string
			for _, r := range todo[:i] {
				done = append(done, filepath.ToSlash(r.rel))
			}
			for _, r := range todo[i:] {
				left = append(left, filepath.ToSlash(r.rel))
			}
			published := "none"
			if len(done) > 0 {
				published = strings.Join(done, ", ")
			}
			return WithHint(fmt.Errorf("publishing %s: renaming into %s: %w: %s mixes this sweep's files and the ones before: published %d of %d files (%s); not published, as they were: %s",
				o.path, o.show(s.rel), unwrapLink(err), o.path, len(done), len(todo), published, strings.Join(left, ", ")),
				"fix what stopped the rename and run the sweep again: it writes every file again")
		}
	}
	return nil
}

// stage writes data as a temporary file beside rel, made is its folders
// made, also on an error; tmp is "" when rel already holds data.
func (o *outFolder) stage(rel string, data []byte) (tmp string, made []string, err error) {
	made, err = o.folders(filepath.Dir(rel), true)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("writing %s: %w", o.show(rel), err)
		}
		return "", made, err
	}
	if fi, err := o.root.Lstat(rel); err == nil && fi.IsDir() {
		return "", made, WithHint(fmt.Errorf("writing %s: it is a folder, where a sweep writes a file", o.show(rel)),
			"remove that folder, or publish to a new folder with --out")
	}
	if old, err := o.read(rel, int64(len(data))); err == nil && bytes.Equal(old, data) {
		return "", made, nil
	}
	tmp, err = outfile.Stage(o.root, rel, data, outfile.Shared)
	if err != nil {
		return "", made, fmt.Errorf("writing %s: %w", o.show(rel), err)
	}
	return tmp, made, nil
}

// unwrapLink drops a LinkError's own naming of the paths.
func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// unwrapPath drops a PathError's own naming of the path (the root's
// relative name), which the caller names whole.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// staleAge is how old a temporary file of mcpcost's must be before a
// sweep takes it for one that a sweep stopped between staging and
// renaming left: a younger one may be another mcpcost's (measure --out
// or badge into the same folder, which take no sweep lock) still being
// written.
const staleAge = time.Minute

// tempName matches the names of outfile.CreateTemp's files, and not the
// sweep's lock (".mcpcost-sweep.lock").
var tempName = regexp.MustCompile(`^\.mcpcost-[0-9a-z]{1,13}$`)

// removeStale removes, from each real folder that rels are in, the
// regular files named as outfile.CreateTemp names them and last written
// staleAge or more before now, and returns those removed (relative to the
// folder, sorted). It follows no link, and what it cannot read or remove
// it leaves: the publish that follows says what is wrong with a folder.
func (o *outFolder) removeStale(rels []string, now time.Time) []string {
	if o.root == nil {
		return nil
	}
	dirs := map[string]bool{}
	for _, rel := range rels {
		dirs[filepath.Dir(rel)] = true
	}
	var removed []string
	for dir := range dirs {
		if _, err := o.folders(dir, false); err != nil {
			continue
		}
		f, err := o.root.Open(dir)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, name := range names {
			if !tempName.MatchString(name) {
				continue
			}
			rel := filepath.Join(dir, name)
			fi, err := o.root.Lstat(rel)
			if err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < staleAge {
				continue
			}
			if o.root.Remove(rel) == nil {
				removed = append(removed, filepath.ToSlash(rel))
			}
		}
	}
	sort.Strings(removed)
	return removed
}
