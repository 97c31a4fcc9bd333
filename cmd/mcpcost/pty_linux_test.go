package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/rogpeppe/go-internal/testscript"
)

// openPty opens a pseudo-terminal of cols columns: its controlling side
// and the terminal a program writes to.
func openPty(cols int) (ctrl, tty *os.File, err error) {
	ctrl, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	ioctl := func(f *os.File, req uintptr, arg unsafe.Pointer) error {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
			return errno
		}
		return nil
	}
	var unlock int32
	var n uint32
	if err = ioctl(ctrl, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err == nil {
		err = ioctl(ctrl, syscall.TIOCGPTN, unsafe.Pointer(&n))
	}
	if err == nil {
		tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err == nil {
		ws := struct{ Row, Col, X, Y uint16 }{Row: 50, Col: uint16(cols)}
		err = ioctl(tty, syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
	}
	if err != nil {
		ctrl.Close()
		if tty != nil {
			tty.Close()
		}
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	return ctrl, tty, nil
}

// ptyEnv are the variables a command run in a pseudo-terminal gets from
// the script: the ones mcpcost reads.
var ptyEnv = []string{"HOME", "PATH", "NO_COLOR", "COLUMNS", "TERM", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME",
	"ENABLE_TOOL_SEARCH", "MCPCOST_NPM_DIR", "TMPDIR", "TZ", "GOCOVERDIR", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOROOT"}

// cmdPty: pty COLS STDOUT STDERR PROGRAM ARGS... runs PROGRAM with its
// stdout and its stderr on two pseudo-terminals COLS columns wide, and
// writes what each showed to the files STDOUT and STDERR (the terminal's
// CR LF as LF). With !, PROGRAM must exit non-zero.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 4 {
		ts.Fatalf("usage: pty COLS STDOUT STDERR PROGRAM ARGS...")
	}
	cols, err := strconv.Atoi(args[0])
	if err != nil || cols <= 0 {
		ts.Fatalf("pty: COLS %q is not a width", args[0])
	}
	path, err := exec.LookPath(args[3])
	if err != nil {
		for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
			if p := filepath.Join(dir, args[3]); fileExists(p) {
				path, err = p, nil
				break
			}
		}
	}
	ts.Check(err)
	var outs [2]bytes.Buffer
	var ttys [2]*os.File
	var wg sync.WaitGroup
	for i := range ttys {
		ctrl, tty, err := openPty(cols)
		ts.Check(err)
		defer ctrl.Close()
		ttys[i] = tty
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.Copy(&outs[i], ctrl) // ends with EIO once the program's side is closed
		}()
	}
	cmd := exec.Command(path, args[4:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range ptyEnv {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Stdout, cmd.Stderr = ttys[0], ttys[1]
	err = cmd.Start()
	for _, t := range ttys {
		t.Close()
	}
	ts.Check(err)
	err = cmd.Wait()
	wg.Wait()
	for i, name := range args[1:3] {
		screen := strings.ReplaceAll(outs[i].String(), "\r\n", "\n")
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(screen), 0o644))
	}
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		ts.Fatalf("pty: %v", err)
	case neg && err == nil:
		ts.Fatalf("pty: %s exited 0", args[3])
	case !neg && err != nil:
		ts.Logf("[stderr]\n%s", outs[1].String())
		ts.Fatalf("pty: %s: %v", args[3], err)
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
