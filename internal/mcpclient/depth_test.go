//go:build unix

package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// nestedList is a tools/list response to id that nests depth levels (at
// least 6), as testdata/stdioserver's "nest" mode sends it: the message,
// its result, the tools array, the tool, its inputSchema, then arrays or
// objects down to depth.
func nestedList(id json.RawMessage, depth int, objects bool) string {
	k := depth - 5
	nest := strings.Repeat("[", k) + strings.Repeat("]", k)
	if objects {
		nest = strings.Repeat(`{"a":`, k-1) + "{}" + strings.Repeat("}", k-1)
	}
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[{"name":"deep","inputSchema":{"type":"object","x":` + nest + `}}]}}`
}

// rawAnswer is a raw JSON-RPC server's answer to one message: "" for a
// notification or a response.
func rawAnswer(body []byte, depth int, objects bool) string {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || len(msg.ID) == 0 || msg.Method == "" {
		return ""
	}
	id := string(msg.ID)
	switch msg.Method {
	case "initialize":
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":` + strconv.Quote(msg.Params.ProtocolVersion) + `,"capabilities":{"tools":{}},"serverInfo":{"name":"rawserver","version":"1.0.0"}}}`
	case "tools/list":
		return nestedList(msg.ID, depth, objects)
	case "ping":
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"Method not found"}}`
}

// rawHTTPServer serves raw JSON-RPC on loopback, its tools/list response
// nesting depth levels: over Streamable HTTP at /mcp with JSON bodies
// (kind "json") or SSE bodies ("sse-body"), or over the legacy HTTP+SSE
// transport at /sse ("legacy-sse"). It returns the URL to measure.
func rawHTTPServer(t *testing.T, kind string, depth int, objects bool) string {
	t.Helper()
	var mu sync.Mutex
	streams := map[string]chan string{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case kind == "legacy-sse" && r.Method == http.MethodGet && r.URL.Path == "/sse":
			ch := make(chan string, 16)
			mu.Lock()
			sid := strconv.Itoa(len(streams))
			streams[sid] = ch
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: /messages?session=%s\n\n", sid)
			w.(http.Flusher).Flush()
			for {
				select {
				case m := <-ch:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case kind == "legacy-sse" && r.Method == http.MethodPost && r.URL.Path == "/messages":
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			ch := streams[r.URL.Query().Get("session")]
			mu.Unlock()
			if ch == nil {
				http.Error(w, "no session", http.StatusNotFound)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			if a := rawAnswer(body, depth, objects); a != "" {
				ch <- a
			}
		case kind != "legacy-sse" && r.Method == http.MethodPost && r.URL.Path == "/mcp":
			body, _ := io.ReadAll(r.Body)
			a := rawAnswer(body, depth, objects)
			if a == "" {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			if kind == "sse-body" {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", a)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, a)
		case r.Method == http.MethodDelete:
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	if kind == "legacy-sse" {
		return srv.URL + "/sse"
	}
	return srv.URL + "/mcp"
}

// measureNested measures a server whose tools/list response nests depth
// levels, over transport ("stdio", "json", "sse-body", "legacy-sse").
func measureNested(t *testing.T, transport string, depth int, objects bool) Result {
	t.Helper()
	var target Target
	switch transport {
	case "stdio":
		nest := "array"
		if objects {
			nest = "object"
		}
		target = Target{Command: bin(t, "stdioserver"), Args: []string{"nest"}, Env: map[string]string{"DEPTH": strconv.Itoa(depth), "NEST": nest}, Cwd: t.TempDir()}
	case "legacy-sse":
		target = Target{URL: rawHTTPServer(t, transport, depth, objects), Transport: "sse"}
	default:
		target = Target{URL: rawHTTPServer(t, transport, depth, objects)}
	}
	o := testOptions()
	o.MaxResponseBytes = DefaultMaxResponseBytes
	return Measure(context.Background(), target, o)
}

// TestDepthLimitEveryTransport: a tools/list response nesting MaxDepth
// levels is measured, one level deeper is refused with a protocol error
// naming the limit, the same over stdio, Streamable HTTP (JSON and SSE
// bodies) and HTTP+SSE; and a response 10,000 or 1,000,000 levels deep,
// of arrays or of objects, is refused the same way, the process standing.
func TestDepthLimitEveryTransport(t *testing.T) {
	want := fmt.Sprintf("deeper than the %d levels", MaxDepth)
	for _, transport := range []string{"stdio", "json", "sse-body", "legacy-sse"} {
		for _, depth := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1, 10000, 1000000} {
			for _, objects := range []bool{false, true} {
				if objects && depth < 10000 && depth != MaxDepth+1 {
					continue
				}
				name := fmt.Sprintf("%s/%d", transport, depth)
				if objects {
					name += "/objects"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					r := measureNested(t, transport, depth, objects)
					if depth <= MaxDepth {
						if r.Status != StatusMeasured || len(r.First.Tools()) != 1 {
							t.Fatalf("%s (%s), want measured: the limit is %d", r.Status, r.Detail, MaxDepth)
						}
						return
					}
					if r.Status != StatusProtocolError || !strings.Contains(r.Detail, want) {
						t.Fatalf("%s (%s), want a protocol error saying %q", r.Status, r.Detail, want)
					}
				})
			}
		}
	}
}
