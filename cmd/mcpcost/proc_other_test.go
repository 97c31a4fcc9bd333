//go:build !linux

package main

import "github.com/rogpeppe/go-internal/testscript"

// cmdProcs reads /proc: the scripts that use it skip elsewhere ([!linux]).
func cmdProcs(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("procs: processes are listed on Linux only")
}
