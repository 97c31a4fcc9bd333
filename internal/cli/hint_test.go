package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpcost/mcpcost/internal/mcpclient"
)

// measure's hint for a protocol error follows the failure's detail.
func TestFailureHintProtocol(t *testing.T) {
	status := string(mcpclient.StatusProtocolError)
	for detail, version := range map[string]bool{
		"stdout is not JSON-RPC: the server wrote more than 16 MiB there without a JSON-RPC message":           false,
		"a message on stdout nests deeper than the 1000 levels the MCP SDK reads (5000 levels)":                false,
		"the server closed its stdout before answering the handshake, and still runs":                          false,
		"initialize: the server supports none of the protocol versions mcpcost speaks (JSON-RPC error -32602)": true,
	} {
		if h := failureHint(status, detail); h == "" || strings.Contains(h, "--protocol-version") != version {
			t.Errorf("%s: hint %q", detail, h)
		}
	}
}

// A timeout's hint names the flag with a value, and the two slow starts a
// first run meets: npx downloading and go run building.
func TestFailureHintTimeout(t *testing.T) {
	h := failureHint(string(mcpclient.StatusTimeout), "no answer to the handshake within the 60s budget of the measurement")
	for _, want := range []string{"--timeout 3m", "npx", "go run"} {
		if !strings.Contains(h, want) {
			t.Errorf("hint %q lacks %q", h, want)
		}
	}
}

// Each class of error without a hint of its own gets one that says what
// to do; an error of no known class none (Run then names the manual).
func TestClassHint(t *testing.T) {
	_, listenErr := net.Listen("tcp", "127.0.0.1:99999")
	_, dialErr := net.Dial("tcp", "127.0.0.1:1")
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("reading x: %w", errIsDir), "not a folder"},
		{fmt.Errorf("reading x: %w", fs.ErrNotExist), "check the path"},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, "permissions"},
		{fmt.Errorf("writing: %w", syscall.ENOSPC), "disk space"},
		{dialErr, "that its server is up"},
		{fmt.Errorf("fetch: %w", context.DeadlineExceeded), "the network"},
		{listenErr, "HOST:PORT"},
		{errors.New("something else"), ""},
	} {
		if h := classHint(c.err); c.want == "" && h != "" || !strings.Contains(h, c.want) {
			t.Errorf("%v: hint %q, want one with %q", c.err, h, c.want)
		}
	}
}

// Run gives an error left without a hint the command's manual.
func TestRunOwesHint(t *testing.T) {
	var stderr bytes.Buffer
	env := &Env{Stderr: &stderr, Stdout: io.Discard, Getenv: func(string) string { return "" }}
	register(&Command{Name: "test-hintless", Hidden: true, Run: func(env *Env, args []string) int {
		errorf(env, "no hint")
		return ExitError
	}})
	defer delete(commands, "test-hintless")
	if code := Run(env, []string{"test-hintless"}); code != ExitError {
		t.Errorf("exit %d", code)
	}
	if want := "mcpcost: error: no hint\nmcpcost: hint: run 'mcpcost help test-hintless' for what the command needs\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
