package serve

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of the tool calls served at once, over stdio and HTTP alike (every
// session of a server shares them): at most MaxRunningCalls run, up to
// MaxWaitingCalls more wait for one of them to end, and a call beyond those
// is answered at once with a tool error that starts "busy:". A call can
// hold a config of a million values, or a server's capture, while it runs:
// 60 audits at once of a 3 MB config took 9.2 GB.
const (
	MaxRunningCalls = 8
	MaxWaitingCalls = 64
)

// callLimit holds tool calls to [MaxRunningCalls] running and
// [MaxWaitingCalls] waiting.
type callLimit struct {
	admitted chan struct{} // a place for each call running or waiting
	running  chan struct{} // a place for each call running
}

func newCallLimit() *callLimit {
	return &callLimit{admitted: make(chan struct{}, MaxRunningCalls+MaxWaitingCalls), running: make(chan struct{}, MaxRunningCalls)}
}

// middleware applies the limit to tools/call; other methods pass.
func (l *callLimit) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		select {
		case l.admitted <- struct{}{}:
		default:
			return errorResult(fmt.Errorf("busy: %d tool calls are running and %d more are waiting, the most this server takes at once; call again once one has ended", MaxRunningCalls, MaxWaitingCalls)), nil
		}
		defer func() { <-l.admitted }()
		select {
		case l.running <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-l.running }()
		return next(ctx, method, req)
	}
}
