package transcripttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// projectDir is Claude Code's folder name for a working directory: every
// character that is not an ASCII letter or digit becomes '-'.
func projectDir(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, cwd)
}

// quirks writes the sessions of Options.Quirks.
func (g *gen) quirks() error {
	if err := g.gateway(); err != nil {
		return err
	}
	if err := g.resumed(); err != nil {
		return err
	}
	return g.olderClaude()
}

func (g *gen) quirkSession(name string, day int, model string) *cSession {
	cwd := "/home/dev/src/" + name
	return &cSession{id: g.uuid(), cwd: cwd, project: projectDir(cwd),
		now:   g.o.Start.Add(time.Duration(day%g.o.Days)*24*time.Hour + time.Duration(g.rnd.IntN(12*3600))*time.Second),
		model: model, context: 9000}
}

// assistant writes one line of a response with the given ids and usage and
// returns the request it records.
func (g *gen) assistant(w *writer, s *cSession, msgID, reqID string, in, out int64, edit func(*cLine)) Request {
	l := g.line(s, "", false, "assistant")
	l.RequestID = reqID
	read := min(s.context, 170000)
	l.Message = cMessage{ID: msgID, Type: "message", Role: "assistant", Model: s.model,
		Content: []map[string]any{{"type": "text", "text": g.text(80)}},
		Usage:   cUsage{InputTokens: in, CacheCreationInputTokens: 120, CacheReadInputTokens: read, OutputTokens: out, ServiceTier: "standard"}}
	if edit != nil {
		edit(&l)
	}
	w.add(l)
	return Request{Source: "claude", SessionID: s.id, Time: s.now, Model: s.model, Project: s.cwd, Input: in, Output: out,
		Cache5m: 120, CacheRead: read, Sidechain: l.IsSidechain}
}

// gateway writes two sessions, on different days, of a Claude Code that
// talks to the API through an LLM gateway: no request ids, and message ids
// that the gateway numbers per connection, so that the same ids come back
// in every session. A request is then its message id, its line's session
// and its timestamp (ccusage's rule): each block line of a response written
// at its own time counts, and copies written at the same time count once.
func (g *gen) gateway() error {
	for k := 0; k < 2; k++ {
		s := g.quirkSession("gateway", k, "claude-sonnet-4-5-20250929")
		w := &writer{rel: ".claude/projects/" + s.project + "/" + s.id + ".jsonl"}
		for r := 0; r < 3; r++ {
			g.prompt(w, s, "", false)
			s.now = s.now.Add(time.Duration(2000+g.rnd.IntN(9000)) * time.Millisecond)
			msgID := fmt.Sprintf("msg_gw_%d", r)
			in, out := int64(100), int64(20+g.rnd.IntN(400))
			switch r {
			case 0:
				// Two block lines at the same time: one request, the larger.
				g.assistant(w, s, msgID, "", in, 2, nil)
				g.m.Requests = append(g.m.Requests, g.assistant(w, s, msgID, "", in, out, nil))
			default:
				// Two block lines 300 ms apart: two requests, as ccusage
				// counts them.
				g.m.Requests = append(g.m.Requests, g.assistant(w, s, msgID, "", in, 3, nil))
				s.now = s.now.Add(300 * time.Millisecond)
				g.m.Requests = append(g.m.Requests, g.assistant(w, s, msgID, "", in, out, nil))
			}
			s.context += out + 200
		}
		if err := g.flush(w); err != nil {
			return err
		}
	}
	return nil
}

// resumed writes a session and its resumption: Claude Code starts the new
// session's file with copies of the old one's lines (which keep the old
// sessionId), then goes on under the new id. Each copied request is counted
// once, in the session whose file comes first in path order, as ccusage
// counts it, whatever order the files are read in.
func (g *gen) resumed() error {
	old := g.quirkSession("resume", 1, "claude-opus-4-5-20251101")
	ow := &writer{rel: ".claude/projects/" + old.project + "/" + old.id + ".jsonl"}
	var copied []Request
	for r := 0; r < 3; r++ {
		g.prompt(ow, old, "", false)
		old.now = old.now.Add(4 * time.Second)
		copied = append(copied, g.assistant(ow, old, g.id("msg_01"), g.id("req_01"), int64(5+r), int64(50+g.rnd.IntN(500)), nil))
		old.context += 900
	}
	next := &cSession{id: g.uuid(), cwd: old.cwd, project: old.project, now: old.now.Add(2 * time.Hour), model: old.model, context: old.context}
	nw := &writer{rel: ".claude/projects/" + next.project + "/" + next.id + ".jsonl"}
	nw.lines = append(nw.lines, ow.lines...)
	first := old.id
	if nw.rel < ow.rel {
		first = next.id
	}
	for _, r := range copied {
		r.SessionID = first
		g.m.Requests = append(g.m.Requests, r)
	}
	for r := 0; r < 2; r++ {
		g.prompt(nw, next, "", false)
		next.now = next.now.Add(3 * time.Second)
		g.m.Requests = append(g.m.Requests, g.assistant(nw, next, g.id("msg_01"), g.id("req_01"), 9, int64(30+g.rnd.IntN(300)), nil))
	}
	if err := g.flush(ow); err != nil {
		return err
	}
	return g.flush(nw)
}

// olderClaude writes a session of Claude Code 2.0: a Task's sub-agent in
// its own agent-<id>.jsonl beside the session (which ccusage lists as a
// session of its own, and mcpcost adds to the session that started it), an
// API-error placeholder (model <synthetic>, no tokens: no request), and
// lines with usage but no type (counted, as ccusage counts them).
func (g *gen) olderClaude() error {
	s := g.quirkSession("legacy", 2, "claude-sonnet-4-5-20250929")
	w := &writer{rel: ".claude/projects/" + s.project + "/" + s.id + ".jsonl"}
	v2 := func(l *cLine) { l.Version = "2.0.77" }
	g.prompt(w, s, "", false)
	s.now = s.now.Add(5 * time.Second)
	g.m.Requests = append(g.m.Requests, g.assistant(w, s, g.id("msg_01"), g.id("req_01"), 4, 210, v2))

	// The sub-agent's file.
	agent := fmt.Sprintf("%08x", g.rnd.Uint32())
	aw := &writer{rel: ".claude/projects/" + s.project + "/agent-" + agent + ".jsonl"}
	sub := &cSession{id: s.id, cwd: s.cwd, project: s.project, now: s.now.Add(time.Second), model: "claude-haiku-4-5-20251001", context: 6000}
	for r := 0; r < 2; r++ {
		g.prompt(aw, sub, agent, true)
		sub.now = sub.now.Add(2 * time.Second)
		req := g.assistant(aw, sub, g.id("msg_01"), g.id("req_01"), 3, int64(40+g.rnd.IntN(200)), func(l *cLine) {
			l.Version, l.IsSidechain, l.AgentID = "2.0.77", true, agent
		})
		req.AgentID, req.AgentFile = "agent-"+agent, "agent-"+agent
		g.m.Requests = append(g.m.Requests, req)
	}
	s.now = sub.now.Add(time.Second)

	// An API error in place of a response: no tokens, no request.
	s.now = s.now.Add(time.Second)
	l := g.line(s, "", false, "assistant")
	l.Version = "2.0.77"
	l.Message = cMessage{ID: g.uuid(), Type: "message", Role: "assistant", Model: "<synthetic>",
		Content: []map[string]any{{"type": "text", "text": "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}"}},
		Usage:   cUsage{ServiceTier: "standard"}}
	b, _ := json.Marshal(l)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["isApiErrorMessage"] = true
	w.add(m)

	// Lines with usage and no type.
	for r := 0; r < 2; r++ {
		s.now = s.now.Add(7 * time.Second)
		var typeless map[string]any
		req := g.assistant(&writer{}, s, g.id("msg_01"), g.id("req_01"), 6, int64(25+g.rnd.IntN(90)), func(l *cLine) {
			l.Version = "2.0.77"
			b, _ := json.Marshal(l)
			json.Unmarshal(b, &typeless)
			delete(typeless, "type")
		})
		w.add(typeless)
		g.m.Requests = append(g.m.Requests, req)
	}
	if err := g.flush(aw); err != nil {
		return err
	}
	return g.flush(w)
}
