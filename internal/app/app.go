// Package app is mcpcost on this machine: the one layer that wires the
// leaf packages together, used alike by the command line (internal/cli)
// and the MCP server (internal/serve), so that both give the same answer
// by construction.
//
// A [Machine] says where things are: the environment and the clock, the
// measurement cache, the usage store and the transcript folders. Its
// methods are the operations, each with one options type:
// [Machine.Clients], [Machine.Audit], [Machine.Measure], [Machine.Ingest],
// [Machine.Usage], [Machine.Findings] (and its overview, the report) and
// [Machine.SessionTools]; [Machine.Prices] is the price table in force.
// They return the report types of the packages that compute them (audit,
// measure, usage, findings); the front ends render them, or make their
// compact results of them. Neither front end imports the store, the
// transcript readers or the MCP client: they reach them through here.
//
// The consent rules are those of internal/clients: a project's own config
// files are launched only where their client approved them, or on the
// user's word ([AuditOptions.TrustProject], a config file named).
package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	_ "time/tzdata" // time zones work on machines without a zoneinfo database

	"github.com/mcpcost/mcpcost/internal/clients"
)

// Machine is mcpcost on this machine. The zero value serves the real one,
// with the default folders.
type Machine struct {
	// Version is mcpcost's version, named to servers and in reports.
	Version string
	// Getenv reads the environment; nil for os.Getenv.
	Getenv func(string) string
	// Now is the clock; nil for time.Now.
	Now func() time.Time
	// FlagPrefix spells an option in an error message: "--" where options
	// are command-line flags, "" where they are MCP tool arguments.
	FlagPrefix string
	// Warn receives what went wrong without stopping an operation (a
	// measurement cache that cannot be opened); nil drops it.
	Warn func(msg string)

	// CacheDir is the measurement cache; "" for audit.DefaultCacheDir.
	CacheDir string
	// DBPath is the usage store; "" for usage.db in the user's data
	// folder (see [Machine.StorePath]).
	DBPath string
	// ClaudeDirs and CodexDirs are the transcript folders; none for the
	// clients' own (clients.ClaudeTranscriptDirs, CodexTranscriptDirs).
	ClaudeDirs, CodexDirs []string
	// CopilotDirs are GitHub Copilot CLI's folders; none for its own
	// (clients.CopilotTranscriptDirs).
	CopilotDirs []string
	// GooseDirs are Goose's folders; none for its own
	// (clients.GooseTranscriptDirs).
	GooseDirs []string
	// Store is the store reports read: "sqlite:PATH" or a path for a
	// local one, a postgres:// URL for a shared one; "" for
	// MCPCOST_STORE, else the local store (see [Machine.StorePath]).
	// With a shared store, what is new in the transcripts is read into
	// the local store, pushed, and the reports read a local replica of
	// the shared store.
	Store string
	// MachineName names this machine's rows; "" for MCPCOST_MACHINE,
	// else the host name.
	MachineName string
	// RedactProjects pushes project paths as keyed hashes (see
	// [PushOptions.RedactProjects]).
	RedactProjects bool
	// GeminiDirs are Gemini CLI's folders (~/.gemini); none for its own
	// (GEMINI_DATA_DIR, else ~/.gemini).
	GeminiDirs []string
	// OpencodeDirs are opencode's folders; none for its own
	// (OPENCODE_DATA_DIR, else ~/.local/share/opencode).
	OpencodeDirs []string
}

func (m *Machine) getenv(name string) string {
	if m.Getenv == nil {
		return os.Getenv(name)
	}
	return m.Getenv(name)
}

func (m *Machine) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

// clock is m's clock as a function, for the packages that take one.
func (m *Machine) clock() func() time.Time {
	if m.Now == nil {
		return time.Now
	}
	return m.Now
}

func (m *Machine) version() string {
	if m.Version == "" {
		return "dev"
	}
	return m.Version
}

func (m *Machine) generator() string { return "mcpcost " + m.version() }

func (m *Machine) warnf(format string, a ...any) {
	if m.Warn != nil {
		m.Warn(fmt.Sprintf(format, a...))
	}
}

// flag spells option name as the front end does: a flag of the command
// line ("--token-limit"), or an argument of an MCP tool ("token_limit").
func (m *Machine) flag(name string) string {
	if m.FlagPrefix == "" {
		return strings.ReplaceAll(name, "-", "_")
	}
	return m.FlagPrefix + name
}

// system is the machine as the clients see it, from project (a folder;
// "" for the current one).
func (m *Machine) system(project string, trust bool) (clients.System, error) {
	sys, err := clients.Local(m.getenv, project)
	sys.TrustProject = trust
	return sys, err
}

// OptionError is an option the caller got wrong: the command line answers
// it as a usage error. Of an option that takes one of a few words, Flag,
// Value and Values are the option as the caller spells it, the word given
// and the words it takes, so that the nearest can be suggested.
type OptionError struct {
	msg    string
	Flag   string
	Value  string
	Values []string
}

func (e *OptionError) Error() string { return e.msg }

func optionErrorf(format string, a ...any) error {
	return &OptionError{msg: fmt.Sprintf(format, a...)}
}

// valueErrorf is the error of flag's value, none of values.
func valueErrorf(flag, value string, values []string, format string, a ...any) error {
	return &OptionError{msg: fmt.Sprintf(format, a...), Flag: flag, Value: value, Values: values}
}

// ErrNoCache is the answer of an audit that may launch nothing when there
// is no measurement cache to answer from.
var ErrNoCache = errors.New("the measurement cache is unavailable")

// NoStoreError is the answer of a query when the usage store does not
// exist yet (nothing was ever read into it).
type NoStoreError struct {
	Path string
	Err  error
}

func (e *NoStoreError) Error() string { return "no usage store at " + e.Path }
func (e *NoStoreError) Unwrap() error { return e.Err }

// WithHint attaches to err a hint: what to do about it, which the
// command line prints on its own line ("mcpcost: hint: ..."); nil for nil.
func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hinted{err, hint}
}

// hasHint reports whether err carries a hint of its own.
func hasHint(err error) bool {
	var h interface{ Hint() string }
	return errors.As(err, &h) && h.Hint() != ""
}

// hinted is an error with a hint line.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

// Hint says what to do about the error.
func (h *hinted) Hint() string { return h.hint }

// Location resolves a time zone as the reports take it: an IANA name,
// "UTC" or "local"; "" for $TZ, else the system's zone. The system's zone
// is named as the IANA zone /etc/localtime links to where it does, so that
// reports never call it "Local" (usage.ZoneName words one without a name).
func (m *Machine) Location(tz string) (*time.Location, error) {
	if strings.EqualFold(tz, "local") {
		tz = ""
	}
	fromEnv := tz == ""
	if fromEnv {
		tz = strings.TrimPrefix(m.getenv("TZ"), ":") // POSIX allows TZ=:Europe/Paris
	}
	switch strings.ToLower(tz) {
	case "", "local":
		return localZone(), nil
	case "utc", "z":
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil && fromEnv {
		// A TZ that is no IANA name (a POSIX rule such as CET-1CEST)
		// is the system's business: Go's own reading of it stands.
		return time.Local, nil
	}
	return loc, err
}

// localtime is the file that names the system's zone: a link into a
// zoneinfo tree.
var localtime = "/etc/localtime"

// localZone is the system's zone, by the IANA name localtime links to when
// it links into a zoneinfo tree, else time.Local.
func localZone() *time.Location {
	link, err := os.Readlink(localtime)
	if err != nil {
		return time.Local
	}
	i := strings.LastIndex(link, "zoneinfo/")
	if i < 0 {
		return time.Local
	}
	name := strings.TrimPrefix(link[i+len("zoneinfo/"):], "posix/")
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.Local
	}
	return loc
}

// CheckInputs refuses the folders and files named explicitly that do not
// exist: a transcript folder (ClaudeDirs, CodexDirs) that is not a folder,
// a store (DBPath) whose folder is missing, a --store that names no store
// mcpcost reads. The front end calls it when
// the user named them: the default places are created or skipped, what
// the user named is never guessed at.
func (m *Machine) CheckInputs() error {
	for _, d := range []struct {
		flag, what string
		dirs       []string
	}{{"claude-dir", "Claude Code's folder (~/.claude, or its projects folder)", m.ClaudeDirs}, {"codex-dir", "Codex's folder (~/.codex, or its sessions folder)", m.CodexDirs},
		{"copilot-dir", "GitHub Copilot CLI's folder (~/.copilot, or its session-state folder)", m.CopilotDirs},
		{"goose-dir", "Goose's folder (GOOSE_PATH_ROOT, or the sessions folder that holds sessions.db)", m.GooseDirs},
		{"gemini-dir", "Gemini CLI's folder (~/.gemini, or GEMINI_DATA_DIR)", m.GeminiDirs},
		{"opencode-dir", "opencode's folder (~/.local/share/opencode, or OPENCODE_DATA_DIR)", m.OpencodeDirs}} {
		for _, dir := range d.dirs {
			fi, err := os.Stat(dir)
			switch {
			case err != nil:
				return WithHint(fmt.Errorf("%s %s: no such folder", m.flag(d.flag), dir), m.flag(d.flag)+" takes "+d.what)
			case !fi.IsDir():
				return WithHint(fmt.Errorf("%s %s: not a folder", m.flag(d.flag), dir), m.flag(d.flag)+" takes "+d.what)
			}
		}
	}
	spec, err := m.storeSpec()
	if err != nil {
		return err
	}
	if m.RedactProjects && !spec.shared() {
		return optionErrorf("%s goes with a shared store: %s postgres://... or MCPCOST_STORE", m.flag("redact-projects"), m.flag("store"))
	}
	if m.DBPath != "" {
		dir := filepath.Dir(m.DBPath)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return WithHint(fmt.Errorf("%s %s: the folder %s does not exist", m.flag("db"), m.DBPath, dir),
				"create it first (mkdir -p "+dir+"), or leave out "+m.flag("db")+" for the store in the user's data folder")
		}
	}
	return nil
}
