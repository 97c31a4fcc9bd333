package store

import (
	"database/sql"
	"errors"
	"strings"
)

// idleTriggers are the triggers that do nothing during a first ingest
// into an empty store: the rollups' (migrations 006, 007 and 010) while
// meta holds 'rollups_deferred', and the push's (migrations 008 and 011)
// while push_state has no row. Each still fires on every row, and evaluates its
// WHEN, so a first ingest drops them with the bulk indexes (their SQL
// saved in meta under 'dropped_triggers') and creates them again, as
// they were, in the transaction that fills the rollups (see
// fillDeferredRollups, which Open runs too, so that a first ingest
// interrupted before its end leaves a store that is complete again the
// next time it is opened).
//
// While the key is in meta, 'rollups_deferred' is too, and push_state is
// empty (Push restores the triggers in the transaction that adds its row;
// a migration restores them before it runs): the store then behaves as
// if the triggers were there.
var idleTriggers = []string{
	"request_rollup_add", "request_rollup_remove", "request_rollup_update_remove", "request_rollup_update_add",
	"tool_rollup_add", "tool_rollup_remove", "tool_rollup_update_remove", "tool_rollup_update_add",
	"tool_use_rollup_add", "tool_use_rollup_remove", "tool_use_rollup_update_remove", "tool_use_rollup_update_add",
	"push_dirty_requests", "push_dirty_tool_calls", "push_dirty_sessions", "push_dirty_compactions",
	"push_rekey_requests",
	"push_drop_requests", "push_drop_tool_calls", "push_drop_sessions", "push_drop_compactions", "push_drop_usage_limits",
}

// triggerList is idleTriggers as an SQL list.
var triggerList = "('" + strings.Join(idleTriggers, "', '") + "')"

// dropIdleTriggers drops the idle triggers, in a transaction that has
// just deferred the rollups of an empty store, unless a push has been
// recorded (push_state has a row, and its triggers log) or they are
// dropped already.
func dropIdleTriggers(tx *sql.Tx) error {
	var keep bool
	if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM push_state) OR EXISTS (SELECT 1 FROM meta WHERE key = 'dropped_triggers')`).Scan(&keep); err != nil {
		return err
	}
	if keep {
		return nil
	}
	// In the order SQLite holds them, which is the order they fire in
	// once created again.
	rows, err := tx.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ` + triggerList + ` ORDER BY rowid`)
	if err != nil {
		return err
	}
	var names, stmts []string
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			rows.Close()
			return err
		}
		names = append(names, name)
		stmts = append(stmts, stmt)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(stmts) == 0 {
		return nil
	}
	if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES ('dropped_triggers', ?)`, strings.Join(stmts, ";\n")+";"); err != nil {
		return err
	}
	for _, name := range names {
		if _, err := tx.Exec(`DROP TRIGGER ` + name); err != nil {
			return err
		}
	}
	return nil
}

// restoreTriggers creates the triggers dropIdleTriggers dropped, if it
// did. The rollups are deferred again if they were not (an older mcpcost,
// which knows nothing of the dropped triggers, filled them and stored rows
// since), so that they are filled from the rows.
func restoreTriggers(tx *sql.Tx) error {
	var stmts string
	err := tx.QueryRow(`SELECT value FROM meta WHERE key = 'dropped_triggers'`).Scan(&stmts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := tx.Exec(stmts); err != nil {
		return err
	}
	if err := deferRollups(tx); err != nil {
		return err
	}
	_, err = tx.Exec(`DELETE FROM meta WHERE key = 'dropped_triggers'`)
	return err
}
