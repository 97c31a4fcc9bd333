package store

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// storeDump is every stored request and tool call, by what identifies
// it, as text.
func storeDump(t *testing.T, s *Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT r.source, r.session_id, r.agent_id, r.sidechain, f.path, r.line, r.ts, r.model, r.message_id, r.request_id,
			r.input, r.output, r.cache_write_5m, r.cache_write_1h, r.cache_read, r.speed, coalesce(r.cost_usd, -1), r.copied
			FROM requests r JOIN files f ON f.id = r.file_id ORDER BY 1, 2, 9, 10, 5, 6`,
		`SELECT source, session_id, call_id, coalesce(name, ''), coalesce(call_ts, 0), coalesce(result_ts, 0), coalesce(result_tokens, 0),
			lost, copied FROM tool_calls ORDER BY 1, 2, 3`,
		`SELECT source, session_id, project, coalesce(first_ts, 0), coalesce(last_ts, 0) FROM sessions ORDER BY 1, 2`,
	} {
		rows, err := s.db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			v := make([]any, len(cols))
			p := make([]any, len(cols))
			for i := range v {
				p[i] = &v[i]
			}
			if err := rows.Scan(p...); err != nil {
				t.Fatal(err)
			}
			for _, x := range v {
				if bs, ok := x.([]byte); ok {
					x = string(bs)
				}
				b.WriteString(strings.ReplaceAll(toString(x), "\t", " "))
				b.WriteByte('\t')
			}
			b.WriteByte('\n')
		}
		rows.Close()
	}
	return b.String()
}

func toString(x any) string {
	switch v := x.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// TestDedupCacheBounded ingests a generated tree with the readers'
// quirks (copies of messages across files and sessions, sub-agent files,
// gateways without request ids) in three parts, each file cut at random
// points, then with files rewritten, once as an ingest does and three
// times with a de-duplication cache emptied before every batch and a
// filter that is full from its first keys (every lookup goes to the
// writer's own index in the first ingest, or the store): with the
// writer's own index, without it from the first batch on (requests_message
// then built at once), and with it stopped after a few message ids. It
// checks that the stores hold the same rows after each step.
func TestDedupCacheBounded(t *testing.T) {
	full := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	if _, err := transcripttest.Generate(full, o); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	rnd := rand.New(rand.NewPCG(5, 3))
	data := map[string][]byte{}
	cuts := map[string][3]int{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		a, c := rnd.IntN(len(b)+1), rnd.IntN(len(b)+1)
		data[p], cuts[p] = b, [3]int{min(a, c), max(a, c), len(b)}
	}
	type variant struct{ cache, keys, own int }
	variants := []variant{{dedupCache, filterKeys, ownKeys}, {0, 1, ownKeys}, {0, 1, -1}, {0, 1, 3}}
	homes := make([]string, len(variants))
	stores := make([]*Store, len(variants))
	for i := range variants {
		homes[i] = t.TempDir()
		stores[i] = open(t, filepath.Join(t.TempDir(), "usage.db"))
	}
	write := func(p string, b []byte) {
		rel, _ := filepath.Rel(full, p)
		for _, h := range homes {
			dst := filepath.Join(h, rel)
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cache, keys, own := dedupCache, filterKeys, ownKeys
	defer func() { dedupCache, filterKeys, ownKeys = cache, keys, own }()
	step := func(what string) {
		t.Helper()
		dumps := make([]string, len(stores))
		for i, s := range stores {
			dedupCache, filterKeys, ownKeys = variants[i].cache, variants[i].keys, variants[i].own
			ingest(t, s, homes[i])
			dumps[i] = strings.ReplaceAll(storeDump(t, s), homes[i], "HOME")
			if missing, err := s.missingIndexes(context.Background()); err != nil || missing {
				t.Fatalf("%s: variant %d: indexes missing after the ingest (%v)", what, i, err)
			}
		}
		for v := 1; v < len(dumps); v++ {
			if dumps[0] != dumps[v] {
				a, b := strings.Split(dumps[0], "\n"), strings.Split(dumps[v], "\n")
				for i := range min(len(a), len(b)) {
					if a[i] != b[i] {
						t.Fatalf("%s: variant %d: the stores differ at row %d:\n%s\n%s", what, v, i, a[i], b[i])
					}
				}
				t.Fatalf("%s: variant %d: the stores differ: %d rows and %d", what, v, len(a), len(b))
			}
		}
		if len(dumps[0]) == 0 {
			t.Fatalf("%s: nothing stored", what)
		}
	}
	for part := range 3 {
		for _, p := range files {
			write(p, data[p][:cuts[p][part]])
		}
		step("part " + string(rune('1'+part)))
	}
	write(files[0], data[files[len(files)-1]][:len(data[files[len(files)-1]])/2])
	write(files[len(files)-1], nil)
	write(files[1], data[files[1]][:len(data[files[1]])/3])
	step("after rewrites")
}
