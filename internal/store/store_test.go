package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

func TestMain(m *testing.M) {
	// A child process of TestOpenReadOnlyOnFullDisk: no file may grow,
	// as on a full disk.
	if db := os.Getenv("MCPCOST_STORE_TEST_FULL_DISK"); db != "" {
		os.Exit(fullDiskChild(db, os.Getenv("MCPCOST_STORE_TEST_NO_OPEN") == ""))
	}
	// A child process of TestOpenReadOnlyFolder: read and print totals.
	if db := os.Getenv("MCPCOST_STORE_TEST_READ"); db != "" {
		os.Exit(readChild(db))
	}
	// A child process of TestPushKilled: push and exit.
	if db := os.Getenv("MCPCOST_STORE_TEST_PUSH"); db != "" {
		s, err := Open(db)
		if err == nil {
			_, err = s.Push(context.Background(), os.Getenv("MCPCOST_STORE_TEST_PG"), PushOptions{Machine: "killed", User: "dev"})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	// A child process of TestMirrorManyProcesses: open the mirror, print
	// what bringing it up to date did and exit.
	if path := os.Getenv("MCPCOST_STORE_TEST_MIRROR"); path != "" {
		s, st, err := OpenMirror(context.Background(), os.Getenv("MCPCOST_STORE_TEST_PG"), path, MirrorOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		s.Close()
		json.NewEncoder(os.Stdout).Encode(st)
		os.Exit(0)
	}
	// A child process of TestTwoProcesses and TestNewStoreManyProcesses:
	// wait for the go file (when named), ingest and exit.
	if db := os.Getenv("MCPCOST_STORE_TEST_CHILD"); db != "" {
		if start := os.Getenv("MCPCOST_STORE_TEST_START"); start != "" {
			for {
				if _, err := os.Stat(start); err == nil {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
		s, err := Open(db)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		home := os.Getenv("MCPCOST_STORE_TEST_HOME")
		if _, err := s.Ingest(context.Background(), options(home)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		s.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func options(home string) IngestOptions {
	return IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
	}
}

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ingest(t *testing.T, s *Store, home string) *IngestStats {
	t.Helper()
	st, err := s.Ingest(context.Background(), options(home))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestMigrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "usage.db")
	s := open(t, path)
	var v int
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() || v < 1 {
		t.Fatalf("user_version %d (%v), want %d", v, err, SchemaVersion())
	}
	key := append([]byte{}, s.key...)
	s.Close()
	s2 := open(t, path)
	if !bytes.Equal(s2.key, key) || len(key) != 32 {
		t.Error("the arguments' key changed on re-open")
	}
	for _, table := range []string{"files", "sessions", "requests", "tool_calls", "compactions", "ingest_lock", "meta"} {
		var n int
		if err := s2.db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Errorf("table %s: %v", table, err)
		}
	}
	// A store from a newer mcpcost is refused, not damaged.
	s2.db.Exec("PRAGMA user_version = 99")
	s2.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("opening a newer store: %v", err)
	}
}

// TestOpenURIPath: a store whose path holds the characters of a URI's
// escapes, query and fragment is opened, read and written at that path,
// not at the path cut at "#" or "?" or unescaped ("a#b.db" opened "a").
func TestOpenURIPath(t *testing.T) {
	for _, name := range []string{"a#b.db", "c?mode=memory", "d%41.db", "%", "e?f#g%2"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		s := open(t, path)
		key := append([]byte{}, s.key...)
		s.Close()
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || entries[0].Name() != name {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("%q: the folder holds %q", name, names)
			continue
		}
		r, err := OpenReadOnly(path)
		if err != nil {
			t.Errorf("%q: read-only: %v", name, err)
			continue
		}
		if !bytes.Equal(r.key, key) {
			t.Errorf("%q: read-only, another store", name)
		}
		r.Close()
	}
}

// totals is a store's content in a comparable form.
func totals(t *testing.T, s *Store) string {
	t.Helper()
	got, err := totalsOf(s)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func totalsOf(s *Store) (string, error) {
	var b strings.Builder
	q := func(query string) error {
		rows, err := s.db.Query(query)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					vals[i] = fmt.Sprintf("%x", bs)
				}
			}
			fmt.Fprintln(&b, vals...)
		}
		return rows.Err()
	}
	for _, query := range []string{
		`SELECT source, session_id, agent_id, count(*), sum(input), sum(output), sum(cache_write_5m), sum(cache_write_1h), sum(cache_read)
		FROM requests GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
		`SELECT source, session_id, call_id, name, server, call_ts, result_ts, result_tokens, result_bytes, non_text, estimated_tokens, is_error, spilled, lost
		FROM tool_calls ORDER BY 1, 2, 3`,
		`SELECT source, session_id, project, first_ts, last_ts FROM ` + sessionsQuery + ` ORDER BY 1, 2`,
		`SELECT source, session_id, ts, trigger, pre_tokens FROM compactions ORDER BY 1, 2, 3`,
	} {
		if err := q(query); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func TestIngestMatchesManifest(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testIngestMatchesManifest(t, transcripttest.Small()) })
	q := transcripttest.Small()
	q.Quirks = true
	t.Run("quirks", func(t *testing.T) { testIngestMatchesManifest(t, q) })
}

func testIngestMatchesManifest(t *testing.T, o transcripttest.Options) {
	home := t.TempDir()
	m, err := transcripttest.Generate(home, o)
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	st := ingest(t, s, home)
	if st.Files != m.Files || st.FilesRead != m.Files || st.Corrupt != len(m.CorruptLines) || st.Compactions != m.Compactions {
		t.Errorf("stats %+v; want %d files, %d corrupt, %d compactions", st, m.Files, len(m.CorruptLines), m.Compactions)
	}
	for _, c := range m.CorruptLines {
		path, line, _ := strings.Cut(c, ":")
		found := false
		for _, w := range st.Warnings {
			found = found || strings.Contains(w, filepath.FromSlash(path)+":"+line+": ")
		}
		if !found {
			t.Errorf("no warning names %s; warnings: %q", c, st.Warnings)
		}
	}

	// Requests: per session and per day, the manifest's totals exactly.
	type sum struct{ n, in, out, c5, c1, cr int64 }
	want := map[string]sum{}
	for _, r := range m.Requests {
		for _, k := range []string{r.Source + " session " + r.SessionID, r.Source + " day " + r.Time.Format("2006-01-02")} {
			v := want[k]
			want[k] = sum{v.n + 1, v.in + r.Input, v.out + r.Output, v.c5 + r.Cache5m, v.c1 + r.Cache1h, v.cr + r.CacheRead}
		}
	}
	got := map[string]sum{}
	rows, err := s.db.Query(`SELECT source, session_id, ts, input, output, cache_write_5m, cache_write_1h, cache_read FROM requests`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var src, sess string
		var ts int64
		var r sum
		rows.Scan(&src, &sess, &ts, &r.in, &r.out, &r.c5, &r.c1, &r.cr)
		day := time.UnixMilli(ts).UTC().Format("2006-01-02")
		for _, k := range []string{src + " session " + sess, src + " day " + day} {
			v := got[k]
			got[k] = sum{v.n + 1, v.in + r.in, v.out + r.out, v.c5 + r.c5, v.c1 + r.c1, v.cr + r.cr}
		}
	}
	rows.Close()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("request totals\ngot  %v\nwant %v", got, want)
	}
	if st.Requests != len(m.Requests) {
		t.Errorf("%d new requests, want %d", st.Requests, len(m.Requests))
	}

	// Tool calls: every one, with its exact result tokens and latency.
	var calls int
	s.db.QueryRow(`SELECT count(*) FROM tool_calls WHERE call_ts IS NOT NULL AND result_ts IS NOT NULL AND lost = 0`).Scan(&calls)
	if calls != len(m.Calls) {
		t.Errorf("%d paired calls, want %d", calls, len(m.Calls))
	}
	hashes := map[string][]byte{}
	for _, c := range m.Calls {
		var name string
		var server *string
		var tokens, latency int64
		var isErr bool
		var hash []byte
		err := s.db.QueryRow(`SELECT name, server, result_tokens, coalesce(duration_ms, result_ts - call_ts), is_error, args_hash FROM tool_calls WHERE source = ? AND session_id = ? AND call_id = ?`,
			c.Source, c.SessionID, c.ID).Scan(&name, &server, &tokens, &latency, &isErr, &hash)
		if err != nil {
			t.Errorf("call %s: %v", c.ID, err)
			continue
		}
		want := 0
		for _, tx := range c.Texts {
			want += token.O200k().Count(tx)
		}
		if name != c.Name || tokens != int64(want) || latency != c.Latency.Milliseconds() || isErr != c.IsError {
			t.Errorf("call %s: %s %d tokens %d ms error %v; want %s %d %d %v", c.ID, name, tokens, latency, isErr, c.Name, want, c.Latency.Milliseconds(), c.IsError)
		}
		if (server == nil) != !strings.HasPrefix(c.Name, "mcp__") {
			t.Errorf("call %s (%s): server %v", c.ID, c.Name, server)
		}
		if !bytes.Equal(hash, s.HashArgs([]byte(c.Args))) {
			t.Errorf("call %s: args hash differs", c.ID)
		}
		if h, ok := hashes[c.Args]; ok && !bytes.Equal(h, hash) {
			t.Errorf("identical arguments hash differently")
		}
		hashes[c.Args] = hash
	}

	// Resumed sessions: each session's span is that of its own lines and
	// of the copies it keeps, never of those another session keeps.
	if o.Quirks && len(m.Resumed) < 2 {
		t.Errorf("%d resumed sessions", len(m.Resumed))
	}
	ss, err := s.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	spans := map[string][2]int64{}
	for _, x := range ss {
		spans[x.ID] = [2]int64{x.FirstTS, x.LastTS}
	}
	for _, r := range m.Resumed {
		for id, want := range map[string][2]time.Time{r.From: r.FromSpan, r.To: r.ToSpan} {
			if got := spans[id]; got != [2]int64{want[0].UnixMilli(), want[1].UnixMilli()} {
				t.Errorf("session %s (resumed %s → %s, copies kept by the new one %v): span %v, want %v", id, r.From, r.To, r.Kept, got, want)
			}
		}
	}

	// Nothing new: nothing read.
	st2 := ingest(t, s, home)
	if st2.BytesRead != 0 || st2.FilesRead != 0 || st2.Requests != 0 {
		t.Errorf("second ingest read %+v", st2)
	}
}

// copyTree copies the tree at src to dst, cutting every transcript at cut
// (a fraction of its size, mid-line), and returns the cut files' rests.
func copyTree(t *testing.T, src, dst string, cut float64) map[string][]byte {
	rests := map[string][]byte{}
	filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, _ := os.ReadFile(path)
		n := int(float64(len(data)) * cut)
		if !strings.HasSuffix(path, ".jsonl") {
			n = len(data)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755)
		os.WriteFile(filepath.Join(dst, rel), data[:n], 0o644)
		rests[rel] = data[n:]
		return nil
	})
	return rests
}

func TestIncremental(t *testing.T) {
	full := t.TempDir()
	if _, err := transcripttest.Generate(full, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, full)
	want := totals(t, ref)

	for _, cut := range []float64{0.3, 0.77} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			home := t.TempDir()
			rests := copyTree(t, full, home, cut)
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			st1 := ingest(t, s, home)
			// Complete every file by appending (a live session growing).
			var restBytes int64
			for rel, rest := range rests {
				f, err := os.OpenFile(filepath.Join(home, rel), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(rest)
				f.Close()
				if strings.HasSuffix(rel, ".jsonl") {
					restBytes += int64(len(rest))
				}
			}
			st2 := ingest(t, s, home)
			if got := totals(t, s); got != want {
				t.Errorf("after two ingests:\n%s\nwant (one ingest):\n%s", got, want)
			}
			// Only new bytes were read: the second read starts where the
			// first stopped (at the end of its last complete line).
			var size int64
			filepath.WalkDir(filepath.Join(home), func(p string, d fs.DirEntry, err error) error {
				if fi, err := d.Info(); err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
					size += fi.Size()
				}
				return nil
			})
			var partials int64
			s.db.QueryRow(`SELECT coalesce(sum(size), 0) - coalesce(sum(offset), 0) FROM files`).Scan(&partials)
			if st1.BytesRead+st2.BytesRead+partials != size || st2.BytesRead > restBytes+int64(st1.Files)*64<<10 {
				t.Errorf("read %d + %d bytes (+%d left partial) of %d", st1.BytesRead, st2.BytesRead, partials, size)
			}
			if st2.FilesReread != 0 {
				t.Errorf("%d files read again from the top", st2.FilesReread)
			}
		})
	}
}

func TestReplacedFiles(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	oa := transcripttest.Small()
	if _, err := transcripttest.Generate(a, oa); err != nil {
		t.Fatal(err)
	}
	ob := oa
	ob.Seed = 99
	if _, err := transcripttest.Generate(b, ob); err != nil {
		t.Fatal(err)
	}
	list := func(root string) (out []string) {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	// Ingest tree a, then write tree b's transcripts over a's files, one
	// for one: some shrink, some grow, all differ from their first line.
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, a)
	fa, fb := list(a), list(b)
	for i := range min(len(fa), len(fb)) {
		data, _ := os.ReadFile(fb[i])
		os.WriteFile(fa[i], data, 0o644)
	}
	st := ingest(t, s, a)
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, a)
	if st.FilesReread == 0 || totals(t, s) != totals(t, ref) {
		t.Errorf("after replacing (%d re-read):\n%s\nwant:\n%s", st.FilesReread, totals(t, s), totals(t, ref))
	}
}

func TestShrunkFile(t *testing.T) {
	full := t.TempDir()
	if _, err := transcripttest.Generate(full, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	copyTree(t, full, home, 1)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	// Cut every file to 40%: the store must match a fresh ingest of the cut
	// tree (a shrunk file is read again, not appended to).
	cut := t.TempDir()
	copyTree(t, full, cut, 0.4)
	os.RemoveAll(home)
	copyTree(t, full, home, 0.4)
	st := ingest(t, s, home)
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, home)
	if st.FilesReread == 0 || totals(t, s) != totals(t, ref) {
		t.Errorf("after shrinking (%d re-read):\n%s\nwant:\n%s", st.FilesReread, totals(t, s), totals(t, ref))
	}
}

func TestConcurrentIngest(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, home)
	want := totals(t, ref)

	for _, lease := range []bool{true, false} {
		t.Run(fmt.Sprintf("lease=%v", lease), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "usage.db")
			a, b := open(t, path), open(t, path)
			var wg sync.WaitGroup
			stats := make([]*IngestStats, 2)
			errs := make([]error, 2)
			for i, s := range []*Store{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o := options(home)
					o.noLease = !lease
					o.Workers = 1
					stats[i], errs[i] = s.Ingest(context.Background(), o)
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := totals(t, a); got != want {
				t.Errorf("two concurrent ingests:\n%s\nwant:\n%s", got, want)
			}
			if n := stats[0].Requests + stats[1].Requests; n != countRows(t, a, "requests") {
				t.Errorf("the two reported %d new requests, the store holds %d", n, countRows(t, a, "requests"))
			}
			t.Logf("busy %d+%d, waited %v/%v", stats[0].Busy, stats[1].Busy, stats[0].Waited, stats[1].Waited)
		})
	}
}

func countRows(t *testing.T, s *Store, table string) int {
	var n int
	s.db.QueryRow("SELECT count(*) FROM " + table).Scan(&n)
	return n
}

func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, home)
	want := totals(t, ref)
	path := filepath.Join(t.TempDir(), "usage.db")
	var cmds []*exec.Cmd
	for i := 0; i < 3; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MCPCOST_STORE_TEST_CHILD="+path, "MCPCOST_STORE_TEST_HOME="+home)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if stderr.Len() > 0 {
				t.Log(stderr.String())
			}
		})
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	s := open(t, path)
	if got := totals(t, s); got != want {
		t.Errorf("three processes:\n%s\nwant:\n%s", got, want)
	}
}

// TestNewStoreManyProcesses starts two, then eight, processes that open
// one brand-new store at the same moment (each waits for a file to
// appear) and ingest into it, again and again: every one succeeds, and the
// store holds what one ingest stores. A brand-new store is in rollback
// journal mode until one of them switches it to WAL, and SQLite gives up
// a lock upgrade that would deadlock at once, without waiting.
func TestNewStoreManyProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Options{Seed: 3, Sessions: 1, Codex: 1, Projects: 1, Days: 1}); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, home)
	want := totals(t, ref)
	for _, tc := range []struct{ procs, rounds int }{{2, 12}, {8, 6}} {
		t.Run(fmt.Sprint(tc.procs), func(t *testing.T) {
			for round := 0; round < tc.rounds; round++ {
				dir := t.TempDir()
				path, start := filepath.Join(dir, "new", "usage.db"), filepath.Join(dir, "go")
				var cmds []*exec.Cmd
				var outs []*bytes.Buffer
				for i := 0; i < tc.procs; i++ {
					cmd := exec.Command(os.Args[0], "-test.run=^$")
					cmd.Env = append(os.Environ(), "MCPCOST_STORE_TEST_CHILD="+path, "MCPCOST_STORE_TEST_HOME="+home,
						"MCPCOST_STORE_TEST_START="+start)
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					cmds, outs = append(cmds, cmd), append(outs, &stderr)
				}
				if err := os.WriteFile(start, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				for i, c := range cmds {
					if err := c.Wait(); err != nil {
						t.Errorf("round %d, process %d of %d: %v: %s", round, i+1, tc.procs, err, outs[i])
					}
				}
				if t.Failed() {
					return
				}
				s := open(t, path)
				if got := totals(t, s); got != want {
					t.Fatalf("round %d: %d processes stored:\n%s\nwant:\n%s", round, tc.procs, got, want)
				}
				s.Close()
			}
		})
	}
}

func TestLeaseWaitsThenSkips(t *testing.T) {
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	path := filepath.Join(t.TempDir(), "usage.db")
	s := open(t, path)
	// Another process holds a lease that does not expire soon.
	s.db.Exec(`INSERT INTO ingest_lock (id, owner, pid, expires_at) VALUES (1, 'other', 1, ?)`, time.Now().Add(time.Hour).UnixMilli())
	o := options(home)
	o.LockWait = 300 * time.Millisecond
	var progress []IngestStep
	o.Progress = func(s IngestStep) { progress = append(progress, s) }
	st, err := s.Ingest(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Skipped || st.FilesRead != 0 || len(progress) != 1 || progress[0].Phase != IngestWait {
		t.Errorf("stats %+v, progress %+v", st, progress)
	}
	// An expired lease (a crashed process) is taken over.
	s.db.Exec(`UPDATE ingest_lock SET expires_at = 0`)
	st, err = s.Ingest(context.Background(), o)
	if err != nil || st.Skipped || st.FilesRead == 0 {
		t.Errorf("after expiry: %+v %v", st, err)
	}
	// The ingest says how many files it reads as it starts, and ends with
	// all of them read.
	if first, last := progress[1], progress[len(progress)-1]; first.Phase != IngestStart || first.Total != st.FilesRead || last.Phase != IngestEnd || last.Done != last.Total {
		t.Errorf("progress %+v, stats %+v", progress, st)
	}
}

func TestUnreadableFileIsRetried(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	var one string
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if one == "" && strings.HasSuffix(p, ".jsonl") {
			one = p
		}
		return nil
	})
	os.Chmod(one, 0)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	st := ingest(t, s, home)
	if len(st.Warnings) == 0 {
		t.Error("no warning for an unreadable file")
	}
	os.Chmod(one, 0o644)
	st = ingest(t, s, home)
	if st.FilesRead != 1 {
		t.Errorf("the unreadable file was not read once readable: %+v", st)
	}
}

func TestWarningsCapped(t *testing.T) {
	// Warnings are capped but every corrupt line is counted.
	home := t.TempDir()
	o := transcripttest.Small()
	o.Sessions = 30
	m, _ := transcripttest.Generate(home, o)
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	opts := options(home)
	opts.MaxWarnings = 2
	st, err := s.Ingest(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Corrupt != len(m.CorruptLines) || len(st.Warnings) != 2 {
		t.Errorf("%d corrupt (want %d), %d warnings", st.Corrupt, len(m.CorruptLines), len(st.Warnings))
	}
}

// TestIngestThroughLinks: a home whose projects and sessions folders are
// links (to folders whose projects are links in turn) gives the totals of
// the real tree.
func TestIngestThroughLinks(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, home)
	want := totals(t, ref)

	linked := t.TempDir()
	os.MkdirAll(filepath.Join(linked, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(linked, ".codex"), 0o755)
	// The projects folder is a folder of links to the real projects.
	projects := filepath.Join(linked, "store", "projects")
	os.MkdirAll(projects, 0o755)
	entries, _ := os.ReadDir(filepath.Join(home, ".claude", "projects"))
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(home, ".claude", "projects", e.Name()), filepath.Join(projects, e.Name())); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	os.Symlink(projects, filepath.Join(linked, ".claude", "projects"))
	os.Symlink(filepath.Join(home, ".codex", "sessions"), filepath.Join(linked, ".codex", "sessions"))
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	st := ingest(t, s, linked)
	if got := totals(t, s); got != want || st.Files == 0 {
		t.Errorf("through links (%d files):\n%s\nwant:\n%s", st.Files, got, want)
	}
}

// TestLeaseOfDeadProcess: a lease held by a process of this host that no
// longer runs is taken over at once, and so is one whose process id now
// belongs to a process started at another time (this process, or PID 1,
// as in a container where each run is PID 1); one held by a live
// process, by another host or in the older form without a host is
// waited for.
func TestLeaseOfDeadProcess(t *testing.T) {
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	deadPid := gone.Process.Pid
	// Where a process's start can be read (Linux), a lease whose start is
	// not its process's is taken over.
	reused := ownStart() != "" && processStart(1) != ""
	wrongStart := bootID() + ".1"
	if runtime.GOOS == "linux" && !reused {
		t.Errorf("no process start on Linux (own %q, pid 1 %q)", ownStart(), processStart(1))
	}
	for _, c := range []struct {
		name, owner string
		taken       bool
	}{
		{"dead process", leaseOwner(deadPid, "", 1), true},
		{"dead process with its start", leaseOwner(deadPid, wrongStart, 1), true},
		{"live process", leaseOwner(os.Getppid(), "", 1), false},
		{"live process with its start", leaseOwner(os.Getppid(), processStart(os.Getppid()), 1), false},
		{"this process", leaseOwner(os.Getpid(), "", 1), false},
		{"this process with its start", leaseOwner(os.Getpid(), ownStart(), 1), false},
		{"this process id, started at another time", leaseOwner(os.Getpid(), wrongStart, 1), reused},
		{"pid 1, started at another time", leaseOwner(1, wrongStart, 1), reused},
		{"pid 1, started at another boot", leaseOwner(1, "00000000-0000-0000-0000-000000000000"+strings.TrimPrefix(processStart(1), bootID()), 1), reused},
		{"another host", fmt.Sprintf("elsewhere.example/%d/1", deadPid), false},
		{"no host", fmt.Sprintf("%d-1", deadPid), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			s.db.Exec(`INSERT INTO ingest_lock (id, owner, pid, expires_at) VALUES (1, ?, ?, ?)`, c.owner, deadPid, time.Now().Add(time.Hour).UnixMilli())
			o := options(home)
			o.LockWait = 500 * time.Millisecond
			start := time.Now()
			st, err := s.Ingest(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			if c.taken && (st.Skipped || st.FilesRead == 0 || st.Waited > 100*time.Millisecond) {
				t.Errorf("the lease of a dead process was not taken over at once: %+v", st)
			}
			if !c.taken && !st.Skipped {
				t.Errorf("a lease that may be live was taken over: %+v", st)
			}
			t.Logf("waited %v, ingest %v", st.Waited, took)
		})
	}
}

// TestIngestOrder ingests the same tree (with resumed sessions, whose
// copied requests tie, and gateway requests) file by file in several
// orders, and all at once: the stored requests are the same every time,
// the copies kept where ccusage keeps them.
func TestIngestOrder(t *testing.T) {
	full := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	if _, err := transcripttest.Generate(full, o); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(full, p)
			files = append(files, rel)
		}
		return nil
	})
	rows := func(s *Store) string {
		var b strings.Builder
		r, err := s.db.Query(`SELECT r.source, r.session_id, r.message_id, r.request_id, r.ts, r.input, r.output, f.path
			FROM requests r JOIN files f ON f.id = r.file_id ORDER BY 1, 2, 3, 4, 5, 6, 7`)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for r.Next() {
			var src, sess, msg, req, path string
			var ts, in, out int64
			r.Scan(&src, &sess, &msg, &req, &ts, &in, &out, &path)
			fmt.Fprintln(&b, src, sess, msg, req, ts, in, out, filepath.Base(path))
		}
		return b.String()
	}
	// The tool calls counted, where, and the sessions' spans.
	calls := func(s *Store) string {
		var b strings.Builder
		for c, err := range s.ToolCalls(context.Background(), Filter{Order: ByTime}) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, c.Source, c.Session, c.Name, c.CallTS, c.ResultTS, c.ResultTokens)
		}
		ss, err := s.Sessions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(ss, func(i, j int) bool { return ss[i].Source+ss[i].ID < ss[j].Source+ss[j].ID })
		for _, x := range ss {
			fmt.Fprintln(&b, x.Source, x.ID, x.Project, x.FirstTS, x.LastTS)
		}
		return b.String()
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, full)
	want := rows(ref)
	wantCalls := calls(ref)
	if !strings.Contains(want, " msg_gw_0  ") {
		t.Fatal("the tree has no gateway requests")
	}
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			order := append([]string(nil), files...)
			rnd := rand.New(rand.NewPCG(seed, seed))
			rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			home := t.TempDir()
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			// One to three files at a time: every copy meets the others
			// in another order.
			for len(order) > 0 {
				n := min(len(order), 1+rnd.IntN(3))
				for _, rel := range order[:n] {
					data, err := os.ReadFile(filepath.Join(full, rel))
					if err != nil {
						t.Fatal(err)
					}
					os.MkdirAll(filepath.Dir(filepath.Join(home, rel)), 0o755)
					os.WriteFile(filepath.Join(home, rel), data, 0o644)
				}
				order = order[n:]
				ingest(t, s, home)
			}
			if got := calls(s); got != wantCalls {
				t.Errorf("tool calls or spans differ from one ingest of the whole tree:\n%s\nwant:\n%s", got, wantCalls)
			}
			if got := rows(s); got != want {
				t.Errorf("requests differ from one ingest of the whole tree:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestOlderReaderReread: files read by an older version of the readers are
// read again from the top, so that what it miscounted is put right; a file
// no longer on disk keeps what was read of it.
func TestOlderReaderReread(t *testing.T) {
	home := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	if _, err := transcripttest.Generate(home, o); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	first := ingest(t, s, home)
	want := totals(t, s)
	// What an older reader left: some requests missing, every file marked
	// as read by it, one file gone since.
	var gone string
	s.db.QueryRow(`SELECT path FROM files WHERE path LIKE '%agent-%' LIMIT 1`).Scan(&gone)
	if gone == "" {
		t.Fatal("no older sub-agent file")
	}
	data, _ := os.ReadFile(gone)
	os.Remove(gone)
	if _, err := s.db.Exec(`DELETE FROM requests WHERE request_id = '' AND file_id NOT IN (SELECT id FROM files WHERE path = ?)`, gone); err != nil {
		t.Fatal(err)
	}
	s.db.Exec(`UPDATE files SET reader = 1`)
	st := ingest(t, s, home)
	if st.FilesReread != first.Files-1 {
		t.Errorf("%d files read again, want %d", st.FilesReread, first.Files-1)
	}
	if got := totals(t, s); got != want {
		t.Errorf("after reading again:\n%s\nwant:\n%s", got, want)
	}
	// Unchanged and read by this version: not read again.
	if st := ingest(t, s, home); st.FilesRead != 0 {
		t.Errorf("%d files read a third time", st.FilesRead)
	}
	os.WriteFile(gone, data, 0o644)
}

// TestDiscoveryWarnings: each link that leads nowhere is its own
// warning, on one line.
func TestDiscoveryWarnings(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects", "p")
	os.MkdirAll(projects, 0o755)
	for _, n := range []string{"a", "b", "c"} {
		if err := os.Symlink(filepath.Join(home, "missing-"+n), filepath.Join(projects, n+".jsonl")); err != nil {
			t.Skip(err)
		}
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	st, err := s.Ingest(t.Context(), options(home))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Warnings) != 3 {
		t.Fatalf("warnings %q; want 3", st.Warnings)
	}
	for _, w := range st.Warnings {
		if strings.Contains(w, "\n") || !strings.Contains(w, "a link that leads nowhere") {
			t.Errorf("warning %q", w)
		}
	}
}

// TestUnterminatedLastLine: a last line without its newline is counted
// when it is a whole JSON object (as ccusage counts it), once, whatever
// is appended after it later (a newline and more lines, or more lines
// straight after it); a line cut short is counted once it is completed.
// Each sequence of runs reads no file again from the top, and ends with
// a clean ingest's totals, but for a line written straight after the
// counted one: both are kept, where a clean read (and ccusage) finds one
// line that is not JSON.
func TestUnterminatedLastLine(t *testing.T) {
	line := func(id string, in int) string {
		return `{"type":"assistant","sessionId":"a","cwd":"/tmp/d","timestamp":"2026-11-20T10:00:00.000Z","requestId":"r` + id + `","message":{"id":"m` + id +
			`","model":"claude-sonnet-4-20250514","content":[{"type":"tool_use","id":"toolu_` + id + `","name":"mcp__srv__t","input":{}}],"usage":{"input_tokens":` + strconv.Itoa(in) + `,"output_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}`
	}
	l1, l2, l3 := line("1", 100), line("2", 200), line("3", 300)
	for _, c := range []struct {
		name     string
		writes   []string
		requests []int // after each write's ingest
		joined   bool  // two lines end up on one
	}{
		{"then a newline and a line", []string{l1, "\n" + l2 + "\n"}, []int{1, 2}, false},
		{"then a newline alone", []string{l1, "\n", l2 + "\n"}, []int{1, 1, 2}, false},
		{"then CR LF", []string{l1, "\r\n" + l2 + "\r\n"}, []int{1, 2}, false},
		{"then a line straight after", []string{l1, l2 + "\n"}, []int{1, 2}, true},
		{"twice", []string{l1, "\n" + l2, "\n" + l3}, []int{1, 2, 3}, false},
		{"cut short, then completed", []string{l1[:50], l1[50:]}, []int{0, 1}, false},
		{"cut short after a line", []string{l1 + "\n" + l2[:len(l2)-1], l2[len(l2)-1:], "\n" + l3 + "\n"}, []int{1, 2, 3}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".claude", "projects", "-tmp-d")
			os.MkdirAll(dir, 0o755)
			path := filepath.Join(dir, "a.jsonl")
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			for i, w := range c.writes {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(w)
				f.Close()
				st := ingest(t, s, home)
				var n int
				s.db.QueryRow(`SELECT count(*) FROM requests`).Scan(&n)
				if n != c.requests[i] || st.FilesReread != 0 || st.Corrupt != 0 {
					t.Errorf("after write %d: %d requests, %d files read again, %d corrupt lines %q; want %d requests", i+1, n, st.FilesReread, st.Corrupt, st.Warnings, c.requests[i])
				}
			}
			if c.joined {
				return
			}
			clean := open(t, filepath.Join(t.TempDir(), "usage.db"))
			ingest(t, clean, home)
			if got, want := totals(t, s), totals(t, clean); got != want {
				t.Errorf("incremental totals:\n%s\nclean:\n%s", got, want)
			}
		})
	}
}

// TestRewrittenInPlace: a file rewritten in place at the same size (the
// same inode, a line's count changed) is read again from the top, whether
// its modification time changed or was put back; an unchanged file is not
// read, whatever its modification time.
func TestRewrittenInPlace(t *testing.T) {
	line := func(id string, in int) string {
		return `{"type":"assistant","sessionId":"a","cwd":"/tmp/d","timestamp":"2026-11-20T10:00:00.000Z","requestId":"r` + id + `","message":{"id":"m` + id +
			`","model":"claude-sonnet-4-20250514","content":[],"usage":{"input_tokens":` + strconv.Itoa(in) + `,"output_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}` + "\n"
	}
	var lines []string
	for i := range 40 {
		lines = append(lines, line(strconv.Itoa(i), 100))
	}
	for _, c := range []struct {
		name     string
		changed  int // the line changed (from 0)
		keepTime bool
	}{
		{"first line, new time", 0, false},
		{"last line, time put back", 39, true},
		{"a line within the first KiB, time put back", 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".claude", "projects", "-tmp-d")
			os.MkdirAll(dir, 0o755)
			path := filepath.Join(dir, "a.jsonl")
			os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			ingest(t, s, home)
			fi, _ := os.Stat(path)
			// Touched, not changed: not read.
			later := fi.ModTime().Add(time.Hour)
			os.Chtimes(path, later, later)
			if st := ingest(t, s, home); st.FilesRead != 0 || st.FilesReread != 0 {
				t.Errorf("an unchanged file was read: %+v", st)
			}
			changed := append([]string(nil), lines...)
			changed[c.changed] = line(strconv.Itoa(c.changed), 900)
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(strings.Join(changed, ""))
			f.Close()
			if c.keepTime {
				os.Chtimes(path, later, later)
			}
			st := ingest(t, s, home)
			clean := open(t, filepath.Join(t.TempDir(), "usage.db"))
			ingest(t, clean, home)
			if got, want := totals(t, s), totals(t, clean); got != want || st.FilesReread != 1 {
				t.Errorf("after the rewrite (%d read again):\n%s\nwant:\n%s", st.FilesReread, got, want)
			}
		})
	}
}

// TestCutAnywhere: every transcript of a generated tree written in two
// parts, cut at a random byte or just before a newline (where the first
// part ends in a whole line without its newline), and ingested after each
// part, gives a clean ingest's totals: a line is neither lost nor counted
// twice wherever a writer paused.
func TestCutAnywhere(t *testing.T) {
	full := t.TempDir()
	if _, err := transcripttest.Generate(full, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, full)
	want := totals(t, ref)
	var files []string
	filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	for seed := uint64(1); seed <= 3; seed++ {
		rnd := rand.New(rand.NewPCG(seed, 7))
		home := t.TempDir()
		s := open(t, filepath.Join(t.TempDir(), "usage.db"))
		rests := map[string][]byte{}
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			cut := rnd.IntN(len(data) + 1)
			if nl := bytes.IndexByte(data[cut:], '\n'); rnd.IntN(2) == 0 && nl >= 0 {
				cut += nl // just before a newline
			}
			rel, _ := filepath.Rel(full, p)
			dst := filepath.Join(home, rel)
			os.MkdirAll(filepath.Dir(dst), 0o755)
			os.WriteFile(dst, data[:cut], 0o644)
			rests[dst] = data[cut:]
		}
		ingest(t, s, home)
		for dst, rest := range rests {
			f, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(rest)
			f.Close()
		}
		st := ingest(t, s, home)
		if got := totals(t, s); got != want || st.FilesReread != 0 {
			t.Errorf("seed %d: %d files read again; totals:\n%s\nwant:\n%s", seed, st.FilesReread, got, want)
		}
	}
}

// TestMigrateCopiedCalls opens a store of schema version 4, which kept a
// tool call copied into a resumed session once per session, as that
// version's writer left it for a tree with resumed sessions: migration 5
// counts each call once, where a store built now counts it, both when the
// transcripts are gone (the migration alone) and when they are still
// there (read again, with the readers of this version).
func TestMigrateCopiedCalls(t *testing.T) {
	home := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	m, err := transcripttest.Generate(home, o)
	if err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, home)
	calls := func(s *Store) (string, int) {
		var b strings.Builder
		n := 0
		for c, err := range s.ToolCalls(context.Background(), Filter{Order: ByTime}) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, c.Source, c.Session, c.Name, c.CallTS, c.ResultTS, c.ResultTokens, c.IsError)
			n++
		}
		return b.String(), n
	}
	want, n := calls(ref)
	if n != len(m.Calls)+countRows(t, ref, "tool_calls WHERE result_ts IS NULL AND lost = 0") {
		t.Fatalf("%d calls, the tree has %d", n, len(m.Calls))
	}
	var copies int
	ref.db.QueryRow(`SELECT count(*) FROM tool_calls WHERE lost = 1`).Scan(&copies)
	if copies < 4 {
		t.Fatalf("%d lost copies: the tree has too few copied calls", copies)
	}
	// What version 4 stored: every row, each session's copy of a call
	// among them.
	old := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "old.db")
		db := storeAtVersion(t, path, 4)
		defer db.Close()
		for _, q := range []string{
			`ATTACH DATABASE '` + filepath.ToSlash(ref.path(t)) + `' AS ref`,
			`INSERT INTO meta SELECT * FROM ref.meta`,
			`INSERT INTO files SELECT id, path, source, session_id, agent_id, size, mtime_ns, offset, lines, head_hash, tail_start, tail_hash,
				state, corrupt, generation, ingested_at, 2, edge_hash FROM ref.files`,
			`INSERT INTO sessions SELECT source, session_id, project, first_ts, last_ts, file_id FROM ref.sessions`,
			`INSERT INTO requests SELECT id, source, session_id, agent_id, sidechain, file_id, line, ts, model, project, message_id, request_id,
				input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, web_search, web_fetch, speed, cost_usd, dedup_session FROM ref.requests`,
			`INSERT INTO tool_calls SELECT id, source, session_id, call_id, agent_id, sidechain, name, tool, server, plugin, builtin, project,
				call_ts, result_ts, result_tokens, result_bytes, non_text, estimated_tokens, is_error, spilled, args_hash,
				call_file_id, call_line, result_file_id, result_line, duration_ms FROM ref.tool_calls`,
			`INSERT INTO compactions SELECT id, source, session_id, agent_id, file_id, line, ts, trigger, pre_tokens FROM ref.compactions`,
			`DETACH DATABASE ref`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return path
	}
	t.Run("transcripts gone", func(t *testing.T) {
		path := old(t)
		gone := t.TempDir() // no transcripts: nothing is read again
		s := open(t, path)
		if got, _ := calls(s); got != want {
			t.Errorf("after the migration:\n%s\nwant:\n%s", got, want)
		}
		if st := ingest(t, s, gone); st.FilesRead != 0 {
			t.Errorf("%d files read", st.FilesRead)
		}
	})
	t.Run("transcripts there", func(t *testing.T) {
		s := open(t, old(t))
		st := ingest(t, s, home)
		if st.FilesReread != m.Files {
			t.Errorf("%d files read again, want %d", st.FilesReread, m.Files)
		}
		if got, _ := calls(s); got != want {
			t.Errorf("after the migration and an ingest:\n%s\nwant:\n%s", got, want)
		}
		if got, want := totals(t, s), totals(t, ref); got != want {
			t.Errorf("after the migration and an ingest:\n%s\nwant:\n%s", got, want)
		}
	})
}

// path is the store's file.
func (s *Store) path(t *testing.T) string {
	var seq int
	var name, file string
	if err := s.db.QueryRow(`PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestCodexLocalShellIngest: an older Codex rollout's local_shell_call
// items are tool calls of local_shell, with the outcome and run time their
// outputs record (the outputs share the call's timestamp: only the
// recorded duration tells how long each ran).
func TestCodexLocalShellIngest(t *testing.T) {
	home := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", "codex-local-shell.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, ".codex", "sessions", "2025", "05", "20")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "rollout-2025-05-20T09-00-00-0196f0aa-2222-7333-8444-955556666777.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	var got []string
	for c, err := range s.ToolCalls(context.Background(), Filter{Order: ByTime}) {
		if err != nil {
			t.Fatal(err)
		}
		d := "-"
		if c.DurationMs != nil {
			d = strconv.FormatInt(*c.DurationMs, 10)
		}
		got = append(got, fmt.Sprintf("%s %s %s builtin=%v result=%v error=%v %sms", c.Source, c.Session, c.Name, c.Server == "", c.HasResult, c.IsError, d))
	}
	want := []string{
		"codex 0196f0aa-2222-7333-8444-955556666777 local_shell builtin=true result=true error=false 200ms",
		"codex 0196f0aa-2222-7333-8444-955556666777 local_shell builtin=true result=true error=true 12500ms",
		"codex 0196f0aa-2222-7333-8444-955556666777 local_shell builtin=true result=true error=false 0ms",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tool calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCopiedCallMoves ingests each resumed pair of a tree one file at a
// time, in both orders: when the copy that is kept arrives second, the
// call (and the request) move to its session, and the session that lost
// them no longer counts them or their times; the end is the same as one
// ingest of both files.
func TestCopiedCallMoves(t *testing.T) {
	full := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	m, err := transcripttest.Generate(full, o)
	if err != nil {
		t.Fatal(err)
	}
	// What a store holds of one pair: the calls counted and the sessions'
	// spans.
	state := func(s *Store) string {
		var b strings.Builder
		for c, err := range s.ToolCalls(context.Background(), Filter{Order: ByTime}) {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, c.Session, c.Name, c.CallTS, c.HasResult, c.ResultTokens)
		}
		ss, err := s.Sessions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(ss, func(i, j int) bool { return ss[i].ID < ss[j].ID })
		for _, x := range ss {
			fmt.Fprintln(&b, x.ID, x.FirstTS, x.LastTS)
		}
		return b.String()
	}
	for _, r := range m.Resumed {
		rel := func(id string) string {
			matches, _ := filepath.Glob(filepath.Join(full, ".claude", "projects", "*", id+".jsonl"))
			if len(matches) != 1 {
				t.Fatalf("session %s: files %q", id, matches)
			}
			p, _ := filepath.Rel(full, matches[0])
			return p
		}
		files := []string{rel(r.From), rel(r.To)}
		home := func(t *testing.T, files ...string) string {
			h := t.TempDir()
			for _, f := range files {
				data, _ := os.ReadFile(filepath.Join(full, f))
				os.MkdirAll(filepath.Dir(filepath.Join(h, f)), 0o755)
				os.WriteFile(filepath.Join(h, f), data, 0o644)
			}
			return h
		}
		t.Run(r.To[:8], func(t *testing.T) {
			ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
			ingest(t, ref, home(t, files...))
			want := state(ref)
			if n := countRows(t, ref, "tool_calls WHERE lost = 1"); n < 1 {
				t.Fatalf("%d lost copies", n)
			}
			for _, order := range [][]string{files, {files[1], files[0]}} {
				h := home(t, order[0])
				s := open(t, filepath.Join(t.TempDir(), "usage.db"))
				ingest(t, s, h)
				data, _ := os.ReadFile(filepath.Join(full, order[1]))
				os.MkdirAll(filepath.Dir(filepath.Join(h, order[1])), 0o755)
				os.WriteFile(filepath.Join(h, order[1]), data, 0o644)
				ingest(t, s, h)
				if got := state(s); got != want {
					t.Errorf("%s, then %s:\n%s\nwant (one ingest):\n%s", filepath.Base(order[0]), filepath.Base(order[1]), got, want)
				}
			}
		})
	}
}

// TestMigrationNumbers holds the migrations' names to their place: a
// store's schema version is how many have run, so a gap or a repeated
// number (two changes landing with the same or a skipped number) would
// make a later one run as another's version.
func TestMigrationNumbers(t *testing.T) {
	names, err := migrationList()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no migrations")
	}
	for i, name := range names {
		want := fmt.Sprintf("migrations/%03d_", i+1)
		if !strings.HasPrefix(name, want) {
			t.Errorf("migration %d is %s, want a name starting %s", i+1, name, want)
		}
	}
}

// TestSettleQueryPlan checks that settle reads a call's copies through
// indexes, in a store holding copied calls, both with the indexes a first
// ingest drops and without them: a scan of the source's calls for each
// call settled makes a file of copied calls quadratic in its calls.
func TestSettleQueryPlan(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Lines copied from sessions s0 and s1 (the file is session f's),
	// and s0's own file.
	lines := toolCallLines(2000)
	if err := os.WriteFile(filepath.Join(dir, "f.jsonl"), lines, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s0.jsonl"), lines[:bytes.Index(lines, []byte(`"sessionId":"s1"`))], 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	var lost int
	if err := s.db.QueryRow(`SELECT count(*) FROM tool_calls WHERE lost = 1`).Scan(&lost); err != nil {
		t.Fatal(err)
	}
	if lost != 1000 {
		t.Fatalf("%d copies lost, want 1000 (s0's calls in f)", lost)
	}
	for _, indexes := range []string{"with", "without"} {
		if indexes == "without" {
			for _, ix := range bulkIndexes {
				if _, err := s.db.Exec(`DROP INDEX ` + ix.name); err != nil {
					t.Fatal(err)
				}
			}
		}
		rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+settleQuery, "claude", "t5")
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		for _, d := range plan {
			if strings.HasPrefix(d, "SCAN ") || strings.Contains(d, "(source=?)") {
				t.Errorf("%s the bulk indexes, settle reads the calls by %q; plan:\n%s", indexes, d, strings.Join(plan, "\n"))
			}
		}
	}
}

// TestEntriesQueryPlan checks that the writer looks up a message id's
// stored requests through requests_message, with every index and with
// requests_message alone (a first ingest's, once its own index stopped):
// a scan of the source's requests for each lookup makes an ingest
// quadratic in the requests stored.
func TestEntriesQueryPlan(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	for _, indexes := range []string{"with", "without"} {
		if indexes == "without" {
			for _, ix := range bulkIndexes {
				if ix.name == "requests_message" {
					continue
				}
				if _, err := s.db.Exec(`DROP INDEX ` + ix.name); err != nil {
					t.Fatal(err)
				}
			}
		}
		rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+entriesQuery, "claude", "msg_1")
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan[0], "USING INDEX requests_message (source=? AND message_id=?)") || len(plan) != 2 {
			t.Errorf("%s the bulk indexes, the lookup of a message id's requests is not by requests_message alone; plan:\n%s", indexes, strings.Join(plan, "\n"))
		}
	}
}

// TestWALPages checks that every connection of a store checkpoints its
// log every walPages pages.
func TestWALPages(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ctx := context.Background()
	var conns []*sql.Conn
	for range 3 {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i, c := range conns {
		var n int
		if err := c.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != walPages {
			t.Errorf("connection %d checkpoints every %d pages, want %d", i, n, walPages)
		}
	}
}

// TestLeaseWaitStatsAgain: an ingest that waited for the lease does not
// trust the sizes its listing saw before: a file that grew meanwhile is
// read. (Another file grew before, or the ingest would find nothing new
// and not wait.)
func TestLeaseWaitStatsAgain(t *testing.T) {
	home := t.TempDir()
	transcripttest.Generate(home, transcripttest.Small())
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	o := options(home)
	if _, err := s.Ingest(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	files, err := transcript.DiscoverClaude(o.ClaudeRoots)
	if err != nil || len(files) < 2 {
		t.Fatalf("files %v, %v", files, err)
	}
	grow := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return
		}
		lines := bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
		last := append(bytes.TrimSuffix(lines[len(lines)-1], []byte("\n")), '\n')
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.Write(last)
		f.Close()
	}
	grow(files[1].Path)
	// Another process holds the lease; as this one waits, the file grows
	// and the lease expires.
	s.db.Exec(`INSERT INTO ingest_lock (id, owner, pid, expires_at) VALUES (1, 'other', 1, ?)`, time.Now().Add(time.Hour).UnixMilli())
	o.Progress = func(step IngestStep) {
		if step.Phase != IngestWait {
			return
		}
		grow(files[0].Path)
		s.db.Exec(`UPDATE ingest_lock SET expires_at = 0`)
	}
	st, err := s.Ingest(context.Background(), o)
	if err != nil || st.Skipped || st.FilesRead != 2 {
		t.Errorf("stats %+v, %v; want both grown files read", st, err)
	}
}
