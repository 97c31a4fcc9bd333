//go:build !unix

package transcript

import (
	"io/fs"
	"path/filepath"
)

// fileKey names a file whatever the path it is reached by: here its path
// with every link resolved.
type fileKey struct {
	path string
}

func keyOf(path string, fi fs.FileInfo) fileKey {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return fileKey{path: real}
	}
	return fileKey{path: path}
}

// sameDevice cannot tell here: every folder is checked.
func sameDevice(a, b fs.FileInfo) bool { return false }
