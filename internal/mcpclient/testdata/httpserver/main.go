// Command httpserver is a small MCP server over HTTP for the mcpclient
// tests, built on the go-sdk. It listens on 127.0.0.1 (a free port), prints
// its base URL on stdout, and serves until killed. Its first argument picks
// the behaviour:
//
//	streamable      Streamable HTTP at /mcp
//	stateless       Streamable HTTP at /mcp, without sessions (the SDK serves 2026-07-28 only so)
//	modern          stateless Streamable HTTP at /mcp speaking only 2026-07-28
//	sse             the legacy HTTP+SSE transport at /sse
//	bearer          Streamable HTTP at /mcp; 401 unless "Authorization: Bearer $TOKEN"
//	oauth           401 with WWW-Authenticate: Bearer resource_metadata=...
//	oauth-wellknown 401 with a bare WWW-Authenticate; metadata at /.well-known/oauth-protected-resource/mcp
//	forgetful       Streamable HTTP at /mcp that answers tools/list with 404, as if the session expired
//	forbidden       403 for everything
//	error           500 for everything
//	hang            accepts connections and never answers
//	json            Streamable HTTP at /mcp answering with application/json bodies
//	huge-json       the same, with a tools/list of several megabytes
//	huge-sse        Streamable HTTP (SSE bodies) with a tools/list of several megabytes
//	no-discover     Streamable HTTP at /mcp that never answers a server/discover POST
//	slowloris       trickles response headers, a byte every 100ms, without end
//	slow-body       sends JSON response headers, then the body a byte every 100ms, without end
//	endless-sse     answers every POST with an SSE stream of notifications, every 20ms, without the response
//	hang-delete     Streamable HTTP at /mcp that never answers the DELETE ending a session
//	huge-error      answers everything with HTTP 400 and a JSON body that never ends, as fast as it can
//	ping-flood      Streamable HTTP at /mcp that answers tools/list with an SSE stream of ping requests, as fast as it can, without the response; GET /answers counts the answers received
//
// In the hostile modes, GET /open answers how many trickling responses
// are still being written (a response ends when a write to it fails).
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type input struct {
	X string `json:"x" jsonschema:"a string"`
}

func newServer(versions []string, big bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "httpserver", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions:              "Call alpha first.",
		SupportedProtocolVersions: versions,
	})
	handler := func(context.Context, *mcp.CallToolRequest, input) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "alpha", Description: "First tool."}, handler)
	mcp.AddTool(s, &mcp.Tool{Name: "beta", Description: "Second tool."}, handler)
	if big {
		mcp.AddTool(s, &mcp.Tool{Name: "big", Description: strings.Repeat("lorem ipsum ", 400000)}, handler)
	}
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Say hello"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	return s
}

func main() {
	mode := "streamable"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	jsonBodies := mode == "json" || mode == "huge-json"
	streamable := func(versions []string, big, stateless bool) http.Handler {
		s := newServer(versions, big)
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: jsonBodies})
	}
	mux := http.NewServeMux()
	base := "http://" + ln.Addr().String()
	switch mode {
	case "streamable":
		mux.Handle("/mcp", streamable(nil, false, false))
	case "stateless":
		mux.Handle("/mcp", streamable(nil, false, true))
	case "modern":
		mux.Handle("/mcp", streamable([]string{"2026-07-28"}, false, true))
	case "json":
		mux.Handle("/mcp", streamable(nil, false, false))
	case "huge-json", "huge-sse":
		mux.Handle("/mcp", streamable(nil, true, false))
	case "sse":
		s := newServer(nil, false)
		mux.Handle("/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	case "bearer":
		h := streamable(nil, false, false)
		token := os.Getenv("TOKEN")
		mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token {
				w.Header().Set("WWW-Authenticate", `Bearer realm="test"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		}))
	case "oauth":
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		})
	case "oauth-wellknown":
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		})
		mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":["https://auth.example"]}`, base+"/mcp")
		})
	case "forgetful":
		h := streamable(nil, false, false)
		mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"tools/list"`)) {
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
		}))
	case "no-discover":
		h := streamable(nil, false, false)
		mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"server/discover"`)) {
				<-r.Context().Done()
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(w, r)
		}))
	case "forbidden":
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "forbidden", http.StatusForbidden)
		})
	case "error":
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		})
	case "hang":
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(time.Hour):
			}
		})
	case "slowloris":
		mux.HandleFunc("/open", openCount)
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			trickle(func() error {
				_, err := conn.Write([]byte("HTTP/1.1 200 OK\r\nX-Pad: "))
				return err
			}, func() error { _, err := conn.Write([]byte("a")); return err }, 100*time.Millisecond)
		})
	case "slow-body":
		mux.HandleFunc("/open", openCount)
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			trickle(func() error { return rc.Flush() }, func() error {
				if _, err := w.Write([]byte(" ")); err != nil {
					return err
				}
				return rc.Flush()
			}, 100*time.Millisecond)
		})
	case "endless-sse":
		mux.HandleFunc("/open", openCount)
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			rc := http.NewResponseController(w)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			n := 0
			trickle(func() error { return rc.Flush() }, func() error {
				n++
				if _, err := fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"%d\"}}\n\n", n); err != nil {
					return err
				}
				return rc.Flush()
			}, 20*time.Millisecond)
		})
	case "hang-delete":
		h := streamable(nil, false, false)
		mux.HandleFunc("/open", openCount)
		mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				open.Add(1)
				defer open.Add(-1)
				<-r.Context().Done()
				return
			}
			h.ServeHTTP(w, r)
		}))
	case "huge-error":
		mux.HandleFunc("/open", openCount)
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			trickle(func() error { return nil }, func() error { _, err := w.Write(chunk); return err }, 0)
		})
	case "ping-flood":
		h := streamable(nil, false, false)
		var answers atomic.Int64
		mux.HandleFunc("/answers", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, answers.Load()) })
		mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			switch {
			case r.Method == http.MethodPost && bytes.Contains(body, []byte(`"method":"tools/list"`)):
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				rc := http.NewResponseController(w)
				n := 0
				trickle(func() error { return rc.Flush() }, func() error {
					n++
					if _, err := fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"p%d\",\"method\":\"ping\"}\n\n", n); err != nil {
						return err
					}
					return rc.Flush()
				}, 0)
			case r.Method == http.MethodPost && !bytes.Contains(body, []byte(`"method"`)):
				answers.Add(1)
				w.WriteHeader(http.StatusAccepted)
			default:
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.ServeHTTP(w, r)
			}
		}))
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
	fmt.Println(base)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// open counts the trickling responses still being written.
var open atomic.Int64

func openCount(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintln(w, open.Load())
}

// trickle runs start, then step every interval until one fails (the
// client went away) or an hour has passed.
func trickle(start, step func() error, interval time.Duration) {
	open.Add(1)
	defer open.Add(-1)
	if start() != nil {
		return
	}
	for end := time.Now().Add(time.Hour); time.Now().Before(end); {
		time.Sleep(interval)
		if step() != nil {
			return
		}
	}
}
