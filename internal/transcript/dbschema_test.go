package transcript_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestAgentDBComputedRows: an opencode.db or a Goose sessions.db whose
// message or session "table" computes its rows (a recursive view without
// end, a view, a virtual table, a generated column of a gigabyte a row)
// is refused at once, rather than read for ever.
func TestAgentDBComputedRows(t *testing.T) {
	endless := `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)`
	for _, tc := range []struct {
		name, file, schema string
		read               func(path string) error
	}{
		{"opencode recursive view", "opencode.db",
			`CREATE VIEW message AS ` + endless + ` SELECT 'm' || x AS id, 's' AS session_id, '{}' AS data, x AS time_created FROM c`, readOpencode},
		{"opencode generated column", "opencode.db",
			`CREATE TABLE message (id TEXT, session_id TEXT, time_created INTEGER, n INTEGER, data BLOB AS (zeroblob(n)));
			INSERT INTO message (id, session_id, time_created, n) VALUES ('a', 's', 1, 900000000), ('b', 's', 2, 900000000)`, readOpencode},
		{"opencode virtual table", "opencode.db",
			`CREATE VIRTUAL TABLE message USING fts5(id, session_id, time_created, data)`, readOpencode},
		{"goose recursive view", "sessions.db",
			`CREATE VIEW sessions AS ` + endless + ` SELECT x AS rowid, 's' || x AS id FROM c`, readGoose},
		{"goose messages view", "sessions.db",
			`CREATE TABLE sessions (id TEXT PRIMARY KEY);
			CREATE VIEW messages AS ` + endless + ` SELECT x AS rowid, 's' AS session_id, '[{"type":"toolRequest"}]' AS content_json, 1 AS created_timestamp FROM c`, readGoose},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tc.schema); err != nil {
				t.Fatal(err)
			}
			db.Close()
			done := make(chan error, 1)
			go func() { done <- tc.read(path) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not read") {
					t.Errorf("read: %v, want it refused", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("still reading after 20 s")
			}
		})
	}
}

func readOpencode(path string) error {
	_, err := transcript.ReadOpencodeDB(context.Background(), path)
	return err
}

func readGoose(path string) error {
	_, err := transcript.ExportGoose(path)
	return err
}
