package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostEnv lists the variables a stdio server inherits from mcpcost's own
// environment, as the published methodology does (PATH and HOME only, so
// that a measurement does not depend on the measuring machine). On
// Windows the variables without which processes cannot start are added.
// Everything else comes from Target.Env.
func hostEnv() []string {
	names := []string{"PATH", "HOME"}
	if runtime.GOOS == "windows" {
		names = append(names, "SYSTEMROOT", "SYSTEMDRIVE", "COMSPEC", "PATHEXT", "WINDIR", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "TEMP", "TMP")
	}
	return names
}

func childEnv(t Target) []string {
	env := map[string]string{}
	for _, n := range hostEnv() {
		if v, ok := os.LookupEnv(n); ok {
			env[n] = v
		}
	}
	for k, v := range t.Env {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for _, k := range sortedKeys(env) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// lookPath finds command in the PATH the child will see, as the clients'
// spawn does after changing to the server's folder cwd: a relative entry
// of the PATH (an empty one is ".") names a folder below cwd, not below
// mcpcost's own. The file found is returned as an absolute path, so that
// the file run is the file checked here.
func lookPath(command string, env []string, cwd string) (string, error) {
	if strings.ContainsRune(command, os.PathSeparator) || strings.Contains(command, "/") || runtime.GOOS == "windows" {
		return command, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = belowCwd(cwd, dir)
		}
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on the PATH", command)
}

// belowCwd is the folder a relative PATH entry dir names for a child
// started in cwd. The kernel takes each ".." from where the links before
// it led (a cwd that is a link to deep/proj/sub: ../bin is deep/proj/bin),
// where filepath.Join would drop the link and its folder (the bin beside
// the link): a path with ".." is resolved through its links.
func belowCwd(cwd, dir string) string {
	raw := dir
	if cwd != "" {
		raw = cwd + string(os.PathSeparator) + dir
	}
	if slices.Contains(strings.FieldsFunc(raw, func(r rune) bool { return r == filepath.Separator || r == '/' }), "..") {
		if real, err := filepath.EvalSymlinks(raw); err == nil {
			return real
		}
	}
	return filepath.Join(cwd, dir)
}

// proc is a started stdio server: its pipes, its stderr tail and its exit.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end
	stdout *os.File // read end
	stderr *os.File // read end
	tail   *tailBuffer
	track  *tracked // nil where leftovers cannot be found
	exited chan struct{}
	errEOF chan struct{} // closed when stderr has been read to its end
	wg     sync.WaitGroup
	stop   sync.Once
}

func startProc(t Target, o Options) (*proc, error) {
	// A server folder that is not there fails the start, which says so:
	// exec says "no such file or directory", as of a missing program, and
	// a relative PATH entry below it finds nothing ("not found on the
	// PATH").
	if t.Cwd != "" {
		fi, err := os.Stat(t.Cwd)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, errors.New("the folder it starts in (cwd) does not exist")
		case err == nil && !fi.IsDir():
			return nil, errors.New("the folder it starts in (cwd) is not a folder")
		}
	}
	env := childEnv(t)
	path, err := lookPath(t.Command, env, t.Cwd)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:   path,
		Args:   append([]string{t.Command}, t.Args...),
		Env:    env,
		Dir:    t.Cwd,
		Stdin:  inR,
		Stdout: outW,
		Stderr: errW,
	}
	setProcessGroup(cmd)
	track, err := startTracked(cmd, inW, outR, errR)
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: inW, stdout: outR, stderr: errR, tail: &tailBuffer{max: o.MaxStderrBytes}, track: track, exited: make(chan struct{}), errEOF: make(chan struct{})}
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		_ = cmd.Wait()
		close(p.exited)
	}()
	go func() {
		defer p.wg.Done()
		_, _ = io.Copy(p.tail, errR)
		close(p.errEOF)
	}()
	return p, nil
}

// stderrTail returns the last lines of stderr, after waiting briefly for
// what an exited server wrote last (a descendant may hold stderr open, so
// the wait is bounded).
func (p *proc) stderrTail() string {
	select {
	case <-p.exited:
		select {
		case <-p.errEOF:
		case <-time.After(200 * time.Millisecond):
		}
	default:
	}
	return p.tail.lastLines(30)
}

// exitStatus describes how the process ended, or "" while it runs.
func (p *proc) exitStatus() string {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.String()
	default:
		return ""
	}
}

// exitedOK says whether the server has exited, with status 0.
func (p *proc) exitedOK() bool {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.Success()
	default:
		return false
	}
}

// shutdown ends the server and all its descendants within grace: stdin is
// closed; a server still running a quarter of grace later gets SIGTERM
// (its whole process group), and one still running at the end of grace
// gets SIGKILL. Once the server has exited, its process group gets
// SIGKILL, and on Linux every process it detached is killed and reaped
// too (see reap_linux.go), so no descendant outlives the measurement. It
// returns when every goroutine of p has ended.
func (p *proc) shutdown(grace time.Duration) {
	p.stop.Do(func() {
		kill := time.NewTimer(grace)
		defer kill.Stop()
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(grace / 4):
			signalGroup(p.cmd, false)
			select {
			case <-p.exited:
			case <-kill.C:
				signalGroup(p.cmd, true)
				<-p.exited
			}
		}
		signalGroup(p.cmd, true)
		p.stdout.Close()
		p.stderr.Close()
		p.wg.Wait()
		p.track.reapLeftovers(grace)
	})
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if len(p) >= b.max {
		b.buf = append(b.buf[:0], p[len(p)-b.max:]...)
		return n, nil
	}
	if over := len(b.buf) + len(p) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// lastLines returns at most n lines and 4 KiB from the end, as valid UTF-8.
func (b *tailBuffer) lastLines(n int) string {
	b.mu.Lock()
	data := bytes.TrimRight(b.buf, "\r\n\t ")
	if len(data) > 4096 {
		data = data[len(data)-4096:]
	}
	s := strings.ToValidUTF8(string(data), "\uFFFD")
	b.mu.Unlock()
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// stdoutFilter hands the SDK only the stdout lines that are JSON-RPC
// requests and responses. Other lines (banners, logs) are skipped and
// counted; notifications are counted and dropped, as a measuring client
// has no use for them (and the SDK's handling of each would bound how
// fast a server can send them). Every accepted line is recorded as sent;
// invalid UTF-8 is replaced by U+FFFD in what the SDK sees only. A line
// longer than max, a message nesting deeper than the SDK reads, or more
// than maxNonRPCBytes of output without a JSON-RPC message end the
// connection with a protocol error.
//
// A pump goroutine reads stdout, so that Read can also hand the SDK an
// answer for the server (see inject).
type stdoutFilter struct {
	ends   *ends
	r      *bufio.Reader
	c      io.Closer
	rec    *recorder
	max    int
	line   []byte
	nonRPC int // bytes since the last JSON-RPC message

	lines  chan []byte // accepted lines, from the pump
	err    error       // the pump's last error, once lines is closed
	extra  chan []byte // lines injected for the server
	done   chan struct{}
	closed sync.Once
	out    []byte // what Read hands on next
}

func newStdoutFilter(ends *ends, r *bufio.Reader, c io.Closer, rec *recorder, max int) *stdoutFilter {
	f := &stdoutFilter{ends: ends, r: r, c: c, rec: rec, max: max,
		lines: make(chan []byte, 16), extra: make(chan []byte, 1), done: make(chan struct{})}
	go f.pump()
	return f
}

// maxNonRPCBytes bounds the output a stdio server may write between two
// JSON-RPC messages (or before the first): a server flooding stdout with
// anything else is not speaking JSON-RPC there.
const maxNonRPCBytes = 8 << 20

var (
	errMessageTooLarge = errors.New("message too large")
	errNotJSONRPC      = errors.New("stdout is not JSON-RPC")
)

func (f *stdoutFilter) pump() {
	defer close(f.lines)
	for {
		line, err := f.readLine()
		if len(line) > 0 {
			out, ferr := f.accept(line)
			if ferr != nil {
				f.err = ferr
				return
			}
			if out != nil {
				select {
				case f.lines <- out:
				case <-f.done:
					f.err = io.ErrClosedPipe
					return
				}
			}
		}
		if err == io.EOF {
			f.ends.sawEOF("stdout")
		}
		if err != nil {
			f.err = err
			return
		}
	}
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	if len(f.out) == 0 {
		select {
		case line, ok := <-f.lines:
			if !ok {
				return 0, f.err
			}
			f.out = line
		case line := <-f.extra:
			f.out = line
		}
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// inject hands the SDK line as if the server had sent it.
func (f *stdoutFilter) inject(line []byte) {
	select {
	case f.extra <- append(line, '\n'):
	default:
	}
}

func (f *stdoutFilter) readLine() ([]byte, error) {
	f.line = f.line[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(f.line)+len(chunk) > f.max {
			f.rec.fail(failf(StatusProtocolError, "a message on stdout is larger than the %d-byte limit", f.max))
			return nil, errMessageTooLarge
		}
		f.line = append(f.line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return f.line, err
	}
}

// envelope is the part of a JSON-RPC message the filter reads.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
}

// accept returns the line to hand the SDK (a copy, with its newline), or
// nil for a line it keeps from it.
func (f *stdoutFilter) accept(raw []byte) ([]byte, error) {
	line := bytes.TrimSpace(raw)
	if len(line) > 0 && (line[0] == '{' || line[0] == '[') {
		if f.rec.checkDepth("a message on stdout", line) != nil {
			return nil, errMessageTooLarge
		}
	}
	if len(line) == 0 || (line[0] != '{' && line[0] != '[') || !json.Valid(line) {
		return nil, f.skip(raw)
	}
	if line[0] == '{' {
		var env envelope
		if json.Unmarshal(line, &env) != nil || env.JSONRPC != "2.0" {
			return nil, f.skip(raw)
		}
		if env.Method != nil && (len(env.ID) == 0 || string(env.ID) == "null") {
			f.nonRPC = 0
			f.rec.notice(*env.Method)
			return nil, nil
		}
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			return nil, f.skip(raw)
		}
	}
	f.nonRPC = 0
	f.rec.incoming(line)
	if !utf8.Valid(line) {
		f.rec.noteInvalidUTF8()
		line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
	}
	return append(append([]byte(nil), line...), '\n'), nil
}

// skip counts a line that is not JSON-RPC, and ends the connection once
// too many bytes of such lines came without a JSON-RPC message.
func (f *stdoutFilter) skip(raw []byte) error {
	if len(bytes.TrimSpace(raw)) > 0 {
		f.rec.skip()
	}
	f.nonRPC += len(raw)
	if f.nonRPC > maxNonRPCBytes {
		f.rec.fail(failf(StatusProtocolError, "stdout is not JSON-RPC: the server wrote more than %d MiB there without a JSON-RPC message", maxNonRPCBytes>>20))
		return errNotJSONRPC
	}
	return nil
}

func (f *stdoutFilter) Close() error {
	f.closed.Do(func() { close(f.done) })
	return f.c.Close()
}

// ends tells which end hung up first: the server (EOF on its stdout, or
// its stdin closed under a write) or mcpclient (closing the server's
// stdin). Only a server that hung up first is to blame for its exit.
type ends struct {
	mu       sync.Mutex
	eof      bool
	pipe     string // the server's pipe it closed first: "stdout" or "stdin"
	weClosed bool
}

// sawEOF notes that the server closed pipe ("stdout" or "stdin").
func (e *ends) sawEOF(pipe string) {
	e.mu.Lock()
	if !e.eof {
		e.pipe = pipe
	}
	e.eof = true
	e.mu.Unlock()
}

// closedPipe is the pipe the server closed first ("" if none).
func (e *ends) closedPipe() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.pipe
}

// closing notes that mcpclient hangs up, and reports whether it is first.
func (e *ends) closing() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.eof {
		e.weClosed = true
	}
	return e.weClosed
}

func (e *ends) serverHungUp() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.eof && !e.weClosed
}

func (e *ends) closedByUs() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.weClosed
}

// stdinTap records each message the SDK writes before sending it. A write
// that the server does not take within the measurement's budget (it
// stopped reading stdin and the pipe is full) fails, so that nothing waits
// on it forever. A server/discover request left unanswered for
// discoverWait is answered for the server (see discoverError), so that the
// SDK goes on with initialize.
type stdinTap struct {
	ends         *ends
	w            *os.File
	rec          *recorder
	deadline     time.Time
	discoverWait time.Duration // 0: none
	filter       *stdoutFilter
}

func (t *stdinTap) Write(p []byte) (int, error) {
	method, id := t.rec.outgoing(p)
	if method == "server/discover" && t.discoverWait > 0 {
		timer := time.AfterFunc(t.discoverWait, func() {
			if t.rec.injectFor(id) {
				t.filter.inject(discoverError(id))
			}
		})
		go func() {
			<-t.filter.done
			timer.Stop()
		}()
	}
	_ = t.w.SetWriteDeadline(t.deadline)
	late := !time.Now().Before(t.deadline)
	n, err := t.w.Write(p)
	// A message written once the budget is spent fails at once: that says
	// nothing of the server's reading, and the timeout is the handshake's
	// or the request's, recorded where it ran out.
	if errors.Is(err, os.ErrDeadlineExceeded) && !late {
		t.rec.fail(failf(StatusTimeout, "the server stopped reading its stdin (a message waited until the end of the budget)"))
	}
	if errors.Is(err, syscall.EPIPE) {
		// The server closed its stdin (it exited) before we closed
		// anything: the hang-up is the server's, whatever the SDK does next.
		t.ends.sawEOF("stdin")
	}
	return n, err
}

// Close closes the server's stdin, unless the server hung up first: then
// its stdin stays open until the shutdown, so that an exit within the
// diagnosis is the server's own doing and not an answer to our hang-up.
func (t *stdinTap) Close() error {
	if t.ends.closing() {
		return t.w.Close()
	}
	return nil
}

// captureStdio launches the server once and captures it.
func captureStdio(ctx context.Context, t Target, o Options, protocolVersion string) sessionOutcome {
	p, err := startProc(t, o)
	if err != nil {
		return sessionOutcome{fail: failf(StatusStartupFailure, "cannot start %s: %v", baseName(t.Command), startError(err))}
	}
	defer p.shutdown(o.KillGrace)
	rec := newRecorder(o.MaxCaptureBytes)
	e := &ends{}
	filter := newStdoutFilter(e, bufio.NewReaderSize(p.stdout, 64<<10), p.stdout, rec, o.MaxResponseBytes)
	tap := &stdinTap{ends: e, w: p.stdin, rec: rec, filter: filter}
	tap.deadline, _ = ctx.Deadline()
	if protocolVersion == "" {
		tap.discoverWait = o.Timeout / DiscoverShare
	}
	l := link{
		kind: "stdio",
		rec:  rec,
		transport: &mcp.IOTransport{
			Reader:        filter,
			Writer:        tap,
			MaxLineLength: o.MaxResponseBytes + 1,
		},
		diagnose: func(what string, err error) *failure {
			if e.closedByUs() {
				return nil // the SDK gave up on the server; its exit says nothing
			}
			// A closed connection usually means the process is exiting:
			// give it a moment to report its status.
			if !errors.Is(err, context.DeadlineExceeded) {
				select {
				case <-p.exited:
				case <-time.After(time.Second):
				case <-ctx.Done():
				}
			}
			if st := p.exitStatus(); st != "" {
				return &failure{status: StatusStartupFailure, detail: fmt.Sprintf("the server exited (%s) before answering %s", st, what), stderrTail: p.stderrTail()}
			}
			if e.serverHungUp() {
				if what == "the handshake" && rec.last("initialize") != nil {
					what = "the handshake (it had answered initialize)"
				}
				return &failure{status: StatusProtocolError, detail: fmt.Sprintf("the server closed its %s before answering %s, and still runs", e.closedPipe(), what), stderrTail: p.stderrTail()}
			}
			return nil
		},
	}
	out := runSession(ctx, l, o, protocolVersion)
	if out.discoverUnanswered && p.exitedOK() {
		// A server that exits with status 0 before answering
		// server/discover ended of its own accord: a legacy server
		// refusing a request it does not know fails, or hangs up while
		// it runs. Launching it again would take as long again for the
		// same end (sh -c "sleep 3" took 6 s).
		out.discoverUnanswered = false
	}
	if out.fail != nil && out.fail.stderrTail == "" {
		out.fail.stderrTail = p.stderrTail()
	}
	p.shutdown(o.KillGrace)
	filter.Close()
	out.waitClosed(closeWait)
	return out
}

// startError strips the exec package's quoting of the path.
func startError(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
