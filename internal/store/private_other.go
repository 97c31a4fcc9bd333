//go:build !unix

package store

// keepPrivate does nothing where files have no Unix modes: a store's
// folder (under %LOCALAPPDATA%) is the user's own.
func keepPrivate(path string) {}
