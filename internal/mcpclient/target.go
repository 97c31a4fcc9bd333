package mcpclient

import (
	"context"
	"errors"
	"time"
)

// errLaunchBudget is the cause of a launch context whose own budget ran out.
var errLaunchBudget = errors.New("launch budget exhausted")

// transportOf resolves Target.Transport.
func transportOf(t Target) string {
	switch t.Transport {
	case "stdio", "http", "sse":
		return t.Transport
	}
	if t.Command != "" {
		return "stdio"
	}
	return "http"
}

// captureTarget takes one capture of t within one launch budget. When a
// server never answers server/discover (a legacy server that ignores, or
// exits on, requests it does not know) and no protocol version was asked
// for, it relaunches with the legacy initialize handshake, as a dual-era
// client falls back.
func captureTarget(ctx context.Context, t Target, o Options) (*Capture, *failure) {
	ctx, cancel := context.WithTimeoutCause(ctx, LaunchBudgetFactor*o.Timeout, errLaunchBudget)
	defer cancel()
	start := time.Now()
	kind := transportOf(t)
	switch {
	case kind == "stdio" && t.Command == "":
		return nil, failf(StatusStartupFailure, "no command to run")
	case kind != "stdio" && t.URL == "":
		return nil, failf(StatusStartupFailure, "no URL to connect to")
	}
	once := func(pv string) sessionOutcome {
		if kind == "stdio" {
			return captureStdio(ctx, t, o, pv)
		}
		return captureURL(ctx, t, o, pv)
	}
	out := once(o.ProtocolVersion)
	if out.fail != nil && out.discoverUnanswered && ctx.Err() == nil {
		out = once(legacyProtocolVersion)
		if out.capture != nil {
			out.capture.Warnings = append(out.capture.Warnings, "the server never answered server/discover; measured with the initialize handshake")
		}
	}
	if out.fail != nil {
		return nil, out.fail
	}
	out.capture.Elapsed = time.Since(start)
	return out.capture, nil
}
