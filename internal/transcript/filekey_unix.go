//go:build unix

package transcript

import (
	"io/fs"
	"syscall"
)

// fileKey names a file whatever the path it is reached by.
type fileKey struct {
	dev, ino uint64
	path     string
}

func keyOf(path string, fi fs.FileInfo) fileKey {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileKey{path: path}
}
