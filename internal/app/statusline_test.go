package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/usage"
)

// TestStatuslineMemo: the figure of a project's MCP definitions is kept
// beside the measurement cache and used while the files it came from are
// unchanged and it is young; a memo that is stale, unreadable or from the
// future is worked out again, and a missing store leaves the store's parts
// out without an error.
func TestStatuslineMemo(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "p")
	os.MkdirAll(project, 0o755)
	cacheDir := filepath.Join(home, "cache", "measurements")
	now := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	m := &Machine{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}, Now: func() time.Time { return now }, CacheDir: cacheDir, DBPath: filepath.Join(home, "none.db")}
	var in usage.StatusInput
	in.Model.DisplayName = "Opus"
	in.Workspace.ProjectDir = project
	line := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: time.Second})
	if line.MCPDefinitionTokens == nil || *line.MCPDefinitionTokens != 0 || line.BlockChecked || line.Today != nil || len(line.Late) != 0 {
		t.Fatalf("first line %+v", line)
	}
	memo := statusMemoPath(cacheDir, project)
	d, ok := readStatusMemo(memo, cacheDir, now)
	if !ok {
		t.Fatalf("no fresh memo at %s", memo)
	}
	// A memo says what it says while fresh: a figure written into it is
	// shown.
	d.Tokens, d.Servers = 4321, 1
	writeStatusMemo(memo, cacheDir, d)
	if line := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: time.Second}); *line.MCPDefinitionTokens != 4321 {
		t.Errorf("the fresh memo is not used: %d", *line.MCPDefinitionTokens)
	}
	for name, at := range map[string]time.Time{
		"stale":  now.Add(statusMemoAge + time.Second),
		"future": now.Add(-time.Hour),
	} {
		m.Now = func() time.Time { return at }
		if line := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: time.Second}); *line.MCPDefinitionTokens != 0 {
			t.Errorf("%s: the memo is used (%d)", name, *line.MCPDefinitionTokens)
		}
		writeStatusMemo(memo, cacheDir, d)
	}
	m.Now = func() time.Time { return now }
	// A change of the cache folder (a measurement added) makes it stale.
	os.WriteFile(filepath.Join(cacheDir, "new-entry"), []byte("x"), 0o600)
	if _, ok := readStatusMemo(memo, cacheDir, now); ok {
		t.Error("the memo outlives a change of the cache")
	}
	os.WriteFile(memo, []byte("{not json"), 0o600)
	if line := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: time.Second}); line.MCPDefinitionTokens == nil || *line.MCPDefinitionTokens != 0 {
		t.Errorf("an unreadable memo: %+v", line)
	}
}

// TestStatuslineStoreMemo: the store's part of the line (today's cost, the
// active block, the session's MCP result tokens) is kept in a memo and
// used, without the store, while the store is unchanged and the memo has
// not run out; a write to the store, the block's end, another session or
// another zone work it out again from the store.
func TestStatuslineStoreMemo(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "p")
	os.MkdirAll(project, 0o755)
	cacheDir := filepath.Join(home, "cache", "measurements")
	dir := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(dir, 0o755)
	transcript := filepath.Join(dir, "s1.jsonl")
	now := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	line := func(ts time.Time, id string) string {
		return `{"type":"assistant","cwd":"` + project + `","sessionId":"s1","version":"2.1.97","timestamp":"` + ts.Format(time.RFC3339) + `","requestId":"r` + id +
			`","message":{"id":"m` + id + `","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"t` + id + `","name":"mcp__docs__lookup","input":{}}],"usage":{"input_tokens":1000,"output_tokens":100}}}` + "\n" +
			`{"type":"user","cwd":"` + project + `","sessionId":"s1","timestamp":"` + ts.Add(time.Second).Format(time.RFC3339) + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t` + id + `","content":"a result of some words"}]}}` + "\n"
	}
	if err := os.WriteFile(transcript, []byte(line(now.Add(-30*time.Minute), "1")), 0o644); err != nil {
		t.Fatal(err)
	}
	clock := now
	m := &Machine{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}, Now: func() time.Time { return clock }, CacheDir: cacheDir, DBPath: filepath.Join(home, "usage.db")}
	ingest := func() {
		t.Helper()
		if _, err := m.Ingest(context.Background(), IngestOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ingest()
	var in usage.StatusInput
	in.SessionID = "s1"
	in.Workspace.ProjectDir = project
	status := func() *usage.StatusLine {
		t.Helper()
		l := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: 5 * time.Second})
		if len(l.Late) != 0 {
			t.Fatalf("late: %v", l.Late)
		}
		return l
	}
	first := status()
	if first.Today == nil || *first.Today == 0 || first.Block == nil || first.MCPResultTokens == nil || *first.MCPResultTokens == 0 {
		t.Fatalf("first line %+v", first)
	}
	loc, err := m.location(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	key := storeMemo{Version: m.version(), Store: m.DBPath, Session: "s1", Zone: loc.String(), Stamps: storeStamps(m.DBPath)}
	memo := storeMemoPath(cacheDir, key)
	d, ok := readStoreMemo(memo, key, now)
	if !ok || *d.Today != *first.Today || *d.BlockEnd != first.Block.EndTime || *d.MCPResultTokens != *first.MCPResultTokens {
		t.Fatalf("no fresh memo at %s: %+v", memo, d)
	}
	// While fresh, the memo is what the line says: a figure written into
	// it is shown, the store not read.
	planted := 123.45
	d.Today = &planted
	b, _ := json.Marshal(d)
	writeMemoFile(memo, b)
	if l := status(); *l.Today != planted || l.Block == nil || l.Block.CostUSD != first.Block.CostUSD || l.Text() != strings.Replace(first.Text(), "today "+dollarsOf(*first.Today), "today $123.45", 1) {
		t.Errorf("the fresh memo is not used: %q", l.Text())
	}
	// Another session, another zone: their own memos.
	in.SessionID = "s2"
	if l := status(); *l.Today == planted || l.MCPResultTokens != nil {
		t.Errorf("another session's line: %q", l.Text())
	}
	in.SessionID = "s1"
	if l := m.Statusline(context.Background(), StatuslineOptions{Input: in, TZ: "Asia/Tokyo", Budget: 5 * time.Second}); *l.Today == planted {
		t.Errorf("another zone's line: %q", l.Text())
	}
	// The memo runs out at the active block's end.
	clock = first.Block.EndTime.Add(time.Minute)
	if l := status(); l.Block != nil || !l.BlockChecked || *l.Today == planted {
		t.Errorf("after the block's end: %q", l.Text())
	}
	clock = now
	writeMemoFile(memo, b)
	if l := status(); *l.Today != planted {
		t.Fatalf("the memo is not used again: %q", l.Text())
	}
	// A write to the store (an ingest of a new request) makes it stale.
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line(now.Add(-10*time.Minute), "2"))
	f.Close()
	ingest()
	if l := status(); *l.Today == planted || *l.MCPResultTokens <= *first.MCPResultTokens {
		t.Errorf("after an ingest: %q, first %q", l.Text(), first.Text())
	}
}

// dollarsOf prints a cost as the status line does.
func dollarsOf(v float64) string {
	l := usage.StatusLine{Today: &v}
	return strings.TrimPrefix(l.Text(), "today ")
}

// TestStatuslineLockedStore: a store another process holds locked (here
// in SQLite's exclusive locking mode, which shuts readers out) does not
// hold the line up: it is printed within its budget without the store's
// part, which it names as late; the definitions' part is there.
func TestStatuslineLockedStore(t *testing.T) {
	// Not t.TempDir: the line is printed while its read of the store
	// still waits on the lock, and that read may write (the memo) once
	// the lock is gone, after the test; the folder is removed once it is
	// done.
	home, err := os.MkdirTemp("", "mcpcost-statusline-locked-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 100 {
			if os.RemoveAll(home) == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	project := filepath.Join(home, "p")
	os.MkdirAll(project, 0o755)
	dbPath := filepath.Join(home, "usage.db")
	m := &Machine{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}, CacheDir: filepath.Join(home, "cache", "measurements"), DBPath: dbPath}
	if _, err := m.Ingest(context.Background(), IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(dbPath))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{`PRAGMA locking_mode = EXCLUSIVE`, `BEGIN EXCLUSIVE`, `INSERT INTO meta (key, value) VALUES ('locked', x'01')`} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(q, err)
		}
	}
	var in usage.StatusInput
	in.SessionID = "s1"
	in.Workspace.ProjectDir = project
	done := make(chan *usage.StatusLine, 1)
	go func() {
		done <- m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: 200 * time.Millisecond})
	}()
	select {
	case l := <-done:
		if !slices.Contains(l.Late, "store") || l.Today != nil || l.MCPDefinitionTokens == nil {
			t.Errorf("the line of a locked store: %+v", l)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the status line waits on a locked store")
	}
}
