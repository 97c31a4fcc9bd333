package findings

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
)

// request is one de-duplicated request of the window, priced.
type request struct {
	source, session, agent string
	sidechain              bool
	ts                     int64
	model, project         string
	t                      tokens
	priced                 bool
	rates                  Rates // the rates this request paid
	cost                   float64
}

// main reports whether the request is of the main conversation.
func (r *request) main() bool { return r.agent == "" && !r.sidechain }

// inputTokens is everything the request read: uncached input, cache
// writes and cache reads.
func (r *request) inputTokens() int64 {
	return r.t.Input + r.t.CacheWrite5m + r.t.CacheWrite1h + r.t.CacheRead
}

// blendedRate is the USD per input token this request paid on average,
// weighting each rate by its share of the request's input.
func (r *request) blendedRate() float64 {
	in := r.inputTokens()
	if !r.priced || in == 0 {
		return 0
	}
	return (float64(r.t.Input)*r.rates.Input + float64(r.t.CacheWrite5m)*r.rates.CacheWrite5m +
		float64(r.t.CacheWrite1h)*r.rates.CacheWrite1h + float64(r.t.CacheRead)*r.rates.CacheRead) / float64(in) / 1e6
}

// tokens are a request's token counts by kind.
type tokens struct {
	Input, Output, CacheWrite5m, CacheWrite1h, CacheRead, Total int64
}

// call is one tool call of the window.
type call struct {
	source, session, name, tool, server string
	agent                               string
	hasCall, hasResult                  bool
	callTS, resultTS                    int64
	tokens, bytes                       int64
	isError, spilled                    bool
	hash                                string
	project                             string
}

func (c *call) key() string { return c.source + "\x00" + c.session }

type data struct {
	requests    []request
	calls       []call
	compactions map[string]int // per session key
	unpriced    map[string]bool
}

func sessionKey(source, session string) string { return source + "\x00" + session }

func windowCond(o Options, col string) (string, []any) {
	var cond []string
	var args []any
	if !o.Since.IsZero() {
		cond = append(cond, col+" >= ?")
		args = append(args, o.Since.UnixMilli())
	}
	if !o.Until.IsZero() {
		cond = append(cond, col+" < ?")
		args = append(args, o.Until.UnixMilli())
	}
	if len(cond) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(cond, " AND "), args
}

// projectMatch reports whether a project path matches the --project
// filter: the full path, or the folder's name.
func projectMatch(filter, project string) bool {
	if filter == "" {
		return true
	}
	f := strings.TrimRight(filter, `/\`)
	return project == f || filepath.Base(project) == f || strings.HasSuffix(project, "/"+f) || strings.HasSuffix(project, `\`+f)
}

func load(ctx context.Context, db *sql.DB, o Options) (*data, error) {
	d := &data{compactions: map[string]int{}, unpriced: map[string]bool{}}
	projects := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT source, session_id, project FROM sessions`)
	if err != nil {
		return nil, fmt.Errorf("reading sessions: %w", err)
	}
	for rows.Next() {
		var src, id, p string
		if err := rows.Scan(&src, &id, &p); err != nil {
			rows.Close()
			return nil, err
		}
		projects[sessionKey(src, id)] = p
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	where, args := windowCond(o, "ts")
	rows, err = db.QueryContext(ctx, `SELECT source, session_id, agent_id, sidechain, ts, model, project,
		input, output, cache_write_5m, cache_write_1h, cache_read, speed FROM requests`+where+` ORDER BY ts, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading requests: %w", err)
	}
	for rows.Next() {
		var r request
		var speed string
		if err := rows.Scan(&r.source, &r.session, &r.agent, &r.sidechain, &r.ts, &r.model, &r.project,
			&r.t.Input, &r.t.Output, &r.t.CacheWrite5m, &r.t.CacheWrite1h, &r.t.CacheRead, &speed); err != nil {
			rows.Close()
			return nil, err
		}
		if r.project == "" {
			r.project = projects[sessionKey(r.source, r.session)]
		}
		if !projectMatch(o.Project, r.project) {
			continue
		}
		r.t.Total = r.t.Input + r.t.Output + r.t.CacheWrite5m + r.t.CacheWrite1h + r.t.CacheRead
		if rates, ok := o.Pricing(r.model, r.inputTokens(), speed == "fast"); ok {
			r.priced = true
			r.rates = rates
			r.cost = (float64(r.t.Input)*rates.Input + float64(r.t.Output)*rates.Output + float64(r.t.CacheWrite5m)*rates.CacheWrite5m +
				float64(r.t.CacheWrite1h)*rates.CacheWrite1h + float64(r.t.CacheRead)*rates.CacheRead) / 1e6
		} else if r.t.Total > 0 {
			d.unpriced[r.model] = true
		}
		d.requests = append(d.requests, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading requests: %w", err)
	}

	where, args = windowCond(o, "coalesce(call_ts, result_ts)")
	rows, err = db.QueryContext(ctx, `SELECT source, session_id, coalesce(name, ''), coalesce(tool, ''), coalesce(server, ''), coalesce(agent_id, ''),
		call_ts IS NOT NULL, result_ts IS NOT NULL, coalesce(call_ts, 0), coalesce(result_ts, 0),
		coalesce(result_tokens, 0), coalesce(result_bytes, 0), coalesce(is_error, 0), coalesce(spilled, 0),
		coalesce(hex(args_hash), ''), coalesce(project, '')
		FROM tool_calls`+where+` ORDER BY coalesce(call_ts, result_ts), id`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading tool calls: %w", err)
	}
	for rows.Next() {
		var c call
		if err := rows.Scan(&c.source, &c.session, &c.name, &c.tool, &c.server, &c.agent, &c.hasCall, &c.hasResult,
			&c.callTS, &c.resultTS, &c.tokens, &c.bytes, &c.isError, &c.spilled, &c.hash, &c.project); err != nil {
			rows.Close()
			return nil, err
		}
		if c.project == "" {
			c.project = projects[c.key()]
		}
		if !projectMatch(o.Project, c.project) {
			continue
		}
		if c.tool == "" {
			c.tool = c.name
		}
		d.calls = append(d.calls, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading tool calls: %w", err)
	}

	where, args = windowCond(o, "ts")
	rows, err = db.QueryContext(ctx, `SELECT source, session_id, count(*) FROM compactions`+where+` GROUP BY source, session_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading compactions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var src, id string
		var n int
		if err := rows.Scan(&src, &id, &n); err != nil {
			return nil, err
		}
		d.compactions[sessionKey(src, id)] = n
	}
	return d, rows.Err()
}
