package main

import (
	"database/sql"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite"
)

// cmdSQLite: sqlite DB FILE runs the SQL in FILE on the SQLite database DB
// (created when missing), as an agent that keeps its sessions in SQLite
// (Goose) writes them.
func cmdSQLite(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sqlite DB FILE")
	}
	path := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=journal_mode(WAL)")
	ts.Check(err)
	defer db.Close()
	_, err = db.Exec(ts.ReadFile(args[1]))
	if neg {
		if err == nil {
			ts.Fatalf("sqlite: %s ran", args[1])
		}
		return
	}
	ts.Check(err)
}
