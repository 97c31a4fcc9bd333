// Package sqliteuri names a file as the file: URI the SQLite driver opens.
package sqliteuri

import (
	"path/filepath"
	"strings"
)

// Of is path as a file: URI that SQLite opens at path itself, to which
// the caller appends its "?" parameters. Its "%", "?" and "#" are escaped
// (SQLite would read them as an escape, the query and the fragment, and
// open another file: "a#b.db" opened "a"), and an absolute path is given
// an empty authority, so that one that starts with "//" is not read as a
// host. A relative path that starts with ":" is given a leading "./", so
// that the file named ":memory:" is not read as SQLite's in-memory
// database (a store that kept nothing, beside an empty file of that name).
func Of(path string) string {
	p := escaper.Replace(filepath.ToSlash(path))
	switch {
	case strings.HasPrefix(p, "/"):
		return "file://" + p
	case strings.HasPrefix(p, ":"):
		return "file:./" + p
	}
	return "file:" + p
}

var escaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
