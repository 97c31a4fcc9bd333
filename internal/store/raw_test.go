package store

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
)

// TestRawRowScans checks that a rawRow stores each kind of value SQLite
// returns as Scan stores it into each type the sums read, or fails with
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
		[]byte{}, []byte("1"), []byte("xyz")}
	for _, v := range values {
		if _, err := s.db.Exec(`INSERT INTO raw_values (v) VALUES (?)`, v); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT v FROM raw_values ORDER BY rowid`
	// What Scan stores, or its error, into each type, value by value.
	type got struct{ str, i64, i, f, b string }
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
	const q = `SELECT 1 AS a, 'x' AS b, NULL AS c, 2 AS d`
	var a, b, d int64
	var c float64
	err := s.db.QueryRow(q).Scan(&a, &b, &c, &d)
	var raw error
	var ra, rb, rd int64
	var rc float64
	if err := s.rawRows(context.Background(), q, nil, func(r *rawRow) (bool, error) {
		r.int64(0, &ra)
		r.int64(1, &rb)
		r.float(2, &rc)
		r.int64(3, &rd)
		raw = r.err
		return false, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err == nil || raw == nil || raw.Error() != err.Error() {
		t.Errorf("rawRow's error %v, Scan's %v", raw, err)
	}
	if rd != 0 {
		t.Errorf("rawRow stored column 3 (%d) past the error of column 1", rd)
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
