package transcript_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// The files under testdata/opencode are shaped as opencode writes them
// (sst/opencode packages/opencode/src/session/message-v2.ts: Assistant
// messages with tokens {input, output, reasoning, cache {read, write}},
// ToolPart with state {status, input, output | error, time}; storage/
// laid out as storage/storage.ts lays it out): a session with two
// models, a recorded cost, an aborted message with no tokens, a message
// cut short mid-write, a sub-agent's session, a user's message, tool
// parts completed, failed and still running, and a text part.

// TestOpencodeGolden reads the fixture tree as the store does and
// compares the records with testdata/opencode.golden.json.
func TestOpencodeGolden(t *testing.T) {
	files, err := transcript.DiscoverOpencode([]string{filepath.Join("testdata", "opencode")})
	if err != nil {
		t.Fatal(err)
	}
	type out struct {
		File   string               `json:"file"`
		Line   int                  `json:"line"`
		Record *transcript.Record   `json:"record,omitempty"`
		More   []*transcript.Record `json:"more,omitempty"`
		Texts  []string             `json:"texts,omitempty"`
		Error  string               `json:"error,omitempty"`
	}
	var got []out
	wd, _ := os.Getwd()
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(wd, f.Path)
		for _, it := range transcript.ReadOpencodeFile(data, f.Path) {
			o := out{File: filepath.ToSlash(rel), Line: it.Line, Record: it.Rec, More: it.More}
			if it.Err != nil {
				o.Error = it.Err.Error()
			}
			for _, m := range it.More {
				for _, r := range m.Results {
					o.Texts = append(o.Texts, r.Texts...)
				}
			}
			got = append(got, o)
		}
	}
	if len(files) != 10 {
		t.Errorf("%d files, want 6 messages and 4 parts (not the sessions)", len(files))
	}
	b, _ := json.MarshalIndent(got, "", "  ")
	b = append(b, '\n')
	golden := filepath.Join("testdata", "opencode.golden.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("records differ from %s (run with -update to see):\n%s", golden, b)
	}
}

// TestOpencodeDB reads a database shaped as opencode's (its message and
// part tables: data without the ids the columns hold), with and without
// a write-ahead log, and leaves its files as they were.
func TestOpencodeDB(t *testing.T) {
	for _, wal := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "opencode.db")
		w := transcripttest.OpencodeDB(t, path, wal)
		w.Message("msg_1", "ses_1", 1764321101000, `{"role":"assistant","time":{"created":1764321101000},"modelID":"claude-sonnet-4-5","providerID":"anthropic","path":{"cwd":"/p"},"cost":0,"tokens":{"input":10,"output":20,"reasoning":5,"cache":{"read":30,"write":40}}}`)
		w.Message("msg_2", "ses_1", 1764321102000, `{"role":"user","time":{"created":1764321102000}}`)
		w.Message("msg_3", "ses_1", 1764321103000, `{"role":"assistant",`)
		w.Part("prt_1", "msg_1", "ses_1", 1764321101500, `{"type":"tool","callID":"c1","tool":"github_get_me","state":{"status":"completed","input":{},"output":"me","time":{"start":1764321101500,"end":1764321101900}}}`)
		if fi, err := os.Stat(path + "-wal"); wal && (err != nil || fi.Size() == 0) {
			t.Fatal("no write-ahead log holds the rows")
		}
		before := snapshot(t, dir)
		items, err := transcript.ReadOpencodeDB(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if after := snapshot(t, dir); after != before {
			t.Errorf("wal %v: the database's files changed:\n%s\n%s", wal, before, after)
		}
		if len(items) != 3 || items[0].Rec.Request.Usage.Output != 25 || items[0].Rec.SessionID != "ses_1" || items[0].Rec.Request.MessageID != "msg_1" ||
			items[1].Err == nil || items[1].Line != 3 || items[2].Rec.Calls[0].Tool.Server != "github" || len(items[2].More) != 1 {
			b, _ := json.Marshal(items)
			t.Errorf("wal %v: %s", wal, b)
		}
		w.Close()
	}
}

// snapshot names a folder's files with their sizes and contents' hashes.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %x\n", e.Name(), len(data), sha256.Sum256(data))
	}
	return b.String()
}

func TestOpencodeDBNotOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	os.WriteFile(path, []byte("not a database, \x1b[31m"), 0o644)
	if _, err := transcript.ReadOpencodeDB(context.Background(), path); err == nil {
		t.Error("no error")
	}
	db, _ := sql.Open("sqlite", path+"2")
	db.Exec(`CREATE TABLE other (x)`)
	db.Close()
	if _, err := transcript.ReadOpencodeDB(context.Background(), path+"2"); err == nil || !strings.Contains(err.Error(), "messages") {
		t.Errorf("a database without a message table: %v", err)
	}
}

func TestOpencodeToolName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want transcript.Tool
	}{
		{"github_search_issues", transcript.Tool{Server: "github", Name: "search_issues"}},
		{"my-db_query", transcript.Tool{Server: "my-db", Name: "query"}},
		{"bash", transcript.Tool{Name: "bash", BuiltIn: true}},
		{"lsp_hover", transcript.Tool{Name: "lsp_hover", BuiltIn: true}},
		{"mcp__linear__get", transcript.Tool{Server: "linear", Name: "get"}},
		{"_x", transcript.Tool{Name: "_x", BuiltIn: true}},
	} {
		if got := transcript.OpencodeToolName(tc.name); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestOpencodeOutOfRange(t *testing.T) {
	for _, tokens := range []string{`{"input":9007199254740992}`, `{"output":1e30}`, `{"cache":{"read":1e400}}`} {
		rec, err := transcript.ParseOpencodeMessage([]byte(`{"id":"m","sessionID":"s","role":"assistant","modelID":"x","time":{"created":1764321101000},"tokens":`+tokens+`}`), "", "")
		if err == nil || rec != nil {
			t.Errorf("%s: no error", tokens)
		}
	}
}

// FuzzOpencodeMessage: no message or part panics, none gives both a
// record and an error.
func FuzzOpencodeMessage(f *testing.F) {
	filepath.Walk("testdata/opencode", func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
		return nil
	})
	for _, s := range boundaryInputs() {
		f.Add([]byte(`{"id":"m","sessionID":"s","role":"assistant","modelID":"x","time":{"created":1764321101000},"tokens":` + string(s) + `}`))
		f.Add([]byte(`{"type":"tool","callID":"c","tool":"a_b","state":{"status":"completed","input":` + string(s) + `,"output":` + string(s) + `,"time":{"start":1,"end":2}}}`))
	}
	deep := strings.Repeat(`[`, 5000) + `"x"` + strings.Repeat(`]`, 5000)
	f.Add([]byte(`{"type":"tool","callID":"c","tool":"a_b","state":{"status":"completed","output":` + deep + `,"time":{"start":1,"end":2}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := transcript.ParseOpencodeMessage(data, "id", "s")
		if err != nil && rec != nil {
			t.Fatal("a record and an error")
		}
		call, res, err := transcript.ParseOpencodePart(data, "s")
		if err != nil && (call != nil || res != nil) {
			t.Fatal("a record and an error")
		}
		if res != nil && call == nil {
			t.Fatal("a result without its call")
		}
	})
}

// TestOpencodeDBURIPath: an opencode.db in a folder whose name holds the
// characters of a URI's escapes, query and fragment is read where it is,
// not at the path cut at "#" or "?" or unescaped.
func TestOpencodeDBURIPath(t *testing.T) {
	for _, name := range []string{"C#", "a?mode=memory", "x%41", "%", "sp ace"} {
		made := filepath.Join(t.TempDir(), "plain")
		if err := os.Mkdir(made, 0o755); err != nil {
			t.Fatal(err)
		}
		w := transcripttest.OpencodeDB(t, filepath.Join(made, "opencode.db"), false)
		w.Message("msg_1", "ses_1", 1764321101000, `{"role":"assistant","time":{"created":1764321101000},"modelID":"claude-sonnet-4-5","providerID":"anthropic","path":{"cwd":"/p"},"cost":0,"tokens":{"input":10,"output":20,"reasoning":5,"cache":{"read":30,"write":40}}}`)
		w.Close()
		dir := filepath.Join(filepath.Dir(made), name)
		if err := os.Rename(made, dir); err != nil {
			t.Fatal(err)
		}
		items, err := transcript.ReadOpencodeDB(context.Background(), filepath.Join(dir, "opencode.db"))
		if err != nil || len(items) != 1 || items[0].Rec == nil || items[0].Rec.Request.Usage.Output != 25 {
			b, _ := json.Marshal(items)
			t.Errorf("%q: %v %s", name, err, b)
		}
	}
}
