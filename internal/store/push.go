package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"

	"github.com/mcpcost/mcpcost/internal/redact"
)

//go:embed pgmigrations/*.sql
var pgMigrations embed.FS

// pgLock is the key of the advisory lock under which the shared store's
// schema is brought up to date and a push is written: pushes run one at a
// time, so that one machine's removal of a row it no longer holds never
// races another's arrival of the same row, and so that the change seqs
// (pgmigrations/002) become visible in the order they were taken, which
// lets a mirror read only what is above the seq it holds (see
// syncMirror). Every write of the shared store takes it first.
const pgLock = 0x6d6370636f7374 // "mcpcost"

// pgIdleTimeout is how long the shared store's server waits on a writer
// that holds the lock and says nothing: a machine that went away mid-push
// (closed, off the network) sends no FIN, and its session would otherwise
// hold the lock, and every other machine's push wait, until the server's
// TCP keepalive gives up on it (two hours by default). A push sends its
// next statement within milliseconds.
var pgIdleTimeout = time.Minute

// lockShared takes the advisory lock (pgLock) in tx, the transaction's
// session ended by the server when it stays idle in tx for
// pgIdleTimeout. SET LOCAL, not a startup parameter, so that a pooler
// (PgBouncer) that refuses unknown startup parameters passes it.
func lockShared(ctx context.Context, tx *sql.Tx) error {
	ms := strconv.FormatInt(max(pgIdleTimeout.Milliseconds(), 1), 10)
	if _, err := tx.ExecContext(ctx, `SET LOCAL idle_in_transaction_session_timeout = `+ms); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgLock))
	return err
}

// pgRemovedMin is how many removals the shared store's log keeps at the
// least, however few rows the store holds (see pruneRemoved): a small
// store's mirrors are then not built again for every few rows dropped.
var pgRemovedMin int64 = 10000

// PushOptions configure [Store.Push].
type PushOptions struct {
	// Machine names the machine the rows come from; User is the OS user
	// pushing them.
	Machine, User string
	// Now stamps the push; nil for the system clock.
	Now func() time.Time
	// ProjectKey, when set, pushes every project path (of requests, tool
	// calls and sessions) as its keyed hash, [ProjectHash], never the
	// path. A shared store keeps a keyed fingerprint of the key it was
	// first pushed with (or that it was pushed without one), never the
	// key, and refuses a push with another key, or without one.
	ProjectKey []byte
}

// PushStats say what a push did.
type PushStats struct {
	// Rows is how many rows of the local store the push read and sent:
	// every row on a full push, the rows stored or changed since this
	// machine's last push to that store otherwise (0 for an unchanged
	// store). Added of those the shared store did not hold before (from
	// any machine); Updated the rows it held that took the pushed
	// content (a request seen further, a call's result); Dropped the rows
	// this machine held in the shared store before and no longer holds.
	Rows, Added, Updated, Dropped int
	// Full is set when the push compared every row with what the shared
	// store says this machine holds: a first push to that store, or the
	// local store deleted rows since (a file read again from the top).
	Full bool
}

// A pushTable is a table of the local store as it is pushed: the local
// table and its row id (the high-water mark of an incremental push), the
// columns read (after the row id), the shared store's columns they go to,
// the row's identity, which leading column is the project (-1: none),
// what the shared store does with a row it holds already, and which of
// two rows of one identity in one batch is sent.
type pushTable struct {
	id       int
	name     string
	rowID    string
	sel      string
	from     string
	cols     []string
	project  int
	key      func(v []any) []any
	conflict string
	better   func(a, b []any) bool
}

// requestTotal is the SQL of a shared request's token total.
func requestTotal(t string) string {
	return t + `.input + ` + t + `.output + ` + t + `.cache_write_5m + ` + t + `.cache_write_1h + ` + t + `.cache_read`
}

// callRank is the SQL of how complete a shared tool call is: 2 for its
// call, 1 for its result.
func callRank(t string) string {
	return `(` + t + `.call_ts IS NOT NULL)::int * 2 + (` + t + `.result_ts IS NOT NULL)::int`
}

// sessionProject is the SQL of a shared session's project once a
// machine pushed it.
const sessionProject = `CASE WHEN sessions.project = '' THEN excluded.project ELSE sessions.project END`

// sessionSpan is the SQL of a shared session's first or last time once a
// machine pushed it (widen: least or greatest).
func sessionSpan(col, widen string) string {
	return `CASE WHEN sessions.machine = excluded.machine THEN excluded.` + col + ` ELSE ` + widen + `(sessions.` + col + `, excluded.` + col + `) END`
}

func setExcluded(cols []string) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(c + " = excluded." + c + ", ")
	}
	return b.String()
}

var requestCols = []string{"source", "session_id", "agent_id", "agent_file", "sidechain", "ts", "model", "project",
	"message_id", "request_id", "dedup_session", "input", "output", "cache_write_5m", "cache_write_1h", "cache_read",
	"reasoning", "web_search", "web_fetch", "speed", "cost_usd", "copied"}

var toolCols = []string{"source", "session_id", "call_id", "agent_id", "agent_file", "sidechain", "name", "tool", "server", "plugin",
	"builtin", "project", "call_ts", "result_ts", "result_tokens", "result_bytes", "non_text", "estimated_tokens",
	"is_error", "spilled", "duration_ms", "args_hash", "copied"}

func int64At(v []any, i int) int64 {
	n, _ := v[i].(int64)
	return n
}

var pushTables = []pushTable{
	{1, "requests", "r.id", `r.source, r.session_id, r.agent_id, ` + agentFileSQL("r.file_id") + `, r.sidechain, r.ts, r.model, r.project,
		r.message_id, r.request_id, r.dedup_session, r.input, r.output, r.cache_write_5m, r.cache_write_1h, r.cache_read,
		r.reasoning, r.web_search, r.web_fetch, r.speed, r.cost_usd, r.copied`, "requests r WHERE 1 = 1",
		requestCols, 7,
		func(v []any) []any {
			// A request with a message id is one per (message id, request
			// id; without a request id, the line's session and time), as
			// the local store counts it, wherever and in whichever session
			// it was seen; one without is its session, agent, time, model
			// and counts.
			if v[8] != "" && v[9] != "" {
				return []any{"m", v[0], v[8], v[9], v[10]}
			}
			if v[8] != "" {
				return []any{"m", v[0], v[8], v[9], v[10], v[5]}
			}
			return []any{"r", v[0], v[1], v[2], v[5], v[6], v[11], v[12], v[13], v[14], v[15], v[16]}
		},
		// The copy with the most tokens (a response recorded further
		// along), wherever it was seen.
		`ON CONFLICT (key) DO UPDATE SET ` + setExcluded(requestCols) + `seq = nextval('change_seq')
			WHERE ` + requestTotal("excluded") + ` > ` + requestTotal("requests"),
		func(a, b []any) bool {
			total := func(v []any) int64 {
				return int64At(v, 11) + int64At(v, 12) + int64At(v, 13) + int64At(v, 14) + int64At(v, 15)
			}
			return total(a) > total(b)
		}},
	// A tool call is one per source and call id: the copies of a call in
	// the sessions that resumed its own, on one machine or several, are
	// one call. Copies a local store does not count (lost, see
	// writer.settle) are not sent; of the copies several machines send,
	// the shared store keeps the first one with the most of the call (its
	// call and its result).
	{2, "tool_calls", "t.id", `t.source, t.session_id, t.call_id, t.agent_id, ` + agentFileSQL("coalesce(t.call_file_id, t.result_file_id)") + `,
		t.sidechain, t.name, t.tool, t.server, t.plugin, t.builtin, t.project, t.call_ts, t.result_ts, t.result_tokens,
		t.result_bytes, t.non_text, t.estimated_tokens, t.is_error, t.spilled, t.duration_ms, t.args_hash, t.copied`, "tool_calls t WHERE t.lost = 0",
		toolCols, 11,
		func(v []any) []any { return []any{v[0], v[2]} },
		`ON CONFLICT (key) DO UPDATE SET ` + setExcluded(toolCols) + `seq = nextval('change_seq')
			WHERE ` + callRank("excluded") + ` > ` + callRank("tool_calls"),
		func(a, b []any) bool {
			rank := func(v []any) int {
				n := 0
				if v[12] != nil {
					n += 2
				}
				if v[13] != nil {
					n++
				}
				return n
			}
			return rank(a) > rank(b)
		}},
	// A session's span is the one the machine that pushed it first sends
	// (a span that shrank when a file was read again shrinks), widened
	// by what the other machines send; its project the first one named.
	{3, "sessions", "s.rowid", `s.source, s.session_id, s.project, s.first_ts, s.last_ts`, "sessions s WHERE 1 = 1",
		[]string{"source", "session_id", "project", "first_ts", "last_ts"}, 2,
		func(v []any) []any { return v[:2] },
		`ON CONFLICT (key) DO UPDATE SET project = ` + sessionProject + `, first_ts = ` + sessionSpan("first_ts", "least") + `,
			last_ts = ` + sessionSpan("last_ts", "greatest") + `, seq = nextval('change_seq')
			WHERE ` + sessionProject + ` IS DISTINCT FROM sessions.project
				OR ` + sessionSpan("first_ts", "least") + ` IS DISTINCT FROM sessions.first_ts
				OR ` + sessionSpan("last_ts", "greatest") + ` IS DISTINCT FROM sessions.last_ts`,
		func(a, b []any) bool { return false }},
	{4, "compactions", "c.id", `c.source, c.session_id, c.agent_id, c.ts, c.trigger, c.pre_tokens, c.copied`, "compactions c WHERE 1 = 1",
		[]string{"source", "session_id", "agent_id", "ts", "trigger", "pre_tokens", "copied"}, -1,
		func(v []any) []any { return v[:6] },
		`ON CONFLICT (key) DO NOTHING`,
		func(a, b []any) bool { return false }},
	// A usage-limit placeholder is one per source, session, time and
	// reset: the copies several files or machines hold are one.
	{5, "usage_limits", "l.id", `l.source, l.session_id, l.ts, l.reset_ts`, "usage_limits l WHERE 1 = 1",
		[]string{"source", "session_id", "ts", "reset_ts"}, -1,
		func(v []any) []any { return v[:4] },
		`ON CONFLICT (key) DO NOTHING`,
		func(a, b []any) bool { return false }},
}

func agentFileSQL(fileCol string) string {
	return `coalesce((SELECT f.agent_id FROM files f WHERE f.id = ` + fileCol + ` AND f.session_id = '' AND f.agent_id <> ''), '')`
}

// rowKey is the SHA-256 of a row's identity.
func rowKey(tbl int, v []any) []byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(tbl))
	h.Write(n[:])
	for _, x := range v {
		var s string
		switch x := x.(type) {
		case nil:
			s = "\x00"
		case string:
			s = "s" + x
		case []byte:
			s = "b" + string(x)
		case int64:
			s = "i" + strconv.FormatInt(x, 10)
		case float64:
			s = "f" + strconv.FormatUint(math.Float64bits(x), 16)
		default:
			s = fmt.Sprintf("?%v", x)
		}
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return h.Sum(nil)
}

// IsPostgresURL reports whether a store's URL names a PostgreSQL server.
func IsPostgresURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

// projectKeyFingerprint is what a shared store keeps of a project key: a
// keyed hash of a fixed text, which names the key without revealing it;
// "" for no key.
func projectKeyFingerprint(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("mcpcost project key fingerprint"))
	return hex.EncodeToString(m.Sum(nil))
}

// pushMark is what a local store pushed last to one shared store as one
// machine (a push_state row): the high-water row id of each table, of
// push_dirty, and the generation pushed.
type pushMark struct {
	ids        [5]int64
	dirty      int64
	generation int64
	pushed     int64
}

// pushStateKey names a push_state row: the shared store's id and the
// machine pushed as.
func pushStateKey(storeID, machine string) string { return storeID + " " + machine }

// Push sends what the local store holds to the shared PostgreSQL store at
// url, as o.Machine's, in one transaction: rows it did not hold are added
// (a row another machine pushed already is not added twice; a more
// complete copy of it replaces it), rows this machine pushed before and no
// longer holds (a file read again from the top) are dropped unless another
// machine holds them, and a push of an unchanged store changes nothing.
//
// A push is incremental: the local store keeps, per shared store (by its
// id, never its URL) and machine, the highest row id of each table it
// sent and the rows changed since (push_dirty, see migration 008); a push
// sends the rows stored or changed since, reading nothing else. When the
// local store deleted rows since (its generation moved: a file read again
// from the top), or on a first push to that store, the push is full: it
// sends every row and drops what this machine no longer holds.
//
// The shared store's schema is brought up to date first. An error leaves
// the shared store and what the local store recorded of it as they were;
// no error shows the URL's password.
func (s *Store) Push(ctx context.Context, url string, o PushOptions) (*PushStats, error) {
	if o.Machine == "" {
		return nil, errors.New("pushing: no machine name")
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	scrub := redact.New(redact.DSNSecrets(url)...)
	fail := func(err error) error {
		return fmt.Errorf("pushing to %s: %s", redact.DSN(url), scrub.String(oneLine(err.Error())))
	}
	db, err := OpenShared(ctx, url)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var storeID string
	if err := db.QueryRowContext(ctx, `SELECT id FROM store_info`).Scan(&storeID); err != nil {
		return nil, fail(err)
	}
	stateKey := pushStateKey(storeID, o.Machine)
	ok := false // the shared store committed the push

	// The push_state row exists before the local rows are read, so that
	// every update committed after the read is logged in push_dirty (its
	// triggers log only once a push_state row exists).
	// A store open read-only (OpenReadOnly) records nothing: it pushes in
	// full every time.
	// A first push that fails takes its row away again: the local store
	// is left as it was.
	if !s.readOnly {
		var made bool
		if err := s.tx(ctx, func(tx *sql.Tx) error {
			// The triggers a first ingest dropped log from here on.
			if err := restoreTriggers(tx); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO push_state (store) VALUES (?)`, stateKey)
			if err == nil {
				n, _ := res.RowsAffected()
				made = n == 1
			}
			return err
		}); err != nil {
			return nil, fmt.Errorf("recording the push in the local store: %w", err)
		}
		if made {
			defer func() {
				if ok {
					return
				}
				s.tx(context.WithoutCancel(ctx), func(tx *sql.Tx) error {
					_, err := tx.Exec(`DELETE FROM push_state WHERE store = ? AND pushed_generation = -1`, stateKey)
					return err
				})
			}()
		}
	}

	// The local rows, read in one read transaction: a consistent view
	// even while an ingest writes.
	ltx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("reading the local store: %w", err)
	}
	defer ltx.Rollback()
	last := pushMark{pushed: -1}
	// push_state has a column of each table's high-water id, named
	// after it.
	marks := make([]string, len(pushTables))
	lastPtrs := make([]any, 0, len(pushTables)+3)
	for i, t := range pushTables {
		marks[i] = t.name
		lastPtrs = append(lastPtrs, &last.ids[i])
	}
	if err := ltx.QueryRowContext(ctx, `SELECT `+strings.Join(marks, ", ")+`, dirty, generation, pushed_generation
		FROM push_state WHERE store = ?`, stateKey).Scan(append(lastPtrs, &last.dirty, &last.generation, &last.pushed)...); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("reading the local store: %w", err)
	}
	next := pushMark{generation: last.generation, pushed: last.generation}
	for i, t := range pushTables {
		if err := ltx.QueryRowContext(ctx, `SELECT coalesce(max(`+t.rowID+`), 0) FROM `+strings.SplitN(t.from, " WHERE ", 2)[0]).Scan(&next.ids[i]); err != nil {
			return nil, fmt.Errorf("reading the local store: %w", err)
		}
	}
	if err := ltx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM push_dirty`).Scan(&next.dirty); err != nil {
		return nil, fmt.Errorf("reading the local store: %w", err)
	}
	st := &PushStats{Full: last.pushed != last.generation}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fail(err)
	}
	defer tx.Rollback()
	if err := lockShared(ctx, tx); err != nil {
		return nil, fail(err)
	}
	// The project key: the one the store was first pushed with.
	var have sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT project_key FROM store_info`).Scan(&have); err != nil {
		return nil, fail(err)
	}
	fp := projectKeyFingerprint(o.ProjectKey)
	switch {
	case !have.Valid:
		if _, err := tx.ExecContext(ctx, `UPDATE store_info SET project_key = $1`, fp); err != nil {
			return nil, fail(err)
		}
	case have.String != fp:
		return nil, &ProjectKeyError{URL: redact.DSN(url), Keyed: have.String != "", Sent: fp != ""}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO machines (machine, os_user, pushed_at) VALUES ($1, $2, $3)
		ON CONFLICT (machine) DO UPDATE SET os_user = excluded.os_user, pushed_at = excluded.pushed_at`,
		o.Machine, o.User, now().UnixMilli()); err != nil {
		return nil, fail(err)
	}
	if st.Full {
		if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE pushed (tbl SMALLINT NOT NULL, key BYTEA NOT NULL, PRIMARY KEY (tbl, key)) ON COMMIT DROP`); err != nil {
			return nil, fail(err)
		}
	}
	for i, t := range pushTables {
		base := `SELECT ` + t.rowID + `, ` + t.sel + ` FROM ` + t.from
		if st.Full {
			if err := pushRows(ctx, ltx, tx, t, base+` ORDER BY `+t.rowID, nil, o, st); err != nil {
				return nil, fail(err)
			}
			continue
		}
		// The rows stored since, then those changed since of the rows
		// sent before: each read through an index.
		if err := pushRows(ctx, ltx, tx, t, base+` AND `+t.rowID+` > ? ORDER BY `+t.rowID, []any{last.ids[i]}, o, st); err != nil {
			return nil, fail(err)
		}
		if err := pushRows(ctx, ltx, tx, t, base+` AND `+t.rowID+` <= ? AND `+t.rowID+` IN (SELECT row FROM push_dirty WHERE tbl = ? AND seq > ?)
			ORDER BY `+t.rowID, []any{last.ids[i], t.id, last.dirty}, o, st); err != nil {
			return nil, fail(err)
		}
	}
	if st.Full {
		res, err := tx.ExecContext(ctx, `DELETE FROM held h WHERE h.machine = $1
			AND NOT EXISTS (SELECT 1 FROM pushed p WHERE p.tbl = h.tbl AND p.key = h.key)`, o.Machine)
		if err != nil {
			return nil, fail(err)
		}
		n, _ := res.RowsAffected()
		st.Dropped = int(n)
		if n > 0 {
			for _, t := range pushTables {
				// The rows no machine holds go, each logged for the mirrors.
				if _, err := tx.ExecContext(ctx, `WITH gone AS (DELETE FROM `+t.name+` r
					WHERE NOT EXISTS (SELECT 1 FROM held h WHERE h.tbl = $1 AND h.key = r.key) RETURNING r.key)
					INSERT INTO removed (tbl, key) SELECT $1, key FROM gone`, t.id); err != nil {
					return nil, fail(err)
				}
			}
			if err := pruneRemoved(ctx, tx); err != nil {
				return nil, fail(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fail(err)
	}
	ok = true
	if s.readOnly {
		return st, nil
	}
	// What was pushed, recorded after the shared store committed it: a
	// failure here sends the same rows again next time, which changes
	// nothing there.
	if err := s.tx(ctx, func(ltx *sql.Tx) error {
		args := make([]any, 0, len(pushTables)+3)
		for i := range pushTables {
			args = append(args, next.ids[i])
		}
		_, err := ltx.ExecContext(ctx, `UPDATE push_state SET `+strings.Join(marks, " = ?, ")+` = ?, dirty = ?,
			pushed_generation = ? WHERE store = ?`, append(args, next.dirty, next.pushed, stateKey)...)
		return err
	}); err != nil {
		return nil, fmt.Errorf("the shared store took the push, but recording it in the local store failed (the next push sends it again): %w", err)
	}
	return st, nil
}

// pruneRemoved bounds the shared store's log of removals, which every
// push that removes rows adds to: once it holds more entries than both
// pgRemovedMin and the store's rows, the oldest go, so that it keeps as
// many as the larger of the two, and store_info.removed_pruned is raised
// to the highest seq pruned. A mirror reading the log from a seq below
// that point would miss a removal: it is built again instead (see
// syncMirror), which reads no more rows than the entries it would have
// read. Called under the advisory lock, in the push's transaction.
func pruneRemoved(ctx context.Context, tx *sql.Tx) error {
	var logged int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM removed`).Scan(&logged); err != nil {
		return fmt.Errorf("pruning the removals: %w", err)
	}
	if logged <= pgRemovedMin {
		return nil
	}
	counts := make([]string, len(pushTables))
	for i, t := range pushTables {
		counts[i] = `(SELECT count(*) FROM ` + t.name + `)`
	}
	var live int64
	if err := tx.QueryRowContext(ctx, `SELECT `+strings.Join(counts, " + ")).Scan(&live); err != nil {
		return fmt.Errorf("pruning the removals: %w", err)
	}
	keep := max(live, pgRemovedMin)
	if logged <= keep {
		return nil
	}
	var cut int64
	if err := tx.QueryRowContext(ctx, `SELECT seq FROM removed ORDER BY seq DESC OFFSET $1 LIMIT 1`, keep).Scan(&cut); err != nil {
		return fmt.Errorf("pruning the removals: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM removed WHERE seq <= $1`, cut); err != nil {
		return fmt.Errorf("pruning the removals: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE store_info SET removed_pruned = greatest(removed_pruned, $1)`, cut); err != nil {
		return fmt.Errorf("pruning the removals: %w", err)
	}
	return nil
}

// pushBatch is how many rows go in one INSERT (a statement takes at most
// 65535 parameters).
const pushBatch = 500

func pushRows(ctx context.Context, ltx, tx *sql.Tx, t pushTable, q string, qargs []any, o PushOptions, st *PushStats) error {
	rows, err := ltx.QueryContext(ctx, q, qargs...)
	if err != nil {
		return fmt.Errorf("reading the local store's %s: %w", t.name, err)
	}
	defer rows.Close()
	var keys [][]byte
	var vals [][]any
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		if err := insertRows(ctx, tx, t, o, keys, vals, st); err != nil {
			return err
		}
		keys, vals = keys[:0], vals[:0]
		return nil
	}
	for rows.Next() {
		v := make([]any, len(t.cols))
		ptrs := make([]any, len(v)+1)
		var id int64
		ptrs[0] = &id
		for i := range v {
			ptrs[i+1] = &v[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("reading the local store's %s: %w", t.name, err)
		}
		keys = append(keys, rowKey(t.id, t.key(v)))
		if t.project >= 0 && len(o.ProjectKey) > 0 {
			if p, ok := v[t.project].(string); ok {
				v[t.project] = ProjectHash(o.ProjectKey, p)
			}
		}
		sharedValues(t.cols, v)
		vals = append(vals, v)
		st.Rows++
		if len(keys) == pushBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the local store's %s: %w", t.name, err)
	}
	return flush()
}

// insertRows sends a batch of one table's rows (added where the shared
// store lacks them, updated as the table's conflict clause says),
// records that the machine holds them, and counts what changed.
func insertRows(ctx context.Context, tx *sql.Tx, t pushTable, o PushOptions, keys [][]byte, vals [][]any, st *PushStats) error {
	// Two rows of one batch may share a key (a request the local store
	// holds twice, in two of its files): the better one is sent (the
	// first of equals).
	at := make(map[string]int, len(keys))
	var order []int
	for i, k := range keys {
		j, ok := at[string(k)]
		if !ok {
			at[string(k)] = len(order)
			order = append(order, i)
			continue
		}
		if t.better(vals[i], vals[order[j]]) {
			order[j] = i
		}
	}
	var b, hb, pb strings.Builder
	args := make([]any, 0, len(order)*(len(t.cols)+3))
	hargs := []any{o.Machine, t.id}
	pargs := []any{t.id}
	b.WriteString(`INSERT INTO ` + t.name + ` (key, machine, os_user, ` + strings.Join(t.cols, ", ") + `) VALUES `)
	hb.WriteString(`INSERT INTO held (machine, tbl, key) VALUES `)
	pb.WriteString(`INSERT INTO pushed (tbl, key) VALUES `)
	for n, i := range order {
		k := keys[i]
		if n > 0 {
			b.WriteString(", ")
			hb.WriteString(", ")
			pb.WriteString(", ")
		}
		b.WriteString("(")
		for j, v := range append([]any{k, o.Machine, o.User}, vals[i]...) {
			if j > 0 {
				b.WriteString(", ")
			}
			args = append(args, v)
			b.WriteString("$" + strconv.Itoa(len(args)))
		}
		b.WriteString(")")
		hargs = append(hargs, k)
		hb.WriteString("($1, $2, $" + strconv.Itoa(len(hargs)) + ")")
		pargs = append(pargs, k)
		pb.WriteString("($1, $" + strconv.Itoa(len(pargs)) + ")")
	}
	b.WriteString(" " + t.conflict + ` RETURNING xmax = 0`)
	hb.WriteString(` ON CONFLICT DO NOTHING`)
	pb.WriteString(` ON CONFLICT DO NOTHING`)
	rows, err := tx.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.name, err)
	}
	for rows.Next() {
		var added bool
		if err := rows.Scan(&added); err != nil {
			rows.Close()
			return fmt.Errorf("writing %s: %w", t.name, err)
		}
		if added {
			st.Added++
		} else {
			st.Updated++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("writing %s: %w", t.name, err)
	}
	if _, err := tx.ExecContext(ctx, hb.String(), hargs...); err != nil {
		return fmt.Errorf("writing %s: %w", t.name, err)
	}
	if st.Full {
		if _, err := tx.ExecContext(ctx, pb.String(), pargs...); err != nil {
			return fmt.Errorf("writing %s: %w", t.name, err)
		}
	}
	return nil
}

// OpenShared opens the shared PostgreSQL store at url (a postgres:// URL,
// whose sslmode and other parameters pgx honours as libpq does) and
// brings its schema up to date, each migration in its own transaction
// under the advisory lock, so that machines opening it at once apply each
// migration once. No error shows the URL's password.
func OpenShared(ctx context.Context, url string) (*sql.DB, error) {
	scrub := redact.New(redact.DSNSecrets(url)...)
	fail := func(err error) error {
		return fmt.Errorf("opening the shared store %s: %s", redact.DSN(url), scrub.String(oneLine(err.Error())))
	}
	if !IsPostgresURL(url) {
		return nil, fail(errors.New("not a postgres:// URL"))
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fail(err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fail(err)
	}
	if err := pgMigrate(ctx, db); err != nil {
		db.Close()
		return nil, fail(err)
	}
	return db, nil
}

// oneLine makes a driver's error one line: pgx puts each address it
// tried on a line of its own ("...:\n\t127.0.0.1:1 (127.0.0.1): dial
// error: ...", once per sslmode it tried), which the error line would show
// as literal escapes. Each distinct line is kept once, in order.
func oneLine(msg string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		switch s := b.String(); {
		case s == "":
		case strings.HasSuffix(s, ":"):
			b.WriteString(" ")
		default:
			b.WriteString("; ")
		}
		b.WriteString(l)
	}
	return b.String()
}

// PGSchemaVersion is the shared store's schema version this build writes.
func PGSchemaVersion() int {
	n, _ := fs.Glob(pgMigrations, "pgmigrations/*.sql")
	return len(n)
}

func pgMigrate(ctx context.Context, db *sql.DB) error {
	names, err := fs.Glob(pgMigrations, "pgmigrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	version := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) (int, error) {
		// A query of the catalog, not to_regclass: a prepared statement
		// reused on one connection kept its first answer.
		var exists bool
		if err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables
			WHERE schemaname = current_schema() AND tablename = 'mcpcost_schema')`).Scan(&exists); err != nil || !exists {
			return 0, err
		}
		var have int
		err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM mcpcost_schema`).Scan(&have)
		return have, err
	}
	have, err := version(db)
	if err != nil {
		return err
	}
	if have > len(names) {
		return fmt.Errorf("the shared store has schema version %d, newer than this mcpcost knows (%d); upgrade mcpcost", have, len(names))
	}
	if have == len(names) {
		return nil // up to date: nothing written (a read-only server answers)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := lockShared(ctx, tx); err != nil {
		return err
	}
	have, err = version(tx)
	if err != nil {
		return err
	}
	if have == 0 {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS mcpcost_schema (version INTEGER NOT NULL)`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mcpcost_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM mcpcost_schema)`); err != nil {
			return err
		}
	}
	for i, name := range names {
		if i+1 <= have {
			continue
		}
		body, err := pgMigrations.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE mcpcost_schema SET version = $1`, len(names)); err != nil {
		return err
	}
	return tx.Commit()
}

// ProjectHash is how a push with a project key ([PushOptions.ProjectKey])
// names a project: "p:" and the first 24 hex digits of the HMAC-SHA256 of
// the path under the key, the same for the same path and key on every
// machine. The empty project (a row that names none: its session's) stays
// empty.
func ProjectHash(key []byte, project string) string {
	if project == "" {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(project))
	return "p:" + hex.EncodeToString(m.Sum(nil))[:24]
}

// ProjectKeyError is a push refused because its project key is not the
// one the shared store was first pushed with: Keyed when the store holds
// projects as keyed hashes, Sent when the push had a key. URL has no
// password.
type ProjectKeyError struct {
	URL         string
	Keyed, Sent bool
}

func (e *ProjectKeyError) Error() string {
	var why string
	switch {
	case !e.Keyed:
		why = "the shared store holds project paths (it was first pushed without a project key): a push with one is refused"
	case !e.Sent:
		why = "the shared store holds projects as keyed hashes: a push without its project key is refused"
	default:
		why = "the shared store was first pushed with another project key: a push with this one is refused"
	}
	return "pushing to " + e.URL + ": " + why
}
