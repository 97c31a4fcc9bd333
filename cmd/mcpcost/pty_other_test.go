//go:build !linux

package main

import "github.com/rogpeppe/go-internal/testscript"

// cmdPty needs Linux's pseudo-terminals; the scripts that use it skip
// elsewhere ([!linux] skip), and one that does not fails here.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("pty: pseudo-terminals are opened on Linux only; begin the script with [!linux] skip")
}
