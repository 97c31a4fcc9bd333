package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// reply is a JSON-RPC response as read off the wire.
type reply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

func readReplies(t *testing.T, out []byte) []reply {
	t.Helper()
	var rs []reply
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("a line that is not a response: %q: %v", sc.Text(), err)
		}
		rs = append(rs, r)
	}
	return rs
}

const initLines = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// runServe runs the built "mcpcost serve" on input and returns what it
// wrote to stdout, and its exit status.
func runServe(t *testing.T, bin, home, input string) ([]byte, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+home+"/cache", "XDG_DATA_HOME="+home+"/data", "MCPCOST_CACHE_DIR="+home+"/cache")
	cmd.Stdin = strings.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Logf("stderr: %s", stderr.String())
	}
	return out, code
}

// TestStdioAnswersBeforeEOF: requests written at once, then the end of
// the input: every one is answered before the process exits, run after
// run (the answers still in flight used to be dropped, 0 to 2 of 2).
func TestStdioAnswersBeforeEOF(t *testing.T) {
	bin := build(t, "cmd/mcpcost")
	home := t.TempDir()
	input := initLines +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"audit_config","arguments":{"client":"cursor"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"usage_summary","arguments":{"days":-1}}}` + "\n"
	want := []string{`"three"`, "1", "2", "4", "5"} // sorted
	for run := range 20 {
		out, code := runServe(t, bin, home, input)
		if code != 0 {
			t.Fatalf("run %d: exit status %d", run, code)
		}
		var got []string
		for _, r := range readReplies(t, out) {
			got = append(got, string(r.ID))
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			t.Fatalf("run %d: answered ids %v, want %v", run, got, want)
		}
	}
}

// TestStdioMalformedLines: each malformed line is answered with the JSON-RPC
// error for it, and the server answers the next request and exits 0.
func TestStdioMalformedLines(t *testing.T) {
	bin := build(t, "cmd/mcpcost")
	home := t.TempDir()
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	deepObj := `{"jsonrpc":"2.0","id":77,"method":"ping","params":{"a":` + strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth) + "}}"
	cases := []struct {
		line   string
		code   int
		id     string
		reason string
	}{
		{"not json", -32700, "null", "not JSON"},
		{`{"jsonrpc":"2.0","id":3,"method":"ping"`, -32700, "null", "not JSON"},
		{"\xff\xfe{}", -32700, "null", "UTF-8"},
		{`{"jsonrpc":"2.0","id":5,"method":"ping","params":{"s":"` + "\xc3\x28" + `"}}`, -32700, "null", "UTF-8"},
		{deep, -32700, "null", "deeper"},
		{deepObj, -32700, "null", "deeper"},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null", "id"},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null", "id"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null", "id"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null", "id"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null", "id"},
		{`[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, -32600, "null", "batch"},
		{`[]`, -32600, "null", "batch"},
		{`42`, -32600, "null", "object"},
		{`"ping"`, -32600, "null", "object"},
		{`{}`, -32600, "null", "jsonrpc"},
		{`{"jsonrpc":"2.0"}`, -32600, "null", "method"},
		{`{"jsonrpc":"1.0","id":12,"method":"ping"}`, -32600, "12", "jsonrpc"},
		{`{"id":13,"method":"ping"}`, -32600, "13", "jsonrpc"},
		{`{"jsonrpc":"2.0","id":14,"method":7}`, -32600, "14", "method"},
	}
	for _, c := range cases {
		input := initLines + c.line + "\n" + `{"jsonrpc":"2.0","id":99,"method":"ping"}` + "\n"
		out, code := runServe(t, bin, home, input)
		if code != 0 {
			t.Errorf("%.60q: exit status %d, want 0", c.line, code)
			continue
		}
		rs := readReplies(t, out)
		var errs []reply
		pinged := false
		for _, r := range rs {
			if string(r.ID) == "99" && r.Error == nil {
				pinged = true
			}
			if r.Error != nil {
				errs = append(errs, r)
			}
		}
		if !pinged {
			t.Errorf("%.60q: the ping after it was not answered: %s", c.line, out)
		}
		if len(errs) != 1 {
			t.Errorf("%.60q: %d error responses, want 1: %s", c.line, len(errs), out)
			continue
		}
		e := errs[0]
		if e.Error.Code != c.code || string(e.ID) != c.id || !strings.Contains(e.Error.Message, c.reason) {
			t.Errorf("%.60q: id %s, error %d %q; want id %s, %d mentioning %q", c.line, e.ID, e.Error.Code, e.Error.Message, c.id, c.code, c.reason)
		}
	}
}

// TestStdioDepthLimit: a line nesting MaxDepth levels is read and one
// nesting more is answered with -32700, counting only the brackets outside
// strings: a bracket, a closing one or an escaped quote inside a string
// does not count, and an escaped backslash ends before the quote after it.
func TestStdioDepthLimit(t *testing.T) {
	req := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + params + `}`
	}
	nest := func(n int, inner string) string {
		return strings.Repeat(`{"a":`, n) + inner + strings.Repeat("}", n)
	}
	opens := strings.Repeat("[", 2*MaxDepth)
	cases := []struct {
		name string
		line string
		deep bool
	}{
		{"objects at the limit", req(nest(MaxDepth-1, "1")), false},
		{"objects over the limit", req(nest(MaxDepth, "1")), true},
		{"arrays at the limit", req(`{"a":` + strings.Repeat("[", MaxDepth-2) + strings.Repeat("]", MaxDepth-2) + `}`), false},
		{"arrays over the limit", req(`{"a":` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `}`), true},
		{"brackets in a string", req(`{"s":"` + opens + `"}`), false},
		{"brackets in a key", req(`{"` + opens + `":1}`), false},
		{"closers in a string", req(nest(MaxDepth, `"`+strings.Repeat("]}", MaxDepth)+`"`)), true},
		{"an escaped quote", req(`{"s":"\"` + opens + `"}`), false},
		{"an escaped quote after escaped backslashes", req(`{"s":"\\\\\"` + opens + `"}`), false},
		{"a quote written \\u0022", req(`{"s":"\u0022` + opens + `"}`), false},
		{"an escaped backslash at a string's end", req(`{"s":"\\","a":` + nest(MaxDepth-1, "1") + `}`), true},
		{"an escaped backslash, at the limit", req(`{"s":"\\","a":` + nest(MaxDepth-2, "1") + `}`), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn := &stdioConn{pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{})}
			msg, bad := conn.decode(line{b: []byte(c.line)})
			if !c.deep {
				if bad != nil || msg == nil {
					t.Fatalf("answered %s, want the ping read", bad)
				}
				return
			}
			var r reply
			if err := json.Unmarshal(bad, &r); err != nil || r.Error == nil {
				t.Fatalf("answered %s (%v), want an error", bad, err)
			}
			if want := fmt.Sprintf("nested deeper than %d levels", MaxDepth); r.Error.Code != -32700 || !strings.Contains(r.Error.Message, want) {
				t.Errorf("error %d %q, want -32700 mentioning %q", r.Error.Code, r.Error.Message, want)
			}
		})
	}
}

// TestStdioTransport drives the transport in process, many times, with
// answers that take time: none is lost at the end of the input, a
// duplicate id is refused, an over-long line is answered and skipped.
func TestStdioTransport(t *testing.T) {
	o := withDefaults(Options{Version: "test", Getenv: func(string) string { return "" }, Project: t.TempDir()})
	for run := range 50 {
		var in strings.Builder
		in.WriteString(initLines)
		const n = 8
		for i := range n {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"usage_summary","arguments":{"days":%d}}}`+"\n", 100+i, -1-i)
		}
		var out bytes.Buffer
		w := &lockedWriter{w: &out}
		if err := New(o).Run(context.Background(), &StdioTransport{Reader: strings.NewReader(in.String()), Writer: w}); err != nil && err != io.EOF {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := len(readReplies(t, w.bytes())); got != n+1 {
			t.Fatalf("run %d: %d answers, want %d:\n%s", run, got, n+1, w.bytes())
		}
	}

	// The connection alone: a request read and not answered keeps its id
	// in use, and the end of the input waits for its answer.
	pr, pw := io.Pipe()
	var out bytes.Buffer
	w := &lockedWriter{w: &out}
	conn, _ := (&StdioTransport{Reader: pr, Writer: w}).Connect(context.Background())
	go func() {
		long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"` + strings.Repeat("x", MaxLine) + `"}}`
		io.WriteString(pw, `{"jsonrpc":"2.0","id":"a","method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":"a","method":"ping"}`+"\n"+long+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
		pw.Close()
	}()
	ctx := context.Background()
	var ids []string
	for range 2 {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, fmt.Sprint(msg.(*jsonrpc.Request).ID.Raw()))
	}
	if strings.Join(ids, " ") != "a 2" {
		t.Errorf("requests read: %v, want a 2", ids)
	}
	eof := make(chan error)
	go func() { _, err := conn.Read(ctx); eof <- err }()
	select {
	case err := <-eof:
		t.Fatalf("the end of the input was reported (%v) before the requests read were answered", err)
	case <-time.After(100 * time.Millisecond):
	}
	for _, id := range []any{"a", float64(2)} {
		jid, _ := jsonrpc.MakeID(id)
		conn.Write(ctx, &jsonrpc.Response{ID: jid, Result: json.RawMessage("{}")})
	}
	if err := <-eof; err != io.EOF {
		t.Errorf("at the end of the input: %v, want EOF", err)
	}
	var msgs []string
	for _, r := range readReplies(t, w.bytes()) {
		if r.Error != nil {
			msgs = append(msgs, fmt.Sprintf("%s %d %s", r.ID, r.Error.Code, r.Error.Message))
		} else {
			msgs = append(msgs, string(r.ID)+" ok")
		}
	}
	want := []string{`"a" -32600 invalid request: the id of a request not yet answered`, fmt.Sprintf("null -32600 invalid request: a line over %d bytes", MaxLine), `"a" ok`, "2 ok"}
	if !slices.Equal(msgs, want) {
		t.Errorf("answers:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.w.Bytes()...)
}
