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
	"reflect"
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
// connections through the driver, until each returns false or an error
// (which rawRows returns). A report reads thousands of rollups of a
// dozen columns or more, and findings and a report by tool every tool
// call of twenty: this spares them, for each row, database/sql's locks
// and its conversion of each value through Scan.
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
		if !ok {
			return errors.New("the driver cannot query a connection")
		}
		rows, err := qc.QueryContext(ctx, q, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		r := rawRow{cols: rows.Columns()}
		r.v = make([]driver.Value, len(r.cols))
		for {
			// As database/sql's rows, which end once ctx is done.
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := rows.Next(r.v); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			r.err = nil
			if more, err := each(&r); err != nil || !more {
				return err
			}
		}
	})
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
