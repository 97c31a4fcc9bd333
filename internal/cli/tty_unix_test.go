//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /dev/null is a character device, not a terminal: output sent there is
// not taken for a terminal's (serve's hint, colours, progress lines).
func TestIsTerminal(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, out := range []struct {
		name string
		w    io.Writer
	}{{"/dev/null", devNull}, {"a file", file}, {"a pipe", w}, {"a buffer", &bytes.Buffer{}}, {"a nil file", (*os.File)(nil)}} {
		if isTerminal(out.w) {
			t.Errorf("%s is taken for a terminal", out.name)
		}
	}
	// A pseudo-terminal is one.
	if pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		defer pty.Close()
		if !isTerminal(pty) {
			t.Errorf("a pseudo-terminal is not taken for a terminal")
		}
	} else {
		t.Logf("no pseudo-terminal: %v", err)
	}
	// serve with its output sent to /dev/null gives no terminal hint.
	var stderr bytes.Buffer
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", "")
	if code := Main([]string{"serve"}, stdin, devNull, &stderr); code != ExitOK || strings.Contains(stderr.String(), "speaks MCP on stdin and stdout") {
		t.Errorf("serve > /dev/null: exit %d, stderr %q", code, stderr.String())
	}
}
