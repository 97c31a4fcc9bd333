package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// pgDatabase creates a database of its own on the test server (see
// testpeers.PostgresServer), dropped when the test ends, and returns its
// URL. Without a server the test is skipped, or fails under
// MCPCOST_REQUIRE_PEERS=1.
func pgDatabase(t *testing.T) string {
	t.Helper()
	server, err := testpeers.PostgresServer()
	if err != nil {
		if os.Getenv("MCPCOST_REQUIRE_PEERS") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	u, drop, err := testpeers.PostgresDatabase(server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("dropping the test database: %v", err)
		}
	})
	return u
}

// totalQueries are the counts and sums a store's content is compared by,
// in either store, with their columns' count.
var totalQueries = []struct {
	n int
	q string
}{
	{5, `SELECT count(*), coalesce(sum(input), 0), coalesce(sum(output), 0), coalesce(sum(cache_read), 0),
		coalesce(sum(cache_write_5m + cache_write_1h), 0) FROM requests`},
	{4, `SELECT count(*), coalesce(sum(result_tokens), 0), count(call_ts), count(result_ts) FROM tool_calls`},
	{2, `SELECT count(*), coalesce(sum(last_ts - first_ts), 0) FROM sessions`},
	// Compactions as distinct events: a local store that reads one
	// session in two files keeps its compactions twice (by file and line).
	{2, `SELECT count(*), coalesce(sum(pre_tokens), 0) FROM
		(SELECT DISTINCT source, session_id, agent_id, ts, trigger, pre_tokens FROM compactions) c`},
}

func totalsIn(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range totalQueries {
		v := make([]sql.NullInt64, q.n)
		ptrs := make([]any, q.n)
		for i := range v {
			ptrs[i] = &v[i]
		}
		if err := db.QueryRow(q.q).Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, x := range v {
			fmt.Fprintf(&b, "%d ", x.Int64)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// sharedTotals is the shared store's content in a comparable form.
func sharedTotals(t *testing.T, u string) string {
	t.Helper()
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return totalsIn(t, db)
}

// localTotals is the same for a local store.
func localTotals(t *testing.T, s *Store) string { t.Helper(); return totalsIn(t, s.db) }

func pushOpts(machine string) PushOptions {
	return PushOptions{Machine: machine, User: "dev", Now: func() time.Time { return time.UnixMilli(1_700_000_000_000) }}
}

func TestPushIdempotent(t *testing.T) {
	u := pgDatabase(t)
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)
	want := localTotals(t, s)
	st, err := s.Push(context.Background(), u, pushOpts("laptop"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows == 0 || st.Added == 0 || st.Dropped != 0 || !st.Full {
		t.Errorf("first push: %+v, want a full push that adds rows", st)
	}
	if got := sharedTotals(t, u); got != want {
		t.Errorf("shared store after a push:\n%s\nwant the local store's:\n%s", got, want)
	}
	for i := 0; i < 2; i++ {
		st2, err := s.Push(context.Background(), u, pushOpts("laptop"))
		if err != nil {
			t.Fatal(err)
		}
		if *st2 != (PushStats{}) {
			t.Errorf("push again: %+v, want nothing read or sent", st2)
		}
		if got := sharedTotals(t, u); got != want {
			t.Errorf("shared store after a second push:\n%s\nwant:\n%s", got, want)
		}
	}
}

// TestPushDropsWhatTheMachineNoLongerHolds: a row the local store lost (a
// file read again) goes from the shared store, unless another machine
// still holds it.
func TestPushDropsWhatTheMachineNoLongerHolds(t *testing.T) {
	u := pgDatabase(t)
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	a := open(t, filepath.Join(t.TempDir(), "a.db"))
	b := open(t, filepath.Join(t.TempDir(), "b.db"))
	ingest(t, a, home)
	ingest(t, b, home)
	want := localTotals(t, a)
	for _, m := range []struct {
		s    *Store
		name string
	}{{a, "a"}, {b, "b"}} {
		if _, err := m.s.Push(context.Background(), u, pushOpts(m.name)); err != nil {
			t.Fatal(err)
		}
	}
	// a loses its Codex requests; b still holds them.
	if _, err := a.db.Exec(`DELETE FROM requests WHERE source = 'codex'`); err != nil {
		t.Fatal(err)
	}
	st, err := a.Push(context.Background(), u, pushOpts("a"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Dropped == 0 {
		t.Fatalf("push after a loss: %+v, want rows dropped", st)
	}
	if got := sharedTotals(t, u); got != want {
		t.Errorf("b's rows went with a's:\n%s\nwant:\n%s", got, want)
	}
	if _, err := b.db.Exec(`DELETE FROM requests WHERE source = 'codex'`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Push(context.Background(), u, pushOpts("b")); err != nil {
		t.Fatal(err)
	}
	if got, want := sharedTotals(t, u), localTotals(t, a); got != want {
		t.Errorf("rows no machine holds stayed:\n%s\nwant:\n%s", got, want)
	}
}

// TestPushManyHomes: two and eight homes, one session present in two of
// them, pushing at once into one shared store: it holds the union of
// their local stores (what one local store of every home reads), the
// shared session once, and pushing again changes nothing.
func TestPushManyHomes(t *testing.T) {
	for _, n := range []int{2, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			u := pgDatabase(t)
			var homes []string
			union := open(t, filepath.Join(t.TempDir(), "union.db"))
			for i := range n {
				home := t.TempDir()
				o := transcripttest.Small()
				o.Seed = uint64(100 + i)
				if _, err := transcripttest.Generate(home, o); err != nil {
					t.Fatal(err)
				}
				homes = append(homes, home)
			}
			// The first home's sessions synced to the second too.
			copyTree(t, filepath.Join(homes[0], ".claude", "projects"), filepath.Join(homes[1], ".claude", "projects", "synced"), 1)
			stores := make([]*Store, n)
			for i, home := range homes {
				stores[i] = open(t, filepath.Join(t.TempDir(), "usage.db"))
				ingest(t, stores[i], home)
			}
			var roots IngestOptions = options(homes[0])
			roots.ClaudeRoots, roots.CodexRoots = nil, nil
			for _, home := range homes {
				o := options(home)
				roots.ClaudeRoots = append(roots.ClaudeRoots, o.ClaudeRoots...)
				roots.CodexRoots = append(roots.CodexRoots, o.CodexRoots...)
			}
			if _, err := union.Ingest(context.Background(), roots); err != nil {
				t.Fatal(err)
			}
			want := localTotals(t, union)
			if localTotals(t, stores[1]) == localTotals(t, open(t, filepath.Join(t.TempDir(), "x.db"))) {
				t.Fatal("an empty home")
			}
			for round := 0; round < 2; round++ {
				var wg sync.WaitGroup
				errs := make([]error, n)
				for i, s := range stores {
					wg.Go(func() {
						_, errs[i] = s.Push(context.Background(), u, pushOpts(fmt.Sprint("machine-", i)))
					})
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						t.Fatal(err)
					}
				}
				if got := sharedTotals(t, u); got != want {
					t.Errorf("round %d: the shared store holds\n%s\nwant the union's\n%s", round, got, want)
				}
			}
		})
	}
}

// TestPushFailures: an unreachable server and a read-only database are
// errors that show no password and change nothing.
func TestPushFailures(t *testing.T) {
	const canary = "Canary-pw-5e1b9d"
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ingest(t, s, home)

	_, err := s.Push(context.Background(), "postgres://u:"+canary+"@127.0.0.1:1/db?sslmode=disable&connect_timeout=5", pushOpts("m"))
	if err == nil || strings.Contains(err.Error(), canary) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("unreachable server: %v", err)
	}
	_, err = s.Push(context.Background(), "key=value password="+canary, pushOpts("m"))
	if err == nil || strings.Contains(err.Error(), canary) {
		t.Errorf("not a URL: %v", err)
	}

	u := pgDatabase(t)
	if _, err := s.Push(context.Background(), u, pushOpts("m")); err != nil {
		t.Fatal(err)
	}
	before := sharedTotals(t, u)
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := strings.TrimPrefix(mustParse(t, u).Path, "/")
	if _, err := db.Exec(`ALTER DATABASE ` + name + ` SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`DELETE FROM requests WHERE source = 'codex'`); err != nil {
		t.Fatal(err)
	}
	pw := mustParse(t, u)
	pw.User = url.UserPassword(pw.User.Username(), canary)
	_, err = s.Push(context.Background(), pw.String(), pushOpts("m"))
	if err == nil || !strings.Contains(err.Error(), "read-only") || strings.Contains(err.Error(), canary) {
		t.Errorf("read-only database: %v", err)
	}
	if got := sharedTotals(t, u); got != before {
		t.Errorf("a failed push changed the shared store:\n%s\nwant:\n%s", got, before)
	}

	// A first push into a read-only store leaves the local store as it
	// was: nothing recorded of that store.
	u2 := pgDatabase(t)
	db2, err := OpenShared(context.Background(), u2)
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
	name2 := strings.TrimPrefix(mustParse(t, u2).Path, "/")
	if _, err := db.Exec(`ALTER DATABASE ` + name2 + ` SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	var states int
	s.db.QueryRow(`SELECT count(*) FROM push_state`).Scan(&states)
	if _, err := s.Push(context.Background(), u2, pushOpts("m")); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("first push into a read-only database: %v", err)
	}
	var after int
	s.db.QueryRow(`SELECT count(*) FROM push_state`).Scan(&after)
	if after != states {
		t.Errorf("a failed first push left %d push states, want %d", after, states)
	}
}

func mustParse(t *testing.T, u string) *url.URL {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLockFreedWhenWriterVanishes: a writer of the shared store that
// stops talking while it holds the lock (a laptop closed mid-push, a
// network gone, the server's session idle in its transaction) loses it
// after pgIdleTimeout, so that the pushes of every other machine do not
// wait for it without end.
func TestLockFreedWhenWriterVanishes(t *testing.T) {
	u := pgDatabase(t)
	defer func(d time.Duration) { pgIdleTimeout = d }(pgIdleTimeout)
	pgIdleTimeout = time.Second
	ctx := context.Background()
	gone, err := OpenShared(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	tx, err := gone.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := lockShared(ctx, tx); err != nil {
		t.Fatal(err)
	}
	// The writer says nothing more; another one takes the lock.
	other, err := OpenShared(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	wait, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	start := time.Now()
	tx2, err := other.BeginTx(wait, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback()
	if err := lockShared(wait, tx2); err != nil {
		t.Fatalf("the lock of a writer gone quiet: still held after %s (%v)", time.Since(start).Round(time.Second), err)
	}
}
