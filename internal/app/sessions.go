package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/textsafe"
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
	out := &SessionTools{Tools: []SessionTool{}}
	if out.Source, out.ID, out.Project, err = findSession(ctx, st, session); err != nil {
		return nil, err
	}
	tools, err := st.SessionTools(ctx, out.Source, out.ID)
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		out.Tools = append(out.Tools, SessionTool(t))
	}
	return out, nil
}

// findSession resolves a session: its id, "source:id", or a prefix of the
// id that only one session has; "" for the session active last.
func findSession(ctx context.Context, st *store.Store, want string) (src, id, project string, err error) {
	want = strings.TrimSpace(want)
	if want == "" {
		last, ok, err := st.LastSession(ctx)
		if err == nil && !ok {
			err = fmt.Errorf("no sessions in the usage store")
		}
		return last.Source, last.ID, last.Project, err
	}
	source, rest, hasSource := strings.Cut(want, ":")
	if !hasSource || (source != "claude" && source != "codex" && source != "copilot" && source != "goose" && source != "gemini" && source != "opencode") {
		source, rest = "", want
	}
	hits, err := st.SessionsByID(ctx, source, rest, 3)
	if err != nil {
		return "", "", "", fmt.Errorf("finding session %s: %w", textsafe.Quote(want), err)
	}
	switch {
	case len(hits) == 0:
		return "", "", "", fmt.Errorf("no session %s in the usage store (recent_sessions lists them)", textsafe.Quote(want))
	case hits[0].ID == rest, len(hits) == 1:
		return hits[0].Source, hits[0].ID, hits[0].Project, nil
	}
	return "", "", "", fmt.Errorf("%s matches more than one session; give more of its id", textsafe.Quote(want))
}
