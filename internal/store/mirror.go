package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/transcript"
)

// MirrorOptions configure [OpenMirror].
type MirrorOptions struct {
	// Rebuild builds the mirror again from an empty store, as when the
	// shared store was recreated.
	Rebuild bool
}

// MirrorStats say what bringing a mirror up to date did.
type MirrorStats struct {
	// StoreID is the shared store's id (see pgmigrations/002): a new one
	// when the shared store was recreated.
	StoreID string
	// Full is set when the mirror was built from an empty store (a first
	// open, MirrorOptions.Rebuild, Rebuilt or Behind); Rebuilt when the
	// shared store was recreated since the mirror was last brought up to
	// date.
	Full, Rebuilt bool
	// Rows is how many rows were read from the shared store (0 when
	// nothing changed since the last open), Removed how many it said were
	// removed.
	Rows, Removed int
	// OutOfRange is how many of the rows read were left out of the
	// mirror for a time outside the range a transcript may record
	// ([transcript.MinTime], [transcript.MaxTime]): rows another writer
	// put in the shared store, which no reader of mcpcost's stores, and
	// no push, would write.
	OutOfRange int
	// NegativeTokens is how many of the rows read were left out of the
	// mirror for a token count below zero (a request's input, output,
	// cache writes and reads or reasoning, a tool result's tokens, a
	// compaction's): rows no transcript records and no push writes, which
	// the reports would leave out in silence.
	NegativeTokens int
	// Seq is the shared store's change sequence the mirror holds.
	Seq int64
	// Behind is set when the mirror was built from an empty store
	// because it held a seq below the shared store's pruned point: the
	// shared store no longer logs every removal after it (see
	// pruneRemoved).
	Behind bool
}

// mirrorTimeCols are the columns of the shared store's rows that hold a
// time (Unix milliseconds).
var mirrorTimeCols = map[string]bool{"ts": true, "call_ts": true, "result_ts": true, "first_ts": true, "last_ts": true}

// mirrorTokenCols are the columns of the shared store's rows that hold a
// token count.
var mirrorTokenCols = map[string]bool{"input": true, "output": true, "cache_write_5m": true, "cache_write_1h": true, "cache_read": true,
	"reasoning": true, "result_tokens": true, "estimated_tokens": true, "pre_tokens": true}

// negativeTokens reports whether a token count of a shared row (cols, v)
// is below zero.
func negativeTokens(cols []string, v []any) bool {
	for i, c := range cols {
		if n, ok := v[i].(int64); ok && mirrorTokenCols[c] && n < 0 {
			return true
		}
	}
	return false
}

// inTimeRange reports whether every time of a shared row (cols, v) is
// null or within [transcript.MinTime, transcript.MaxTime).
func inTimeRange(cols []string, v []any) bool {
	lo, hi := transcript.MinTime.UnixMilli(), transcript.MaxTime.UnixMilli()
	for i, c := range cols {
		if !mirrorTimeCols[c] || v[i] == nil {
			continue
		}
		ts, ok := v[i].(int64)
		if !ok || ts < lo || ts >= hi {
			return false
		}
	}
	return true
}

// MirrorFile is the file a mirror of the shared store at url is kept in,
// in dir: "mirror-" and the first 16 hex digits of the SHA-256 of the URL
// with its password (and every other secret) removed ([redact.DSN]), so
// that the name shows nothing of the URL, and two URLs that differ only
// by their password share a mirror.
func MirrorFile(dir, url string) string {
	h := sha256.Sum256([]byte(redact.DSN(url)))
	return filepath.Join(dir, "mirror-"+hex.EncodeToString(h[:8])+".db")
}

// OpenMirror opens (creating it if needed) the mirror at path of the
// shared PostgreSQL store at url, brings it up to date, and returns it as
// a [Store] that every query of a local store runs on: a SQLite file of
// the local store's schema, its rows those of the shared store (each row
// naming the machine and OS user that pushed it first), its rollups kept
// by the local store's triggers. Only what changed since the mirror was
// last brought up to date is read (see pgmigrations/002); a shared store
// recreated since, or one that pruned removals the mirror had not read
// (see pruneRemoved), is mirrored again from the start. Processes may open
// one mirror at once: each brings it up to date in one transaction, and
// one that waits for another finds nothing left to read. An error leaves
// the mirror as it was. The mirror holds nothing of the URL. Close the
// store when done.
func OpenMirror(ctx context.Context, url, path string, o MirrorOptions) (*Store, *MirrorStats, error) {
	scrub := redact.New(redact.DSNSecrets(url)...)
	fail := func(err error) error {
		return fmt.Errorf("mirroring %s: %s", redact.DSN(url), scrub.String(err.Error()))
	}
	if !IsPostgresURL(url) {
		return nil, nil, fail(errors.New("not a postgres:// URL"))
	}
	db, err := OpenShared(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	s, err := Open(path)
	if err != nil {
		return nil, nil, fail(err)
	}
	var st *MirrorStats
	for {
		st, err = s.syncMirror(ctx, db, o)
		// Another process brings the mirror up to date: wait for it,
		// then find what is left.
		if !isBusy(err) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err != nil {
		s.Close()
		return nil, nil, fail(err)
	}
	return s, st, nil
}

// A mirrorTable is a table of the shared store as a mirror reads it: its
// columns (after seq, key, machine and os_user) and the local store's
// statements that insert (returning the row id) and update (by row id)
// one of its rows from them.
type mirrorTable struct {
	tbl    int
	name   string
	cols   []string
	insert string
	update string
	// local turns a shared row's columns (after seq and key) into the
	// local statement's arguments.
	local func(m *mirrorSync, seq int64, v []any) ([]any, error)
}

// mirrorSync is one bringing up to date of a mirror.
type mirrorSync struct {
	tx         *sql.Tx
	files      map[string]int64 // the agent files' rows, by source and agent id
	outOfRange int              // rows left out for a time out of range
	negative   int              // rows left out for a negative token count
}

// agentFile is the id of the files row that stands for an older-style
// sub-agent file (agent_file) in the mirror, made on first use; 0 for
// none.
func (m *mirrorSync) agentFile(source, agent any) (any, error) {
	a, _ := agent.(string)
	if a == "" {
		return nil, nil
	}
	src, _ := source.(string)
	path := "mirror:" + src + ":agent-" + a
	if id, ok := m.files[path]; ok {
		return id, nil
	}
	if _, err := m.tx.Exec(`INSERT OR IGNORE INTO files (path, source, session_id, agent_id) VALUES (?, ?, '', ?)`, path, src, a); err != nil {
		return nil, err
	}
	var id int64
	if err := m.tx.QueryRow(`SELECT id FROM files WHERE path = ?`, path).Scan(&id); err != nil {
		return nil, err
	}
	m.files[path] = id
	return id, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func setPlaceholders(cols []string) string {
	return strings.Join(cols, " = ?, ") + " = ?"
}

var (
	mirrorRequestCols = []string{"machine", "os_user", "source", "session_id", "agent_id", "file_id", "line", "sidechain", "ts", "model",
		"project", "message_id", "request_id", "dedup_session", "input", "output", "cache_write_5m", "cache_write_1h", "cache_read",
		"reasoning", "web_search", "web_fetch", "speed", "cost_usd", "copied"}
	mirrorToolCols = []string{"machine", "os_user", "source", "session_id", "call_id", "agent_id", "call_file_id", "sidechain", "name",
		"tool", "server", "plugin", "builtin", "project", "call_ts", "result_ts", "result_tokens", "result_bytes", "non_text",
		"estimated_tokens", "is_error", "spilled", "duration_ms", "args_hash", "copied"}
	mirrorSessionCols    = []string{"machine", "os_user", "source", "session_id", "project", "first_ts", "last_ts"}
	mirrorCompactionCols = []string{"machine", "os_user", "source", "session_id", "agent_id", "file_id", "line", "ts", "trigger", "pre_tokens", "copied"}
	mirrorLimitCols      = []string{"machine", "os_user", "source", "session_id", "file_id", "line", "ts", "reset_ts"}
)

var mirrorTables = []mirrorTable{
	{1, "requests", []string{"machine", "os_user", "source", "session_id", "agent_id", "agent_file", "sidechain", "ts", "model", "project",
		"message_id", "request_id", "dedup_session", "input", "output", "cache_write_5m", "cache_write_1h", "cache_read",
		"reasoning", "web_search", "web_fetch", "speed", "cost_usd", "copied"},
		`INSERT INTO requests (` + strings.Join(mirrorRequestCols, ", ") + `) VALUES (` + placeholders(len(mirrorRequestCols)) + `)`,
		`UPDATE requests SET ` + setPlaceholders(mirrorRequestCols) + ` WHERE id = ?`,
		func(m *mirrorSync, seq int64, v []any) ([]any, error) {
			file, err := m.agentFile(v[2], v[5])
			if err != nil || file == nil {
				file = int64(0)
			}
			return append(append(v[:5:5], file, seq), v[6:]...), err
		}},
	{2, "tool_calls", []string{"machine", "os_user", "source", "session_id", "call_id", "agent_id", "agent_file", "sidechain", "name",
		"tool", "server", "plugin", "builtin", "project", "call_ts", "result_ts", "result_tokens", "result_bytes", "non_text",
		"estimated_tokens", "is_error", "spilled", "duration_ms", "args_hash", "copied"},
		`INSERT INTO tool_calls (` + strings.Join(mirrorToolCols, ", ") + `) VALUES (` + placeholders(len(mirrorToolCols)) + `)`,
		`UPDATE tool_calls SET ` + setPlaceholders(mirrorToolCols) + ` WHERE id = ?`,
		func(m *mirrorSync, seq int64, v []any) ([]any, error) {
			file, err := m.agentFile(v[2], v[6])
			out := append([]any(nil), v...)
			out[6] = file
			return out, err
		}},
	{3, "sessions", []string{"machine", "os_user", "source", "session_id", "project", "first_ts", "last_ts"},
		`INSERT INTO sessions (` + strings.Join(mirrorSessionCols, ", ") + `) VALUES (` + placeholders(len(mirrorSessionCols)) + `)`,
		`UPDATE sessions SET ` + setPlaceholders(mirrorSessionCols) + ` WHERE rowid = ?`,
		func(m *mirrorSync, seq int64, v []any) ([]any, error) { return v, nil }},
	{4, "compactions", []string{"machine", "os_user", "source", "session_id", "agent_id", "ts", "trigger", "pre_tokens", "copied"},
		`INSERT INTO compactions (` + strings.Join(mirrorCompactionCols, ", ") + `) VALUES (` + placeholders(len(mirrorCompactionCols)) + `)`,
		`UPDATE compactions SET ` + setPlaceholders(mirrorCompactionCols) + ` WHERE id = ?`,
		func(m *mirrorSync, seq int64, v []any) ([]any, error) {
			return append(append(v[:5:5], int64(0), seq), v[5:]...), nil
		}},
	// A placeholder's file and line: none, and its seq (unique, as the
	// local store's file and line are).
	{5, "usage_limits", []string{"machine", "os_user", "source", "session_id", "ts", "reset_ts"},
		`INSERT INTO usage_limits (` + strings.Join(mirrorLimitCols, ", ") + `) VALUES (` + placeholders(len(mirrorLimitCols)) + `)`,
		`UPDATE usage_limits SET ` + setPlaceholders(mirrorLimitCols) + ` WHERE id = ?`,
		func(m *mirrorSync, seq int64, v []any) ([]any, error) {
			return append(append(v[:4:4], int64(0), seq), v[4:]...), nil
		}},
}

// syncMirror brings the mirror s up to date with the shared store db, in
// one transaction of each.
//
// It reads the rows whose seq is above the one the mirror holds, and the
// removals logged above it, in one snapshot of the shared store
// (REPEATABLE READ), and then holds the highest seq it read. No row is
// skipped that commits later with a lower seq: every write of the shared
// store (a push, a migration) takes its seqs while it holds the advisory
// lock (see pgLock), which the next one takes only once the last has
// committed; so the seqs of a write that commits after the snapshot are
// all above every seq the snapshot shows.
func (s *Store) syncMirror(ctx context.Context, db *sql.DB, o MirrorOptions) (*MirrorStats, error) {
	st := &MirrorStats{}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		*st = MirrorStats{}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS mirror_rows (
			tbl INTEGER NOT NULL, key BLOB NOT NULL, row INTEGER NOT NULL, PRIMARY KEY (tbl, key))`); err != nil {
			return err
		}
		var have string
		var seq int64
		err := tx.QueryRowContext(ctx, `SELECT CAST(value AS TEXT) FROM meta WHERE key = 'mirror_store'`).Scan(&have)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if have != "" {
			if err := tx.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'mirror_seq'`).Scan(&seq); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		} else {
			// Never a local store's own rows: a mirror starts empty.
			var own bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM requests) OR EXISTS (SELECT 1 FROM tool_calls)
				OR EXISTS (SELECT 1 FROM sessions) OR EXISTS (SELECT 1 FROM files)`).Scan(&own); err != nil {
				return err
			}
			if own {
				return errors.New("the file holds a store that is not a mirror: name another")
			}
		}
		ptx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
		if err != nil {
			return err
		}
		defer ptx.Rollback()
		var pruned int64
		if err := ptx.QueryRowContext(ctx, `SELECT id, removed_pruned FROM store_info`).Scan(&st.StoreID, &pruned); err != nil {
			return fmt.Errorf("reading the shared store: %w", err)
		}
		st.Rebuilt = have != "" && have != st.StoreID
		// Behind the pruned point, a removal after seq may be gone from
		// the log; at or above it, none is.
		st.Behind = !o.Rebuild && !st.Rebuilt && seq > 0 && seq < pruned
		if o.Rebuild || st.Rebuilt || st.Behind {
			seq = 0
		}
		st.Full = seq == 0
		if st.Full {
			if err := deferRollups(tx); err != nil {
				return err
			}
			for _, t := range []string{"requests", "tool_calls", "sessions", "compactions", "usage_limits", "files", "mirror_rows", "request_rollup", "tool_rollup"} {
				if _, err := tx.ExecContext(ctx, `DELETE FROM `+t); err != nil {
					return err
				}
			}
		}
		m := &mirrorSync{tx: tx, files: map[string]int64{}}
		high := seq
		if !st.Full {
			n, err := m.remove(ctx, ptx, seq, &high)
			if err != nil {
				return err
			}
			st.Removed = n
		}
		for _, t := range mirrorTables {
			n, err := m.pull(ctx, ptx, t, seq, &high)
			if err != nil {
				return err
			}
			st.Rows += n
		}
		st.OutOfRange, st.NegativeTokens = m.outOfRange, m.negative
		if st.Full {
			if _, err := tx.ExecContext(ctx, fillRollups); err != nil {
				return err
			}
		}
		st.Seq = high
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('mirror_store', ?), ('mirror_seq', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, st.StoreID, high); err != nil {
			return err
		}
		return ptx.Commit()
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// remove deletes the rows the shared store logged as removed after seq.
func (m *mirrorSync) remove(ctx context.Context, ptx *sql.Tx, seq int64, high *int64) (int, error) {
	rows, err := ptx.QueryContext(ctx, `SELECT seq, tbl, key FROM removed WHERE seq > $1 ORDER BY seq`, seq)
	if err != nil {
		return 0, fmt.Errorf("reading the shared store's removals: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var s int64
		var tbl int
		var key []byte
		if err := rows.Scan(&s, &tbl, &key); err != nil {
			return n, err
		}
		*high = max(*high, s)
		n++
		if tbl < 1 || tbl > len(mirrorTables) {
			continue
		}
		var id int64
		err := m.tx.QueryRowContext(ctx, `DELETE FROM mirror_rows WHERE tbl = ? AND key = ? RETURNING row`, tbl, key).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return n, err
		}
		if _, err := m.tx.ExecContext(ctx, `DELETE FROM `+mirrorTables[tbl-1].name+` WHERE rowid = ?`, id); err != nil {
			return n, err
		}
	}
	return n, rows.Err()
}

// pull stores the rows of one table stored or changed after seq.
func (m *mirrorSync) pull(ctx context.Context, ptx *sql.Tx, t mirrorTable, seq int64, high *int64) (int, error) {
	rows, err := ptx.QueryContext(ctx, `SELECT seq, key, `+strings.Join(t.cols, ", ")+` FROM `+t.name+` WHERE seq > $1 ORDER BY seq`, seq)
	if err != nil {
		return 0, fmt.Errorf("reading the shared store's %s: %w", t.name, err)
	}
	defer rows.Close()
	ins, err := m.tx.PrepareContext(ctx, t.insert+` RETURNING rowid`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	upd, err := m.tx.PrepareContext(ctx, t.update)
	if err != nil {
		return 0, err
	}
	defer upd.Close()
	n := 0
	for rows.Next() {
		var s int64
		var key []byte
		v := make([]any, len(t.cols))
		ptrs := []any{&s, &key}
		for i := range v {
			ptrs = append(ptrs, &v[i])
		}
		if err := rows.Scan(ptrs...); err != nil {
			return n, fmt.Errorf("reading the shared store's %s: %w", t.name, err)
		}
		*high = max(*high, s)
		n++
		var id int64
		outOfRange, negative := !inTimeRange(t.cols, v), negativeTokens(t.cols, v)
		if outOfRange || negative {
			// Left out, and out of the mirror if an earlier version of the
			// row is in it: one row another writer put in the shared
			// store must not stop the team's reports.
			if outOfRange {
				m.outOfRange++
			} else {
				m.negative++
			}
			err := m.tx.QueryRowContext(ctx, `SELECT row FROM mirror_rows WHERE tbl = ? AND key = ?`, t.tbl, key).Scan(&id)
			if err == nil {
				if _, err := m.tx.ExecContext(ctx, `DELETE FROM `+t.name+` WHERE rowid = ?`, id); err != nil {
					return n, err
				}
				if _, err := m.tx.ExecContext(ctx, `DELETE FROM mirror_rows WHERE tbl = ? AND key = ?`, t.tbl, key); err != nil {
					return n, err
				}
			} else if !errors.Is(err, sql.ErrNoRows) {
				return n, err
			}
			continue
		}
		args, err := t.local(m, s, v)
		if err != nil {
			return n, err
		}
		err = m.tx.QueryRowContext(ctx, `SELECT row FROM mirror_rows WHERE tbl = ? AND key = ?`, t.tbl, key).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if err := ins.QueryRowContext(ctx, args...).Scan(&id); err != nil {
				return n, fmt.Errorf("storing %s: %w", t.name, err)
			}
			if _, err := m.tx.ExecContext(ctx, `INSERT INTO mirror_rows (tbl, key, row) VALUES (?, ?, ?)`, t.tbl, key, id); err != nil {
				return n, err
			}
		case err != nil:
			return n, err
		default:
			if _, err := upd.ExecContext(ctx, append(args, id)...); err != nil {
				return n, fmt.Errorf("storing %s: %w", t.name, err)
			}
		}
	}
	return n, rows.Err()
}
