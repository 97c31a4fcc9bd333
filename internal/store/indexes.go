package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// bulkIndexes are the secondary indexes of the tables an ingest fills
// (as migrations/001_init.sql creates them). A first ingest into an empty
// store drops them and builds them once at its end, which costs far less than
// keeping them up to date row by row. Open builds any that are
// missing, so that a first ingest interrupted before its end leaves a
// store that is complete again the next time it is opened.
var bulkIndexes = []struct{ name, create string }{
	{"requests_message", `CREATE INDEX IF NOT EXISTS requests_message ON requests (source, message_id) WHERE message_id <> ''`},
	{"requests_ts", `CREATE INDEX IF NOT EXISTS requests_ts ON requests (ts)`},
	{"requests_session", `CREATE INDEX IF NOT EXISTS requests_session ON requests (source, session_id)`},
	{"requests_file", `CREATE INDEX IF NOT EXISTS requests_file ON requests (file_id)`},
	{"tool_calls_ts", `CREATE INDEX IF NOT EXISTS tool_calls_ts ON tool_calls (call_ts)`},
	{"tool_calls_server", `CREATE INDEX IF NOT EXISTS tool_calls_server ON tool_calls (server, tool)`},
	{"tool_calls_call_file", `CREATE INDEX IF NOT EXISTS tool_calls_call_file ON tool_calls (call_file_id)`},
	{"tool_calls_result_file", `CREATE INDEX IF NOT EXISTS tool_calls_result_file ON tool_calls (result_file_id)`},
}

// messagesIndex is the index by which the writer looks up the stored
// copies of a message (see writer.entries).
var messagesIndex = bulkIndexes[0]

// missingIndexesSQL is an SQL expression, true when any of the bulk
// indexes is missing.
var missingIndexesSQL = func() string {
	names := make([]string, len(bulkIndexes))
	for i, ix := range bulkIndexes {
		names[i] = "'" + ix.name + "'"
	}
	return "(SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN (" + strings.Join(names, ", ") + ")) < " + strconv.Itoa(len(bulkIndexes))
}()

// missingIndexes reports whether any of the bulk indexes is missing.
func (s *Store) missingIndexes(ctx context.Context) (bool, error) {
	var missing bool
	if err := s.db.QueryRowContext(ctx, `SELECT `+missingIndexesSQL).Scan(&missing); err != nil {
		return false, fmt.Errorf("reading the store's indexes: %w", err)
	}
	return missing, nil
}

// buildIndexes creates the bulk indexes that are missing.
func (s *Store) buildIndexes(ctx context.Context) error {
	missing, err := s.missingIndexes(ctx)
	if err != nil || !missing {
		return err
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		for _, ix := range bulkIndexes {
			if _, err := tx.Exec(ix.create); err != nil {
				return fmt.Errorf("creating index %s: %w", ix.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("building the store's indexes: %w", err)
	}
	return nil
}

// dropIndexesForFirstIngest drops the bulk indexes when the store holds
// nothing yet, reporting whether it did; requests_message too unless
// keepMessages (the writer then looks copies up in its own index of the
// requests it stored, see writer.own, and builds requests_message when
// it stops keeping that). The check and the drop are one transaction, so
// that rows another process wrote in between keep their indexes.
func (s *Store) dropIndexesForFirstIngest(ctx context.Context, keepMessages bool) (bool, error) {
	dropped := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var empty bool
		if err := tx.QueryRow(`SELECT NOT EXISTS (SELECT 1 FROM files) AND NOT EXISTS (SELECT 1 FROM requests) AND NOT EXISTS (SELECT 1 FROM tool_calls)`).Scan(&empty); err != nil {
			return err
		}
		if !empty {
			return nil
		}
		for _, ix := range bulkIndexes {
			if ix.name == messagesIndex.name && keepMessages {
				continue // the writer looks copies up by it (see writer.entries)
			}
			if _, err := tx.Exec(`DROP INDEX IF EXISTS ` + ix.name); err != nil {
				return err
			}
		}
		dropped = true
		if err := deferRollups(tx); err != nil {
			return err
		}
		return dropIdleTriggers(tx)
	})
	if err != nil {
		return false, fmt.Errorf("preparing the first ingest: %w", err)
	}
	return dropped, nil
}
