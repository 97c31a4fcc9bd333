package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

// hintCheckVar names the file where mcpcost, run by a script, records an
// error line that no hint line followed; the script fails when it is not
// empty at its end (see hintCheckSetup).
const hintCheckVar = "MCPCOST_HINTCHECK"

// runMcpcost is the mcpcost of the scripts: cli.Main, with stderr checked
// for an error line without a hint when it is no terminal.
func runMcpcost() {
	log := os.Getenv(hintCheckVar)
	var buf lockedBuffer
	stderr := io.Writer(os.Stderr)
	if fi, err := os.Stderr.Stat(); log != "" && err == nil && fi.Mode()&os.ModeCharDevice == 0 {
		stderr = io.MultiWriter(os.Stderr, &buf)
	}
	code := cli.Main(os.Args[1:], os.Stdin, os.Stdout, stderr)
	if bad := hintless(buf.String()); bad != "" && log != "" {
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "mcpcost %s: %s\n", strings.Join(os.Args[1:], " "), bad)
			f.Close()
		}
	}
	os.Exit(code)
}

// hintless is the first "mcpcost: error:" line of stderr that no
// "mcpcost: hint:" line follows before the next error line or the end,
// or "" when every error has its hint.
func hintless(stderr string) string {
	open := ""
	for _, l := range strings.Split(stderr, "\n") {
		switch {
		case strings.HasPrefix(l, "mcpcost: error: "):
			if open != "" {
				return open
			}
			open = l
		case strings.HasPrefix(l, "mcpcost: hint: "):
			open = ""
		}
	}
	return open
}

// hintCheckSetup makes every mcpcost of a script record its hintless
// errors, and fails the script at its end when there was one.
func hintCheckSetup(e *testscript.Env) {
	log := filepath.Join(e.WorkDir, ".hintless")
	e.Setenv(hintCheckVar, log)
	e.Defer(func() {
		if b, err := os.ReadFile(log); err == nil && len(b) > 0 {
			e.T().Fatal("errors without a hint line:\n" + string(b))
		}
	})
}

func TestHintless(t *testing.T) {
	for in, want := range map[string]string{
		"":                                      "",
		"mcpcost: warning: x\n":                 "",
		"mcpcost: error: a\nmcpcost: hint: b\n": "",
		"mcpcost: error: a\n  | tail\nmcpcost: hint: b\n":                      "",
		"mcpcost: error: a\n":                                                  "mcpcost: error: a",
		"mcpcost: error: a\nmcpcost: error: b\nmcpcost: hint: c\n":             "mcpcost: error: a",
		"mcpcost: error: a\nmcpcost: hint: b\nmcpcost: error: c\nother line\n": "mcpcost: error: c",
	} {
		if got := hintless(in); got != want {
			t.Errorf("hintless(%q) = %q, want %q", in, got, want)
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// cmdWebroot: webroot DIR serves DIR's files on loopback for the rest of
// the script and sets $WEBROOT to its host:port. Besides the files, /slow
// answers nothing until the script ends, and /cut announces more bytes
// than it sends.
func cmdWebroot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webroot DIR")
	}
	done := make(chan struct{})
	files := http.FileServer(http.Dir(ts.MkAbs(args[0])))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			select {
			case <-done:
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		case "/cut":
			w.Header().Set("Content-Length", "1000")
			w.Write([]byte(`{"schema":`))
		default:
			files.ServeHTTP(w, r)
		}
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	go srv.Serve(ln)
	ts.Setenv("WEBROOT", ln.Addr().String())
	ts.Defer(func() { close(done); srv.Close() })
}
