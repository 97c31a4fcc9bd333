package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mcpcost": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the end-to-end scenarios in testdata/script. Each runs
// with a fake home ($WORK/home unless the script says otherwise) and
// $SHARED pointing at the shared test data when it exists.
func TestScript(t *testing.T) {
	// Scripts build example servers with go: keep the real build and module
	// caches, which live under the real home.
	goenv := map[string]string{}
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			if i < len(lines) && lines[i] != "" {
				goenv[k] = lines[i]
			}
		}
	}
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..")
	shared := os.Getenv("MCPCOST_SHARED")
	if shared == "" {
		shared = filepath.Join(root, "..", "shared")
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("NO_COLOR", "1")
			e.Setenv("ROOT", root)
			e.Setenv("TESTDATA", filepath.Join(wd, "testdata"))
			if _, err := os.Stat(filepath.Join(shared, "corpus")); err == nil {
				e.Setenv("SHARED", shared)
			}
			for k, v := range goenv {
				e.Setenv(k, v)
			}
			for _, k := range []string{"MCPCOST_NPM_DIR", "MCPCOST_REQUIRE_PEERS", "PATH", "GOROOT", "GOFLAGS", "GOPROXY"} {
				if v := os.Getenv(k); v != "" {
					e.Setenv(k, v)
				}
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "shared":
				_, err := os.Stat(filepath.Join(shared, "corpus"))
				return err == nil, nil
			}
			return false, nil
		},
	})
}
