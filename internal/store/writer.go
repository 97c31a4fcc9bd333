package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
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

	// dedup indexes stored requests by message id, loaded on first need:
	// by a hash of the source and message id (see dedupKey), and each
	// entry by hashes of its request id and session, so that the index
	// holds no copy of those strings.
	dedup  map[dedupKey][]dedupEntry
	seeds  [3]maphash.Seed
	loaded bool
	// byFile lists, for each file, the dedup keys whose kept copy is or
	// was in it, so that a file read again from the top drops its own
	// entries instead of the whole index being loaded again.
	byFile map[string][]dedupKey
	// paths interns the files' paths the index names.
	paths map[string]string
	gens  map[*job]int64 // each job's file generation after its first batch

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
}

// errRaced means another process moved the file's offset: this batch's
// lines are already counted.
var errRaced = errors.New("raced")

func (w *writer) apply(ctx context.Context, b *batch) error {
	if w.gens == nil {
		w.gens = map[*job]int64{}
	}
	for _, msg := range b.warnings {
		w.st.warn(w.o.MaxWarnings, msg)
	}
	w.st.Corrupt += b.corrupt
	w.st.UsageSkipped += b.skipped
	if b.failed {
		return nil // the file could not be read at all; it is tried again next time
	}
	newRequests, dups := 0, 0
	err := w.s.tx(ctx, func(tx *sql.Tx) error {
		now := time.Now()
		if _, err := w.exec(tx, `UPDATE ingest_lock SET expires_at = ? WHERE id = 1 AND owner = ?`, now.Add(leaseTime).UnixMilli(), w.owner); err != nil {
			return err
		}
		j := b.job
		var id, off, gen int64
		row, err := w.queryRow(tx, `SELECT id, offset, generation FROM files WHERE path = ?`, j.file.Path)
		if err != nil {
			return err
		}
		err = row.Scan(&id, &off, &gen)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if !b.first || j.row != nil {
				return errRaced
			}
			row, err := w.queryRow(tx, `INSERT INTO files (path, source, session_id, agent_id) VALUES (?, ?, ?, ?) RETURNING id`,
				j.file.Path, string(j.file.Source), j.file.SessionID, j.file.AgentID)
			if err != nil {
				return err
			}
			if err := row.Scan(&id); err != nil {
				return err
			}
		case err != nil:
			return err
		case b.first && (j.row == nil || j.row.id != id || j.row.offset != off || j.row.generation != gen):
			return errRaced
		case !b.first && (off != b.fromOffset || gen != w.gens[j]):
			return errRaced
		}
		if b.reset {
			if err := w.clearFile(tx, id); err != nil {
				return err
			}
			gen++
			w.forget(j.file.Path)
		}
		n, d, err := w.write(tx, id, b)
		if err != nil {
			return err
		}
		newRequests, dups = n, d
		size, mtime := int64(-1), int64(-1)
		if b.last {
			size, mtime = j.size, j.mtime
		}
		_, err = w.exec(tx, `UPDATE files SET size = ?, mtime_ns = ?, offset = ?, lines = ?, head_hash = ?, tail_start = ?, tail_hash = ?,
			edge_hash = ?, state = ?, corrupt = corrupt + ?, generation = ?, ingested_at = ?, reader = ? WHERE id = ?`,
			size, mtime, b.offset, b.lines, b.headHash, b.tailStart, b.tailHash, b.edgeHash, b.state, b.corrupt, gen, now.UnixMilli(), readerVersion, id)
		w.gens[j] = gen
		return err
	})
	if errors.Is(err, errRaced) {
		w.st.Busy++
		b.job.abort.Store(true)
		w.loaded = false // the in-memory index may hold rows that were rolled back
		return nil
	}
	if err != nil {
		w.loaded = false
		return fmt.Errorf("writing %s: %w", b.job.file.Path, err)
	}
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
	return nil
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
	if _, err := tx.Exec(`INSERT INTO temp.cleared SELECT source, session_id FROM requests WHERE file_id = ?1
		UNION SELECT source, session_id FROM tool_calls WHERE call_file_id = ?1 OR result_file_id = ?1
		UNION SELECT source, session_id FROM compactions WHERE file_id = ?1
		UNION SELECT source, session_id FROM sessions WHERE file_id = ?1`, id); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM requests WHERE file_id = ?`,
		`DELETE FROM compactions WHERE file_id = ?`,
		`UPDATE tool_calls SET agent_id = NULL, sidechain = NULL, name = NULL, tool = NULL, server = NULL, plugin = NULL, builtin = NULL,
			call_ts = NULL, args_hash = NULL, call_file_id = NULL, call_line = NULL WHERE call_file_id = ?`,
		`UPDATE tool_calls SET result_ts = NULL, result_tokens = NULL, result_bytes = NULL, non_text = NULL, estimated_tokens = NULL,
			is_error = NULL, spilled = NULL, duration_ms = NULL, result_file_id = NULL, result_line = NULL WHERE result_file_id = ?`,
		`DELETE FROM tool_calls WHERE call_file_id IS NULL AND result_file_id IS NULL`,
		`UPDATE sessions SET file_id = NULL WHERE file_id = ?1`,
	} {
		if _, err := tx.Exec(q, id); err != nil {
			return err
		}
	}
	_, err := tx.Exec(`WITH spans AS (
			SELECT source, session_id, min(t) AS first, max(t) AS last FROM (
				SELECT source, session_id, ts AS t FROM requests
				UNION ALL SELECT source, session_id, call_ts FROM tool_calls
				UNION ALL SELECT source, session_id, result_ts FROM tool_calls
				UNION ALL SELECT source, session_id, ts FROM compactions
			) WHERE (source, session_id) IN (SELECT source, session_id FROM temp.cleared)
			GROUP BY source, session_id)
		UPDATE sessions SET
			first_ts = (SELECT first FROM spans WHERE spans.source = sessions.source AND spans.session_id = sessions.session_id),
			last_ts = (SELECT last FROM spans WHERE spans.source = sessions.source AND spans.session_id = sessions.session_id)
		WHERE (source, session_id) IN (SELECT source, session_id FROM temp.cleared)`)
	if err != nil {
		return err
	}
	_, err = tx.Exec(`DELETE FROM sessions WHERE first_ts IS NULL`)
	return err
}

const insertRequest = `INSERT INTO requests (source, session_id, agent_id, sidechain, file_id, line, ts, model, project, message_id, request_id,
	input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, web_search, web_fetch, speed, cost_usd, dedup_session)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const updateRequest = `UPDATE requests SET source = ?, session_id = ?, agent_id = ?, sidechain = ?, file_id = ?, line = ?, ts = ?, model = ?,
	project = ?, message_id = ?, request_id = ?, input = ?, output = ?, cache_write_5m = ?, cache_write_1h = ?, cache_read = ?,
	reasoning = ?, web_search = ?, web_fetch = ?, speed = ?, cost_usd = ?, dedup_session = ? WHERE id = ?`

const upsertTool = `INSERT INTO tool_calls (source, session_id, call_id, agent_id, sidechain, name, tool, server, plugin, builtin, project,
	call_ts, result_ts, result_tokens, result_bytes, non_text, estimated_tokens, is_error, spilled, args_hash,
	call_file_id, call_line, result_file_id, result_line, duration_ms)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
	duration_ms = CASE WHEN excluded.result_file_id IS NOT NULL THEN excluded.duration_ms ELSE duration_ms END`

const upsertSession = `INSERT INTO sessions (source, session_id, project, first_ts, last_ts, file_id) VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (source, session_id) DO UPDATE SET
	project = CASE WHEN project = '' OR (excluded.file_id IS NOT NULL AND excluded.project <> '' AND file_id IS NULL) THEN excluded.project ELSE project END,
	first_ts = min(coalesce(first_ts, excluded.first_ts), excluded.first_ts),
	last_ts = max(coalesce(last_ts, excluded.last_ts), excluded.last_ts),
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
		sp.touch(rec.SessionID, rec.Cwd, t)
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
	if err := insertPending(ins, pending); err != nil {
		return 0, 0, err
	}
	if err := w.writeToolCalls(tx, fileID, b, &sp); err != nil {
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
	first, last int64
}

// touch adds a line of session id, run in folder cwd, at time t.
func (s *spans) touch(id, cwd string, t int64) {
	if s.m == nil {
		s.m = map[string]*span{}
	}
	sp := s.m[id]
	if sp == nil {
		sp = &span{first: t, last: t}
		s.m[id] = sp
		s.order = append(s.order, id)
	}
	if sp.project == "" {
		sp.project = cwd
	}
	sp.first, sp.last = min(sp.first, t), max(sp.last, t)
}

// writeCompaction stores the compaction a line records, if any.
func (w *writer) writeCompaction(tx *sql.Tx, fileID int64, b *batch, lr lineRec) error {
	rec, c := lr.rec, lr.rec.Compaction
	if c == nil {
		return nil
	}
	_, err := w.exec(tx, `INSERT OR IGNORE INTO compactions (source, session_id, agent_id, file_id, line, ts, trigger, pre_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		string(b.job.file.Source), rec.SessionID, rec.AgentID, fileID, lr.line, rec.Time.UnixMilli(), c.Trigger, c.PreTokens)
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
		u.Input, u.Output, u.CacheWrite5m, u.CacheWrite1h, u.CacheRead, u.Reasoning, u.WebSearch, u.WebFetch, q.Speed, q.CostUSD, dedupSession}
	if q.MessageID == "" {
		return &pendingRequest{args: args}, false, nil
	}
	if err := w.loadDedup(tx); err != nil {
		return nil, false, err
	}
	key := w.key(src, q.MessageID)
	entries := w.dedup[key]
	entry := dedupEntry{requestID: w.hash(q.RequestID)}
	if q.RequestID == "" {
		entry.session, entry.ts = w.hash(q.Session), t
	}
	cand := dedupSlot{sidechain: rec.Sidechain, total: u.Total(), speed: q.Speed != "", path: w.intern(b.job.file.Path), line: lr.line}
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
			if match.path != cand.path {
				w.byFile[cand.path] = append(w.byFile[cand.path], key)
			}
			match.sidechain, match.total, match.speed, match.path, match.line = cand.sidechain, cand.total, cand.speed, cand.path, cand.line
		}
		return nil, true, nil
	}
	slot := &cand
	slot.pending = &pendingRequest{args: args, slot: slot}
	entry.slot = slot
	w.dedup[key] = append(entries, entry)
	w.byFile[cand.path] = append(w.byFile[cand.path], key)
	return slot.pending, false, nil
}

// insertPending inserts a batch's new requests, in the order they were
// first seen, and gives each de-duplication slot its row id.
func insertPending(ins *sql.Stmt, pending []*pendingRequest) error {
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
			resLine, duration                                               any
		)
		if c.hasCall {
			agent, sidechain, name, tool, plugin, builtin = c.agent, c.sidechain, c.name, c.tool, nullIf(c.plugin), c.builtin
			server = nullIf(c.server)
			callTS, callFile, callLine, argsHash = c.callTS, fileID, c.callLine, c.argsHash
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
		}
		if _, err := up.Exec(c.source, c.session, c.callID, agent, sidechain, name, tool, server, plugin, builtin, project,
			callTS, resultTS, tokens, nbytes, nonText, est, isErr, spilled, argsHash, callFile, callLine, resFile, resLine, duration); err != nil {
			return err
		}
		t := c.callTS
		if !c.hasCall {
			t = c.resultTS
		}
		sp.touch(c.session, c.project, t)
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
		var file any
		if main && b.job.file.Source == transcript.Claude && id == b.job.file.SessionID {
			file = fileID
		}
		if b.job.file.Source == transcript.Codex {
			file = fileID
		}
		if _, err := w.exec(tx, upsertSession, string(b.job.file.Source), id, s.project, s.first, s.last, file); err != nil {
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

// loadDedup reads the stored requests' message ids, once per ingest (and
// again after a file was cleared).
func (w *writer) loadDedup(tx *sql.Tx) error {
	if w.loaded {
		return nil
	}
	w.dedup = map[dedupKey][]dedupEntry{}
	w.byFile = map[string][]dedupKey{}
	w.paths = map[string]string{}
	w.seeds = [3]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed(), maphash.MakeSeed()}
	rows, err := tx.Query(`SELECT r.id, r.source, r.message_id, r.request_id, r.dedup_session, r.ts, r.sidechain,
		r.input + r.output + r.cache_write_5m + r.cache_write_1h + r.cache_read, r.speed <> '', f.path, r.line
		FROM requests r JOIN files f ON f.id = r.file_id WHERE r.message_id <> ''`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			slot                           dedupSlot
			e                              dedupEntry
			src, msg, reqID, session, path string
		)
		if err := rows.Scan(&slot.id, &src, &msg, &reqID, &session, &e.ts, &slot.sidechain, &slot.total, &slot.speed, &path, &slot.line); err != nil {
			return err
		}
		slot.path = w.intern(path)
		e.requestID, e.session, e.slot = w.hash(reqID), w.hash(session), &slot
		if reqID != "" {
			e.session, e.ts = 0, 0
		}
		key := w.key(src, msg)
		w.dedup[key] = append(w.dedup[key], e)
		w.byFile[slot.path] = append(w.byFile[slot.path], key)
	}
	w.loaded = true
	return rows.Err()
}

// forget drops from the index the requests whose kept copy is in the file
// at path, which clearFile has just deleted.
func (w *writer) forget(path string) {
	if !w.loaded {
		return
	}
	for _, key := range w.byFile[path] {
		entries := w.dedup[key][:0]
		for _, e := range w.dedup[key] {
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
	delete(w.byFile, path)
}
