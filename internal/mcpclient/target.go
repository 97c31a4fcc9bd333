package mcpclient

import (
	"context"
	"errors"
	"time"
)

// errMeasureBudget is the cause of a measurement context whose budget
// (Options.Timeout) ran out.
var errMeasureBudget = errors.New("measurement budget exhausted")

// transportOf resolves Target.Transport.
func transportOf(t Target) string {
	switch t.Transport {
	case "stdio", "http", "sse", "memory":
		return t.Transport
	}
	if t.Server != nil {
		return "memory"
	}
	if t.Command != "" {
		return "stdio"
	}
	return "http"
}

// captureTarget takes one capture of t. When a server fails or hangs up on
// server/discover (a legacy server strict about requests it does not
// know; one that exits with status 0 is not) and no protocol version was
// asked for, it relaunches with the legacy initialize handshake, as a
// dual-era client falls back; when a
// server answered server/discover only after the measurement had gone on
// with initialize, and initialize failed, it relaunches speaking
// 2026-07-28 alone.
func captureTarget(ctx context.Context, t Target, o Options) (*Capture, *failure) {
	start := time.Now()
	kind := transportOf(t)
	switch {
	case kind == "stdio" && t.Command == "":
		return nil, failf(StatusStartupFailure, "no command to run")
	case kind == "memory" && t.Server == nil:
		return nil, failf(StatusStartupFailure, "no server to connect to")
	case (kind == "http" || kind == "sse") && t.URL == "":
		return nil, failf(StatusStartupFailure, "no URL to connect to")
	}
	once := func(pv string) sessionOutcome {
		switch kind {
		case "stdio":
			return captureStdio(ctx, t, o, pv)
		case "memory":
			return captureMemory(ctx, t, o, pv)
		}
		return captureURL(ctx, t, o, pv)
	}
	out := once(o.ProtocolVersion)
	switch {
	case out.fail != nil && out.discoverUnanswered && ctx.Err() == nil:
		out = once(legacyProtocolVersion)
		if out.capture != nil {
			out.capture.Warnings = append(out.capture.Warnings, "the server never answered server/discover; measured with the initialize handshake")
		}
	case out.fail != nil && out.lateDiscover && ctx.Err() == nil:
		out = once(modernProtocolVersion)
	}
	if out.fail != nil {
		return nil, out.fail
	}
	out.capture.Elapsed = time.Since(start)
	return out.capture, nil
}
