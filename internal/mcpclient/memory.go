package mcpclient

import (
	"bufio"
	"context"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// captureMemory connects to the in-process server t.Server over a pair of
// pipes and captures it, as a stdio server is captured: the same filter
// reads what the server writes, so the bytes recorded are those it sent.
func captureMemory(ctx context.Context, t Target, o Options, protocolVersion string) sessionOutcome {
	// The server reads sr and writes sw; the client writes cw and reads cr.
	sr, cw, err := os.Pipe()
	if err != nil {
		return sessionOutcome{fail: failf(StatusStartupFailure, "cannot connect to the server: %v", err)}
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		sr.Close()
		cw.Close()
		return sessionOutcome{fail: failf(StatusStartupFailure, "cannot connect to the server: %v", err)}
	}
	ss, err := t.Server.Connect(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}, nil)
	if err != nil {
		for _, f := range []*os.File{sr, sw, cr, cw} {
			f.Close()
		}
		return sessionOutcome{fail: failf(StatusStartupFailure, "cannot connect to the server: %v", err)}
	}
	rec := newRecorder(o.MaxCaptureBytes)
	e := &ends{}
	filter := newStdoutFilter(e, bufio.NewReaderSize(cr, 64<<10), cr, rec, o.MaxResponseBytes)
	tap := &stdinTap{ends: e, w: cw, rec: rec, filter: filter}
	tap.deadline, _ = ctx.Deadline()
	if protocolVersion == "" {
		tap.discoverWait = o.Timeout / DiscoverShare
	}
	l := link{
		kind: "memory",
		rec:  rec,
		transport: &mcp.IOTransport{
			Reader:        filter,
			Writer:        tap,
			MaxLineLength: o.MaxResponseBytes + 1,
		},
		diagnose: func(what string, err error) *failure {
			if e.serverHungUp() {
				return failf(StatusProtocolError, "the server closed its session before answering %s", what)
			}
			return nil
		},
	}
	out := runSession(ctx, l, o, protocolVersion)
	out.waitClosed(o.KillGrace)
	cw.Close()
	ss.Close()
	sw.Close()
	sr.Close()
	filter.Close()
	out.waitClosed(closeWait)
	return out
}
