package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"

	"github.com/mcpcost/mcpcost/internal/num"
)

// A ParseError is a config file that is not valid in its format. Line and
// Col are 1-based; Col is 0 when the parser gives only a line.
type ParseError struct {
	Path   string
	Format string
	Line   int
	Col    int
	Msg    string
}

func (e *ParseError) Error() string {
	pos := position(e.Path, e.Line, e.Col)
	return fmt.Sprintf("%s: not valid %s: %s", pos, formatName(e.Format), e.Msg)
}

// position is path:line:col, without the parts that are 0.
func position(path string, line, col int) string {
	if line > 0 {
		path += ":" + strconv.Itoa(line)
		if col > 0 {
			path += ":" + strconv.Itoa(col)
		}
	}
	return path
}

func formatName(f string) string {
	switch f {
	case FormatJSON:
		return "JSON"
	case FormatJSONC:
		return "JSON (comments allowed)"
	case FormatTOML:
		return "TOML"
	case FormatYAML:
		return "YAML"
	}
	return f
}

var utf8BOM = []byte("\xef\xbb\xbf")

func stripBOM(b []byte) []byte { return bytes.TrimPrefix(b, utf8BOM) }

// lineCol returns the 1-based line and column of byte offset n in b.
func lineCol(b []byte, n int) (line, col int) {
	if n > len(b) {
		n = len(b)
	}
	if n < 0 {
		n = 0
	}
	line = 1 + bytes.Count(b[:n], []byte("\n"))
	col = 1 + n - (bytes.LastIndexByte(b[:n], '\n') + 1)
	return line, col
}

var hujsonPos = lazyRegexp(`(?s)^hujson: line (\d+), column (\d+): (.*)$`)

// decodeJSON decodes b as strict JSON or as JSONC (comments and trailing
// commas). A leading UTF-8 byte-order mark is skipped. The error is a
// *ParseError without a path, or a *LimitError without a path for a
// document nested deeper than MaxConfigDepth or holding more than
// MaxConfigValues values.
func decodeJSON(b []byte, format string) (any, error) {
	b = stripBOM(b)
	if le := scanJSON(b); le != nil {
		return nil, le
	}
	if format == FormatJSONC && !json.Valid(b) {
		// Comments or trailing commas (JSON as it is needs no rewriting,
		// and hujson's tree of it would cost more than the decoding).
		v, err := hujson.Parse(b)
		if err != nil {
			pe := &ParseError{Format: format, Msg: strings.TrimPrefix(err.Error(), "hujson: ")}
			if m := hujsonPos().FindStringSubmatch(err.Error()); m != nil {
				pe.Line, _ = strconv.Atoi(m[1])
				pe.Col, _ = strconv.Atoi(m[2])
				pe.Msg = m[3]
			}
			if strings.HasPrefix(pe.Msg, "invalid literal") {
				// The literal may be an unquoted secret: never repeat it.
				pe.Msg = "a value that is not a string, number, true, false or null (is a string missing its quotes?)"
			}
			if strings.HasSuffix(pe.Msg, "unexpected EOF") {
				pe.Msg = "unexpected end of file: an object, array or string is not closed"
			}
			return nil, pe
		}
		v.Standardize()
		b = v.Pack()
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var out any
	if err := dec.Decode(&out); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return nil, jsonError(b, format, dec, err)
		}
		// A number beyond float64's range (1e400): JSON.parse, and so the
		// client, reads it as ±Infinity; encoding/json refuses it. Decode
		// again keeping numbers as written, and convert them as JSON.parse.
		dec = json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		out = nil
		if err := dec.Decode(&out); err != nil {
			return nil, jsonError(b, format, dec, err)
		}
		out = jsNumbers(out)
	}
	if rest := bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		off := len(b) - len(rest)
		line, col := lineCol(b, off)
		return nil, &ParseError{Format: format, Line: line, Col: col, Msg: "unexpected data after the top-level value"}
	}
	return out, nil
}

// jsNumbers replaces each json.Number in v by the float64 JSON.parse gives
// it: the nearest value, or ±Inf beyond the range. Nesting is capped before
// any decoder runs, so the recursion is bounded.
func jsNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(t), 64) // ±Inf with ErrRange, as JSON.parse
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = jsNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = jsNumbers(e)
		}
	}
	return v
}

func jsonError(b []byte, format string, dec *json.Decoder, err error) error {
	pe := &ParseError{Format: format, Msg: err.Error()}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off := int(se.Offset)
		if off > 0 {
			off-- // the offset is just past the offending byte
		}
		pe.Line, pe.Col = lineCol(b, off)
		pe.Msg = strings.TrimPrefix(se.Error(), "json: ")
		if format == FormatJSON && trailingCommaAt(b, off) {
			pe.Msg += " (a trailing comma: this client reads strict JSON)"
		} else if format == FormatJSON && commentAt(b, off) {
			pe.Msg += " (a comment: this client reads strict JSON)"
		}
	case err.Error() == "EOF" || err.Error() == "unexpected EOF":
		pe.Line, pe.Col = lineCol(b, len(b))
		pe.Msg = "unexpected end of file"
		if len(bytes.TrimSpace(b)) == 0 {
			pe.Msg = "the file is empty"
		}
	}
	return pe
}

func trailingCommaAt(b []byte, off int) bool {
	if off >= len(b) || (b[off] != '}' && b[off] != ']') {
		return false
	}
	prev := bytes.TrimRight(b[:off], " \t\r\n")
	return len(prev) > 0 && prev[len(prev)-1] == ','
}

func commentAt(b []byte, off int) bool {
	return off+1 < len(b) && b[off] == '/' && (b[off+1] == '/' || b[off+1] == '*')
}

// readJSONTop decodes a JSON or JSONC config file whose top level must be
// an object. Notes mention a byte-order mark.
func readJSONTop(data []byte, format, path string) (map[string]any, []string, error) {
	var notes []string
	if bytes.HasPrefix(data, utf8BOM) {
		notes = append(notes, "the file starts with a UTF-8 byte-order mark, which was skipped")
	}
	v, err := decodeJSON(data, format)
	if err != nil {
		var pe *ParseError
		var le *LimitError
		if errors.As(err, &pe) {
			pe.Path = path
		} else if errors.As(err, &le) {
			le.Path = path
		}
		return nil, notes, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, notes, &ParseError{Path: path, Format: format, Line: 1, Col: 1, Msg: "the top level is " + jsonKind(v) + ", not an object"}
	}
	return m, notes, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// decodeTOML decodes a TOML document into plain maps.
func decodeTOML(data []byte, path string) (map[string]any, error) {
	data = stripBOM(data)
	if le := scanTOML(data); le != nil {
		le.Path = path
		return nil, le
	}
	var out map[string]any
	if err := toml.Unmarshal(data, &out); err != nil {
		pe := &ParseError{Path: path, Format: FormatTOML, Msg: err.Error()}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			pe.Line, pe.Col = de.Position()
		}
		return nil, pe
	}
	if out == nil {
		out = map[string]any{}
	}
	return normalize(out).(map[string]any), nil
}

// yamlQuoted is a value quoted in a YAML error message, which may be a
// secret: it is never repeated.
var yamlQuoted = lazyRegexp("`[^`]*`")

func yamlMsg(s string) string { return yamlQuoted().ReplaceAllString(s, "a value") }

var yamlLine = lazyRegexp(`(?s)^yaml: line (\d+): (.*)$`)

// decodeYAML decodes a YAML document into plain maps with string keys.
// Its aliases are expanded by the decoder: a document that would expand
// past MaxYAMLValues nodes is refused before, and what the expansion
// adds to the values counted before parsing is counted against b (nil: no
// budget).
func decodeYAML(data []byte, path string, b *budget) (map[string]any, error) {
	data = stripBOM(data)
	if le := scanYAML(data); le != nil {
		le.Path = path
		return nil, le
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		// yaml.v3 leaves the line out when the problem is on the first
		// line (its marks count from 0, and 0 is not printed).
		pe := &ParseError{Path: path, Format: FormatYAML, Line: 1, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			pe.Line, _ = strconv.Atoi(m[1])
			pe.Msg = m[2]
		}
		pe.Msg = yamlMsg(pe.Msg)
		return nil, pe
	}
	if len(node.Content) == 0 {
		return map[string]any{}, nil
	}
	doc := node.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, &ParseError{Path: path, Format: FormatYAML, Line: doc.Line, Col: doc.Column, Msg: "the top level is not a mapping"}
	}
	n, le := yamlSize(doc)
	if le != nil {
		le.Path = path
		if le.Msg == aliasCycle {
			return nil, &ParseError{Path: path, Format: FormatYAML, Line: le.Line, Col: le.Col, Msg: aliasCycle}
		}
		return nil, le
	}
	if err := b.charge(path, n); err != nil {
		return nil, err
	}
	var out any
	if err := doc.Decode(&out); err != nil {
		pe := &ParseError{Path: path, Format: FormatYAML, Line: doc.Line, Col: doc.Column, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			pe.Line, _ = strconv.Atoi(m[1])
			pe.Col = 0
			pe.Msg = m[2]
		}
		pe.Msg = yamlMsg(pe.Msg)
		return nil, pe
	}
	m, ok := normalize(out).(map[string]any)
	if !ok {
		return nil, &ParseError{Path: path, Format: FormatYAML, Line: doc.Line, Col: doc.Column, Msg: "the top level is not a mapping"}
	}
	return m, nil
}

const aliasCycle = "an alias within the value of its own anchor"

// yamlSize counts the nodes a YAML document decodes to, each alias
// counted as the nodes of its anchor; past MaxYAMLValues, or at an alias
// within its own anchor (aliasCycle), it stops with an error giving the
// position. The
// recursion is bounded by the nesting cap (aliases are counted from a
// memo of the anchors already counted).
func yamlSize(doc *yaml.Node) (int, *LimitError) {
	memo := map[*yaml.Node]int{} // -1 while the anchor is being counted
	total := 0
	var size func(n *yaml.Node) (int, *LimitError)
	size = func(n *yaml.Node) (int, *LimitError) {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			m, ok := memo[n.Alias]
			if m < 0 {
				return 0, &LimitError{Line: n.Line, Col: n.Column, Msg: aliasCycle}
			}
			if !ok {
				// An anchor met first through an alias: counted here.
				return size(n.Alias)
			}
			total += m
			if total > MaxYAMLValues {
				return 0, &LimitError{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("aliases expand the document past %s values, over the cap on config files: not read", num.Int(MaxYAMLValues))}
			}
			return m, nil
		}
		if n.Anchor != "" {
			memo[n] = -1
		}
		total++
		if total > MaxYAMLValues {
			return 0, &LimitError{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("more than %s values (nodes), over the cap on config files: not read", num.Int(MaxYAMLValues))}
		}
		s := 1
		for _, c := range n.Content {
			m, err := size(c)
			if err != nil {
				return 0, err
			}
			s += m
		}
		if n.Anchor != "" {
			memo[n] = s
		}
		return s, nil
	}
	return size(doc)
}

// normalize turns decoded TOML/YAML values into the shapes encoding/json
// produces: map[string]any, []any, float64, string, bool, nil.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalize(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
		return t
	case []map[string]any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	case float32:
		return float64(t)
	}
	return v
}

// DecodeYAML decodes a YAML file that is not a client's config (a sweep's
// list of servers) under the same caps: MaxConfigSize bytes,
// MaxConfigDepth levels, MaxYAMLValues nodes with aliases expanded. Its
// errors name path and the line.
func DecodeYAML(data []byte, path string) (map[string]any, error) {
	if len(data) > MaxConfigSize {
		return nil, &LimitError{Path: path, Msg: fmt.Sprintf("larger than %s bytes, over the cap on config files: not read", num.Int(MaxConfigSize))}
	}
	return decodeYAML(data, path, nil)
}
