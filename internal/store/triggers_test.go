package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// triggers is the store's triggers as SQLite holds them, in the order it
// holds them (the order they fire in).
func triggers(t *testing.T, s *Store) string {
	t.Helper()
	rows, err := s.db.Query(`SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var name, tbl, sql string
		if err := rows.Scan(&name, &tbl, &sql); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s on %s: %q\n", name, tbl, sql)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// dumpTables is every row of the tables, each value with its type and
// reals to the last bit, in the order of all their columns.
func dumpTables(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}, tables ...string) string {
	t.Helper()
	var b strings.Builder
	for _, table := range tables {
		rows, err := db.Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		rows.Close()
		order := make([]string, len(cols))
		for i := range cols {
			order[i] = strconv.Itoa(i + 1)
		}
		rows, err = db.Query(`SELECT * FROM ` + table + ` ORDER BY ` + strings.Join(order, ", "))
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			b.WriteString(table)
			for _, v := range vals {
				switch v := v.(type) {
				case float64:
					b.WriteString(" r" + strconv.FormatFloat(v, 'g', -1, 64))
				case []byte:
					fmt.Fprintf(&b, " b%q", v)
				default:
					fmt.Fprintf(&b, " %T:%v", v, v)
				}
			}
			b.WriteByte('\n')
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return b.String()
}

var rollupTables = []string{"request_rollup", "tool_rollup", "tool_use_rollup"}

// TestIdleTriggers: a first ingest drops the triggers that would do
// nothing (every trigger the migrations create is one of them, so that a
// new one is looked at) and creates them again at its end as a fresh
// store holds them; a first ingest stopped between the two (killed) leaves
// a store whose next Open creates them, and fills the rollups, exactly.
func TestIdleTriggers(t *testing.T) {
	dir := t.TempDir()
	fresh := open(t, filepath.Join(dir, "fresh.db"))
	want := triggers(t, fresh)
	var names []string
	rows, err := fresh.db.Query(`SELECT name FROM sqlite_master WHERE type = 'trigger'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		rows.Scan(&name)
		names = append(names, name)
	}
	rows.Close()
	slices.Sort(names)
	idle := slices.Sorted(slices.Values(idleTriggers))
	if !slices.Equal(names, idle) {
		t.Fatalf("the migrations create the triggers %v; idleTriggers names %v", names, idle)
	}

	home := filepath.Join(dir, "home")
	o := transcripttest.Small()
	o.Quirks = true
	if _, err := transcripttest.Generate(home, o); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(dir, "ref.db"))
	ingest(t, ref, home)
	if got := triggers(t, ref); got != want {
		t.Fatalf("triggers after a first ingest:\n%s\nwant:\n%s", got, want)
	}
	var left int
	ref.db.QueryRow(`SELECT count(*) FROM meta WHERE key IN ('dropped_triggers', 'rollups_deferred')`).Scan(&left)
	if left != 0 {
		t.Fatal("a first ingest left its triggers dropped or its rollups deferred")
	}
	wantRollups := dumpTables(t, ref.db, rollupTables...)

	for _, older := range []bool{false, true} {
		checkStoppedFirstIngest(t, filepath.Join(dir, fmt.Sprint(older)), home, ref, want, wantRollups, older)
	}
}

// checkStoppedFirstIngest: the drop, then an ingest of the first half and
// one of the rest without the triggers (as a first ingest killed before
// its end, then another that found the store not empty), then Open, give
// the triggers and rollups of a clean first ingest (ref). older: an older
// mcpcost, which knows nothing of the dropped triggers, filled the
// rollups between the two ingests.
func checkStoppedFirstIngest(t *testing.T, dir, home string, ref *Store, want, wantRollups string, older bool) {
	t.Helper()
	half := filepath.Join(dir, "half")
	rests := copyTree(t, home, half, 0.5)
	path := filepath.Join(dir, "usage.db")
	s := open(t, path)
	if dropped, err := s.dropIndexesForFirstIngest(context.Background(), true); err != nil || !dropped {
		t.Fatalf("an empty store's indexes not dropped: %v, %v", dropped, err)
	}
	if got := triggers(t, s); got != "" {
		t.Fatalf("triggers left after the drop:\n%s", got)
	}
	// A second drop (another process's first ingest, before this one
	// wrote a row) keeps what the first saved.
	if dropped, err := s.dropIndexesForFirstIngest(context.Background(), true); err != nil || !dropped {
		t.Fatalf("an empty store's indexes not dropped again: %v, %v", dropped, err)
	}
	// A file row of no transcript, so that the ingests are not first ones.
	if _, err := s.db.Exec(`INSERT INTO files (path, source) VALUES ('/nowhere', 'claude')`); err != nil {
		t.Fatal(err)
	}
	ingest(t, s, half)
	if older {
		if _, err := s.db.Exec(fillRollups); err != nil {
			t.Fatal(err)
		}
	}
	for rel, rest := range rests {
		f, err := os.OpenFile(filepath.Join(half, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(rest)
		f.Close()
	}
	ingest(t, s, half)
	if got := triggers(t, s); got != "" {
		t.Fatalf("triggers came back before Open:\n%s", got)
	}
	s.Close()
	s = open(t, path)
	defer s.Close()
	if got := triggers(t, s); got != want {
		t.Fatalf("triggers after Open:\n%s\nwant:\n%s", got, want)
	}
	if got := dumpTables(t, s.db, rollupTables...); got != wantRollups {
		t.Errorf("older %v: rollups after Open differ from a clean first ingest's", older)
	}
	// The triggers work: a row deleted and one changed move the rollups
	// as they move those of the clean ingest.
	var dumps [2]string
	for i, db := range []*sql.DB{ref.db, s.db} {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`DELETE FROM tool_calls WHERE id = (SELECT id FROM tool_calls WHERE lost = 0 AND call_ts IS NOT NULL ORDER BY call_ts, source, session_id, call_id LIMIT 1);
			UPDATE requests SET output = output + 7 WHERE id = (SELECT id FROM requests ORDER BY ts DESC, source, session_id, message_id, request_id LIMIT 1)`); err != nil {
			t.Fatal(err)
		}
		dumps[i] = dumpTables(t, tx, rollupTables...)
		tx.Rollback()
	}
	if dumps[0] != dumps[1] || dumps[0] == wantRollups {
		t.Errorf("older %v: rollups after a delete and an update differ from a clean first ingest's", older)
	}
}

// TestIdleTriggersKeptForPush: a store that has been pushed keeps its
// triggers through a first ingest (they log what a push sends), and a
// push recorded while they are dropped creates them first.
func TestIdleTriggersKeptForPush(t *testing.T) {
	dir := t.TempDir()
	want := triggers(t, open(t, filepath.Join(dir, "fresh.db")))
	s := open(t, filepath.Join(dir, "usage.db"))
	if _, err := s.db.Exec(`INSERT INTO push_state (store) VALUES ('x')`); err != nil {
		t.Fatal(err)
	}
	if dropped, err := s.dropIndexesForFirstIngest(context.Background(), true); err != nil || !dropped {
		t.Fatalf("an empty store's indexes not dropped: %v, %v", dropped, err)
	}
	if got := triggers(t, s); got != want {
		t.Fatalf("a pushed store's triggers dropped:\n%s", got)
	}
	if _, err := s.db.Exec(`DELETE FROM push_state; DELETE FROM meta WHERE key = 'rollups_deferred'`); err != nil {
		t.Fatal(err)
	}
	if dropped, err := s.dropIndexesForFirstIngest(context.Background(), true); err != nil || !dropped {
		t.Fatalf("an empty store's indexes not dropped: %v, %v", dropped, err)
	}
	if got := triggers(t, s); got != "" {
		t.Fatalf("triggers left:\n%s", got)
	}
	// What Push does before it adds its push_state row.
	if err := s.tx(context.Background(), restoreTriggers); err != nil {
		t.Fatal(err)
	}
	if got := triggers(t, s); got != want {
		t.Fatalf("triggers after the push's restore:\n%s\nwant:\n%s", got, want)
	}
}
