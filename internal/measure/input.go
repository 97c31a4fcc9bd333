package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
)

// DefaultMaxBytes is the default limit on the size of one input: a
// tools/list capture, a JSON-RPC stream or a measurement.json.
const DefaultMaxBytes = 256 << 20

// InputKind says what form an input file had.
type InputKind string

const (
	KindToolsResult InputKind = "tools-result" // {"tools":[...]}
	KindToolsArray  InputKind = "tools-array"  // [...]
	KindRPC         InputKind = "jsonrpc"      // JSON-RPC response(s), one per line
	KindMeasurement InputKind = "measurement"  // a measurement.json (rawToolsCapture)
	KindLive        InputKind = "live"         // captured from a running server
	KindUnknown     InputKind = ""
)

// Capture is the tools of one server, concatenated over every page, as
// parsed values in server order.
type Capture struct {
	Kind  InputKind
	Pages int
	Tools []*canon.Value
	// Skipped counts JSON-RPC stream lines that were not tools/list
	// responses (notifications, other responses).
	Skipped int
	// ServerName is a measurement.json's serverName ("" for other kinds,
	// or when it holds none).
	ServerName string
	// Recorded is what a measurement.json records beside its capture
	// (every field but tools and rawToolsCapture), nil for other kinds. A
	// field of the wrong type is left out, not an error.
	Recorded *File
}

// An InputError is a problem with an input, naming where it is.
type InputError struct {
	File string // file name, or "-" for standard input
	Line int    // 1-based line of a JSON-RPC stream; 0 when not applicable
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

var bom = []byte("\xef\xbb\xbf")

// ParseInput reads the tools out of data, which holds one of: a tools/list
// result ({"tools":[...]}), a JSON-RPC response or a stream of JSON-RPC
// messages one per line (the tools of every tools/list response, in order),
// a bare array of tools, or a measurement.json (its rawToolsCapture). name
// names the input in errors. A leading UTF-8 byte-order mark is ignored.
func ParseInput(name string, data []byte) (*Capture, error) {
	data = bytes.TrimPrefix(data, bom)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{File: name, Msg: "empty input: expected a tools/list result, a JSON-RPC response stream or an array of tools"}
	}
	// The nesting is checked before anything parses: a document deeper
	// than any tools/list response mcpcost reads is refused, not parsed.
	depth := mcpclient.Depth(data)
	var v *canon.Value
	err := errTooDeep
	if depth <= mcpclient.MaxDepth {
		v, err = canon.Parse(data)
	}
	if err != nil {
		// Several JSON values, one per line, are a JSON-RPC stream.
		if c, ok, lerr := parseStream(name, data); ok {
			return c, lerr
		}
		if err == errTooDeep {
			// An object is not parsed to tell a result from a message:
			// what is named is the file's own nesting.
			if data[0] == '[' {
				return nil, depthError(name, 0, KindToolsArray, depth+outerLevels[KindToolsArray])
			}
			return nil, depthError(name, 0, KindUnknown, depth)
		}
		return nil, &InputError{File: name, Msg: "not JSON: " + err.Error()}
	}
	c, err := fromValue(name, 0, v)
	if err == nil && depth+outerLevels[c.Kind] > mcpclient.MaxDepth {
		return nil, depthError(name, 0, c.Kind, depth+outerLevels[c.Kind])
	}
	return c, err
}

var errTooDeep = errors.New("too deep")

// outerLevels are the levels around a file of each kind in the tools/list
// response it stands for, whose nesting mcpclient.MaxDepth bounds as it
// bounds every message a server sends: none around a JSON-RPC message,
// the message around a result (a measurement.json's capture stands where
// a result's tools array does), the message and its result around a bare
// array of tools.
var outerLevels = map[InputKind]int{KindRPC: 0, KindToolsResult: 1, KindMeasurement: 1, KindToolsArray: 2}

// depthError is the error of an input of kind (KindRPC for a line of a
// JSON-RPC stream) whose tools/list response nests depth levels, more
// than mcpclient.MaxDepth; of KindUnknown, the input itself nests depth
// levels.
func depthError(name string, line int, kind InputKind, depth int) error {
	what := "the tools/list response it stands for"
	switch kind {
	case KindRPC:
		what = "the message"
	case KindUnknown:
		what = "the file"
	}
	return &InputError{File: name, Line: line, Msg: mcpclient.TooDeep(what, depth)}
}

// fromValue reads the tools of one whole JSON document.
func fromValue(name string, line int, v *canon.Value) (*Capture, error) {
	ierr := func(format string, a ...any) error {
		return &InputError{File: name, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	switch v.Kind() {
	case canon.Array:
		tools, err := toolsOf(v, name, line, "")
		if err != nil {
			return nil, err
		}
		return &Capture{Kind: KindToolsArray, Pages: 1, Tools: tools}, nil
	case canon.Object:
		if v.Get("jsonrpc") != nil || (v.Get("id") != nil && (v.Get("result") != nil || v.Get("error") != nil)) {
			tools, isTools, err := rpcTools(v, name, line)
			if err != nil {
				return nil, err
			}
			if !isTools {
				return nil, ierr("a JSON-RPC message without a tools/list result")
			}
			return &Capture{Kind: KindRPC, Pages: 1, Tools: tools}, nil
		}
		if raw := v.Get("rawToolsCapture"); raw != nil {
			if raw.Kind() != canon.Array {
				return nil, ierr("rawToolsCapture is %s, not an array of tools", kindName(raw))
			}
			tools, err := toolsOf(raw, name, line, "rawToolsCapture")
			if err != nil {
				return nil, err
			}
			c := &Capture{Kind: KindMeasurement, Pages: 1, Tools: tools}
			if sn := v.Get("serverName"); sn != nil && sn.Kind() == canon.String {
				c.ServerName = sn.Str()
			}
			c.Recorded = recorded(v)
			return c, nil
		}
		t := v.Get("tools")
		if t == nil {
			return nil, ierr("no \"tools\" array: expected a tools/list result ({\"tools\":[...]}), a JSON-RPC response stream or an array of tools")
		}
		if t.Kind() != canon.Array {
			return nil, ierr("\"tools\" is %s, not an array", kindName(t))
		}
		tools, err := toolsOf(t, name, line, "tools")
		if err != nil {
			return nil, err
		}
		return &Capture{Kind: KindToolsResult, Pages: 1, Tools: tools}, nil
	}
	return nil, ierr("expected a tools/list result, a JSON-RPC response or an array of tools, found %s", kindName(v))
}

// recorded reads a measurement.json's fields other than its tools, each
// on its own, so that one of the wrong type loses only itself.
func recorded(v *canon.Value) *File {
	f := &File{}
	for _, m := range v.Members() {
		if m.Key == "rawToolsCapture" || m.Key == "tools" {
			continue
		}
		doc := canon.AppendString([]byte("{"), m.Key)
		doc = append(canon.Append(append(doc, ':'), m.Value), '}')
		var one File
		if json.Unmarshal(doc, &one) == nil {
			_ = json.Unmarshal(doc, f)
		}
	}
	return f
}

// rpcTools reads a JSON-RPC message. isTools reports whether it is a
// response carrying a tools/list result.
func rpcTools(v *canon.Value, name string, line int) (tools []*canon.Value, isTools bool, err error) {
	if e := v.Get("error"); e != nil {
		msg := "JSON-RPC error response"
		if e.Kind() == canon.Object {
			if c := e.Get("code"); c != nil && c.Kind() == canon.Number {
				msg += fmt.Sprintf(" %v", c.Num())
			}
			if m := e.Get("message"); m != nil && m.Kind() == canon.String {
				msg += ": " + truncate(m.Str(), 200)
			}
		}
		return nil, false, &InputError{File: name, Line: line, Msg: msg}
	}
	r := v.Get("result")
	if r == nil || r.Kind() != canon.Object {
		return nil, false, nil
	}
	t := r.Get("tools")
	if t == nil {
		return nil, false, nil
	}
	if t.Kind() != canon.Array {
		return nil, false, &InputError{File: name, Line: line, Msg: fmt.Sprintf("result.tools is %s, not an array", kindName(t))}
	}
	tools, err = toolsOf(t, name, line, "result.tools")
	return tools, true, err
}

func toolsOf(arr *canon.Value, name string, line int, where string) ([]*canon.Value, error) {
	elems := arr.Elems()
	for i, t := range elems {
		if t.Kind() != canon.Object {
			at := fmt.Sprintf("tool %d", i+1)
			if where != "" {
				at = fmt.Sprintf("%s[%d]", where, i)
			}
			return nil, &InputError{File: name, Line: line, Msg: fmt.Sprintf("%s is %s, not an object", at, kindName(t))}
		}
	}
	return elems, nil
}

// parseStream reads data as JSON-RPC messages, one per line. ok reports
// whether data looks like such a stream (its first non-empty line is a
// JSON object on its own); when it does not, the caller reports the
// whole-document error instead.
func parseStream(name string, data []byte) (c *Capture, ok bool, err error) {
	c = &Capture{Kind: KindRPC}
	line := 0
	sawTools := false
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if d := mcpclient.Depth(l); d > mcpclient.MaxDepth {
			if !ok {
				return nil, false, nil
			}
			return nil, true, depthError(name, line, KindRPC, d)
		}
		v, perr := canon.Parse(l)
		if perr != nil {
			if !ok {
				return nil, false, nil
			}
			return nil, true, &InputError{File: name, Line: line, Msg: "not JSON: " + perr.Error()}
		}
		if v.Kind() != canon.Object {
			if !ok {
				return nil, false, nil
			}
			return nil, true, &InputError{File: name, Line: line, Msg: fmt.Sprintf("expected a JSON-RPC message, found %s", kindName(v))}
		}
		ok = true
		tools, isTools, rerr := rpcTools(v, name, line)
		if rerr != nil {
			return nil, true, rerr
		}
		if !isTools {
			c.Skipped++
			continue
		}
		sawTools = true
		c.Pages++
		c.Tools = append(c.Tools, tools...)
	}
	if !ok {
		return nil, false, nil
	}
	if !sawTools {
		return nil, true, &InputError{File: name, Msg: "no tools/list response in the JSON-RPC stream"}
	}
	return c, true, nil
}

func kindName(v *canon.Value) string {
	switch v.Kind() {
	case canon.Null:
		return "null"
	case canon.Bool:
		return "a boolean"
	case canon.Number:
		return "a number"
	case canon.String:
		return "a string"
	case canon.Array:
		return "an array"
	case canon.Object:
		return "an object"
	}
	return "a value"
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// ErrTooLarge is returned by ReadLimited when the input exceeds the limit.
var ErrTooLarge = errors.New("input too large")
