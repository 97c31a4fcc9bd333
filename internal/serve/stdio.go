package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpcost/mcpcost/internal/app"
	"io"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of one line read over stdio.
const (
	// MaxLine is the longest line read; a longer one is answered with
	// -32600 and skipped.
	MaxLine = 16 << 20
	// MaxDepth is the deepest nesting of arrays and objects in a line,
	// the limit of every message mcpcost reads ([app.MaxDepth]); a
	// deeper one is answered with -32700.
	MaxDepth = app.MaxDepth
)

// StdioTransport is MCP's stdio transport, one JSON-RPC message per line,
// made robust for a server that must outlive its client's mistakes:
//
//   - a line that is not JSON (or not UTF-8, or nested deeper than
//     [MaxDepth]) is answered with -32700, one that is not a request or
//     response (an id that is an object, a fraction or null, a batch, no
//     "jsonrpc": "2.0", an id already in use, a line over [MaxLine]) with
//     -32600, with id null where it cannot be known, and the next line is
//     read;
//   - when the input ends, every request already read is answered before
//     the connection reports the end (the SDK's own transport drops the
//     answers still in flight).
//
// JSON-RPC batches are refused: MCP removed them in 2025-06-18.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
}

// Connect implements [mcp.Transport].
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		w:       t.Writer,
		lines:   make(chan line),
		closed:  make(chan struct{}),
		pending: map[jsonrpc.ID]bool{},
		changed: make(chan struct{}),
	}
	go c.readLines(t.Reader)
	return c, nil
}

type line struct {
	b       []byte
	tooLong bool
}

type stdioConn struct {
	w     io.Writer
	lines chan line // closed at the end of the input
	eof   bool

	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // requests read and not yet answered
	changed chan struct{}       // closed (and replaced) when pending shrinks

	closeOnce sync.Once
	closed    chan struct{}
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// readLines sends each line of r to c.lines, until the end of r or Close.
func (c *stdioConn) readLines(r io.Reader) {
	defer close(c.lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var buf []byte
		tooLong := false
		var err error
		for {
			var part []byte
			part, err = br.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(part) > MaxLine {
					tooLong, buf = true, nil
				} else {
					buf = append(buf, part...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if len(bytes.TrimSpace(buf)) > 0 || tooLong {
			select {
			case c.lines <- line{b: buf, tooLong: tooLong}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message; it answers malformed lines itself. At the
// end of the input it waits until every request read has been answered.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for !c.eof {
		var l line
		var ok bool
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l, ok = <-c.lines:
		}
		if !ok {
			c.eof = true
			break
		}
		msg, bad := c.decode(l)
		if bad != nil {
			if err := c.writeRaw(bad); err != nil {
				return nil, err
			}
			continue
		}
		return msg, nil
	}
	for {
		c.mu.Lock()
		n, changed := len(c.pending), c.changed
		c.mu.Unlock()
		if n == 0 {
			return nil, io.EOF
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-changed:
		}
	}
}

// Write implements [mcp.Connection].
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		defer c.answered(resp.ID)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeRaw(data)
}

func (c *stdioConn) writeRaw(data []byte) error {
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(data[:len(data):len(data)], '\n'))
	return err
}

func (c *stdioConn) answered(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[id] {
		delete(c.pending, id)
		close(c.changed)
		c.changed = make(chan struct{})
	}
}

// decode reads one line into a message, or into the error response that
// answers it.
func (c *stdioConn) decode(l line) (jsonrpc.Message, []byte) {
	if l.tooLong {
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a line over %d bytes", MaxLine))
	}
	b := bytes.TrimSpace(l.b)
	switch {
	case !utf8.Valid(b):
		return nil, errorLine(nil, jsonrpc.CodeParseError, "parse error: the line is not valid UTF-8")
	case app.Depth(b) > MaxDepth:
		return nil, errorLine(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: nested deeper than %d levels", MaxDepth))
	case !json.Valid(b):
		return nil, errorLine(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
	case b[0] == '[':
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them)")
	case b[0] != '{':
		return nil, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errorLine(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
	}
	invalid := func(id json.RawMessage, why string) (jsonrpc.Message, []byte) {
		return nil, errorLine(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why)
	}
	rawID, hasID := m["id"]
	if hasID {
		if !validID(rawID) {
			return invalid(nil, "an id is a string or an integer")
		}
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return invalid(rawID, `"jsonrpc" must be "2.0"`)
	}
	if raw, ok := m["method"]; ok {
		var method string
		if json.Unmarshal(raw, &method) != nil {
			return invalid(rawID, "a method is a string")
		}
	} else if !hasID {
		return invalid(nil, "a message has a method (a request) or an id (a response)")
	}
	msg, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return invalid(rawID, err.Error())
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		inUse := c.pending[req.ID]
		if !inUse {
			c.pending[req.ID] = true
		}
		c.mu.Unlock()
		if inUse {
			return invalid(rawID, "the id of a request not yet answered")
		}
	} else if ok && req.Method == "notifications/cancelled" {
		// A cancelled request needs no answer (the SDK may still send
		// one): the end of the input does not wait for it.
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil && validID(p.RequestID) {
			var v any
			json.Unmarshal(p.RequestID, &v)
			if id, err := jsonrpc.MakeID(v); err == nil {
				c.answered(id)
			}
		}
	}
	return msg, nil
}

// validID says whether raw is an id MCP allows: a string or an integer
// (exactly representable, as the SDK reads it as a float64), never null.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case float64:
		return v == math.Trunc(v) && math.Abs(v) <= 1<<53
	}
	return false
}

// errorLine is a JSON-RPC error response; id nil for null.
func errorLine(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	return b
}
