package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// IngestStats says what one read of the transcripts found.
type IngestStats = store.IngestStats

// home is the user's home folder: HOME, USERPROFILE, else the system's.
func (m *Machine) home() string {
	if h := m.getenv("HOME"); h != "" {
		return h
	}
	if h := m.getenv("USERPROFILE"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// StorePath is the local usage store: DBPath, else the path Store (or
// MCPCOST_STORE) names, else usage.db in the user's data
// folder (XDG_DATA_HOME or ~/.local/share, ~/Library/Application Support,
// %LOCALAPPDATA%).
func (m *Machine) StorePath() (string, error) {
	if m.DBPath != "" {
		return m.DBPath, nil
	}
	if spec, err := m.storeSpec(); err != nil {
		return "", err
	} else if spec.path != "" {
		return spec.path, nil
	}
	var dir string
	h := m.home()
	switch runtime.GOOS {
	case "windows":
		dir = m.getenv("LOCALAPPDATA")
		if dir == "" && h != "" {
			dir = filepath.Join(h, "AppData", "Local")
		}
	case "darwin":
		if h != "" {
			dir = filepath.Join(h, "Library", "Application Support")
		}
	default:
		dir = m.getenv("XDG_DATA_HOME")
		if dir == "" && h != "" {
			dir = filepath.Join(h, ".local", "share")
		}
	}
	if dir == "" {
		return "", &hinted{errors.New("no home folder to keep the usage store in"), "name a store with --db PATH"}
	}
	return filepath.Join(dir, "mcpcost", "usage.db"), nil
}

// ConfigDir is the user's config folder: XDG_CONFIG_HOME, else the
// system's (~/.config, ~/Library/Application Support, %AppData%).
func (m *Machine) ConfigDir() (string, error) {
	if d := m.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	h := m.home()
	switch runtime.GOOS {
	case "windows":
		if d := m.getenv("APPDATA"); d != "" {
			return d, nil
		}
	case "darwin":
		if h != "" {
			return filepath.Join(h, "Library", "Application Support"), nil
		}
	default:
		if h != "" {
			return filepath.Join(h, ".config"), nil
		}
	}
	return "", errors.New("no config folder to keep the serve token in")
}

// TranscriptRoots are the folders transcripts are read from: ClaudeDirs
// and CodexDirs, or the clients' own folders; a Claude Code folder with a
// projects/ folder is read there, a Codex folder in sessions/ and
// archived_sessions/.
func (m *Machine) TranscriptRoots() (claude, codex []string) {
	sys := clients.System{Home: m.home(), Getenv: m.getenv}
	claudeDirs, codexDirs := m.ClaudeDirs, m.CodexDirs
	if len(claudeDirs) == 0 {
		claudeDirs = clients.ClaudeTranscriptDirs(sys)
	}
	if len(codexDirs) == 0 {
		codexDirs = clients.CodexTranscriptDirs(sys)
	}
	for _, d := range claudeDirs {
		if isDir(filepath.Join(d, "projects")) {
			d = filepath.Join(d, "projects")
		}
		claude = append(claude, d)
	}
	for _, d := range codexDirs {
		if isDir(filepath.Join(d, "sessions")) || isDir(filepath.Join(d, "archived_sessions")) {
			codex = append(codex, filepath.Join(d, "sessions"), filepath.Join(d, "archived_sessions"))
			continue
		}
		codex = append(codex, d)
	}
	return claude, codex
}

// CopilotRoots are the folders GitHub Copilot CLI sessions are read from:
// CopilotDirs, or its own folders; a folder with a session-state/ folder
// is read there.
func (m *Machine) CopilotRoots() []string {
	dirs := m.CopilotDirs
	if len(dirs) == 0 {
		dirs = clients.CopilotTranscriptDirs(clients.System{Home: m.home(), Getenv: m.getenv})
	}
	var roots []string
	for _, d := range dirs {
		if isDir(filepath.Join(d, "session-state")) {
			d = filepath.Join(d, "session-state")
		}
		roots = append(roots, d)
	}
	return roots
}

// GooseRoots are the folders Goose's sessions.db is read from: GooseDirs
// (a GOOSE_PATH_ROOT-style folder is read in data/sessions, a data folder
// in sessions/), or its own folders.
func (m *Machine) GooseRoots() []string {
	dirs := m.GooseDirs
	if len(dirs) == 0 {
		return clients.GooseTranscriptDirs(clients.System{Home: m.home(), Getenv: m.getenv})
	}
	var roots []string
	for _, d := range dirs {
		switch {
		case isDir(filepath.Join(d, "data", "sessions")):
			d = filepath.Join(d, "data", "sessions")
		case isDir(filepath.Join(d, "sessions")):
			d = filepath.Join(d, "sessions")
		}
		roots = append(roots, d)
	}
	return roots
}

// GeminiRoots are the Gemini CLI folders chats are read from: GeminiDirs,
// or GEMINI_DATA_DIR, or ~/.gemini.
func (m *Machine) GeminiRoots() []string {
	if len(m.GeminiDirs) > 0 {
		return m.GeminiDirs
	}
	return clients.GeminiTranscriptDirs(clients.System{Home: m.home(), Getenv: m.getenv})
}

// OpencodeRoots are the opencode folders sessions are read from:
// OpencodeDirs, or OPENCODE_DATA_DIR, or ~/.local/share/opencode.
func (m *Machine) OpencodeRoots() []string {
	if len(m.OpencodeDirs) > 0 {
		return m.OpencodeDirs
	}
	return clients.OpencodeTranscriptDirs(clients.System{Home: m.home(), Getenv: m.getenv})
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// checkProject refuses a --project that names neither a folder nor the
// project of any session in the store, with the nearest project's name
// when one is close: a filter that matches nothing is a typo far more often
// than a question. For a remote caller, a folder is no project: only those
// of the store are, and the folder is not looked at.
// shown is the project as the user named it (project may be its hash).
func (m *Machine) checkProject(ctx context.Context, st *store.Store, project, shown string, remote bool) error {
	if project == "" || (!remote && isDir(project)) {
		return nil
	}
	ss, err := st.Sessions(ctx)
	if err != nil {
		return err
	}
	for _, s := range ss {
		if store.ProjectMatch(project, s.Project) {
			return nil
		}
	}
	what := textsafe.Short(shown)
	if shown != project {
		what += " (" + textsafe.Short(project) + ")"
	}
	why := "no such folder, and no session of such a project in the usage store"
	hint := m.flag("project") + " takes a project's folder, or the path or folder name of a project in the usage store ('mcpcost usage --by project' lists them)"
	switch {
	case remote && len(ss) == 0:
		why, hint = "no session of such a project in the usage store", "the usage store holds no session yet"
	case remote:
		why, hint = "no session of such a project in the usage store", m.flag("project")+" takes the path or folder name of a project in the usage store (by project lists them)"
	case len(ss) == 0:
		hint = "the usage store holds no session yet; " + m.flag("project") + " takes a project's folder"
	}
	return WithHint(fmt.Errorf("%s %s: %s", m.flag("project"), what, why), hint)
}

// IngestOptions configure [Machine.Ingest].
type IngestOptions struct {
	// Roots, when set, are the transcript folders as they are read, in
	// place of [Machine.TranscriptRoots].
	Roots *[2][]string
	// CopilotRoots are, when Roots is set, the Copilot CLI folders as they
	// are read, in place of [Machine.CopilotRoots].
	CopilotRoots []string
	// GooseRoots are, when Roots is set, Goose's folders as they are
	// read, in place of [Machine.GooseRoots].
	GooseRoots []string
	// GeminiRoots and OpencodeRoots are, when Roots is set, the Gemini CLI
	// and opencode folders as they are read, in place of
	// [Machine.GeminiRoots] and [Machine.OpencodeRoots].
	GeminiRoots, OpencodeRoots []string
	// Progress is told of the files read; nil for none.
	Progress Progress
	// Now stamps the read; nil for the store's clock.
	Now func() time.Time
}

// Ingest reads what is new in the transcripts into the usage store,
// creating it when needed.
func (m *Machine) Ingest(ctx context.Context, o IngestOptions) (*IngestStats, error) {
	path, err := m.StorePath()
	if err != nil {
		return nil, err
	}
	st, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return m.ingest(ctx, st, path, o)
}

// ingestHeap is the heap an ingest asks the garbage collector to keep
// under (a soft limit, see runtime/debug.SetMemoryLimit), unless
// GOMEMLIMIT sets one: what an ingest keeps is small beside what it reads
// (a bounded cache of recent message ids and a filter of the stored ones,
// about 4 MB for 2 GB of transcripts), and without a limit the heap grows
// to twice what it keeps. Past the limit
// (a history several times that size) the collector runs more often, its
// share of the CPU capped by the runtime, and the heap grows on.
const ingestHeap = 64 << 20

// findingsHeap is the same for the findings (and the report), which hold
// the window's requests and tool calls.
const findingsHeap = 96 << 20

// limits counts the operations running under a limit, so that the first
// sets it (and those it starts keep it) and the last puts back what was
// there before.
var limits struct {
	sync.Mutex
	n     int
	prior int64
}

// limitHeap sets the soft limit of the heap to limit bytes, unless
// GOMEMLIMIT (or an operation running) set one.
func limitHeap(limit int64) (restore func()) {
	limits.Lock()
	defer limits.Unlock()
	if limits.n == 0 {
		limits.prior = debug.SetMemoryLimit(-1)
		if limits.prior == math.MaxInt64 {
			debug.SetMemoryLimit(limit)
		}
	}
	limits.n++
	return func() {
		limits.Lock()
		defer limits.Unlock()
		if limits.n--; limits.n == 0 {
			debug.SetMemoryLimit(limits.prior)
		}
	}
}

func (m *Machine) ingest(ctx context.Context, st *store.Store, path string, o IngestOptions) (*IngestStats, error) {
	defer limitHeap(ingestHeap)()
	var claude, codex, copilot, goose, gemini, opencode []string
	if o.Roots != nil {
		claude, codex, copilot, goose = o.Roots[0], o.Roots[1], o.CopilotRoots, o.GooseRoots
		gemini, opencode = o.GeminiRoots, o.OpencodeRoots
	} else {
		claude, codex = m.TranscriptRoots()
		copilot, goose = m.CopilotRoots(), m.GooseRoots()
		gemini, opencode = m.GeminiRoots(), m.OpencodeRoots()
	}
	stats, err := st.Ingest(ctx, store.IngestOptions{
		ClaudeRoots:   claude,
		CodexRoots:    codex,
		CopilotRoots:  copilot,
		GooseRoots:    goose,
		GeminiRoots:   gemini,
		OpencodeRoots: opencode,
		Count:         lazyCounter{}.Count, // its tables are built when a result is counted
		Progress:      o.Progress.ingestSteps(),
		Now:           o.Now,
	})
	if err != nil {
		return nil, fmt.Errorf("reading transcripts into %s: %w", path, err)
	}
	return stats, nil
}

// StoreOptions say how a query reaches the usage store.
type StoreOptions struct {
	// NoIngest queries the store as it is: opened read-only (unless
	// Write), it writes nothing (it answers on a full disk or from a
	// folder it may not write), and a store that does not exist is a
	// *NoStoreError. With a shared store, nothing is read or pushed: the
	// reports read the shared store as it stands.
	NoIngest bool
	// Progress is told of the ingest's files read.
	Progress Progress
	// Refresh, when set, brings the store up to date before the query,
	// once the options are checked (the MCP server reads transcripts in
	// the background, and waits for that read a bounded time).
	Refresh func(ctx context.Context) error
	// Local opens the local store whatever Machine.Store names (the
	// status line, which never waits on the network; a push).
	Local bool
	// Write opens the local store writable even with NoIngest: a push
	// records in it what it sent, so that the next one sends only what
	// changed.
	Write bool
}

// openStore opens the usage store for a query, after an ingest unless
// o.NoIngest; stats is nil without one. With a shared store (Machine.Store
// or MCPCOST_STORE a postgres:// URL), the ingest goes into the local
// store, what is new there is pushed as this machine's, and the store
// returned is the local replica of the shared store, brought up to date.
func (m *Machine) openStore(ctx context.Context, o StoreOptions) (st *store.Store, stats *IngestStats, err error) {
	if o.Refresh != nil {
		if err := o.Refresh(ctx); err != nil {
			return nil, nil, err
		}
	}
	spec, err := m.storeSpec()
	if err != nil {
		return nil, nil, err
	}
	if spec.shared() && !o.Local {
		return m.openShared(ctx, spec.url, o)
	}
	return m.openLocal(ctx, o)
}

// openLocal opens the local store, after an ingest unless o.NoIngest.
func (m *Machine) openLocal(ctx context.Context, o StoreOptions) (st *store.Store, stats *IngestStats, err error) {
	path, err := m.StorePath()
	if err != nil {
		return nil, nil, err
	}
	machine, user, err := m.identity()
	if err != nil {
		return nil, nil, err
	}
	if o.NoIngest {
		if _, err := os.Stat(path); err != nil {
			return nil, nil, &NoStoreError{Path: path, Err: err}
		}
		open := store.OpenForReport
		if o.Write {
			open = store.Open
		}
		st, err := open(path)
		if older := (*store.OlderSchemaError)(nil); errors.As(err, &older) {
			return nil, nil, WithHint(err, "run 'mcpcost usage' once without --no-ingest, as a user who can write the store, to bring it up to date")
		}
		if err != nil {
			return nil, nil, damagedHint(path, err)
		}
		setSelf(st, machine, user)
		return st, nil, nil
	}
	if st, err = store.Open(path); err != nil {
		return nil, nil, damagedHint(path, err)
	}
	setSelf(st, machine, user)
	if stats, err = m.ingest(ctx, st, path, IngestOptions{Progress: o.Progress}); err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, stats, nil
}

// damagedHint gives a store that SQLite finds is not a database, or is
// damaged, the way out: mcpcost has not changed it, and a new store is
// made from the transcripts, which hold everything it was made of but
// what a pull from a shared store brought.
func damagedHint(path string, err error) error {
	if !store.Damaged(err) {
		return err
	}
	return WithHint(err, "the file is not an mcpcost store, or is damaged (mcpcost has not changed it): move it aside (mv "+
		shellQuote(path)+" "+shellQuote(path+".damaged")+") and run again to make a new one from the transcripts, or name another store with --db")
}

// sharedHint is what a report says when the shared store cannot be
// reached: nothing read was lost.
const sharedHint = "the local store kept everything read from the transcripts; 'mcpcost push' sends it once the shared store answers"

// openShared reads what is new into the local store and pushes it
// (unless o.NoIngest), then opens the local replica of the shared store
// at url, brought up to date.
func (m *Machine) openShared(ctx context.Context, url string, o StoreOptions) (*store.Store, *IngestStats, error) {
	var stats *IngestStats
	note := ProgressEvent{Work: WorkShared, Phase: PhaseNote, Store: redact.DSN(url)}
	if !o.NoIngest {
		local, s, err := m.openLocal(ctx, o)
		if err != nil {
			return nil, nil, err
		}
		stats = s
		p, err := m.pushStore(ctx, local, url)
		local.Close()
		if err != nil {
			return nil, nil, err
		}
		note.Pushed = p.PushStats
	}
	if o.Progress != nil {
		o.Progress(note)
	}
	mst, err := m.openMirror(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	return mst, stats, nil
}

// pushStore pushes what st holds to the shared store at url as this
// machine's, project paths hashed with RedactProjects.
func (m *Machine) pushStore(ctx context.Context, st *store.Store, url string) (*pushed, error) {
	machine, user, err := m.identity()
	if err != nil {
		return nil, err
	}
	po := store.PushOptions{Machine: machine, User: user, Now: m.Now}
	if m.RedactProjects {
		if po.ProjectKey, err = m.projectKey(); err != nil {
			return nil, err
		}
	}
	stats, err := st.Push(ctx, url, po)
	var keyErr *store.ProjectKeyError
	if errors.As(err, &keyErr) {
		return nil, sharedError(url, err, m.projectKeyHint(keyErr))
	}
	if err != nil {
		return nil, sharedError(url, err, "nothing was sent: the shared store is as it was; "+sharedHint)
	}
	return &pushed{stats, machine, user}, nil
}

// pushed is what a push did, as whom.
type pushed struct {
	*store.PushStats
	machine, user string
}

// projectKeyHint says how to push to a shared store whose project key is
// not this push's: with --redact-projects and the team's key, or without.
func (m *Machine) projectKeyHint(e *store.ProjectKeyError) string {
	if !e.Keyed {
		return "nothing was sent; push without --redact-projects, or with it to a new shared store"
	}
	file, err := m.projectKeyFile()
	if err != nil {
		file = "mcpcost/project-key in the config folder"
	}
	if !e.Sent {
		return "nothing was sent; add --redact-projects, with the team's key in MCPCOST_PROJECT_KEY or in the key file " + file + " (copy it from a machine that pushed)"
	}
	return "nothing was sent; use the team's key: MCPCOST_PROJECT_KEY, or the key file " + file + " copied from a machine that pushed"
}
