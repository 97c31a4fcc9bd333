//go:build !linux

package main

import "github.com/rogpeppe/go-internal/testscript"

// cmdPty needs Linux's pseudo-terminals; elsewhere the scripts that use it
// are skipped.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	ts.Skip("pty: pseudo-terminals are opened on Linux only")
}
