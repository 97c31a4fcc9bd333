package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// reportTotals is what the reports read from a store, through its
// queries: requests and their tokens, tool calls (the copies a store
// does not count left out) and their results, the sums of the rollups,
// sessions and their spans, compactions.
func reportTotals(t *testing.T, s *Store, f Filter) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	var n, in, out, cr, cw, rs int64
	for r, err := range s.Requests(ctx, f) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		in, out, cr, cw, rs = in+r.Input, out+r.Output, cr+r.CacheRead, cw+r.CacheWrite5m+r.CacheWrite1h, rs+r.Reasoning
	}
	fmt.Fprintf(&b, "requests %d in %d out %d read %d write %d reasoning %d\n", n, in, out, cr, cw, rs)
	var calls, results, tokens, mcp int64
	for c, err := range s.ToolCalls(ctx, f) {
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if c.HasResult {
			results++
		}
		if c.Server != "" {
			mcp++
		}
		tokens += c.ResultTokens
	}
	fmt.Fprintf(&b, "calls %d results %d mcp %d tokens %d\n", calls, results, mcp, tokens)
	var sn, stok, sin int64
	for r, err := range s.RequestSums(ctx, f) {
		if err != nil {
			t.Fatal(err)
		}
		sn += int64(r.Requests)
		stok += r.Output
		sin += r.Input
	}
	var tn, ttok int64
	for c, err := range s.ToolSums(ctx, f) {
		if err != nil {
			t.Fatal(err)
		}
		tn += int64(c.Calls)
		ttok += c.ResultTokens
	}
	fmt.Fprintf(&b, "sums: requests %d in %d out %d calls %d tokens %d\n", sn, sin, stok, tn, ttok)
	if !f.byMachine() {
		// The spans of the sessions' own lines: which session's copy of a
		// line copied into a resumed session is kept (and widens its span,
		// see Sessions) depends on the paths of the files it was read
		// from, which differ from machine to machine.
		ss, err := s.Sessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var span int64
		if err := s.db.QueryRow(`SELECT coalesce(sum(last_ts - first_ts), 0) FROM sessions`).Scan(&span); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "sessions %d span %d\n", len(ss), span)
	}
	cs, err := s.Compactions(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	nc := 0
	for _, c := range cs {
		nc += c.N
	}
	fmt.Fprintf(&b, "compactions %d\n", nc)
	return b.String()
}

func mirror(t *testing.T, u, path string) (*Store, *MirrorStats) {
	t.Helper()
	m, st, err := OpenMirror(context.Background(), u, path, MirrorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, st
}

// quirkyHomes generates n homes of the given shape (resumed sessions
// among their quirks), the first home's Claude sessions synced to the
// second's too, and returns them with a store of each, ingested, and a
// store that ingested them all (their union).
func quirkyHomes(t *testing.T, n int, o transcripttest.Options) ([]string, []*Store, *Store) {
	t.Helper()
	var homes []string
	for i := range n {
		home := t.TempDir()
		o := o
		o.Seed = uint64(300 + i)
		if _, err := transcripttest.Generate(home, o); err != nil {
			t.Fatal(err)
		}
		homes = append(homes, home)
	}
	if n > 1 {
		copyTree(t, filepath.Join(homes[0], ".claude", "projects"), filepath.Join(homes[1], ".claude", "projects", "synced"), 1)
	}
	stores := make([]*Store, n)
	var roots IngestOptions = options(homes[0])
	roots.ClaudeRoots, roots.CodexRoots = nil, nil
	for i, home := range homes {
		stores[i] = open(t, filepath.Join(t.TempDir(), "usage.db"))
		ingest(t, stores[i], home)
		o := options(home)
		roots.ClaudeRoots = append(roots.ClaudeRoots, o.ClaudeRoots...)
		roots.CodexRoots = append(roots.CodexRoots, o.CodexRoots...)
	}
	union := open(t, filepath.Join(t.TempDir(), "union.db"))
	if _, err := union.Ingest(context.Background(), roots); err != nil {
		t.Fatal(err)
	}
	return homes, stores, union
}

func quirky() transcripttest.Options {
	o := transcripttest.Small()
	o.Quirks = true
	return o
}

func pushAll(t *testing.T, u string, stores []*Store) []*PushStats {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(stores))
	stats := make([]*PushStats, len(stores))
	for i, s := range stores {
		wg.Go(func() {
			stats[i], errs[i] = s.Push(context.Background(), u, pushOpts(fmt.Sprint("machine-", i)))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return stats
}

// TestMirrorManyHomes: two and eight homes (resumed sessions among their
// sessions, one home's sessions synced to another) pushing at once into
// one store: what a mirror of it reports equals what one store of all
// the homes reports, a session in two homes once, its requests and tool
// calls (and their copies in resumed sessions) once; pushing again and
// opening the mirror again read nothing.
func TestMirrorManyHomes(t *testing.T) {
	for _, n := range []int{2, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			u := pgDatabase(t)
			_, stores, union := quirkyHomes(t, n, quirky())
			var lost int
			if err := stores[1].db.QueryRow(`SELECT count(*) FROM tool_calls WHERE lost = 1`).Scan(&lost); err != nil {
				t.Fatal(err)
			}
			if lost == 0 {
				t.Fatal("no copies of tool calls in resumed sessions: the test tests nothing")
			}
			want := reportTotals(t, union, Filter{})
			pushAll(t, u, stores)
			path := MirrorFile(t.TempDir(), u)
			m, st := mirror(t, u, path)
			if !st.Full || st.Rows == 0 {
				t.Errorf("first open: %+v, want a full mirror", st)
			}
			if got := reportTotals(t, m, Filter{}); got != want {
				t.Errorf("the mirror reports\n%s\nwant what one store of every home reports\n%s", got, want)
			}
			for i, st := range pushAll(t, u, stores) {
				if *st != (PushStats{}) {
					t.Errorf("push again of machine %d: %+v, want nothing read or sent", i, st)
				}
			}
			m2, st2 := mirror(t, u, path)
			if st2.Full || st2.Rows != 0 || st2.Removed != 0 || st2.Seq != st.Seq {
				t.Errorf("open again: %+v, want nothing read (after %+v)", st2, st)
			}
			if got := reportTotals(t, m2, Filter{}); got != want {
				t.Errorf("the mirror opened again reports\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// unionOf is a store that ingested every home.
func unionOf(t *testing.T, homes ...string) *Store {
	t.Helper()
	var roots IngestOptions = options(homes[0])
	roots.ClaudeRoots, roots.CodexRoots = nil, nil
	for _, home := range homes {
		o := options(home)
		roots.ClaudeRoots = append(roots.ClaudeRoots, o.ClaudeRoots...)
		roots.CodexRoots = append(roots.CodexRoots, o.CodexRoots...)
	}
	union := open(t, filepath.Join(t.TempDir(), "union.db"))
	if _, err := union.Ingest(context.Background(), roots); err != nil {
		t.Fatal(err)
	}
	return union
}

// TestMirrorIncremental: a machine's transcripts grow, then one of its
// files is read again from the top (it shrank: rows are dropped): each
// push sends only what changed (in full after the drop), and the mirror
// brought up to date after each equals a mirror made afresh and what one
// store of both homes reports.
func TestMirrorIncremental(t *testing.T) {
	u := pgDatabase(t)
	src, home0, home1 := t.TempDir(), t.TempDir(), t.TempDir()
	o := quirky()
	o.Seed = 41
	if _, err := transcripttest.Generate(src, o); err != nil {
		t.Fatal(err)
	}
	o.Seed = 42
	if _, err := transcripttest.Generate(home1, o); err != nil {
		t.Fatal(err)
	}
	rests := copyTree(t, src, home0, 0.5)
	s0 := open(t, filepath.Join(t.TempDir(), "s0.db"))
	s1 := open(t, filepath.Join(t.TempDir(), "s1.db"))
	ingest(t, s0, home0)
	ingest(t, s1, home1)
	pushAll(t, u, []*Store{s0, s1})
	path := filepath.Join(t.TempDir(), "mirror.db")
	m, _ := mirror(t, u, path)
	m.Close()
	check := func(step string, wantRemoved bool) {
		t.Helper()
		m, st := mirror(t, u, path)
		if st.Full || st.Rows+st.Removed == 0 || (st.Removed > 0) != wantRemoved {
			t.Errorf("%s: the mirror brought up to date: %+v, want rows read incrementally (removals: %v)", step, st, wantRemoved)
		}
		fresh, _ := mirror(t, u, filepath.Join(t.TempDir(), "fresh.db"))
		want := reportTotals(t, unionOf(t, home0, home1), Filter{})
		if got, fr := reportTotals(t, m, Filter{}), reportTotals(t, fresh, Filter{}); got != fr || got != want {
			t.Errorf("%s: the mirror brought up to date reports\n%s\na fresh one\n%s\none store of both homes\n%s", step, got, fr, want)
		}
		for _, machine := range []string{"machine-0", "machine-1"} {
			if got, fr := reportTotals(t, m, Filter{Machine: machine}), reportTotals(t, fresh, Filter{Machine: machine}); got != fr {
				t.Errorf("%s: %s's rows: the mirror brought up to date reports\n%s\na fresh one\n%s", step, machine, got, fr)
			}
		}
		m.Close()
		fresh.Close()
	}

	// The transcripts grow.
	for rel, rest := range rests {
		f, err := os.OpenFile(filepath.Join(home0, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(rest)
		f.Close()
	}
	ingest(t, s0, home0)
	st, err := s0.Push(context.Background(), u, pushOpts("machine-0"))
	if err != nil {
		t.Fatal(err)
	}
	var total int
	if err := s0.db.QueryRow(`SELECT (SELECT count(*) FROM requests) + (SELECT count(*) FROM tool_calls) + (SELECT count(*) FROM sessions)
		+ (SELECT count(*) FROM compactions)`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if st.Full || st.Rows == 0 || st.Rows >= total || st.Added == 0 || st.Dropped != 0 {
		t.Errorf("push after the transcripts grew: %+v, want an incremental push of fewer rows than the store's %d", st, total)
	}
	check("grown", false)

	// A file shrinks: it is read again from the top, and its rows that
	// went are dropped.
	var longest string
	var size int
	for rel := range rests {
		if strings.HasSuffix(rel, ".jsonl") && strings.Contains(rel, "sessions") {
			if data, _ := os.ReadFile(filepath.Join(home0, rel)); len(data) > size {
				longest, size = rel, len(data)
			}
		}
	}
	if longest == "" {
		t.Fatal("no Codex file")
	}
	data, _ := os.ReadFile(filepath.Join(home0, longest))
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(filepath.Join(home0, longest), []byte(strings.Join(lines[:len(lines)/3], "")), 0o644)
	ingest(t, s0, home0)
	st, err = s0.Push(context.Background(), u, pushOpts("machine-0"))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Full || st.Dropped == 0 {
		t.Errorf("push after a file was read again: %+v, want a full push that drops rows", st)
	}
	check("shrunk", true)
	if st, err := s0.Push(context.Background(), u, pushOpts("machine-0")); err != nil || *st != (PushStats{}) {
		t.Errorf("push again: %+v, %v; want nothing read or sent", st, err)
	}
}

// TestMirrorManyProcesses: processes that open one mirror at once all
// succeed; one builds it, the others then find nothing to read.
func TestMirrorManyProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	u := pgDatabase(t)
	homes, stores, union := quirkyHomes(t, 2, quirky())
	_ = homes
	pushAll(t, u, stores)
	path := MirrorFile(t.TempDir(), u)
	const n = 4
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), "MCPCOST_STORE_TEST_MIRROR="+path, "MCPCOST_STORE_TEST_PG="+u)
		outs[i] = new(bytes.Buffer)
		cmds[i].Stdout = outs[i]
		cmds[i].Stderr = new(bytes.Buffer)
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	full := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v: %s", i, err, cmd.Stderr)
		}
		var st MirrorStats
		if err := json.Unmarshal(outs[i].Bytes(), &st); err != nil {
			t.Fatal(err)
		}
		if st.Full {
			full++
		} else if st.Rows != 0 {
			t.Errorf("process %d: %+v: read rows after another built the mirror", i, st)
		}
	}
	if full != 1 {
		t.Errorf("%d processes built the mirror, want 1", full)
	}
	m, _ := mirror(t, u, path)
	if got, want := reportTotals(t, m, Filter{}), reportTotals(t, union, Filter{}); got != want {
		t.Errorf("the mirror reports\n%s\nwant\n%s", got, want)
	}
}

// TestMirrorRecreated: a shared store made again at the same URL is
// mirrored again from the start.
func TestMirrorRecreated(t *testing.T) {
	u := pgDatabase(t)
	_, stores, _ := quirkyHomes(t, 2, quirky())
	if _, err := stores[0].Push(context.Background(), u, pushOpts("a")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mirror.db")
	m, st := mirror(t, u, path)
	m.Close()
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
		t.Fatal(err)
	}
	if _, err := stores[1].Push(context.Background(), u, pushOpts("b")); err != nil {
		t.Fatal(err)
	}
	m, st2 := mirror(t, u, path)
	if !st2.Rebuilt || !st2.Full || st2.StoreID == st.StoreID {
		t.Errorf("after the store was made again: %+v (before: %+v), want the mirror rebuilt", st2, st)
	}
	if got, want := reportTotals(t, m, Filter{}), reportTotals(t, stores[1], Filter{}); got != want {
		t.Errorf("the rebuilt mirror reports\n%s\nwant b's store's\n%s", got, want)
	}
	// a's next push sends everything again: the store is new to it.
	st3, err := stores[0].Push(context.Background(), u, pushOpts("a"))
	if err != nil || !st3.Full || st3.Added == 0 {
		t.Errorf("a's push into the new store: %+v, %v; want a full push", st3, err)
	}
}

// TestMirrorNotAStore: a mirror is never made in a local store's file.
func TestMirrorNotAStore(t *testing.T) {
	u := pgDatabase(t)
	_, stores, _ := quirkyHomes(t, 1, transcripttest.Small())
	if _, err := stores[0].Push(context.Background(), u, pushOpts("a")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "usage.db")
	s := open(t, path)
	ingest(t, s, t.TempDir())
	other := t.TempDir()
	if _, err := transcripttest.Generate(other, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	ingest(t, s, other)
	before := reportTotals(t, s, Filter{})
	if _, _, err := OpenMirror(context.Background(), u, path, MirrorOptions{}); err == nil || !strings.Contains(err.Error(), "not a mirror") {
		t.Errorf("a mirror in a local store's file: %v", err)
	}
	if got := reportTotals(t, s, Filter{}); got != before {
		t.Errorf("the local store changed:\n%s\nwant\n%s", got, before)
	}
}

// TestMirrorHoldsBackNothing: a push that waits for the advisory lock
// while another write holds it (its rows taken seqs, not committed) is
// not seen before that write commits, and the mirror brought up to date
// after both equals a fresh one: no seq is skipped.
func TestMirrorHoldsBackNothing(t *testing.T) {
	u := pgDatabase(t)
	_, stores, _ := quirkyHomes(t, 2, transcripttest.Small())
	if _, err := stores[0].Push(context.Background(), u, pushOpts("a")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mirror.db")
	m, _ := mirror(t, u, path)
	m.Close()
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	// A write in progress: under the lock, a row with the next seq.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT pg_advisory_xact_lock($1)`, int64(pgLock)); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO compactions (key, machine, os_user, source, session_id, agent_id, ts, trigger, pre_tokens)
		VALUES ('\x01', 'held', 'dev', 'claude', 'held-session', '', 1700000000000, 'manual', 1234)`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := stores[1].Push(ctx, u, pushOpts("b"))
		done <- err
	}()
	// The push waits for the lock.
	for {
		var waiting bool
		if err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted)`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the push did not wait for the lock: %v", err)
		default:
		}
	}
	m, st := mirror(t, u, path)
	if st.Rows != 0 {
		t.Errorf("while a write holds the lock: %+v, want nothing read", st)
	}
	m.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	m, _ = mirror(t, u, path)
	fresh, _ := mirror(t, u, filepath.Join(t.TempDir(), "fresh.db"))
	if got, want := reportTotals(t, m, Filter{}), reportTotals(t, fresh, Filter{}); got != want {
		t.Errorf("the mirror brought up to date reports\n%s\na fresh one\n%s", got, want)
	}
	var n int
	if err := m.db.QueryRow(`SELECT count(*) FROM compactions WHERE session_id = 'held-session'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the held write's row: %d, %v; want it mirrored", n, err)
	}
}

// TestPushProjectKey: pushed with a project key, no project path reaches
// the shared store (every text column of every table searched), the
// mirror names projects by their keyed hashes, and a push with another
// key, or without one, is refused and changes nothing.
func TestPushProjectKey(t *testing.T) {
	u := pgDatabase(t)
	_, stores, _ := quirkyHomes(t, 2, quirky())
	ctx := context.Background()
	key := []byte("0123456789abcdef0123456789abcdef")
	with := func(machine string, k []byte) PushOptions {
		o := pushOpts(machine)
		o.ProjectKey = k
		return o
	}
	if _, err := stores[0].Push(ctx, u, with("a", key)); err != nil {
		t.Fatal(err)
	}
	var paths []string
	rows, err := stores[0].db.Query(`SELECT project FROM requests WHERE project <> '' UNION SELECT project FROM tool_calls WHERE project <> ''
		UNION SELECT project FROM sessions WHERE project <> ''`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p string
		rows.Scan(&p)
		paths = append(paths, p)
	}
	rows.Close()
	if len(paths) == 0 {
		t.Fatal("no projects")
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cols, err := db.Query(`SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND data_type IN ('text', 'bytea', 'character varying')`)
	if err != nil {
		t.Fatal(err)
	}
	type col struct{ table, name string }
	var all []col
	for cols.Next() {
		var c col
		cols.Scan(&c.table, &c.name)
		all = append(all, c)
	}
	cols.Close()
	for _, c := range all {
		for _, p := range paths {
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM `+c.table+` WHERE strpos(encode(convert_to(`+c.name+`::text, 'UTF8'), 'escape'), $1) > 0
				OR strpos(`+c.name+`::text, $1) > 0`, p).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				t.Errorf("%s.%s holds the project path %s in %d rows", c.table, c.name, p, n)
			}
		}
	}
	m, _ := mirror(t, u, filepath.Join(t.TempDir(), "mirror.db"))
	ss, err := m.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.Project != "" && (!strings.HasPrefix(s.Project, "p:") || s.Project != ProjectHash(key, projectOf(t, stores[0], s.ID))) {
			t.Errorf("session %s: project %q, want its keyed hash", s.ID, s.Project)
		}
	}
	before := sharedTotals(t, u)
	for _, k := range [][]byte{[]byte("another key"), nil} {
		_, err := stores[1].Push(ctx, u, with("b", k))
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("push with key %q: %v, want it refused", k, err)
		}
	}
	if got := sharedTotals(t, u); got != before {
		t.Errorf("a refused push changed the shared store:\n%s\nwant\n%s", got, before)
	}
	if st, err := stores[0].Push(ctx, u, with("a", key)); err != nil || *st != (PushStats{}) {
		t.Errorf("push again with the key: %+v, %v", st, err)
	}
	// A store first pushed without a key refuses one with a key.
	u2 := pgDatabase(t)
	if _, err := stores[1].Push(ctx, u2, pushOpts("b")); err != nil {
		t.Fatal(err)
	}
	if _, err := stores[0].Push(ctx, u2, with("a", key)); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("push with a key into a store of paths: %v, want it refused", err)
	}
}

func projectOf(t *testing.T, s *Store, session string) string {
	t.Helper()
	var p string
	if err := s.db.QueryRow(`SELECT project FROM sessions WHERE session_id = ?`, session).Scan(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMirrorFailures: an unreachable server is an error that shows no
// password and leaves the mirror as it was; the mirror's file name and
// content hold nothing of the URL's password.
func TestMirrorFailures(t *testing.T) {
	const canary = "Canary-pw-77a1c3"
	dir := t.TempDir()
	bad := "postgres://u:" + canary + "@127.0.0.1:1/db?sslmode=disable&connect_timeout=5"
	path := MirrorFile(dir, bad)
	if strings.Contains(path, canary) {
		t.Errorf("mirror file %s names the password", path)
	}
	if MirrorFile(dir, "postgres://u:other@127.0.0.1:1/db?sslmode=disable&connect_timeout=5") != path {
		t.Error("two passwords of one URL name two mirrors")
	}
	if MirrorFile(dir, "postgres://u@127.0.0.1:1/other?sslmode=disable") == path {
		t.Error("two databases name one mirror")
	}
	_, _, err := OpenMirror(context.Background(), bad, path, MirrorOptions{})
	if err == nil || strings.Contains(err.Error(), canary) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("unreachable server: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a failed mirror left a file: %v", err)
	}

	u := pgDatabase(t)
	_, stores, _ := quirkyHomes(t, 1, transcripttest.Small())
	if _, err := stores[0].Push(context.Background(), u, pushOpts("a")); err != nil {
		t.Fatal(err)
	}
	pw := mustParse(t, u)
	pw.User = url.UserPassword(pw.User.Username(), canary)
	path = MirrorFile(dir, pw.String())
	m, _ := mirror(t, pw.String(), path)
	m.Close()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if bytes.Contains(data, []byte(canary)) || strings.Contains(e.Name(), canary) {
			t.Errorf("%s holds the password", e.Name())
		}
	}
}

// TestFilterMachine: a filter on a machine or a user keeps the rows that
// name it, and the store's own rows when it is the store's own name; the
// sums read from the rows equal the rollups' for the store's own name.
func TestFilterMachine(t *testing.T) {
	_, stores, _ := quirkyHomes(t, 1, quirky())
	s := stores[0]
	all := reportTotals(t, s, Filter{Machines: true})
	// The sums read from the rows equal the rollups'.
	var rollups []string
	for _, line := range strings.Split(reportTotals(t, s, Filter{}), "\n") {
		if !strings.HasPrefix(line, "sessions ") {
			rollups = append(rollups, line)
		}
	}
	if strings.Join(rollups, "\n") != all {
		t.Errorf("the sums of the rows:\n%s\nthe rollups':\n%s", all, strings.Join(rollups, "\n"))
	}
	empty := reportTotals(t, open(t, filepath.Join(t.TempDir(), "empty.db")), Filter{Machine: "x"})
	if got := reportTotals(t, s, Filter{Machine: "laptop"}); got != empty {
		t.Errorf("another machine's rows, without SetSelf:\n%s\nwant none", got)
	}
	s.SetSelf("laptop", "dev")
	for _, f := range []Filter{{Machine: "laptop"}, {User: "dev"}, {Machine: "laptop", User: "dev"}, {Machines: true}} {
		if got := reportTotals(t, s, f); got != all {
			t.Errorf("%+v: the store's own rows:\n%s\nwant\n%s", f, got, all)
		}
	}
	for _, f := range []Filter{{Machine: "desktop"}, {User: "ops"}, {Machine: "laptop", User: "ops"}} {
		if got := reportTotals(t, s, f); got != empty {
			t.Errorf("%+v: another machine's rows:\n%s\nwant none", f, got)
		}
	}
	ctx := context.Background()
	// Sum by sum, too.
	sums := func(f Filter) string {
		var out []string
		for r, err := range s.RequestSums(ctx, f) {
			if err != nil {
				t.Fatal(err)
			}
			r.Machine, r.User = "", ""
			out = append(out, fmt.Sprintf("%+v", r))
		}
		for c, err := range s.ToolSums(ctx, f) {
			if err != nil {
				t.Fatal(err)
			}
			c.Machine, c.User = "", ""
			out = append(out, fmt.Sprintf("%+v", c))
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	if got, want := sums(Filter{Machine: "laptop"}), sums(Filter{}); got != want {
		t.Errorf("the sums of the rows:\n%s\nthe rollups':\n%s", got, want)
	}
	for r, err := range s.Requests(ctx, Filter{}) {
		if err != nil || r.Machine != "laptop" || r.User != "dev" {
			t.Fatalf("a request of the store's own: %+v, %v", r, err)
		}
		break
	}
	for r, err := range s.RequestSums(ctx, Filter{Machines: true}) {
		if err != nil || r.Machine != "laptop" || r.User != "dev" {
			t.Fatalf("a sum of the store's own: %+v, %v", r, err)
		}
		break
	}
}

// TestMirrorTimeOutOfRange: a row another writer put in the shared store
// with a time no transcript may record (the least int64 here) is left out
// of the mirror, and counted as such; the reports, rollups included, are
// those of the other rows, and read without an error. A row moved out of
// range later leaves the mirror.
func TestMirrorTimeOutOfRange(t *testing.T) {
	u := pgDatabase(t)
	_, stores, _ := quirkyHomes(t, 1, quirky())
	if _, err := stores[0].Push(context.Background(), u, pushOpts("a")); err != nil {
		t.Fatal(err)
	}
	want := reportTotals(t, stores[0], Filter{})
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO requests (key, machine, os_user, source, session_id, agent_id, agent_file, sidechain, ts, model, project,
		message_id, request_id, dedup_session, input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, web_search, web_fetch, speed, cost_usd)
		VALUES ('\xdead', 'evil', 'x', 'claude', 'forged', '', '', 0, -9223372036854775808, 'm', '/p', 'msg-forged', 'req', '', 1, 1, 0, 0, 0, 0, 0, 0, '', NULL)`); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mirror.db")
	m, st := mirror(t, u, path)
	if st.OutOfRange != 1 {
		t.Errorf("%d rows out of range, want the forged one", st.OutOfRange)
	}
	if got := reportTotals(t, m, Filter{}); got != want {
		t.Errorf("with a forged row the mirror reports\n%s\nwant the store's\n%s", got, want)
	}
	for _, err := range m.RequestSums(context.Background(), Filter{}) {
		if err != nil {
			t.Fatalf("the rollups of the mirror: %v", err)
		}
	}
	m.Close()
	// A row of the mirror moved out of range by another writer leaves it.
	if _, err := db.Exec(`UPDATE requests SET ts = 4102444800000, seq = nextval('change_seq') WHERE key = (SELECT key FROM requests WHERE machine = 'a' ORDER BY key LIMIT 1)`); err != nil {
		t.Fatal(err)
	}
	m, st = mirror(t, u, path)
	if st.OutOfRange != 1 || st.Full {
		t.Errorf("after a row moved out of range: %+v", st)
	}
	var n int
	if err := m.db.QueryRow(`SELECT count(*) FROM requests WHERE ts >= 4102444800000`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows out of range in the mirror (%v)", n, err)
	}
}

// TestMirrorNegativeTokens: a row another writer put in the shared store
// with a token count below zero (a request's input, a tool result's, a
// compaction's) is left out of the mirror and counted as such, where the
// reports left it out in silence; the reports are the other rows'. A row
// whose count is made negative later leaves the mirror.
func TestMirrorNegativeTokens(t *testing.T) {
	u := pgDatabase(t)
	_, stores, _ := quirkyHomes(t, 1, quirky())
	if _, err := stores[0].Push(context.Background(), u, pushOpts("a")); err != nil {
		t.Fatal(err)
	}
	want := reportTotals(t, stores[0], Filter{})
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO requests (key, machine, os_user, source, session_id, agent_id, agent_file, sidechain, ts, model, project,
		message_id, request_id, dedup_session, input, output, cache_write_5m, cache_write_1h, cache_read, reasoning, web_search, web_fetch, speed, cost_usd)
		VALUES ('\xdead', 'evil', 'x', 'claude', 'forged', '', '', 0, 1763629200000, 'm', '/p', 'msg-forged', 'req', '', -5, 1, 0, 0, 0, 0, 0, 0, '', NULL)`); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mirror.db")
	m, st := mirror(t, u, path)
	if st.NegativeTokens != 1 || st.OutOfRange != 0 {
		t.Errorf("%d rows with negative tokens, %d out of range; want the forged one, none", st.NegativeTokens, st.OutOfRange)
	}
	if got := reportTotals(t, m, Filter{}); got != want {
		t.Errorf("with a forged row the mirror reports\n%s\nwant the store's\n%s", got, want)
	}
	m.Close()
	// A row of the mirror whose count another writer made negative leaves it.
	if _, err := db.Exec(`UPDATE tool_calls SET result_tokens = -1, seq = nextval('change_seq') WHERE key = (SELECT key FROM tool_calls WHERE machine = 'a' ORDER BY key LIMIT 1)`); err != nil {
		t.Fatal(err)
	}
	m, st = mirror(t, u, path)
	if st.NegativeTokens != 1 || st.Full {
		t.Errorf("after a row's count was made negative: %+v", st)
	}
	var n int
	if err := m.db.QueryRow(`SELECT count(*) FROM tool_calls WHERE result_tokens < 0`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows with negative tokens in the mirror (%v)", n, err)
	}
}
