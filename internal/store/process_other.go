//go:build !unix

package store

// processAlive cannot tell here: every lease is waited for until it
// expires.
func processAlive(pid int) bool { return true }

// processStart cannot tell here.
func processStart(pid int) string { return "" }

// bootID cannot tell here.
func bootID() string { return "" }
