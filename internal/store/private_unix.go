//go:build unix

package store

import (
	"os"
	"syscall"
)

// keepPrivate makes the store at path, its log and its shared memory
// readable and writable by their owner alone when this process's user
// owns them and others may read or write them: a store made before new
// stores were made private (0644 under the usual umask) held the projects'
// paths, the sessions and the key of the arguments' hashes for every
// local user to read. A file of another user's is left as it is, and so
// is anything that is not a regular file.
func keepPrivate(path string) {
	uid := os.Getuid()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		_ = os.Chmod(p, fi.Mode().Perm()&^0o077)
	}
}
