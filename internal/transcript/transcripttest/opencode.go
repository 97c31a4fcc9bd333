package transcripttest

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// OpencodeWriter writes an opencode.db as opencode does: its session,
// message and part tables (sst/opencode packages/opencode/src/storage/
// schema: an id, the ids it belongs to, times in milliseconds, and the
// rest as JSON in data).
type OpencodeWriter struct {
	t  testing.TB
	db *sql.DB
}

// OpencodeDB creates the database at path. With wal, it is in WAL mode
// and never checkpointed while the writer is open: what it writes stays
// in the -wal file, as in a database opencode is writing.
func OpencodeDB(t testing.TB, path string, wal bool) *OpencodeWriter {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	stmts := []string{
		`CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, directory text NOT NULL, title text NOT NULL,
			version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL)`,
		`CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`CREATE INDEX message_session_idx ON message (session_id, time_created, id)`,
		`CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL,
			time_updated integer NOT NULL, data text NOT NULL)`,
	}
	if wal {
		stmts = append([]string{`PRAGMA journal_mode = WAL`, `PRAGMA wal_autocheckpoint = 0`}, stmts...)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return &OpencodeWriter{t: t, db: db}
}

// Message writes a message's row (data is its JSON without id and
// sessionID); a row written again with the same id replaces it.
func (w *OpencodeWriter) Message(id, session string, created int64, data string) {
	w.t.Helper()
	if _, err := w.db.Exec(`INSERT OR REPLACE INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
		id, session, created, created, data); err != nil {
		w.t.Fatal(err)
	}
}

// Part writes a part's row.
func (w *OpencodeWriter) Part(id, message, session string, created int64, data string) {
	w.t.Helper()
	if _, err := w.db.Exec(`INSERT OR REPLACE INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
		id, message, session, created, created, data); err != nil {
		w.t.Fatal(err)
	}
}

// Close closes the database (which checkpoints a WAL database).
func (w *OpencodeWriter) Close() {
	if err := w.db.Close(); err != nil {
		w.t.Fatal(err)
	}
}
