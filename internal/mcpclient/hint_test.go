package mcpclient

import (
	"strings"
	"testing"
)

// The protocol-error hint follows the failure: --protocol-version only
// where a version could be the cause.
func TestProtocolErrorHint(t *testing.T) {
	for _, tt := range []struct {
		detail, want string
		version      bool
	}{
		{"stdout is not JSON-RPC: the server wrote more than 16 MiB there without a JSON-RPC message", "logs to stderr", false},
		{"a message on stdout nests deeper than the 1000 levels the MCP SDK reads (1001 levels)", "nested deeper", false},
		{"the server closed its stdout before answering the handshake (it had answered initialize), and still runs", "kept running", false},
		{"the server closed its stdin before answering the handshake, and still runs", "stopped reading its stdin", false},
		{"a message on stdout is larger than the 268435456-byte limit", "more than mcpcost reads", false},
		{"tools/list returned more than 10000 tools", "more than mcpcost reads", false},
		{"tools/list returned more than 1000 pages", "more than mcpcost reads", false},
		{"the server sent more than 268435456 bytes of results in one capture", "more than mcpcost reads", false},
		{"the endpoint answered initialize with HTTP 404 Not Found; no MCP endpoint there", "check the URL", false},
		{"initialize: the server supports none of the protocol versions mcpcost speaks (JSON-RPC error -32602)", "--protocol-version", true},
		{"the server answered initialize with protocol version \"1999-01-01\", which mcpcost does not speak", "--protocol-version", true},
		{"the initialize result is malformed: capabilities is a string, not an object", "--protocol-version", true},
	} {
		h := ProtocolErrorHint(tt.detail)
		if !strings.Contains(h, tt.want) || strings.Contains(h, "--protocol-version") != tt.version {
			t.Errorf("%s:\n  hint %q", tt.detail, h)
		}
	}
}

// TestStartupFailureHint: a program not found, not at its path or not
// runnable gets a hint about the program, not about its environment; any
// other failure of a command the caller's way of giving variables; a
// URL's the network hint.
func TestStartupFailureHint(t *testing.T) {
	for _, tt := range []struct{ detail, want string }{
		{"cannot start nonexistent-xyz: nonexistent-xyz not found on the PATH", "not on the PATH: install it"},
		{"cannot start abc: no such file or directory", "nothing is at the command's path"},
		{"cannot start srv.sh: permission denied", "chmod +x"},
		{"cannot start srv.js: exec format error", "through its interpreter"},
		{"the server exited (exit status 3) before answering the handshake", "run the command by hand to see why it does not start; a missing environment variable is the usual cause (--env NAME=VALUE)"},
		{"cannot start x: resource temporarily unavailable", "run the command by hand"},
		{"cannot connect to 127.0.0.1:1 (connection refused)", "is a server listening at 127.0.0.1:1?"},
	} {
		if h := StartupFailureHint(tt.detail, "--env NAME=VALUE"); !strings.Contains(h, tt.want) {
			t.Errorf("%s:\n  hint %q, want it to hold %q", tt.detail, h, tt.want)
		}
	}
}
