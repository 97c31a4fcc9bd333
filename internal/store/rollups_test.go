package store

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// rollupSums are the rollups' sums and the rows' sums of the same
// columns.
func rollupSums(t *testing.T, s *Store) (rollups, rows [2][4]int64) {
	t.Helper()
	err := s.db.QueryRow(`SELECT coalesce(sum(requests), 0), coalesce(sum(input), 0), coalesce(sum(output), 0), coalesce(sum(cache_read), 0) FROM request_rollup`).
		Scan(&rollups[0][0], &rollups[0][1], &rollups[0][2], &rollups[0][3])
	if err == nil {
		err = s.db.QueryRow(`SELECT coalesce(sum(calls), 0), coalesce(sum(errors), 0), coalesce(sum(result_tokens), 0), count(*) > 0 FROM tool_rollup`).
			Scan(&rollups[1][0], &rollups[1][1], &rollups[1][2], &rollups[1][3])
	}
	if err == nil {
		err = s.db.QueryRow(`SELECT count(*), coalesce(sum(input), 0), coalesce(sum(output), 0), coalesce(sum(cache_read), 0) FROM requests`).
			Scan(&rows[0][0], &rows[0][1], &rows[0][2], &rows[0][3])
	}
	if err == nil {
		err = s.db.QueryRow(`SELECT count(*), coalesce(sum(coalesce(is_error, 0) <> 0), 0), coalesce(sum(coalesce(result_tokens, 0)), 0), count(*) > 0 FROM tool_calls`).
			Scan(&rows[1][0], &rows[1][1], &rows[1][2], &rows[1][3])
	}
	if err != nil {
		t.Fatal(err)
	}
	return rollups, rows
}

// TestRollupsDeferred checks that a first ingest fills the rollups at its
// end, and that Open fills them where the one before it did not get there
// (killed, or a store of the schema before the rollups), while the
// queries read the rows in the meantime.
func TestRollupsDeferred(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "usage.db")
	s := open(t, path)
	ingest(t, s, home)
	got, want := rollupSums(t, s)
	if got != want || want[0][0] == 0 || want[1][0] == 0 {
		t.Fatalf("after a first ingest: rollups %v, rows %v", got, want)
	}
	if deferred, err := s.rollupsDeferred(t.Context()); err != nil || deferred {
		t.Fatalf("after a first ingest: deferred %v (%v)", deferred, err)
	}
	// As a first ingest killed before its end leaves it.
	if _, err := s.db.Exec(`DELETE FROM request_rollup; DELETE FROM tool_rollup; DELETE FROM tool_use_rollup; INSERT INTO meta (key, value) VALUES ('rollups_deferred', x'01')`); err != nil {
		t.Fatal(err)
	}
	for _, err := range s.RequestSums(t.Context(), Filter{}) {
		if err == nil || !errors.Is(err, ErrNoRollup) {
			t.Fatalf("deferred rollups answered a query (%v)", err)
		}
	}
	s.Close()
	s = open(t, path)
	if got, want := rollupSums(t, s); got != want {
		t.Fatalf("after Open: rollups %v, rows %v", got, want)
	}
	if diff, n := toolUseMismatch(t, s); diff != 0 || n == 0 {
		t.Fatalf("after Open: %d rollup rows by tool of %d differ from the rows' sums", diff, n)
	}
	n := 0
	for _, err := range s.RequestSums(t.Context(), Filter{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no rollups after Open")
	}
}

// toolUseFromRows is tool_use_rollup as the rows give it.
const toolUseFromRows = `SELECT coalesce(t.call_ts, t.result_ts) - ((coalesce(t.call_ts, t.result_ts) % 900000) + 900000) % 900000 AS bucket,
	t.source, t.session_id, coalesce(t.project, '') AS project, coalesce(t.server, '') AS server,
	CASE WHEN t.call_ts IS NULL THEN '(unknown tool)' WHEN coalesce(t.tool, '') <> '' THEN t.tool ELSE coalesce(t.name, '') END AS tool,
	coalesce(t.plugin, '') AS plugin, count(*), sum(coalesce(t.is_error, 0) <> 0), sum(t.result_ts IS NULL),
	sum(coalesce(t.result_tokens, 0)), max(coalesce(t.result_tokens, 0)), sum(coalesce(t.estimated_tokens, 0)), sum(coalesce(t.non_text, 0))
	FROM tool_calls t WHERE coalesce(t.call_ts, t.result_ts) IS NOT NULL AND t.lost = 0
	GROUP BY 1, 2, 3, 4, 5, 6, 7`

// toolUseMismatch returns the rows of tool_use_rollup that differ from
// the rows' sums, either way, and how many rows the rollup has.
func toolUseMismatch(t *testing.T, s *Store) (diff, n int) {
	t.Helper()
	err := s.db.QueryRow(`SELECT (SELECT count(*) FROM (SELECT * FROM tool_use_rollup EXCEPT `+toolUseFromRows+`))
		+ (SELECT count(*) FROM (`+toolUseFromRows+` EXCEPT SELECT * FROM tool_use_rollup)), (SELECT count(*) FROM tool_use_rollup)`).Scan(&diff, &n)
	if err != nil {
		t.Fatal(err)
	}
	return diff, n
}

// TestToolUseRollupMatchesRows ingests a generated tree with the readers'
// quirks (resumed sessions whose copies of another's calls are lost) in
// parts, each file cut at random points, then with files rewritten in
// place (their rows cleared and read again, a largest result among them),
// and checks the rollup by server and tool against the rows' sums, every
// column, after each.
func TestToolUseRollupMatchesRows(t *testing.T) {
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
	rnd := rand.New(rand.NewPCG(7, 9))
	home := t.TempDir()
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
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
	write := func(p string, b []byte) {
		rel, _ := filepath.Rel(full, p)
		dst := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string) {
		t.Helper()
		if diff, n := toolUseMismatch(t, s); diff != 0 {
			t.Fatalf("%s: %d rollup rows of %d differ from the rows' sums", what, diff, n)
		}
	}
	for part := range 3 {
		for _, p := range files {
			write(p, data[p][:cuts[p][part]])
		}
		ingest(t, s, home)
		check(fmt.Sprintf("part %d", part+1))
	}
	var lost int
	if err := s.db.QueryRow(`SELECT count(*) FROM tool_calls WHERE lost <> 0`).Scan(&lost); err != nil || lost == 0 {
		t.Fatalf("the tree has no lost copies (%d, %v)", lost, err)
	}
	// The file that holds the largest result is rewritten without it:
	// its first half, then another file's start; one file is emptied.
	var biggest string
	if err := s.db.QueryRow(`SELECT f.path FROM tool_calls t JOIN files f ON f.id = t.result_file_id
		ORDER BY t.result_tokens DESC LIMIT 1`).Scan(&biggest); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(home, biggest)
	src := filepath.Join(full, rel)
	write(src, data[src][:len(data[src])/2])
	if st := ingest(t, s, home); st.FilesReread == 0 {
		t.Fatal("no file was read again")
	}
	check("after a file lost its end")
	other := files[0]
	if other == src {
		other = files[len(files)-1]
	}
	write(src, data[other][:len(data[other])/3])
	write(other, nil)
	ingest(t, s, home)
	check("after rewrites")

	// A largest result taken out while other calls of its rollup stay:
	// the row deleted, then the next largest made smaller.
	for _, q := range []string{
		`DELETE FROM tool_calls WHERE id = (SELECT t.id FROM tool_calls t JOIN (` + toolUseFromRows + `) g
			ON g.bucket = coalesce(t.call_ts, t.result_ts) - ((coalesce(t.call_ts, t.result_ts) % 900000) + 900000) % 900000
			AND g.source = t.source AND g.session_id = t.session_id AND g.server = coalesce(t.server, '') AND g.project = coalesce(t.project, '')
			WHERE t.lost = 0 AND g."count(*)" > 1 AND t.call_ts IS NOT NULL ORDER BY t.result_tokens DESC LIMIT 1)`,
		`UPDATE tool_calls SET result_tokens = 0 WHERE id = (SELECT id FROM tool_calls WHERE lost = 0 ORDER BY result_tokens DESC LIMIT 1)`,
		`UPDATE tool_calls SET lost = 1 WHERE id = (SELECT id FROM tool_calls WHERE lost = 0 ORDER BY result_tokens DESC LIMIT 1)`,
	} {
		before, _ := toolUseMismatch(t, s)
		res, err := s.db.Exec(q)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 || before != 0 {
			t.Fatalf("%s: %d rows", q, n)
		}
		check(q)
	}
}

// TestToolRollupsFillPastInt64 checks that rollups filled in from rows
// whose sums pass an int64 hold them as the triggers do (a real), not an
// error, and that the queries then decline to answer from them.
func TestToolRollupsFillPastInt64(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "usage.db")
	s := open(t, path)
	ingest(t, s, home)
	if diff, n := toolUseMismatch(t, s); diff != 0 || n == 0 {
		t.Fatalf("after a first ingest: %d rollup rows by tool of %d differ from the rows' sums", diff, n)
	}
	// Two calls of one session and quarter hour with 2^62 tokens each.
	if _, err := s.db.Exec(`UPDATE tool_calls SET result_tokens = 4611686018427387904 WHERE id IN (
		SELECT t.id FROM tool_calls t JOIN (SELECT source, session_id, coalesce(call_ts, result_ts) / 900000 AS q FROM tool_calls
			WHERE lost = 0 AND coalesce(call_ts, result_ts) IS NOT NULL GROUP BY 1, 2, 3 HAVING count(*) > 1 LIMIT 1) g
		ON g.source = t.source AND g.session_id = t.session_id AND g.q = coalesce(t.call_ts, t.result_ts) / 900000 AND t.lost = 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO meta (key, value) VALUES ('rollups_deferred', x'01')`); err != nil {
		t.Fatal(err)
	}
	if err := s.fillDeferredRollups(t.Context()); err != nil {
		t.Fatal(err)
	}
	var reals int
	if err := s.db.QueryRow(`SELECT count(*) FROM tool_rollup WHERE typeof(result_tokens) = 'real'`).Scan(&reals); err != nil || reals == 0 {
		t.Fatalf("no rollup holds the sum as a real (%d, %v)", reals, err)
	}
	var last error
	for _, err := range s.ToolSums(t.Context(), Filter{}) {
		last = err
	}
	if !errors.Is(last, ErrNoRollup) {
		t.Fatalf("a rollup past an int64 answered (%v)", last)
	}
}

// rollupRows is every row of the three rollups, as text, in order.
func rollupRows(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT 'r', *, typeof(cost_usd), typeof(input) FROM request_rollup ORDER BY bucket, source, session_id, agent_file, model, project, speed, recorded, band`,
		`SELECT 't', *, typeof(result_tokens) FROM tool_rollup ORDER BY bucket, source, session_id, agent_file, project, mcp`,
		`SELECT 'u', *, typeof(result_tokens) FROM tool_use_rollup ORDER BY bucket, source, session_id, project, server, tool, plugin`,
	} {
		rows, err := s.db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%q", vals))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestFillRollupsAgentFiles checks that the fill a first ingest chose, the
// one without the look-up of older-style sub-agent files when the store
// has none, gives the rollups the fill with it gives, row for row, and
// that a store with such files gets the look-up.
func TestFillRollupsAgentFiles(t *testing.T) {
	if fillRollupsNoAgentFiles == fillRollups || strings.Contains(fillRollupsNoAgentFiles, "FROM files") ||
		strings.Count(fillRollups, requestAgentFile) != 1 || strings.Count(fillRollups, toolAgentFile) != 1 {
		t.Fatal("fillRollupsNoAgentFiles is not fillRollups without its two look-ups in files")
	}
	for _, quirks := range []bool{false, true} {
		t.Run(fmt.Sprintf("quirks=%v", quirks), func(t *testing.T) {
			home := t.TempDir()
			o := transcripttest.Small()
			o.Quirks = quirks
			if _, err := transcripttest.Generate(home, o); err != nil {
				t.Fatal(err)
			}
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			ingest(t, s, home)
			var agentFiles int
			if err := s.db.QueryRow(`SELECT count(*) FROM files WHERE session_id = '' AND agent_id <> ''`).Scan(&agentFiles); err != nil {
				t.Fatal(err)
			}
			if (agentFiles > 0) != quirks {
				t.Fatalf("%d older-style sub-agent files in the store of a tree with quirks %v", agentFiles, quirks)
			}
			got := rollupRows(t, s)
			if len(got) == 0 {
				t.Fatal("no rollups")
			}
			if _, err := s.db.Exec(fillRollups); err != nil {
				t.Fatal(err)
			}
			want := rollupRows(t, s)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("the first ingest's rollups differ from fillRollups' (%d and %d rows)", len(got), len(want))
			}
			if quirks {
				// Without the look-up, the rows of the sub-agent files lose their agent_file.
				if _, err := s.db.Exec(fillRollupsNoAgentFiles); err != nil {
					t.Fatal(err)
				}
				if strings.Join(rollupRows(t, s), "\n") == strings.Join(want, "\n") {
					t.Fatal("the fill without the look-up gives the same rollups on a store with sub-agent files: the test shows nothing")
				}
			}
		})
	}
}
