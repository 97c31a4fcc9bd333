package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpcost/mcpcost/internal/num"
)

// Limits on reading config files. A config comes from the user's home or
// from a project folder, which may be a cloned repository: a file may be a
// link to a device, a named pipe, or a document built to exhaust memory or
// the stack. What is over a limit is refused before it is parsed, with an
// error naming the file and the limit.
//
// Memory: a file is held whole while it is read (at most its size cap).
// Decoding costs per value, not per byte (a value may take two bytes):
// measured, about 100 bytes a value while a JSON file is decoded, 160 for
// TOML and 250 for YAML, of which 40 to 60 are kept. MaxConfigValues and
// MaxYAMLValues bound the values of one file, MaxRunValues those of all
// the files one run decodes; ~/.claude.json's other projects are skipped
// unread.
const (
	// MaxConfigSize is the largest config or settings file read, in bytes.
	MaxConfigSize = 4 << 20
	// MaxClaudeStateSize is the largest ~/.claude.json read: Claude Code
	// keeps its per-project state and history there beside the servers,
	// and real files reach tens of MB. Only its top level and the entries
	// of the project folder and its parents are decoded.
	MaxClaudeStateSize = 256 << 20
	// MaxGitIndexSize is the largest git index read to tell whether git
	// tracks a settings file (a large repository's index passes 4 MiB).
	MaxGitIndexSize = 256 << 20
	// MaxConfigDepth is the deepest nesting of arrays and objects (JSON,
	// TOML) or of collections (YAML) in a config, checked before parsing.
	MaxConfigDepth = 1000
	// MaxConfigValues is the most values decoded from one JSON or TOML
	// file: JSON's objects, arrays, members and elements, TOML's tables,
	// keys, arrays and elements (see countJSON, countTOML).
	MaxConfigValues = 1 << 20
	// MaxYAMLValues is the most nodes decoded from one YAML file, its
	// aliases expanded (see countYAML, yamlSize): the YAML parser builds a
	// tree of the whole document first, at about three times JSON's cost
	// per value.
	MaxYAMLValues = 1 << 18
	// MaxRunValues is the most values decoded from all the config files
	// one run reads (a command, a serve request): a file that would pass it
	// is refused unread, the others are still read.
	MaxRunValues = 1 << 21
	// MaxServers is the most server entries read from one config; a file
	// declaring more is refused.
	MaxServers = 10000
)

// thousands formats n with thousands separators, as [num.Int] does.
func thousands(n int) string { return num.Int(n) }

// A LimitError is a config file refused before or instead of parsing: over
// a size, nesting, value or server cap, or not a regular file. Line and Col,
// when known, say where the cap was passed.
type LimitError struct {
	Path string
	Line int
	Col  int
	Msg  string
	// Max is the size cap a file larger than it passed, in bytes; 0 for
	// the other limits.
	Max int64
}

func (e *LimitError) Error() string {
	pos := position(e.Path, e.Line, e.Col)
	return pos + ": " + e.Msg
}

// Hint says what to do about a file over the size cap; "" for the other
// limits, whose remedy depends on why the file was read.
func (e *LimitError) Hint() string {
	if e.Max == 0 {
		return ""
	}
	if e.Max == MaxConfigSize {
		return fmt.Sprintf("an MCP config is rarely over a few KiB: check that this is the config meant, or trim it below %s", formatSize(e.Max))
	}
	return fmt.Sprintf("mcpcost reads this file up to %s: trim it below that (move out what its client does not need)", formatSize(e.Max))
}

// errorHint is the hint a read error carries of its own (see
// [LimitError.Hint]); "" for none.
func errorHint(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	return ""
}

// A MaxReader is a filesystem that can refuse a file larger than a cap
// without reading it. OSFS is one; discovery falls back to ReadFile and a
// length check for others.
type MaxReader interface {
	ReadFileMax(name string, max int64) ([]byte, error)
}

// ReadTimeout bounds the time ReadFileMax spends on one file, opening
// included. Reading a config takes milliseconds, and 256 MiB a few seconds
// on a busy machine; a file that has not been read by then never ends or
// sits on a filesystem that does not answer, and is refused.
const ReadTimeout = 30 * time.Second

// ReadFileMax reads a config file when it is a regular file (after
// following links) of at most max bytes, on a filesystem that stores files
// (not /proc, /sys or another of the kernel's pseudo filesystems, whose
// files pass for regular files and may never end or wait forever). The
// file is opened without blocking and checked again once open, so a named
// pipe put in its place between the two checks cannot hang the read; the
// whole read is bounded by ReadTimeout.
func (OSFS) ReadFileMax(name string, max int64) ([]byte, error) {
	return withDeadline(name, ReadTimeout, func(deadline time.Time) ([]byte, error) {
		return readFileMax(name, max, deadline)
	})
}

// withDeadline runs read and returns what it returns, or a timeout error
// once timeout has passed. A read blocked in the system (a filesystem that
// does not answer) is left behind, its result unused; one that can be
// interrupted is, by the deadline it is given.
func withDeadline(name string, timeout time.Duration, read func(deadline time.Time) ([]byte, error)) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	deadline := time.Now().Add(timeout)
	done := make(chan result, 1)
	go func() {
		data, err := read(deadline)
		done <- result{data, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-done:
		if errors.Is(r.err, os.ErrDeadlineExceeded) {
			return nil, timeoutError(name, timeout)
		}
		return r.data, r.err
	case <-t.C:
		return nil, timeoutError(name, timeout)
	}
}

func timeoutError(name string, timeout time.Duration) error {
	return &LimitError{Path: name, Msg: fmt.Sprintf("not read within %v (a file that does not end, or a filesystem that does not answer): not read", timeout)}
}

func readFileMax(name string, max int64, deadline time.Time) ([]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := regular(name, st, max); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(name, fst, max); err != nil {
		return nil, err
	}
	if !os.SameFile(st, fst) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("the file was replaced while it was being opened")}
	}
	if err := pseudoFS(name, f); err != nil {
		return nil, err
	}
	return readAll(f, name, fst.Size(), max, deadline)
}

// readAll reads f, of size bytes by its status, up to one byte past max
// (the file may grow after the check), until deadline where f can be
// interrupted (a file the system can poll, which a waiting read would
// otherwise wait on forever).
func readAll(f *os.File, name string, size, max int64, deadline time.Time) ([]byte, error) {
	_ = f.SetReadDeadline(deadline) // os.ErrNoDeadline for files that cannot wait
	var b bytes.Buffer
	b.Grow(int(min(size, max)) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > max {
		return nil, sizeError(name, int64(b.Len()), max, true)
	}
	return b.Bytes(), nil
}

// regular refuses what is not a regular file of at most max bytes.
func regular(name string, st fs.FileInfo, max int64) error {
	m := st.Mode()
	if m.IsRegular() {
		if st.Size() > max {
			return sizeError(name, st.Size(), max, false)
		}
		return nil
	}
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a folder"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a block device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	}
	return &LimitError{Path: name, Msg: what + ", not a regular file: config files are read only when they are regular files"}
}

// sizeError refuses a file of size bytes, over the cap max; atLeast says
// that the file grew past max while it was read, its size unknown. The
// sizes are told apart: in bytes where one in MiB would read as the cap.
func sizeError(name string, size, max int64, atLeast bool) error {
	s, m := formatSize(size)+", ", formatSize(max)
	switch {
	case atLeast:
		s = ""
	case strings.TrimSuffix(s, ".0 MiB, ")+" MiB" == m: // 4.0 MiB, over 4 MiB
		s, m = num.Int(int(size))+" bytes, ", fmt.Sprintf("%s (%s-byte)", m, num.Int(int(max)))
	}
	return &LimitError{Path: name, Max: max, Msg: fmt.Sprintf("%slarger than the %s cap on config files: not read", s, m)}
}

// formatSize writes a byte count in bytes, KiB or MiB.
func formatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readMax reads path through the system's filesystem with the cap max.
func (sys *System) readMax(path string, max int64) ([]byte, error) {
	if mr, ok := sys.FS.(MaxReader); ok {
		return mr.ReadFileMax(path, max)
	}
	data, err := sys.FS.ReadFile(path)
	if err == nil && int64(len(data)) > max {
		return nil, sizeError(path, int64(len(data)), max, false)
	}
	return data, err
}

// A stateMemo keeps the view of ~/.claude.json read once for a System:
// discovery, settling and the posture each read it.
type stateMemo struct {
	mu        sync.Mutex
	path, cwd string
	data      []byte
	err       error
}

// readClaudeState reads ~/.claude.json (at most MaxClaudeStateSize bytes)
// and returns its view (claudeStateView), once per System made by Local.
func (sys *System) readClaudeState(path string) ([]byte, error) {
	if m := sys.memo; m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.path == path && m.cwd == sys.Cwd {
			return m.data, m.err
		}
	}
	data, err := sys.readMax(path, MaxClaudeStateSize)
	if err == nil {
		data, err = sys.claudeStateView(path, data)
	}
	if err == nil {
		err = sys.budget.charge(path, countValues(path, data))
	}
	if m := sys.memo; m != nil {
		m.path, m.cwd, m.data, m.err = path, sys.Cwd, data, err
	}
	return data, err
}

// A budget counts the values decoded from the config files of one run (a
// System made by Local, or one Discover or Load) against MaxRunValues.
type budget struct {
	mu      sync.Mutex
	used    int
	charged map[string]int // by path: a file read again is not counted again
}

// charge counts n values of the file at path against the budget, unless
// as many were counted for it already; a file that would take the run past
// MaxRunValues is refused. A nil budget refuses nothing.
func (b *budget) charge(path string, n int) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	more := n - b.charged[path]
	if more <= 0 {
		return nil
	}
	if b.used+more > MaxRunValues {
		return &LimitError{Path: path, Msg: fmt.Sprintf("%s values, past the budget of %s values decoded from all config files in one run (%s decoded already): not read",
			num.Int(n), num.Int(MaxRunValues), num.Int(b.used))}
	}
	if b.charged == nil {
		b.charged = map[string]int{}
	}
	b.charged[path] = n
	b.used += more
	return nil
}

// countValues counts the values of a config file before it is decoded,
// as its format counts them (by the file's extension: .toml, .yaml or
// .yml, else JSON); a file over a cap counts nothing, as its parser
// refuses it undecoded. A YAML file's aliases are counted once decoded
// (see decodeYAML).
func countValues(path string, data []byte) int {
	data = stripBOM(data)
	var n int
	var le *LimitError
	switch lower := strings.ToLower(path); {
	case strings.HasSuffix(lower, ".toml"):
		n, le = countTOML(data)
	case strings.HasSuffix(lower, ".yaml"), strings.HasSuffix(lower, ".yml"):
		n, le = countYAML(data)
	default:
		n, le = countJSON(data)
	}
	if le != nil {
		return 0
	}
	return n
}

// readError words a read error for a Location, a Config or Load: the path
// once, then why. It wraps err.
func readError(path string, err error) error {
	msg := fmt.Sprintf("reading %s: %v", path, err)
	var le *LimitError
	var pe *fs.PathError
	switch {
	case errors.As(err, &le) && le.Path == path:
		msg = "reading " + le.Error()
	case errors.As(err, &pe) && pe.Path == path:
		msg = fmt.Sprintf("reading %s: %v", path, pe.Err)
	}
	return &wrapped{msg, err}
}

type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// capServers refuses a config declaring more than MaxServers servers.
func capServers(cfg Config) Config {
	if n := len(cfg.Servers); n > MaxServers {
		cfg.Servers = nil
		cfg.Error = (&LimitError{Path: cfg.Path, Msg: fmt.Sprintf("declares %s servers, over the cap of %s per config file: not read",
			num.Int(n), num.Int(MaxServers))}).Error()
	}
	return cfg
}

// claudeStateView returns what mcpcost reads of ~/.claude.json: the
// document with every member of its top level except, within projects,
// the entries of folders other than the project and its parents
// (isProjectKey). Those entries hold Claude Code's history and state of
// other folders, which is most of a large file and nothing mcpcost reads;
// they are not decoded at all. The view is held to MaxConfigDepth and MaxConfigValues, an error
// giving the position in the file. A file that is not valid JSON is
// returned as it is, for its parser to report.
func (sys *System) claudeStateView(path string, data []byte) ([]byte, error) {
	b := stripBOM(data)
	if !json.Valid(b) {
		return data, nil
	}
	i := skipSpace(b, 0)
	if b[i] != '{' {
		return data, nil
	}
	// segs map the view back to the file: b[from:to] is at view[at:].
	type seg struct{ from, to, at int }
	var segs []seg
	view := make([]byte, 0, 1024)
	copyOf := func(from, to int) {
		segs = append(segs, seg{from, to, len(view)})
		view = append(view, b[from:to]...)
	}
	view = append(view, '{')
	first := true
	forMembers(b, i, func(key string, ks, vs, ve int) {
		if !first {
			view = append(view, ',')
		}
		first = false
		if key != "projects" || b[vs] != '{' {
			copyOf(ks, ve)
			return
		}
		copyOf(ks, vs+1)
		firstProject := true
		forMembers(b, vs, func(k string, pks, _, pe int) {
			if !sys.isProjectKey(k) {
				return
			}
			if !firstProject {
				view = append(view, ',')
			}
			firstProject = false
			copyOf(pks, pe)
		})
		view = append(view, '}')
	})
	view = append(view, '}')
	if le := scanJSON(view); le != nil {
		// The position of the view's offset in the file.
		off := offsetOf(view, le.Line, le.Col)
		at := 0
		for _, sg := range segs {
			if sg.at <= off {
				at = sg.from + min(off-sg.at, sg.to-sg.from)
			}
		}
		le.Line, le.Col = lineCol(data, at+len(data)-len(b))
		le.Path = path
		return nil, le
	}
	return view, nil
}

// offsetOf is the byte offset of a 1-based line and column of b.
func offsetOf(b []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		n := bytes.IndexByte(b[off:], '\n')
		if n < 0 {
			break
		}
		off += n + 1
	}
	return off + col - 1
}

// isProjectKey reports whether a key of ~/.claude.json's projects may be
// read: the project folder's entry (claudeProject) or a parent's, whose
// trust covers the folder (claudeTrusted). Keys are compared without
// trailing separators, and on Windows regardless of slashes and letter
// case.
func (sys *System) isProjectKey(k string) bool {
	norm := func(p string) string {
		if sys.OS == "windows" {
			p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
		}
		return strings.TrimRight(p, "/")
	}
	k, want := norm(k), norm(sys.Cwd)
	return k == want || k == "" || strings.HasPrefix(want, k+"/")
}

// forMembers calls f with the key, the start of the key and the value's
// span of each member of the object opening at b[i], in valid JSON.
func forMembers(b []byte, i int, f func(key string, keyStart, start, end int)) {
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		ks := i
		ke := skipQuoted(b, i, '"') + 1
		var key string
		if json.Unmarshal(b[i:ke], &key) != nil {
			return
		}
		i = skipSpace(b, ke)
		i = skipSpace(b, i+1) // the colon
		ve := valueEnd(b, i)
		f(key, ks, i, ve)
		i = skipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// valueEnd returns the index just past the value starting at b[i], in
// valid JSON.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipQuoted(b, i, '"') + 1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipQuoted(b, i, '"')
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}
