package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// A Filter picks the rows of a query: a period, a source and a project.
type Filter struct {
	// Since and Until bound the period, Until excluded; zero is open.
	Since, Until time.Time
	// Source is one transcript source; "" or "all" is every source.
	Source string
	// Project keeps the rows of one project (see [ProjectMatch]); a row
	// that names none is its session's. "" keeps every project.
	Project string
	// Order is the order of the rows.
	Order Order
	// AgentFiles names in each row the older-style sub-agent file
	// (agent-<id>, beside the sessions) that holds it.
	AgentFiles bool
	// Machine keeps the rows ingested on one machine, User those of one
	// OS user ("" keeps every machine, every user). The store's own
	// ingest stores its rows without a machine or user: they are this
	// machine's, and match the names given to [Store.SetSelf]; the rows
	// of a mirror (see [OpenMirror]) name the machine that pushed them.
	// Requests, ToolCalls, Compactions, RequestSums and ToolSums apply
	// them; Sessions and SessionTools do not.
	Machine, User string
	// Machines names in each sum of RequestSums and ToolSums the machine
	// and user its rows come from (RequestSum.Machine, ToolSum.Machine):
	// the sums are then read from the rows, not the rollups.
	Machines bool
	// MCP keeps the calls of MCP servers' tools only (ToolCalls).
	MCP bool
	// NoProject leaves out of RequestSums' sums their projects and
	// sub-agent files (RequestSum.Project and AgentFile are empty), which
	// a report that groups by neither does not read; it is ignored where
	// the filter keeps a project, a machine or a user, or f.Machines.
	NoProject bool
}

// byMachine reports whether f needs the rows' machines or users, which
// the rollups do not keep.
func (f Filter) byMachine() bool { return f.Machine != "" || f.User != "" || f.Machines }

// who returns the SQL conditions (each to be joined with AND) and
// arguments of f's machine and user on a table with machine and os_user
// columns, where the empty string is the store's own ingest (see SetSelf).
func (s *Store) who(f Filter) ([]string, []any) {
	var cond []string
	var args []any
	for _, c := range []struct{ col, want, self string }{{"machine", f.Machine, s.selfMachine}, {"os_user", f.User, s.selfUser}} {
		switch {
		case c.want == "":
		case c.want == c.self:
			cond = append(cond, c.col+" IN ('', ?)")
			args = append(args, c.want)
		default:
			cond = append(cond, c.col+" = ?")
			args = append(args, c.want)
		}
	}
	return cond, args
}

// rowWhere is f.where on a table's time column with f's machine and user
// (see who).
func (s *Store) rowWhere(f Filter, col string) (string, []any) {
	where, args := f.where(col)
	cond, wargs := s.who(f)
	if len(cond) == 0 {
		return where, args
	}
	if where == "" {
		where = " WHERE "
	} else {
		where += " AND "
	}
	return where + strings.Join(cond, " AND "), append(args, wargs...)
}

// whoColumns is the SQL of a row's machine and user, the store's own
// names for its own ingest's rows, and their arguments.
func (s *Store) whoColumns() (string, []any) {
	return `CASE machine WHEN '' THEN ? ELSE machine END, CASE os_user WHEN '' THEN ? ELSE os_user END`, []any{s.selfMachine, s.selfUser}
}

// Order is the order of a query's rows.
type Order int

const (
	// AsStored returns rows as the database holds them: the cheapest.
	AsStored Order = iota
	// ByTime orders rows by time, then as they were stored.
	ByTime
	// ByIdentity orders requests by time, then by what identifies them
	// (source, session, message, request, model, tokens), so that the
	// order is the same on every machine; tool calls as ByTime.
	ByIdentity
)

// where returns the SQL condition and arguments of the period and the
// source on a time column.
func (f Filter) where(col string) (string, []any) {
	var cond []string
	var args []any
	if !f.Since.IsZero() {
		cond = append(cond, col+" >= ?")
		args = append(args, f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		cond = append(cond, col+" < ?")
		args = append(args, f.Until.UnixMilli())
	}
	if f.Source != "" && f.Source != "all" {
		cond = append(cond, "source = ?")
		args = append(args, f.Source)
	}
	if len(cond) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(cond, " AND "), args
}

// agentFile is the SQL for the name of the older-style sub-agent file
// that the file with id fileCol is, with f.AgentFiles; the empty string
// otherwise.
func (f Filter) agentFile(fileCol string) string {
	if !f.AgentFiles {
		return "''"
	}
	return `coalesce((SELECT f.agent_id FROM files f WHERE f.id = ` + fileCol + ` AND f.session_id = '' AND f.agent_id <> ''), '')`
}

// ProjectMatch reports whether a project path matches a --project filter:
// the full path (a path over transcript.MaxName as the store holds it,
// shortened), or the folder's name.
func ProjectMatch(filter, project string) bool {
	if filter == "" {
		return true
	}
	f := strings.TrimRight(filter, `/\`)
	return project == f || project == transcript.BoundName(f) || filepath.Base(project) == f || strings.HasSuffix(project, "/"+f) || strings.HasSuffix(project, `\`+f)
}

// A Session is one agent session: where it ran, and when (milliseconds
// since the epoch, 0 when unknown).
type Session struct {
	Source, ID, Project string
	FirstTS, LastTS     int64
}

// sessionsQuery is every session with its span: the span of its own
// lines (those that name it), widened by the lines copied into it from
// another session (a resumed Claude Code session starts with copies of the
// lines of the one it resumes) of which its copy is the one kept: its
// requests and tool calls, not the copies another session won.
const sessionsQuery = `(WITH copies AS (
		SELECT source, session_id, min(t) AS first, max(t) AS last FROM (
			SELECT source, session_id, ts AS t FROM requests WHERE copied <> 0
			UNION ALL SELECT source, session_id, call_ts FROM tool_calls WHERE copied <> 0 AND copied & 1 AND lost = 0
			UNION ALL SELECT source, session_id, result_ts FROM tool_calls WHERE copied <> 0 AND copied & 2 AND lost = 0
		) WHERE t IS NOT NULL GROUP BY source, session_id)
	SELECT s.source AS source, s.session_id AS session_id, s.project AS project,
		coalesce(min(s.first_ts, c.first), s.first_ts, c.first, 0) AS first_ts,
		coalesce(max(s.last_ts, c.last), s.last_ts, c.last, 0) AS last_ts
	FROM sessions s LEFT JOIN copies c ON c.source = s.source AND c.session_id = s.session_id)`

// Sessions returns every session.
func (s *Store) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT source, session_id, project, first_ts, last_ts FROM `+sessionsQuery)
	if err != nil {
		return nil, fmt.Errorf("reading sessions: %w", err)
	}
	return scanSessions(rows)
}

// LastSession returns the session active last, and false when there is
// none.
func (s *Store) LastSession(ctx context.Context) (Session, bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT source, session_id, project, first_ts, last_ts FROM `+sessionsQuery+`
		ORDER BY last_ts DESC, session_id LIMIT 1`)
	if err != nil {
		return Session{}, false, fmt.Errorf("reading sessions: %w", err)
	}
	ss, err := scanSessions(rows)
	if err != nil || len(ss) == 0 {
		return Session{}, false, err
	}
	return ss[0], true, nil
}

// SessionsByID returns at most limit sessions whose id is id or starts
// with it, of one source ("" for any): the one whose id is id first, then
// by source and id.
func (s *Store) SessionsByID(ctx context.Context, source, id string, limit int) ([]Session, error) {
	pattern := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(id) + "%"
	rows, err := s.db.QueryContext(ctx, `SELECT source, session_id, project, first_ts, last_ts FROM `+sessionsQuery+`
		WHERE (session_id = ? OR session_id LIKE ? ESCAPE '\') AND (? = '' OR source = ?)
		ORDER BY session_id = ? DESC, source, session_id LIMIT ?`, id, pattern, source, source, id, limit)
	if err != nil {
		return nil, err
	}
	return scanSessions(rows)
}

func scanSessions(rows *sql.Rows) ([]Session, error) {
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var x Session
		if err := rows.Scan(&x.Source, &x.ID, &x.Project, &x.FirstTS, &x.LastTS); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// projects returns each session's project, by [sessionKey].
func (s *Store) projects(ctx context.Context) (map[string]string, error) {
	ss, err := s.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(ss))
	for _, x := range ss {
		m[sessionKey(x.Source, x.ID)] = x.Project
	}
	return m, nil
}

func sessionKey(source, id string) string { return source + "\x00" + id }

// A Request is one model request: its tokens, and the cost its line
// recorded (nil when it recorded none).
type Request struct {
	Source, Session string
	Agent           string // sub-agent; "" for the main conversation
	Sidechain       bool
	TS              int64 // milliseconds since the epoch
	Model, Project  string
	Speed           string // "fast" for fast mode
	Input, Output   int64
	CacheWrite5m    int64
	CacheWrite1h    int64
	CacheRead       int64
	Reasoning       int64 // the part of Output spent on reasoning, where recorded
	CostUSD         *float64
	AgentFile       string // with Filter.AgentFiles
	// Machine and User name the machine the request was ingested on and
	// the OS user who ingested it: the names given to [Store.SetSelf] for
	// the store's own ingest ("" when none were given).
	Machine, User string
}

// Requests returns the requests of f's period, source and project, in f's
// order, each with its session's project where it names none. An error
// ends the sequence.
func (s *Store) Requests(ctx context.Context, f Filter) iter.Seq2[Request, error] {
	where, args := s.rowWhere(f, "ts")
	switch f.Order {
	case ByTime:
		where += ` ORDER BY ts, id`
	case ByIdentity:
		where += ` ORDER BY ts, source, session_id, message_id, request_id, model, input, output`
	}
	whoCols, whoArgs := s.whoColumns()
	q := `SELECT source, session_id, agent_id, sidechain, ts, model, project,
		input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, speed, cost_usd, ` + f.agentFile("requests.file_id") + `,
		` + whoCols + ` FROM requests` + where
	return rawQuery(ctx, s, f.Project, "requests", q, append(whoArgs, args...), func(row *rawRow) (Request, error) {
		var r Request
		var cost sql.NullFloat64
		row.str(0, &r.Source)
		row.str(1, &r.Session)
		row.str(2, &r.Agent)
		row.bool(3, &r.Sidechain)
		row.int64(4, &r.TS)
		row.str(5, &r.Model)
		row.str(6, &r.Project)
		row.int64(7, &r.Input)
		row.int64(8, &r.Output)
		row.int64(9, &r.CacheWrite5m)
		row.int64(10, &r.CacheWrite1h)
		row.int64(11, &r.CacheRead)
		row.int64(12, &r.Reasoning)
		row.str(13, &r.Speed)
		row.nullFloat64(14, &cost)
		row.str(15, &r.AgentFile)
		row.str(16, &r.Machine)
		row.str(17, &r.User)
		err := row.err
		if cost.Valid && transcript.ValidCost(cost.Float64) {
			// A cost out of range, stored before ingest checked it, is
			// none (as ingest now stores it).
			r.CostUSD = &cost.Float64
		}
		return r, err
	}, func(r *Request) (string, *string) { return sessionKey(r.Source, r.Session), &r.Project })
}

// A ToolCall is one tool call, or a result whose call was not read.
type ToolCall struct {
	Source, Session string
	Name            string // as the transcript names it
	Tool            string // the server's own name of the tool; "" when unknown
	Server, Plugin  string // "" for a built-in tool
	Agent           string
	// HasCall and HasResult say which of the two was read; CallTS and
	// ResultTS are 0 for the one that was not.
	HasCall, HasResult bool
	CallTS, ResultTS   int64
	ResultTokens       int64
	EstimatedTokens    int64
	ResultBytes        int64
	NonText            int
	IsError, Spilled   bool
	ArgsHash           []byte // nil when the call was not read
	Project            string
	// DurationMs is how long the tool ran, where the transcript records
	// it (nil otherwise).
	DurationMs *int64
	AgentFile  string // with Filter.AgentFiles
	// Machine and User: as Request's.
	Machine, User string
}

// TS is the call's time, or its result's when the call was not read.
func (c *ToolCall) TS() int64 {
	if c.HasCall {
		return c.CallTS
	}
	return c.ResultTS
}

// ToolCalls returns the tool calls of f's period (by call time, or result
// time where the call was not read), source and project, in f's order,
// each with its session's project where it names none. An error ends the
// sequence.
func (s *Store) ToolCalls(ctx context.Context, f Filter) iter.Seq2[ToolCall, error] {
	where, args := s.rowWhere(f, "coalesce(call_ts, result_ts)")
	// A copy of a call that another session's copy stands for is not
	// counted (see writer.settle).
	if where == "" {
		where = " WHERE lost = 0"
	} else {
		where += " AND lost = 0"
	}
	if f.MCP {
		where += " AND server <> ''"
	}
	if f.Order != AsStored {
		where += ` ORDER BY coalesce(call_ts, result_ts), id`
	}
	whoCols, whoArgs := s.whoColumns()
	q := `SELECT source, session_id, coalesce(name, ''), coalesce(tool, ''), coalesce(server, ''),
		coalesce(plugin, ''), coalesce(agent_id, ''), call_ts IS NOT NULL, result_ts IS NOT NULL, coalesce(call_ts, 0), coalesce(result_ts, 0),
		coalesce(result_tokens, 0), coalesce(estimated_tokens, 0), coalesce(result_bytes, 0), coalesce(non_text, 0),
		coalesce(is_error, 0), coalesce(spilled, 0), args_hash, coalesce(project, ''), duration_ms,
		` + f.agentFile("coalesce(tool_calls.call_file_id, tool_calls.result_file_id)") + `, ` + whoCols + `
		FROM tool_calls` + where
	return rawQuery(ctx, s, f.Project, "tool calls", q, append(whoArgs, args...), func(row *rawRow) (ToolCall, error) {
		var c ToolCall
		var duration sql.NullInt64
		row.str(0, &c.Source)
		row.str(1, &c.Session)
		row.str(2, &c.Name)
		row.str(3, &c.Tool)
		row.str(4, &c.Server)
		row.str(5, &c.Plugin)
		row.str(6, &c.Agent)
		row.bool(7, &c.HasCall)
		row.bool(8, &c.HasResult)
		row.int64(9, &c.CallTS)
		row.int64(10, &c.ResultTS)
		row.int64(11, &c.ResultTokens)
		row.int64(12, &c.EstimatedTokens)
		row.int64(13, &c.ResultBytes)
		row.int(14, &c.NonText)
		row.bool(15, &c.IsError)
		row.bool(16, &c.Spilled)
		row.bytes(17, &c.ArgsHash)
		row.str(18, &c.Project)
		row.nullInt64(19, &duration)
		row.str(20, &c.AgentFile)
		row.str(21, &c.Machine)
		row.str(22, &c.User)
		if duration.Valid {
			c.DurationMs = &duration.Int64
		}
		return c, row.err
	}, func(c *ToolCall) (string, *string) { return sessionKey(c.Source, c.Session), &c.Project })
}

// A SessionCount is a number of things in one session.
type SessionCount struct {
	Source, Session string
	N               int
}

// Compactions counts the compactions of each session in f's period,
// source, machine and user (compactions carry no project: f.Project is
// not applied).
func (s *Store) Compactions(ctx context.Context, f Filter) ([]SessionCount, error) {
	where, args := s.rowWhere(f, "ts")
	// A compaction is one event however many files hold its session (a
	// session in two files keeps its rows twice, by file and line).
	rows, err := s.db.QueryContext(ctx, `SELECT source, session_id, count(*) FROM (SELECT DISTINCT source, session_id, agent_id, ts, trigger, pre_tokens
		FROM compactions`+where+`) GROUP BY source, session_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading compactions: %w", err)
	}
	defer rows.Close()
	var out []SessionCount
	for rows.Next() {
		var c SessionCount
		if err := rows.Scan(&c.Source, &c.Session, &c.N); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// A UsageLimit is a placeholder of a request refused at the usage limit:
// its time and when the limit resets, in Unix milliseconds.
type UsageLimit struct {
	TS, Reset int64
}

// UsageLimits lists the usage-limit placeholders of f's period, source,
// machine and user, in time order (then reset), each time and reset once
// however many files, sessions or machines hold it (a placeholder copied
// into a resumed session is one).
func (s *Store) UsageLimits(ctx context.Context, f Filter) ([]UsageLimit, error) {
	where, args := s.rowWhere(f, "ts")
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT ts, reset_ts FROM usage_limits`+where+` ORDER BY ts, reset_ts`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading usage limits: %w", err)
	}
	defer rows.Close()
	var out []UsageLimit
	for rows.Next() {
		var l UsageLimit
		if err := rows.Scan(&l.TS, &l.Reset); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// BuiltInCalls counts the calls of built-in tools (not an MCP server's)
// of f's period and project, as ToolCalls returns them, by session: from
// the rollups where they answer f, else from the rows. A session may come
// more than once (its counts add up). An error ends the sequence.
func (s *Store) BuiltInCalls(ctx context.Context, f Filter) iter.Seq2[SessionCount, error] {
	return func(yield func(SessionCount, error) bool) {
		where, args, err := s.rollupWhere(ctx, f)
		if err == nil && f.byMachine() {
			err = ErrNoRollup // the rollups do not keep machines
		}
		q := `SELECT source, session_id, project, calls FROM tool_rollup` + where
		if where == "" {
			q += " WHERE mcp = 0"
		} else {
			q += " AND mcp = 0"
		}
		if errors.Is(err, ErrNoRollup) {
			where, args = s.rowWhere(f, "coalesce(call_ts, result_ts)")
			if where == "" {
				where = " WHERE"
			} else {
				where += " AND"
			}
			q = `SELECT source, session_id, coalesce(project, ''), count(*) FROM tool_calls` + where +
				` lost = 0 AND coalesce(server, '') = '' GROUP BY 1, 2, 3`
		} else if err != nil {
			yield(SessionCount{}, err)
			return
		}
		type counted struct {
			SessionCount
			project string
		}
		for x, err := range rawQuery(ctx, s, f.Project, "tool calls", q, args, func(row *rawRow) (counted, error) {
			var c counted
			row.str(0, &c.Source)
			row.str(1, &c.Session)
			row.str(2, &c.project)
			row.int(3, &c.N)
			return c, row.err
		}, func(c *counted) (string, *string) { return sessionKey(c.Source, c.Session), &c.project }) {
			if !yield(x.SessionCount, err) || err != nil {
				return
			}
		}
	}
}

// A ToolUse sums the calls of one tool in one session.
type ToolUse struct {
	Server       string // "" for a built-in tool
	Tool         string // "(unknown tool)" when neither name was read
	Calls        int
	Errors       int
	ResultTokens int64
	MaxResult    int64
}

// SessionTools sums the tool calls of one session per tool, the largest
// results first.
func (s *Store) SessionTools(ctx context.Context, source, id string) ([]ToolUse, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT coalesce(server, ''), coalesce(nullif(tool, ''), nullif(name, ''), '(unknown tool)'), count(*),
		sum(coalesce(is_error, 0)), sum(coalesce(result_tokens, 0)), max(coalesce(result_tokens, 0))
		FROM tool_calls WHERE source = ? AND session_id = ? AND lost = 0
		GROUP BY 1, 2 ORDER BY 5 DESC, 1, 2`, source, id)
	if err != nil {
		return nil, fmt.Errorf("reading the session's tool calls: %w", err)
	}
	defer rows.Close()
	var out []ToolUse
	for rows.Next() {
		var t ToolUse
		if err := rows.Scan(&t.Server, &t.Tool, &t.Calls, &t.Errors, &t.ResultTokens, &t.MaxResult); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RollupBucket is the span the rollups sum over: a report read from them
// bounds its period, and buckets its days, at multiples of it.
const RollupBucket = 15 * time.Minute

// ErrNoRollup means a query cannot be answered from the rollups (a bound
// between two buckets, or a sum past what an integer holds): the caller
// reads the rows themselves.
var ErrNoRollup = errors.New("not answered by the rollups")

// rollupWhere is where on a rollup's bucket for f's period and source,
// or ErrNoRollup when a bound is not at a bucket's start or the rollups
// wait to be filled in.
func (s *Store) rollupWhere(ctx context.Context, f Filter) (string, []any, error) {
	if deferred, err := s.rollupsDeferred(ctx); err != nil || deferred {
		if err == nil {
			err = ErrNoRollup
		}
		return "", nil, err
	}
	for _, t := range []time.Time{f.Since, f.Until} {
		if !t.IsZero() && t.UnixMilli()%RollupBucket.Milliseconds() != 0 {
			return "", nil, ErrNoRollup
		}
	}
	where, args := f.where("bucket")
	return where, args, nil
}

// A RequestSum sums the requests of one quarter hour (Bucket, its start
// in milliseconds since the epoch) that share a session, sub-agent file,
// model, project, speed, whether they recorded their cost, and their
// long-context band (Band: 0 for an input, with cache writes and reads,
// up to 200,000 tokens, 1 up to 272,000, 2 above).
type RequestSum struct {
	Bucket                     int64
	Source, Session, AgentFile string
	Model, Project, Speed      string
	Recorded                   bool
	Band                       int
	Requests                   int
	Nonzero                    int // requests whose token total is above 0
	Input, Output              int64
	CacheWrite5m, CacheWrite1h int64
	CacheRead, Reasoning       int64
	CostUSD                    float64 // the recorded costs' sum
	// Machine and User, with Filter.Machines: the machine and OS user of
	// the requests summed (as Request's); "" otherwise.
	Machine, User string
}

// RequestSums returns the request rollups of f's period, source and
// project (each with its session's project where it names none), in no
// particular order. An error ends the sequence: ErrNoRollup when the
// rollups cannot answer f. With a machine or user filter, or
// f.Machines, the same sums are computed from the rows (the rollups do
// not keep machines), for f's exact period: never ErrNoRollup.
func (s *Store) RequestSums(ctx context.Context, f Filter) iter.Seq2[RequestSum, error] {
	var q string
	var args []any
	if f.byMachine() {
		q, args = s.requestSumsFromRows(f)
	} else {
		where, wargs, err := s.rollupWhere(ctx, f)
		if err != nil {
			return func(yield func(RequestSum, error) bool) { yield(RequestSum{}, err) }
		}
		if f.NoProject && f.Project == "" {
			return s.requestSumsNoProject(ctx, where, wargs)
		}
		q = `SELECT bucket, source, session_id, agent_file, model, project, speed, recorded, band, requests, nonzero,
		input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, cost_usd, '', '' FROM request_rollup` + where
		args = wargs
	}
	return rawQuery(ctx, s, f.Project, "request sums", q, args, func(row *rawRow) (RequestSum, error) {
		var r RequestSum
		row.int64(0, &r.Bucket)
		row.str(1, &r.Source)
		row.str(2, &r.Session)
		row.str(3, &r.AgentFile)
		row.str(4, &r.Model)
		row.str(5, &r.Project)
		row.str(6, &r.Speed)
		row.bool(7, &r.Recorded)
		row.int(8, &r.Band)
		row.int(9, &r.Requests)
		row.int(10, &r.Nonzero)
		row.float(17, &r.CostUSD)
		row.str(18, &r.Machine)
		row.str(19, &r.User)
		err := row.err
		if err == nil {
			err = row.ints(11, &r.Input, &r.Output, &r.CacheWrite5m, &r.CacheWrite1h, &r.CacheRead, &r.Reasoning)
		}
		if err == nil && !(r.CostUSD >= 0 && r.CostUSD <= transcript.MaxCostUSD*float64(r.Requests)) {
			// A sum of costs out of range, stored before ingest checked
			// them: the rows answer, each cost checked.
			err = ErrNoRollup
		}
		return r, err
	}, func(r *RequestSum) (string, *string) { return sessionKey(r.Source, r.Session), &r.Project })
}

// requestSumsNoProject is RequestSums with f.NoProject, from the rollups
// (where and args pick them): the same sums, each read without its
// project, sub-agent file, machine and user.
func (s *Store) requestSumsNoProject(ctx context.Context, where string, args []any) iter.Seq2[RequestSum, error] {
	q := `SELECT bucket, source, session_id, model, speed, recorded, band, requests, nonzero,
		input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, cost_usd FROM request_rollup` + where
	return rawQuery(ctx, s, "", "request sums", q, args, func(row *rawRow) (RequestSum, error) {
		var r RequestSum
		row.int64(0, &r.Bucket)
		row.str(1, &r.Source)
		row.str(2, &r.Session)
		row.str(3, &r.Model)
		row.str(4, &r.Speed)
		row.bool(5, &r.Recorded)
		row.int(6, &r.Band)
		row.int(7, &r.Requests)
		row.int(8, &r.Nonzero)
		row.float(15, &r.CostUSD)
		err := row.err
		if err == nil {
			err = row.ints(9, &r.Input, &r.Output, &r.CacheWrite5m, &r.CacheWrite1h, &r.CacheRead, &r.Reasoning)
		}
		if err == nil && !(r.CostUSD >= 0 && r.CostUSD <= transcript.MaxCostUSD*float64(r.Requests)) {
			err = ErrNoRollup // as RequestSums
		}
		return r, err
	}, nil)
}

// sumWho is the SQL (and arguments) of the machine and user columns of
// sums read from rows: the rows' own with f.Machines, empty otherwise.
func (s *Store) sumWho(f Filter) (string, []any) {
	if f.Machines {
		return `CASE machine WHEN '' THEN ? ELSE machine END AS m, CASE os_user WHEN '' THEN ? ELSE os_user END AS u`,
			[]any{s.selfMachine, s.selfUser}
	}
	return `'' AS m, '' AS u`, nil
}

// requestSumsFromRows is the query of RequestSums from the rows, summed
// as the rollups sum them (see migration 006), by machine and user too
// with f.Machines.
func (s *Store) requestSumsFromRows(f Filter) (string, []any) {
	who, whoArgs := s.sumWho(f)
	where, args := s.rowWhere(f, "ts")
	if where == "" {
		where = " WHERE "
	} else {
		where += " AND "
	}
	where += `input >= 0 AND output >= 0 AND cache_write_5m >= 0 AND cache_write_1h >= 0 AND cache_read >= 0`
	q := `SELECT bucket, source, session_id, agent_file, model, project, speed, recorded, band, count(*), sum(nonzero),
		sum(input), sum(output), sum(cache_write_5m), sum(cache_write_1h), sum(cache_read), sum(reasoning), total(cost_usd), m, u
	FROM (SELECT ts - ((ts % 900000) + 900000) % 900000 AS bucket, source, session_id,
		coalesce((SELECT f.agent_id FROM files f WHERE f.id = requests.file_id AND f.session_id = '' AND f.agent_id <> ''), '') AS agent_file,
		model, project, speed, cost_usd IS NOT NULL AS recorded,
		CASE WHEN input + cache_write_5m + cache_write_1h + cache_read > 272000 THEN 2
			WHEN input + cache_write_5m + cache_write_1h + cache_read > 200000 THEN 1 ELSE 0 END AS band,
		input + output + cache_write_5m + cache_write_1h + cache_read > 0 AS nonzero,
		input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, cost_usd, ` + who + `
		FROM requests` + where + `)
	GROUP BY bucket, source, session_id, agent_file, model, project, speed, recorded, band, m, u`
	return q, append(whoArgs, args...)
}

// toolSumsFromRows is the query of ToolSums from the rows, as
// requestSumsFromRows.
func (s *Store) toolSumsFromRows(f Filter) (string, []any) {
	who, whoArgs := s.sumWho(f)
	where, args := s.rowWhere(f, "coalesce(call_ts, result_ts)")
	if where == "" {
		where = " WHERE "
	} else {
		where += " AND "
	}
	where += `coalesce(call_ts, result_ts) IS NOT NULL AND lost = 0`
	q := `SELECT bucket, source, session_id, agent_file, project, mcp, count(*), sum(errors), sum(result_tokens), m, u
	FROM (SELECT coalesce(call_ts, result_ts) - ((coalesce(call_ts, result_ts) % 900000) + 900000) % 900000 AS bucket, source, session_id,
		coalesce((SELECT f.agent_id FROM files f WHERE f.id = coalesce(tool_calls.call_file_id, tool_calls.result_file_id)
			AND f.session_id = '' AND f.agent_id <> ''), '') AS agent_file,
		coalesce(project, '') AS project, coalesce(server, '') <> '' AS mcp, coalesce(is_error, 0) <> 0 AS errors,
		coalesce(result_tokens, 0) AS result_tokens, ` + who + `
		FROM tool_calls` + where + `)
	GROUP BY bucket, source, session_id, agent_file, project, mcp, m, u`
	return q, append(whoArgs, args...)
}

// rollupInts stores the sums src into dst, or returns ErrNoRollup when
// one is not an integer (SQLite turns an integer sum past 2^63-1 into a
// real).
func rollupInts(src []any, dst ...*int64) error {
	for i, v := range src {
		n, ok := v.(int64)
		if !ok {
			return ErrNoRollup
		}
		*dst[i] = n
	}
	return nil
}

// A ToolSum sums the tool calls of one quarter hour (by the call's time,
// else the result's) that share a session, sub-agent file, project, and
// whether they are an MCP server's.
type ToolSum struct {
	Bucket                     int64
	Source, Session, AgentFile string
	Project                    string
	MCP                        bool
	Calls, Errors              int
	ResultTokens               int64
	// Machine and User: as RequestSum's.
	Machine, User string
}

// ToolSums returns the tool call rollups of f's period, source and
// project, as RequestSums does (from the rows with a machine or user
// filter, or f.Machines).
func (s *Store) ToolSums(ctx context.Context, f Filter) iter.Seq2[ToolSum, error] {
	var q string
	var args []any
	if f.byMachine() {
		q, args = s.toolSumsFromRows(f)
	} else {
		where, wargs, err := s.rollupWhere(ctx, f)
		if err != nil {
			return func(yield func(ToolSum, error) bool) { yield(ToolSum{}, err) }
		}
		q = `SELECT bucket, source, session_id, agent_file, project, mcp, calls, errors, result_tokens, '', '' FROM tool_rollup` + where
		args = wargs
	}
	return rawQuery(ctx, s, f.Project, "tool call sums", q, args, func(row *rawRow) (ToolSum, error) {
		var t ToolSum
		row.int64(0, &t.Bucket)
		row.str(1, &t.Source)
		row.str(2, &t.Session)
		row.str(3, &t.AgentFile)
		row.str(4, &t.Project)
		row.bool(5, &t.MCP)
		row.int(6, &t.Calls)
		row.int(7, &t.Errors)
		row.str(9, &t.Machine)
		row.str(10, &t.User)
		err := row.err
		if err == nil {
			err = row.ints(8, &t.ResultTokens)
		}
		return t, err
	}, func(t *ToolSum) (string, *string) { return sessionKey(t.Source, t.Session), &t.Project })
}

// A ToolUseSum sums the tool calls of one quarter hour (as [ToolSum])
// that share a session, project, server, tool and plugin. Tool is the
// server's own name of the tool, else the agent's; "(unknown tool)" for
// results whose call was not read.
type ToolUseSum struct {
	Bucket                    int64
	Source, Session, Project  string
	Server, Tool, Plugin      string
	Calls, Errors, Unanswered int
	ResultTokens, MaxResult   int64
	EstimatedTokens           int64
	NonText                   int
}

// ToolUseSums returns the per-tool rollups of f's period, source and
// project, as RequestSums does; ErrNoRollup with a machine or user
// filter, or f.Machines (the rollups do not keep machines).
func (s *Store) ToolUseSums(ctx context.Context, f Filter) iter.Seq2[ToolUseSum, error] {
	where, args, err := s.rollupWhere(ctx, f)
	if err == nil && f.byMachine() {
		err = ErrNoRollup
	}
	if err != nil {
		return func(yield func(ToolUseSum, error) bool) { yield(ToolUseSum{}, err) }
	}
	q := `SELECT bucket, source, session_id, project, server, tool, plugin, calls, errors, unanswered,
		result_tokens, max_result, estimated_tokens, non_text FROM tool_use_rollup` + where
	return rawQuery(ctx, s, f.Project, "tool use sums", q, args, func(row *rawRow) (ToolUseSum, error) {
		var t ToolUseSum
		row.int64(0, &t.Bucket)
		row.str(1, &t.Source)
		row.str(2, &t.Session)
		row.str(3, &t.Project)
		row.str(4, &t.Server)
		row.str(5, &t.Tool)
		row.str(6, &t.Plugin)
		row.int(7, &t.Calls)
		row.int(8, &t.Errors)
		row.int(9, &t.Unanswered)
		err := row.err
		var nonText int64
		if err == nil {
			err = row.ints(10, &t.ResultTokens, &t.MaxResult, &t.EstimatedTokens, &nonText)
		}
		t.NonText = int(nonText)
		return t, err
	}, func(t *ToolUseSum) (string, *string) { return sessionKey(t.Source, t.Session), &t.Project })
}

// A ToolTiming is what a report by server or tool needs of one tool call
// beyond the rollups' sums: how long it ran, and its arguments' hash.
type ToolTiming struct {
	Source, Session, Project string
	Server, Tool, Name       string // Tool as in [ToolUseSum]
	// LatencyMs is the call's duration where the transcript records it,
	// else its result's time less its call's; -1 without a result.
	LatencyMs int64
	ArgsHash  []byte
}

// ToolTimings returns the tool calls of f's period, source and project
// that were read with their result or their arguments' hash, as
// ToolCalls does but for the columns of a ToolTiming, in no particular
// order.
func (s *Store) ToolTimings(ctx context.Context, f Filter) iter.Seq2[ToolTiming, error] {
	where, args := f.where("coalesce(call_ts, result_ts)")
	if where == "" {
		where = " WHERE"
	} else {
		where += " AND"
	}
	where += " lost = 0 AND call_ts IS NOT NULL AND (result_ts IS NOT NULL OR args_hash IS NOT NULL)"
	q := `SELECT source, session_id, coalesce(project, ''), coalesce(server, ''),
		CASE WHEN coalesce(tool, '') <> '' THEN tool ELSE coalesce(name, '') END, coalesce(name, ''),
		CASE WHEN result_ts IS NULL THEN -1 ELSE coalesce(duration_ms, result_ts - call_ts) END, args_hash
		FROM tool_calls` + where
	return rawQuery(ctx, s, f.Project, "tool calls", q, args, func(row *rawRow) (ToolTiming, error) {
		var c ToolTiming
		row.str(0, &c.Source)
		row.str(1, &c.Session)
		row.str(2, &c.Project)
		row.str(3, &c.Server)
		row.str(4, &c.Tool)
		row.str(5, &c.Name)
		row.int64(6, &c.LatencyMs)
		row.bytes(7, &c.ArgsHash)
		return c, row.err
	}, func(c *ToolTiming) (string, *string) { return sessionKey(c.Source, c.Session), &c.Project })
}

// A ZoneSpan is a time zone's offset from UTC, in milliseconds, from a
// time on (From, milliseconds since the epoch) until the next span's From.
// The first span of a list holds from the earliest time on, whatever its
// From.
type ZoneSpan struct{ From, Offset int64 }

// ToolRollupSpan returns the first and last quarter hours that the tool
// call rollups hold, and false when they hold none.
func (s *Store) ToolRollupSpan(ctx context.Context) (first, last int64, ok bool, err error) {
	var lo, hi sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT min(bucket) FROM tool_rollup), (SELECT max(bucket) FROM tool_rollup)`).Scan(&lo, &hi)
	if err != nil {
		return 0, 0, false, fmt.Errorf("reading tool call sums: %w", err)
	}
	return lo.Int64, hi.Int64, lo.Valid && hi.Valid, nil
}

// A ToolDaySum sums the tool call rollups of one day that are, or are
// not, of MCP servers' tools (see ToolDaySums).
type ToolDaySum struct {
	Bucket        int64 // the first quarter hour of the day that has calls
	MCP           bool
	Calls, Errors int
	ResultTokens  int64
}

// ToolDaySums sums the tool call rollups of f's period and source by
// whether they are MCP servers' and by the day of each quarter hour in
// the time zone whose offsets spans give (nil: by MCP alone, the whole
// period as one), in no particular order. It sums what ToolSums returns
// for such a filter, in a few rows instead of one per quarter hour and
// session; a day is the span from one midnight, local time, to the next.
// An error ends the sequence: ErrNoRollup when the rollups cannot answer
// f, or f keeps a project, a machine or a user, or a sum is past what an
// integer holds.
func (s *Store) ToolDaySums(ctx context.Context, f Filter, spans []ZoneSpan) iter.Seq2[ToolDaySum, error] {
	return func(yield func(ToolDaySum, error) bool) {
		where, args, err := s.rollupWhere(ctx, f)
		if err == nil && (f.byMachine() || f.Project != "") {
			err = ErrNoRollup
		}
		if err != nil {
			yield(ToolDaySum{}, err)
			return
		}
		sums, ok, err := s.toolDaySumsHere(ctx, where, args, spans)
		if !ok && err == nil {
			s.toolDaySumsSQL(ctx, where, args, spans, yield)
			return
		}
		for _, t := range sums {
			if !yield(t, nil) {
				return
			}
		}
		switch {
		case err == ErrNoRollup:
			yield(ToolDaySum{}, err)
		case err != nil:
			yield(ToolDaySum{}, fmt.Errorf("reading tool call sums: %w", err))
		}
	}
}

// toolDaySumsSQL yields the sums of ToolDaySums, summed by its query, of
// the rollups that where and args pick.
func (s *Store) toolDaySumsSQL(ctx context.Context, where string, args []any, spans []ZoneSpan, yield func(ToolDaySum, error) bool) {
	group := "mcp"
	if len(spans) > 0 {
		var local strings.Builder
		local.WriteString("bucket + ")
		if len(spans) == 1 {
			local.WriteString("?")
		} else {
			local.WriteString("CASE")
			for range spans[1:] {
				local.WriteString(" WHEN bucket < ? THEN ?")
			}
			local.WriteString(" ELSE ? END")
		}
		var zargs []any
		for i, z := range spans[1:] {
			zargs = append(zargs, z.From, spans[i].Offset)
		}
		zargs = append(zargs, spans[len(spans)-1].Offset)
		args = append(zargs, args...)
		// The local time's midnight, rounded down (% truncates).
		group = `(l - ((l % 86400000) + 86400000) % 86400000), mcp`
		where = `, ` + local.String() + ` AS l FROM tool_rollup` + where
	} else {
		where = ` FROM tool_rollup` + where
	}
	q := `SELECT min(bucket), mcp, sum(calls), sum(errors), sum(result_tokens)
		FROM (SELECT bucket, mcp, calls, errors, result_tokens` + where + `) GROUP BY ` + group
	fail := func(err error) {
		if strings.Contains(err.Error(), "integer overflow") {
			err = ErrNoRollup // a sum past what an integer holds
		} else {
			err = fmt.Errorf("reading tool call sums: %w", err)
		}
		yield(ToolDaySum{}, err)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		fail(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var t ToolDaySum
		var n [3]any
		if err := rows.Scan(&t.Bucket, &t.MCP, &n[0], &n[1], &n[2]); err != nil {
			yield(ToolDaySum{}, fmt.Errorf("reading tool call sums: %w", err))
			return
		}
		var calls, errs int64
		if err := rollupInts(n[:], &calls, &errs, &t.ResultTokens); err != nil {
			yield(ToolDaySum{}, err)
			return
		}
		t.Calls, t.Errors = int(calls), int(errs)
		if !yield(t, nil) {
			return
		}
	}
	if err := rows.Err(); err != nil {
		fail(err)
	}
}

// toolDaySumsHere sums the rollups (where and args pick them) as
// ToolDaySums' query sums them, without its sort of every rollup by day:
// it reads them as they are stored, and returns the sums in the query's
// order (by day, then mcp). A sum past what an integer holds ends them,
// as it ends the query (an integer overflow, whatever the order of
// integers of at least 0): the sums before it, then ErrNoRollup. It
// returns false, having summed nothing, at the first value that is not
// what the rollups hold (an integer, at least 0, and mcp 0 or 1), for the
// query to sum them as it does.
func (s *Store) toolDaySumsHere(ctx context.Context, where string, args []any, spans []ZoneSpan) ([]ToolDaySum, bool, error) {
	type key struct {
		day int64
		mcp bool
	}
	type sum struct {
		key
		ToolDaySum
		over bool
	}
	idx := map[key]int{}
	var sums []sum
	const day = 86400000
	odd := false
	z := 0 // spans[z] holds the last bucket read
	err := s.rawRows(ctx, `SELECT bucket, mcp, calls, errors, result_tokens FROM tool_rollup`+where, args, func(r *rawRow) (bool, error) {
		var n [5]int64
		for i := range n {
			v, ok := r.v[i].(int64)
			if !ok || v < 0 && i > 0 || i == 1 && v > 1 {
				odd = true
				return false, nil
			}
			n[i] = v
		}
		k := key{mcp: n[1] == 1}
		if len(spans) > 0 {
			// As the query's CASE: the last span that starts at or
			// before the bucket, else the first.
			for z > 0 && n[0] < spans[z].From {
				z--
			}
			for z+1 < len(spans) && n[0] >= spans[z+1].From {
				z++
			}
			l, ok := addInt(n[0], spans[z].Offset)
			if !ok {
				odd = true // SQLite's sum is then a real
				return false, nil
			}
			if k.day = l - ((l%day)+day)%day; k.day > l {
				odd = true // past the least integer: SQLite's day is then a real
				return false, nil
			}
		}
		i, ok := idx[k]
		if !ok {
			i = len(sums)
			idx[k] = i
			sums = append(sums, sum{key: k, ToolDaySum: ToolDaySum{Bucket: n[0], MCP: k.mcp}})
		}
		t := &sums[i]
		t.Bucket = min(t.Bucket, n[0])
		calls, ok1 := addInt(int64(t.Calls), n[2])
		errs, ok2 := addInt(int64(t.Errors), n[3])
		tokens, ok3 := addInt(t.ResultTokens, n[4])
		t.over = t.over || !ok1 || !ok2 || !ok3
		t.Calls, t.Errors, t.ResultTokens = int(calls), int(errs), tokens
		return true, nil
	})
	if err != nil || odd {
		return nil, false, err
	}
	slices.SortFunc(sums, func(a, b sum) int {
		if c := cmp.Compare(a.day, b.day); c != 0 {
			return c
		}
		return cmp.Compare(b2i(a.mcp), b2i(b.mcp))
	})
	out := make([]ToolDaySum, 0, len(sums))
	for _, t := range sums {
		if t.over {
			return out, true, ErrNoRollup
		}
		out = append(out, t.ToolDaySum)
	}
	return out, true, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addInt returns a+b and whether it did not overflow.
func addInt(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}
