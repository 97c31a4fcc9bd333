package findings

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
)

// A home is a fake home folder with Claude Code transcripts, written line
// by line as Claude Code writes them.
type home struct {
	dir      string
	sessions []*session
}

func newHome(t *testing.T) *home {
	return &home{dir: t.TempDir()}
}

// session is one Claude Code session file.
type session struct {
	h     *home
	id    string
	cwd   string
	agent string
	at    time.Time
	lines []string
	seq   int
	// cost, when set, is the costUSD the next request records.
	cost *float64
}

func (h *home) session(id, cwd string, start time.Time) *session {
	s := &session{h: h, id: id, cwd: cwd, at: start}
	h.sessions = append(h.sessions, s)
	return s
}

// usage of one request.
type use struct {
	in, out, cw5m, cw1h, cr int64
}

// cached is a typical request of a long session: mostly cache reads.
var cached = use{in: 10, out: 50, cr: 9_990}

// tcall is one tool call and its result.
type tcall struct {
	name    string
	args    map[string]any
	result  string
	latency time.Duration
}

func (s *session) add(v map[string]any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	s.lines = append(s.lines, string(b))
}

// request writes one model request with its tool calls, then the results;
// the clock moves a second past the last result.
func (s *session) request(model string, u use, calls ...tcall) {
	s.seq++
	var content []any
	for i, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d_%d", s.id, s.seq, i), "name": c.name, "input": c.args})
	}
	if len(content) == 0 {
		content = append(content, map[string]any{"type": "text", "text": "ok"})
	}
	line := map[string]any{
		"type": "assistant", "sessionId": s.id, "cwd": s.cwd, "isSidechain": s.agent != "", "agentId": s.agent,
		"timestamp": s.at.UTC().Format("2006-01-02T15:04:05.000Z"), "requestId": fmt.Sprintf("req_%s_%d", s.id, s.seq),
		"uuid": fmt.Sprintf("a_%s_%d", s.id, s.seq),
		"message": map[string]any{"id": fmt.Sprintf("msg_%s_%d", s.id, s.seq), "type": "message", "role": "assistant", "model": model, "content": content,
			"usage": map[string]any{"input_tokens": u.in, "output_tokens": u.out, "cache_read_input_tokens": u.cr,
				"cache_creation_input_tokens": u.cw5m + u.cw1h,
				"cache_creation":              map[string]any{"ephemeral_5m_input_tokens": u.cw5m, "ephemeral_1h_input_tokens": u.cw1h}}},
	}
	if s.cost != nil {
		line["costUSD"], s.cost = *s.cost, nil
	}
	s.add(line)
	last := s.at
	for i, c := range calls {
		at := s.at.Add(c.latency)
		s.add(map[string]any{
			"type": "user", "sessionId": s.id, "cwd": s.cwd, "isSidechain": s.agent != "",
			"timestamp": at.UTC().Format("2006-01-02T15:04:05.000Z"), "uuid": fmt.Sprintf("u_%s_%d_%d", s.id, s.seq, i),
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%s_%d_%d", s.id, s.seq, i),
				"content": []any{map[string]any{"type": "text", "text": c.result}}}}},
		})
		if at.After(last) {
			last = at
		}
	}
	s.at = last.Add(time.Second)
}

// requests writes n plain requests.
func (s *session) requests(n int, model string, u use) {
	for range n {
		s.request(model, u)
	}
}

// codexSession writes a Codex rollout of n turns in cwd, each with
// 10,000 input tokens (9,000 cached) and one call to each of calls
// (mcp__<server>__<tool> names).
func (h *home) codexSession(t *testing.T, id, cwd string, start time.Time, n int, calls ...string) {
	t.Helper()
	var lines []string
	add := func(at time.Time, typ string, payload map[string]any) {
		b, err := json.Marshal(map[string]any{"timestamp": at.UTC().Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	at := start
	add(at, "session_meta", map[string]any{"id": id, "timestamp": at.UTC().Format(time.RFC3339), "cwd": cwd, "originator": "codex_cli_rs"})
	add(at, "turn_context", map[string]any{"cwd": cwd, "model": "gpt-5-codex"})
	for i := range n {
		for j, name := range calls {
			at = at.Add(time.Second)
			cid := fmt.Sprintf("call_%d_%d", i, j)
			add(at, "response_item", map[string]any{"type": "function_call", "name": name, "arguments": fmt.Sprintf(`{"i":%d}`, i), "call_id": cid})
			add(at.Add(200*time.Millisecond), "response_item", map[string]any{"type": "function_call_output", "call_id": cid, "output": "ok"})
		}
		at = at.Add(time.Second)
		total := map[string]any{"input_tokens": 10_000 * (i + 1), "cached_input_tokens": 9_000 * (i + 1), "output_tokens": 100 * (i + 1), "reasoning_output_tokens": 0, "total_tokens": 10_100 * (i + 1)}
		add(at, "event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": total}})
	}
	dir := filepath.Join(h.dir, ".codex", "sessions", start.Format("2006"), start.Format("01"), start.Format("02"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "rollout-" + start.UTC().Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// write writes every session under dir/.claude/projects.
func (h *home) write(t *testing.T) string {
	t.Helper()
	root := filepath.Join(h.dir, ".claude", "projects")
	for _, s := range h.sessions {
		folder := filepath.Join(root, strings.NewReplacer("/", "-", ".", "-").Replace(s.cwd))
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, s.id+".jsonl"), []byte(strings.Join(s.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// ingest writes the home and reads it into a store (the same store on
// each call for the same path).
func (h *home) ingest(t *testing.T, db string) *store.Store {
	t.Helper()
	root := h.write(t)
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Ingest(context.Background(), store.IngestOptions{ClaudeRoots: []string{root}, CodexRoots: []string{filepath.Join(h.dir, ".codex", "sessions")}, Count: token.O200k().Count, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	return st
}

// prices reads the embedded price table of the usage package (which this
// package cannot import: it renders through a package that renders
// findings) and prices as usage does.
func prices(t *testing.T) Pricing {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "usage", "prices.json"))
	if err != nil {
		t.Fatal(err)
	}
	type rates struct {
		Input, Output, CacheWrite5m, CacheWrite1h, CacheRead float64
	}
	var table struct {
		Models map[string]struct {
			rates
			LongContext *struct {
				Threshold int64
				rates
			}
		}
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	return func(model string, input int64, fast bool) (Rates, bool) {
		m, ok := table.Models[strings.TrimSuffix(model, "-20250929")]
		if !ok {
			return Rates{}, false
		}
		r := m.rates
		if m.LongContext != nil && input > m.LongContext.Threshold {
			r = m.LongContext.rates
		}
		return Rates(r), true
	}
}

// words is a text of exactly n o200k_base tokens.
func words(t *testing.T, n int) string {
	t.Helper()
	s := strings.Repeat(" hello", n)
	if got := token.O200k().Count(s); got != n {
		t.Fatalf("words(%d) counts %d tokens", n, got)
	}
	return s
}
