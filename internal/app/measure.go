package app

import (
	"context"
	"time"

	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/measure"
)

// Target is one server to measure: a command with its arguments,
// environment and folder, or a URL with its headers. The values of env
// and headers are used to launch and connect, and never shown: Display is
// the redacted form.
type Target = mcpclient.Target

// MaxDepth is the deepest nesting of arrays and objects mcpcost reads in
// any JSON message or file ([mcpclient.MaxDepth], the MCP SDK's).
const MaxDepth = mcpclient.MaxDepth

// Depth is a document's nesting, found without parsing it
// ([mcpclient.Depth]), for a front end that reads JSON of its own
// (serve's stdio lines).
func Depth(data []byte) int { return mcpclient.Depth(data) }

// MeasureOptions configure [Machine.Measure].
type MeasureOptions struct {
	// Timeout bounds the whole measurement, both captures included; 0
	// for DefaultTimeout.
	Timeout         time.Duration
	ProtocolVersion string
	// Once captures the server once instead of twice (no dynamic check).
	Once bool
}

// Measure launches or connects to t, captures its definitions (twice,
// to tell a dynamic server) and measures them. What the server said that
// is kept (its name, detail, stderr) has t's secrets scrubbed.
func (m *Machine) Measure(ctx context.Context, t Target, o MeasureOptions) *measure.Live {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	res := mcpclient.Measure(ctx, t, mcpclient.Options{
		Timeout:         o.Timeout,
		ProtocolVersion: o.ProtocolVersion,
		Once:            o.Once,
		ClientVersion:   m.version(),
	})
	return measure.FromLive(res, nil)
}

// ProtocolErrorHint says what may help with a protocol error, given its
// detail; "" when nothing would.
func ProtocolErrorHint(detail string) string { return mcpclient.ProtocolErrorHint(detail) }

// StartupFailureHint says what to do about a startup failure, from its
// detail (see mcpclient.StartupFailureHint); env is how the caller gives a
// server its variables.
func StartupFailureHint(detail, env string) string { return mcpclient.StartupFailureHint(detail, env) }

// ClaudeClient counts with Anthropic's count_tokens for model ("" for the
// default one), at ANTHROPIC_BASE_URL when set; nil without
// ANTHROPIC_API_KEY.
func (m *Machine) ClaudeClient(model string) *claude.Client {
	key := m.getenv("ANTHROPIC_API_KEY")
	if key == "" {
		return nil
	}
	return claude.NewClient(key, m.getenv("ANTHROPIC_BASE_URL"), model)
}
