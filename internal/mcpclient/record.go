package mcpclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// A recorder sees every JSON-RPC message crossing a connection as bytes,
// below the SDK: outgoing requests (to learn which id asked for which
// method) and incoming messages (to keep the raw result of each response).
// It also collects what the transport noticed: skipped lines, oversized
// messages, HTTP statuses and server-to-client traffic.
type recorder struct {
	mu        sync.Mutex
	pending   map[string]string // request id (raw JSON) → method
	responses map[string][]rawResponse
	fatal     *failure // first transport-level failure; decides the class
	skipped   int      // stdout lines that are not JSON-RPC
	invalid8  int      // messages with invalid UTF-8
	serverReq map[string]int
	notices   map[string]int
	http      []httpExchange
	netErr    error
	maxTotal  int // bytes of results kept, over all responses
	total     int
	injected  bool // an unanswered server/discover was answered for the server
}

// maxMethodNames bounds the distinct server-to-client method names counted.
const maxMethodNames = 64

// rawResponse is one response to a request we sent.
type rawResponse struct {
	Result json.RawMessage // nil when Err is set
	Err    *rpcError
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// httpExchange is the status of one HTTP request, for classification.
type httpExchange struct {
	Method          string
	Status          int
	WWWAuthenticate string
	ContentType     string
}

func newRecorder(maxTotal int) *recorder {
	return &recorder{
		maxTotal:  maxTotal,
		pending:   map[string]string{},
		responses: map[string][]rawResponse{},
		serverReq: map[string]int{},
		notices:   map[string]int{},
	}
}

// outgoing notes a message we sent, and returns its method and id when it
// is a request.
func (r *recorder) outgoing(data []byte) (method string, id json.RawMessage) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return "", nil
	}
	id = bytes.TrimSpace(m.ID)
	r.mu.Lock()
	r.pending[string(id)] = m.Method
	r.mu.Unlock()
	return m.Method, id
}

// discoverError is the answer given to the SDK for a server that left
// server/discover unanswered for too long: method not found, as a legacy
// server should have answered.
func discoverError(id json.RawMessage) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32601,"message":"server/discover was not answered in time"}}`)
}

// injectFor reports whether request id is still unanswered, and if so
// notes that it is being answered for the server.
func (r *recorder) injectFor(id json.RawMessage) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.pending[string(id)]; !ok {
		return false
	}
	r.injected = true
	return true
}

func (r *recorder) discoverInjected() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.injected
}

// incoming notes a message the server sent (one JSON value: an object or a
// batch array).
func (r *recorder) incoming(data []byte) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(data, &batch) == nil {
			for _, m := range batch {
				r.incoming(m)
			}
		}
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil {
		return
	}
	if m.Method != nil {
		if len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null")) {
			r.countMethod(r.serverReq, *m.Method)
		} else {
			r.notice(*m.Method)
		}
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id := string(bytes.TrimSpace(m.ID))
	method, ok := r.pending[id]
	if !ok {
		return
	}
	delete(r.pending, id)
	resp := rawResponse{Err: m.Error}
	if m.Error == nil {
		r.total += len(m.Result)
		if r.maxTotal > 0 && r.total > r.maxTotal {
			if r.fatal == nil {
				r.fatal = failf(StatusProtocolError, "the server sent more than %d bytes of results in one capture", r.maxTotal)
			}
			return
		}
		resp.Result = append(json.RawMessage(nil), m.Result...)
	}
	r.responses[method] = append(r.responses[method], resp)
}

// notice counts a notification the server sent.
func (r *recorder) notice(method string) { r.countMethod(r.notices, method) }

func (r *recorder) countMethod(counts map[string]int, method string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := clip(method, 64)
	if _, ok := counts[name]; !ok && len(counts) >= maxMethodNames {
		name = "(other methods)"
	}
	counts[name]++
}

// count returns how many responses to method were recorded.
func (r *recorder) count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.responses[method])
}

// since returns the first response to method recorded after the first n.
func (r *recorder) since(method string, n int) (rawResponse, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := r.responses[method]
	if len(rs) <= n {
		return rawResponse{}, false
	}
	return rs[n], true
}

// last returns the last successful response to method.
func (r *recorder) last(method string) json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := r.responses[method]
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Err == nil {
			return rs[i].Result
		}
	}
	return nil
}

// awaiting reports whether a request for method is still unanswered.
func (r *recorder) awaiting(method string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.pending {
		if m == method {
			return true
		}
	}
	return false
}

func (r *recorder) fail(f *failure) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = f
	}
	r.mu.Unlock()
}

func (r *recorder) failure() *failure {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fatal
}

func (r *recorder) noteHTTP(x httpExchange) {
	r.mu.Lock()
	r.http = append(r.http, x)
	r.mu.Unlock()
}

func (r *recorder) noteNetErr(err error) {
	r.mu.Lock()
	if r.netErr == nil {
		r.netErr = err
	}
	r.mu.Unlock()
}

func (r *recorder) exchanges() []httpExchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]httpExchange(nil), r.http...)
}

func (r *recorder) networkError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.netErr
}

func (r *recorder) skip() {
	r.mu.Lock()
	r.skipped++
	r.mu.Unlock()
}

func (r *recorder) noteInvalidUTF8() {
	r.mu.Lock()
	r.invalid8++
	r.mu.Unlock()
}

// warnings describes what the recorder saw that a reader should know.
func (r *recorder) warnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ws []string
	if r.invalid8 > 0 {
		ws = append(ws, fmt.Sprintf("%d message(s) contain invalid UTF-8 (counted as U+FFFD, as JSON.parse after UTF-8 decoding would)", r.invalid8))
	}
	for _, m := range sortedKeys(r.serverReq) {
		switch m {
		case "ping":
			ws = append(ws, fmt.Sprintf("server sent ping %d time(s); answered", r.serverReq[m]))
		default:
			ws = append(ws, fmt.Sprintf("server sent %s %d time(s); refused with method-not-found (the measurement is of a client without that capability)", m, r.serverReq[m]))
		}
	}
	for _, m := range sortedKeys(r.notices) {
		if m == "notifications/tools/list_changed" || m == "notifications/prompts/list_changed" || m == "notifications/resources/list_changed" {
			ws = append(ws, fmt.Sprintf("server sent %s during the capture; its list may change after start-up", m))
		}
	}
	return ws
}

func (r *recorder) skippedLines() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
