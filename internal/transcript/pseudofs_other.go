//go:build !linux

package transcript

// pseudoFSType cannot tell here: only the folders' paths are checked.
func pseudoFSType(path string) bool { return false }
