package store

import (
	"context"
	"fmt"
	"path/filepath"
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
	if f.Machine == "" && f.User == "" {
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
	// Compactions as distinct events: a local store that reads one
	// compaction in two files (a session synced twice, a line copied into
	// a resumed session) keeps it twice (by file and line).
	var nc int
	if err := s.db.QueryRow(`SELECT count(*) FROM (SELECT DISTINCT source, session_id, agent_id, ts, trigger, pre_tokens FROM compactions)`).Scan(&nc); err != nil {
		t.Fatal(err)
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
