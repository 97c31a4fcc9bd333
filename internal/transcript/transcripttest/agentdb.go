package transcripttest

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // to write the databases
)

// freshDB opens a new database at path, in place of any there, on one
// connection.
func freshDB(path string) (*sql.DB, error) {
	os.Remove(path)
	os.Remove(path + "-wal")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// LargeOpencodeDB writes an opencode.db at path of about size bytes of
// message and part rows, deterministically from seed: each assistant
// message has one tool part whose output is a few KB of text, the
// messages and parts in time order. It returns the number of messages.
func LargeOpencodeDB(path string, seed uint64, size int64) (int, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x0c0de))
	db, err := freshDB(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`CREATE INDEX message_session_idx ON message (session_id, time_created, id)`,
		`CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL,
			time_updated integer NOT NULL, data text NOT NULL)`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			return 0, err
		}
	}
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	models := []string{"claude-sonnet-4-5", "gpt-5", "claude-haiku-4-5", "gemini-2.5-pro"}
	tools := []string{"github_search_issues", "postgres_query", "bash", "read", "filesystem_read_file"}
	var written int64
	n := 0
	t0 := int64(1764000000000)
	for written < size {
		tx, err := db.Begin()
		if err != nil {
			return 0, err
		}
		for range 2000 {
			at := t0 + int64(n)*1000
			session := fmt.Sprintf("ses_%05d", n/50)
			msg := fmt.Sprintf(`{"role":"assistant","time":{"created":%d,"completed":%d},"modelID":%q,"providerID":"x","path":{"cwd":"/home/dev/p%d","root":"/"},"cost":0,"tokens":{"input":%d,"output":%d,"reasoning":%d,"cache":{"read":%d,"write":%d}}}`,
				at, at+900, models[r.IntN(len(models))], n%7, 10+r.IntN(5000), 1+r.IntN(2000), r.IntN(300), r.IntN(20000), r.IntN(3000))
			id := fmt.Sprintf("msg_%08d", n)
			if _, err := tx.Exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, id, session, at, at, msg); err != nil {
				return 0, err
			}
			part := fmt.Sprintf(`{"type":"tool","callID":"call_%08d","tool":%q,"state":{"status":"completed","input":{"q":%q},"output":%q,"time":{"start":%d,"end":%d}}}`,
				n, tools[r.IntN(len(tools))], text(40), text(1000+r.IntN(4000)), at+100, at+300)
			if _, err := tx.Exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, fmt.Sprintf("prt_%08d", n), id, session, at+100, at+100, part); err != nil {
				return 0, err
			}
			written += int64(len(msg) + len(part))
			n++
		}
		if err := tx.Commit(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// LargeGooseDB writes a Goose sessions.db at path of about size bytes of
// message rows, deterministically from seed: sessions of 100 messages,
// each message a tool request or its response of a few KB. It returns
// the number of messages.
func LargeGooseDB(path string, seed uint64, size int64) (int, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x6005e))
	db, err := freshDB(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := db.Exec(GooseSchema); err != nil {
		return 0, err
	}
	var written int64
	n := 0
	for written < size {
		tx, err := db.Begin()
		if err != nil {
			return 0, err
		}
		for range 2000 {
			session := fmt.Sprintf("20251201_%d", n/100)
			if n%100 == 0 {
				if _, err := tx.Exec(`INSERT INTO sessions (id, working_dir, created_at, model_config_json, total_tokens, input_tokens, output_tokens,
					accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					session, fmt.Sprintf("/home/dev/p%d", n%7), fmt.Sprintf("2025-12-%02d 10:00:00", 1+n/100%28), `{"model_name":"claude-sonnet-4-5"}`,
					5000, 4000, 900, 50000+r.IntN(1000), 40000, 9000); err != nil {
					return 0, err
				}
			}
			call := fmt.Sprintf("toolu_%08d", n/2)
			var content string
			if n%2 == 0 {
				content = fmt.Sprintf(`[{"type":"toolRequest","id":%q,"toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls %d"}}}}]`, call, n)
			} else {
				content = fmt.Sprintf(`[{"type":"toolResponse","id":%q,"toolResult":{"status":"success","value":{"content":[{"type":"text","text":%q}],"isError":false}}}]`,
					call, strings.Repeat("output line of a tool ", 50+r.IntN(200)))
			}
			if _, err := tx.Exec(`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?, ?)`,
				fmt.Sprintf("msg_%d", n), session, "assistant", content, 1764600000+n); err != nil {
				return 0, err
			}
			written += int64(len(content))
			n++
		}
		if err := tx.Commit(); err != nil {
			return 0, err
		}
	}
	return n, nil
}
