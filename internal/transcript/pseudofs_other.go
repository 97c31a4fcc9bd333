//go:build !linux

package transcript

import "os"

// pseudoFSType cannot tell here: only the folders' paths are checked.
func pseudoFSType(path string) bool { return false }

// pseudoFSFile cannot tell here either.
func pseudoFSFile(f *os.File) bool { return false }
