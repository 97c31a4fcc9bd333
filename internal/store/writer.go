package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// writer applies batches, one transaction each, in the order each file's
// batches arrive.
type writer struct {
	s     *Store
	o     IngestOptions
	st    *IngestStats
	owner string
	total int
	done  int

	// dedup holds the stored requests of the message ids seen lately, by
	// a hash of the source and message id (see dedupKey), each entry by
	// hashes of its request id and session, so that it holds no copy of
	// those strings: those of the batch being written, and of those
	// before it up to dedupCache keys, after which it starts again
	// empty. A key not in it is looked up in the store, where known
	// holds it (see keyFilter): what the ingest keeps does not grow with
	// the history.
	dedup  map[dedupKey][]dedupEntry
	known  keyFilter
	seeds  [3]maphash.Seed
	loaded bool
	// own is, in a first ingest, the index of the requests stored since
	// it began (when the store held none), in place of requests_message,
	// which it dropped: the row id of each message id's first row by its
	// key, ownMore those of its other rows, in the order they were
	// inserted. Keeping requests_message up to date row by row wrote most
	// of a first ingest's pages to the log (each commit rewrote the
	// random leaves its new message ids landed on: 312,794 writes in a
	// first ingest of 2 GB, 156,301 without it). It may name rows that
	// are no longer stored, or another request's (a transaction rolled
	// back, a file cleared): a row is read back by its id, its source and
	// its message id, so that what it holds need only include every row
	// stored. Past ownKeys message ids, or when the ingest may no longer be
	// the only writer (its lease was taken), the writer builds
	// requests_message and looks copies up in the store from then on
	// (first: requests_message may be missing).
	own     map[dedupKey]int64
	ownMore map[dedupKey][]int64
	first   bool
	// paths interns the files' paths (and the sessions) the cache names.
	paths map[string]string
	gens  map[*job]int64 // each job's file generation after its first batch
	// fileWarns are the warnings of the files read, each with its file's
	// path and its place among that file's warnings; the first MaxWarnings
	// in that order are listed (see keepWarning), so that which warnings
	// an ingest lists does not depend on which reader finished first.
	fileWarns []fileWarning
	warnSeq   map[*job]int
	// copiedIDs are the tool calls (source and call id) of which a row
	// holds a copied line (see loadCopied): a call of one of them may be a
	// copy, or the original, of another session's.
	copiedIDs map[string]bool
	// Per batch: the requests (source and message id) whose kept copy
	// moved to another session, and the tool calls whose copies are to be
	// settled (see settle).
	moved    map[string]bool
	affected map[string]bool

	lastProgress time.Time

	// stmts are the statements every batch runs, prepared once per
	// ingest rather than once per transaction.
	stmts map[string]*sql.Stmt
}

// stmt is query prepared once, for use in tx.
func (w *writer) stmt(tx *sql.Tx, query string) (*sql.Stmt, error) {
	st := w.stmts[query]
	if st == nil {
		var err error
		if st, err = w.s.db.Prepare(query); err != nil {
			return nil, err
		}
		if w.stmts == nil {
			w.stmts = map[string]*sql.Stmt{}
		}
		w.stmts[query] = st
	}
	return tx.Stmt(st), nil
}

// close releases the prepared statements.
func (w *writer) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

// exec runs query, prepared once, in tx.
func (w *writer) exec(tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	st, err := w.stmt(tx, query)
	if err != nil {
		return nil, err
	}
	return st.Exec(args...)
}

// queryRow runs query, prepared once, in tx.
func (w *writer) queryRow(tx *sql.Tx, query string, args ...any) (*sql.Row, error) {
	st, err := w.stmt(tx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryRow(args...), nil
}

// dedupEntry is a stored request as de-duplication sees it. Entries that
// share a slot are the same row reached by another request id.
//
// The rule is ccusage's: a request is its message id and request id; one
// recorded without a request id is its message id, the sessionId its line
// names and its timestamp (gateways reuse message ids across requests); one
// without a message id is never a copy. A sidechain copy of a message under
// another request id (a /btw replay) is a copy too.
//
// Strings are held as 64-bit hashes under a seed of this process (128
// bits for the key): two different ids that collide are as unlikely as
// a collision of random 64-bit values, among the few entries of one
// message id.
type dedupEntry struct {
	requestID uint64 // hash of the request id
	session   uint64 // of the sessionId, for a request without a request id
	ts        int64  // likewise
	slot      *dedupSlot
}

// dedupKey is the hash of a request's source and message id.
type dedupKey [2]uint64

func (w *writer) key(src, msg string) dedupKey {
	return dedupKey{maphash.String(w.seeds[0], src+"\x00"+msg), maphash.String(w.seeds[1], src+"\x00"+msg)}
}

func (w *writer) hash(s string) uint64 { return maphash.String(w.seeds[2], s) }

// intern is path, shared with every other slot of the same file.
func (w *writer) intern(path string) string {
	if p, ok := w.paths[path]; ok {
		return p
	}
	w.paths[path] = path
	return path
}

// matches reports whether the entry has q's key (reqID and session are
// the hashes of q's).
func (e dedupEntry) matches(q *transcript.Request, reqID, session uint64, ts int64) bool {
	if e.requestID != reqID {
		return false
	}
	return q.RequestID != "" || (e.session == session && e.ts == ts)
}

// dedupSlot is the copy a stored request row holds, and what decides
// whether another copy replaces it.
type dedupSlot struct {
	id        int64
	session   string // the session of the kept copy's file
	sidechain bool
	total     int64
	speed     bool
	path      string // the copy's file and line
	line      int
	// pending is the row's insert while it waits for the end of its
	// batch: a later copy in the same batch replaces its values in memory
	// instead of updating the row.
	pending *pendingRequest
}

// better reports whether copy c replaces the kept copy k: the copy outside
// a sidechain, then the larger token total, then the one that records its
// speed, as ccusage decides; then, where ccusage keeps the first copy it
// reads (files in path order, lines in order), the copy earlier in that
// order. The choice is the same whatever order files are ingested in.
func (c *dedupSlot) better(k *dedupSlot) bool {
	switch {
	case c.sidechain != k.sidechain:
		return k.sidechain
	case c.total != k.total:
		return c.total > k.total
	case c.speed != k.speed:
		return c.speed
	case c.path != k.path:
		return c.path < k.path
	}
	return c.line < k.line
}

// pendingRequest is a request row to insert at the end of a batch, in the
// order the requests were first seen.
type pendingRequest struct {
	args []any
	slot *dedupSlot // nil for a request without a message id
	key  dedupKey   // the message id's, with a slot
}

// errRaced means another process moved the file's offset: this batch's
// lines are already counted.
var errRaced = errors.New("raced")

// groupBatches is how many batches, at most, one transaction writes when
// more than one is waiting (see applyAll), and queuedBatches how many
// batches, per reader, wait for the writer. When the writer is behind,
// a transaction writes what waited while it wrote the one before: with
// two batches per reader waiting, a first ingest of 2 GB committed 589
// times and its commits took 1.03 s of the writer's 4.54 s; with eight,
// 185 times and 0.76 s. A commit writes each page its transaction
// changed to the log once, however many of its rows are on it (the
// random leaves of requests_message, the tables' last leaves).
const (
	groupBatches  = 32
	queuedBatches = 8
)

// applyAll writes batches that were waiting together in one
// transaction, each with its file's new offset, so that a commit (and
// the pages it writes to the log) serves several of them; an interrupted
// ingest leaves every batch either stored with its offset or not at all,
// as with a transaction each. When the transaction fails (another
// process raced a file, a write failed), it is rolled back and each
// batch is written alone, so that only the one that failed is left out.
func (w *writer) applyAll(ctx context.Context, bs []*batch) error {
	if w.gens == nil {
		w.gens = map[*job]int64{}
	}
	live := bs[:0:0]
	for _, b := range bs {
		for _, msg := range b.warnings {
			w.keepWarning(b.job, msg)
		}
		w.st.Corrupt += b.corrupt
		w.st.UsageSkipped += b.skipped
		if !b.failed { // a file that could not be read at all is tried again next time
			live = append(live, b)
		}
	}
	if len(live) == 0 {
		return nil
	}
	if len(live) > 1 {
		if err := w.write1(ctx, live); err == nil {
			return nil
		}
		// The in-memory index may hold rows that were rolled back.
		w.loaded, w.copiedIDs = false, nil
		for _, b := range live {
			if b.job.abort.Load() {
				continue
			}
			if err := w.write1(ctx, []*batch{b}); err != nil {
				b.job.abort.Store(true)
				return err
			}
		}
		return nil
	}
	return w.write1(ctx, live)
}

// write1 writes batches in one transaction. A batch alone that raced
// another process is left out (its job aborted), not an error.
func (w *writer) write1(ctx context.Context, bs []*batch) error {
	type counts struct{ requests, dups int }
	got := make([]counts, len(bs))
	err := w.s.tx(ctx, func(tx *sql.Tx) error {
		for i, b := range bs {
			n, d, err := w.writeBatch(tx, b)
			if err != nil {
				return err
			}
			got[i] = counts{n, d}
		}
		return nil
	})
	if len(bs) > 1 && err != nil {
		return err
	}
	if errors.Is(err, errRaced) {
		w.st.Busy++
		bs[0].job.abort.Store(true)
		w.loaded, w.copiedIDs = false, nil // the in-memory index may hold rows that were rolled back
		return nil
	}
	if err != nil {
		w.loaded, w.copiedIDs = false, nil
		return fmt.Errorf("writing %s: %w", bs[0].job.file.Path, err)
	}
	for i, b := range bs {
		w.done1(b, got[i].requests, got[i].dups)
	}
	return nil
}

// writeBatch writes one batch in tx, returning its new requests and its
// copies of requests already stored.
func (w *writer) writeBatch(tx *sql.Tx, b *batch) (newRequests, dups int, err error) {
	w.startBatch()
	w.moved, w.affected = map[string]bool{}, map[string]bool{}
	now := time.Now()
	res, err := w.exec(tx, `UPDATE ingest_lock SET expires_at = ? WHERE id = 1 AND owner = ?`, now.Add(leaseTime).UnixMilli(), w.owner)
	if err != nil {
		return 0, 0, err
	}
	if w.own != nil {
		// Another process that took the lease (this one stalled past it)
		// may have stored copies of what comes: they are looked up in the
		// store from now on.
		if n, err := res.RowsAffected(); err != nil || n != 1 || len(w.own) > ownKeys {
			w.leaveOwn()
		}
	}
	j := b.job
	var id, off, gen int64
	row, err := w.queryRow(tx, `SELECT id, offset, generation FROM files WHERE path = ?`, j.file.Path)
	if err != nil {
		return 0, 0, err
	}
	err = row.Scan(&id, &off, &gen)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if !b.first || j.row != nil {
			return 0, 0, errRaced
		}
		row, err := w.queryRow(tx, `INSERT INTO files (path, source, session_id, agent_id) VALUES (?, ?, ?, ?) RETURNING id`,
			j.file.Path, string(j.file.Source), j.file.SessionID, j.file.AgentID)
		if err != nil {
			return 0, 0, err
		}
		if err := row.Scan(&id); err != nil {
			return 0, 0, err
		}
	case err != nil:
		return 0, 0, err
	case b.first && (j.row == nil || j.row.id != id || j.row.offset != off || j.row.generation != gen):
		return 0, 0, errRaced
	case !b.first && (off != b.fromOffset || gen != w.gens[j]):
		return 0, 0, errRaced
	}
	if b.reset {
		if err := w.clearFile(tx, id); err != nil {
			return 0, 0, err
		}
		gen++
		w.forget(j.file.Path)
	}
	n, d, err := w.write(tx, id, b)
	if err != nil {
		return 0, 0, err
	}
	size, mtime := int64(-1), int64(-1)
	switch {
	case b.last && b.opened:
		size, mtime = b.openSize, b.openMtime
	case b.last:
		size, mtime = j.size, j.mtime
	}
	_, err = w.exec(tx, `UPDATE files SET size = ?, mtime_ns = ?, offset = ?, lines = ?, head_hash = ?, tail_start = ?, tail_hash = ?,
		edge_hash = ?, state = ?, corrupt = corrupt + ?, generation = ?, ingested_at = ?, reader = ? WHERE id = ?`,
		size, mtime, b.offset, b.lines, b.headHash, b.tailStart, b.tailHash, b.edgeHash, b.state, b.corrupt, gen, now.UnixMilli(), readerVersion, id)
	w.gens[j] = gen
	return n, d, err
}

// done1 counts a batch that is stored.
func (w *writer) done1(b *batch, newRequests, dups int) {
	w.st.Requests += newRequests
	w.st.Duplicates += dups
	w.st.BytesRead += b.bytes
	w.st.Lines += b.lines - b.startLines
	if b.first {
		w.st.FilesRead++
		if b.reset {
			w.st.FilesReread++
		}
	}
	for _, t := range b.calls {
		if t.hasCall {
			w.st.ToolCalls++
		}
		if t.hasResult {
			w.st.ToolResults++
		}
	}
	for _, r := range b.recs {
		if r.rec.Compaction != nil {
			w.st.Compactions++
		}
	}
	if b.last {
		w.done++
	}
	w.progress(false)
}

func (w *writer) progress(final bool) {
	if final {
		if w.total > 0 {
			w.o.Progress(IngestStep{Phase: IngestEnd, Done: w.done, Total: w.total, Bytes: w.st.BytesRead})
		}
		return
	}
	if time.Since(w.lastProgress) < 150*time.Millisecond {
		return
	}
	w.lastProgress = time.Now()
	w.o.Progress(IngestStep{Phase: IngestRead, Done: w.done, Total: w.total, Bytes: w.st.BytesRead})
}

// clearFile removes what a file contributed, before it is read again, and
// recomputes the time spans of its sessions from what remains.
func (w *writer) clearFile(tx *sql.Tx, id int64) error {
	if _, err := tx.Exec(`CREATE TEMP TABLE IF NOT EXISTS cleared (source TEXT, session_id TEXT)`); err != nil {
		return err
	}
	if _, err := tx.Exec(`DELETE FROM temp.cleared`); err != nil {
		return err
	}
	// The tool calls of the file that have copies elsewhere: which copy
	// counts is settled again at the end of the batch.
	if err := w.loadCopied(tx); err != nil {
		return err
	}
	if err := w.collect(tx, `SELECT DISTINCT t.source, t.call_id FROM tool_calls t WHERE (t.call_file_id = ?1 OR t.result_file_id = ?1)
		AND (t.copied <> 0 OR EXISTS (SELECT 1 FROM tool_calls o WHERE o.source = t.source AND o.call_id = t.call_id AND o.copied <> 0))`, id); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO temp.cleared SELECT source, session_id FROM requests WHERE file_id = ?1
		UNION SELECT source, session_id FROM tool_calls WHERE call_file_id = ?1 OR result_file_id = ?1
		UNION SELECT source, session_id FROM compactions WHERE file_id = ?1
		UNION SELECT source, session_id FROM sessions WHERE file_id = ?1`, id); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM requests WHERE file_id = ?`,
		`DELETE FROM compactions WHERE file_id = ?`,
		`DELETE FROM usage_limits WHERE file_id = ?`,
		`UPDATE tool_calls SET agent_id = NULL, sidechain = NULL, name = NULL, tool = NULL, server = NULL, plugin = NULL, builtin = NULL,
			call_ts = NULL, args_hash = NULL, call_file_id = NULL, call_line = NULL,
			message_id = NULL, request_id = NULL, dedup_session = NULL, copied = copied & ~1 WHERE call_file_id = ?`,
		`UPDATE tool_calls SET result_ts = NULL, result_tokens = NULL, result_bytes = NULL, non_text = NULL, estimated_tokens = NULL,
			is_error = NULL, spilled = NULL, duration_ms = NULL, result_file_id = NULL, result_line = NULL, copied = copied & ~2 WHERE result_file_id = ?`,
		`DELETE FROM tool_calls WHERE call_file_id IS NULL AND result_file_id IS NULL`,
		`UPDATE sessions SET file_id = NULL WHERE file_id = ?1`,
	} {
		if _, err := tx.Exec(q, id); err != nil {
			return err
		}
	}
	// A session's own span: its lines, not those copied into it (see
	// Sessions).
	_, err := tx.Exec(`WITH spans AS (
			SELECT source, session_id, min(t) AS first, max(t) AS last FROM (
				SELECT source, session_id, ts AS t FROM requests WHERE copied = 0
				UNION ALL SELECT source, session_id, call_ts FROM tool_calls WHERE copied & 1 = 0
				UNION ALL SELECT source, session_id, result_ts FROM tool_calls WHERE copied & 2 = 0
				UNION ALL SELECT source, session_id, ts FROM compactions WHERE copied = 0
			) WHERE (source, session_id) IN (SELECT source, session_id FROM temp.cleared)
			GROUP BY source, session_id)
		UPDATE sessions SET
			first_ts = (SELECT first FROM spans WHERE spans.source = sessions.source AND spans.session_id = sessions.session_id),
			last_ts = (SELECT last FROM spans WHERE spans.source = sessions.source AND spans.session_id = sessions.session_id)
		WHERE (source, session_id) IN (SELECT source, session_id FROM temp.cleared)`)
	if err != nil {
		return err
	}
	_, err = tx.Exec(`DELETE FROM sessions WHERE first_ts IS NULL
		AND NOT EXISTS (SELECT 1 FROM requests r WHERE r.source = sessions.source AND r.session_id = sessions.session_id)
		AND NOT EXISTS (SELECT 1 FROM tool_calls t WHERE t.source = sessions.source AND t.session_id = sessions.session_id)`)
	return err
}

// collect adds the tool calls (source, call id) that query returns to
// the batch's calls to settle.
func (w *writer) collect(tx *sql.Tx, query string, args ...any) error {
	rows, err := tx.Query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var src, id string
		if err := rows.Scan(&src, &id); err != nil {
			return err
		}
		w.affected[src+"\x00"+id] = true
	}
	return rows.Err()
}

const insertRequest = `INSERT INTO requests (source, session_id, agent_id, sidechain, file_id, line, ts, model, project, message_id, request_id,
	input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, web_search, web_fetch, speed, cost_usd, dedup_session, copied)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const updateRequest = `UPDATE requests SET source = ?, session_id = ?, agent_id = ?, sidechain = ?, file_id = ?, line = ?, ts = ?, model = ?,
	project = ?, message_id = ?, request_id = ?, input = ?, output = ?, cache_write_5m = ?, cache_write_1h = ?, cache_read = ?,
	reasoning = ?, web_search = ?, web_fetch = ?, speed = ?, cost_usd = ?, dedup_session = ?, copied = ? WHERE id = ?`

const upsertTool = `INSERT INTO tool_calls (source, session_id, call_id, agent_id, sidechain, name, tool, server, plugin, builtin, project,
	call_ts, result_ts, result_tokens, result_bytes, non_text, estimated_tokens, is_error, spilled, args_hash,
	call_file_id, call_line, result_file_id, result_line, duration_ms, message_id, request_id, dedup_session, origin, copied)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (source, session_id, call_id) DO UPDATE SET
	agent_id = coalesce(excluded.agent_id, agent_id), sidechain = coalesce(excluded.sidechain, sidechain),
	name = coalesce(excluded.name, name), tool = coalesce(excluded.tool, tool),
	server = CASE WHEN excluded.call_file_id IS NOT NULL THEN excluded.server ELSE server END,
	plugin = CASE WHEN excluded.call_file_id IS NOT NULL THEN excluded.plugin ELSE plugin END,
	builtin = coalesce(excluded.builtin, builtin), project = coalesce(excluded.project, project),
	call_ts = coalesce(excluded.call_ts, call_ts), result_ts = coalesce(excluded.result_ts, result_ts),
	result_tokens = coalesce(excluded.result_tokens, result_tokens), result_bytes = coalesce(excluded.result_bytes, result_bytes),
	non_text = coalesce(excluded.non_text, non_text), estimated_tokens = coalesce(excluded.estimated_tokens, estimated_tokens),
	is_error = coalesce(excluded.is_error, is_error), spilled = coalesce(excluded.spilled, spilled),
	args_hash = coalesce(excluded.args_hash, args_hash),
	call_file_id = coalesce(excluded.call_file_id, call_file_id), call_line = coalesce(excluded.call_line, call_line),
	result_file_id = coalesce(excluded.result_file_id, result_file_id), result_line = coalesce(excluded.result_line, result_line),
	duration_ms = CASE WHEN excluded.result_file_id IS NOT NULL THEN excluded.duration_ms ELSE duration_ms END,
	message_id = CASE WHEN excluded.call_file_id IS NOT NULL THEN excluded.message_id ELSE message_id END,
	request_id = CASE WHEN excluded.call_file_id IS NOT NULL THEN excluded.request_id ELSE request_id END,
	dedup_session = CASE WHEN excluded.call_file_id IS NOT NULL THEN excluded.dedup_session ELSE dedup_session END,
	origin = coalesce(origin, excluded.origin),
	copied = CASE WHEN excluded.call_file_id IS NOT NULL THEN excluded.copied & 1 ELSE copied & 1 END |
		CASE WHEN excluded.result_file_id IS NOT NULL THEN excluded.copied & 2 ELSE copied & 2 END`

const upsertSession = `INSERT INTO sessions (source, session_id, project, first_ts, last_ts, file_id) VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (source, session_id) DO UPDATE SET
	project = CASE WHEN project = '' OR (excluded.file_id IS NOT NULL AND excluded.project <> '' AND file_id IS NULL) THEN excluded.project ELSE project END,
	first_ts = coalesce(min(first_ts, excluded.first_ts), first_ts, excluded.first_ts),
	last_ts = coalesce(max(last_ts, excluded.last_ts), last_ts, excluded.last_ts),
	file_id = coalesce(file_id, excluded.file_id)`

// write stores a batch's records; it returns the new requests and the
// duplicates merged.
func (w *writer) write(tx *sql.Tx, fileID int64, b *batch) (newReqs, dups int, err error) {
	ins, err := w.stmt(tx, insertRequest)
	if err != nil {
		return 0, 0, err
	}
	defer ins.Close()
	upd, err := w.stmt(tx, updateRequest)
	if err != nil {
		return 0, 0, err
	}
	defer upd.Close()

	var sp spans
	// Requests are inserted at the end of the batch, so that the copies of
	// a message within the batch cost no update.
	var pending []*pendingRequest
	for _, lr := range b.recs {
		rec := lr.rec
		t := rec.Time.UnixMilli()
		if rec.LimitReset != 0 {
			if err := w.writeLimit(tx, fileID, b, lr); err != nil {
				return 0, 0, err
			}
			if rec.Request == nil && rec.Compaction == nil {
				continue // a placeholder alone: no part of its session's span
			}
		}
		if rec.Copied {
			sp.note(rec.SessionID, rec.Cwd) // its time counts where it is kept (see Sessions)
		} else {
			sp.touch(rec.SessionID, rec.Cwd, t)
		}
		if err := w.writeCompaction(tx, fileID, b, lr); err != nil {
			return 0, 0, err
		}
		if rec.Request == nil {
			continue
		}
		p, dup, err := w.addRequest(tx, upd, fileID, b, lr)
		if err != nil {
			return 0, 0, err
		}
		if dup {
			dups++
			continue
		}
		pending = append(pending, p)
		newReqs++
	}
	if err := w.insertPending(ins, pending); err != nil {
		return 0, 0, err
	}
	if err := w.writeToolCalls(tx, fileID, b, &sp); err != nil {
		return 0, 0, err
	}
	if err := w.settleAll(tx); err != nil {
		return 0, 0, err
	}
	if err := w.writeSessions(tx, fileID, b, &sp); err != nil {
		return 0, 0, err
	}
	return newReqs, dups, nil
}

// spans are the sessions a batch touches, in the order it first touches
// them, each with its project and time span.
type spans struct {
	m     map[string]*span
	order []string
}

type span struct {
	project     string
	timed       bool // first and last are set
	first, last int64
}

// touch adds a line of session id, run in folder cwd, at time t.
func (s *spans) touch(id, cwd string, t int64) {
	sp := s.note(id, cwd)
	if !sp.timed {
		sp.first, sp.last, sp.timed = t, t, true
	}
	sp.first, sp.last = min(sp.first, t), max(sp.last, t)
}

// note adds a line of session id, run in folder cwd, whose time is not
// the session's own (a line copied from another session).
func (s *spans) note(id, cwd string) *span {
	if s.m == nil {
		s.m = map[string]*span{}
	}
	sp := s.m[id]
	if sp == nil {
		sp = &span{}
		s.m[id] = sp
		s.order = append(s.order, id)
	}
	if sp.project == "" {
		sp.project = cwd
	}
	return sp
}

// writeCompaction stores the compaction a line records, if any.
func (w *writer) writeCompaction(tx *sql.Tx, fileID int64, b *batch, lr lineRec) error {
	rec, c := lr.rec, lr.rec.Compaction
	if c == nil {
		return nil
	}
	_, err := w.exec(tx, `INSERT OR IGNORE INTO compactions (source, session_id, agent_id, file_id, line, ts, trigger, pre_tokens, copied) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		string(b.job.file.Source), rec.SessionID, rec.AgentID, fileID, lr.line, rec.Time.UnixMilli(), c.Trigger, c.PreTokens, rec.Copied)
	return err
}

// writeLimit stores the usage-limit placeholder a line is.
func (w *writer) writeLimit(tx *sql.Tx, fileID int64, b *batch, lr lineRec) error {
	_, err := w.exec(tx, `INSERT OR IGNORE INTO usage_limits (source, session_id, file_id, line, ts, reset_ts) VALUES (?, ?, ?, ?, ?, ?)`,
		string(b.job.file.Source), lr.rec.SessionID, fileID, lr.line, lr.rec.Time.UnixMilli(), lr.rec.LimitReset)
	return err
}

// addRequest de-duplicates the request of a line against the stored ones
// and those of the batch. A copy of a stored request (dup) replaces it
// when it is the better copy; a new request is returned, to be inserted
// at the end of the batch.
func (w *writer) addRequest(tx *sql.Tx, upd *sql.Stmt, fileID int64, b *batch, lr lineRec) (p *pendingRequest, dup bool, err error) {
	rec, q := lr.rec, lr.rec.Request
	src, t, u := string(b.job.file.Source), rec.Time.UnixMilli(), q.Usage
	dedupSession := ""
	if q.MessageID != "" && q.RequestID == "" {
		dedupSession = q.Session
	}
	args := []any{src, rec.SessionID, rec.AgentID, rec.Sidechain, fileID, lr.line, t, q.Model, rec.Cwd, q.MessageID, q.RequestID,
		u.Input, u.Output, u.CacheWrite5m, u.CacheWrite1h, u.CacheRead, u.Reasoning, u.WebSearch, u.WebFetch, q.Speed, q.CostUSD, dedupSession, rec.Copied}
	if q.MessageID == "" {
		return &pendingRequest{args: args}, false, nil
	}
	if err := w.loadDedup(tx); err != nil {
		return nil, false, err
	}
	key := w.key(src, q.MessageID)
	entries, err := w.entries(tx, key, src, q.MessageID)
	if err != nil {
		return nil, false, err
	}
	entry := dedupEntry{requestID: w.hash(q.RequestID)}
	if q.RequestID == "" {
		entry.session, entry.ts = w.hash(q.Session), t
	}
	cand := dedupSlot{session: w.intern(rec.SessionID), sidechain: rec.Sidechain, total: u.Total(), speed: q.Speed != "", path: w.intern(b.job.file.Path), line: lr.line}
	var match *dedupSlot
	for _, e := range entries {
		if e.matches(q, entry.requestID, entry.session, t) {
			match = e.slot
			break
		}
	}
	if match == nil {
		for _, e := range entries {
			if rec.Sidechain || e.slot.sidechain {
				match = e.slot
				entry.slot = match
				w.dedup[key] = append(entries, entry)
				break
			}
		}
	}
	if match != nil {
		if cand.better(match) {
			if match.pending != nil {
				match.pending.args = args
			} else if _, err := upd.Exec(append(args, match.id)...); err != nil {
				return nil, true, err
			}
			if match.session != cand.session {
				w.moved[src+"\x00"+q.MessageID] = true // its tool calls follow it
			}
			match.session, match.sidechain, match.total, match.speed, match.path, match.line = cand.session, cand.sidechain, cand.total, cand.speed, cand.path, cand.line
		}
		return nil, true, nil
	}
	slot := &cand
	slot.pending = &pendingRequest{args: args, slot: slot, key: key}
	entry.slot = slot
	w.dedup[key] = append(entries, entry)
	w.known.add(key)
	return slot.pending, false, nil
}

// insertPending inserts a batch's new requests, in the order they were
// first seen, and gives each de-duplication slot its row id.
func (w *writer) insertPending(ins *sql.Stmt, pending []*pendingRequest) error {
	for _, p := range pending {
		res, err := ins.Exec(p.args...)
		if err != nil {
			return err
		}
		if p.slot != nil {
			if p.slot.id, err = res.LastInsertId(); err != nil {
				return err
			}
			p.slot.pending = nil
			w.addOwn(p.key, p.slot.id)
		}
	}
	return nil
}

// writeToolCalls stores the tool calls and results of a batch, each
// merged with the half of it stored before, and adds their sessions to sp.
func (w *writer) writeToolCalls(tx *sql.Tx, fileID int64, b *batch, sp *spans) error {
	if len(b.callOrder) == 0 {
		return nil
	}
	if err := w.loadCopied(tx); err != nil {
		return err
	}
	up, err := w.stmt(tx, upsertTool)
	if err != nil {
		return err
	}
	defer up.Close()
	for _, id := range b.callOrder {
		c := b.calls[id]
		var (
			agent, name, tool, server, plugin, project                      any
			sidechain, builtin, callTS, callFile, callLine, argsHash        any
			resultTS, tokens, nbytes, nonText, est, isErr, spilled, resFile any
			resLine, duration, msg, req, dsess                              any
			copied                                                          int
		)
		if c.hasCall {
			agent, sidechain, name, tool, plugin, builtin = c.agent, c.sidechain, c.name, c.tool, nullIf(c.plugin), c.builtin
			server = nullIf(c.server)
			callTS, callFile, callLine, argsHash = c.callTS, fileID, c.callLine, c.argsHash
			msg, req, dsess = nullIf(c.messageID), c.requestID, c.dedupSession
			if c.callCopied {
				copied |= 1
			}
		}
		if c.project != "" {
			project = c.project
		}
		if c.hasResult {
			resultTS, tokens, nbytes, nonText, est = c.resultTS, c.tokens, c.bytes, c.nonText, c.est
			isErr, spilled, resFile, resLine = c.isError, c.spilled, fileID, c.resultLine
			if c.durationMs != nil {
				duration = *c.durationMs
			}
			if c.resultCopied {
				copied |= 2
			}
		}
		if _, err := up.Exec(c.source, c.session, c.callID, agent, sidechain, name, tool, server, plugin, builtin, project,
			callTS, resultTS, tokens, nbytes, nonText, est, isErr, spilled, argsHash, callFile, callLine, resFile, resLine, duration,
			msg, req, dsess, nullIf(c.origin), copied); err != nil {
			return err
		}
		sp.note(c.session, c.project)
		if c.hasCall && !c.callCopied {
			sp.touch(c.session, c.project, c.callTS)
		}
		if c.hasResult && !c.resultCopied {
			sp.touch(c.session, c.project, c.resultTS)
		}
		key := c.source + "\x00" + c.callID
		if copied != 0 {
			w.copiedIDs[key] = true
		}
		if w.copiedIDs[key] {
			w.affected[key] = true
		}
	}
	return nil
}

// writeSessions stores the sessions a batch touched: their project and
// span, and the file that is the session's own (a Claude Code session's
// main file; any Codex file).
func (w *writer) writeSessions(tx *sql.Tx, fileID int64, b *batch, sp *spans) error {
	main := b.job.file.AgentID == ""
	for _, id := range sp.order {
		s := sp.m[id]
		var file, first, last any
		if main && b.job.file.Source == transcript.Claude && id == b.job.file.SessionID {
			file = fileID
		}
		if b.job.file.Source == transcript.Codex {
			file = fileID
		}
		if s.timed {
			first, last = s.first, s.last
		}
		if _, err := w.exec(tx, upsertSession, string(b.job.file.Source), id, s.project, first, last, file); err != nil {
			return err
		}
	}
	return nil
}

func nullIf(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// dedupCache is how many message ids the writer's cache holds before it
// starts again (see writer.dedup): about 3 MB of entries. filterKeys is
// the fewest keys a filter is made for. (Variables for the tests.)
var dedupCache, filterKeys = 1 << 14, 1 << 14

// loadDedup notes the stored requests' message ids in the filter, once
// per ingest (and again after a transaction was rolled back).
func (w *writer) loadDedup(tx *sql.Tx) error {
	if w.loaded {
		return nil
	}
	w.dedup = map[dedupKey][]dedupEntry{}
	w.paths = map[string]string{}
	w.seeds = [3]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed(), maphash.MakeSeed()}
	var n int
	if w.own == nil && w.first {
		// A first ingest that stopped keeping its own index looks copies up
		// by requests_message from now on.
		if _, err := tx.Exec(messagesIndex.create); err != nil {
			return err
		}
	}
	if err := tx.QueryRow(`SELECT count(*) FROM requests WHERE message_id <> ''`).Scan(&n); err != nil {
		return err
	}
	if err := w.fillFilter(tx, n); err != nil {
		return err
	}
	w.loaded = true
	return nil
}

// ownKeys is how many message ids, at most, the writer's own index holds
// (see writer.own): about 10 MB. (A variable for the tests.)
var ownKeys = 1 << 18

// addOwn notes in the writer's own index that row id holds a request of
// the message id whose key is key.
func (w *writer) addOwn(key dedupKey, id int64) {
	if w.own == nil {
		return
	}
	first, ok := w.own[key]
	switch {
	case !ok:
		w.own[key] = id
	case first != id && !slices.Contains(w.ownMore[key], id):
		w.ownMore[key] = append(w.ownMore[key], id)
	}
}

// leaveOwn stops the writer's own index, between two batches: the next
// look-up builds requests_message and reads the store (see loadDedup).
func (w *writer) leaveOwn() {
	if w.own != nil {
		w.own, w.ownMore, w.loaded = nil, nil, false
	}
}

// ownEntries are the stored requests of a message id by the writer's own
// index (see writer.own), read back by their row ids in the order of
// those ids, as entriesQuery reads them.
func (w *writer) ownEntries(tx *sql.Tx, key dedupKey, src, msg string) ([]dedupEntry, error) {
	first, ok := w.own[key]
	if !ok {
		return nil, nil
	}
	ids := append([]int64{first}, w.ownMore[key]...)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	st, err := w.stmt(tx, ownEntryQuery)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var es []dedupEntry
	for _, id := range ids {
		rows, err := st.Query(id, src, msg)
		if err != nil {
			return nil, err
		}
		if es, err = w.scanEntries(rows, es); err != nil {
			return nil, err
		}
	}
	return es, nil
}

// ownEntryQuery reads the stored request of a row id (?1) when it is of
// source ?2 and message id ?3, as entriesQuery reads it.
const ownEntryQuery = `SELECT r.id, r.session_id, r.request_id, r.dedup_session, r.ts, r.sidechain,
		r.input + r.output + r.cache_write_5m + r.cache_write_1h + r.cache_read, r.speed <> '', f.path, r.line
	FROM requests r JOIN files f ON f.id = r.file_id WHERE r.id = ?1 AND r.source = ?2 AND r.message_id = ?3`

// fillFilter makes the filter anew, for n keys and as many again, from
// the stored requests' message ids and the cache's.
func (w *writer) fillFilter(tx *sql.Tx, n int) error {
	w.known = newKeyFilter(2*n + len(w.dedup))
	rows, err := tx.Query(`SELECT source, message_id FROM requests WHERE message_id <> ''`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var src, msg string
		if err := rows.Scan(&src, &msg); err != nil {
			return err
		}
		w.known.add(w.key(src, msg))
	}
	for key := range w.dedup {
		w.known.add(key)
	}
	return rows.Err()
}

// startBatch empties the cache when it holds more than dedupCache
// message ids, between two batches (whose rows the store then holds, in
// the transaction that wrote them).
func (w *writer) startBatch() {
	if w.loaded && len(w.dedup) > dedupCache {
		w.dedup = map[dedupKey][]dedupEntry{}
		w.paths = map[string]string{}
	}
}

// entries are the stored requests of a message id (key is its hash):
// from the cache, else from the store when the filter says it may hold
// them, which then go into the cache.
func (w *writer) entries(tx *sql.Tx, key dedupKey, src, msg string) ([]dedupEntry, error) {
	if es, ok := w.dedup[key]; ok {
		return es, nil
	}
	if w.own != nil {
		es, err := w.ownEntries(tx, key, src, msg)
		if err == nil && es != nil {
			w.dedup[key] = es
		}
		return es, err
	}
	if !w.known.has(key) {
		return nil, nil
	}
	if w.known.full() {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM requests WHERE message_id <> ''`).Scan(&n); err != nil {
			return nil, err
		}
		if err := w.fillFilter(tx, n); err != nil {
			return nil, err
		}
	}
	st, err := w.stmt(tx, entriesQuery)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rows, err := st.Query(src, msg)
	if err != nil {
		return nil, err
	}
	es, err := w.scanEntries(rows, nil)
	if err != nil {
		return nil, err
	}
	if es != nil {
		w.dedup[key] = es
	}
	return es, nil
}

// scanEntries appends to es the stored requests rows holds (as
// entriesQuery reads them), and closes rows.
func (w *writer) scanEntries(rows *sql.Rows, es []dedupEntry) ([]dedupEntry, error) {
	defer rows.Close()
	for rows.Next() {
		var (
			slot                           dedupSlot
			e                              dedupEntry
			reqID, session, path, session2 string
		)
		if err := rows.Scan(&slot.id, &session2, &reqID, &session, &e.ts, &slot.sidechain, &slot.total, &slot.speed, &path, &slot.line); err != nil {
			return nil, err
		}
		slot.path, slot.session = w.intern(path), w.intern(session2)
		e.requestID, e.session, e.slot = w.hash(reqID), w.hash(session), &slot
		if reqID != "" {
			e.session, e.ts = 0, 0
		}
		es = append(es, e)
	}
	return es, rows.Err()
}

// entriesQuery reads the stored requests of a source (?1) and message
// id (?2, never empty) through requests_message (see
// TestEntriesQueryPlan). That index is partial (of non-empty message ids),
// and SQLite uses it only when the query's WHERE says as much: without
// the term, it reads every request of the source (every request at all
// in a first ingest, which drops requests_session), so that a store
// lookup cost time in proportion to the store, and the lookups of an
// ingest, which grow with it too (the filter's false positives), made
// it quadratic.
const entriesQuery = `SELECT r.id, r.session_id, r.request_id, r.dedup_session, r.ts, r.sidechain,
		r.input + r.output + r.cache_write_5m + r.cache_write_1h + r.cache_read, r.speed <> '', f.path, r.line
	FROM requests r JOIN files f ON f.id = r.file_id WHERE r.source = ?1 AND r.message_id = ?2 AND r.message_id <> ''
	ORDER BY r.id`

// forget drops from the cache the requests whose kept copy is in the
// file at path, which clearFile has just deleted.
func (w *writer) forget(path string) {
	if !w.loaded {
		return
	}
	for key, es := range w.dedup {
		entries := es[:0]
		for _, e := range es {
			if e.slot.path != path {
				entries = append(entries, e)
			}
		}
		if len(entries) == 0 {
			delete(w.dedup, key)
		} else {
			w.dedup[key] = entries
		}
	}
}

// keyFilter is a Bloom filter of message ids (their dedupKey): has is
// false for a key never added, and true for one added (and for about one
// in 150 of the others, which then cost a look in the store). It holds
// 12 bits a key, up to capacity keys.
type keyFilter struct {
	bits     []uint64
	n, limit int
}

func newKeyFilter(capacity int) keyFilter {
	capacity = max(capacity, filterKeys)
	return keyFilter{bits: make([]uint64, (capacity*12+63)/64), limit: capacity}
}

// probes are where a key's bits are.
const probes = 6

func (f *keyFilter) add(k dedupKey) {
	if f.bits == nil {
		return
	}
	m := uint64(len(f.bits)) * 64
	for i := range uint64(probes) {
		b := (k[0] + i*(k[1]|1)) % m
		f.bits[b/64] |= 1 << (b % 64)
	}
	f.n++
}

func (f *keyFilter) has(k dedupKey) bool {
	m := uint64(len(f.bits)) * 64
	if m == 0 {
		return false
	}
	for i := range uint64(probes) {
		b := (k[0] + i*(k[1]|1)) % m
		if f.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// full reports whether the filter holds more keys than it was made for.
func (f *keyFilter) full() bool { return f.n > f.limit }

// loadCopied reads which tool calls have a row with a copied line, once
// per ingest (and again after a transaction was rolled back).
func (w *writer) loadCopied(tx *sql.Tx) error {
	if w.copiedIDs != nil {
		return nil
	}
	w.copiedIDs = map[string]bool{}
	rows, err := tx.Query(`SELECT source, call_id FROM tool_calls WHERE copied <> 0`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var src, id string
		if err := rows.Scan(&src, &id); err != nil {
			return err
		}
		w.copiedIDs[src+"\x00"+id] = true
	}
	return rows.Err()
}

// settleAll settles the tool calls the batch touched that have copies,
// and those of the requests whose kept copy moved to another session, in
// a fixed order.
func (w *writer) settleAll(tx *sql.Tx) error {
	if len(w.moved) > 0 {
		moved := make([]string, 0, len(w.moved))
		for k := range w.moved {
			moved = append(moved, k)
		}
		sort.Strings(moved)
		for _, k := range moved {
			src, msg, _ := strings.Cut(k, "\x00")
			if err := w.collect(tx, `SELECT source, call_id FROM tool_calls WHERE source = ? AND message_id = ? AND copied <> 0`, src, msg); err != nil {
				return err
			}
		}
	}
	if len(w.affected) == 0 {
		return nil
	}
	if err := w.loadDedup(tx); err != nil {
		return err
	}
	keys := make([]string, 0, len(w.affected))
	for k := range w.affected {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		src, id, _ := strings.Cut(k, "\x00")
		if err := w.settle(tx, src, id); err != nil {
			return err
		}
	}
	return nil
}

// settleQuery reads the rows settle decides between: those of a call
// (source ?1, call id ?2) that hold a copied line, and those of the
// sessions the copied call lines name. It finds them through indexes
// alone (tool_calls_copied, then the origin's row by its unique key; see
// TestSettleQueryPlan): an ingest settles every copied call it writes,
// so a scan of the source's calls here makes a file of copied calls
// quadratic in its calls.
const settleQuery = `SELECT t.id, t.session_id, t.call_file_id IS NOT NULL, t.copied & 2 <> 0, coalesce(t.message_id, ''),
		coalesce(t.request_id, ''), coalesce(t.dedup_session, ''), coalesce(t.call_ts, 0), coalesce(t.sidechain, 0),
		coalesce(f.path, ''), coalesce(t.call_line, 0), t.lost
	FROM tool_calls t LEFT JOIN files f ON f.id = t.call_file_id
	WHERE t.id IN (SELECT id FROM tool_calls WHERE source = ?1 AND call_id = ?2 AND copied <> 0
		UNION SELECT c.id FROM tool_calls o JOIN tool_calls c ON c.source = o.source AND c.session_id = o.origin AND c.call_id = o.call_id
		WHERE o.source = ?1 AND o.call_id = ?2 AND o.copied <> 0 AND o.origin IS NOT NULL)
	ORDER BY t.session_id`

// toolCopy is a stored row of a tool call, as settle sees it.
type toolCopy struct {
	id                 int64
	session            string
	hasCall, resCopied bool
	msg, req, dsess    string
	ts                 int64
	sidechain          bool
	path               string
	line               int
	lost               bool
}

// settle decides which copy of a tool call counts, among the rows that
// hold a copied line of it and the rows of the sessions those lines were
// copied from. Copies are the rows whose call lines carry the same request
// (message id and request id; without a request id, also the session the
// line names and its time): of those, the row in the session whose copy
// of the request is kept counts, so that a call is where its request is;
// when none is there (that request is not stored, or its kept copy's
// session has no copy of the call), the row outside a sidechain, then
// the first in path order, then by line, as for requests. A row that
// holds only a copied result counts only when no row holds a call of
// that id. Every other copy is lost: not counted, and not in its
// session's span.
func (w *writer) settle(tx *sql.Tx, src, callID string) error {
	st, err := w.stmt(tx, settleQuery)
	if err != nil {
		return err
	}
	rows, err := st.Query(src, callID)
	if err != nil {
		return err
	}
	var all []*toolCopy
	for rows.Next() {
		c := &toolCopy{}
		if err := rows.Scan(&c.id, &c.session, &c.hasCall, &c.resCopied, &c.msg, &c.req, &c.dsess, &c.ts, &c.sidechain, &c.path, &c.line, &c.lost); err != nil {
			rows.Close()
			return err
		}
		all = append(all, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	lost := map[int64]bool{}
	classes := map[string][]*toolCopy{}
	var order []string
	anyCall := false
	for _, c := range all {
		anyCall = anyCall || c.hasCall
		if !c.hasCall || c.msg == "" {
			continue
		}
		key := c.msg + "\x00" + c.req
		if c.req == "" {
			key += "\x00" + c.dsess + "\x00" + strconv.FormatInt(c.ts, 10)
		}
		if classes[key] == nil {
			order = append(order, key)
		}
		classes[key] = append(classes[key], c)
	}
	for _, c := range all {
		lost[c.id] = !c.hasCall && c.resCopied && anyCall
	}
	for _, key := range order {
		class := classes[key]
		first := class[0]
		kept, err := w.keptSession(tx, src, first.msg, first.req, first.dsess, first.ts)
		if err != nil {
			return err
		}
		var win *toolCopy
		for _, c := range class {
			if kept != "" && c.session == kept {
				win = c
				break
			}
		}
		if win == nil {
			for _, c := range class {
				if win == nil || c.before(win) {
					win = c
				}
			}
		}
		for _, c := range class {
			lost[c.id] = c != win
		}
	}
	for _, c := range all {
		if lost[c.id] != c.lost {
			if _, err := w.exec(tx, `UPDATE tool_calls SET lost = ? WHERE id = ?`, lost[c.id], c.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// before orders copies where no kept request decides: outside a
// sidechain first, then by path and line (and session, for lines of one
// file).
func (c *toolCopy) before(k *toolCopy) bool {
	switch {
	case c.sidechain != k.sidechain:
		return k.sidechain
	case c.path != k.path:
		return c.path < k.path
	case c.line != k.line:
		return c.line < k.line
	}
	return c.session < k.session
}

// keptSession is the session of the kept copy of the request with these
// ids (see dedupEntry), or "" when none is stored.
func (w *writer) keptSession(tx *sql.Tx, src, msg, req, dsess string, ts int64) (string, error) {
	reqID, session := w.hash(req), w.hash(dsess)
	es, err := w.entries(tx, w.key(src, msg), src, msg)
	if err != nil {
		return "", err
	}
	for _, e := range es {
		if e.requestID == reqID && (req != "" || (e.session == session && e.ts == ts)) {
			return e.slot.session, nil
		}
	}
	return "", nil
}

// fileWarning is a warning of a file read, with where it sorts.
type fileWarning struct {
	path string
	seq  int
	msg  string
}

// keepWarning keeps msg, the next warning of j's file, when it is among
// the first MaxWarnings (less those listed before the files were read) in
// the order of the files' paths, then of each file's lines.
func (w *writer) keepWarning(j *job, msg string) {
	if w.warnSeq == nil {
		w.warnSeq = map[*job]int{}
	}
	fw := fileWarning{path: j.file.Path, seq: w.warnSeq[j], msg: msg}
	w.warnSeq[j]++
	room := w.o.MaxWarnings - len(w.st.Warnings)
	if room <= 0 {
		return
	}
	i := sort.Search(len(w.fileWarns), func(i int) bool { return fileWarnLess(fw, w.fileWarns[i]) })
	if i >= room {
		return
	}
	w.fileWarns = slices.Insert(w.fileWarns, i, fw)
	if len(w.fileWarns) > room {
		w.fileWarns = w.fileWarns[:room]
	}
}

func fileWarnLess(a, b fileWarning) bool {
	if a.path != b.path {
		return a.path < b.path
	}
	return a.seq < b.seq
}

// listWarnings adds the kept warnings of the files read to the stats.
func (w *writer) listWarnings() {
	for _, fw := range w.fileWarns {
		w.st.warn(w.o.MaxWarnings, fw.msg)
	}
	w.fileWarns = nil
}
