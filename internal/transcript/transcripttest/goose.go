package transcripttest

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // to write Goose's sessions.db
)

// GooseSchema is Goose 1.35's sessions.db (schema version 13), the tables
// and columns a reader meets.
const GooseSchema = `
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (13);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER,
    accumulated_cost REAL,
    schedule_id TEXT,
    recipe_json TEXT,
    user_recipe_values_json TEXT,
    provider_name TEXT,
    model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto',
    archived_at TIMESTAMP,
    project_id TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
`

// GooseCall is a tool call GenerateGoose wrote.
type GooseCall struct {
	Session, ID, Name, Server, Tool string
	IsError                         bool
}

// GooseManifest is what GenerateGoose wrote.
type GooseManifest struct {
	DB       string
	Sessions []string
	Calls    []GooseCall
}

var gooseModels = []struct{ provider, model string }{
	{"anthropic", "claude-sonnet-4-5"}, {"anthropic", "claude-haiku-4-5"}, {"openai", "gpt-5"}, {"openai", "gpt-4.1"},
	{"google", "gemini-2.5-pro"}, {"ollama", "llama3.2"},
}

// GenerateGoose writes a Goose sessions.db with n sessions under home
// (.local/share/goose/sessions/sessions.db), deterministically from seed,
// created within days days of start: sessions with accumulated and plain
// token columns (some null, some 0, totals above input plus output),
// sub-agent and scheduled sessions, sessions without a model or with a
// model config that is not JSON, and messages with tool requests and
// responses of Goose's built-in and other extensions (both result shapes,
// errors, a call Goose could not parse).
func GenerateGoose(home string, seed uint64, n, days int, start time.Time) (*GooseManifest, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x6005e))
	dir := filepath.Join(home, ".local", "share", "goose", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	m := &GooseManifest{DB: filepath.Join(dir, "sessions.db")}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(m.DB)+"?_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.Exec(GooseSchema); err != nil {
		return nil, err
	}
	for i := range n {
		at := start.Add(time.Duration(r.IntN(days*24*60)) * time.Minute)
		id := fmt.Sprintf("%s_%d", at.Format("20060102"), i+1)
		m.Sessions = append(m.Sessions, id)
		pm := gooseModels[r.IntN(len(gooseModels))]
		cfg, _ := json.Marshal(map[string]any{"model_name": pm.model, "context_limit": nil, "temperature": nil, "max_tokens": nil, "toolshim": false, "toolshim_model": nil})
		cfgText := string(cfg)
		switch r.IntN(15) {
		case 0:
			cfgText = "" // no model: not counted
		case 1:
			cfgText = `{"context_limit":128000}`
		}
		in := int64(1000 + r.IntN(300000))
		out := int64(100 + r.IntN(20000))
		total := in + out
		if r.IntN(3) == 0 {
			total += int64(r.IntN(5000)) // reasoning, or what the provider counts beyond
		}
		var accT, accI, accO any = total, in, out
		var plainT, plainI, plainO any = total / 3, in / 3, out / 3
		switch r.IntN(5) {
		case 0:
			accT, accI, accO = nil, nil, nil // older Goose: only the plain counts
			plainT, plainI, plainO = total, in, out
		case 1:
			accO = 0 // falls back to the plain count
		}
		kind := []string{"user", "user", "user", "sub_agent", "scheduled"}[r.IntN(5)]
		created := at.UTC().Format("2006-01-02 15:04:05")
		if _, err := db.Exec(`INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at, extension_data,
			total_tokens, input_tokens, output_tokens, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens,
			provider_name, model_config_json) VALUES (?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, "fix the tests", kind, fmt.Sprintf("/home/dev/proj%d", i%3), created, at.Add(time.Hour).UTC().Format("2006-01-02 15:04:05"),
			plainT, plainI, plainO, accT, accI, accO, pm.provider, cfgText); err != nil {
			return nil, err
		}
		ts := at.Unix()
		msg := func(role string, content any) error {
			ts += int64(1 + r.IntN(30))
			b, _ := json.Marshal(content)
			_, err := db.Exec(`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?)`,
				fmt.Sprintf("msg_%s_%d", id, ts), id, role, string(b), ts, `{"userVisible":true,"agentVisible":true}`)
			return err
		}
		if err := msg("user", []any{map[string]any{"type": "text", "text": "run the tests"}}); err != nil {
			return nil, err
		}
		for k := range r.IntN(6) {
			call := GooseCall{Session: id, ID: fmt.Sprintf("toolu_%s_%d", id, k)}
			req := map[string]any{"type": "toolRequest", "id": call.ID}
			switch r.IntN(4) {
			case 0:
				call.Server, call.Tool = "developer", "shell"
				call.Name = "developer__shell"
			case 1:
				call.Server, call.Tool = "github", []string{"list_issues", "get_pull_request"}[r.IntN(2)]
				call.Name = call.Server + "__" + call.Tool
			case 2:
				// Newer Goose: the bare tool name, the extension in _meta.
				call.Server, call.Tool, call.Name = "developer", "write", "write"
				req["_meta"] = map[string]any{"goose_extension": "developer"}
			default:
				call.Server, call.Tool = "context7", "get-library-docs"
				call.Name = call.Server + "__" + call.Tool
			}
			req["toolCall"] = map[string]any{"status": "success", "value": map[string]any{"name": call.Name, "arguments": map[string]any{"command": "go test ./...", "k": k}}}
			if err := msg("assistant", []any{map[string]any{"type": "text", "text": "Let me check."}, req}); err != nil {
				return nil, err
			}
			text := strings.Repeat("ok test line\n", 1+r.IntN(50))
			var result any
			switch r.IntN(5) {
			case 0:
				call.IsError = true
				result = map[string]any{"status": "error", "error": "Execution failed: exit code 1"}
			case 1:
				result = map[string]any{"status": "success", "value": []any{map[string]any{"type": "text", "text": text}}} // older shape
			case 2:
				call.IsError = true
				result = map[string]any{"status": "success", "value": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": true}}
			default:
				result = map[string]any{"status": "success", "value": map[string]any{"content": []any{map[string]any{"type": "text", "text": text, "annotations": map[string]any{"priority": 0}}}, "isError": false}}
			}
			if err := msg("user", []any{map[string]any{"type": "toolResponse", "id": call.ID, "toolResult": result}}); err != nil {
				return nil, err
			}
			m.Calls = append(m.Calls, call)
		}
		if r.IntN(6) == 0 {
			// A call Goose could not parse: no tool ran.
			if err := msg("assistant", []any{map[string]any{"type": "toolRequest", "id": "bad_" + id, "toolCall": map[string]any{"status": "error", "error": "invalid JSON in arguments"}}}); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
