package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"hash/maphash"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Gemini CLI records each chat in $GEMINI_DATA_DIR/tmp/<project-hash>/
// chats/ (GEMINI_DATA_DIR is ~/.gemini by default), in one of two forms
// (google-gemini/gemini-cli, packages/core/src/services/
// chatRecordingService.ts):
//
//   - session-<time>-<id>.json, one ConversationRecord rewritten whole on
//     every turn: {"sessionId", "projectHash", "startTime", "lastUpdated",
//     "messages": [MessageRecord...]};
//   - session-*.jsonl (and chats/<session>/*.jsonl), newer: a first line
//     with the session's fields, then one MessageRecord a line, a message
//     written again (same id) as it grows.
//
// A MessageRecord of type "gemini" is a model response: {"id",
// "timestamp", "type", "content", "model", "tokens": {"input", "output",
// "cached", "thoughts", "tool", "total"}, "toolCalls": [{"id", "name",
// "args", "result", "status", "timestamp", "displayName", ...}]}. Its
// input includes the cached input (Gemini's promptTokenCount), and total
// is input + output + thoughts + tool.
//
// ccusage 20 reads these files (its adapters/gemini parser); this reader
// counts as it does, so that the totals agree:
//   - the token keys have aliases (prompt, candidates, input_tokens, ...),
//     numbers are truncated to integers and negative ones are 0;
//   - the input is taken as including the cached input only when total is
//     exactly input + output + thoughts + tool (and there is cached input);
//     then the uncached input is input − cached. The tool tokens are input;
//   - what total holds beyond the parts is output when there is none, and
//     else more reasoning; reasoning (thoughts) is billed as output;
//   - in a JSONL file a message written again replaces the one before it
//     (the last copy counts, in the first one's place); in a JSON file
//     every message counts; files are never merged with each other;
//   - a response without a model (in a JSONL file: without one named on it
//     or on a line before it) or without tokens counts nothing.
//
// mcpcost's output includes the reasoning (as for Codex: Usage.Output,
// with Usage.Reasoning its part), where ccusage's outputTokens leaves it
// out and adds it to the total; the totals and costs are the same.
//
// Tool calls are recorded with their results in the response's message;
// an MCP tool's displayName is "<tool> (<server> MCP Server)" and its name
// the tool's, or "<server>__<tool>" when another server has a tool of
// that name (gemini-cli's mcp-tool.ts and tool-registry.ts).

// GeminiParser parses the lines of one Gemini CLI JSONL chat file. It
// keeps the session and the last model named from line to line.
type GeminiParser struct {
	// SessionID is the session, the file's name until a line names one.
	SessionID string
	// FileTime is the time of a response that records none (the file's
	// modification time, as ccusage takes it).
	FileTime time.Time
	model    string
}

// geminiRecord is a line of a JSONL file, or a whole JSON file.
type geminiRecord struct {
	Type         json.RawMessage `json:"type"`
	SessionID    json.RawMessage `json:"sessionId"`
	SessionIDAlt json.RawMessage `json:"session_id"`
	Model        json.RawMessage `json:"model"`
	ID           json.RawMessage `json:"id"`
	Timestamp    json.RawMessage `json:"timestamp"`
	CreatedAt    json.RawMessage `json:"created_at"`
	StartTime    json.RawMessage `json:"startTime"`
	LastUpdated  json.RawMessage `json:"lastUpdated"`
	Messages     json.RawMessage `json:"messages"`
	Tokens       json.RawMessage `json:"tokens"`
	Stats        json.RawMessage `json:"stats"`
	Result       json.RawMessage `json:"result"`
	ToolCalls    json.RawMessage `json:"toolCalls"`
}

// rawString is v when it is a JSON string, else "".
func rawString(v json.RawMessage) string {
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	if s, ok := plainString(v); ok {
		return s
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// plainString is the value of the JSON string v when it is written
// without escapes, control characters or bytes that are not UTF-8: what
// is between its quotes. ok is false for any other v.
func plainString(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	in := v[1 : len(v)-1]
	for _, c := range in {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(in) {
		return "", false
	}
	return string(in), true
}

// nonEmpty is v's string trimmed, "" when it is not a string.
func nonEmpty(v json.RawMessage) string { return strings.TrimSpace(rawString(v)) }

func (r *geminiRecord) session() string {
	if s := nonEmpty(r.SessionID); s != "" {
		return s
	}
	return nonEmpty(r.SessionIDAlt)
}

func (r *geminiRecord) isGemini() bool { return rawString(r.Type) == "gemini" }

// stats is the record's stats, or its result's (gemini -p's JSON output).
func (r *geminiRecord) stats() json.RawMessage {
	if len(r.Stats) > 0 && string(r.Stats) != "null" {
		return r.Stats
	}
	var res struct {
		Stats json.RawMessage `json:"stats"`
	}
	if len(r.Result) > 0 && r.Result[0] == '{' && json.Unmarshal(r.Result, &res) == nil && string(res.Stats) != "null" {
		return res.Stats
	}
	return nil
}

// geminiTokens is a tokens object read as ccusage reads it.
type geminiTokens struct {
	input, output, cached, thoughts, tool int64
	total                                 int64
	hasTotal                              bool
}

// tokenValue reads a JSON number as ccusage does: truncated, negative
// numbers 0; anything else is absent. A number over MaxTokens is an error.
func tokenValue(v json.RawMessage) (int64, bool, error) {
	if len(v) == 0 {
		return 0, false, nil
	}
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return 0, false, nil
	}
	// As encoding/json reads a number into a float64.
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false, errTokens // a number too large for a float64
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, nil
	}
	if f < 0 {
		return 0, true, nil
	}
	if f > MaxTokens {
		return 0, false, errTokens
	}
	return int64(f), true, nil
}

// geminiTokenKeys are the keys of a tokens object that are read, by
// their place in geminiTokens' parts: each part's aliases in the order
// they are tried.
var geminiTokenKeys = [][]string{
	{"input", "prompt", "input_tokens", "prompt_tokens"},
	{"output", "candidates", "output_tokens", "candidates_tokens"},
	{"cached", "cached_tokens"},
	{"thoughts", "reasoning", "thoughts_tokens", "reasoning_tokens"},
	{"tool", "tool_tokens"},
	{"total"},
	{"total_tokens"},
}

// geminiTokenKey is each of geminiTokenKeys' place: part and alias.
var geminiTokenKey = func() map[string][2]int {
	m := map[string][2]int{}
	for i, keys := range geminiTokenKeys {
		for j, k := range keys {
			m[k] = [2]int{i, j}
		}
	}
	return m
}()

// parseGeminiTokens reads a tokens object (valid JSON: a value of a
// document decoded before) as encoding/json would decode it into a map,
// a key written twice being its last value, without that map: its
// members are views of raw.
func parseGeminiTokens(raw json.RawMessage) (geminiTokens, bool, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return geminiTokens{}, false, nil
	}
	var vals [7][4][]byte
	var present [7][4]bool
	if splitObject(raw, func(k string, v []byte) error {
		if at, ok := geminiTokenKey[k]; ok {
			vals[at[0]][at[1]], present[at[0]][at[1]] = v, true
		}
		return nil
	}) != nil {
		return geminiTokens{}, false, nil
	}
	var err error
	first := func(part int) int64 {
		for _, v := range vals[part] {
			n, ok, e := tokenValue(v)
			if e != nil {
				err = e
			}
			if ok {
				return n
			}
		}
		return 0
	}
	t := geminiTokens{input: first(0), output: first(1), cached: first(2), thoughts: first(3), tool: first(4)}
	tv := vals[5][0]
	if !present[5][0] {
		tv = vals[6][0]
	}
	n, has, e := tokenValue(tv)
	if e != nil {
		err = e
	}
	t.total, t.hasTotal = n, has
	if err != nil {
		return geminiTokens{}, false, err
	}
	return t, true, nil
}

// uncached splits the input as ccusage does for a chat's messages: the
// input includes the cached input only when total says so.
func (t geminiTokens) uncached() (int64, int64) {
	inclusive := t.input + t.output + t.thoughts + t.tool
	if t.cached > 0 && t.hasTotal && t.total == inclusive && t.total != inclusive+t.cached {
		return t.overlap()
	}
	return t.input, t.cached
}

// overlap takes the cached input out of the input (stats' totals).
func (t geminiTokens) overlap() (int64, int64) {
	return t.input - min(t.input, t.cached), t.cached
}

// usage is the request's usage, or false when it counts nothing.
func (t geminiTokens) usage(split func(geminiTokens) (int64, int64)) (Usage, bool) {
	in, cached := split(t)
	in += t.tool
	total := in + t.output + cached + t.thoughts
	if t.hasTotal {
		total = t.total
	}
	out, extra := t.output, t.thoughts
	if missing := total - (in + out + cached + extra); missing > 0 {
		if out == 0 {
			out = missing
		} else {
			extra += missing
		}
	}
	if in == 0 && out == 0 && cached == 0 && extra == 0 {
		return Usage{}, false
	}
	u := Usage{Input: in, Output: out + extra, Reasoning: extra, CacheRead: cached}
	if u.check() != nil {
		return Usage{}, false
	}
	return u, true
}

// geminiTime is the first of the values that is an RFC 3339 time within
// [MinTime, MaxTime); ok is false when none is. The error is set when
// none is but one is a time out of that range: the line is skipped and
// reported, rather than dated by its file.
func geminiTime(vals ...json.RawMessage) (t time.Time, ok bool, err error) {
	for _, v := range vals {
		t, perr := parseTime(rawString(v))
		if perr == nil {
			return t, true, nil
		}
		if errors.Is(perr, errTimeRange) && err == nil {
			err = perr
		}
	}
	return time.Time{}, false, err
}

// geminiAt is the time of a record: the first of vals that is a time
// (see geminiTime), else fallback (its file's), which must be within
// [MinTime, MaxTime) too.
func geminiAt(fallback time.Time, vals ...json.RawMessage) (time.Time, error) {
	t, ok, err := geminiTime(vals...)
	switch {
	case err != nil:
		return time.Time{}, err
	case ok:
		return t, nil
	}
	if _, err := checkTime(fallback); err != nil {
		return time.Time{}, errors.New("no time recorded, and the file's " + err.Error())
	}
	return fallback, nil
}

// ParseLine implements Parser for a JSONL chat file's lines.
func (p *GeminiParser) ParseLine(line []byte) (*Record, error) {
	rec, _, err := p.parse(line)
	return rec, err
}

// What a line names, of the parser's state (see decode).
const (
	namesSession = 1 << iota
	namesModel
)

// decode decodes a line into r, taking the session and the model it
// names (named says which).
func (p *GeminiParser) decode(line []byte, r *geminiRecord) (named int, err error) {
	if err := json.Unmarshal(line, r); err != nil {
		return 0, errors.New("not a JSON object")
	}
	if s := r.session(); s != "" {
		p.SessionID = s
		named |= namesSession
	}
	if m := nonEmpty(r.Model); m != "" {
		p.model = m
		named |= namesModel
	}
	return named, nil
}

// parse parses a line, with the times its tool results were recorded at.
func (p *GeminiParser) parse(line []byte) (*Record, []time.Time, error) {
	var r geminiRecord
	if _, err := p.decode(line, &r); err != nil {
		return nil, nil, err
	}
	if r.isGemini() {
		ts, err := geminiAt(p.FileTime, r.Timestamp, r.CreatedAt)
		if err != nil {
			return nil, nil, err
		}
		return geminiMessage(&r, p.model, p.SessionID, ts)
	}
	var rec *Record
	var err error
	if st := r.stats(); st != nil {
		ts, terr := geminiAt(p.FileTime, r.Timestamp)
		if terr != nil {
			return nil, nil, terr
		}
		rec, err = geminiStats(st, p.model, p.SessionID, ts)
	}
	return rec, nil, err
}

// copyID is the message id of a line that parse makes a record with a
// request of, else "" (a line whose later copies replace it, in a JSONL
// file), with what the line names of the parser's state, which it takes
// as parse does. Its tool calls are not read.
func (p *GeminiParser) copyID(line []byte) (id string, named int) {
	var r geminiRecord
	named, err := p.decode(line, &r)
	if err != nil || !r.isGemini() {
		return "", named
	}
	if id = nonEmpty(r.ID); id == "" {
		return "", named
	}
	if _, err := geminiAt(p.FileTime, r.Timestamp, r.CreatedAt); err != nil {
		return "", named
	}
	if q, err := geminiRequest(&r, p.model); err != nil || q == nil {
		return "", named
	}
	return id, named
}

// geminiMessage is the record of a response: its request and tool calls,
// with the times their results were recorded at (zero where none).
func geminiMessage(r *geminiRecord, model, session string, ts time.Time) (*Record, []time.Time, error) {
	rec := &Record{Time: ts, SessionID: session, MessageID: nonEmpty(r.ID)}
	q, err := geminiRequest(r, model)
	if err != nil {
		return nil, nil, err
	}
	rec.Request = q
	times := geminiToolCalls(rec, r.ToolCalls)
	if rec.Request == nil && len(rec.Calls) == 0 {
		return nil, nil, nil
	}
	return rec, times, nil
}

// geminiRequest is the request of a response, the model named before it
// standing in for its own; nil when it counts nothing.
func geminiRequest(r *geminiRecord, model string) (*Request, error) {
	if m := nonEmpty(r.Model); m != "" {
		model = m
	}
	t, ok, err := parseGeminiTokens(r.Tokens)
	if err != nil || !ok || model == "" {
		return nil, err
	}
	if u, ok := t.usage(geminiTokens.uncached); ok {
		return &Request{Model: model, Usage: u}, nil
	}
	return nil, nil
}

// geminiStats is the record of a stats object (gemini -p's totals): one
// request per model it lists, or one for the whole.
func geminiStats(raw json.RawMessage, model, session string, ts time.Time) (*Record, error) {
	var st map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &st) != nil {
		return nil, nil
	}
	// One record holds one request: the first model that counts (ccusage
	// lists a stats object's models in its own order, which no file shows
	// with more than one).
	var models map[string]struct {
		Tokens json.RawMessage `json:"tokens"`
	}
	if json.Unmarshal(st["models"], &models) == nil && len(models) > 0 {
		names := make([]string, 0, len(models))
		for n := range models {
			names = append(names, n)
		}
		for _, n := range sortedStrings(names) {
			t, ok, err := parseGeminiTokens(models[n].Tokens)
			if err != nil {
				return nil, err
			}
			if u, ok2 := t.usage(geminiTokens.overlap); ok && ok2 && strings.TrimSpace(n) != "" {
				return &Record{Time: ts, SessionID: session, Request: &Request{Model: n, Usage: u}}, nil
			}
		}
	}
	t, ok, err := parseGeminiTokens(raw)
	if err != nil || !ok {
		return nil, err
	}
	if model == "" {
		model = "unknown"
	}
	if u, ok := t.usage(geminiTokens.overlap); ok {
		return &Record{Time: ts, SessionID: session, Request: &Request{Model: model, Usage: u}}, nil
	}
	return nil, nil
}

func sortedStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// geminiCall is a toolCalls entry.
type geminiCall struct {
	ID          json.RawMessage `json:"id"`
	Name        json.RawMessage `json:"name"`
	Args        json.RawMessage `json:"args"`
	Result      json.RawMessage `json:"result"`
	Status      json.RawMessage `json:"status"`
	DisplayName json.RawMessage `json:"displayName"`
	Timestamp   json.RawMessage `json:"timestamp"`
}

// geminiToolCalls adds a message's tool calls and their results to rec,
// returning the time each result was recorded at (the call's timestamp,
// written when it ended; zero where it has none).
func geminiToolCalls(rec *Record, raw json.RawMessage) (times []time.Time) {
	var calls []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &calls) != nil {
		return nil
	}
	for _, c := range calls {
		var gc geminiCall
		if json.Unmarshal(c, &gc) != nil {
			continue
		}
		id, name := rawString(gc.ID), rawString(gc.Name)
		if id == "" || name == "" {
			continue
		}
		rec.Calls = append(rec.Calls, ToolCall{ID: id, Name: name, Tool: GeminiToolName(name, rawString(gc.DisplayName)), Args: gc.Args})
		if len(gc.Result) == 0 || string(gc.Result) == "null" {
			continue
		}
		res := ToolResult{ID: id, IsError: rawString(gc.Status) == "error"}
		geminiParts(&res, gc.Result, 0)
		rec.Results = append(rec.Results, res)
		at, _, _ := geminiTime(gc.Timestamp)
		times = append(times, at)
	}
	return times
}

// splitResults moves the results recorded at a time of their own, later
// than the call's, into records of that time: the time from a call to its
// result is the latency the reports show.
func splitResults(rec *Record, times []time.Time) []*Record {
	if rec == nil || len(times) != len(rec.Results) {
		return nil
	}
	var more []*Record
	kept := rec.Results[:0]
	for i, res := range rec.Results {
		if !times[i].After(rec.Time) {
			kept = append(kept, res)
			continue
		}
		more = append(more, &Record{Time: times[i], SessionID: rec.SessionID, Results: []ToolResult{res}})
	}
	rec.Results = kept
	return more
}

// geminiMaxDepth bounds the walk of a tool result's parts.
const geminiMaxDepth = 64

// geminiParts adds what a result (a PartListUnion: a string, a Part or a
// list of them) showed the model: text parts, a functionResponse's
// output or error, an MCP result's content blocks; inline data and
// anything else is estimated (see addOther). raw is valid JSON (a value
// of a document decoded before), walked through views of its bytes: a
// copy at each level would hold the result up to geminiMaxDepth times.
func geminiParts(r *ToolResult, raw json.RawMessage, depth int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	if depth > geminiMaxDepth {
		r.addOther(raw)
		return
	}
	switch raw[0] {
	case '"':
		if s := rawString(raw); s != "" {
			r.addText(s)
		}
	case '[':
		var parts [][]byte
		if splitArray(raw, nil, func(p []byte) error { parts = append(parts, p); return nil }) != nil {
			r.addOther(raw)
			return
		}
		for _, p := range parts {
			geminiParts(r, p, depth+1)
		}
	case '{':
		part, ok := members(raw)
		if !ok {
			r.addOther(raw)
			return
		}
		switch {
		case len(part["text"]) > 0 && part["text"][0] == '"':
			r.addText(rawString(part["text"]))
		case part["functionResponse"] != nil:
			fr := bytes.TrimSpace(part["functionResponse"])
			if string(fr) == "null" {
				return
			}
			if len(fr) == 0 || fr[0] != '{' {
				r.addOther(raw)
				return
			}
			// Matched as encoding/json matches a struct's field: any
			// case, the last one written.
			var resp []byte
			splitObject(fr, func(k string, v []byte) error {
				if strings.EqualFold(k, "response") {
					resp = v
				}
				return nil
			})
			geminiResponse(r, resp, depth+1)
		case part["inlineData"] != nil:
			var d struct {
				MimeType string `json:"mimeType"`
				Data     string `json:"data"`
			}
			json.Unmarshal(part["inlineData"], &d)
			r.NonText++
			if strings.HasPrefix(d.MimeType, "image/") {
				r.EstimatedTokens += imageBlockTokens(d.Data)
			} else {
				r.EstimatedTokens += (len(d.Data) + 3) / 4
			}
		default:
			r.addOther(raw)
		}
	default:
		r.addOther(raw)
	}
}

// members are the members of the JSON object raw by key, views of raw
// (of a key written twice, the last, as encoding/json takes it); false
// when raw is not an object.
func members(raw []byte) (map[string][]byte, bool) {
	m := map[string][]byte{}
	err := splitObject(raw, func(k string, v []byte) error {
		m[strings.Clone(k)] = v
		return nil
	})
	return m, err == nil
}

// geminiResponse adds a functionResponse's response: {"output": ...},
// {"error": ...}, an MCP result's {"content": [...]}, or other JSON.
func geminiResponse(r *ToolResult, raw json.RawMessage, depth int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		geminiParts(r, raw, depth)
		return
	}
	resp, ok := members(raw)
	if !ok {
		geminiParts(r, raw, depth)
		return
	}
	used := false
	if v, ok := resp["output"]; ok {
		geminiParts(r, v, depth+1)
		used = true
	}
	if v, ok := resp["error"]; ok && string(v) != "null" {
		r.IsError = true
		geminiParts(r, v, depth+1)
		used = true
	}
	if v, ok := resp["content"]; ok {
		r.addContent(v, nil, nil)
		used = true
	}
	if !used {
		r.addOther(raw)
	}
}

// GeminiToolName takes a Gemini CLI tool name apart, with the
// displayName it was recorded with: an MCP tool's displayName is
// "<tool> (<server> MCP Server)", and its name "<tool>" or, where another
// server's tool has that name, "<server>__<tool>". A name in Claude's
// mcp__<server>__<tool> form is read as such; any other name is a
// built-in tool (read_file, run_shell_command, ...).
func GeminiToolName(name, display string) Tool {
	if strings.HasSuffix(display, " MCP Server)") {
		d := strings.TrimSuffix(display, " MCP Server)")
		if i := strings.LastIndex(d, " ("); i >= 0 && i+2 < len(d) {
			server := d[i+2:]
			tool := strings.TrimPrefix(name, server+"__")
			if tool == "" {
				tool = name
			}
			return Tool{Server: server, Name: tool}
		}
	}
	if strings.HasPrefix(name, "mcp__") {
		return ParseToolName(name)
	}
	if server, tool, ok := strings.Cut(name, "__"); ok && server != "" && tool != "" {
		return Tool{Server: server, Name: tool}
	}
	return Tool{Name: name, BuiltIn: true}
}

// An Item is one record of a file read whole (a Gemini CLI chat, an
// opencode message, part or database), or the error of one of its lines,
// messages or rows, with the line (or row) it starts on.
type Item struct {
	Line int
	Rec  *Record
	// More are records of the message's tool results, at the times they
	// were recorded at.
	More []*Record `json:",omitempty"`
	Err  error
}

// ReadGemini reads a whole Gemini CLI chat file's bytes: a JSONL file
// (name ending in .jsonl) line by line, a message written again replacing
// the one before it; a JSON file as one ConversationRecord. session is
// the session its path names; fileTime stands in for a response's
// missing timestamp. Items come in file order; records without a request
// or tool calls are left out.
func ReadGemini(data []byte, name, session string, fileTime time.Time) []Item {
	var items []Item
	ScanGemini(bytes.NewReader(data), int64(len(data)), name, session, fileTime, func(it Item) error {
		items = append(items, it)
		return nil
	})
	return items
}

// ScanGemini is ReadGemini reading the first size bytes of r (fewer if
// it ends before), each item passed to fn as it is made, none kept once
// fn returns. A JSONL file is read twice, line by line, its bytes never
// held: first for where each message's copies are, then for the items
// (see readGeminiJSONL). A JSON document is read whole. An error of fn
// ends the read and is returned as it is, as is an error reading r.
func ScanGemini(r io.ReaderAt, size int64, name, session string, fileTime time.Time, fn func(Item) error) error {
	if strings.HasSuffix(name, ".jsonl") {
		return readGeminiJSONL(r, size, session, fileTime, fn)
	}
	data := make([]byte, size)
	n, err := io.ReadFull(io.NewSectionReader(r, 0, size), data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return err
	}
	return readGeminiJSON(data[:n], session, fileTime, fn)
}

// geminiKey is a hash of a message id (128 bits: two ids that collide are
// as unlikely as two random 128-bit values that do).
type geminiKey [2]uint64

// lineRef is where a line is in its file: its offset and its length,
// newline included (n 0: no line).
type lineRef struct {
	off int64
	n   int
}

// A geminiCopy is a message of a JSONL file written more than once:
// where its last copy is, and the lines that named the session and the
// model in force before it, so that the copy can be read again out of
// its turn, in the first copy's place.
type geminiCopy struct {
	last           int // its line number
	at             lineRef
	session, model lineRef
	done           bool // passed on, in the first copy's place
}

// geminiLines calls fn with each line of the first size bytes of r,
// trimmed of spaces (blank lines are counted, not passed), with its
// number and where it is. A last line without a newline is a line. The
// line's bytes are reused once fn returns.
func geminiLines(r io.ReaderAt, size int64, fn func(line []byte, no int, at lineRef) error) error {
	br := bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10)
	var long []byte
	off := int64(0)
	for no := 1; ; no++ {
		chunk, err := br.ReadSlice('\n')
		line := chunk
		if err == bufio.ErrBufferFull {
			long = append(long[:0], chunk...)
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				long = append(long, chunk...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return err
		}
		if len(line) == 0 {
			return nil
		}
		at := lineRef{off, len(line)}
		off += int64(len(line))
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if ferr := fn(t, no, at); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// readLineAt reads the line at at, trimmed of spaces.
func readLineAt(r io.ReaderAt, at lineRef) []byte {
	b := make([]byte, at.n)
	n, _ := r.ReadAt(b, at.off)
	return bytes.TrimSpace(b[:n])
}

// readGeminiJSONL reads a JSONL chat file in two passes, holding a few
// bytes a message rather than the file or its items. The first finds
// the messages written more than once: of each, the place of its last
// copy and the lines that named the session and model before it. The
// second passes the items in file order, each message's last copy read
// again at its first copy (with the session and model of its own
// place), its other copies skipped.
func readGeminiJSONL(r io.ReaderAt, size int64, session string, fileTime time.Time, fn func(Item) error) error {
	seeds := [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	key := func(id string) geminiKey {
		return geminiKey{maphash.String(seeds[0], id), maphash.String(seeds[1], id)}
	}
	seen := map[geminiKey]struct{}{}
	copies := map[geminiKey]geminiCopy{} // values, for the collector not to walk
	p := &GeminiParser{SessionID: session, FileTime: fileTime}
	var sessionAt, modelAt lineRef
	err := geminiLines(r, size, func(line []byte, no int, at lineRef) error {
		before := [2]lineRef{sessionAt, modelAt}
		id, named := p.copyID(line)
		if named&namesSession != 0 {
			sessionAt = at
		}
		if named&namesModel != 0 {
			modelAt = at
		}
		if id == "" {
			return nil
		}
		k := key(id)
		if _, ok := seen[k]; !ok {
			seen[k] = struct{}{}
			return nil
		}
		copies[k] = geminiCopy{last: no, at: at, session: before[0], model: before[1]}
		return nil
	})
	if err != nil {
		return err
	}
	seen = nil
	// The session and model in force at a line, from the lines that named
	// them before it.
	stateAt := func(c geminiCopy) *GeminiParser {
		q := &GeminiParser{SessionID: session, FileTime: fileTime}
		if c.session.n > 0 {
			s := &GeminiParser{SessionID: session}
			s.decode(readLineAt(r, c.session), &geminiRecord{})
			q.SessionID = s.SessionID
		}
		if c.model.n > 0 {
			m := &GeminiParser{}
			m.decode(readLineAt(r, c.model), &geminiRecord{})
			q.model = m.model
		}
		return q
	}
	p = &GeminiParser{SessionID: session, FileTime: fileTime}
	return geminiLines(r, size, func(line []byte, no int, _ lineRef) error {
		rec, times, err := p.parse(line)
		if err == nil && rec != nil && rec.MessageID != "" && rec.Request != nil {
			k := key(rec.MessageID)
			if c, ok := copies[k]; ok {
				if c.done {
					return nil
				}
				c.done = true
				copies[k] = c
				if c.last != no {
					no = c.last
					rec, times, err = stateAt(c).parse(readLineAt(r, c.at))
				}
			}
		}
		if err == nil && rec == nil {
			return nil
		}
		if rec != nil {
			// A message's tool calls are in each of its copies, joined by
			// their ids. The message ids are dropped: requests are not
			// matched across files (as ccusage does not).
			rec.MessageID = ""
		}
		return fn(Item{Line: no, Rec: rec, More: splitResults(rec, times), Err: err})
	})
}

func readGeminiJSON(data []byte, session string, fileTime time.Time, fn func(Item) error) error {
	var r geminiRecord
	if err := json.Unmarshal(data, &r); err != nil {
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			return fn(Item{Line: lineAt(data, errorOffset(err)), Err: errors.New("not a valid JSON document")})
		}
		return nil // a list (logs.json, a checkpoint): no usage
	}
	if s := r.session(); s != "" {
		session = s
	}
	// The session's start dates its messages that record no time; a
	// start out of range is the file's time.
	start, ok, _ := geminiTime(r.StartTime, r.LastUpdated)
	if !ok {
		start = fileTime
	}
	if len(r.Messages) > 0 && r.Messages[0] == '[' {
		base := messagesOffset(data)
		lines := lineCounter{data: data}
		return eachElement(r.Messages, func(off int, msg json.RawMessage) error {
			var m geminiRecord
			if len(msg) == 0 || msg[0] != '{' || json.Unmarshal(msg, &m) != nil || !m.isGemini() {
				return nil
			}
			line := lines.at(base + off)
			ts, err := geminiAt(start, m.Timestamp, m.CreatedAt)
			if err != nil {
				return fn(Item{Line: line, Err: err})
			}
			rec, times, err := geminiMessage(&m, "", session, ts)
			if err != nil {
				return fn(Item{Line: line, Err: err})
			}
			if rec == nil {
				return nil
			}
			rec.MessageID = "" // every message of a JSON file counts
			return fn(Item{Line: line, Rec: rec, More: splitResults(rec, times)})
		})
	}
	if r.isGemini() {
		ts, err := geminiAt(fileTime, r.Timestamp, r.CreatedAt)
		if err != nil {
			return fn(Item{Line: 1, Err: err})
		}
		rec, times, err := geminiMessage(&r, "", session, ts)
		if err != nil {
			return fn(Item{Line: 1, Err: err})
		}
		if rec == nil {
			return nil
		}
		rec.MessageID = ""
		return fn(Item{Line: 1, Rec: rec, More: splitResults(rec, times)})
	}
	if st := r.stats(); st != nil {
		ts, err := geminiAt(fileTime, r.Timestamp)
		if err != nil {
			return fn(Item{Line: 1, Err: err})
		}
		rec, err := geminiStats(st, nonEmpty(r.Model), session, ts)
		if err != nil {
			return fn(Item{Line: 1, Err: err})
		}
		if rec != nil {
			return fn(Item{Line: 1, Rec: rec})
		}
	}
	return nil
}

// eachElement calls fn with each element of a JSON array and its offset
// in the array's bytes, until fn returns an error, which it returns.
func eachElement(arr json.RawMessage, fn func(off int, v json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	for dec.More() {
		off := int(dec.InputOffset())
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil
		}
		// InputOffset is before the separator and spaces that lead to the
		// element: skip them.
		for off < len(arr) && (arr[off] == ',' || arr[off] == ' ' || arr[off] == '\n' || arr[off] == '\r' || arr[off] == '\t') {
			off++
		}
		if err := fn(off, v); err != nil {
			return err
		}
	}
	return nil
}

// messagesOffset is where the value of the top-level "messages" key
// starts in data (0 when it cannot be told).
func messagesOffset(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	at := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return at
		}
		off := int(dec.InputOffset())
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return at
		}
		if k == "messages" {
			// The last "messages" is the one decoded (encoding/json's rule).
			for off < len(data) && data[off] != '[' && data[off] != '{' && data[off] != '"' {
				off++
			}
			at = off
		}
	}
	return at
}

// lineAt is the number of the line that holds byte off of data.
func lineAt(data []byte, off int) int {
	off = max(0, min(off, len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// A lineCounter numbers the lines of data at offsets asked for in
// increasing order, counting each byte once: counting from the top for
// each of a document's messages took time in the square of its size.
type lineCounter struct {
	data      []byte
	off, line int // line is the number of the line that holds byte off
}

// at is the number of the line that holds byte off of data (see lineAt).
func (c *lineCounter) at(off int) int {
	off = max(0, min(off, len(c.data)))
	if c.line == 0 || off < c.off {
		c.off, c.line = 0, 1
	}
	c.line += bytes.Count(c.data[c.off:off], []byte{'\n'})
	c.off = off
	return c.line
}

func errorOffset(err error) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return int(se.Offset)
	}
	return 0
}

// GeminiSession is the session a Gemini chat file's path names: its name
// without the extension.
func GeminiSession(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
}
