package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenForReportOlder: a store an older mcpcost made (every migration
// but the last) is refused by OpenReadOnly and brought up to date by
// OpenForReport where it can be written, keeping what it holds; a store
// it cannot write is refused with the *OlderSchemaError.
func TestOpenForReportOlder(t *testing.T) {
	names, err := migrationList()
	if err != nil {
		t.Fatal(err)
	}
	older := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "usage.db")
		db := storeAtVersion(t, path, len(names)-1)
		defer db.Close()
		if _, err := db.Exec(`INSERT INTO sessions (source, session_id, project) VALUES ('claude', 's1', '/p')`); err != nil {
			t.Fatal(err)
		}
		return path
	}

	path := older(t)
	var oe *OlderSchemaError
	if _, err := OpenReadOnly(path); !errors.As(err, &oe) || oe.Have != len(names)-1 || oe.Want != SchemaVersion() {
		t.Fatalf("OpenReadOnly of an older store: %v, want an OlderSchemaError", err)
	}
	st, err := OpenForReport(path)
	if err != nil {
		t.Fatalf("OpenForReport of an older store: %v", err)
	}
	var version, sessions int
	if err := st.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&sessions); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if version != SchemaVersion() || sessions != 1 {
		t.Errorf("after OpenForReport: version %d, %d sessions; want %d, 1", version, sessions, SchemaVersion())
	}
	// Brought up to date, it is read read-only from then on.
	st, err = OpenForReport(path)
	if err != nil {
		t.Fatal(err)
	}
	if !st.readOnly {
		t.Error("an up-to-date store is opened for writing")
	}
	st.Close()

	if os.Geteuid() == 0 {
		t.Skip("root writes any file: the unwritable store cannot be made")
	}
	path = older(t)
	if err := os.Chmod(filepath.Dir(path), 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Dir(path), 0o755)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenForReport(path); !errors.As(err, &oe) {
		t.Errorf("OpenForReport of an older store it cannot write: %v, want an OlderSchemaError", err)
	}
}

// storeAtVersion makes at path a store of schema version v, as an
// mcpcost of that version made it (its first v migrations), open for
// the test to add the rows that version stored.
func storeAtVersion(t *testing.T, path string, v int) *sql.DB {
	t.Helper()
	names, err := migrationList()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names[:v] {
		body, _ := migrations.ReadFile(name)
		if _, err := db.Exec(string(body)); err != nil {
			db.Close()
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, v)); err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db
}
