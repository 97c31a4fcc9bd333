package transcript

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/mcpcost/mcpcost/internal/sqliteuri"
)

// opencode (sst/opencode) keeps its sessions under $OPENCODE_DATA_DIR,
// else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode, in one of
// two forms (sst/opencode packages/opencode/src/session/message-v2.ts,
// storage/storage.ts):
//
//   - storage/, a tree of JSON files: storage/message/<session>/
//     msg_<id>.json, one message each, rewritten as it streams, and
//     storage/part/<message>/prt_<id>.json, its parts (text, reasoning,
//     tool calls: {"type": "tool", "callID", "tool", "state": {"status",
//     "input", "output", "error", "time": {"start", "end"}}});
//   - opencode.db (newer), SQLite with tables message (id, session_id,
//     time_created, data) and part (id, message_id, session_id,
//     time_created, data), data being the same JSON without the ids.
//
// An assistant message is {"id", "sessionID", "role": "assistant",
// "time": {"created", "completed"} (milliseconds), "modelID",
// "providerID", "path": {"cwd", "root"}, "cost", "tokens": {"input",
// "output", "reasoning", "cache": {"read", "write"}}}.
//
// ccusage 20 reads both (its adapters/opencode); this reader counts as it
// does: a message counts once by its id wherever it is found (the first
// copy met), not without a model or with no tokens; the cost recorded
// (when above 0) is the message's cost; reasoning is billed as output.
// Where ccusage's outputTokens leave the reasoning out, mcpcost's output
// includes it (Usage.Reasoning is its part), as for Codex and Gemini CLI.
//
// opencode names an MCP server's tools "<server>_<tool>" (the server's
// name with characters other than letters, digits, _ and - made _);
// opencode's own tools have names of their own (bash, read, edit, ...).

// opencodeMessage is a message's JSON.
type opencodeMessage struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"`
	Time      struct {
		Created json.RawMessage `json:"created"`
	} `json:"time"`
	ModelID string          `json:"modelID"`
	Cost    json.RawMessage `json:"cost"`
	Path    struct {
		Cwd string `json:"cwd"`
	} `json:"path"`
	Tokens *struct {
		Input     json.RawMessage `json:"input"`
		Output    json.RawMessage `json:"output"`
		Reasoning json.RawMessage `json:"reasoning"`
		Cache     struct {
			Read  json.RawMessage `json:"read"`
			Write json.RawMessage `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
}

// msTime reads milliseconds since the epoch; ok is false for none. The
// error is a time outside [MinTime, MaxTime).
func msTime(v json.RawMessage) (t time.Time, ok bool, err error) {
	n, ok, err := tokenValue(v)
	if err != nil || !ok || n <= 0 {
		return time.Time{}, false, nil
	}
	t, err = checkTime(time.UnixMilli(n))
	return t, err == nil, err
}

// ParseOpencodeMessage reads one opencode message's JSON; id and session
// stand in for the ids a database row keeps beside its data. It gives no
// record for a message that counts nothing (a user's, one without a model
// or tokens).
func ParseOpencodeMessage(data []byte, id, session string) (*Record, error) {
	var m opencodeMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, errors.New("not a JSON object")
	}
	if m.ID == "" {
		m.ID = id
	}
	if m.SessionID == "" {
		m.SessionID = session
	}
	if m.Role != "assistant" || m.Tokens == nil || strings.TrimSpace(m.ModelID) == "" || m.ID == "" {
		return nil, nil
	}
	ts, ok, err := msTime(m.Time.Created)
	if err != nil {
		return nil, errors.New("time.created: " + err.Error())
	}
	if !ok {
		return nil, errors.New("no time.created (milliseconds)")
	}
	var u Usage
	for _, f := range []struct {
		v   json.RawMessage
		dst *int64
	}{{m.Tokens.Input, &u.Input}, {m.Tokens.Output, &u.Output}, {m.Tokens.Reasoning, &u.Reasoning},
		{m.Tokens.Cache.Read, &u.CacheRead}, {m.Tokens.Cache.Write, &u.CacheWrite5m}} {
		n, _, err := tokenValue(f.v)
		if err != nil {
			return nil, err
		}
		*f.dst = n
	}
	u.Output += u.Reasoning
	u.CacheCreation = u.CacheWrite5m
	if err := u.check(); err != nil {
		return nil, err
	}
	if u.Total() == 0 {
		return nil, nil
	}
	q := &Request{MessageID: m.ID, Model: strings.TrimSpace(m.ModelID), Usage: u}
	rec := &Record{Time: ts, SessionID: m.SessionID, Cwd: m.Path.Cwd, Request: q, MessageID: m.ID}
	var cost float64
	if len(m.Cost) > 0 && json.Unmarshal(m.Cost, &cost) == nil && cost != 0 {
		if ValidCost(cost) {
			q.CostUSD = &cost
		} else {
			rec.Warning = "cost is negative or over $100,000; cost ignored"
		}
	}
	return rec, nil
}

// opencodePart is a part's JSON.
type opencodePart struct {
	SessionID string `json:"sessionID"`
	Type      string `json:"type"`
	CallID    string `json:"callID"`
	Tool      string `json:"tool"`
	State     struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
		Time   struct {
			Start json.RawMessage `json:"start"`
			End   json.RawMessage `json:"end"`
		} `json:"time"`
	} `json:"state"`
}

// ParseOpencodePart reads one opencode part's JSON: a tool part gives
// its call (at its start) and, once it ended, its result (at its end, in
// the second record). Other parts give nothing.
func ParseOpencodePart(data []byte, session string) (call, result *Record, err error) {
	var p opencodePart
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, nil, errors.New("not a JSON object")
	}
	if p.Type != "tool" || p.CallID == "" || p.Tool == "" {
		return nil, nil, nil
	}
	if p.SessionID == "" {
		p.SessionID = session
	}
	start, ok, err := msTime(p.State.Time.Start)
	if err != nil {
		return nil, nil, errors.New("state.time.start: " + err.Error())
	}
	if !ok {
		return nil, nil, nil // pending: not run yet
	}
	call = &Record{Time: start, SessionID: p.SessionID,
		Calls: []ToolCall{{ID: p.CallID, Name: p.Tool, Tool: OpencodeToolName(p.Tool), Args: p.State.Input}}}
	end, ok, err := msTime(p.State.Time.End)
	if err != nil {
		return nil, nil, errors.New("state.time.end: " + err.Error())
	}
	if !ok || (p.State.Status != "completed" && p.State.Status != "error") {
		return call, nil, nil
	}
	r := ToolResult{ID: p.CallID, IsError: p.State.Status == "error"}
	if r.IsError {
		geminiParts(&r, p.State.Error, 0)
	} else {
		geminiParts(&r, p.State.Output, 0)
	}
	return call, &Record{Time: end, SessionID: p.SessionID, Results: []ToolResult{r}}, nil
}

// opencodeBuiltins are opencode's own tools (packages/opencode/src/tool/).
var opencodeBuiltins = map[string]bool{
	"bash": true, "edit": true, "write": true, "read": true, "grep": true, "glob": true, "list": true, "ls": true,
	"patch": true, "multiedit": true, "todowrite": true, "todoread": true, "webfetch": true, "websearch": true,
	"codesearch": true, "task": true, "invalid": true, "batch": true, "skill": true, "lsp_diagnostics": true,
	"lsp_hover": true, "apply_patch": true, "question": true,
}

// OpencodeToolName takes an opencode tool name apart: "<server>_<tool>"
// for an MCP server's tool (the server is what comes before the first _:
// a server whose name holds _ is cut short), Claude's mcp__<server>__<tool>
// form as such, opencode's own tools as built-in.
func OpencodeToolName(name string) Tool {
	if opencodeBuiltins[name] {
		return Tool{Name: name, BuiltIn: true}
	}
	if strings.HasPrefix(name, "mcp__") {
		return ParseToolName(name)
	}
	if server, tool, ok := strings.Cut(name, "_"); ok && server != "" && tool != "" {
		return Tool{Server: server, Name: tool}
	}
	return Tool{Name: name, BuiltIn: true}
}

// ReadOpencodeFile reads a file of opencode's storage/ tree whole: a
// message (under storage/message/) or a part (under storage/part/).
func ReadOpencodeFile(data []byte, path string) []Item {
	slash := filepath.ToSlash(path)
	session := filepath.Base(filepath.Dir(path))
	if strings.Contains(slash, "/storage/part/") {
		call, res, err := ParseOpencodePart(data, "")
		if err != nil {
			return []Item{{Line: 1, Err: err}}
		}
		if call == nil {
			return nil
		}
		it := Item{Line: 1, Rec: call}
		if res != nil {
			it.More = []*Record{res}
		}
		return []Item{it}
	}
	rec, err := ParseOpencodeMessage(data, strings.TrimSuffix(filepath.Base(path), ".json"), session)
	if err != nil {
		return []Item{{Line: 1, Err: err}}
	}
	if rec == nil {
		return nil
	}
	return []Item{{Line: 1, Rec: rec}}
}

// ReadOpencodeDB reads an opencode.db whole into its items (see
// ScanOpencodeDB).
func ReadOpencodeDB(ctx context.Context, path string) ([]Item, error) {
	var items []Item
	err := ScanOpencodeDB(ctx, path, func(it Item) error {
		items = append(items, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// ScanOpencodeDB reads an opencode.db: its messages, then its tool parts,
// each row an item passed to fn as it is read, whose Line is its number
// in that order (messages first); none is kept once fn returns. An error
// of fn ends the read and is returned as it is. The agent's database is
// never written to and no lock is taken on it, nor is it opened by
// SQLite: a copy of it (and of its write-ahead log, if it has one) in
// the temporary folder is read, so that what the log holds counts,
// opencode, writing meanwhile, is never kept waiting, and the ingest
// never waits on a FIFO swapped in for the database since it was listed
// (copySnapshot opens it without waiting, and only a regular file; SQLite
// opening its path would wait for a writer forever). A copy taken while
// opencode checkpoints may be torn: the read fails with an error (after
// the items read until then), and the next one reads it again.
func ScanOpencodeDB(ctx context.Context, path string, fn func(Item) error) error {
	dir, err := os.MkdirTemp("", "mcpcost-opencode-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cp := filepath.Join(dir, "opencode.db")
	if err := copySnapshot(path, cp); err != nil {
		return err
	}
	dsn := sqliteuri.Of(cp) + "?mode=ro&immutable=1&_pragma=query_only(1)"
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		if err := copySnapshot(path+"-wal", cp+"-wal"); err != nil {
			return err
		}
		dsn = sqliteuri.Of(cp) + "?_pragma=busy_timeout(5000)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, table := range []string{"message", "part"} {
		if err := plainTable(ctx, db, table); err != nil {
			return err
		}
	}
	line := 0
	errFn := errors.New("stopped")
	var fnErr error
	call := func(it Item) error {
		if fnErr = fn(it); fnErr != nil {
			return errFn
		}
		return nil
	}
	scan := func(query, what string, row func(rows *sql.Rows) error) error {
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			return fmt.Errorf("reading its %s: %w", what, err)
		}
		for rows.Next() {
			line++
			if err := row(rows); err != nil {
				rows.Close()
				return fnErr
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("reading its %s: %w", what, err)
		}
		return nil
	}
	err = scan(`SELECT id, session_id, data FROM message ORDER BY time_created, id`, "messages", func(rows *sql.Rows) error {
		var id, session string
		var data []byte
		if err := rows.Scan(&id, &session, &data); err != nil {
			return call(Item{Line: line, Err: errors.New("a row that is not text")})
		}
		rec, err := ParseOpencodeMessage(data, id, session)
		switch {
		case err != nil:
			return call(Item{Line: line, Err: err})
		case rec != nil:
			return call(Item{Line: line, Rec: rec})
		}
		return nil
	})
	if err != nil {
		return err
	}
	var hasPart int
	if db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'part'`).Scan(&hasPart) != nil || hasPart == 0 {
		return nil
	}
	return scan(`SELECT session_id, data FROM part ORDER BY time_created, id`, "parts", func(rows *sql.Rows) error {
		var session string
		var data []byte
		if err := rows.Scan(&session, &data); err != nil {
			return call(Item{Line: line, Err: errors.New("a row that is not text")})
		}
		c, res, err := ParseOpencodePart(data, session)
		switch {
		case err != nil:
			return call(Item{Line: line, Err: err})
		case c != nil:
			it := Item{Line: line, Rec: c}
			if res != nil {
				it.More = []*Record{res}
			}
			return call(it)
		}
		return nil
	})
}

// OpencodeDepth bounds the walk of an opencode folder:
// storage/message/<session>/<message>.json.
const OpencodeDepth = 4

// DiscoverOpencode lists opencode's messages and tool parts under its
// folders (~/.local/share/opencode, OPENCODE_DATA_DIR):
// storage/message/<session>/*.json, storage/part/<message>/*.json, and
// the databases opencode.db and opencode-*.db at the top, following
// links as DiscoverClaude does.
func DiscoverOpencode(roots []string) ([]File, error) {
	var files []File
	enter := func(depth int, name string) bool {
		switch depth {
		case 1:
			return name == "storage"
		case 2:
			return name == "message" || name == "part"
		}
		return depth < OpencodeDepth
	}
	match := func(name string) bool {
		return strings.HasSuffix(name, ".json") || name == "opencode.db" || (strings.HasPrefix(name, "opencode-") && strings.HasSuffix(name, ".db"))
	}
	err := walkRootsFor(roots, enter, match, func(root, path string, fi os.FileInfo) {
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		switch {
		case len(parts) == 1 && strings.HasSuffix(parts[0], ".db"):
			files = append(files, File{Path: path, Source: Opencode}.listed(fi))
		case len(parts) == 4 && parts[0] == "storage" && parts[1] == "message":
			files = append(files, File{Path: path, Source: Opencode, SessionID: parts[2]}.listed(fi))
		case len(parts) == 4 && parts[0] == "storage" && parts[1] == "part":
			files = append(files, File{Path: path, Source: Opencode}.listed(fi))
		}
	})
	return files, err
}
