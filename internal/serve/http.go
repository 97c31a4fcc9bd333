package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves srv over Streamable HTTP. With a token, every request must
// carry "Authorization: Bearer TOKEN" (compared in constant time), or it is
// answered 401 with WWW-Authenticate: Bearer.
func Handler(srv *mcp.Server, token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		scheme, got, ok := strings.Cut(auth, " ")
		have := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(have[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpcost"`)
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// CheckAddr says whether addr (host:port) may be served with or without a
// token: a loopback host may go without; any other host, or an empty one
// (every interface), needs one.
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
