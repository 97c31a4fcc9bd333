package mcpclient

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestLog records the requests a test server got.
type requestLog struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.reqs = append(l.reqs, r.Clone(context.Background()))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) all() []*http.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*http.Request(nil), l.reqs...)
}

func redirectTo(url string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, url, http.StatusTemporaryRedirect)
	})
}

const redirectCanary = "canary-redirect-5e1d"

// TestRedirectToAnotherOrigin: a redirect to another host or port is
// refused, with a clear error, before anything (query, headers, Referer)
// reaches it.
func TestRedirectToAnotherOrigin(t *testing.T) {
	t.Parallel()
	var other requestLog
	b := httptest.NewServer(other.wrap(http.NotFoundHandler()))
	defer b.Close()
	a := httptest.NewServer(redirectTo(b.URL + "/mcp"))
	defer a.Close()
	r := Measure(context.Background(), Target{URL: a.URL + "/mcp?key=" + redirectCanary, Headers: map[string]string{"Authorization": "Bearer " + redirectCanary}}, testOptions())
	if r.Status != StatusStartupFailure || !strings.Contains(r.Detail, "redirected to another origin, "+b.URL+"/mcp") {
		t.Errorf("%s: %s", r.Status, r.Detail)
	}
	if strings.Contains(r.Detail, redirectCanary) {
		t.Errorf("the detail shows the secret: %s", r.Detail)
	}
	for _, req := range other.all() {
		t.Errorf("the other origin got %s %s (Referer %q, Authorization %q)", req.Method, req.URL, req.Header.Get("Referer"), req.Header.Get("Authorization"))
	}
}

// TestRedirectWithinOrigin: a redirect on the same origin is followed,
// with the target's headers and without a Referer.
func TestRedirectWithinOrigin(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "redirected", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "alpha", Description: "First tool."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	var log requestLog
	mux := http.NewServeMux()
	mux.Handle("/old", redirectTo("/mcp"))
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := httptest.NewServer(log.wrap(mux))
	defer srv.Close()
	o := testOptions()
	o.Once = true
	r := Measure(context.Background(), Target{URL: srv.URL + "/old?key=" + redirectCanary, Headers: map[string]string{"Authorization": "Bearer " + redirectCanary}}, o)
	if r.Status != StatusMeasured || len(r.First.Tools()) != 1 {
		t.Fatalf("%s: %s", r.Status, r.Detail)
	}
	followed := false
	for _, req := range log.all() {
		if ref := req.Header.Get("Referer"); ref != "" {
			t.Errorf("%s %s carried Referer %q", req.Method, req.URL, ref)
		}
		if req.URL.Path == "/mcp" {
			followed = true
			if req.Header.Get("Authorization") != "Bearer "+redirectCanary {
				t.Errorf("%s %s lost the target's header", req.Method, req.URL)
			}
		}
	}
	if !followed {
		t.Error("the redirect was not followed")
	}
}

// TestRedirectHTTPSToHTTP: a redirect from https to http on the same host
// and port is another origin: refused, so that no header goes out in
// cleartext.
func TestRedirectHTTPSToHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv := httptest.NewUnstartedServer(nil)
	tlsSrv.StartTLS() // for its certificate; it serves nothing
	defer tlsSrv.Close()
	plain := newChanListener(ln.Addr())
	secure := newChanListener(ln.Addr())
	// One port, both schemes: a TLS handshake starts with 0x16.
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			br := bufio.NewReader(c)
			first, err := br.Peek(1)
			if err != nil {
				c.Close()
				continue
			}
			pc := &peekedConn{Conn: c, r: br}
			if first[0] == 0x16 {
				secure.conns <- tls.Server(pc, tlsSrv.TLS)
			} else {
				plain.conns <- pc
			}
		}
	}()
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	var cleartext requestLog
	go http.Serve(plain, cleartext.wrap(http.NotFoundHandler()))
	go http.Serve(secure, redirectTo("http://127.0.0.1:"+strconv.Itoa(port)+"/mcp"))
	testRootCAs = tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	defer func() { testRootCAs = nil }()

	r := Measure(context.Background(), Target{URL: "https://127.0.0.1:" + strconv.Itoa(port) + "/mcp", Headers: map[string]string{"Authorization": "Bearer " + redirectCanary}}, testOptions())
	if r.Status != StatusStartupFailure || !strings.Contains(r.Detail, "redirected to another origin, http://127.0.0.1:"+strconv.Itoa(port)+"/mcp") {
		t.Errorf("%s: %s", r.Status, r.Detail)
	}
	for _, req := range cleartext.all() {
		t.Errorf("sent in cleartext: %s %s (Authorization %q)", req.Method, req.URL, req.Header.Get("Authorization"))
	}
}

type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// chanListener is a net.Listener fed from a channel.
type chanListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, conns: make(chan net.Conn, 8), done: make(chan struct{})}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *chanListener) Addr() net.Addr { return l.addr }
