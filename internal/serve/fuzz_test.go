package serve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzArguments sends arbitrary arguments to the tools that read the usage
// store and the configs: every call ends in a result (a tool error for bad
// input), never a protocol failure or a crash, and the server keeps
// answering. (measure_server launches what it is given, so it is not
// fuzzed.)
func FuzzArguments(f *testing.F) {
	dir := f.TempDir()
	o := Options{
		Version: "fuzz",
		Getenv:  func(k string) string { return map[string]string{"HOME": dir}[k] },
		Project: dir,
		DBPath:  filepath.Join(dir, "usage.db"),
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(o).Connect(ctx, st, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer cs.Close()
	tools := []string{toolUsage, toolRecent, toolSession, toolAudit, "no_such_tool"}
	for _, seed := range []string{`{}`, `{"by":"tool","days":3}`, `{"session":"%_\\"}`, `{"limit":-1}`, `{"days":"x"}`, `[]`, `null`, `{"path":"/"}`, `{"client":"zed"}`} {
		for i := range tools {
			f.Add(uint8(i), seed)
		}
	}
	addBoundaryArguments(f, len(tools))
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		name := tools[int(which)%len(tools)]
		if name == toolAudit && strings.Contains(args, "launch") {
			return // launching is not for a fuzzer
		}
		raw := json.RawMessage(args)
		if !json.Valid(raw) {
			return
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
		if err != nil {
			// The SDK refuses arguments that are not an object before
			// any tool sees them; anything else is a failure.
			if strings.HasPrefix(strings.TrimSpace(args), "{") {
				t.Fatalf("%s %s: %v", name, args, err)
			}
		} else if !res.IsError && res.StructuredContent == nil {
			t.Fatalf("%s %s: a result without structured content", name, args)
		}
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatalf("the server stopped answering after %s %s: %v", name, args, err)
		}
	})
}

// FuzzCheckAddr: any address is either refused with an error or served;
// an address that passes without a token is on loopback.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1:0", "localhost:80", "[::1]:1", ":80", "0.0.0.0:1", "[::ffff:127.0.0.1]:1", "LOCALHOST:1", "127.0.0.1", "[fe80::1%lo]:1"} {
		f.Add(s)
	}
	addBoundaryStrings(f)
	f.Fuzz(func(t *testing.T, addr string) {
		if CheckAddr(addr, false) == nil {
			host, _, _ := strings.Cut(addr, ":")
			if i := strings.LastIndex(addr, ":"); i >= 0 {
				host = addr[:i]
			}
			if !IsLoopback(strings.Trim(host, "[]")) {
				t.Fatalf("%q served without a token, host %q is not loopback", addr, host)
			}
		}
	})
}
