package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// readWhole reads a file that its agent rewrites rather than appends to
// (a Gemini CLI chat: a JSON document rewritten on every turn, or a JSONL
// file whose later lines replace earlier ones; an opencode message, part
// or database), whole, each time it has
// changed: the file's rows are dropped and written again in the same
// transaction as its first batch. An unchanged file is not opened (see
// Ingest: its size, time and edges are those stored).
func (s *Store) readWhole(ctx context.Context, j *job, o IngestOptions, out chan<- *batch) {
	fail := func(err error) {
		out <- &batch{job: j, failed: true, warnings: []string{fmt.Sprintf("%s: %v", j.file.Path, err)}}
	}
	reset := j.row != nil
	lines := 0
	// A batch's lines are the file's so far, its startLines those of the
	// batches before it: the writer adds the difference to the stats.
	newBatch := func(first bool) *batch {
		return &batch{job: j, first: first, reset: first && reset, startLines: lines, calls: map[string]*toolRow{}}
	}
	b := newBatch(true)
	var size int64
	var hash []byte
	opened, openMtime := false, int64(0)
	send := func(last bool) bool {
		b.last = last
		b.lines = lines
		if last {
			b.offset = size
			b.bytes = size
			// Read again whole whenever it changed: only its edges, its
			// time (and a database's log) tell that.
			b.edgeHash = hash
			b.opened, b.openSize, b.openMtime = opened, size, openMtime
		}
		select {
		case out <- b:
		case <-ctx.Done():
			return false
		}
		return !j.abort.Load()
	}
	stop := errors.New("stop")
	add := func(it transcript.Item) error {
		lines = max(lines, it.Line)
		if it.Err != nil {
			b.corrupt++
			b.warnings = append(b.warnings, (&transcript.LineError{Path: j.file.Path, Line: it.Line, Err: it.Err}).Error())
			return nil
		}
		rec := it.Rec
		if rec.Warning != "" {
			b.warnings = append(b.warnings, (&transcript.LineError{Path: j.file.Path, Line: it.Line, Err: errors.New(rec.Warning)}).Error())
		}
		hashes := s.finishRecord(rec, o.Count)
		s.addTools(b, j.file.Source, it.Line, rec, hashes)
		if rec.Request != nil {
			b.recs = append(b.recs, lineRec{it.Line, rec})
		}
		for _, r := range it.More {
			s.addTools(b, j.file.Source, it.Line, r, s.finishRecord(r, o.Count))
		}
		if len(b.recs)+len(b.calls) >= batchRecords {
			if !send(false) {
				return stop
			}
			b = newBatch(false)
		}
		return nil
	}
	if j.file.Source == transcript.Opencode && strings.HasSuffix(j.file.Path, ".db") {
		// Taken before the read: a write while it reads changes the
		// database's time since, and the next ingest reads it again.
		hash = changeHash(j.file, j.size)
		// Its rows are batched as they are read, none held after its
		// batch: a database is as large as its history. A read that
		// fails part way leaves the file to be read again, whole, by the
		// next ingest (its row has no size), as a run killed part way.
		err := s.scanDBGuarded(ctx, j.file.Path, add)
		if err == stop {
			return
		}
		if err != nil {
			fail(err)
			return
		}
		size = j.size
	} else {
		// A Gemini CLI chat's items are batched as they are read, none
		// held after its batch, nor its bytes (see transcript.ScanGemini).
		f, fi, err := openWhole(j.file.Path)
		if err != nil {
			fail(err)
			return
		}
		defer f.Close()
		size = fi.Size()
		// What is stored of the file is what it was when it was opened:
		// its size, its time and its edges. A rewrite while it is read,
		// or since, changes its time (its edges perhaps), and the next
		// ingest reads it again.
		opened, openMtime = true, fi.ModTime().UnixNano()
		hash = changeHash(j.file, size)
		err = s.readWholeGuarded(j.file, f, size, fi.ModTime().UTC(), add)
		testOnlyWhileRead(j.file.Path)
		if err == stop {
			return
		}
		if err != nil {
			fail(err)
			return
		}
	}
	send(true)
}

// testOnlyWhileRead is called once a file read whole has been read, for
// the test of a file rewritten meanwhile.
var testOnlyWhileRead = func(path string) {}

// openWhole opens a file to read whole: a regular file (see
// transcript.OpenFile) of at most transcript.MaxLine bytes.
func openWhole(path string) (*os.File, os.FileInfo, error) {
	f, fi, err := transcript.OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() > transcript.MaxLine {
		f.Close()
		return nil, nil, fmt.Errorf("%d bytes, over the %d read whole; skipped", fi.Size(), int64(transcript.MaxLine))
	}
	return f, fi, nil
}

// readWholeGuarded reads the first size bytes of a file with its
// source's reader, passing its items to fn. A panic of the reader is an
// item's error rather than the ingest's: the read ends there, the items
// before it kept.
func (s *Store) readWholeGuarded(f transcript.File, r io.ReaderAt, size int64, mtime time.Time, fn func(transcript.Item) error) (err error) {
	line, inFn := 0, false
	defer func() {
		if v := recover(); v != nil {
			if inFn {
				panic(v) // fn's, not the reader's
			}
			err = fn(transcript.Item{Line: line + 1, Err: panicError(v)})
		}
	}()
	count := func(it transcript.Item) error {
		line = max(line, it.Line)
		inFn = true
		err := fn(it)
		inFn = false
		return err
	}
	if f.Source == transcript.Opencode {
		data := make([]byte, size)
		n, err := io.ReadFull(io.NewSectionReader(r, 0, size), data)
		if err != nil && err != io.ErrUnexpectedEOF {
			return err
		}
		for _, it := range transcript.ReadOpencodeFile(data[:n], f.Path) {
			if err := count(it); err != nil {
				return err
			}
		}
		return nil
	}
	return transcript.ScanGemini(r, size, f.Path, f.SessionID, mtime, count)
}

// scanDBGuarded reads an agent's database, passing its items to fn, a
// panic being its error.
func (s *Store) scanDBGuarded(ctx context.Context, path string, fn func(transcript.Item) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError(v)
		}
	}()
	return transcript.ScanOpencodeDB(ctx, path, fn)
}

// changeHash is what tells that a file read whole changed: its edges (see
// edgeHash) and, for a database, its modification time and the size and
// time of its write-ahead log, which holds what was written since the
// last checkpoint. A database's pages are rewritten in place, a row in
// the middle of the file as well as anywhere else, and in WAL mode its
// header stays as it was: its edges alone cannot tell.
func changeHash(f transcript.File, offset int64) []byte {
	h := edgeHash(f.Path, offset)
	if h == nil || !strings.HasSuffix(f.Path, ".db") {
		return h
	}
	fi, err := os.Stat(f.Path)
	if err != nil {
		return nil
	}
	h = fmt.Appendf(h, "\x00%d", fi.ModTime().UnixNano())
	if fi, err := os.Stat(f.Path + "-wal"); err == nil {
		h = fmt.Appendf(h, "\x00%d\x00%d", fi.Size(), fi.ModTime().UnixNano())
	}
	sum := sha256.Sum256(h)
	return sum[:]
}
