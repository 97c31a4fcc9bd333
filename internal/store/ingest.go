package store

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/transcript"
)

// IngestOptions say what to ingest and how.
type IngestOptions struct {
	// ClaudeRoots are Claude Code project folders (~/.claude/projects);
	// CodexRoots are Codex session folders (~/.codex/sessions).
	ClaudeRoots []string
	CodexRoots  []string
	// CopilotRoots are GitHub Copilot CLI session-state folders
	// (~/.copilot/session-state).
	CopilotRoots []string
	// GooseRoots are Goose's sessions folders, which hold its sessions.db
	// (~/.local/share/goose/sessions).
	GooseRoots []string
	// GeminiRoots are Gemini CLI folders (~/.gemini, GEMINI_DATA_DIR).
	GeminiRoots []string
	// OpencodeRoots are opencode folders (~/.local/share/opencode,
	// OPENCODE_DATA_DIR).
	OpencodeRoots []string
	// Count counts a tool result's tokens (o200k_base). Required.
	Count func(string) int
	// Workers read and count files in parallel; 0 means one per CPU.
	Workers int
	// Progress is told of the ingest's steps; nil for none.
	Progress func(IngestStep)
	// Now is the clock; nil for time.Now.
	Now func() time.Time
	// LockWait is how long to wait for another process's ingest to end
	// before giving up (and reporting what is stored). 0 means 2 minutes.
	LockWait time.Duration
	// MaxWarnings caps the warnings listed (all are counted); 0 means 20.
	MaxWarnings int

	// noLease skips the lease, so that tests can race two ingests and
	// check that the offsets alone prevent double counting.
	noLease bool
}

// IngestStats report an ingest.
type IngestStats struct {
	Files       int   `json:"files"`       // transcript files found
	FilesRead   int   `json:"filesRead"`   // files with new bytes
	FilesReread int   `json:"filesReread"` // files that shrank or were replaced, read again from the top
	BytesRead   int64 `json:"bytesRead"`
	Lines       int   `json:"lines"`
	Requests    int   `json:"requests"`   // new distinct requests
	Duplicates  int   `json:"duplicates"` // copies merged into a request already seen
	ToolCalls   int   `json:"toolCalls"`
	ToolResults int   `json:"toolResults"`
	Compactions int   `json:"compactions"`
	Corrupt     int   `json:"corruptLines"`
	// UsageSkipped counts lines whose usage is not counted because ccusage
	// does not count it (an empty or null id, a version that is not
	// 1.2.3, a null member it reads, a costUSD that is not a number).
	UsageSkipped int `json:"usageSkipped,omitempty"`
	// Warnings name files and lines that could not be read (the first
	// MaxWarnings of them).
	Warnings []string `json:"warnings,omitempty"`
	// Busy counts files skipped because another mcpcost process ingested
	// them at the same time; Waited is how long this one waited for it,
	// by the wall clock: a figure for the progress on stderr, left out of
	// the JSON, whose bytes depend only on the transcripts, the store and
	// the report's clock.
	Busy   int           `json:"busy,omitempty"`
	Waited time.Duration `json:"-"`
	// Skipped is set when another process held the ingest for longer than
	// LockWait: nothing was read, and the store is as that process left it.
	Skipped bool `json:"skipped,omitempty"`
}

// An IngestStep is the ingest's progress: its Phase, Done of Total files
// with new bytes read, and the bytes read so far.
type IngestStep struct {
	Phase       string
	Done, Total int
	Bytes       int64
}

// The phases of an ingest's progress.
const (
	IngestWait  = "wait"  // for another process's ingest to end
	IngestStart = "start" // Total files have new bytes to read
	IngestRead  = "read"  // Done of them read (at most every 150 ms)
	IngestEnd   = "end"   // all read
)

// fileRow is a files row.
type fileRow struct {
	id                       int64
	size, mtime, offset      int64
	lines                    int
	headHash, tailHash       []byte
	edgeHash                 []byte
	tailStart                int64
	state                    []byte
	generation, corruptLines int64
	reader                   int
}

// readerVersion is the version of the transcript readers. A file read by
// an older version is read again from the top, so that what that version
// missed or miscounted (2: requests without a request id, lines without a
// type, API-error placeholders, Codex exit codes and durations; 3: lines
// copied into a resumed session, the requests of tool calls' lines, and
// Codex's local_shell_call items; 4: Claude Code's usage-limit
// placeholders; 5: times outside [2000-01-01, 2100-01-01) and recorded
// costs out of range, stored before) is right.
const readerVersion = 5

// job is one file to read.
type job struct {
	file  transcript.File
	row   *fileRow // nil for a new file
	size  int64
	mtime int64
	// rewritten is set when the file kept its size but not its content:
	// it is read again from the top.
	rewritten bool
	abort     atomic.Bool
}

// batch is a run of lines of one file, written in one transaction.
type batch struct {
	job        *job
	first      bool // the first batch of this job
	reset      bool // read again from the top: drop the file's rows first
	fromOffset int64
	offset     int64 // after this batch
	lines      int   // lines read in the file, after this batch
	startLines int   // and before it
	headHash   []byte
	tailStart  int64
	tailHash   []byte
	edgeHash   []byte
	state      []byte
	corrupt    int
	skipped    int // lines whose usage is not counted (Record.UsageSkipped)
	warnings   []string
	bytes      int64
	recs       []lineRec
	calls      map[string]*toolRow
	callOrder  []string
	last       bool
	failed     bool // the file could not be read: only warnings
	// opened is set, in the last batch of a file read whole, with the
	// size and time the file had when it was opened: those of what was
	// read, stored in place of the job's (see readWhole).
	opened              bool
	openSize, openMtime int64
}

type lineRec struct {
	line int
	rec  *transcript.Record
}

// toolRow is one tool call's row, either half possibly missing.
type toolRow struct {
	source, session, callID     string
	agent                       string
	sidechain                   bool
	hasCall, hasResult          bool
	name, tool, server, plugin  string
	builtin                     bool
	project                     string
	callTS, resultTS            int64
	tokens, bytes, nonText, est int
	isError, spilled            bool
	durationMs                  *int64 // recorded run time, when the result says
	argsHash                    []byte
	callLine, resultLine        int
	// The request of the call's line (see dedupEntry), and whether the
	// call's and the result's lines were copied from another session
	// (origin, the one the call's line names).
	messageID, requestID, dedupSession string
	callCopied, resultCopied           bool
	origin                             string
}

// Ingest reads what is new in the transcripts under the roots.
func (s *Store) Ingest(ctx context.Context, o IngestOptions) (_ *IngestStats, err error) {
	if o.Count == nil {
		return nil, errors.New("ingest: no token counter")
	}
	if s.readOnly {
		return nil, errors.New("ingest: the store is open read-only")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.LockWait == 0 {
		o.LockWait = 2 * time.Minute
	}
	if o.MaxWarnings == 0 {
		o.MaxWarnings = 20
	}
	if o.Progress == nil {
		o.Progress = func(IngestStep) {}
	}
	st := &IngestStats{}

	claude, err := transcript.DiscoverClaude(o.ClaudeRoots)
	st.warnEach(o.MaxWarnings, "listing Claude Code transcripts: ", err)
	codex, err := transcript.DiscoverCodex(o.CodexRoots)
	st.warnEach(o.MaxWarnings, "listing Codex transcripts: ", err)
	files := append(claude, codex...)
	copilot, err := transcript.DiscoverCopilot(o.CopilotRoots)
	st.warnEach(o.MaxWarnings, "listing Copilot CLI transcripts: ", err)
	files = append(files, copilot...)
	goose, err := transcript.DiscoverGoose(o.GooseRoots)
	st.warnEach(o.MaxWarnings, "listing Goose databases: ", err)
	files = append(files, goose...)
	gemini, err := transcript.DiscoverGemini(o.GeminiRoots)
	st.warnEach(o.MaxWarnings, "listing Gemini CLI chats: ", err)
	files = append(files, gemini...)
	opencode, err := transcript.DiscoverOpencode(o.OpencodeRoots)
	st.warnEach(o.MaxWarnings, "listing opencode sessions: ", err)
	files = append(files, opencode...)
	st.Files = len(files)

	owner, waited := "unleased", false
	if !o.noLease {
		// A re-run with nothing new writes nothing: not even the lease.
		idle, err := s.nothingNew(ctx, files)
		if err != nil || idle {
			return st, err
		}
		owner, waited, err = s.acquire(ctx, o, st)
		if err != nil || st.Skipped {
			return st, err
		}
		defer s.release(owner)
	}

	known, err := s.knownFiles(ctx)
	if err != nil {
		return st, err
	}
	// A file's size and time are the listing's, unless another ingest may
	// have read it since (this one waited for the lease, or runs without
	// one): a file they show unchanged is not asked again, and one to read
	// is, so that what is read is what the file holds now, as before.
	fresh := o.noLease || waited
	jobs := plan(files, known, fresh, func(msg string) { st.warn(o.MaxWarnings, msg) })
	// An ingest without the lease (tests that race two) may not be the
	// only writer: it looks up copies in the store, as any other.
	ownIndex := false
	if len(known) == 0 && len(jobs) > 0 {
		dropped, derr := s.dropIndexesForFirstIngest(ctx, o.noLease)
		ownIndex = dropped && !o.noLease
		if derr != nil {
			return st, derr
		}
		if dropped {
			// Built once at the end (or by the next Open, if this process
			// does not get there); a failure is the ingest's error (err is
			// the function's result, not shadowed here).
			defer func() {
				// The log holds the pages of every batch: they are copied
				// into the store's file beside the rollups' fill, and the
				// rollups' beside the index build, so that the store's
				// close copies only the indexes' pages, the fewest of the
				// three (at 200 MB: 1.6 MB of indexes against 3.5 MB of
				// rollups and their keys).
				wait := s.checkpointAside(context.WithoutCancel(ctx))
				if ierr := s.fillDeferredRollups(context.WithoutCancel(ctx)); ierr != nil && err == nil {
					err = ierr
				}
				wait()
				wait = s.checkpointAside(context.WithoutCancel(ctx))
				if ierr := s.buildIndexes(context.WithoutCancel(ctx)); ierr != nil && err == nil {
					err = ierr
				}
				wait()
			}()
		}
	}
	// The largest files first, so that the workers finish together.
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].size > jobs[b].size })

	batches := make(chan *batch, queuedBatches*o.Workers)
	var wg sync.WaitGroup
	next := make(chan *job)
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each reader counts through its own cache of counts.
			wo := o
			wo.Count = newCountCache(o.Count).Count
			for j := range next {
				s.readGuarded(ctx, j, wo, batches)
			}
		}()
	}
	go func() {
		defer close(next)
		for _, j := range jobs {
			select {
			case next <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(batches) }()

	w := &writer{s: s, o: o, st: st, owner: owner, total: len(jobs)}
	if ownIndex {
		w.own, w.ownMore, w.first = map[dedupKey]int64{}, map[dedupKey][]int64{}, true
	}
	if len(jobs) > 0 {
		o.Progress(IngestStep{Phase: IngestStart, Total: len(jobs)})
	}
	defer w.close()
	var werr error
	for b := range batches {
		// The batches waiting, written together (see writer.applyAll).
		group := []*batch{b}
	more:
		for len(group) < groupBatches {
			select {
			case b, ok := <-batches:
				if !ok {
					break more
				}
				group = append(group, b)
			default:
				break more
			}
		}
		live := group[:0]
		for _, b := range group {
			if werr != nil || b.job.abort.Load() {
				b.job.abort.Store(true)
				continue
			}
			live = append(live, b)
		}
		if len(live) == 0 {
			continue
		}
		if err := w.applyAll(ctx, live); err != nil {
			werr = err
			for _, b := range live {
				b.job.abort.Store(true)
			}
		}
	}
	w.listWarnings()
	w.progress(true)
	if werr == nil {
		werr = ctx.Err()
	}
	return st, werr
}

// plan returns the jobs of reading what is new in files since the rows
// known holds, telling warn of each file that cannot be asked its size.
// A file's size and time are the listing's unless fresh (see Ingest).
func plan(files []transcript.File, known map[string]*fileRow, fresh bool, warn func(string)) []*job {
	var jobs []*job
	for _, f := range files {
		var j *job
		if f.Listed && !fresh {
			j = planJob(f, known, f.Size, f.ModTime)
			if j == nil {
				continue
			}
		}
		fi, err := os.Stat(f.Path)
		if err != nil {
			warn(fmt.Sprintf("%s: %v", f.Path, err))
			continue
		}
		if j = planJob(f, known, fi.Size(), fi.ModTime().UnixNano()); j != nil {
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// testOnlyAfterCheck is called as nothingNew returns, for the test of a
// file that changes meanwhile.
var testOnlyAfterCheck = func() {}

// nothingNew reports whether an ingest of files would find nothing to
// do, as far as the store says now, without writing: no file has new
// bytes, none fails to be asked its size (whose warning the ingest
// gives), and no first ingest has its indexes or rollups still to build
// (another process's, perhaps still running, which the ingest waits
// for). The files rows are read before the rest, so that a first ingest
// that wrote all its files before they were read is seen to be done
// only once it has built them. Anything else is planned again under the
// lease, as if this check had not been made: what it finds new may have
// been read since by another process, and what it finds unchanged may
// have changed since; a file the listing showed unchanged is not read
// either way.
func (s *Store) nothingNew(ctx context.Context, files []transcript.File) (bool, error) {
	known, err := s.knownSizes(ctx)
	if err != nil {
		return false, err
	}
	defer testOnlyAfterCheck()
	for _, f := range files {
		// A file with new bytes by its listing has them, as far as this
		// check goes: it stops at the first.
		size, mtime := f.Size, f.ModTime
		if !f.Listed {
			fi, err := os.Stat(f.Path)
			if err != nil {
				return false, nil
			}
			size, mtime = fi.Size(), fi.ModTime().UnixNano()
		}
		if planJob(f, known, size, mtime) != nil {
			return false, nil
		}
	}
	var pending bool
	err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM meta WHERE key IN ('rollups_deferred', 'dropped_triggers')) OR `+missingIndexesSQL).Scan(&pending)
	if err != nil || pending {
		return false, err
	}
	// Another live process's ingest (of other roots, perhaps) is waited
	// for, as before, so that the report after it is not partial unsaid.
	var exp int64
	var holder string
	err = s.db.QueryRowContext(ctx, `SELECT expires_at, owner FROM ingest_lock WHERE id = 1`).Scan(&exp, &holder)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return exp <= time.Now().UnixMilli() || leaseAbandoned(holder), nil
}

// planJob returns the job of reading f, of this size and modification
// time (Unix nanoseconds), or nil when nothing in it is new since the
// files row known holds for it.
func planJob(f transcript.File, known map[string]*fileRow, size, mtime int64) *job {
	j := &job{file: f, size: size, mtime: mtime}
	if f.Source == transcript.Goose {
		// A database is read whole when it or its write-ahead log
		// changed: its size and time are both files'.
		if wal, err := os.Stat(f.Path + "-wal"); err == nil {
			j.size += wal.Size()
			j.mtime = max(j.mtime, wal.ModTime().UnixNano())
		}
		if row, ok := known[f.Path]; ok {
			if row.size == j.size && row.mtime == j.mtime && row.reader >= readerVersion {
				return nil
			}
			j.row, j.rewritten = row, true
		}
		return j
	}
	if row, ok := known[f.Path]; ok {
		j.row = row
		// A file read whole is rewritten in place, its middle as well as
		// anywhere: one whose time moved since it was opened to be read
		// (as it was read, perhaps) is read again.
		whole := f.Source == transcript.Gemini || f.Source == transcript.Opencode
		if whole && row.mtime != j.mtime && row.size == j.size && row.reader >= readerVersion {
			j.rewritten = true
			return j
		}
		if row.size == j.size && row.reader >= readerVersion {
			// The same size: unchanged when the edges of what was read
			// are (a row from before edge hashes: when the modification
			// time is), else rewritten in place.
			if row.edgeHash == nil {
				if row.mtime == j.mtime {
					return nil
				}
			} else if bytes.Equal(changeHash(f, row.offset), row.edgeHash) {
				return nil
			} else {
				j.rewritten = true
			}
		}
	}
	return j
}

// warnEach adds a warning for each of the errors err joins (none when
// nil), each on its own line.
func (st *IngestStats) warnEach(max int, prefix string, err error) {
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			st.warnEach(max, prefix, e)
		}
		return
	}
	st.warn(max, prefix+err.Error())
}

func (st *IngestStats) warn(max int, msg string) {
	if len(st.Warnings) < max {
		st.Warnings = append(st.Warnings, msg)
	}
}

// acquire takes the ingest lease, waiting while another live process
// holds it. A lease is taken over when it has expired, or at once when
// the process that holds it is gone: its owner names the host, the
// process and when it started (see leaseOwner), and a process of this
// host that no longer runs (killed, crashed), or whose id now belongs to
// a process started at another time, holds nothing.
func (s *Store) acquire(ctx context.Context, o IngestOptions, st *IngestStats) (owner string, waited bool, err error) {
	owner = leaseOwner(os.Getpid(), ownStart(), o.Now().UnixNano())
	start := time.Now()
	for {
		got := false
		err := s.tx(ctx, func(tx *sql.Tx) error {
			var exp int64
			var holder string
			err := tx.QueryRow(`SELECT expires_at, owner FROM ingest_lock WHERE id = 1`).Scan(&exp, &holder)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err == nil && exp > time.Now().UnixMilli() && !leaseAbandoned(holder) {
				return nil
			}
			got = true
			_, err = tx.Exec(`INSERT OR REPLACE INTO ingest_lock (id, owner, pid, expires_at) VALUES (1, ?, ?, ?)`,
				owner, os.Getpid(), time.Now().Add(leaseTime).UnixMilli())
			return err
		})
		if err != nil {
			return "", waited, err
		}
		if got {
			st.Waited = time.Since(start)
			return owner, waited, nil
		}
		if time.Since(start) > o.LockWait {
			st.Skipped = true
			st.Waited = time.Since(start)
			return "", true, nil
		}
		if st.Waited == 0 {
			o.Progress(IngestStep{Phase: IngestWait})
			st.Waited = 1
		}
		select {
		case <-ctx.Done():
			return "", true, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		waited = true
	}
}

// leaseTime is how long a lease lasts without renewal; each batch renews it.
const leaseTime = 60 * time.Second

// leaseOwner names a lease's holder: "HOST/PID/NANOS/START", the host
// name, the process id, the time it asked (which tells two leases of one
// process apart) and the process's start (see processStart; the last
// part is left out where the start is not known, as in the older
// "HOST/PID/NANOS" form). An older mcpcost reads such an owner as one of
// another host, and waits for its lease to expire.
func leaseOwner(pid int, start string, nanos int64) string {
	if start == "" {
		return fmt.Sprintf("%s/%d/%d", hostName(), pid, nanos)
	}
	return fmt.Sprintf("%s/%d/%d/%s", hostName(), pid, nanos, start)
}

// ownStart is this process's start.
var ownStart = sync.OnceValue(func() string { return processStart(os.Getpid()) })

// leaseAbandoned reports whether the lease named owner is held by a
// process of this host that no longer runs: its process id is not in use,
// or is in use by a process that started at another time than the
// holder (the id was reused: after a reboot, by another process, or in a
// container where every first process is PID 1), this process included.
// Owners of another host, in the older "PID-NANOS" form, or of a live
// process whose start is not known, are never abandoned: their leases
// are waited for until they expire. Nor is a lease of this process
// itself (two ingests of one process).
func leaseAbandoned(owner string) bool {
	parts := strings.Split(owner, "/")
	if len(parts) != 3 && len(parts) != 4 {
		return false
	}
	if parts[0] != hostName() {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	start := ""
	if len(parts) == 4 {
		start = parts[3]
	}
	if pid == os.Getpid() {
		return start != "" && ownStart() != "" && start != ownStart()
	}
	if !processAlive(pid) {
		return true
	}
	now := processStart(pid)
	return start != "" && now != "" && now != start
}

var hostOnce = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown-host"
	}
	return strings.ReplaceAll(h, "/", "_")
})

func hostName() string { return hostOnce() }

func (s *Store) release(owner string) {
	s.db.Exec(`DELETE FROM ingest_lock WHERE id = 1 AND owner = ?`, owner)
}

func (s *Store) knownFiles(ctx context.Context) (map[string]*fileRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, path, size, mtime_ns, offset, lines, head_hash, tail_start, tail_hash, edge_hash, state, generation, corrupt, reader FROM files`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]*fileRow{}
	for rows.Next() {
		var r fileRow
		var path string
		if err := rows.Scan(&r.id, &path, &r.size, &r.mtime, &r.offset, &r.lines, &r.headHash, &r.tailStart, &r.tailHash, &r.edgeHash, &r.state, &r.generation, &r.corruptLines, &r.reader); err != nil {
			return nil, err
		}
		m[path] = &r
	}
	return m, rows.Err()
}

// knownSizes is knownFiles with only what planJob asks of a row (its
// size, time, offset, edge hash and reader), for nothingNew, whose jobs
// are planned again from knownFiles.
func (s *Store) knownSizes(ctx context.Context) (map[string]*fileRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, size, mtime_ns, offset, edge_hash, reader FROM files`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]*fileRow{}
	for rows.Next() {
		var r fileRow
		var path string
		if err := rows.Scan(&path, &r.size, &r.mtime, &r.offset, &r.edgeHash, &r.reader); err != nil {
			return nil, err
		}
		m[path] = &r
	}
	return m, rows.Err()
}

// Batch limits: a transaction per this many records or bytes read.
const (
	batchRecords = 4000
	batchBytes   = 32 << 20
)

// readGuarded reads one file, turning a panic into a warning that names
// it: the file is left where its last batch took it, the ingest goes on
// with the others.
func (s *Store) readGuarded(ctx context.Context, j *job, o IngestOptions, out chan<- *batch) {
	defer func() {
		if v := recover(); v != nil {
			msg := fmt.Sprintf("%s: %v", j.file.Path, panicError(v))
			select {
			case out <- &batch{job: j, failed: true, warnings: []string{msg}}:
			case <-ctx.Done():
			}
		}
	}()
	s.read(ctx, j, o, out)
}

// testOnlyBeforeRead is called before each file is read, for the test of
// a worker's panic outside its lines.
var testOnlyBeforeRead = func(path string) {}

// read reads one file from where it was left, sending batches.
func (s *Store) read(ctx context.Context, j *job, o IngestOptions, out chan<- *batch) {
	testOnlyBeforeRead(j.file.Path)
	if j.file.Source == transcript.Gemini || j.file.Source == transcript.Opencode {
		s.readWhole(ctx, j, o, out)
		return
	}
	var f io.Reader
	var file *os.File
	if j.file.Source == transcript.Goose {
		// A database is read through its rows as lines (see
		// transcript.OpenGoose), always whole, each line made as it is
		// read: none is held after its batch.
		exp, err := transcript.OpenGoose(j.file.Path)
		if err != nil {
			out <- &batch{job: j, failed: true, warnings: []string{fmt.Sprintf("%s: %v", j.file.Path, err)}}
			return
		}
		defer exp.Close()
		f = exp
	} else {
		var err error
		file, err = openFile(j.file.Path)
		if err != nil {
			out <- &batch{job: j, failed: true, warnings: []string{fmt.Sprintf("%s: %v", j.file.Path, err)}}
			return
		}
		defer file.Close()
		f = file
	}

	start, lines := int64(0), 0
	var state, headHash []byte
	reset := false
	if r := j.row; r != nil {
		start, lines, state, headHash = r.offset, r.lines, r.state, r.headHash
		switch {
		case r.reader < readerVersion:
			reset = r.offset > 0 // read by older readers
		case j.rewritten:
			reset = true
		case j.size < r.offset:
			reset = true // it shrank
		case r.offset > 0 && (!headMatches(j.file.Path, r.offset, headHash) || !sameHash(j.file.Path, r.tailStart, r.offset, r.tailHash)):
			reset = true // replaced
		}
		if reset {
			start, lines, state, headHash = 0, 0, nil, nil
		}
	}
	parser, err := transcript.NewParser(j.file, state)
	if err != nil {
		start, lines, reset = 0, 0, j.row != nil
		parser, _ = transcript.NewParser(j.file, nil)
	}
	if c, ok := parser.(*transcript.ClaudeParser); ok {
		// The texts are counted and dropped in parseLine, before the next
		// line is read into the same buffer.
		c.ReuseText = true
	}
	// After a last line read without its newline, the newline written
	// since belongs to that line: reading goes on past it, while the
	// batch still starts (and checks the stored offset) at start.
	from := start
	if file != nil {
		from = transcript.SkipNewline(file, start)
		_, err = file.Seek(from, io.SeekStart)
	} else {
		_, err = io.CopyN(io.Discard, f, from) // a database's lines start at 0
	}
	if err != nil {
		out <- &batch{job: j, failed: true, warnings: []string{fmt.Sprintf("%s: %v", j.file.Path, err)}}
		return
	}

	newBatch := func(from int64, first bool) *batch {
		return &batch{job: j, first: first, reset: first && reset, fromOffset: from, offset: from, lines: lines, startLines: lines, headHash: headHash,
			calls: map[string]*toolRow{}}
	}
	b := newBatch(start, true)
	if j.row != nil && !reset {
		b.tailStart, b.tailHash = j.row.tailStart, j.row.tailHash
	}
	var cwd string
	var lastStart int64 = -1
	send := func(last bool) bool {
		b.last = last
		b.lines = lines
		b.state = transcript.SaveState(parser)
		if lastStart >= 0 {
			b.tailStart = lastStart
			b.tailHash = hashAt(j.file.Path, lastStart, b.offset)
			if b.headHash == nil && lastStart == 0 {
				b.headHash = b.tailHash
			}
		}
		if b.headHash == nil && b.offset > 0 {
			b.headHash = hashHead(j.file.Path, b.offset)
		}
		headHash = b.headHash
		b.edgeHash = edgeHash(j.file.Path, b.offset)
		select {
		case out <- b:
		case <-ctx.Done():
			return false
		}
		return !j.abort.Load()
	}
	stop := errors.New("stop")
	_, _, err = transcript.ScanLines(f, from, lines+1, func(line []byte, no int, end int64, lerr error) error {
		lineStart := b.offset
		if lerr != nil {
			b.corrupt++
			b.warnings = append(b.warnings, (&transcript.LineError{Path: j.file.Path, Line: no, Err: lerr}).Error())
		} else if rec, hashes, perr := s.parseLine(parser, line, o.Count); perr != nil {
			b.corrupt++
			b.warnings = append(b.warnings, (&transcript.LineError{Path: j.file.Path, Line: no, Err: perr}).Error())
		} else if rec != nil && rec.UsageSkipped && rec.SessionID == "" {
			b.skipped++ // nothing else on the line
		} else if rec != nil {
			if rec.UsageSkipped {
				b.skipped++
			}
			if rec.Warning != "" {
				b.warnings = append(b.warnings, (&transcript.LineError{Path: j.file.Path, Line: no, Err: errors.New(rec.Warning)}).Error())
			}
			if rec.Cwd == "" {
				rec.Cwd = cwd
			} else {
				cwd = rec.Cwd
			}
			s.addTools(b, j.file.Source, no, rec, hashes)
			if rec.Request != nil || rec.Compaction != nil || rec.Cwd != "" || rec.LimitReset != 0 {
				b.recs = append(b.recs, lineRec{no, rec})
			}
			for i := range rec.More {
				// The line's further requests (Copilot's, one per model).
				more := &transcript.Record{Time: rec.Time, SessionID: rec.SessionID, AgentID: rec.AgentID, Cwd: rec.Cwd, Request: &rec.More[i]}
				b.recs = append(b.recs, lineRec{no, more})
			}
		}
		lines = no
		b.bytes += end - b.offset
		b.offset = end
		lastStart = lineStart
		if len(b.recs)+len(b.calls) >= batchRecords || b.bytes >= batchBytes {
			if !send(false) {
				return stop
			}
			b = newBatch(end, false)
		}
		return nil
	})
	if err != nil && err != stop && file == nil {
		// A database's rows that could not be read through: it is read
		// again, whole, by the next ingest (the batches sent before left
		// its row without a size, as a run killed part way).
		out <- &batch{job: j, failed: true, warnings: []string{fmt.Sprintf("%s: %v", j.file.Path, err)}}
		return
	}
	if err != nil && err != stop {
		b.warnings = append(b.warnings, fmt.Sprintf("%s: %v", j.file.Path, err))
	}
	if err != stop {
		send(true)
	}
}

// parseLine parses one line and does the work that depends on its
// values: its tool results' token counts and its arguments' hashes (the
// arguments are dropped, and the line's bytes reused). A panic on the way
// becomes the line's error, so that one line cannot take an ingest down:
// the line is reported and skipped, and the file's offset moves past it.
func (s *Store) parseLine(p transcript.Parser, line []byte, count func(string) int) (rec *transcript.Record, hashes [][]byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			rec, hashes, err = nil, nil, panicError(v)
		}
	}()
	rec, err = p.ParseLine(line)
	if err != nil || rec == nil {
		return nil, nil, err
	}
	return rec, s.finishRecord(rec, count), nil
}

// finishRecord counts a record's tool results' tokens and hashes its
// calls' arguments, dropping the texts and the arguments. Its names are
// shortened to transcript.MaxName: the working folder is carried to the
// lines after it, and each name is written into the rows of its requests
// and calls.
func (s *Store) finishRecord(rec *transcript.Record, count func(string) int) (hashes [][]byte) {
	bound := transcript.BoundName
	rec.SessionID, rec.AgentID, rec.Cwd = bound(rec.SessionID), bound(rec.AgentID), bound(rec.Cwd)
	if rec.Request != nil {
		rec.Request.Model = bound(rec.Request.Model)
	}
	for i := range rec.More {
		rec.More[i].Model = bound(rec.More[i].Model)
	}
	for i := range rec.Calls {
		c := &rec.Calls[i]
		c.Name, c.Tool.Name, c.Tool.Server, c.Tool.Plugin = bound(c.Name), bound(c.Tool.Name), bound(c.Tool.Server), bound(c.Tool.Plugin)
	}
	for i := range rec.Results {
		rec.Results[i].Count(count)
		rec.Results[i].Texts = nil
	}
	if len(rec.Calls) > 0 {
		hashes = make([][]byte, len(rec.Calls))
		for i := range rec.Calls {
			hashes[i] = s.hashArgs(rec.Calls[i].Args)
			rec.Calls[i].Args = nil
		}
	}
	return hashes
}

// panicError words a recovered panic. Only a runtime error's message is
// repeated: another panic's value might hold a value of the line.
func panicError(v any) error {
	if re, ok := v.(runtime.Error); ok {
		return fmt.Errorf("internal error (%v); skipped", re)
	}
	return errors.New("internal error; skipped")
}

// addTools merges a record's tool calls (with their arguments' hashes)
// and results into the batch's rows.
func (s *Store) addTools(b *batch, src transcript.Source, line int, rec *transcript.Record, hashes [][]byte) {
	row := func(id string) *toolRow {
		t := b.calls[id]
		if t == nil {
			t = &toolRow{source: string(src), session: rec.SessionID, callID: id}
			b.calls[id] = t
			b.callOrder = append(b.callOrder, id)
		}
		return t
	}
	for i, c := range rec.Calls {
		t := row(c.ID)
		t.hasCall = true
		t.agent, t.sidechain = rec.AgentID, rec.Sidechain
		t.name, t.tool, t.server, t.plugin, t.builtin = c.Name, c.Tool.Name, c.Tool.Server, c.Tool.Plugin, c.Tool.BuiltIn
		t.project = rec.Cwd
		t.callTS = rec.Time.UnixMilli()
		t.callLine = line
		t.argsHash = hashes[i]
		t.messageID, t.requestID, t.dedupSession = rec.MessageID, rec.RequestID, ""
		if rec.MessageID != "" && rec.RequestID == "" {
			t.dedupSession = rec.LineSession // as the request's (see writer.addRequest)
		}
		t.callCopied, t.origin = rec.Copied, ""
		if rec.Copied {
			t.origin = rec.LineSession
		}
	}
	for _, r := range rec.Results {
		t := row(r.ID)
		t.hasResult = true
		t.resultTS = rec.Time.UnixMilli()
		t.tokens, t.bytes, t.nonText, t.est = r.Tokens, r.Bytes, r.NonText, r.EstimatedTokens
		t.isError, t.spilled = r.IsError, r.Spilled
		t.durationMs = r.DurationMs
		t.resultLine = line
		t.resultCopied = rec.Copied
		if t.project == "" {
			t.project = rec.Cwd
		}
	}
}

// hashArgs is the HMAC-SHA256, under the store's key, of the arguments'
// canonical JSON (JSON.stringify(JSON.parse(args))); arguments that are not
// JSON are hashed as written.
func (s *Store) hashArgs(args []byte) []byte {
	if len(args) == 0 {
		return nil
	}
	c, err := canon.Transform(args)
	if err != nil {
		c = args
	}
	m, _ := s.macs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, s.key)
	} else {
		m.Reset()
	}
	m.Write(c)
	sum := m.Sum(nil)
	s.macs.Put(m)
	return sum
}

// HashArgs exposes the arguments' hash, for tests and for matching a
// known call.
func (s *Store) HashArgs(args []byte) []byte { return s.hashArgs(args) }

// openFile opens an agent's file to read: a regular file, opened without
// waiting (see transcript.OpenFile). Every transcript, chat and hash of
// one is opened through it.
func openFile(path string) (*os.File, error) {
	f, _, err := transcript.OpenFile(path)
	return f, err
}

func hashAt(path string, from, to int64) []byte {
	f, err := openFile(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, from, to-from)); err != nil {
		return nil
	}
	return h.Sum(nil)
}

// edgeKiB is the size of each edge edgeHash hashes.
const edgeKiB = 1 << 10

// edgeHash is the SHA-256 of the first and the last KiB of the file's
// first offset bytes, and of offset: cheap enough to check every file on
// every run, it tells a file rewritten in place at the same size from an
// unchanged one, unless the rewrite changed neither edge.
func edgeHash(path string, offset int64) []byte {
	f, err := openEdge(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", offset)
	var buf [edgeKiB]byte // read into the stack: io.Copy would allocate 32 KiB a file
	head := min(offset, edgeKiB)
	n, err := f.ReadAt(buf[:head], 0)
	if err != nil && err != io.EOF {
		return nil
	}
	h.Write(buf[:n]) // a file cut short since is hashed as far as it goes
	tail := max(head, offset-edgeKiB)
	n, err = f.ReadAt(buf[:offset-tail], tail)
	if err != nil && err != io.EOF {
		return nil
	}
	h.Write(buf[:n])
	return h.Sum(nil)
}

// hashHead is the hash of the file's first line (with its newline), or
// of its first limit bytes when the first line is longer: a last line
// read without its newline (see transcript.ScanLines) is hashed as it was
// read, so that the newline written after it later does not make the
// file look replaced.
func hashHead(path string, limit int64) []byte {
	f, err := openFile(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var end int64
	buf := make([]byte, 64<<10)
	for end < limit {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), limit-end)], end)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return hashAt(path, 0, end+int64(i)+1)
		}
		end += int64(n)
		if err != nil && end < limit {
			return nil
		}
	}
	return hashAt(path, 0, limit)
}

// headMatches reports whether the file's head, up to offset, hashes to
// want (as hashHead made it): its first line with its newline, or
// without it (a first line read before its newline was written), or its
// first offset bytes. A nil want matches anything.
func headMatches(path string, offset int64, want []byte) bool {
	if want == nil {
		return true
	}
	f, err := openFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var end int64
	buf := make([]byte, 64<<10)
	for end < offset {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), offset-end)], end)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			nl := end + int64(i)
			return bytes.Equal(hashAt(path, 0, nl+1), want) || bytes.Equal(hashAt(path, 0, nl), want)
		}
		end += int64(n)
		if err != nil && end < offset {
			return false
		}
	}
	return bytes.Equal(hashAt(path, 0, offset), want)
}

// sameHash reports whether the bytes from from to to hash to want (a nil
// want matches anything).
func sameHash(path string, from, to int64, want []byte) bool {
	if want == nil {
		return true
	}
	return bytes.Equal(hashAt(path, from, to), want)
}
