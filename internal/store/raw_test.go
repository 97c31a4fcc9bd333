package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
)

// TestRawRowScans checks that a rawRow stores each kind of value SQLite
// returns as Scan stores it into each type the queries read, or fails with
// Scan's error.
func TestRawRowScans(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ctx := context.Background()
	// A column without a type keeps every value as it is given.
	if _, err := s.db.Exec(`CREATE TABLE raw_values (v)`); err != nil {
		t.Fatal(err)
	}
	values := []any{nil, int64(0), int64(1), int64(2), int64(-1), int64(300), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, 1.0, 3.0, 1.5, -2.0, 1e19, -1e300, float64(1 << 53), "", "0", "1", "12", "1.5", "abc", " 7", "true",
		[]byte{}, []byte("1"), []byte("xyz"), []byte{0, 0xff, 7}}
	for _, v := range values {
		if _, err := s.db.Exec(`INSERT INTO raw_values (v) VALUES (?)`, v); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT v FROM raw_values ORDER BY rowid`
	// What Scan stores, or its error, into each type, value by value.
	type got struct{ str, i64, i, f, b, bs, ni, nf string }
	show := func(v any, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%T %#v", v, v)
	}
	var want []got
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g got
		var str string
		var i64 int64
		var i int
		var f float64
		var b bool
		var bs []byte
		var ni sql.NullInt64
		var nf sql.NullFloat64
		err := rows.Scan(&str)
		g.str = show(str, err)
		err = rows.Scan(&i64)
		g.i64 = show(i64, err)
		err = rows.Scan(&i)
		g.i = show(i, err)
		err = rows.Scan(&f)
		g.f = show(f, err)
		err = rows.Scan(&b)
		g.b = show(b, err)
		err = rows.Scan(&bs)
		g.bs = show(bs, err)
		err = rows.Scan(&ni)
		g.ni = show(ni, err)
		err = rows.Scan(&nf)
		g.nf = show(nf, err)
		want = append(want, g)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var have []got
	err = s.rawRows(ctx, q, nil, func(r *rawRow) (bool, error) {
		var g got
		var str string
		var i64 int64
		var i int
		var f float64
		var b bool
		var bs []byte
		var ni sql.NullInt64
		var nf sql.NullFloat64
		r.str(0, &str)
		g.str = show(str, r.err)
		r.err = nil
		r.int64(0, &i64)
		g.i64 = show(i64, r.err)
		r.err = nil
		r.int(0, &i)
		g.i = show(i, r.err)
		r.err = nil
		r.float(0, &f)
		g.f = show(f, r.err)
		r.err = nil
		r.bool(0, &b)
		g.b = show(b, r.err)
		r.err = nil
		r.bytes(0, &bs)
		g.bs = show(bs, r.err)
		r.err = nil
		r.nullInt64(0, &ni)
		g.ni = show(ni, r.err)
		r.err = nil
		r.nullFloat64(0, &nf)
		g.nf = show(nf, r.err)
		have = append(have, g)
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(have) != len(want) {
		t.Fatalf("rawRows read %d rows, Scan %d", len(have), len(want))
	}
	for i := range want {
		if have[i] != want[i] {
			t.Errorf("value %#v:\n rawRow %+v\n Scan   %+v", values[i], have[i], want[i])
		}
	}
}

// TestRawRowFirstError checks that a rawRow keeps the error of the first
// column that fails, as Scan returns it, and stores nothing after it.
func TestRawRowFirstError(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	const q = `SELECT 1 AS a, 'x' AS b, NULL AS c, 2 AS d, x'01' AS e, 3 AS f, 4.5 AS g`
	var a, b, d int64
	var c float64
	var e []byte
	var f sql.NullInt64
	var g sql.NullFloat64
	err := s.db.QueryRow(q).Scan(&a, &b, &c, &d, &e, &f, &g)
	var raw error
	var ra, rb, rd int64
	var rc float64
	var re []byte
	var rf sql.NullInt64
	var rg sql.NullFloat64
	if err := s.rawRows(context.Background(), q, nil, func(r *rawRow) (bool, error) {
		r.int64(0, &ra)
		r.int64(1, &rb)
		r.float(2, &rc)
		r.int64(3, &rd)
		r.bytes(4, &re)
		r.nullInt64(5, &rf)
		r.nullFloat64(6, &rg)
		raw = r.err
		return false, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err == nil || raw == nil || raw.Error() != err.Error() {
		t.Errorf("rawRow's error %v, Scan's %v", raw, err)
	}
	if rd != 0 || re != nil || rf.Valid || rg.Valid {
		t.Errorf("rawRow stored columns 3 to 6 (%d, %v, %v, %v) past the error of column 1", rd, re, rf, rg)
	}
}

// TestRawRowsContext checks that rawRows ends with the context's error
// once it is done, as database/sql's rows do.
func TestRawRowsContext(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := s.rawRows(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT x FROM c`, nil,
		func(r *rawRow) (bool, error) {
			if n++; n == 3 {
				cancel()
			}
			return true, nil
		})
	if err != context.Canceled || n != 3 {
		t.Errorf("rawRows read %d rows and returned %v, want 3 and %v", n, err, context.Canceled)
	}
}

// TestToolDaySumsHere checks that the tool call rollups summed as they
// are read give what ToolDaySums' query gives, in its order, and that
// values the rollups do not hold leave them to the query.
func TestToolDaySumsHere(t *testing.T) {
	const hour = 3600000
	base := int64(1767225600000) // 2026-01-01T00:00:00Z
	spans := [][]ZoneSpan{
		nil,
		{{From: base, Offset: 0}},
		{{From: base, Offset: 5*hour + 45*60000}},
		{{From: base, Offset: -5 * hour}, {From: base + 70*hour, Offset: -4 * hour}, {From: base + 150*hour, Offset: -5 * hour}},
		{{From: base, Offset: 2 * hour}, {From: base + 22*hour, Offset: 0}}, // a change at local midnight
	}
	type row struct {
		bucket     any
		mcp        any
		calls      any
		errs       any
		tokens     any
		source, id string
	}
	var plain []row
	for i := range 200 {
		plain = append(plain, row{base - 30*hour + int64(i*37%300)*900000, int64(i % 2), int64(i % 7), int64(i % 3), int64(i * 1001), "claude", fmt.Sprint("s", i%9)})
	}
	cases := []struct {
		name string
		rows []row
		here bool // summed as read, not by the query
	}{
		{"none", nil, true},
		{"plain", plain, true},
		{"overflow", append(slices.Clone(plain), row{base, int64(1), int64(1), int64(0), int64(math.MaxInt64 - 10), "codex", "x"}), true},
		{"real", append(slices.Clone(plain), row{base, int64(1), 1.5, int64(0), int64(1), "codex", "x"}), false},
		{"big real", append(slices.Clone(plain), row{base, int64(0), int64(1), int64(0), 1e19, "codex", "x"}), false},
		{"text", append(slices.Clone(plain), row{base, int64(0), "a", int64(0), int64(1), "codex", "x"}), false},
		{"negative", append(slices.Clone(plain), row{base, int64(0), int64(-1), int64(0), int64(1), "codex", "x"}), false},
		{"mcp 2", append(slices.Clone(plain), row{base, int64(2), int64(1), int64(0), int64(1), "codex", "x"}), false},
		{"real bucket", append(slices.Clone(plain), row{float64(base) + 0.5, int64(0), int64(1), int64(0), int64(1), "codex", "x"}), false},
		{"least bucket", append(slices.Clone(plain), row{int64(math.MinInt64 + 1000), int64(0), int64(1), int64(0), int64(1), "codex", "x"}, row{int64(math.MinInt64 + 900000), int64(1), int64(1), int64(0), int64(1), "codex", "y"}), false},
		{"early bucket", append(slices.Clone(plain), row{int64(-86400000*3 - 900000), int64(0), int64(1), int64(0), int64(1), "codex", "x"}), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			ctx := context.Background()
			for _, r := range tc.rows {
				if _, err := s.db.Exec(`INSERT INTO tool_rollup (bucket, source, session_id, agent_file, project, mcp, calls, errors, result_tokens)
					VALUES (?, ?, ?, '', '', ?, ?, ?, ?)`, r.bucket, r.source, r.id, r.mcp, r.calls, r.errs, r.tokens); err != nil {
					t.Fatal(err)
				}
			}
			where, args, err := s.rollupWhere(ctx, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, z := range spans {
				var want, have []string
				s.toolDaySumsSQL(ctx, where, slices.Clone(args), z, func(x ToolDaySum, err error) bool {
					want = append(want, fmt.Sprintf("%+v %v", x, err))
					return true
				})
				for x, err := range s.ToolDaySums(ctx, Filter{}, z) {
					have = append(have, fmt.Sprintf("%+v %v", x, err))
				}
				if !slices.Equal(have, want) {
					t.Errorf("spans %v:\n ToolDaySums %q\n its query   %q", z, have, want)
				}
				if _, here, _ := s.toolDaySumsHere(ctx, where, args, z); here != (tc.here || z == nil && tc.name == "least bucket") {
					t.Errorf("spans %v: summed as read %v, want %v", z, here, tc.here)
				}
			}
		})
	}
}

// TestRawRowsThroughRowFunc checks that the rows rawRows hands over
// through rowFunc are the query's, in its order, each value as the
// driver returns it (texts with a NUL, empty and NULL blobs), and that
// no reader is left registered, nor the connection unusable, after a
// break, an error, a panic or a cancelled context.
func TestRawRowsThroughRowFunc(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	s.db.SetMaxOpenConns(1) // every read on the same connection
	ctx := context.Background()
	if _, err := s.db.Exec(`CREATE TABLE rf (k INTEGER, v)`); err != nil {
		t.Fatal(err)
	}
	vals := []any{"a\x00b", []byte{}, nil, []byte("x\x00"), "", 1.5, int64(-3)}
	for i := range 40 {
		if _, err := s.db.Exec(`INSERT INTO rf (k, v) VALUES (?, ?)`, (i*7)%40, vals[i%len(vals)]); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{
		`SELECT k, v FROM rf`,
		`SELECT k, v, typeof(v) FROM rf ORDER BY k DESC`,
		`SELECT k % 5 AS g, count(*), group_concat(k) FROM rf GROUP BY g ORDER BY g DESC`,
		`SELECT k, v FROM rf ORDER BY k LIMIT 7 OFFSET 3`,
		`SELECT k FROM rf WHERE k < 5 UNION ALL SELECT k FROM rf WHERE k > 35`,
		`WITH mcpcost_rows(x) AS (SELECT 1) SELECT x, 'shadowed' FROM mcpcost_rows`,
	}
	for _, q := range queries {
		var want [][]any
		rows, err := s.db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			row := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range row {
				ptrs[i] = &row[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			want = append(want, row)
		}
		rows.Close()
		var have [][]any
		err = s.rawRows(ctx, q, nil, func(r *rawRow) (bool, error) {
			if !slices.Equal(r.cols, cols) {
				t.Errorf("%s: columns %q, want %q", q, r.cols, cols)
			}
			row := make([]any, len(r.v))
			for i, v := range r.v {
				row[i] = v
			}
			have = append(have, row)
			return true, nil
		})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if fmt.Sprintf("%#v", have) != fmt.Sprintf("%#v", want) {
			t.Errorf("%s:\n rawRows %#v\n Scan    %#v", q, have, want)
		}
	}
	failed := fmt.Errorf("a failed row")
	ctx2, cancel := context.WithCancel(ctx)
	ends := []struct {
		name string
		ctx  context.Context
		each func(n int) (bool, error)
		want error
	}{
		{"break", ctx, func(n int) (bool, error) { return n < 3, nil }, nil},
		{"error", ctx, func(n int) (bool, error) { return true, map[bool]error{true: failed}[n == 2] }, failed},
		{"cancel", ctx2, func(n int) (bool, error) {
			if n == 4 {
				cancel()
			}
			return true, nil
		}, context.Canceled},
		{"panic", ctx, func(n int) (bool, error) {
			if n == 5 {
				panic("a panic")
			}
			return true, nil
		}, nil},
	}
	for _, e := range ends {
		n := 0
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil && e.name != "panic" {
					t.Errorf("%s: panic %v", e.name, p)
				}
			}()
			err = s.rawRows(e.ctx, `SELECT k FROM rf`, nil, func(*rawRow) (bool, error) {
				n++
				return e.each(n)
			})
		}()
		if err != e.want {
			t.Errorf("%s: rawRows returned %v after %d rows, want %v", e.name, err, n, e.want)
		}
		left := 0
		rowReaders.Range(func(any, any) bool { left++; return true })
		if left != 0 {
			t.Errorf("%s: %d readers left registered", e.name, left)
		}
		var c int
		if err := s.db.QueryRow(`SELECT count(*) FROM rf`).Scan(&c); err != nil || c != 40 {
			t.Errorf("%s: the connection then counts %d rows (%v)", e.name, c, err)
		}
		if u := s.db.Stats().InUse; u != 0 {
			t.Errorf("%s: %d connections in use", e.name, u)
		}
	}
}

// TestRowFuncElsewhere checks that rowFunc, which every connection of the
// driver knows (those reading Goose's and opencode's databases too), hands
// nothing to a read in progress when another query calls it: a reader's
// id is not guessed.
func TestRowFuncElsewhere(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	n := 0
	err := s.rawRows(context.Background(), `SELECT 1 UNION ALL SELECT 2`, nil, func(r *rawRow) (bool, error) {
		n++
		if n > 1 {
			return true, nil
		}
		for id := range 2000 {
			var v any
			err := s.db.QueryRow(fmt.Sprintf(`SELECT %s(%d, 'from elsewhere')`, rowFunc, id)).Scan(&v)
			if err == nil {
				t.Fatalf("%s(%d, ...) from another query: no error", rowFunc, id)
			}
		}
		return true, nil
	})
	if err != nil || n != 2 {
		t.Errorf("rawRows read %d rows (want 2), returned %v", n, err)
	}
}

// TestRowFuncArguments checks that rowFunc called with no arguments, as a
// view of a database from the user's disk may call it, or with a reader's
// id but not a row of its query, fails rather than panics.
func TestRowFuncArguments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf(`CREATE VIEW messages(id, content) AS SELECT %s(), '{}'`, rowFunc)); err != nil {
		t.Fatal(err)
	}
	var id, content any
	if err := db.QueryRow(`SELECT id, content FROM messages`).Scan(&id, &content); err == nil {
		t.Errorf("%s(): no error", rowFunc)
	}
	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	n := 0
	err = s.rawRows(context.Background(), `SELECT 1, 2 UNION ALL SELECT 3, 4`, nil, func(r *rawRow) (bool, error) {
		n++
		rowReaders.Range(func(k, _ any) bool {
			for _, more := range []string{"", ", 1", ", 1, 2, 3"} {
				var v any
				if err := db.QueryRow(fmt.Sprintf(`SELECT %s(%d%s)`, rowFunc, k, more)).Scan(&v); err == nil {
					t.Errorf("%s(%d%s): no error", rowFunc, k, more)
				}
			}
			return true
		})
		return true, nil
	})
	if err != nil || n != 2 {
		t.Errorf("rawRows read %d rows (want 2), returned %v", n, err)
	}
}
