package mcpclient

import "fmt"

// MaxDepth is the deepest nesting of arrays and objects that mcpcost reads
// in a message from a server, over every transport (stdio, Streamable
// HTTP, HTTP+SSE, an in-process server), and in a file of tools, taken as
// the tools/list response it stands for: the MCP SDK's own limit, which
// drops a deeper message as if it had not been sent. A tool, three levels
// down in a tools/list response (the message, its result, its tools
// array), nests at most MaxDepth-3 levels. Each message is checked by
// [Depth] before anything parses it, so no parser ever recurses deeper.
const MaxDepth = 1000

// Depth returns the deepest nesting of arrays and objects in data, outside
// strings, in one pass and without recursion, whatever data holds.
func Depth(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			deepest = max(deepest, depth)
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}

// TooDeep says that what (a message, a file) nests depth levels, deeper
// than MaxDepth.
func TooDeep(what string, depth int) string {
	return fmt.Sprintf("%s nests deeper than the %d levels the MCP SDK reads (%d levels)", what, MaxDepth, depth)
}

// checkDepth fails the capture when msg, a message the server sent (what
// names it), nests deeper than MaxDepth, and returns the failure; nil
// when it does not.
func (r *recorder) checkDepth(what string, msg []byte) *failure {
	d := Depth(msg)
	if d <= MaxDepth {
		return nil
	}
	f := failf(StatusProtocolError, "%s", TooDeep(what, d))
	r.fail(f)
	return f
}
