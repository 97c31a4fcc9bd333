package store

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"iter"
	mrand "math/rand/v2"
	"reflect"
	"strings"
	"sync"

	"modernc.org/sqlite"
)

// rawQuery yields the rows of q that scan reads, each read through the
// driver itself (see rawRows), scan decoding its values as Scan would
// store them, and each with its session's project (place names the row's
// session and project) where it names none, when that project matches the
// filter project; every row as it is read without place (nil). An error
// ends the sequence.
func rawQuery[T any](ctx context.Context, s *Store, project, what, q string, args []any,
	scan func(*rawRow) (T, error), place func(*T) (string, *string)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		// The sessions' projects are read at the first row that names
		// none: most stores' rows all name theirs.
		var projects map[string]string
		var perr error
		var x T // one value for all rows, which place is given
		err := s.rawRows(ctx, q, args, func(r *rawRow) (more bool, err error) {
			if x, err = scan(r); err != nil {
				return false, err
			}
			if place != nil {
				key, p := place(&x)
				if *p == "" {
					if projects == nil {
						if projects, perr = s.projects(ctx); perr != nil {
							return false, nil
						}
					}
					*p = projects[key]
				}
				if !ProjectMatch(project, *p) {
					return true, nil
				}
			}
			return yield(x, nil), nil
		})
		var zero T
		switch {
		case perr != nil:
			yield(zero, perr)
		case err != nil:
			yield(zero, fmt.Errorf("reading %s: %w", what, err))
		}
	}
}

// rawRows calls each with each row of q, read on one of the pool's
// connections, until each returns false or an error (which rawRows
// returns). A report reads thousands of rollups of a dozen columns or
// more, and findings and a report by tool every tool call of twenty: this
// spares them, for each row, database/sql's locks and its conversion of
// each value through Scan, and the driver's calls that read a row's
// values one by one (two or three a value, each of which takes and frees
// the connection's mutex: most of the time a report spent reading). The
// values are handed instead to rowFunc, which SQLite calls with the whole
// row: q is read as
//
//	WITH mcpcost_rows(c1, ..., cN) AS (q) SELECT mcpcost_row(id, c1, ..., cN) FROM mcpcost_rows
//
// whose rows are q's, in q's order (a q with an ORDER BY is read as a
// co-routine, sorted before rowFunc sees its rows: TestRawRowsThroughRowFunc
// checks it), each value as the driver would have returned it (see
// rowValue).
func (s *Store) rawRows(ctx context.Context, q string, args []any, each func(*rawRow) (bool, error)) error {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		ci, ok2 := dc.(interface {
			ColumnInfo(query string) ([]sqlite.ColumnInfo, error)
		})
		if !ok || !ok2 {
			return errors.New("the driver cannot query a connection")
		}
		info, err := ci.ColumnInfo(q)
		if err != nil {
			return err
		}
		r := &rowReader{ctx: ctx, each: each}
		r.row.cols = make([]string, len(info))
		r.row.v = make([]driver.Value, len(info))
		var b strings.Builder
		b.WriteString("WITH mcpcost_rows(")
		for i, c := range info {
			r.row.cols[i] = c.Name
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "c%d", i+1)
		}
		id := newRowReader(r)
		defer rowReaders.Delete(id)
		fmt.Fprintf(&b, ") AS (%s\n) SELECT %s(%d", q, rowFunc, id)
		for i := range info {
			fmt.Fprintf(&b, ", c%d", i+1)
		}
		b.WriteString(") FROM mcpcost_rows")
		// The driver steps to the first row before it returns.
		rows, err := qc.QueryContext(ctx, b.String(), named)
		if err == nil {
			err = r.drain(rows)
			rows.Close()
		} else if r.done {
			err = r.err
		}
		if r.panicked != nil {
			panic(r.panicked)
		}
		return err
	})
}

// rowFunc is the SQL function through which rawRows reads a query's rows:
// its first argument names the rowReader, the others are a row's values.
const rowFunc = "mcpcost_row"

func init() {
	sqlite.MustRegisterFunction(rowFunc, &sqlite.FunctionImpl{
		NArgs:        -1,
		Scalar:       rowCall,
		VolatileArgs: true, // rowValue copies what it keeps
	})
}

// rowReaders are the rowReaders of the queries being read, by id.
var rowReaders sync.Map

// newRowReader registers r under a new id, random: the function is known
// to every connection of the driver, those that read Goose's and
// opencode's databases too, whose views and triggers must not reach the
// rows of another query.
func newRowReader(r *rowReader) int64 {
	for {
		id := mrand.Int64()
		if _, taken := rowReaders.LoadOrStore(id, r); !taken {
			return id
		}
	}
}

// A rowReader hands the rows of one rawRows query to its each.
type rowReader struct {
	ctx      context.Context
	each     func(*rawRow) (bool, error)
	row      rawRow
	done     bool  // each wants no more rows, or failed, or ctx is done
	err      error // then each's error, or ctx's
	panicked any   // each's panic, raised again once the query is closed
}

// errRowsDone ends the query of a rowReader that is done.
var errRowsDone = errors.New("rows read")

// rowCall is rowFunc: it hands a row to its rowReader's each, and returns
// NULL, or an error that ends the query once the reader is done.
func rowCall(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	// Any query may call it (a view of a database read from the user's
	// disk too), with any arguments: a panic here would unwind through
	// SQLite's frames.
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: no query named", rowFunc)
	}
	id, _ := args[0].(int64)
	v, ok := rowReaders.Load(id)
	if !ok {
		return nil, fmt.Errorf("%s: no query reads rows %d", rowFunc, id)
	}
	r := v.(*rowReader)
	if len(args)-1 != len(r.row.v) {
		return nil, fmt.Errorf("%s: %d values for a row of %d", rowFunc, len(args)-1, len(r.row.v))
	}
	if r.done {
		return nil, errRowsDone
	}
	// As database/sql's rows, which end once ctx is done.
	if err := r.ctx.Err(); err != nil {
		r.done, r.err = true, err
		return nil, errRowsDone
	}
	for i, a := range args[1:] {
		r.row.v[i] = rowValue(a)
	}
	r.row.err = nil
	if !r.call() {
		return nil, errRowsDone
	}
	return nil, nil
}

// call calls each with the row, and reports whether it wants the next.
func (r *rowReader) call() (more bool) {
	defer func() {
		if p := recover(); p != nil {
			// Not through SQLite's frames: they would be left holding
			// the connection's mutex.
			r.done, r.panicked = true, p
			more = false
		}
	}()
	more, err := r.each(&r.row)
	if err != nil || !more {
		r.done, r.err = true, err
		return false
	}
	return true
}

// drain steps through the query's rows (each already read by rowCall),
// returning the reader's error once it is done, or the query's.
func (r *rowReader) drain(rows driver.Rows) error {
	dest := make([]driver.Value, 1)
	for {
		if !r.done {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		err := rows.Next(dest)
		if r.done {
			return r.err
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// rowValue is v, an argument of rowFunc, as the driver returns the same
// value of a column: a string or bytes of its own (v is SQLite's memory),
// and nil for an empty BLOB. The driver's times of DATE, DATETIME and
// TIMESTAMP columns are not made: the store declares none.
func rowValue(v driver.Value) driver.Value {
	switch x := v.(type) {
	case string:
		return strings.Clone(x)
	case []byte:
		if len(x) == 0 {
			return []byte(nil)
		}
		return bytes.Clone(x)
	}
	return v
}

// A rawRow is one row of rawRows: its values as the driver returns them.
// Its methods store them as [sql.Rows.Scan] stores them, or remember the
// error Scan would return, of the first column that failed; a row's
// columns are to be read in order.
type rawRow struct {
	cols []string
	v    []driver.Value
	err  error
}

func (r *rawRow) fail(i int, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("sql: Scan error on column index %d, name %q: %w", i, r.cols[i], err)
	}
}

// str stores column i in d.
func (r *rawRow) str(i int, d *string) {
	if v, ok := r.v[i].(string); ok && r.err == nil {
		*d = v
		return
	}
	rawScan(r, i, d)
}

// int64 stores column i in d.
func (r *rawRow) int64(i int, d *int64) {
	if v, ok := r.v[i].(int64); ok && r.err == nil {
		*d = v
		return
	}
	rawScan(r, i, d)
}

// int stores column i in d.
func (r *rawRow) int(i int, d *int) {
	if v, ok := r.v[i].(int64); ok && r.err == nil && int64(int(v)) == v {
		*d = int(v)
		return
	}
	rawScan(r, i, d)
}

// float stores column i in d.
func (r *rawRow) float(i int, d *float64) {
	if v, ok := r.v[i].(float64); ok && r.err == nil {
		*d = v
		return
	}
	rawScan(r, i, d)
}

// bool stores column i in d.
func (r *rawRow) bool(i int, d *bool) {
	if v, ok := r.v[i].(int64); ok && (v == 0 || v == 1) && r.err == nil {
		*d = v == 1
		return
	}
	if r.err != nil {
		return
	}
	b, err := driver.Bool.ConvertValue(r.v[i])
	if err != nil {
		r.fail(i, err)
		return
	}
	*d = b.(bool)
}

// bytes stores column i in d: nil for a NULL.
func (r *rawRow) bytes(i int, d *[]byte) {
	if r.err != nil {
		return
	}
	switch v := r.v[i].(type) {
	case nil:
		*d = nil
		return
	case []byte:
		// Scan stores a copy: a driver may reuse the value's bytes.
		*d = bytes.Clone(v)
		return
	}
	rawScan(r, i, d)
}

// nullInt64 stores column i in d.
func (r *rawRow) nullInt64(i int, d *sql.NullInt64) {
	if v, ok := r.v[i].(int64); ok && r.err == nil {
		*d = sql.NullInt64{Int64: v, Valid: true}
		return
	}
	r.scanner(i, d)
}

// nullFloat64 stores column i in d.
func (r *rawRow) nullFloat64(i int, d *sql.NullFloat64) {
	if v, ok := r.v[i].(float64); ok && r.err == nil {
		*d = sql.NullFloat64{Float64: v, Valid: true}
		return
	}
	r.scanner(i, d)
}

// scanner stores column i in d: Scan gives a Scanner the value itself,
// NULL included.
func (r *rawRow) scanner(i int, d sql.Scanner) {
	if r.err != nil {
		return
	}
	if err := d.Scan(r.v[i]); err != nil {
		r.fail(i, err)
	}
}

// ints stores columns i, i+1, ... in dst, as rollupInts stores them.
func (r *rawRow) ints(i int, dst ...*int64) error {
	for j, d := range dst {
		n, ok := r.v[i+j].(int64)
		if !ok {
			return ErrNoRollup
		}
		*d = n
	}
	return nil
}

// rawScan stores column i in d as Scan does, for the values that rawRow's
// methods do not store themselves: a NULL, or a value of another type.
func rawScan[T any](r *rawRow, i int, d *T) {
	if r.err != nil {
		return
	}
	v := r.v[i]
	if v == nil {
		r.fail(i, fmt.Errorf("converting NULL to %s is unsupported", reflect.TypeFor[T]().Kind()))
		return
	}
	// A Null's Scan of a value is Scan's conversion.
	var n sql.Null[T]
	if err := n.Scan(v); err != nil {
		r.fail(i, err)
		return
	}
	*d = n.V
}
