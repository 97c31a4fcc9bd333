package sqliteuri

import (
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestOf creates a database through Of under names holding what a URI
// reads as an escape, a query, a fragment or a host, and checks that the
// file made is the one named, and nothing else beside it.
func TestOf(t *testing.T) {
	for _, name := range []string{"plain.db", "a#b.db", "c?mode=memory", "d%41.db", "%", "sp ace.db", "e&f=g.db", "h;i.db"} {
		dir := t.TempDir()
		for _, path := range []string{filepath.Join(dir, name), "/" + filepath.Join(dir, name)} {
			db, err := sql.Open("sqlite", Of(path)+"?_pragma=busy_timeout(1000)")
			if err == nil {
				_, err = db.Exec(`CREATE TABLE IF NOT EXISTS x (y)`)
				db.Close()
			}
			if err != nil {
				t.Fatalf("%q: %v", path, err)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 || entries[0].Name() != name {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Fatalf("%q: the folder holds %q", path, names)
			}
		}
	}
	if got := Of("rel/a#b"); got != "file:rel/a%23b" {
		t.Errorf("a relative path: %q", got)
	}
}

// TestOfRelative creates a database through Of under relative names,
// ":memory:" among them (SQLite's name for a database in memory), and
// checks that the file made is the one named.
func TestOfRelative(t *testing.T) {
	for _, name := range []string{":memory:", ":x", "plain.db", "a#b.db", "~", "./d.db", "sp ace.db"} {
		if runtime.GOOS == "windows" && strings.Contains(name, ":") {
			continue // not a file name there
		}
		dir := t.TempDir()
		t.Chdir(dir)
		db, err := sql.Open("sqlite", Of(name)+"?_pragma=busy_timeout(1000)")
		if err == nil {
			_, err = db.Exec(`CREATE TABLE IF NOT EXISTS x (y)`)
			db.Close()
		}
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%q: no database made in the file of that name (%v)", name, err)
		}
	}
}
