package serve

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An input is a tool's arguments; subject names what they ask about (a
// config, a server, a session), in the words of a tool error.
type input interface {
	subject() string
}

// addTool registers a tool whose handler is guarded: a panic in it (a bug,
// or a parser meeting an input it cannot handle) becomes a tool error
// naming the tool, its input and where it failed, and the server carries
// on serving.
func addTool[In input, Out any](srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	noteIntArgs[In](t.Name)
	mcp.AddTool(srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if v := recover(); v != nil {
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("%s failed on %s: internal error: %v (at %s); please report it", t.Name, in.subject(), v, panicSite())
			}
		}()
		return h(ctx, req, in)
	})
}

// recoverPanics is the last line of defence for what no tool guard covers
// (the SDK's own handling of a method): a panic is answered as an internal
// error of that request.
func recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, fmt.Errorf("%s: internal error: %v (at %s)", method, v, panicSite())
			}
		}()
		return next(ctx, method, req)
	}
}

// panicSite is the file and line that panicked: the first frame of the
// stack below the runtime's panic machinery.
func panicSite() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "panic(") {
			// Skip runtime frames (bounds checks, nil dereferences).
			for j := i + 2; j+1 < len(lines); j += 2 {
				if strings.HasPrefix(lines[j], "runtime.") {
					continue
				}
				loc := strings.TrimSpace(lines[j+1])
				if k := strings.LastIndex(loc, " +0x"); k >= 0 {
					loc = loc[:k]
				}
				if k := strings.Index(loc, "/internal/"); k >= 0 {
					loc = loc[k+1:]
				} else if k := strings.LastIndex(loc, "/"); k >= 0 {
					loc = loc[k+1:]
				}
				return loc
			}
		}
	}
	return "unknown"
}
