package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// heapAtMarker returns a Count that counts a text as a quarter of its
// bytes and, at the text that starts with "marker", records the live
// heap (after a collection) in *heap.
func heapAtMarker(heap *uint64) func(string) int {
	return func(s string) int {
		if strings.HasPrefix(s, "marker") {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			*heap = m.HeapAlloc
		}
		return len(s) / 4
	}
}

// agentDBText is the 8 KB text of row i's tool result.
func agentDBText(i int, marker bool) string {
	s := strings.Repeat(fmt.Sprintf("line %d of a tool's output ", i), 8<<10/30)
	if marker {
		s = "marker " + s
	}
	return s
}

// TestAgentDBRowsStreamed: an opencode.db's rows and a Goose
// sessions.db's lines are handed to the writer in batches as they are
// read, none held until the whole database is: with 64 MB of tool
// results in each, the live heap at a result read is a bound below
// them (the opencode reader kept every row's item, texts included,
// before its first batch: 81 MB at its first part's result, now 2 MB; the Goose
// reader made every line in one buffer first: 67 MB at its last, now 3 MB).
func TestAgentDBRowsStreamed(t *testing.T) {
	const rows, bound = 8000, 32 << 20
	t.Run("opencode", func(t *testing.T) {
		root := t.TempDir()
		path := filepath.Join(root, "opencode.db")
		transcripttest.OpencodeDB(t, path, false).Close()
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		tx, _ := db.Begin()
		at := int64(1764000000000)
		for i := range rows {
			id := fmt.Sprintf("msg_%05d", i)
			msg := fmt.Sprintf(`{"role":"assistant","time":{"created":%d},"modelID":"gpt-5","path":{"cwd":"/p"},"tokens":{"input":10,"output":1}}`, at+int64(i))
			part := fmt.Sprintf(`{"type":"tool","callID":"call_%05d","tool":"github_search","state":{"status":"completed","input":{},"output":%q,"time":{"start":%d,"end":%d}}}`,
				i, agentDBText(i, i == 0), at+int64(i), at+int64(i)+1)
			if _, err := tx.Exec(`INSERT INTO message VALUES (?, 'ses_1', ?, ?, ?)`, id, at+int64(i), at+int64(i), msg); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(`INSERT INTO part VALUES (?, ?, 'ses_1', ?, ?, ?)`, fmt.Sprintf("prt_%05d", i), id, at+int64(i), at+int64(i), part); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		db.Close()
		var heap uint64
		s := open(t, filepath.Join(t.TempDir(), "usage.db"))
		st, err := s.Ingest(context.Background(), IngestOptions{OpencodeRoots: []string{root}, Count: heapAtMarker(&heap)})
		if err != nil || st.Requests != rows || st.ToolResults != rows {
			t.Fatalf("%+v %v", st, err)
		}
		t.Logf("live heap at the first part's result: %d MB", heap>>20)
		if heap == 0 || heap > bound {
			t.Errorf("live heap at the first part's result: %d bytes, over %d", heap, bound)
		}
	})
	t.Run("goose", func(t *testing.T) {
		root := t.TempDir()
		path := filepath.Join(root, "sessions.db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(transcripttest.GooseSchema); err != nil {
			t.Fatal(err)
		}
		tx, _ := db.Begin()
		if _, err := tx.Exec(`INSERT INTO sessions (id, working_dir, created_at, model_config_json, input_tokens, output_tokens)
			VALUES ('s1', '/p', '2025-12-01 10:00:00', '{"model_name":"gpt-5"}', 10, 1)`); err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			content := fmt.Sprintf(`[{"type":"toolResponse","id":"call_%05d","toolResult":{"status":"success","value":{"content":[{"type":"text","text":%q}]}}}]`,
				i, agentDBText(i, i == rows-1))
			if _, err := tx.Exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('s1', 'user', ?, ?)`, content, 1764600000+i); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		db.Close()
		var heap uint64
		s := open(t, filepath.Join(t.TempDir(), "usage.db"))
		st, err := s.Ingest(context.Background(), IngestOptions{GooseRoots: []string{root}, Count: heapAtMarker(&heap)})
		if err != nil || st.Requests != 1 || st.ToolResults != rows {
			t.Fatalf("%+v %v", st, err)
		}
		t.Logf("live heap at the last message's result: %d MB", heap>>20)
		if heap == 0 || heap > bound {
			t.Errorf("live heap at the last message's result: %d bytes, over %d", heap, bound)
		}
	})
}
