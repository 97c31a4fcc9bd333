package cli

import (
	"strings"
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
