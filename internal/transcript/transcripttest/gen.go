// Package transcripttest generates Claude Code and Codex transcript trees
// for tests and benchmarks, deterministically from a seed, together with
// the totals a correct reader must find in them.
//
// A tree holds every record type the readers handle: responses written as
// one line per content block with intermediate output counts, lines
// without a request id, inline sidechains, sidechain replays of a parent
// message under a new request id, sub-agent files, compaction markers,
// tool results spilled to tool-results/, images, errors, corrupt lines and
// truncated last lines; and Codex rollouts with cumulative (and repeated)
// token counts, both tool naming styles and call_id joins. Options.Quirks
// adds the shapes that readers get wrong (see there).
package transcripttest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Options shape a generated tree.
type Options struct {
	Seed     uint64
	Sessions int // Claude Code sessions
	Codex    int // Codex sessions
	Projects int
	Days     int
	Start    time.Time
	// Span, when set, starts sessions within Span of Start rather than
	// within Days days (a tree of the last hours, for billing blocks).
	Span time.Duration
	// TotalBytes, when set, scales sessions to about this many bytes of
	// Claude transcripts in all, with lognormal session sizes.
	TotalBytes int64
	// ResultBytes is the mean size of a tool result's text.
	ResultBytes int
	// Defects adds corrupt lines and truncated last lines.
	Defects bool
	// KeepTexts keeps every tool result's text in the manifest.
	KeepTexts bool
	// Quirks adds the shapes of real trees that readers get wrong: Claude
	// sessions through an LLM gateway (message ids reused across requests,
	// sessions and days, no request ids), a resumed session that starts
	// with copies of another session's lines, Claude Code's older sub-agent
	// files (<project>/agent-<id>.jsonl, 2.0.x to 2.1.1), API-error
	// placeholders (model <synthetic>), lines with usage and no type; and
	// Codex rollouts of several versions (0.47: shell output as JSON with
	// its exit code and duration, written at the call's timestamp; 0.63:
	// "Exit code:" and "Wall time:" headers; 0.128: exec_command's
	// "Process exited with code"), failed commands among them.
	Quirks bool
}

// Small is a tree for unit tests: every feature, a few kilobytes.
func Small() Options {
	return Options{Seed: 7, Sessions: 6, Codex: 3, Projects: 3, Days: 4,
		Start: time.Date(2026, 10, 30, 21, 0, 0, 0, time.UTC), ResultBytes: 600, Defects: true, KeepTexts: true}
}

// Manifest is what a correct reader finds in a tree.
type Manifest struct {
	// Requests are the distinct requests after de-duplication.
	Requests []Request `json:"requests"`
	Calls    []Call    `json:"calls"`
	// CorruptLines lists "relative/path:line" of every corrupt line.
	CorruptLines []string `json:"corruptLines"`
	// Truncated lists files whose last line is incomplete.
	Truncated   []string `json:"truncated"`
	Compactions int      `json:"compactions"`
	Files       int      `json:"files"`
	Bytes       int64    `json:"bytes"`
	// Resumed lists the resumed sessions of Options.Quirks.
	Resumed []Resumption `json:"resumed,omitempty"`
}

// Resumption is a session resumed in another: the new session's file
// starts with copies of the old one's lines. Kept is set when the new
// session keeps the copies (its file comes first in path order). FromSpan
// is the first and last time of the old session's own lines; ToSpan those
// of the new session's own lines and the copies it keeps. Live is set
// when the old session was still writing a response when it was resumed.
type Resumption struct {
	From     string       `json:"from"`
	To       string       `json:"to"`
	Kept     bool         `json:"kept"`
	Live     bool         `json:"live,omitempty"`
	FromSpan [2]time.Time `json:"fromSpan"`
	ToSpan   [2]time.Time `json:"toSpan"`
}

// Request is one distinct request.
type Request struct {
	Source    string    `json:"source"`
	SessionID string    `json:"sessionId"`
	Time      time.Time `json:"time"`
	Model     string    `json:"model"`
	Project   string    `json:"project"`
	Input     int64     `json:"input"`
	Output    int64     `json:"output"`
	Cache5m   int64     `json:"cache5m"`
	Cache1h   int64     `json:"cache1h"`
	CacheRead int64     `json:"cacheRead"`
	Sidechain bool      `json:"sidechain,omitempty"`
	AgentID   string    `json:"agentId,omitempty"`
	// Reasoning is the part of Output spent reasoning (Codex).
	Reasoning int64 `json:"reasoning,omitempty"`
	// AgentFile names the older-style sub-agent file (agent-<id>) that
	// holds the request, which ccusage lists as a session of its own.
	AgentFile string `json:"agentFile,omitempty"`
}

// Call is one tool call and its result.
type Call struct {
	Source    string        `json:"source"`
	SessionID string        `json:"sessionId"`
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	IsError   bool          `json:"isError,omitempty"`
	Latency   time.Duration `json:"latency"`
	Texts     []string      `json:"texts,omitempty"`
	Images    int           `json:"images,omitempty"`
	Spilled   bool          `json:"spilled,omitempty"`
	Args      string        `json:"args"`
}

// Generate writes a tree under home: home/.claude/projects/… and
// home/.codex/sessions/…. It returns what a reader must find.
func Generate(home string, o Options) (*Manifest, error) {
	if o.Projects <= 0 {
		o.Projects = 1
	}
	if o.Days <= 0 {
		o.Days = 1
	}
	if o.ResultBytes <= 0 {
		o.ResultBytes = 500
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	}
	g := &gen{o: o, home: home, rnd: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), m: &Manifest{}}
	g.png = tinyPNG(64, 48)
	// Session sizes: lognormal around a median, scaled to TotalBytes.
	turns := make([]int, o.Sessions)
	for i := range turns {
		turns[i] = 6
		if o.TotalBytes > 0 {
			turns[i] = 1 + int(math.Exp(g.rnd.NormFloat64()*1.0)*4)
		}
	}
	if o.TotalBytes > 0 {
		// Estimate bytes per turn and rescale.
		perTurn := float64(o.ResultBytes)*2.6*1.4*1.6 + 14000
		sum := 0
		for _, t := range turns {
			sum += t
		}
		scale := float64(o.TotalBytes) / (perTurn * float64(sum))
		for i := range turns {
			turns[i] = max(1, int(float64(turns[i])*scale+0.5))
		}
	}
	for i := 0; i < o.Sessions; i++ {
		if err := g.claudeSession(i, turns[i]); err != nil {
			return nil, err
		}
	}
	for i := 0; i < o.Codex; i++ {
		if err := g.codexSession(i); err != nil {
			return nil, err
		}
	}
	if o.Quirks {
		if err := g.quirks(); err != nil {
			return nil, err
		}
	}
	sort.Slice(g.m.Requests, func(i, j int) bool {
		a, b := g.m.Requests[i], g.m.Requests[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		return a.SessionID < b.SessionID
	})
	sort.Strings(g.m.CorruptLines)
	sort.Strings(g.m.Truncated)
	return g.m, nil
}

type gen struct {
	o    Options
	home string
	rnd  *rand.Rand
	m    *Manifest
	png  string
	n    int // id counter
}

// subagentOdds is one in how many final responses start a sub-agent: often
// in small trees (to cover it), rarely in large ones (as in real use).
func (g *gen) subagentOdds() int {
	if g.o.TotalBytes > 0 {
		return 40
	}
	return 3
}

// offset is when a session starts after Start: within Span, or Days days.
func (g *gen) offset() time.Duration {
	if g.o.Span > 0 {
		return time.Duration(g.rnd.Int64N(int64(g.o.Span)/int64(time.Millisecond))) * time.Millisecond
	}
	return time.Duration(g.rnd.IntN(g.o.Days*24*3600)) * time.Second
}

func (g *gen) id(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%08x%04x", prefix, g.rnd.Uint32(), g.n)
}

func (g *gen) uuid() string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(g.rnd.UintN(256))
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

var claudeModels = []string{
	"claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101",
	"claude-haiku-4-5-20251001", "claude-opus-4-1-20250805",
}

var projectNames = []string{"api-server", "web-app", "infra", "data-pipeline", "mobile", "docs-site", "cli-tools", "billing",
	"search", "auth", "ml-models", "gateway", "analytics", "payments", "notifications", "scheduler", "storage", "frontend", "backend", "tools"}

// tools: name, weight of the call in the mix.
var claudeTools = []string{
	"Read", "Read", "Bash", "Bash", "Grep", "Edit", "Glob",
	"mcp__github__search_issues", "mcp__github__get_file_contents", "mcp__playwright__browser_snapshot",
	"mcp__context7__get-library-docs", "mcp__plugin_acme_linear__list_issues", "mcp__postgres__query",
	"mcp__sentry__get_issue_details",
}

var words = strings.Fields(`the server returned a list of items with their fields and values for each request
function handler context error result config path file line value name type index table row column query
func return if else for range struct interface package import string int bool map slice channel defer go
select case default switch break continue var const nil true false error wrapped with short context data
issue pull request commit branch merge review comment label milestone assignee status open closed draft`)

// text writes about n bytes of text resembling tool output.
func (g *gen) text(n int) string {
	var b strings.Builder
	line := 0
	for b.Len() < n {
		switch g.rnd.IntN(10) {
		case 0:
			fmt.Fprintf(&b, `{"id": %d, "name": "%s_%s", "ok": %v, "score": %.3f}`, g.rnd.IntN(100000),
				words[g.rnd.IntN(len(words))], words[g.rnd.IntN(len(words))], g.rnd.IntN(2) == 0, g.rnd.Float64()*100)
		case 1:
			fmt.Fprintf(&b, "%6d\t    if err := %s(%s); err != nil {", line, words[g.rnd.IntN(len(words))], words[g.rnd.IntN(len(words))])
		default:
			k := 4 + g.rnd.IntN(12)
			for i := 0; i < k; i++ {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[g.rnd.IntN(len(words))])
			}
			b.WriteByte('.')
		}
		b.WriteByte('\n')
		line++
	}
	return b.String()
}

func (g *gen) resultSize() int {
	// Lognormal around ResultBytes.
	v := float64(g.o.ResultBytes) * math.Exp(g.rnd.NormFloat64()*0.9-0.405)
	return max(16, int(v))
}

func tinyPNG(w, h int) string {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), 128, 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// writer accumulates one file's lines.
type writer struct {
	rel   string
	lines [][]byte
	// truncate the last line (no newline, cut in half)
	truncate bool
}

func (w *writer) add(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	w.lines = append(w.lines, b)
}

func (g *gen) flush(w *writer) error {
	path := filepath.Join(g.home, filepath.FromSlash(w.rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	for i, l := range w.lines {
		if i == len(w.lines)-1 && w.truncate {
			bw.Write(l[:len(l)/2])
			break
		}
		bw.Write(l)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	g.m.Files++
	g.m.Bytes += fi.Size()
	if w.truncate {
		g.m.Truncated = append(g.m.Truncated, w.rel)
	}
	return nil
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Claude Code line shapes, in the field order Claude Code writes.
type cLine struct {
	ParentUUID       *string `json:"parentUuid"`
	IsSidechain      bool    `json:"isSidechain"`
	UserType         string  `json:"userType"`
	Cwd              string  `json:"cwd"`
	SessionID        string  `json:"sessionId"`
	Version          string  `json:"version"`
	GitBranch        string  `json:"gitBranch"`
	AgentID          string  `json:"agentId,omitempty"`
	Type             string  `json:"type"`
	Subtype          string  `json:"subtype,omitempty"`
	Content          string  `json:"content,omitempty"`
	CompactMetadata  any     `json:"compactMetadata,omitempty"`
	Message          any     `json:"message,omitempty"`
	RequestID        string  `json:"requestId,omitempty"`
	UUID             string  `json:"uuid"`
	Timestamp        string  `json:"timestamp"`
	ToolUseResult    any     `json:"toolUseResult,omitempty"`
	IsCompactSummary bool    `json:"isCompactSummary,omitempty"`
}

type cMessage struct {
	ID         string `json:"id,omitempty"`
	Type       string `json:"type,omitempty"`
	Role       string `json:"role"`
	Model      string `json:"model,omitempty"`
	Content    any    `json:"content"`
	StopReason any    `json:"stop_reason,omitempty"`
	Usage      any    `json:"usage,omitempty"`
}

type cUsage struct {
	InputTokens              int64    `json:"input_tokens"`
	CacheCreationInputTokens int64    `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64    `json:"cache_read_input_tokens"`
	CacheCreation            *cSplit  `json:"cache_creation,omitempty"`
	OutputTokens             int64    `json:"output_tokens"`
	ServiceTier              string   `json:"service_tier"`
	ServerToolUse            *cServer `json:"server_tool_use,omitempty"`
}

type cSplit struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

type cServer struct {
	WebSearch int `json:"web_search_requests"`
	WebFetch  int `json:"web_fetch_requests"`
}

// session state while writing one Claude session.
type cSession struct {
	id, cwd, project string
	now              time.Time
	context          int64 // tokens in the context so far
	model            string
	last             string // uuid of the last line
}

func (g *gen) claudeSession(i, turns int) error {
	p := i % g.o.Projects
	cwd := "/home/dev/src/" + projectNames[p%len(projectNames)]
	if p >= len(projectNames) {
		cwd += fmt.Sprint(p / len(projectNames))
	}
	// Claude Code's folder name: every non-alphanumeric character becomes '-'.
	dir := strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, cwd)
	s := &cSession{id: g.uuid(), cwd: cwd, project: dir,
		now:   g.o.Start.Add(g.offset()),
		model: claudeModels[i%len(claudeModels)], context: 12000}
	w := &writer{rel: ".claude/projects/" + dir + "/" + s.id + ".jsonl"}
	w.add(map[string]any{"type": "summary", "summary": "Earlier work on " + projectNames[p%len(projectNames)], "leafUuid": g.uuid()})
	for t := 0; t < turns; t++ {
		g.prompt(w, s, "", false)
		steps := 1 + g.rnd.IntN(4)
		for k := 0; k < steps; k++ {
			if err := g.response(w, s, "", false, k == steps-1); err != nil {
				return err
			}
		}
		if t == turns/2 && turns > 2 {
			g.compact(w, s)
		}
	}
	if g.o.Defects && i%3 == 1 && len(w.lines) > 4 {
		// A corrupt line in the middle: a line cut short, then garbage.
		at := len(w.lines) / 2
		bad := append([]byte{}, w.lines[at][:len(w.lines[at])/3]...)
		w.lines = append(w.lines[:at], append([][]byte{bad}, w.lines[at:]...)...)
		g.m.CorruptLines = append(g.m.CorruptLines, fmt.Sprintf("%s:%d", w.rel, at+1))
	}
	if g.o.Defects && i%3 == 2 {
		// The session is still being written: a partial last line, which
		// must not count (it is a duplicate copy of nothing yet seen).
		g.partialResponse(w, s)
	}
	return g.flush(w)
}

func (g *gen) line(s *cSession, agent string, side bool, typ string) cLine {
	parent := s.last
	u := g.uuid()
	s.last = u
	l := cLine{IsSidechain: side, UserType: "external", Cwd: s.cwd, SessionID: s.id, Version: "2.1.97", GitBranch: "main",
		AgentID: agent, Type: typ, UUID: u, Timestamp: ts(s.now)}
	if parent != "" {
		l.ParentUUID = &parent
	}
	return l
}

func (g *gen) prompt(w *writer, s *cSession, agent string, side bool) {
	s.now = s.now.Add(time.Duration(20+g.rnd.IntN(600)) * time.Second)
	l := g.line(s, agent, side, "user")
	l.Message = cMessage{Role: "user", Content: "Please " + g.text(60)}
	w.add(l)
	s.context += 40 + int64(g.rnd.IntN(200))
}

// response writes one API response as one line per content block, then
// the results of its tool calls.
func (g *gen) response(w *writer, s *cSession, agent string, side bool, final bool) error {
	s.now = s.now.Add(time.Duration(2000+g.rnd.IntN(20000)) * time.Millisecond)
	msgID := g.id("msg_01")
	reqID := g.id("req_01")
	if g.rnd.IntN(12) == 0 {
		reqID = "" // a gateway that records no request id
	}
	// Usage: context grows; cache reads dominate.
	out := int64(20 + g.rnd.IntN(900))
	in := int64(1 + g.rnd.IntN(30))
	grow := int64(200 + g.rnd.IntN(3000))
	c5, c1 := grow, int64(0)
	var split *cSplit
	switch g.rnd.IntN(3) {
	case 0:
		c5, c1 = grow/3, grow-grow/3
		split = &cSplit{c5, c1}
	case 1:
		split = &cSplit{c5, 0}
	}
	read := s.context
	if read > 170000 { // stay below the 200k long-context threshold
		read = 170000
	}
	s.context += grow + out
	var server *cServer
	if g.rnd.IntN(15) == 0 {
		server = &cServer{WebSearch: 1}
	}
	usage := func(o int64) cUsage {
		return cUsage{InputTokens: in, CacheCreationInputTokens: c5 + c1, CacheReadInputTokens: read, CacheCreation: split,
			OutputTokens: o, ServiceTier: "standard", ServerToolUse: server}
	}
	type block = map[string]any
	var blocks []block
	if g.rnd.IntN(2) == 0 {
		blocks = append(blocks, block{"type": "thinking", "thinking": g.text(200), "signature": "sig"})
	}
	blocks = append(blocks, block{"type": "text", "text": g.text(120)})
	var calls []Call
	if !final || g.rnd.IntN(3) == 0 {
		n := 1 + g.rnd.IntN(2)
		for c := 0; c < n; c++ {
			name := claudeTools[g.rnd.IntN(len(claudeTools))]
			args := map[string]any{"query": g.text(20), "limit": g.rnd.IntN(50)}
			if g.rnd.IntN(6) == 0 {
				args = map[string]any{"query": "repeat me", "limit": 10} // identical repeats
			}
			ab, _ := json.Marshal(args)
			id := g.id("toolu_01")
			blocks = append(blocks, block{"type": "tool_use", "id": id, "name": name, "input": json.RawMessage(ab)})
			calls = append(calls, Call{Source: "claude", SessionID: s.id, ID: id, Name: name, Args: string(ab)})
		}
	}
	for b, bl := range blocks {
		l := g.line(s, agent, side, "assistant")
		o := out
		if b < len(blocks)-1 {
			o = int64(1 + g.rnd.IntN(8)) // intermediate output count
		}
		l.RequestID = reqID
		l.Message = cMessage{ID: msgID, Type: "message", Role: "assistant", Model: s.model, Content: []block{bl}, Usage: usage(o)}
		w.add(l)
	}
	req := Request{Source: "claude", SessionID: s.id, Time: s.now, Model: s.model, Project: s.cwd, Input: in, Output: out,
		Cache5m: c5, Cache1h: c1, CacheRead: read, Sidechain: side, AgentID: agent}
	if split == nil {
		req.Cache5m, req.Cache1h = c5+c1, 0
	}
	// The request's time is its first line's; the copies follow within
	// the same second or so.
	g.m.Requests = append(g.m.Requests, req)
	if !side && agent == "" && g.rnd.IntN(10) == 0 {
		// A /btw sidechain replays this message under a new request id,
		// with a larger total: the non-sidechain copy must win.
		l := g.line(s, agent, true, "assistant")
		l.RequestID = g.id("req_01")
		l.Message = cMessage{ID: msgID, Type: "message", Role: "assistant", Model: s.model, Content: []block{blocks[0]}, Usage: usage(out + 500)}
		w.add(l)
	}
	callTime := s.now
	for ci := range calls {
		c := &calls[ci]
		lat := time.Duration(30+g.rnd.IntN(4000)) * time.Millisecond
		if strings.HasPrefix(c.Name, "mcp__playwright") {
			lat += 3 * time.Second
		}
		c.Latency = lat
		size := g.resultSize()
		var content any
		var texts []string
		switch r := g.rnd.IntN(14); {
		case r == 0 && strings.HasPrefix(c.Name, "mcp__playwright"):
			t := "Screenshot taken"
			texts = []string{t}
			c.Images = 1
			content = []block{{"type": "text", "text": t}, {"type": "image", "source": block{"type": "base64", "media_type": "image/png", "data": g.png}}}
		case r == 1:
			t := "Error: " + g.text(80)
			texts = []string{t}
			c.IsError = true
			content = t
		case r == 2:
			// Spilled: the model sees a preview; the output is in a file.
			file := fmt.Sprintf("/home/dev/.claude/projects/%s/%s/tool-results/%s.txt", s.project, s.id, c.ID)
			full := g.text(size * 4)
			t := fmt.Sprintf("Output too large (%d KB). Full output saved to: %s\n\nPreview (first 2KB):\n%s", len(full)/1024, file, full[:min(len(full), 2000)])
			texts = []string{t}
			c.Spilled = true
			content = t
			rel := ".claude/projects/" + s.project + "/" + s.id + "/tool-results/" + c.ID + ".txt"
			if err := os.MkdirAll(filepath.Join(g.home, filepath.Dir(rel)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(g.home, rel), []byte(full), 0o644); err != nil {
				return err
			}
		case r < 8 && strings.HasPrefix(c.Name, "mcp__"):
			t1, t2 := g.text(size/2), g.text(size/2)
			texts = []string{t1, t2}
			content = []block{{"type": "text", "text": t1}, {"type": "text", "text": t2}}
		default:
			t := g.text(size)
			texts = []string{t}
			content = t
		}
		s.now = s.now.Add(lat)
		c.Latency = s.now.Sub(callTime)
		l := g.line(s, agent, side, "user")
		tr := block{"tool_use_id": c.ID, "type": "tool_result", "content": content}
		if c.IsError {
			tr["is_error"] = true
		}
		l.Message = cMessage{Role: "user", Content: []block{tr}}
		// Claude Code repeats the result in toolUseResult.
		l.ToolUseResult = map[string]any{"content": content, "durationMs": lat.Milliseconds()}
		w.add(l)
		s.context += int64(size / 4)
		if g.o.KeepTexts {
			c.Texts = texts
		}
		g.m.Calls = append(g.m.Calls, *c)
	}
	if !side && agent == "" && final && g.rnd.IntN(g.subagentOdds()) == 0 {
		return g.subagent(w, s)
	}
	if !side && agent == "" && g.rnd.IntN(8) == 0 {
		// An inline sidechain exchange (older Task tool).
		g.prompt(w, s, "", true)
		return g.response(w, s, "", true, true)
	}
	return nil
}

// subagent runs a Task through a sub-agent file.
func (g *gen) subagent(w *writer, s *cSession) error {
	agent := "agent-a" + g.id("")[:12]
	taskID := g.id("toolu_01")
	l := g.line(s, "", false, "assistant")
	msgID := g.id("msg_01")
	l.RequestID = g.id("req_01")
	out := int64(100 + g.rnd.IntN(200))
	read := min(s.context, 170000)
	l.Message = cMessage{ID: msgID, Type: "message", Role: "assistant", Model: s.model,
		Content: []map[string]any{{"type": "tool_use", "id": taskID, "name": "Task", "input": map[string]any{"description": "explore", "prompt": "look around"}}},
		Usage:   cUsage{InputTokens: 3, CacheCreationInputTokens: 150, CacheReadInputTokens: read, OutputTokens: out, ServiceTier: "standard"}}
	w.add(l)
	g.m.Requests = append(g.m.Requests, Request{Source: "claude", SessionID: s.id, Time: s.now, Model: s.model, Project: s.cwd,
		Input: 3, Output: out, Cache5m: 150, CacheRead: read})
	start := s.now
	sub := &cSession{id: s.id, cwd: s.cwd, project: s.project, now: s.now, model: "claude-haiku-4-5-20251001", context: 8000}
	sw := &writer{rel: ".claude/projects/" + s.project + "/" + s.id + "/subagents/" + agent + ".jsonl"}
	g.prompt(sw, sub, strings.TrimPrefix(agent, "agent-"), true)
	for k := 0; k < 2; k++ {
		if err := g.response(sw, sub, strings.TrimPrefix(agent, "agent-"), true, k == 1); err != nil {
			return err
		}
	}
	// Sub-agent requests belong to the parent session, under the agent.
	for i := range g.m.Requests {
		if g.m.Requests[i].AgentID == strings.TrimPrefix(agent, "agent-") {
			g.m.Requests[i].AgentID = agent
		}
	}
	if err := g.flush(sw); err != nil {
		return err
	}
	s.now = sub.now.Add(time.Second)
	lr := g.line(s, "", false, "user")
	t := "Explored: " + g.text(300)
	lr.Message = cMessage{Role: "user", Content: []map[string]any{{"tool_use_id": taskID, "type": "tool_result", "content": []map[string]any{{"type": "text", "text": t}}}}}
	w.add(lr)
	c := Call{Source: "claude", SessionID: s.id, ID: taskID, Name: "Task", Latency: s.now.Sub(start), Args: `{"description":"explore","prompt":"look around"}`}
	if g.o.KeepTexts {
		c.Texts = []string{t}
	}
	g.m.Calls = append(g.m.Calls, c)
	return nil
}

func (g *gen) compact(w *writer, s *cSession) {
	s.now = s.now.Add(5 * time.Second)
	l := g.line(s, "", false, "system")
	l.Subtype = "compact_boundary"
	l.Content = "Conversation compacted"
	l.CompactMetadata = map[string]any{"trigger": "auto", "preTokens": s.context}
	w.add(l)
	l2 := g.line(s, "", false, "user")
	l2.IsCompactSummary = true
	l2.Message = cMessage{Role: "user", Content: "This session is being continued from a previous conversation. " + g.text(300)}
	w.add(l2)
	s.context = 15000
	g.m.Compactions++
}

// partialResponse writes a response whose last line is cut: only complete
// lines count, and the cut line is a later copy of the same message, so the
// complete copy (with its intermediate output count) is what is found now.
func (g *gen) partialResponse(w *writer, s *cSession) {
	s.now = s.now.Add(3 * time.Second)
	msgID, reqID := g.id("msg_01"), g.id("req_01")
	read := min(s.context, 170000)
	u := cUsage{InputTokens: 4, CacheCreationInputTokens: 100, CacheReadInputTokens: read, OutputTokens: 2, ServiceTier: "standard"}
	l := g.line(s, "", false, "assistant")
	l.RequestID = reqID
	l.Message = cMessage{ID: msgID, Type: "message", Role: "assistant", Model: s.model, Content: []map[string]any{{"type": "text", "text": "Working"}}, Usage: u}
	w.add(l)
	g.m.Requests = append(g.m.Requests, Request{Source: "claude", SessionID: s.id, Time: s.now, Model: s.model, Project: s.cwd,
		Input: 4, Output: 2, Cache5m: 100, CacheRead: read})
	u.OutputTokens = 400
	l2 := g.line(s, "", false, "assistant")
	l2.RequestID = reqID
	l2.Message = cMessage{ID: msgID, Type: "message", Role: "assistant", Model: s.model, Content: []map[string]any{{"type": "text", "text": g.text(300)}}, Usage: u}
	w.add(l2)
	w.truncate = true
}

// Codex rollout lines.
type xLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type xUsage struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

var codexModels = []string{"gpt-5-codex", "gpt-5", "gpt-5-codex"}

// codexVersions are the rollout formats Options.Quirks writes, one per
// session in turn.
var codexVersions = []string{"0.47.0", "0.63.0", "0.128.0"}

// shellOutput writes a shell command's output as Codex version writes it,
// failing one command in three, and returns it with the duration it
// records (which a reader must take for the latency) and whether it failed.
// lat is the time between the call's and the result's timestamps.
func (g *gen) shellOutput(version, text string, lat time.Duration) (string, time.Duration, bool) {
	code := 0
	if g.rnd.IntN(3) == 0 {
		code = 1 + g.rnd.IntN(127)
	}
	switch version {
	case "0.47.0":
		// Up to 70 s, though the timestamps say nothing.
		d := time.Duration(g.rnd.IntN(70000)) * time.Millisecond
		b, _ := json.Marshal(map[string]any{"output": text, "metadata": map[string]any{"exit_code": code, "duration_seconds": d.Seconds()}})
		return string(b), d, code != 0
	case "0.63.0":
		d := (lat * 9 / 10).Truncate(time.Millisecond)
		return fmt.Sprintf("Exit code: %d\nWall time: %.4f seconds\nOutput:\n%s", code, d.Seconds(), text), d, code != 0
	}
	d := (lat * 8 / 10).Truncate(time.Millisecond)
	return fmt.Sprintf("Chunk ID: %04x\nWall time: %.4f seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n%s",
		g.rnd.IntN(1<<16), d.Seconds(), code, len(text)/4, text), d, code != 0
}

var codexTools = []string{"shell", "shell", "mcp__github__search_issues", "ns:mcp__linear__:list_issues", "apply_patch", "mcp__postgres__query"}

func (g *gen) codexSession(i int) error {
	id := g.uuid()
	cwd := "/home/dev/src/" + projectNames[i%g.o.Projects%len(projectNames)]
	now := g.o.Start.Add(g.offset())
	rel := fmt.Sprintf(".codex/sessions/%s/rollout-%s-%s.jsonl", now.Format("2006/01/02"), now.Format("2006-01-02T15-04-05"), id)
	w := &writer{rel: rel}
	model := codexModels[i%len(codexModels)]
	version := "0.128.0"
	if g.o.Quirks {
		version = codexVersions[i%len(codexVersions)]
	}
	w.add(xLine{ts(now), "session_meta", map[string]any{"id": id, "timestamp": ts(now), "cwd": cwd, "originator": "codex_cli_rs", "cli_version": version,
		"instructions": nil, "git": map[string]any{"branch": "main"}}})
	var total xUsage
	context := int64(9000)
	for t := 0; t < 5; t++ {
		now = now.Add(time.Duration(30+g.rnd.IntN(300)) * time.Second)
		w.add(xLine{ts(now), "turn_context", map[string]any{"cwd": cwd, "approval_policy": "on-request", "model": model, "effort": "medium", "summary": "auto"}})
		w.add(xLine{ts(now), "response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "do " + g.text(40)}}}})
		n := 1 + g.rnd.IntN(3)
		for c := 0; c < n; c++ {
			now = now.Add(time.Duration(1+g.rnd.IntN(5)) * time.Second)
			name := codexTools[g.rnd.IntN(len(codexTools))]
			callID := g.id("call_")
			args := fmt.Sprintf(`{"command":["bash","-lc","ls %s"],"workdir":%q}`, words[g.rnd.IntN(len(words))], cwd)
			full := name
			switch {
			case strings.HasPrefix(name, "ns:"):
				parts := strings.Split(name, ":")
				full = parts[1] + parts[2]
				w.add(xLine{ts(now), "response_item", map[string]any{"type": "function_call", "namespace": parts[1], "name": parts[2], "arguments": `{"team":"core"}`, "call_id": callID}})
				args = `{"team":"core"}`
			case name == "apply_patch":
				w.add(xLine{ts(now), "response_item", map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": callID, "name": name, "input": "*** Begin Patch\n*** End Patch"}})
				args = `"*** Begin Patch\n*** End Patch"`
			default:
				w.add(xLine{ts(now), "response_item", map[string]any{"type": "function_call", "name": name, "arguments": args, "call_id": callID}})
			}
			callAt := now
			lat := time.Duration(50+g.rnd.IntN(3000)) * time.Millisecond
			now = now.Add(lat)
			out := g.text(g.resultSize())
			typ := "function_call_output"
			if name == "apply_patch" {
				typ = "custom_tool_call_output"
			}
			failed := false
			if g.o.Quirks && name == "shell" {
				out, lat, failed = g.shellOutput(version, out, lat)
				if version == "0.47.0" {
					// The result is written at the call's timestamp: only
					// the recorded duration tells how long it ran.
					now = callAt
				}
			}
			w.add(xLine{ts(now), "response_item", map[string]any{"type": typ, "call_id": callID, "output": out}})
			c := Call{Source: "codex", SessionID: id, ID: callID, Name: full, Latency: lat, Args: args, IsError: failed}
			if g.o.KeepTexts {
				c.Texts = []string{out}
			}
			g.m.Calls = append(g.m.Calls, c)
			context += int64(len(out) / 4)
		}
		in := context + int64(g.rnd.IntN(500))
		cached := in * int64(60+g.rnd.IntN(35)) / 100
		out := int64(100 + g.rnd.IntN(2000))
		reason := out / 3
		last := xUsage{in, cached, out, reason, in + out}
		total = xUsage{total.Input + in, total.Cached + cached, total.Output + out, total.Reasoning + reason, total.Total + in + out}
		now = now.Add(2 * time.Second)
		w.add(xLine{ts(now), "event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": total, "last_token_usage": last, "model_context_window": 272000}}})
		g.m.Requests = append(g.m.Requests, Request{Source: "codex", SessionID: id, Time: now, Model: model, Project: cwd, Input: in - cached, Output: out, CacheRead: cached, Reasoning: reason})
		if g.rnd.IntN(2) == 0 {
			// Codex repeats the same total: counted once.
			w.add(xLine{ts(now.Add(time.Second)), "event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": total, "last_token_usage": last, "model_context_window": 272000}}})
		}
		w.add(xLine{ts(now), "event_msg", map[string]any{"type": "token_count", "info": nil, "rate_limits": map[string]any{"primary": map[string]any{"used_percent": 3.0}}}})
		context += out
	}
	return g.flush(w)
}
