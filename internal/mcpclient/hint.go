package mcpclient

import "strings"

// ProtocolErrorHint says what to do about a StatusProtocolError failure,
// from its detail: another protocol version can help only a server that
// speaks MCP but not mcpcost's version of it, not one whose stdout is not
// JSON-RPC, whose messages nest too deep or are too large, or that closed
// its stdout or stdin.
func ProtocolErrorHint(detail string) string {
	switch {
	case strings.HasPrefix(detail, "stdout is not JSON-RPC"):
		return "the server writes other output (logs, a banner) on stdout, which MCP over stdio keeps for JSON-RPC messages; look for an option that sends its logs to stderr"
	case strings.Contains(detail, "nests deeper than"):
		return "the server sent a message nested deeper than MCP clients read: no client can load it; report it to the server's authors"
	case strings.Contains(detail, "closed its stdout") && strings.Contains(detail, "still runs"):
		return "the server stopped answering on stdout but kept running; it may need an option to serve MCP over stdio, or be meant for another transport (a URL)"
	case strings.Contains(detail, "closed its stdin") && strings.Contains(detail, "still runs"):
		return "the server stopped reading its stdin but kept running; it may need an option to serve MCP over stdio, or be meant for another transport (a URL)"
	case strings.Contains(detail, "-byte limit"), strings.Contains(detail, "bytes of results"),
		strings.Contains(detail, "more than") && (strings.Contains(detail, "tools") || strings.Contains(detail, "pages")):
		return "the server sends more than mcpcost reads of one server; its tools cannot be measured as they are"
	case strings.Contains(detail, "no MCP endpoint there"):
		return "check the URL: it is not the server's MCP endpoint (often the path /mcp or /sse)"
	}
	return "the server does not speak MCP as expected; --protocol-version may help with an older server"
}

// NetworkFailureHint says what to do about a StatusStartupFailure of a
// URL, from its detail: a refused connection asks whether a server listens
// there, a host that does not resolve or a certificate that does not
// verify says so. It returns "" for a detail of another kind (a command
// that did not start), whose hint is the caller's.
func NetworkFailureHint(detail string) string {
	switch {
	case strings.HasPrefix(detail, "cannot connect to "):
		where, _, _ := strings.Cut(strings.TrimPrefix(detail, "cannot connect to "), " (")
		return "is a server listening at " + where + "? start it, or check the URL's host and port"
	case strings.HasPrefix(detail, "cannot resolve the host of "):
		return "check the URL's host name: it does not resolve here"
	case strings.HasSuffix(detail, ": the TLS certificate does not verify"):
		return "the server's certificate is not trusted here (self-signed, expired or for another name)"
	case strings.HasSuffix(detail, ": the server does not speak TLS"):
		return "the server speaks plain HTTP there: try the http:// URL"
	case strings.HasPrefix(detail, "cannot reach "):
		return "check the URL and the network between here and the server"
	}
	return ""
}

// StartupFailureHint says what to do about a StatusStartupFailure, from
// its detail: a URL's as [NetworkFailureHint] says; a program that is not
// on the PATH, not at its path or not one this system runs, what to check
// of it; any other, to run the command by hand, with env (how the caller
// gives a server its variables: "--env NAME=VALUE", "the config's env")
// for the usual cause.
func StartupFailureHint(detail, env string) string {
	if h := NetworkFailureHint(detail); h != "" {
		return h
	}
	if strings.HasPrefix(detail, "cannot start ") {
		switch {
		case strings.HasSuffix(detail, " not found on the PATH"):
			return "the program is not on the PATH: install it, or write its full path as the command"
		case strings.HasSuffix(detail, ": no such file or directory"):
			return "nothing is at the command's path: check the path, and for a script the interpreter its first line (#!) names"
		case strings.HasSuffix(detail, ": permission denied"):
			return "the command's file cannot be run: make it executable (chmod +x), or check that the path names the program"
		case strings.HasSuffix(detail, ": exec format error"):
			return "the command's file is not a program this system runs: check the path, or run it through its interpreter (node FILE, python3 FILE)"
		}
	}
	return "run the command by hand to see why it does not start; a missing environment variable is the usual cause (" + env + ")"
}
