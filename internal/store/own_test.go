package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
)

// TestOwnEntries checks the writer's own index of a first ingest (see
// writer.own) against the store: after each of many random inserts,
// updates and deletes of requests (whose row ids SQLite then reuses,
// for rows of other message ids), the stored requests of every message
// id read by the own index are those entriesQuery reads, in its order.
func TestOwnEntries(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ctx := context.Background()
	if _, err := s.db.Exec(`INSERT INTO files (id, path, source) VALUES (1, '/a.jsonl', 'claude'), (2, '/b.jsonl', 'claude')`); err != nil {
		t.Fatal(err)
	}
	w := &writer{s: s, own: map[dedupKey]int64{}, ownMore: map[dedupKey][]int64{}, first: true,
		dedup: map[dedupKey][]dedupEntry{}, paths: map[string]string{},
		seeds: [3]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed(), maphash.MakeSeed()}}
	defer w.close()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	sources, msgs := []string{"claude", "codex"}, []string{"m0", "m1", "m2", "m3", ""}
	view := func(es []dedupEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprint(e.slot.id, e.slot.session, e.slot.sidechain, e.slot.total, e.slot.speed, e.slot.path,
				e.slot.line, e.requestID, e.session, e.ts))
		}
		return out
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for op := range 600 {
		switch n := rnd.IntN(10); {
		case n < 6: // insert
			src, msg := sources[rnd.IntN(2)], msgs[rnd.IntN(len(msgs))]
			req := ""
			if rnd.IntN(2) == 0 {
				req = fmt.Sprint("req", rnd.IntN(3))
			}
			res, err := tx.Exec(insertRequest, src, fmt.Sprint("s", rnd.IntN(3)), "", rnd.IntN(2) == 0, 1+rnd.IntN(2), op, rnd.Int64N(5),
				"model", "/p", msg, req, rnd.IntN(9), 1, 0, 0, 0, 0, 0, 0, "", nil, "d", 0)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := res.LastInsertId()
			if msg != "" {
				w.addOwn(w.key(src, msg), id)
			}
		case n < 8: // delete the last row or another
			q := `DELETE FROM requests WHERE id = (SELECT max(id) FROM requests)`
			if n == 7 {
				q = `DELETE FROM requests WHERE id = (SELECT id FROM requests ORDER BY random() LIMIT 1)`
			}
			if _, err := tx.Exec(q); err != nil {
				t.Fatal(err)
			}
		default: // a better copy replaces a row's values
			if _, err := tx.Exec(`UPDATE requests SET input = input + 1, file_id = 3 - file_id, line = line + 1
				WHERE id = (SELECT id FROM requests ORDER BY random() LIMIT 1)`); err != nil {
				t.Fatal(err)
			}
		}
		for _, src := range sources {
			for _, msg := range msgs[:len(msgs)-1] {
				got, err := w.ownEntries(tx, w.key(src, msg), src, msg)
				if err != nil {
					t.Fatal(err)
				}
				rows, err := tx.Query(entriesQuery, src, msg)
				if err != nil {
					t.Fatal(err)
				}
				want, err := w.scanEntries(rows, nil)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := view(got), view(want); !reflect.DeepEqual(g, w) {
					t.Fatalf("op %d: %s %s: own index reads\n%q\nthe store\n%q", op, src, msg, g, w)
				}
			}
		}
	}
}

// TestOwnIndexLeft checks that a first ingest whose own index stops
// (past ownKeys message ids) builds requests_message before it looks a
// copy up in the store, and that a first ingest without the lease keeps
// requests_message throughout.
func TestOwnIndexLeft(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	if dropped, err := s.dropIndexesForFirstIngest(context.Background(), false); err != nil || !dropped {
		t.Fatalf("dropped %v, %v", dropped, err)
	}
	has := func() bool {
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'requests_message'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if has() {
		t.Fatal("requests_message kept by a first ingest with its own index")
	}
	w := &writer{s: s, first: true}
	defer w.close()
	if err := s.tx(context.Background(), func(tx *sql.Tx) error { return w.loadDedup(tx) }); err != nil {
		t.Fatal(err)
	}
	if !has() {
		t.Fatal("requests_message not built when the own index stopped")
	}
}
