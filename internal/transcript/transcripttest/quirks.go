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

// resumed writes three sessions and their resumptions: Claude Code starts
// the new session's file with copies of the old one's lines (which keep
// the old sessionId), then goes on under the new id. Each copied request
// and tool call is counted once, in the session whose file comes first in
// path order, as ccusage counts it, whatever order the files are read in;
// the new session's span starts at the copies it keeps, or at its own
// first line when it keeps none. The first new session's file comes
// first in path order, the second's last.
//
// The third pair is resumed while the old session is still writing a
// response: the copy holds the response's tool call with an intermediate
// output count, and only the old session goes on to write the response's
// last line (the full count) and the tool's result. The old session's copy
// of that request is then the larger and is kept, and so is its copy of
// the tool call, wherever its file sorts.
func (g *gen) resumed() error {
	for _, k := range []struct{ live, newFirst bool }{{false, true}, {false, false}, {true, true}} {
		if err := g.resumedPair(k.live, k.newFirst); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) resumedPair(live, newFirst bool) error {
	old := g.quirkSession("resume", 1, "claude-opus-4-5-20251101")
	next := &cSession{id: g.uuid(), cwd: old.cwd, project: old.project, model: old.model}
	if (next.id < old.id) != newFirst {
		// newFirst: the copy's file first in path order, keeping the
		// copies that tie.
		old.id, next.id = next.id, old.id
	}
	ow := &writer{rel: ".claude/projects/" + old.project + "/" + old.id + ".jsonl"}
	nw := &writer{rel: ".claude/projects/" + next.project + "/" + next.id + ".jsonl"}
	first := old.id
	if nw.rel < ow.rel {
		first = next.id
	}
	var copied []Request
	var calls []Call
	for r := 0; r < 3; r++ {
		g.prompt(ow, old, "", false)
		old.now = old.now.Add(4 * time.Second)
		req, call := g.callTurn(ow, old)
		copied = append(copied, req)
		calls = append(calls, call)
		old.now = old.now.Add(2 * time.Second)
		copied = append(copied, g.assistant(ow, old, g.id("msg_01"), g.id("req_01"), int64(5+r), int64(50+g.rnd.IntN(500)), nil))
		old.context += 900
	}
	oldReq := len(copied)
	res := Resumption{From: old.id, To: next.id, Kept: first == next.id, Live: live}
	res.FromSpan = [2]time.Time{copied[0].Time, copied[len(copied)-1].Time}
	if live {
		// A response being written: its tool call, at an intermediate
		// count, is copied; its last line and the result are not.
		g.prompt(ow, old, "", false)
		old.now = old.now.Add(4 * time.Second)
		msgID, reqID := g.id("msg_01"), g.id("req_01")
		id := g.id("toolu_01")
		args := `{"path":"README.md"}`
		g.assistant(ow, old, msgID, reqID, 8, 3, func(l *cLine) {
			m := l.Message.(cMessage)
			m.Content = []map[string]any{{"type": "tool_use", "id": id, "name": "Read", "input": json.RawMessage(args)}}
			l.Message = m
		})
		nw.lines = append(nw.lines, ow.lines...)
		callAt := old.now
		old.now = old.now.Add(300 * time.Millisecond)
		full := g.assistant(ow, old, msgID, reqID, 8, int64(200+g.rnd.IntN(300)), nil)
		full.SessionID = old.id
		g.m.Requests = append(g.m.Requests, full)
		call := g.result(ow, old, Call{Source: "claude", SessionID: old.id, ID: id, Name: "Read", Args: args}, callAt)
		g.m.Calls = append(g.m.Calls, call)
		old.now = old.now.Add(3 * time.Second)
		last := g.assistant(ow, old, g.id("msg_01"), g.id("req_01"), 4, int64(30+g.rnd.IntN(90)), nil)
		last.SessionID = old.id
		g.m.Requests = append(g.m.Requests, last)
		res.FromSpan[1] = last.Time
	} else {
		nw.lines = append(nw.lines, ow.lines...)
	}
	for i, r := range copied {
		if i < oldReq {
			r.SessionID = first
		}
		g.m.Requests = append(g.m.Requests, r)
	}
	for _, c := range calls {
		c.SessionID = first
		g.m.Calls = append(g.m.Calls, c)
	}
	next.now, next.context = old.now.Add(2*time.Hour), old.context
	for r := 0; r < 2; r++ {
		g.prompt(nw, next, "", false)
		next.now = next.now.Add(3 * time.Second)
		if r == 0 {
			req, call := g.callTurn(nw, next)
			g.m.Requests = append(g.m.Requests, req)
			g.m.Calls = append(g.m.Calls, call)
			res.ToSpan[0] = req.Time
			next.now = next.now.Add(2 * time.Second)
		}
		req := g.assistant(nw, next, g.id("msg_01"), g.id("req_01"), 9, int64(30+g.rnd.IntN(300)), nil)
		g.m.Requests = append(g.m.Requests, req)
		res.ToSpan[1] = req.Time
	}
	if res.Kept {
		res.ToSpan[0] = res.FromSpan[0]
	}
	g.m.Resumed = append(g.m.Resumed, res)
	if err := g.flush(ow); err != nil {
		return err
	}
	return g.flush(nw)
}

// callTurn writes a response that calls a tool (one line, its only block)
// and the tool's result, and returns the request and the call.
func (g *gen) callTurn(w *writer, s *cSession) (Request, Call) {
	id := g.id("toolu_01")
	name := []string{"mcp__github__search_issues", "Read", "mcp__postgres__query"}[g.rnd.IntN(3)]
	args := fmt.Sprintf(`{"query":%q}`, g.text(20))
	req := g.assistant(w, s, g.id("msg_01"), g.id("req_01"), 7, int64(40+g.rnd.IntN(200)), func(l *cLine) {
		m := l.Message.(cMessage)
		m.Content = []map[string]any{{"type": "tool_use", "id": id, "name": name, "input": json.RawMessage(args)}}
		l.Message = m
	})
	return req, g.result(w, s, Call{Source: "claude", SessionID: s.id, ID: id, Name: name, Args: args}, s.now)
}

// result writes the result of call, made at callTime, and returns the call
// with its latency and texts.
func (g *gen) result(w *writer, s *cSession, c Call, callTime time.Time) Call {
	text := g.text(g.resultSize())
	s.now = s.now.Add(time.Duration(200+g.rnd.IntN(3000)) * time.Millisecond)
	c.Latency = s.now.Sub(callTime)
	l := g.line(s, "", false, "user")
	l.Message = cMessage{Role: "user", Content: []map[string]any{{"tool_use_id": c.ID, "type": "tool_result", "content": text}}}
	w.add(l)
	if g.o.KeepTexts {
		c.Texts = []string{text}
	}
	return c
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
