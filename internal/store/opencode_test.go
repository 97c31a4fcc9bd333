package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// copyFixtures copies a folder of the transcript package's testdata.
func copyFixtures(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "transcript", "testdata", name)
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestOpencodeIngest reads opencode's storage/ tree and an opencode.db
// that opencode holds open (WAL mode, nothing checkpointed): a message in
// both counts once; a second run reads nothing; a row written since is
// read; opencode's writes are never kept waiting, and its files are left
// as they were.
func TestOpencodeIngest(t *testing.T) {
	root := copyFixtures(t, "opencode")
	dbPath := filepath.Join(root, "opencode.db")
	w := transcripttest.OpencodeDB(t, dbPath, true)
	defer w.Close()
	// A copy of a message of the storage/ tree (opencode moved its
	// storage into the database), and one of its own.
	w.Message("msg_7b2c92a1b001XyZ", "ses_7b2c91d0effeAbCd", 1764321101000, `{"role":"assistant","time":{"created":1764321101000,"completed":1764321109500},"modelID":"claude-sonnet-4-5","providerID":"anthropic","path":{"cwd":"/home/dev/web","root":"/home/dev/web"},"cost":0,"tokens":{"input":12,"output":488,"reasoning":0,"cache":{"read":14210,"write":2203}}}`)
	w.Message("msg_db0001", "ses_db", 1764500000000, `{"role":"assistant","time":{"created":1764500000000},"modelID":"gpt-5","providerID":"openai","path":{"cwd":"/home/dev/api"},"cost":0,"tokens":{"input":100,"output":10,"reasoning":5,"cache":{"read":0,"write":0}}}`)
	w.Part("prt_db1", "msg_db0001", "ses_db", 1764500000100, `{"type":"tool","callID":"call_1","tool":"postgres_query","state":{"status":"completed","input":{"sql":"select 1"},"output":"1 row","time":{"start":1764500000100,"end":1764500000300}}}`)

	s, err := Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := IngestOptions{OpencodeRoots: []string{root}, Count: token.O200k().Count}
	ctx := context.Background()
	before := dirState(t, root)
	st, err := s.Ingest(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 11 || st.Requests != 4 || st.Duplicates != 1 || st.Corrupt != 1 || len(st.Warnings) != 1 ||
		!strings.Contains(st.Warnings[0], "msg_7b2c92a1b004XyZ.json:1: ") {
		t.Fatalf("first read: %+v", st)
	}
	if after := dirState(t, root); after != before {
		t.Errorf("the ingest changed opencode's files:\n%s\n%s", before, after)
	}
	count := func() (reqs int, out int64) {
		for r, err := range s.Requests(ctx, Filter{Source: "opencode"}) {
			if err != nil {
				t.Fatal(err)
			}
			reqs++
			out += r.Output
		}
		return reqs, out
	}
	reqs, out := count()
	calls, mcp := 0, 0
	for c, err := range s.ToolCalls(ctx, Filter{Source: "opencode"}) {
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if c.Server != "" {
			mcp++
		}
	}
	if reqs != 4 || out != 488+502+640+15 || calls != 4 || mcp != 3 {
		t.Errorf("%d requests, output %d, %d calls (%d MCP)", reqs, out, calls, mcp)
	}

	st, err = s.Ingest(ctx, o)
	if err != nil || st.FilesRead != 0 || st.Requests != 0 {
		t.Fatalf("second read did work: %+v %v", st, err)
	}
	// opencode writes on while mcpcost reads: nothing waits.
	w.Message("msg_db0002", "ses_db", 1764500100000, `{"role":"assistant","time":{"created":1764500100000},"modelID":"gpt-5","providerID":"openai","cost":0,"tokens":{"input":7,"output":3,"reasoning":0,"cache":{"read":0,"write":0}}}`)
	st, err = s.Ingest(ctx, o)
	// The database is read again whole (its rows replaced: they count as
	// read anew).
	if err != nil || st.FilesRead != 1 || st.FilesReread != 1 {
		t.Fatalf("after a new row: %+v %v", st, err)
	}
	if reqs, out := count(); reqs != 5 || out != 488+502+640+15+3 {
		t.Errorf("after a new row: %d requests, output %d", reqs, out)
	}
	w.Message("msg_db0003", "ses_db", 1764500200000, `{"role":"assistant","time":{"created":1764500200000},"modelID":"gpt-5","cost":0,"tokens":{"input":1,"output":1}}`)
}

// dirState lists a folder's files with their sizes and hashes.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			h := hashAt(p, 0, fi.Size())
			fmt.Fprintf(&b, "%s %d %x\n", p, fi.Size(), h)
		}
		return nil
	})
	return b.String()
}

// TestOpencodeDBRewrittenInPlace: a message of an opencode.db updated in
// place, its page in the middle of the file, after opencode checkpointed
// and removed its write-ahead log (the file's size and edges as before,
// its time later), is read again.
func TestOpencodeDBRewrittenInPlace(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "opencode.db")
	msg := func(i, tokens int) string {
		return fmt.Sprintf(`{"role":"assistant","time":{"created":%d},"modelID":"claude-sonnet-4-5","path":{"cwd":"/p"},"tokens":{"input":%d,"output":%d,"reasoning":0,"cache":{"read":0,"write":0}}}`,
			1764000000000+i, tokens, tokens)
	}
	write := func(stmts func(db *sql.DB)) {
		t.Helper()
		db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(wal)")
		if err != nil {
			t.Fatal(err)
		}
		stmts(db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path + "-wal"); err == nil {
			t.Fatal("the write-ahead log is still there")
		}
	}
	write(func(db *sql.DB) {
		db.Exec(`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT)`)
		for i := range 100 {
			if _, err := db.Exec(`INSERT INTO message VALUES (?, 'ses_1', ?, ?)`, fmt.Sprintf("msg_%03d", i), 1764000000000+i, msg(i, 100)); err != nil {
				t.Fatal(err)
			}
		}
	})
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	o := IngestOptions{OpencodeRoots: []string{root}, Count: token.O200k().Count}
	output := func() int64 {
		t.Helper()
		if _, err := s.Ingest(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := s.db.QueryRow(`SELECT sum(output) FROM requests`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := output(); got != 100*100 {
		t.Fatalf("first read: %d output tokens", got)
	}
	before, _ := os.ReadFile(path)
	write(func(db *sql.DB) {
		if _, err := db.Exec(`UPDATE message SET data = ? WHERE id = 'msg_050'`, msg(50, 900)); err != nil {
			t.Fatal(err)
		}
	})
	after, _ := os.ReadFile(path)
	if len(after) != len(before) || !bytes.Equal(after[:4096], before[:4096]) || !bytes.Equal(after[len(after)-4096:], before[len(before)-4096:]) {
		t.Fatal("the update changed the file's size or edges: the test tests nothing")
	}
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(path, later, later)
	if got := output(); got != 99*100+900 {
		t.Errorf("after an update in place: %d output tokens, want %d", got, 99*100+900)
	}
}
