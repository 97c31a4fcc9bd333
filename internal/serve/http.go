package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of serving over HTTP.
const (
	// DefaultSessionTimeout is how long a session may stay idle (no
	// request) before it ends.
	DefaultSessionTimeout = 10 * time.Minute
	// DefaultMaxSessions caps the sessions open at once; a new one over
	// the cap is answered 503 until an idle one ends.
	DefaultMaxSessions = 64

	// The http.Server's limits: a request's headers must arrive within
	// ReadHeaderTimeout and the whole request within ReadTimeout; a
	// kept-alive connection is closed after IdleTimeout without a request.
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second
	IdleTimeout       = 2 * time.Minute
	MaxHeaderBytes    = 32 << 10
)

// HTTPOptions configure serving over Streamable HTTP.
type HTTPOptions struct {
	// Token is the bearer token every request must carry; it may not be
	// empty.
	Token string
	// AllowLaunch lets callers use the tools that launch programs or
	// connect to URLs (measure_server, and audit_config and findings with
	// launch): whoever holds the token then runs commands as the serving
	// user. Off by default.
	AllowLaunch bool
	// AllowedOrigins are the origins (scheme://host[:port]) a browser may
	// call from, besides the server's own loopback origin.
	AllowedOrigins []string
	// SessionTimeout ends idle sessions; 0 for DefaultSessionTimeout.
	SessionTimeout time.Duration
	// MaxSessions caps the sessions open at once; 0 for
	// DefaultMaxSessions.
	MaxSessions int
}

// Handler serves mcpcost over Streamable HTTP. Every request must carry
// "Authorization: Bearer TOKEN" (compared in constant time), or it is
// answered 401; a request with an Origin header that is neither the
// server's own loopback origin nor an allowed one is answered 403, as the
// MCP transport requires (the SDK refuses a Host that is not loopback on a
// loopback listener). The tools that launch programs are refused unless
// h.AllowLaunch, and callers are [Options.Remote].
func Handler(o Options, h HTTPOptions) (http.Handler, error) {
	o.NoLaunch = o.NoLaunch || !h.AllowLaunch
	o.Remote = true
	return handler(New(o), h)
}

func handler(srv *mcp.Server, h HTTPOptions) (http.Handler, error) {
	return handlerHolding(srv, h, new(bodyBudget))
}

// handlerHolding is handler, with the room of the request bodies it reads
// held in bodies.
func handlerHolding(srv *mcp.Server, h HTTPOptions, bodies *bodyBudget) (http.Handler, error) {
	if h.Token == "" {
		return nil, errors.New("serving over HTTP needs a bearer token")
	}
	if h.SessionTimeout <= 0 {
		h.SessionTimeout = DefaultSessionTimeout
	}
	if h.MaxSessions <= 0 {
		h.MaxSessions = DefaultMaxSessions
	}
	origins := map[string]bool{}
	for _, o := range h.AllowedOrigins {
		n, err := normalOrigin(o)
		if err != nil {
			return nil, err
		}
		origins[n] = true
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{SessionTimeout: h.SessionTimeout, MaxRequestBodyBytes: MaxBodyBytes})
	want := sha256.Sum256([]byte(h.Token))
	var starting atomic.Int64 // new sessions being set up
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin, ok := r.Header["Origin"]; ok && !originAllowed(r, origin, origins) {
			http.Error(w, "Forbidden: this origin may not call mcpcost", http.StatusForbidden)
			return
		}
		auth := r.Header.Get("Authorization")
		scheme, got, ok := strings.Cut(auth, " ")
		have := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(have[:], want[:]) != 1 {
			// RFC 6750: a request without a token is told one is needed,
			// one with a wrong token that it is invalid.
			if auth == "" {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcpcost"`)
				http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			} else {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcpcost", error="invalid_token"`)
				http.Error(w, "the bearer token is invalid", http.StatusUnauthorized)
			}
			return
		}
		if r.Method == http.MethodPost {
			// A body is read whole first (within the server's
			// ReadTimeout), its room held until the end of its request:
			// the bodies held at once are bounded.
			body, held, err := bodies.read(w, r)
			defer bodies.give(held)
			var tooLarge *http.MaxBytesError
			switch {
			case errors.As(err, &tooLarge):
				http.Error(w, fmt.Sprintf("Request Entity Too Large: a request body is at most %d bytes", MaxBodyBytes), http.StatusRequestEntityTooLarge)
				return
			case errors.Is(err, errBodiesFull):
				w.Header().Set("Retry-After", strconv.Itoa(int(BodyRetryAfter.Seconds())))
				http.Error(w, fmt.Sprintf("Service Unavailable: the request bodies being served take %d MiB, the most this server holds at once; retry shortly", MaxHeldBodyBytes>>20), http.StatusServiceUnavailable)
				return
			case err != nil:
				http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body, r.ContentLength = &heldBody{body}, int64(len(body))
		}
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			// A new session. Its body was read first, so that a slow one
			// holds no place; it is counted while it is set up, so that
			// concurrent ones cannot pass the cap together.
			n := starting.Add(1)
			defer starting.Add(-1)
			if open := sessions(srv); open+int(n)-1 >= h.MaxSessions {
				w.Header().Set("Retry-After", strconv.Itoa(int(h.SessionTimeout.Seconds())))
				http.Error(w, fmt.Sprintf("Service Unavailable: %d sessions are open, the most this server keeps; an idle one ends after %s", open, h.SessionTimeout), http.StatusServiceUnavailable)
				return
			}
		}
		sdk.ServeHTTP(w, r)
	}), nil
}

func sessions(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// HTTPServer is an http.Server for h with the limits above, so that slow or
// abandoned connections cannot hold the server.
func HTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
}

// originAllowed says whether the Origin header values may call: one value,
// either allowed or the loopback origin of the port the request came in
// on.
func originAllowed(r *http.Request, values []string, allowed map[string]bool) bool {
	if len(values) != 1 {
		return false
	}
	o, err := normalOrigin(values[0])
	if err != nil {
		return false
	}
	if allowed[o] {
		return true
	}
	u, _ := url.Parse(o)
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || u.Scheme != "http" || !IsLoopback(u.Hostname()) {
		return false
	}
	_, port, err := net.SplitHostPort(local.String())
	return err == nil && u.Port() == port
}

// normalOrigin is an origin as browsers send it, lower case, without a
// default port.
func normalOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin (scheme://host[:port])", s)
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return strings.ToLower(u.Scheme) + "://" + host, nil
}

// CheckAddr says whether addr (host:port) may be served with mcpcost's own
// token (see [TokenFile]) or only with one the operator names: a loopback
// host may use its own; any other host, or an empty one (every
// interface), needs one named.
func CheckAddr(addr string, haveToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT: %w", addr, err)
	}
	if !IsLoopback(host) && !haveToken {
		if host == "" {
			host = "every interface"
		}
		return fmt.Errorf("serving on %s (not loopback) needs a bearer token: set one in an environment variable and name it with --token-env", host)
	}
	return nil
}

// IsLoopback reports whether host names only the loopback interface.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
