package serve

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// paddedInitialize is an initialize request of exactly size bytes.
func paddedInitialize(size int) []byte {
	head := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"},"pad":"`
	return []byte(head + strings.Repeat("x", size-len(head)-3) + `"}}`)
}

// postBody posts body (of length n, -1 for unknown) and returns the status
// and Retry-After.
func postBody(t *testing.T, url, token, session string, body io.Reader, n int64) (int, string) {
	t.Helper()
	code, retry, err := tryPost(url, token, session, body, n)
	if err != nil {
		t.Fatal(err)
	}
	return code, retry
}

func tryPost(url, token, session string, body io.Reader, n int64) (int, string, error) {
	req, _ := http.NewRequest("POST", url, body)
	req.ContentLength = n
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Retry-After"), nil
}

// TestHTTPBodyTooLarge: a body over MaxBodyBytes is answered 413, whether
// it opens a session or not and whether its length is given or not; one
// of MaxBodyBytes is served.
func TestHTTPBodyTooLarge(t *testing.T) {
	const token = "body-test-token-1234"
	ts := httptest.NewServer(mustHandler(t, withDefaults(Options{Version: "test"}), HTTPOptions{Token: token}))
	t.Cleanup(ts.Close)
	big := paddedInitialize(MaxBodyBytes + 1)
	for _, c := range []struct {
		name    string
		session string
		n       int64
	}{
		{"a new session", "", int64(len(big))},
		{"a new session, chunked", "", -1},
		{"a session", "some-session", int64(len(big))},
		{"a session, chunked", "some-session", -1},
	} {
		if code, _ := postBody(t, ts.URL, token, c.session, bytes.NewReader(big), c.n); code != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: a body of %d bytes: status %d, want 413", c.name, len(big), code)
		}
	}
	if code, _ := postBody(t, ts.URL, token, "", bytes.NewReader(paddedInitialize(MaxBodyBytes)), MaxBodyBytes); code != http.StatusOK {
		t.Errorf("a body of MaxBodyBytes: status %d, want 200", code)
	}
	if code, _ := postBody(t, ts.URL, token, "", bytes.NewReader(paddedInitialize(MaxBodyBytes)), -1); code != http.StatusOK {
		t.Errorf("a body of MaxBodyBytes, chunked: status %d, want 200", code)
	}
}

// TestHTTPBodiesHeld: bodies held at once take at most MaxHeldBodyBytes:
// with that much held by bodies still arriving, a request is answered 503
// with Retry-After at once, and served again once one of them is done.
func TestHTTPBodiesHeld(t *testing.T) {
	const token = "bodies-test-token-1234"
	var bodies bodyBudget
	h, err := handlerHolding(New(withDefaults(Options{Version: "test"})), HTTPOptions{Token: token}, &bodies)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)

	// MaxHeldBodyBytes/MaxBodyBytes bodies of MaxBodyBytes, each sent
	// but for its last byte.
	body := paddedInitialize(MaxBodyBytes)
	held := MaxHeldBodyBytes / MaxBodyBytes
	last := make([]*io.PipeWriter, held)
	done := make(chan int, held)
	for i := range held {
		pr, pw := io.Pipe()
		last[i] = pw
		go func() {
			// Those left arriving are cut at the end of the test.
			code, _, _ := tryPost(ts.URL, token, "", io.MultiReader(bytes.NewReader(body[:len(body)-1]), pr), int64(len(body)))
			done <- code
		}()
	}
	t.Cleanup(func() {
		for _, pw := range last {
			pw.CloseWithError(io.ErrUnexpectedEOF)
		}
	})

	// They fill the room once read (but for their last byte).
	deadline := time.Now().Add(30 * time.Second)
	for bodies.held.Load() < MaxHeldBodyBytes && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := bodies.held.Load(); n != MaxHeldBodyBytes {
		t.Fatalf("%d bodies of %d bytes arriving hold %d bytes, want %d", held, MaxBodyBytes, n, MaxHeldBodyBytes)
	}

	// A small request is refused at once. It asks for a session that
	// does not exist, so that it holds nothing once answered.
	probe := func() (int, string) {
		return postBody(t, ts.URL, token, "no-such-session", strings.NewReader(initialize), int64(len(initialize)))
	}
	if code, retry := probe(); code != http.StatusServiceUnavailable || retry != "1" {
		t.Fatalf("with %d bodies of %d bytes arriving: status %d, Retry-After %q; want 503 with Retry-After 1", held, MaxBodyBytes, code, retry)
	}

	// One body ends: its request is served, and its room is free.
	last[0].Write(body[len(body)-1:])
	last[0].Close()
	if code := <-done; code != http.StatusOK {
		t.Errorf("the body completed: status %d, want 200", code)
	}
	for bodies.held.Load() > MaxHeldBodyBytes-MaxBodyBytes && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if code, retry := probe(); code == http.StatusServiceUnavailable {
		t.Errorf("with one body done: status %d, Retry-After %q", code, retry)
	}
}
