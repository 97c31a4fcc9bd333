package clients

import (
	"bufio"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files")

// mapFS is an in-memory filesystem. Paths are compared with / for \, so a
// txtar file named C:/Users/me/x holds the Windows path C:\Users\me\x. A
// file whose content is exactly "!unreadable\n" fails to read with a
// permission error.
type mapFS map[string][]byte

func norm(p string) string { return strings.TrimRight(strings.ReplaceAll(p, `\`, "/"), "/") }

func (m mapFS) ReadFile(name string) ([]byte, error) {
	b, ok := m[norm(name)]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if string(b) == "!unreadable\n" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return b, nil
}

func (m mapFS) ReadDir(name string) ([]string, error) {
	dir := norm(name) + "/"
	seen := map[string]bool{}
	for p := range m {
		if rest, ok := strings.CutPrefix(p, dir); ok {
			first, _, _ := strings.Cut(rest, "/")
			seen[first] = true
		}
	}
	if len(seen) == 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return sortedKeys(seen), nil
}

func (m mapFS) IsDir(name string) bool {
	dir := norm(name) + "/"
	for p := range m {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return false
}

// loadHome reads a txtar home tree. Its comment holds "os: ", "home: ",
// "cwd: ", "clients: a,b" and "env NAME=value" lines.
func loadHome(t *testing.T, file string) (System, []string) {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fsys := mapFS{}
	for _, f := range ar.Files {
		fsys[norm(f.Name)] = f.Data
	}
	env := map[string]string{}
	sys := System{OS: "linux", Home: "/home/me", Cwd: "/home/me/proj", FS: fsys,
		Getenv: func(k string) string { return env[k] }}
	var names []string
	sc := bufio.NewScanner(strings.NewReader(string(ar.Comment)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "os: "):
			sys.OS = strings.TrimPrefix(line, "os: ")
		case strings.HasPrefix(line, "home: "):
			sys.Home = strings.TrimPrefix(line, "home: ")
		case strings.HasPrefix(line, "cwd: "):
			sys.Cwd = strings.TrimPrefix(line, "cwd: ")
		case strings.HasPrefix(line, "clients: "):
			names = strings.Split(strings.TrimPrefix(line, "clients: "), ",")
		case strings.HasPrefix(line, "env "):
			k, v, _ := strings.Cut(strings.TrimPrefix(line, "env "), "=")
			env[k] = v
		}
	}
	return sys, names
}

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs (run with -update to rewrite it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func txtarFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no txtar files in %s", dir)
	}
	return files
}
