// Package testpeers finds the real peers the tests run against: the shared
// test data beside the checkout (../shared), the npm packages that
// scripts/test installs into .cache/npm, and node.
//
// When MCPCOST_REQUIRE_PEERS is set (scripts/test sets it), a missing npm
// peer or node fails the test instead of skipping it, so that CI never passes
// by skipping. The shared data is optional everywhere: tests that need it
// always have a copy under testdata/.
package testpeers

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Root returns the module root (the folder holding go.mod).
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("testpeers: no go.mod above the test's folder")
		}
		dir = parent
	}
}

// Shared returns the shared test data folder (../shared beside the
// checkout, or $MCPCOST_SHARED), or skips the test when there is none.
func Shared(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("MCPCOST_SHARED")
	if dir == "" {
		dir = filepath.Join(Root(tb), "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "corpus")); err != nil {
		tb.Skipf("no shared test data at %s", dir)
	}
	return dir
}

func missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv("MCPCOST_REQUIRE_PEERS") != "" {
		tb.Fatalf("testpeers: "+format+" (run scripts/test, which installs it)", args...)
	}
	tb.Skipf("testpeers: "+format+"; run scripts/test to install it", args...)
}

// NPMDir returns the folder where scripts/test installs the npm peers.
func NPMDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("MCPCOST_NPM_DIR"); d != "" {
		return d
	}
	return filepath.Join(Root(tb), ".cache", "npm")
}

// NPMBin returns the path of an installed npm peer's executable (such as
// "mcp-server-everything" or "ccusage"), or skips (fails under scripts/test).
func NPMBin(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(NPMDir(tb), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		missing(tb, "npm peer %s is not installed at %s", name, p)
	}
	return p
}

// NPMPackage returns the folder of an installed npm package.
func NPMPackage(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(NPMDir(tb), "node_modules", filepath.FromSlash(name))
	if _, err := os.Stat(p); err != nil {
		missing(tb, "npm package %s is not installed at %s", name, p)
	}
	return p
}

// Node returns the path of node, or skips (fails under scripts/test).
func Node(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		missing(tb, "node is not on PATH")
	}
	return p
}
