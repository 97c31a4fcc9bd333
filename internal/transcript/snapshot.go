package transcript

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
)

// copySnapshot copies the file at from (an agent's database, or its
// write-ahead log) to a new file at to, as it is at the moment it is
// opened: only a regular file, not on a pseudo file system nor under
// /proc, /sys or /dev, and at most the size it had then; its holes, and
// its runs of zeros, are holes in the copy (see copyData). It never blocks
// on a FIFO (opened without waiting for a writer) and never copies more
// than the file held: a link to /dev/zero or a FIFO is an error, not a
// copy that fills the disk or waits forever.
func copySnapshot(from, to string) error {
	in, fi, err := OpenFile(from)
	if _, ok := err.(notRead); ok {
		return fmt.Errorf("%s: %w", from, err)
	}
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := copyData(out, in, fi.Size()); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyData copies the first size bytes of in (fewer should it end
// before) to out, a new file, writing only what is not zeros: the holes
// of a sparse file (a database whose size is mostly holes) are skipped
// without being read, and runs of zeros that are read are left as holes
// in the copy, so that the copy takes the disk and the time of its data,
// not of its size. What it reads is the same bytes in the same places.
func copyData(out, in *os.File, size int64) error {
	buf := make([]byte, 1<<20)
	zeros := make([]byte, 4<<10)
	for off := int64(0); off < size; {
		start, end, ok := nextData(in, off, size)
		if !ok {
			break
		}
		for pos := start; pos < end; {
			n, err := in.ReadAt(buf[:min(int64(len(buf)), end-pos)], pos)
			if err := writeData(out, buf[:n], pos, zeros); err != nil {
				return err
			}
			pos += int64(n)
			if errors.Is(err, io.EOF) {
				return out.Truncate(pos) // it shrank since: what it held
			}
			if err != nil {
				return err
			}
		}
		off = end
	}
	if fi, err := in.Stat(); err == nil && fi.Size() < size {
		size = fi.Size() // it shrank since
	}
	return out.Truncate(size)
}

// writeData writes b at off in out, leaving out its blocks of zeros
// (len(zeros) bytes each).
func writeData(out *os.File, b []byte, off int64, zeros []byte) error {
	zero := func(i int) bool {
		e := min(len(b), i+len(zeros))
		return bytes.Equal(b[i:e], zeros[:e-i])
	}
	for i := 0; i < len(b); {
		if zero(i) {
			i = min(len(b), i+len(zeros))
			continue
		}
		j := i
		for j < len(b) && !zero(j) {
			j = min(len(b), j+len(zeros))
		}
		if _, err := out.WriteAt(b[i:j], off+int64(i)); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// plainTable returns an error unless the table name of db, where it
// exists, is an ordinary one: a view, a virtual table or a generated
// column computes its rows as they are read, as many and as large as it
// likes (a recursive view has no end), where an ordinary table's rows
// are bytes of the file. An agent's database read from the user's disk
// may be anyone's.
func plainTable(ctx context.Context, db *sql.DB, name string) error {
	var bad int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE lower(name) = lower(?)
		AND (type <> 'table' OR upper(ltrim(sql)) NOT LIKE 'CREATE TABLE%')`, name).Scan(&bad)
	if err == nil && bad == 0 {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_xinfo(?) WHERE hidden NOT IN (0, 1)`, name).Scan(&bad)
	}
	switch {
	case err != nil:
		return err
	case bad > 0:
		return fmt.Errorf("its %s is a view, a virtual table or a table of computed columns, whose rows could have no end; not read", name)
	}
	return nil
}
