package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/mcpcost/mcpcost/internal/transcript"
)

// A storeSpec is the usage store a command reports from: the local
// SQLite store at path ("" for the default place), or the shared
// PostgreSQL store at url.
type storeSpec struct {
	path string
	url  string
}

func (s storeSpec) shared() bool { return s.url != "" }

// storeSpec reads the store named by m.Store, else by MCPCOST_STORE:
// "sqlite:PATH" or a plain path for a local store, a postgres:// or
// postgresql:// URL for a shared one; none for the local store in the
// user's data folder. --db names the local store too: given with a
// local --store, the two exclude each other; MCPCOST_STORE's local path
// gives way to it.
func (m *Machine) storeSpec() (storeSpec, error) {
	name, fromEnv := m.Store, false
	if name == "" {
		name, fromEnv = m.getenv("MCPCOST_STORE"), true
	}
	what := m.flag("store") + " " + redact.DSN(name)
	if fromEnv {
		what = "MCPCOST_STORE=" + redact.DSN(name)
	}
	var s storeSpec
	switch {
	case name == "":
		return s, nil
	case store.IsPostgresURL(name):
		s.url = name
		return s, nil
	case strings.HasPrefix(name, "sqlite:"):
		s.path = strings.TrimPrefix(strings.TrimPrefix(name, "sqlite:"), "//")
		if s.path == "" {
			return s, optionErrorf("%s: sqlite: names no file (sqlite:PATH)", what)
		}
	case strings.Contains(name, "://"):
		return s, WithHint(fmt.Errorf("%s: not a store mcpcost reads", what),
			"name sqlite:PATH (or a path) for a local store, or a postgres:// URL for a shared one")
	default:
		s.path = name
	}
	if m.DBPath != "" {
		if !fromEnv {
			return s, optionErrorf("%s and %s both name the local store: give one", m.flag("store"), m.flag("db"))
		}
		s.path = m.DBPath
	}
	return s, nil
}

// Shared reports whether the commands report from a shared PostgreSQL
// store (--store or MCPCOST_STORE names one), and its URL without its
// password.
func (m *Machine) Shared() (redacted string, ok bool) {
	s, err := m.storeSpec()
	if err != nil || !s.shared() {
		return "", false
	}
	return redact.DSN(s.url), true
}

// MachineName is this machine's name in a shared store, and in its
// local store's rows: Machine.MachineName, else MCPCOST_MACHINE, else the
// host name.
func (m *Machine) machineName() (string, error) {
	name := m.MachineName
	if name == "" {
		name = m.getenv("MCPCOST_MACHINE")
	}
	if name == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			return "", &hinted{errors.New("this machine has no host name"), "name it with " + m.flag("machine") + " NAME or MCPCOST_MACHINE"}
		}
		name = h
	}
	if why := badMachineName(name); why != "" {
		// Quote escapes what the name holds: the terminal never gets it raw.
		return "", optionErrorf("%s %s: %s; a machine name is 1 to 255 bytes of UTF-8 text, without control characters or surrounding spaces", m.flag("machine"), textsafe.Quote(name), why)
	}
	return name, nil
}

// badMachineName says what is wrong with a machine name, "" when nothing
// is: the name is stored in the shared store and shown by every report.
func badMachineName(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case !utf8.ValidString(name):
		return "the name is not UTF-8"
	case len(name) > 255:
		return fmt.Sprintf("the name is %d bytes long", len(name))
	case strings.TrimSpace(name) != name:
		return "the name has spaces around it"
	}
	for _, r := range name {
		if textsafe.Unsafe(r) {
			return fmt.Sprintf("the name holds %U, a control or invisible character", r)
		}
	}
	return ""
}

// identity is who this machine's rows are: its name and the OS user.
func (m *Machine) identity() (machine, user string, err error) {
	machine, err = m.machineName()
	return machine, textsafe.Text(osUser()), err // a login name is stored as it is shown
}

// sharedError is a failure to reach a shared store: its message names
// the store without its password (scrubbed of it wherever the driver put
// it; the store's own errors name the URL already), and its hint says
// that the local store lost nothing.
func sharedError(url string, err error, hint string) error {
	msg := err.Error()
	for _, secret := range redact.DSNSecrets(url) {
		// As every scrubber: a shorter value is in many words.
		if len(secret) >= redact.MinSecret {
			msg = strings.ReplaceAll(msg, secret, "***")
		}
	}
	if !strings.Contains(msg, redact.DSN(url)) && !strings.Contains(msg, "://") {
		msg = redact.DSN(url) + ": " + msg
	}
	return &hinted{errors.New(msg), hint}
}

// mirrorPath is where the local read replica of the shared store at url
// is kept: under mcpcost's cache folder, named from a hash of the URL
// without its password (so that a changed password keeps the replica,
// and the name tells nothing of the URL).
func (m *Machine) mirrorPath(url string) (string, error) {
	dir := m.getenv("XDG_CACHE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder to keep the shared store's replica in: %w", err)
		}
		dir = d
	}
	dir = filepath.Join(dir, "mcpcost", "shared")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the shared store's replica folder: %w", err)
	}
	return store.MirrorFile(dir, url), nil
}

// projectKeyFile is the file that holds the key project paths are hashed
// under with --redact-projects, when MCPCOST_PROJECT_KEY is not set.
func (m *Machine) projectKeyFile() (string, error) {
	dir, err := m.ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "mcpcost", "project-key"), nil
}

// projectKey is the key project paths are hashed under: MCPCOST_PROJECT_KEY,
// else the text of the key file, created (64 random hex digits, readable
// by the user alone) on first use. Machines whose projects are to be
// grouped together share the key.
func (m *Machine) projectKey() ([]byte, error) {
	if k := strings.TrimSpace(m.getenv("MCPCOST_PROJECT_KEY")); k != "" {
		if len(k) < 16 {
			return nil, WithHint(errors.New("MCPCOST_PROJECT_KEY is too short to be a key"), "use at least 16 characters, such as the 64 hex digits of the key file 'mcpcost help push' names")
		}
		return []byte(k), nil
	}
	file, err := m.projectKeyFile()
	if err != nil {
		return nil, WithHint(err, "set MCPCOST_PROJECT_KEY")
	}
	b, err := os.ReadFile(file)
	if err == nil {
		k := strings.TrimSpace(string(b))
		if len(k) < 16 {
			return nil, WithHint(fmt.Errorf("the project key file %s is too short to hold a key", file), "remove it to have a new one made, or copy a teammate's")
		}
		return []byte(k), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the project key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, fmt.Errorf("creating the project key: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	k := hex.EncodeToString(raw[:])
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return m.projectKey() // another process made it first
	}
	if err != nil {
		return nil, fmt.Errorf("creating the project key: %w", err)
	}
	if _, err := f.WriteString(k + "\n"); err != nil {
		f.Close()
		os.Remove(file)
		return nil, fmt.Errorf("writing the project key: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("writing the project key: %w", err)
	}
	m.warnf("made a new project key in %s: copy it to your teammates' machines, so that a project's hash is the same on each", file)
	return []byte(k), nil
}

// openMirror opens the local replica of the shared store at url, brought
// up to date with it.
func (m *Machine) openMirror(ctx context.Context, url string) (*store.Store, error) {
	path, err := m.mirrorPath(url)
	if err != nil {
		return nil, err
	}
	st, ms, err := store.OpenMirror(ctx, url, path, store.MirrorOptions{})
	if err != nil {
		return nil, sharedError(url, err, sharedHint)
	}
	if ms.OutOfRange > 0 {
		m.warnf("%s of the shared store left out: %s a time outside 2000-01-01 to 2100-01-01, which no push of mcpcost writes", num.Count(ms.OutOfRange, "row"), num.Plural(ms.OutOfRange, "it has", "they have"))
	}
	if ms.NegativeTokens > 0 {
		m.warnf("%s of the shared store left out: %s a token count below zero, which no push of mcpcost writes", num.Count(ms.NegativeTokens, "row"), num.Plural(ms.NegativeTokens, "it has", "they have"))
	}
	return st, nil
}

// setSelf tells a local store whose rows it holds: this machine's and
// user's, so that a filter by machine or user finds them.
func setSelf(st *store.Store, machine, user string) { st.SetSelf(machine, user) }

// Sync reads what is new in the transcripts into the local store, as
// [Machine.Ingest] does, and with a shared store (Store or MCPCOST_STORE)
// then pushes what the local store holds as this machine's. A push that
// fails returns the ingest's stats with its error: the local store keeps
// what was read.
func (m *Machine) Sync(ctx context.Context, o IngestOptions) (*IngestStats, error) {
	spec, err := m.storeSpec()
	if err != nil {
		return nil, err
	}
	path, err := m.StorePath()
	if err != nil {
		return nil, err
	}
	st, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	stats, err := m.ingest(ctx, st, path, o)
	if err != nil || !spec.shared() {
		return stats, err
	}
	if _, err := m.pushStore(ctx, st, spec.url); err != nil {
		return stats, err
	}
	return stats, nil
}

// CheckMachine refuses a machine name (MachineName, MCPCOST_MACHINE) that
// no store would take, before a long-running command starts.
func (m *Machine) CheckMachine() error {
	_, err := m.machineName()
	return err
}

// projectFilter is a --project filter as the store names projects: with
// a shared store and RedactProjects, a project's path (a folder's full
// path; for a remote caller, the path as given; either shortened as the
// store keeps it) by its keyed hash, the name --by project lists; a hash
// stays as it is.
func (m *Machine) projectFilter(project string, remote bool) (string, error) {
	if project == "" || !m.RedactProjects || strings.HasPrefix(project, "p:") {
		return project, nil
	}
	if spec, err := m.storeSpec(); err != nil || !spec.shared() {
		return project, err
	}
	key, err := m.projectKey()
	if err != nil {
		return "", err
	}
	if !remote && isDir(project) {
		if abs, err := filepath.Abs(project); err == nil {
			project = abs
		}
	}
	// The store keeps a path over transcript.MaxName shortened, and a
	// push hashes it as kept: so is the filter's.
	return store.ProjectHash(key, transcript.BoundName(strings.TrimRight(project, `/\`))), nil
}

// sharedStore is the shared store a query with o reads (its URL without
// its password), or "" for the local store.
func (m *Machine) sharedStore(o StoreOptions) string {
	spec, err := m.storeSpec()
	if err != nil || !spec.shared() || o.Local {
		return ""
	}
	return redact.DSN(spec.url)
}
