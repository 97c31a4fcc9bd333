//go:build !linux

package main

import "github.com/rogpeppe/go-internal/testscript"

// cmdProcs reads /proc: elsewhere the scripts that use it are skipped.
func cmdProcs(ts *testscript.TestScript, neg bool, args []string) {
	ts.Skip("procs: processes are listed on Linux only")
}
