package app

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFrontEndsGoThroughApp: the command line and the MCP server reach
// the usage store, the transcripts and the servers through this package
// only, so that both take the same path. It reads the imports of their
// non-test files.
func TestFrontEndsGoThroughApp(t *testing.T) {
	const module = "github.com/mcpcost/mcpcost/internal/"
	banned := []string{"store", "transcript", "mcpclient"}
	for _, dir := range []string{"../cli", "../serve"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		imported := false
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range f.Imports {
				path, _ := strconv.Unquote(spec.Path.Value)
				imported = imported || path == module+"app"
				for _, b := range banned {
					if path == module+b || strings.HasPrefix(path, module+b+"/") {
						t.Errorf("%s imports %s: go through internal/app", name, path)
					}
				}
			}
		}
		if !imported {
			t.Errorf("%s does not import internal/app", dir)
		}
	}
}
