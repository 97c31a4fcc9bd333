package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/token"
)

// geminiTree copies the transcript package's Gemini CLI fixtures (files
// shaped as Gemini CLI writes them) into a fresh folder.
func geminiTree(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "transcript", "testdata", "gemini")
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

type geminiTotals struct {
	requests           int
	input, output, all int64
	calls, mcp, errors int
	resultTokens       int64
}

func geminiSums(t *testing.T, s *Store) geminiTotals {
	t.Helper()
	var g geminiTotals
	for r, err := range s.Requests(context.Background(), Filter{Source: "gemini"}) {
		if err != nil {
			t.Fatal(err)
		}
		g.requests++
		g.input += r.Input
		g.output += r.Output
		g.all += r.Input + r.Output + r.CacheRead
	}
	for c, err := range s.ToolCalls(context.Background(), Filter{Source: "gemini"}) {
		if err != nil {
			t.Fatal(err)
		}
		g.calls++
		if c.Server != "" {
			g.mcp++
		}
		if c.IsError {
			g.errors++
		}
		g.resultTokens += c.ResultTokens
	}
	return g
}

// TestGeminiIngest reads Gemini CLI chats into the store: a second run
// with nothing new reads nothing; a JSON chat rewritten and a JSONL chat
// that writes a message again are read again whole, without counting a
// request twice; broken lines are warnings naming the file and line.
func TestGeminiIngest(t *testing.T) {
	root := geminiTree(t)
	s, err := Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := IngestOptions{GeminiRoots: []string{root}, Count: token.O200k().Count}
	ctx := context.Background()
	st, err := s.Ingest(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	jsonl := filepath.Join(root, "tmp", "4d7e21aa03", "chats", "session-2026-11-29T14-03-7b9d4c2e.jsonl")
	if st.Files != 3 || st.Requests != 7 || st.Corrupt != 2 || len(st.Warnings) != 2 ||
		!strings.HasPrefix(st.Warnings[0], jsonl+":6: ") || !strings.HasPrefix(st.Warnings[1], jsonl+":9: ") {
		t.Fatalf("first read: %+v", st)
	}
	first := geminiSums(t, s)
	want := geminiTotals{requests: 7, input: 29971, output: 2256, all: 90595, calls: 6, mcp: 3, errors: 1}
	if first.resultTokens == 0 {
		t.Error("no result tokens counted")
	}
	want.resultTokens = first.resultTokens
	if first != want {
		t.Fatalf("totals %+v, want %+v", first, want)
	}

	st, err = s.Ingest(ctx, o)
	if err != nil || st.FilesRead != 0 || st.BytesRead != 0 || st.Requests != 0 {
		t.Fatalf("second read did work: %+v %v", st, err)
	}
	if got := geminiSums(t, s); got != first {
		t.Fatalf("second read changed the totals: %+v", got)
	}

	// Gemini CLI rewrites the JSON chat on every turn: a message's output
	// grows by 1000, another message is added.
	doc := filepath.Join(root, "tmp", "9f1c0e5a2b", "chats", "session-2026-11-28T09-12-3f2a1c9e.json")
	b, _ := os.ReadFile(doc)
	b2 := strings.Replace(string(b), `"output": 402, "cached": 0, "thoughts": 120, "tool": 0, "total": 16399`, `"output": 1402, "cached": 0, "thoughts": 120, "tool": 0, "total": 17399`, 1)
	b2 = strings.Replace(b2, "\n  ]\n}", `,
    {"id": "a1b2c3d4-0008", "timestamp": "2026-11-28T09:25:00.000Z", "type": "gemini", "content": "Done.", "model": "gemini-2.5-flash",
     "tokens": {"input": 100, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 110}}
  ]
}`, 1)
	if b2 == string(b) || !strings.Contains(b2, "a1b2c3d4-0008") {
		t.Fatal("the fixture changed: update the test's edit")
	}
	os.WriteFile(doc, []byte(b2), 0o644)
	// The JSONL chat writes g-2 again, grown.
	f, _ := os.OpenFile(jsonl, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"g-2","timestamp":"2026-11-29T14:09:55.000Z","type":"gemini","content":"The test job failed on a flaky timeout.","tokens":{"input":21500,"output":530,"cached":20480,"thoughts":95,"tool":31,"total":22156}}` + "\n")
	f.Close()
	st, err = s.Ingest(ctx, o)
	if err != nil || st.FilesRead != 2 {
		t.Fatalf("third read: %+v %v", st, err)
	}
	got := geminiSums(t, s)
	want = first
	want.requests++
	want.input += 100
	want.output += 1000 + 10 + 300
	want.all += 1000 + 110 + 300
	if got != want {
		t.Fatalf("after the rewrite %+v, want %+v", got, want)
	}
}

// TestGeminiHostile: a chat file that is not JSON, a link to /dev, a
// file that is huge on one line: warnings, never a panic or a hang.
func TestGeminiHostile(t *testing.T) {
	root := t.TempDir()
	chats := filepath.Join(root, "tmp", "p", "chats")
	os.MkdirAll(chats, 0o755)
	os.WriteFile(filepath.Join(chats, "session-a.json"), []byte("{\"sessionId\": \"a\", \"messages\": [\x1b[31m"), 0o644)
	os.WriteFile(filepath.Join(chats, "session-b.jsonl"), []byte("\x00\x01\n{\"type\":\"gemini\",\"model\":\"m\",\"tokens\":{\"input\":1}}\n"), 0o644)
	if err := os.Symlink("/dev", filepath.Join(chats, "dev")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Ingest(context.Background(), IngestOptions{GeminiRoots: []string{root}, Count: token.O200k().Count})
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 2 || st.Requests != 1 || st.Corrupt != 2 {
		t.Errorf("%+v", st)
	}
	for _, w := range st.Warnings {
		if strings.ContainsAny(w, "\x1b\x00\x01") {
			t.Errorf("a warning holds a control character: %q", w)
		}
	}
}

// TestGeminiRewrittenWhileRead: a chat rewritten in place at the same
// size while it is read (its middle alone, or its edges too), or since
// it was read with its edges as they were, is read again by the next
// ingest, and then as a fresh store reads it; the ingest after that
// reads nothing. The rewrite sets the file's time one second on (with
// os.Chtimes: no clock decides the test).
func TestGeminiRewrittenWhileRead(t *testing.T) {
	const (
		doc   = "tmp/9f1c0e5a2b/chats/session-2026-11-28T09-12-3f2a1c9e.json"
		jsonl = "tmp/4d7e21aa03/chats/session-2026-11-29T14-03-7b9d4c2e.jsonl"
	)
	for _, tc := range []struct {
		name, file, old, new string
		during               bool
	}{
		{"json middle", doc, `"output": 58`, `"output": 88`, true},
		{"json edges", doc, `"output": 402`, `"output": 702`, true},
		{"jsonl", jsonl, `"output":230`, `"output":530`, true},
		{"json middle since", doc, `"output": 58`, `"output": 88`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := geminiTree(t)
			path := filepath.Join(root, filepath.FromSlash(tc.file))
			t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
			if err := os.Chtimes(path, t0, t0); err != nil {
				t.Fatal(err)
			}
			rewrite := func() {
				b, err := os.ReadFile(path)
				if err != nil || !strings.Contains(string(b), tc.old) || len(tc.old) != len(tc.new) {
					t.Fatalf("the fixture changed: update the test's edit (%v)", err)
				}
				f, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteAt([]byte(tc.new), int64(strings.Index(string(b), tc.old)))
				f.Close()
				if err := os.Chtimes(path, t0.Add(time.Second), t0.Add(time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			o := IngestOptions{GeminiRoots: []string{root}, Count: token.O200k().Count}
			ctx := context.Background()
			if tc.during {
				defer func(old func(string)) { testOnlyWhileRead = old }(testOnlyWhileRead)
				// The readers call the hook at once: it rewrites the file
				// once, and is not itself rewritten while they read it.
				var once sync.Once
				testOnlyWhileRead = func(p string) {
					if p == path {
						once.Do(rewrite)
					}
				}
			}
			if _, err := s.Ingest(ctx, o); err != nil {
				t.Fatal(err)
			}
			if !tc.during {
				rewrite()
			}
			st, err := s.Ingest(ctx, o)
			if err != nil || st.FilesRead != 1 {
				t.Fatalf("the ingest after the rewrite read %d files, want 1 (%v)", st.FilesRead, err)
			}
			ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
			if _, err := ref.Ingest(ctx, o); err != nil {
				t.Fatal(err)
			}
			if got, want := geminiSums(t, s), geminiSums(t, ref); got != want {
				t.Errorf("totals %+v, want a fresh store's %+v", got, want)
			}
			if st, err := s.Ingest(ctx, o); err != nil || st.FilesRead != 0 {
				t.Errorf("the ingest after that read %d files, want none (%v)", st.FilesRead, err)
			}
		})
	}
}

// TestGeminiLinesStat: the lines an ingest reports of a chat read whole
// in several batches are the chat's lines, once, as for any file read
// line by line, and so is the line count its row keeps.
func TestGeminiLinesStat(t *testing.T) {
	for _, n := range []int{1, batchRecords - 1, batchRecords, batchRecords + 1, 2*batchRecords + 1} {
		root := t.TempDir()
		dir := filepath.Join(root, "tmp", "4d7e21aa03", "chats")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString(`{"sessionId":"7b9d4c2e-8a61-4f3b-b0d2-5e9f1a3c7d20","projectHash":"4d7e21aa03","startTime":"2026-11-29T14:03:10.000Z","lastUpdated":"2026-11-29T14:09:55.000Z","kind":"main"}` + "\n")
		for i := range n {
			fmt.Fprintf(&b, `{"id":"g-%d","timestamp":"2026-11-29T14:03:14.200Z","type":"gemini","content":"x","model":"gemini-3-pro-preview","tokens":{"input":10,"output":1,"cached":0,"thoughts":0,"tool":0,"total":11}}`+"\n", i)
		}
		path := filepath.Join(dir, "session-2026-11-29T14-03-7b9d4c2e.jsonl")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		s := open(t, filepath.Join(t.TempDir(), "usage.db"))
		st, err := s.Ingest(context.Background(), IngestOptions{GeminiRoots: []string{root}, Count: token.O200k().Count})
		if err != nil {
			t.Fatal(err)
		}
		var stored int
		if err := s.db.QueryRow(`SELECT lines FROM files WHERE path = ?`, path).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if st.Lines != n+1 || stored != n+1 || st.Requests != n {
			t.Errorf("%d messages: %d lines reported, %d stored, %d requests; want %d, %d, %d", n, st.Lines, stored, st.Requests, n+1, n+1, n)
		}
	}
}
