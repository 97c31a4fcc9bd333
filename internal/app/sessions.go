package app

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SessionTools is one session's tools by the tokens their results put
// into its context, heaviest first.
type SessionTools struct {
	Source, ID, Project string
	Tools               []SessionTool
}

// SessionTool is one tool of a session; Server is empty for the agent's
// built-in tools.
type SessionTool struct {
	Server, Tool            string
	Calls, Errors           int
	ResultTokens, MaxResult int64
}

// SessionTools reports one session's tools from the usage store: session
// is its id, "source:id", or a prefix of the id that only one session
// has; "" for the session active last.
func (m *Machine) SessionTools(ctx context.Context, session string, o StoreOptions) (*SessionTools, error) {
	st, _, err := m.openStore(ctx, o)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	db := st.DB()
	out := &SessionTools{Tools: []SessionTool{}}
	if out.Source, out.ID, out.Project, err = findSession(ctx, db, session); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT coalesce(server, ''), coalesce(nullif(tool, ''), nullif(name, ''), '(unknown tool)'), count(*),
		sum(coalesce(is_error, 0)), sum(coalesce(result_tokens, 0)), max(coalesce(result_tokens, 0))
		FROM tool_calls WHERE source = ? AND session_id = ?
		GROUP BY 1, 2 ORDER BY 5 DESC, 1, 2`, out.Source, out.ID)
	if err != nil {
		return nil, fmt.Errorf("reading the session's tool calls: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t SessionTool
		if err := rows.Scan(&t.Server, &t.Tool, &t.Calls, &t.Errors, &t.ResultTokens, &t.MaxResult); err != nil {
			return nil, err
		}
		out.Tools = append(out.Tools, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// findSession resolves a session: its id, "source:id", or a prefix of the
// id that only one session has; "" for the session active last.
func findSession(ctx context.Context, db *sql.DB, want string) (src, id, project string, err error) {
	want = strings.TrimSpace(want)
	if want == "" {
		err = db.QueryRowContext(ctx, `SELECT source, session_id, project FROM sessions ORDER BY coalesce(last_ts, 0) DESC, session_id LIMIT 1`).Scan(&src, &id, &project)
		if err == sql.ErrNoRows {
			return "", "", "", fmt.Errorf("no sessions in the usage store")
		}
		return src, id, project, err
	}
	source, rest, hasSource := strings.Cut(want, ":")
	if !hasSource || (source != "claude" && source != "codex") {
		source, rest = "", want
	}
	pattern := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(rest) + "%"
	rows, err := db.QueryContext(ctx, `SELECT source, session_id, project FROM sessions
		WHERE (session_id = ? OR session_id LIKE ? ESCAPE '\') AND (? = '' OR source = ?)
		ORDER BY session_id = ? DESC, source, session_id LIMIT 3`, rest, pattern, source, source, rest)
	if err != nil {
		return "", "", "", fmt.Errorf("finding session %q: %w", want, err)
	}
	defer rows.Close()
	type hit struct{ src, id, project string }
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.src, &h.id, &h.project); err != nil {
			return "", "", "", err
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return "", "", "", err
	}
	switch {
	case len(hits) == 0:
		return "", "", "", fmt.Errorf("no session %q in the usage store (recent_sessions lists them)", want)
	case hits[0].id == rest, len(hits) == 1:
		return hits[0].src, hits[0].id, hits[0].project, nil
	}
	return "", "", "", fmt.Errorf("%q matches more than one session; give more of its id", want)
}
