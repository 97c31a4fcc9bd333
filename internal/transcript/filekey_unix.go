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

// sameDevice reports whether a and b are on the same device, so on the
// same file system.
func sameDevice(a, b fs.FileInfo) bool {
	sa, ok := a.Sys().(*syscall.Stat_t)
	sb, okb := b.Sys().(*syscall.Stat_t)
	return ok && okb && sa.Dev == sb.Dev
}
