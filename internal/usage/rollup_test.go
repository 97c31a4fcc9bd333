package usage_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// treeFiles lists the transcript files under dir.
func treeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("the generated tree has no transcripts")
	}
	return files
}

func ingestHome(t *testing.T, s *store.Store, home string) *store.IngestStats {
	t.Helper()
	st, err := s.Ingest(context.Background(), store.IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// reportCases are the reports the rollups answer, or decline to.
func reportCases(t *testing.T) []usage.Options {
	t.Helper()
	var out []usage.Options
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	locs := []*time.Location{time.UTC, ny, time.FixedZone("+05:45", 5*3600+45*60), time.FixedZone("+05:10", 5*3600+10*60)}
	day := time.Date(2026, 10, 31, 0, 0, 0, 0, time.UTC)
	periods := [][2]time.Time{{}, {day, day.Add(48 * time.Hour)}, {day.Add(7 * time.Minute), {}}, {{}, day.Add(45 * time.Minute)}}
	for _, by := range usage.Dimensions {
		for _, mode := range usage.Modes {
			for li, loc := range locs {
				for pi, p := range periods {
					if (li+pi)%2 == 1 || (mode != "auto" && li+pi > 1) {
						continue // a sample of the products
					}
					out = append(out, usage.Options{By: by, Mode: mode, Location: loc, Since: p[0], Until: p[1], Now: fixedNow})
				}
			}
		}
		out = append(out, usage.Options{By: by, Source: "codex", Now: fixedNow}, usage.Options{By: by, Source: "claude", Project: "api", Now: fixedNow},
			usage.Options{By: by, SplitAgents: true, Now: fixedNow})
	}
	return out
}

// sameReports checks that every report read from the rollups is the one
// read from the rows: the same JSON, but for costs, which are summed in
// another order and may differ in their last bits.
func sameReports(t *testing.T, s *store.Store, what string) {
	t.Helper()
	for _, o := range reportCases(t) {
		got, err := usage.Build(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := usage.BuildFromRows(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := reportJSON(t, got), reportJSON(t, want); g != w {
			t.Fatalf("%s: by %s, mode %s, %s, %v to %v, source %q, project %q, split %v: the rollups give\n%s\nthe rows\n%s",
				what, o.By, o.Mode, o.Location, o.Since, o.Until, o.Source, o.Project, o.SplitAgents, g, w)
		}
	}
}

// reportJSON is the report's JSON with its costs rounded to a millionth
// of their value.
func reportJSON(t *testing.T, r *usage.Report) string {
	t.Helper()
	round := func(c *float64) {
		if c != nil && *c != 0 {
			scale := math.Pow(10, 6-math.Ceil(math.Log10(math.Abs(*c))))
			*c = math.Round(*c*scale) / scale
		}
	}
	round(r.Totals.Cost)
	for i := range r.Usage {
		round(r.Usage[i].Cost)
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRollupsMatchRows writes a generated tree (with the readers' quirks)
// in three parts, each file cut at two random points, ingests after each, and
// checks every report from the rollups against the same report from the
// rows; then rewrites some files in place, so that their rows are
// cleared and read again.
func TestRollupsMatchRows(t *testing.T) {
	full := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	if _, err := transcripttest.Generate(full, o); err != nil {
		t.Fatal(err)
	}
	files := treeFiles(t, full)
	for seed := uint64(1); seed <= 2; seed++ {
		rnd := rand.New(rand.NewPCG(seed, 11))
		home := t.TempDir()
		s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		cuts := map[string][3]int{}
		data := map[string][]byte{}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			a, c := rnd.IntN(len(b)+1), rnd.IntN(len(b)+1)
			cuts[p], data[p] = [3]int{min(a, c), max(a, c), len(b)}, b
		}
		for part := range 3 {
			for _, p := range files {
				rel, _ := filepath.Rel(full, p)
				dst := filepath.Join(home, rel)
				os.MkdirAll(filepath.Dir(dst), 0o755)
				if err := os.WriteFile(dst, data[p][:cuts[p][part]], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ingestHome(t, s, home)
			sameReports(t, s, "seed "+string(rune('0'+seed))+", part "+string(rune('1'+part)))
		}
		// Rewritten: a file replaced by another's start, one emptied.
		rel0, _ := filepath.Rel(full, files[0])
		rel1, _ := filepath.Rel(full, files[len(files)-1])
		os.WriteFile(filepath.Join(home, rel0), data[files[len(files)-1]][:len(data[files[len(files)-1]])/2], 0o644)
		os.WriteFile(filepath.Join(home, rel1), nil, 0o644)
		if st := ingestHome(t, s, home); st.FilesReread == 0 {
			t.Fatalf("seed %d: no file was read again", seed)
		}
		sameReports(t, s, "after rewrites")
	}
}

// TestRollupsAreRead checks that the reports the rollups can answer read
// them: a rollup changed behind the triggers' back changes the report.
func TestRollupsAreRead(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "usage.db")
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ingestHome(t, s, home)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) error { _, err := db.Exec(q); return err }
	fromRows, err := usage.BuildFromRows(context.Background(), s, usage.Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	for _, by := range []string{"day", "session", "model", "project"} {
		o := usage.Options{By: by, Now: fixedNow}
		before, err := usage.Build(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := exec(`UPDATE request_rollup SET output = output + 1`); err != nil {
			t.Fatal(err)
		}
		if err := exec(`UPDATE tool_rollup SET calls = calls + 1`); err != nil {
			t.Fatal(err)
		}
		after, err := usage.Build(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		if after.Totals.Tokens.Output <= before.Totals.Tokens.Output || after.Totals.ToolCalls <= before.Totals.ToolCalls {
			t.Errorf("by %s: the report did not read the rollups", by)
		}
		rows, err := usage.BuildFromRows(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		if rows.Totals.Tokens.Output != fromRows.Totals.Tokens.Output {
			t.Errorf("by %s: the rows' report read the rollups", by)
		}
	}
	for _, by := range []string{"server", "tool"} {
		o := usage.Options{By: by, Now: fixedNow}
		before, err := usage.Build(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := exec(`UPDATE tool_use_rollup SET calls = calls + 1, max_result = max_result + 1`); err != nil {
			t.Fatal(err)
		}
		after, err := usage.Build(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(after.Tools) == 0 || after.Totals.ToolCalls <= before.Totals.ToolCalls || after.Tools[0].MaxResultTokens <= before.Tools[0].MaxResultTokens {
			t.Errorf("by %s: the report did not read the rollups", by)
		}
		rows, err := usage.BuildFromRows(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		if rows.Totals.ToolCalls != fromRows.Totals.ToolCalls {
			t.Errorf("by %s: the rows' report read the rollups", by)
		}
	}
	// A sum past an int64 (a real in SQLite) is read from the rows.
	if err := exec(`UPDATE request_rollup SET input = 1e19`); err != nil {
		t.Fatal(err)
	}
	o := usage.Options{By: "day", Now: fixedNow}
	got, err := usage.Build(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	want, err := usage.BuildFromRows(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	if got.Totals.Tokens != want.Totals.Tokens || got.Totals.Requests != want.Totals.Requests {
		t.Errorf("a rollup past an int64 was read: %+v, want %+v", got.Totals.Tokens, want.Totals.Tokens)
	}
	if err := exec(`UPDATE tool_use_rollup SET result_tokens = 1e19`); err != nil {
		t.Fatal(err)
	}
	o = usage.Options{By: "server", Now: fixedNow}
	if got, err = usage.Build(context.Background(), s, o); err != nil {
		t.Fatal(err)
	}
	if want, err = usage.BuildFromRows(context.Background(), s, o); err != nil {
		t.Fatal(err)
	}
	if got.Totals.ResultTokens != want.Totals.ResultTokens || got.Totals.ToolCalls != want.Totals.ToolCalls {
		t.Errorf("a tool rollup past an int64 was read: %+v, want %+v", got.Totals, want.Totals)
	}
}

// TestMigratedStoreReports ingests part of a tree into a store of the
// schema before the rollups, opens it again (which adds them from its
// rows), ingests the rest, and checks its reports against a fresh
// ingest's.
func TestMigratedStoreReports(t *testing.T) {
	full := t.TempDir()
	o := transcripttest.Small()
	o.Quirks = true
	if _, err := transcripttest.Generate(full, o); err != nil {
		t.Fatal(err)
	}
	fresh, err := store.Open(filepath.Join(t.TempDir(), "fresh.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	ingestHome(t, fresh, full)

	path := filepath.Join(t.TempDir(), "old.db")
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// The schema before the rollups (their migrations are 006, 007,
	// which leaves out the tool calls' lost copies, and 010, by server and
	// tool; 008, machines and pushes, 009, usage limits, and 011, their
	// push, are undone too: dropping usage_limits and push_state undoes
	// 011).
	var undo008 []string
	for _, tbl := range []string{"requests", "tool_calls", "sessions", "compactions"} {
		undo008 = append(undo008, `DROP TRIGGER push_dirty_`+tbl, `DROP TRIGGER push_drop_`+tbl,
			`ALTER TABLE `+tbl+` DROP COLUMN machine`, `ALTER TABLE `+tbl+` DROP COLUMN os_user`)
	}
	undo008 = append(undo008, `DROP TRIGGER push_rekey_requests`, `DROP TABLE push_dirty`, `DROP TABLE push_state`)
	if store.SchemaVersion() != 11 {
		t.Fatalf("schema version %d: undo the migrations after 007 here too", store.SchemaVersion())
	}
	for _, q := range append(undo008, []string{
		`DROP TRIGGER request_rollup_add`, `DROP TRIGGER request_rollup_remove`, `DROP TRIGGER request_rollup_update_remove`,
		`DROP TRIGGER request_rollup_update_add`, `DROP TRIGGER tool_rollup_add`, `DROP TRIGGER tool_rollup_remove`,
		`DROP TRIGGER tool_rollup_update_remove`, `DROP TRIGGER tool_rollup_update_add`,
		`DROP TRIGGER tool_use_rollup_add`, `DROP TRIGGER tool_use_rollup_remove`, `DROP TRIGGER tool_use_rollup_update_remove`,
		`DROP TRIGGER tool_use_rollup_update_add`, `DROP TABLE tool_use_rollup`,
		`DROP TABLE request_rollup`, `DROP TABLE tool_rollup`, `DROP TABLE usage_limits`, `PRAGMA user_version = 5`,
		// Not empty, so that this mcpcost's ingest does not take the path
		// of a first ingest, which would need the rollups.
		`INSERT INTO files (path, source) VALUES ('/nonexistent/old.jsonl', 'claude')`,
	}...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	home := t.TempDir()
	rnd := rand.New(rand.NewPCG(3, 5))
	rests := map[string][]byte{}
	for _, p := range treeFiles(t, full) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cut := rnd.IntN(len(b) + 1)
		rel, _ := filepath.Rel(full, p)
		dst := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		os.WriteFile(dst, b[:cut], 0o644)
		rests[dst] = b[cut:]
	}
	ingestHome(t, s, home)
	s.Close()

	s, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for dst, rest := range rests {
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(rest)
		f.Close()
	}
	ingestHome(t, s, home)
	for _, o := range reportCases(t) {
		got, err := usage.Build(context.Background(), s, o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := usage.Build(context.Background(), fresh, o)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := reportJSON(t, got), reportJSON(t, want); g != w {
			t.Fatalf("by %s, mode %s, %s, %v to %v: the migrated store gives\n%s\na fresh ingest\n%s", o.By, o.Mode, o.Location, o.Since, o.Until, g, w)
		}
	}
}

// TestDeferredRollupsRead checks that a store whose rollups wait to be
// filled in (a first ingest was interrupted), read without writing,
// gives the reports of its rows: its tool call totals too, though its
// tool call rollups are empty.
func TestDeferredRollupsRead(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "usage.db")
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ingestHome(t, s, home)
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`DELETE FROM request_rollup; DELETE FROM tool_rollup; DELETE FROM tool_use_rollup;
		INSERT INTO meta (key, value) VALUES ('rollups_deferred', x'01')`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, by := range []string{"day", "week", "month", "model", "session"} {
		o := usage.Options{By: by, Now: fixedNow}
		got, err := usage.Build(context.Background(), ro, o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := usage.BuildFromRows(context.Background(), ro, o)
		if err != nil {
			t.Fatal(err)
		}
		if got.Totals.ToolCalls == 0 {
			t.Fatalf("by %s: no tool calls", by)
		}
		if g, w := reportJSON(t, got), reportJSON(t, want); g != w {
			t.Fatalf("by %s: the store gives\n%s\nits rows\n%s", by, g, w)
		}
	}
}
