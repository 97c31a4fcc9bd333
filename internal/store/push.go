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
// races another's arrival of the same row.
const pgLock = 0x6d6370636f7374 // "mcpcost"

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

// A pushTable is a table of the local store as it is pushed: the query
// that reads its rows (the key's columns first), the shared store's
// columns they go to, and how many leading columns make up the row's
// identity.
type pushTable struct {
	id    int
	name  string
	query string
	cols  []string
	key   func(v []any) []any
}

var pushTables = []pushTable{
	{1, "requests", `SELECT r.source, r.session_id, r.agent_id, ` + agentFileSQL("r.file_id") + `, r.sidechain, r.ts, r.model, r.project,
		r.message_id, r.request_id, r.dedup_session, r.input, r.output, r.cache_write_5m, r.cache_write_1h, r.cache_read,
		r.reasoning, r.web_search, r.web_fetch, r.speed, r.cost_usd FROM requests r ORDER BY r.id`,
		[]string{"source", "session_id", "agent_id", "agent_file", "sidechain", "ts", "model", "project",
			"message_id", "request_id", "dedup_session", "input", "output", "cache_write_5m", "cache_write_1h", "cache_read",
			"reasoning", "web_search", "web_fetch", "speed", "cost_usd"},
		func(v []any) []any {
			// A request with a message id is one per (message id, request
			// id, the line's session when it has no request id), as the
			// local store counts it, wherever and in whichever session it
			// was seen; one without is its session, agent, time, model and
			// counts.
			if v[8] != "" {
				return []any{"m", v[0], v[8], v[9], v[10]}
			}
			return []any{"r", v[0], v[1], v[2], v[5], v[6], v[11], v[12], v[13], v[14], v[15], v[16]}
		}},
	{2, "tool_calls", `SELECT t.source, t.session_id, t.call_id, t.agent_id, ` + agentFileSQL("coalesce(t.call_file_id, t.result_file_id)") + `,
		t.sidechain, t.name, t.tool, t.server, t.plugin, t.builtin, t.project, t.call_ts, t.result_ts, t.result_tokens,
		t.result_bytes, t.non_text, t.estimated_tokens, t.is_error, t.spilled, t.duration_ms, t.args_hash FROM tool_calls t ORDER BY t.id`,
		[]string{"source", "session_id", "call_id", "agent_id", "agent_file", "sidechain", "name", "tool", "server", "plugin",
			"builtin", "project", "call_ts", "result_ts", "result_tokens", "result_bytes", "non_text", "estimated_tokens",
			"is_error", "spilled", "duration_ms", "args_hash"},
		func(v []any) []any { return v[:3] }},
	{3, "sessions", `SELECT source, session_id, project, first_ts, last_ts FROM sessions ORDER BY source, session_id`,
		[]string{"source", "session_id", "project", "first_ts", "last_ts"},
		func(v []any) []any { return v[:2] }},
	{4, "compactions", `SELECT source, session_id, agent_id, ts, trigger, pre_tokens FROM compactions ORDER BY id`,
		[]string{"source", "session_id", "agent_id", "ts", "trigger", "pre_tokens"},
		func(v []any) []any { return v }},
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

// Push sends what the local store holds to the shared PostgreSQL store at
// url, as o.Machine's, in one transaction: rows it did not hold are added
// (a row another machine pushed already is not added twice), rows this
// machine pushed before and no longer holds (a file read again from the
// top) are dropped unless another machine holds them, and a push of an
// unchanged store changes nothing. The shared store's schema is brought up
// to date first. An error leaves the shared store as it was; no error
// shows the URL's password.
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
		return fmt.Errorf("pushing to %s: %s", redact.DSN(url), scrub.String(err.Error()))
	}
	db, err := OpenShared(ctx, url)
	if err != nil {
		return nil, err
	}
	defer db.Close()

	// The local rows, read in one read transaction: a consistent view
	// even while an ingest writes.
	ltx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("reading the local store: %w", err)
	}
	defer ltx.Rollback()

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fail(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgLock)); err != nil {
		return nil, fail(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO machines (machine, os_user, pushed_at) VALUES ($1, $2, $3)
		ON CONFLICT (machine) DO UPDATE SET os_user = excluded.os_user, pushed_at = excluded.pushed_at`,
		o.Machine, o.User, now().UnixMilli()); err != nil {
		return nil, fail(err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE pushed (tbl SMALLINT NOT NULL, key BYTEA NOT NULL, PRIMARY KEY (tbl, key)) ON COMMIT DROP`); err != nil {
		return nil, fail(err)
	}
	st := &PushStats{}
	for _, t := range pushTables {
		if err := pushRows(ctx, ltx, tx, t, o, st); err != nil {
			return nil, fail(err)
		}
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM held h WHERE h.machine = $1
		AND NOT EXISTS (SELECT 1 FROM pushed p WHERE p.tbl = h.tbl AND p.key = h.key)`, o.Machine)
	if err != nil {
		return nil, fail(err)
	}
	n, _ := res.RowsAffected()
	st.Dropped = int(n)
	if n > 0 {
		for _, t := range pushTables {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t.name+` r
				WHERE NOT EXISTS (SELECT 1 FROM held h WHERE h.tbl = $1 AND h.key = r.key)`, t.id); err != nil {
				return nil, fail(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fail(err)
	}
	return st, nil
}

// pushBatch is how many rows go in one INSERT (a statement takes at most
// 65535 parameters).
const pushBatch = 500

func pushRows(ctx context.Context, ltx, tx *sql.Tx, t pushTable, o PushOptions, st *PushStats) error {
	rows, err := ltx.QueryContext(ctx, t.query)
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
		added, err := insertRows(ctx, tx, t, o, keys, vals)
		if err != nil {
			return err
		}
		st.Added += added
		st.Rows += len(keys)
		keys, vals = keys[:0], vals[:0]
		return nil
	}
	for rows.Next() {
		v := make([]any, len(t.cols))
		ptrs := make([]any, len(v))
		for i := range v {
			ptrs[i] = &v[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("reading the local store's %s: %w", t.name, err)
		}
		keys = append(keys, rowKey(t.id, t.key(v)))
		vals = append(vals, v)
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

// insertRows adds a batch of one table's rows (those the shared store
// lacks), records that the machine holds them, and returns how many were
// added.
func insertRows(ctx context.Context, tx *sql.Tx, t pushTable, o PushOptions, keys [][]byte, vals [][]any) (int, error) {
	// Two rows of one batch may share a key (a request the local store
	// holds twice, in two of its files): the first is kept.
	seen := make(map[string]bool, len(keys))
	var b, hb, pb strings.Builder
	args := make([]any, 0, len(keys)*(len(t.cols)+3))
	hargs := []any{o.Machine, t.id}
	pargs := []any{t.id}
	b.WriteString(`INSERT INTO ` + t.name + ` (key, machine, os_user, ` + strings.Join(t.cols, ", ") + `) VALUES `)
	hb.WriteString(`INSERT INTO held (machine, tbl, key) VALUES `)
	pb.WriteString(`INSERT INTO pushed (tbl, key) VALUES `)
	n := 0
	for i, k := range keys {
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		if n > 0 {
			b.WriteString(", ")
			hb.WriteString(", ")
			pb.WriteString(", ")
		}
		n++
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
	b.WriteString(` ON CONFLICT (key) DO NOTHING`)
	hb.WriteString(` ON CONFLICT DO NOTHING`)
	pb.WriteString(` ON CONFLICT DO NOTHING`)
	res, err := tx.ExecContext(ctx, b.String(), args...)
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w", t.name, err)
	}
	added, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, hb.String(), hargs...); err != nil {
		return 0, fmt.Errorf("writing %s: %w", t.name, err)
	}
	if _, err := tx.ExecContext(ctx, pb.String(), pargs...); err != nil {
		return 0, fmt.Errorf("writing %s: %w", t.name, err)
	}
	return int(added), nil
}

// OpenShared opens the shared PostgreSQL store at url (a postgres:// URL,
// whose sslmode and other parameters pgx honours as libpq does) and
// brings its schema up to date, each migration in its own transaction
// under the advisory lock, so that machines opening it at once apply each
// migration once. No error shows the URL's password.
func OpenShared(ctx context.Context, url string) (*sql.DB, error) {
	scrub := redact.New(redact.DSNSecrets(url)...)
	fail := func(err error) error {
		return fmt.Errorf("opening the shared store %s: %s", redact.DSN(url), scrub.String(err.Error()))
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
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgLock)); err != nil {
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
