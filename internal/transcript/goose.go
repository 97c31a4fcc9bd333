package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // Goose's sessions.db

	"github.com/mcpcost/mcpcost/internal/sqliteuri"
	"github.com/mcpcost/mcpcost/internal/tmpdir"
)

// Goose (1.x) keeps its sessions in one SQLite database, sessions.db, in
// its data folder's sessions/ (~/.local/share/goose/sessions on Linux,
// $GOOSE_PATH_ROOT/data/sessions when that is set). The tables read, as
// Goose 1.35 (schema version 13) creates them:
//
//	sessions (id TEXT PRIMARY KEY, working_dir TEXT, created_at TIMESTAMP,
//	          total_tokens, input_tokens, output_tokens,
//	          accumulated_total_tokens, accumulated_input_tokens,
//	          accumulated_output_tokens INTEGER, provider_name TEXT,
//	          model_config_json TEXT ({"model_name": ...}), ...)
//	messages (id INTEGER PRIMARY KEY, message_id TEXT, session_id TEXT,
//	          role TEXT, content_json TEXT, created_timestamp INTEGER, ...)
//
// A message's content is a JSON array of Goose's message contents; tool
// calls are {"type": "toolRequest", "id", "toolCall": {"status":
// "success", "value": {"name": "<extension>__<tool>", "arguments"}}} and
// their results {"type": "toolResponse", "id", "toolResult": {"status",
// "value": {"content": [...], "isError"} (or the content array itself),
// "error"}}. Every extension is an MCP server, Goose's own (developer,
// computercontroller, ...) included: a tool is attributed to the
// extension its name starts with, or that its _meta.goose_extension names.
//
// Tokens are recorded per session only, as totals: ccusage 20 counts each
// session once, at its created_at, with its model_config_json's
// model_name, each count the accumulated_* column when it is above 0 and
// the plain one otherwise, and the part of the total beyond input and
// output priced as output. mcpcost does the same: that part is Output's
// (and Reasoning's), so Total equals ccusage's. Sessions without a model
// name, a readable time or any token are not counted.
//
// The database is never opened where Goose keeps it: OpenGoose copies
// it (and its write-ahead log) to a temporary folder and reads the copy,
// so no lock is taken on Goose's file and nothing is ever written to it.
// The rows become lines of JSON, one per session and one per message (the
// sessions first), made as they are read, which GooseParser reads like
// any transcript's lines.

// GooseDB is the name of Goose's session database.
const GooseDB = "sessions.db"

// gooseSessionColumns are the sessions table's columns read, in the
// order of a session line's values; a column an older schema lacks reads
// as null.
var gooseSessionColumns = []string{"id", "working_dir", "created_at", "model_config_json", "total_tokens", "input_tokens", "output_tokens",
	"accumulated_total_tokens", "accumulated_input_tokens", "accumulated_output_tokens"}

// ExportGoose reads the Goose database at path, through a copy, into
// lines of JSON for GooseParser, all of them (see OpenGoose).
func ExportGoose(path string) ([]byte, error) {
	e, err := OpenGoose(path)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	data, err := io.ReadAll(e)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// A GooseExport is the lines of JSON for GooseParser that a Goose
// database's rows make, read as they are made: one row at a time,
// whatever the size of the database, in rowid order (the sessions
// first). Close removes its copy of the database.
type GooseExport struct {
	dir  string
	db   *sql.DB
	rows *sql.Rows
	// messages is whether rows are the messages' (else the sessions').
	messages bool
	vals     []any
	ptrs     []any
	line     []byte // what is left of the line made last
	err      error  // once set, every Read's
}

// OpenGoose copies the Goose database at path (and its write-ahead log)
// to a temporary folder and opens the copy for its lines. An error
// reading the rows after it has opened comes from Read.
func OpenGoose(path string) (_ *GooseExport, err error) {
	tmpdir.CleanStale("mcpcost-goose-")
	dir, err := tmpdir.Make("mcpcost-goose-")
	if err != nil {
		return nil, err
	}
	e := &GooseExport{dir: dir}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	cp := filepath.Join(dir, GooseDB)
	if err := copySnapshot(path, cp); err != nil {
		return nil, err
	}
	if err := copySnapshot(path+"-wal", cp+"-wal"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	e.db, err = sql.Open("sqlite", sqliteuri.Of(cp)+"?_pragma=busy_timeout(2000)")
	if err != nil {
		return nil, err
	}
	e.db.SetMaxOpenConns(1)
	for _, table := range []string{"sessions", "messages"} {
		if err := plainTable(context.Background(), e.db, table); err != nil {
			return nil, err
		}
	}
	if err := e.querySessions(); err != nil {
		return nil, fmt.Errorf("not a Goose session database: %w", err)
	}
	return e, nil
}

// Close implements io.Closer.
func (e *GooseExport) Close() error {
	if e.rows != nil {
		e.rows.Close()
	}
	if e.db != nil {
		e.db.Close()
	}
	return os.RemoveAll(e.dir)
}

// Read implements io.Reader.
func (e *GooseExport) Read(p []byte) (int, error) {
	for len(e.line) == 0 {
		if e.err != nil {
			return 0, e.err
		}
		e.err = e.next()
	}
	n := copy(p, e.line)
	e.line = e.line[n:]
	return n, nil
}

// next makes the next line, or returns io.EOF after the last.
func (e *GooseExport) next() error {
	if e.rows == nil {
		return io.EOF
	}
	if !e.messages {
		if e.rows.Next() {
			if err := e.sessionLine(); err != nil {
				return fmt.Errorf("not a Goose session database: %w", err)
			}
			return nil
		}
		err := errors.Join(e.rows.Err(), e.rows.Close())
		e.rows = nil
		if err != nil {
			return fmt.Errorf("not a Goose session database: %w", err)
		}
		e.messages = true
		if err := e.queryMessages(); err != nil {
			return fmt.Errorf("reading its messages: %w", err)
		}
		return nil
	}
	if e.rows.Next() {
		if err := e.messageLine(); err != nil {
			return fmt.Errorf("reading its messages: %w", err)
		}
		return nil
	}
	err := errors.Join(e.rows.Err(), e.rows.Close())
	e.rows = nil
	if err != nil {
		return fmt.Errorf("reading its messages: %w", err)
	}
	return io.EOF
}

// putLine makes the next line of v.
func (e *GooseExport) putLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	e.line = append(b, '\n')
	return nil
}

// columns lists a table's columns.
func columns(db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		have[name] = true
	}
	if len(have) == 0 && rows.Err() == nil {
		return nil, errors.New("no " + table + " table")
	}
	return have, rows.Err()
}

func (e *GooseExport) querySessions() error {
	have, err := columns(e.db, "sessions")
	if err != nil {
		return err
	}
	if !have["id"] {
		return errors.New("its sessions table has no id")
	}
	sel := []string{"rowid"}
	for _, c := range gooseSessionColumns {
		if have[c] {
			sel = append(sel, `"`+c+`"`)
		} else {
			sel = append(sel, "NULL")
		}
	}
	e.rows, err = e.db.Query(`SELECT ` + strings.Join(sel, ", ") + ` FROM sessions ORDER BY rowid`)
	if err != nil {
		return err
	}
	e.vals = make([]any, len(sel))
	e.ptrs = make([]any, len(sel))
	for i := range e.vals {
		e.ptrs[i] = &e.vals[i]
	}
	return nil
}

func (e *GooseExport) sessionLine() error {
	if err := e.rows.Scan(e.ptrs...); err != nil {
		return err
	}
	line := map[string]any{"kind": "session", "row": e.vals[0]}
	for i, c := range gooseSessionColumns {
		line[c] = sqlValue(e.vals[i+1])
	}
	return e.putLine(line)
}

// queryMessages starts the read of the messages; a database without
// them (or without the columns read) has none: its sessions' tokens
// still count.
func (e *GooseExport) queryMessages() error {
	have, err := columns(e.db, "messages")
	if err != nil {
		return nil
	}
	for _, c := range []string{"session_id", "content_json", "created_timestamp"} {
		if !have[c] {
			return nil
		}
	}
	e.rows, err = e.db.Query(`SELECT rowid, session_id, content_json, created_timestamp FROM messages ORDER BY rowid`)
	return err
}

func (e *GooseExport) messageLine() error {
	var row, session, content, created any
	if err := e.rows.Scan(&row, &session, &content, &created); err != nil {
		return err
	}
	c := sqlValue(content)
	if s, ok := c.(string); ok && !strings.Contains(s, `"toolRe`) {
		c = nil // neither calls nor results: not needed
	}
	return e.putLine(map[string]any{"kind": "message", "row": row, "session_id": sqlValue(session), "content_json": c,
		"created_timestamp": sqlValue(created)})
}

// sqlValue is a column's value as JSON takes it: text as a string (bytes
// that are not UTF-8 replaced), numbers as numbers.
func sqlValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return strings.ToValidUTF8(string(x), "\uFFFD")
	case string:
		return strings.ToValidUTF8(x, "\uFFFD")
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return v
}

// GooseParser parses the lines ExportGoose makes of a Goose database.
type GooseParser struct {
	// cwd is each session's working folder, from the session lines, which
	// come first.
	cwd map[string]string
}

type gooseLine struct {
	Kind      string          `json:"kind"`
	Row       json.RawMessage `json:"row"`
	ID        string          `json:"id"`
	Cwd       string          `json:"working_dir"`
	Created   json.RawMessage `json:"created_at"`
	Model     string          `json:"model_config_json"`
	Total     json.RawMessage `json:"total_tokens"`
	Input     json.RawMessage `json:"input_tokens"`
	Output    json.RawMessage `json:"output_tokens"`
	AccTotal  json.RawMessage `json:"accumulated_total_tokens"`
	AccInput  json.RawMessage `json:"accumulated_input_tokens"`
	AccOutput json.RawMessage `json:"accumulated_output_tokens"`
	// messages
	Session string          `json:"session_id"`
	Content string          `json:"content_json"`
	Stamp   json.RawMessage `json:"created_timestamp"`
}

// ParseLine implements Parser.
func (p *GooseParser) ParseLine(line []byte) (*Record, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	var l gooseLine
	if err := decodeField("row", line, &l); err != nil {
		return nil, err
	}
	switch l.Kind {
	case "session":
		return p.session(&l)
	case "message":
		return p.message(&l)
	}
	return nil, nil
}

func (p *GooseParser) session(l *gooseLine) (*Record, error) {
	where := "sessions row " + strings.Trim(string(l.Row), `"`)
	if p.cwd == nil {
		p.cwd = map[string]string{}
	}
	if l.ID == "" {
		return nil, errors.New(where + ": no id")
	}
	p.cwd[l.ID] = l.Cwd
	var cfg struct {
		ModelName string `json:"model_name"`
	}
	if strings.TrimSpace(l.Model) == "" || json.Unmarshal([]byte(l.Model), &cfg) != nil || cfg.ModelName == "" {
		return nil, nil // as ccusage: a session without a model is not counted
	}
	var n [6]int64
	for i, v := range []json.RawMessage{l.Total, l.Input, l.Output, l.AccTotal, l.AccInput, l.AccOutput} {
		x, err := sqlInt(v)
		if err != nil {
			return nil, errors.New(where + ": " + err.Error())
		}
		n[i] = x
	}
	pick := func(acc, plain int64) int64 {
		if acc > 0 {
			return acc
		}
		return max(0, plain)
	}
	total, in, out := pick(n[3], n[0]), pick(n[4], n[1]), pick(n[5], n[2])
	if total == 0 && in == 0 && out == 0 {
		return nil, nil
	}
	extra := max(0, total-in-out)
	u := Usage{Input: in, Output: out + extra, Reasoning: extra}
	if err := u.check(); err != nil {
		return nil, errors.New(where + ": " + err.Error())
	}
	t, err := gooseTime(l.Created)
	if errors.Is(err, errTimeRange) {
		return nil, errors.New(where + ": created_at: " + err.Error())
	}
	if err != nil {
		return nil, nil // as ccusage: a session without a readable time is not counted
	}
	return &Record{Time: t, SessionID: l.ID, Cwd: l.Cwd, Request: &Request{Model: cfg.ModelName, Usage: u, Turn: 1}}, nil
}

// sqlInt reads a count: a number, a numeric string, or null (0).
func sqlInt(v json.RawMessage) (int64, error) {
	s := strings.TrimSpace(string(v))
	if s == "" || s == "null" {
		return 0, nil
	}
	if s[0] == '"' {
		var str string
		if json.Unmarshal(v, &str) != nil {
			return 0, nil
		}
		s = strings.TrimSpace(str)
		if s == "" {
			return 0, nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, nil // not a number: none
		}
		if f > MaxTokens || f < -MaxTokens {
			return 0, errTokens
		}
		n = int64(f)
	}
	if n > MaxTokens {
		return 0, errTokens
	}
	return n, nil
}

// gooseTime reads created_at: SQLite's "YYYY-MM-DD HH:MM:SS" (UTC), RFC
// 3339, or a Unix time in seconds.
func gooseTime(v json.RawMessage) (time.Time, error) {
	s := strings.TrimSpace(string(v))
	if s == "" || s == "null" {
		return time.Time{}, errors.New("no time")
	}
	if s[0] != '"' {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > 1e11 {
			return time.Time{}, errors.New("bad time")
		}
		return checkTime(time.Unix(int64(f), 0))
	}
	var str string
	if err := json.Unmarshal(v, &str); err != nil {
		return time.Time{}, err
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, str); err == nil {
			return checkTime(t)
		}
	}
	return time.Time{}, errors.New("bad time")
}

type gooseContent struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	ToolCall json.RawMessage `json:"toolCall"`
	Result   json.RawMessage `json:"toolResult"`
	Meta     *struct {
		Extension string `json:"goose_extension"`
	} `json:"_meta"`
}

// gooseOutcome is a toolCall or toolResult: {"status": "success", "value":
// ...} or {"status": "error", "error": ...}; older Goose wrote {"Ok": ...}
// and {"Err": ...}.
type gooseOutcome struct {
	Status string          `json:"status"`
	Value  json.RawMessage `json:"value"`
	Error  json.RawMessage `json:"error"`
	Ok     json.RawMessage `json:"Ok"`
	Err    json.RawMessage `json:"Err"`
}

func (o *gooseOutcome) value() (json.RawMessage, bool) {
	switch {
	case len(o.Ok) > 0:
		return o.Ok, true
	case len(o.Err) > 0:
		return o.Err, false
	case o.Status == "error" || (len(o.Error) > 0 && len(o.Value) == 0):
		return o.Error, false
	}
	return o.Value, true
}

func (p *GooseParser) message(l *gooseLine) (*Record, error) {
	if l.Content == "" || l.Session == "" {
		return nil, nil
	}
	where := "messages row " + strings.Trim(string(l.Row), `"`)
	var contents []gooseContent
	if err := json.Unmarshal([]byte(l.Content), &contents); err != nil {
		return nil, errors.New(where + ": content_json is not an array of contents")
	}
	rec := &Record{SessionID: l.Session, Cwd: p.cwd[l.Session]}
	for _, c := range contents {
		switch {
		case c.Type == "toolRequest" && c.ID != "":
			var o gooseOutcome
			if json.Unmarshal(c.ToolCall, &o) != nil {
				continue
			}
			v, ok := o.value()
			var call struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			if !ok || json.Unmarshal(v, &call) != nil || call.Name == "" {
				// A call the model made that Goose could not parse: no tool ran.
				continue
			}
			ext := ""
			if c.Meta != nil {
				ext = c.Meta.Extension
			}
			args := call.Arguments
			if string(args) == "null" {
				args = nil
			}
			rec.Calls = append(rec.Calls, ToolCall{ID: c.ID, Name: call.Name, Tool: gooseTool(call.Name, ext), Args: args})
		case c.Type == "toolResponse" && c.ID != "":
			var o gooseOutcome
			r := ToolResult{ID: c.ID}
			if json.Unmarshal(c.Result, &o) == nil {
				v, ok := o.value()
				r.IsError = !ok
				gooseResult(&r, v)
			}
			rec.Results = append(rec.Results, r)
		}
	}
	if len(rec.Calls) == 0 && len(rec.Results) == 0 {
		return nil, nil
	}
	t, err := gooseTime(l.Stamp)
	if errors.Is(err, errTimeRange) {
		return nil, errors.New(where + ": created_timestamp: " + err.Error())
	}
	if err != nil {
		return nil, errors.New(where + ": created_timestamp is not a time")
	}
	rec.Time = t
	return rec, nil
}

// gooseTool attributes a Goose tool to its extension: <extension>__<tool>,
// else the extension _meta names.
func gooseTool(name, ext string) Tool {
	if t := ParseToolName(name); !t.BuiltIn {
		return t // mcp__server__tool, should a name be written so
	}
	if e, tool, ok := strings.Cut(name, "__"); ok && e != "" && tool != "" {
		return Tool{Server: e, Name: tool}
	}
	if ext != "" {
		return Tool{Server: ext, Name: name}
	}
	return Tool{Name: name, BuiltIn: true}
}

// gooseResult reads a tool's result: MCP's {content, isError}, a content
// array, or an error (a string, or {message}).
func gooseResult(r *ToolResult, v json.RawMessage) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return
	}
	switch v[0] {
	case '[', '"':
		r.addContent(v, nil, nil)
	case '{':
		var o struct {
			Content json.RawMessage `json:"content"`
			IsError *bool           `json:"isError"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(v, &o) != nil {
			r.addOther(v)
			return
		}
		switch {
		case len(o.Content) > 0:
			r.addContent(o.Content, nil, nil)
		case len(o.Message) > 0:
			r.addContent(o.Message, nil, nil)
		default:
			r.addOther(v)
		}
		if o.IsError != nil && *o.IsError {
			r.IsError = true
		}
	default:
		r.addOther(v)
	}
}

// DiscoverGoose lists the Goose session databases (sessions.db) directly
// in roots (Goose's sessions folders), following links as DiscoverClaude
// does.
func DiscoverGoose(roots []string) ([]File, error) {
	var files []File
	enter := func(int, string) bool { return false }
	err := walkRootsFor(roots, enter, func(name string) bool { return name == GooseDB }, func(root, path string, _ os.FileInfo) {
		files = append(files, File{Path: path, Source: Goose})
	})
	return files, err
}
