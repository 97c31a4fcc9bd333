// Package store keeps what mcpcost learns from transcripts in SQLite
// (modernc.org/sqlite, pure Go): requests with their token usage, tool
// calls with their results, sessions, compactions, and how far each
// transcript file has been read.
//
// The schema comes from migrations embedded in the binary. Files are read
// by byte offset, so a second ingest reads only new bytes; each batch of
// lines is written in one transaction together with the file's new
// offset, so a crash loses nothing and never counts twice. Two processes
// may ingest at once: SQLite's locking serialises their writes, a lease
// makes the second wait for the first (or take over at once from one
// that was killed), and every batch checks that the file's offset is
// still the one it started from, so no line is counted twice whatever the
// timing. Readers open the store with OpenReadOnly, which writes nothing.
//
// What counts as new in a file depends on its bytes, never on its times.
// A last line without its newline is read when it is a whole JSON object
// (as ccusage reads it), and the newline written after it later is not a
// line of its own. A file is read again from the top when it shrank, when
// its first line or the last line read changed (it was replaced), or when
// it kept its size but the first or the last KiB of the bytes read did
// not (it was rewritten in place); a file of the same size with the same
// edges is not read at all. Agents only append to their transcripts, so a
// rewrite in place at the same size that leaves both edges alone (an edit
// in the middle of a long file) is not seen: ccusage, which reads every
// file in full on every run, would see it, at the cost of reading
// everything every time.
//
// A team shares a store on PostgreSQL: each machine's Push sends what its
// local store holds (only what changed since its last push to that
// store), each row once however many machines hold it; OpenMirror keeps a
// local-schema copy of the shared store, brought up to date from its
// changes, which every query of this package reads. Rows name the machine
// and OS user that ingested them (Filter.Machine, Filter.User; the local
// store's own rows are the machine named by SetSelf).
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // the database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/mcpcost/mcpcost/internal/sqliteuri"
	"github.com/mcpcost/mcpcost/internal/tmpdir"
)

//go:embed migrations/*.sql
var migrations embed.FS

// A Store is an open usage database.
type Store struct {
	db       *sql.DB
	key      []byte    // HMAC key of tool arguments
	macs     sync.Pool // of HMACs under key, reset and reused by hashArgs
	readOnly bool
	tmp      string // the temporary folder of a copy read instead (see OpenReadOnly)
	// selfMachine and selfUser name this machine and its OS user (see
	// SetSelf).
	selfMachine, selfUser string
}

// SetSelf names the machine the store's own ingest runs on and its OS
// user. The store keeps its own rows without a machine or user (their
// machine and os_user are empty): a [Filter] whose Machine (User) is this
// name keeps them, as well as the rows that name it, and queries name
// them so (Request.Machine and User, ToolCall's, and the sums'). Without
// SetSelf, a filter on a machine or a user leaves the store's own rows
// out. Call it before the store is queried; it is not safe to call
// concurrently with queries.
func (s *Store) SetSelf(machine, user string) {
	s.selfMachine, s.selfUser = machine, user
}

// Open opens (creating it and its folder if needed) the store at path and
// brings its schema up to date.
func Open(path string) (*Store, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &NotFileError{Path: path, Kind: fileKind(fi.Mode())}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("creating the store's folder: %w", err)
		}
	}
	// A new store is made readable by its owner alone, as the folder is:
	// it holds the key of the arguments' hashes, the projects' paths and
	// the sessions, and a store named with --db may sit in a folder other
	// users can read (SQLite would make it 0644 under the usual umask).
	// SQLite gives its log and shared-memory files the mode of the store.
	createPrivate(path)
	keepPrivate(path)
	// The journal mode is set by setWAL, not here: see there. The log is
	// copied into the database (and both synced) every walPages pages
	// written rather than SQLite's 1,000: an ingest rewrites the same
	// pages (the tables' last leaves, the indexes' inner pages) in one
	// batch after another, and a checkpoint copies each page once however
	// often it was rewritten since the last. A killed process loses
	// nothing; a power loss may lose the commits since the last checkpoint
	// (synchronous=NORMAL), more of them than before, each with its
	// files' offsets, so that the next ingest reads their lines again.
	// The log takes up to walPages pages of disk while the store is open.
	dsn := sqliteuri.Of(path) +
		"?_pragma=busy_timeout(30000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate" +
		"&_pragma=wal_autocheckpoint(" + strconv.Itoa(walPages) + ")"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	s := &Store{db: db}
	if err := setWAL(context.Background(), db); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := s.migrate(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	// A first ingest builds its indexes at its end; build them here if
	// one was interrupted.
	if err := s.buildIndexes(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	// Likewise its rollups, and those of a store of an older schema.
	if err := s.fillDeferredRollups(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := s.loadKey(); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return s, nil
}

// createPrivate creates the file at path, readable by its owner alone,
// when there is none, at the end of the symbolic links there (SQLite
// follows them, and would create the file a link names with its own mode).
// A file that exists is never opened: closing it would release the locks
// SQLite holds on it for another connection of this process.
func createPrivate(path string) {
	for range 40 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return
		}
		if !errors.Is(err, fs.ErrExist) {
			return
		}
		target, err := os.Readlink(path)
		if err != nil {
			return // not a link: the store exists
		}
		if _, err := os.Stat(path); err == nil {
			return // the link names a file that exists
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
}

// checkpointAside copies the write-ahead log into the store's file on
// a connection of its own while the caller goes on with its own: a
// passive checkpoint, which neither waits for a writer nor holds one
// up, and copies what was committed when it began. The function it
// returns waits for it to end. A checkpoint that fails (or finds
// another running) leaves the pages to the next one, at the latest
// SQLite's as the store closes: nothing is lost.
func (s *Store) checkpointAside(ctx context.Context) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var busy, frames, copied int
		_ = s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	}()
	return func() { <-done }
}

// walPages is how many pages the write-ahead log holds before it is
// checkpointed (about 40 MB).
const walPages = 10000

// walWait bounds how long setWAL retries, as busy_timeout bounds a wait
// for a lock.
const walWait = 30 * time.Second

// setWAL puts the store in WAL mode (which the file then keeps), retrying
// while another process holds a lock. A brand-new store starts in
// rollback-journal mode, where the switch reads the file under a shared
// lock and then needs an exclusive one; when another process is doing the
// same, SQLite refuses the upgrade at once (SQLITE_BUSY, without its busy
// handler, which would deadlock), so that processes creating a store at
// the same moment failed with "database is locked". Once the file is in
// WAL mode the statement only reads, and succeeds at once.
func setWAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(walWait)
	for attempt := 0; ; attempt++ {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return busy(err)
		}
		// A short wait that grows, with jitter so that the processes do not
		// meet again.
		wait := time.Duration(1+mrand.N(5*min(attempt+1, 20))) * time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// OpenReadOnly opens the store at path for reading only: it writes
// nothing, not even what Open would repair (missing indexes, a missing
// key), so that a report can be read from a store on a full disk or in a
// read-only folder. Queries give the same answers, more slowly when a
// first ingest was interrupted before it built the indexes. A store whose
// schema is older than this mcpcost's is refused: only an ingest (Open)
// may bring it up to date.
//
// SQLite reads a WAL store through its -shm file, which it creates (and
// grows) beside the store when it is missing. Where it cannot (a full
// disk, a read-only folder, RLIMIT_FSIZE), OpenReadOnly removes the empty
// -wal and unfinished -shm files that the attempt left (files it did not
// find there, still empty or shorter than SQLite makes them: a writer
// that can write there grows them at once), and then:
//
//   - when the -wal file is missing or empty, every committed write is in
//     the store's file: it is read as it is (SQLite's immutable mode, which
//     takes no locks). Such a reader does not see a concurrent ingest by a
//     process that can write there, and one that checkpoints into the
//     store's file while the report is read can make the read fail
//     ("malformed"): read again.
//   - when the -wal file holds writes (an ingest was killed), the store and
//     its -wal are copied to the temporary folder and read from there, so
//     that nothing is lost; where that cannot be done either, the store is
//     refused with an error that says so.
func OpenReadOnly(path string) (*Store, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotFileError{Path: path, Kind: fileKind(fi.Mode())}
	}
	_, werr := os.Stat(path + "-wal")
	_, serr := os.Stat(path + "-shm")
	hadWAL, hadSHM := werr == nil, serr == nil
	db, have, err := openRO(path, "")
	var tmp string
	if err != nil {
		// The attempt may have created files it could not fill.
		if !hadWAL {
			if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() == 0 {
				os.Remove(path + "-wal")
			}
		}
		if !hadSHM {
			if fi, err := os.Stat(path + "-shm"); err == nil && fi.Size() < 32<<10 {
				os.Remove(path + "-shm")
			}
		}
		if wfi, werr := os.Stat(path + "-wal"); werr != nil || wfi.Size() == 0 {
			db, have, err = openRO(path, "&immutable=1")
		} else {
			tmp, err = copyStore(path)
			if err == nil {
				db, have, err = openRO(filepath.Join(tmp, "usage.db"), "")
				if err != nil {
					os.RemoveAll(tmp)
					tmp = ""
				}
			}
			if err != nil {
				err = fmt.Errorf("its write-ahead log %s holds writes (an ingest was interrupted) that cannot be read without writing beside the store or in the temporary folder (%v): run an ingest where the store can be written, or copy the store with its -wal file to a writable folder", filepath.Base(path)+"-wal", err)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", path, err)
		}
	}
	s := &Store{db: db, readOnly: true, tmp: tmp}
	fail := func(err error) (*Store, error) {
		s.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	switch want := SchemaVersion(); {
	case have > want:
		return fail(fmt.Errorf("the store has schema version %d, newer than this mcpcost knows (%d); upgrade mcpcost", have, want))
	case have < want:
		return fail(&OlderSchemaError{Have: have, Want: want})
	}
	err = db.QueryRow(`SELECT value FROM meta WHERE key = 'args_hmac_key'`).Scan(&s.key)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fail(err)
	}
	return s, nil
}

// OlderSchemaError is OpenReadOnly's refusal of a store whose schema is
// older than this mcpcost's.
type OlderSchemaError struct{ Have, Want int }

func (e *OlderSchemaError) Error() string {
	return fmt.Sprintf("the store has schema version %d, older than this mcpcost's (%d): an ingest (without --no-ingest) brings it up to date", e.Have, e.Want)
}

// OpenForReport opens the store at path for a report that reads no
// transcripts: read-only (see OpenReadOnly), but a store that an older
// mcpcost made is first brought up to date (Open), as the next ingest
// would, where it can be written; where it cannot (another user's store,
// a read-only folder), the error is OpenReadOnly's *OlderSchemaError.
func OpenForReport(path string) (*Store, error) {
	st, err := OpenReadOnly(path)
	var older *OlderSchemaError
	if !errors.As(err, &older) {
		return st, err
	}
	if w, werr := Open(path); werr == nil {
		return w, nil
	}
	return nil, err
}

// openRO opens path read-only (with extra DSN parameters) and reads its
// schema version.
func openRO(path, extra string) (*sql.DB, int, error) {
	// mode=ro opens the file read-only; query_only refuses every write
	// statement, temporary tables included.
	dsn := sqliteuri.Of(path) + "?mode=ro&_pragma=busy_timeout(30000)&_pragma=query_only(1)" + extra
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, 0, err
	}
	var have int
	if err := db.QueryRow("PRAGMA user_version").Scan(&have); err != nil {
		db.Close()
		return nil, 0, err
	}
	return db, have, nil
}

// storeTempPrefix names the temporary folders of copyStore.
const storeTempPrefix = "mcpcost-store-"

// copyStore copies the store at path and its -wal file into a new
// temporary folder, returning the folder.
func copyStore(path string) (string, error) {
	tmpdir.CleanStale(storeTempPrefix)
	dir, err := tmpdir.Make(storeTempPrefix)
	if err != nil {
		return "", err
	}
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(path+suffix, filepath.Join(dir, "usage.db"+suffix)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// NotFileError is a store path that names something else than a
// regular file: a folder, a device, a pipe ...
type NotFileError struct {
	Path string
	Kind string // "a folder", "a character device" ...
}

func (e *NotFileError) Error() string {
	return fmt.Sprintf("opening %s: %s, not a regular file", e.Path, e.Kind)
}

// Hint says what to do about it.
func (e *NotFileError) Hint() string {
	return "name the store's file with --db (it is made when missing), or leave --db out for the default store"
}

// fileKind names what a file that is not a regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "another kind of file"
}

// Close closes the store (and removes the copy a read-only store may have
// been read from).
func (s *Store) Close() error {
	err := s.db.Close()
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
	return err
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int {
	n, _ := migrationList()
	return len(n)
}

func migrationList() ([]string, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// migrate applies the migrations the database has not seen, each in its
// own transaction, counting them in PRAGMA user_version.
func (s *Store) migrate(ctx context.Context) error {
	names, err := migrationList()
	if err != nil {
		return err
	}
	var have int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return err
	}
	if have > len(names) {
		return fmt.Errorf("the store has schema version %d, newer than this mcpcost knows (%d); upgrade mcpcost", have, len(names))
	}
	for i, name := range names {
		version := i + 1
		if version <= have {
			continue // applied: no write transaction needed
		}
		err := s.tx(ctx, func(tx *sql.Tx) error {
			var have int
			if err := tx.QueryRow("PRAGMA user_version").Scan(&have); err != nil {
				return err
			}
			if have > len(names) {
				return fmt.Errorf("the store has schema version %d, newer than this mcpcost knows (%d); upgrade mcpcost", have, len(names))
			}
			if have >= version {
				return nil
			}
			body, err := migrations.ReadFile(name)
			if err != nil {
				return err
			}
			// A migration sees the triggers a first ingest dropped.
			if version > 1 {
				if err := restoreTriggers(tx); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
			_, err = tx.Exec("PRAGMA user_version = " + strconv.Itoa(version))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// loadKey reads the arguments' HMAC key, creating it on first use.
func (s *Store) loadKey() error {
	if err := s.db.QueryRow(`SELECT value FROM meta WHERE key = 'args_hmac_key'`).Scan(&s.key); err == nil {
		return nil
	}
	return s.tx(context.Background(), func(tx *sql.Tx) error {
		err := tx.QueryRow(`SELECT value FROM meta WHERE key = 'args_hmac_key'`).Scan(&s.key)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		s.key = make([]byte, 32)
		if _, err := rand.Read(s.key); err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO meta (key, value) VALUES ('args_hmac_key', ?)`, s.key)
		return err
	})
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE), committing when it
// returns nil.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return busy(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return busy(err)
	}
	return busy(tx.Commit())
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked"))
}

// Damaged reports whether err is SQLite's finding that a store file is
// not a database or is damaged (SQLITE_NOTADB, SQLITE_CORRUPT).
func Damaged(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return true
	}
	return false
}

// busy explains SQLite's "database is locked".
func busy(err error) error {
	if isBusy(err) {
		return fmt.Errorf("the store is busy (another mcpcost process holds it): %w", err)
	}
	return err
}
