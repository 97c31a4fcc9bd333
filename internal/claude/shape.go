package claude

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/token"
)

// The methods of a [Shape].
const (
	// ShapeMethodClaudeCode is the request Claude Code sends for MCP
	// tools: names mcp__<server>__<tool>, descriptions cut to 2 KB.
	ShapeMethodClaudeCode = "claude-code-request/v1"
	// ShapeMethodAPI is the plain projection onto the Anthropic tool
	// fields, the server's own names and descriptions, nothing cut: the
	// request mcp-context-cost's Claude figures (tools-delta/v1) were
	// counted on.
	ShapeMethodAPI = "anthropic-request/v1"

	// ShapeSchema versions the JSON of a [Shape].
	ShapeSchema = "mcpcost.claude-request/v1"

	// ShapeLabel is how a report must introduce a Shape's number.
	ShapeLabel = "what Claude receives: the Anthropic request's tools (name, description, input_schema), " +
		"not the headline methodology number"
)

// emptySchema is what a tool without an inputSchema is sent with.
const emptySchema = `{"type":"object","properties":{}}`

// A Shape is the tools parameter of an Anthropic Messages request built
// from a server's tools/list: each tool projected onto name, description
// and input_schema. title, annotations, outputSchema, _meta, icons and
// execution are not sent. Its counts are o200k_base over its canonical
// JSON, a different number from the headline (which counts every field the
// server sends); Claude's own tokenizer gives yet another (see [Client]).
type Shape struct {
	Schema   string `json:"schema"`
	Method   string `json:"method"`
	Label    string `json:"label"`
	Server   string `json:"server,omitempty"`
	Encoding string `json:"encoding"`
	// Tokens is the o200k_base count of JSON, counted once as a whole.
	Tokens int `json:"tokens"`
	// Bytes is the length of JSON.
	Bytes int `json:"bytes"`
	// CanonicalSHA256 is the SHA-256 of JSON, lowercase hex. It is not the
	// capture's hash: the published figures are looked up by that one.
	CanonicalSHA256 string      `json:"canonicalSha256"`
	ToolCount       int         `json:"toolCount"`
	Tools           []ShapeTool `json:"tools"`
	// Skipped counts the entries of the capture that are not sent: not an
	// object, or without a non-empty string name.
	Skipped int `json:"skipped"`
	// DescriptionsCut counts the tools whose description was cut.
	DescriptionsCut int `json:"descriptionsCut"`
	// JSON is the canonical JSON of the tools array, as sent.
	JSON []byte `json:"-"`
}

// A ShapeTool is one tool of a [Shape].
type ShapeTool struct {
	// Name is the name as sent; ServerName the name the server gave it.
	Name       string `json:"name"`
	ServerName string `json:"serverName"`
	// Tokens is the o200k_base count of this tool's object alone; the
	// tools' counts do not add up exactly to the Shape's.
	Tokens int `json:"tokens"`
	// DescriptionLength is the description's length in UTF-16 code units
	// before any cut; DescriptionCut says whether it was cut.
	DescriptionLength int  `json:"descriptionLength"`
	DescriptionCut    bool `json:"descriptionCut"`
	// Notes say where this tool's figure is known to differ from what
	// Claude Code sends.
	Notes []string `json:"notes,omitempty"`
}

// RequestShape returns the tools parameter Claude Code sends for the tools
// of the server it knows as server (its key in the MCP config):
//
//   - name: mcp__<server>__<tool>, where every character of server and tool
//     outside [A-Za-z0-9_-] becomes '_' (see [ToolName]);
//   - description: the tool's description with the 2 KB cut applied (see
//     [Cut]); "" when the tool has none;
//   - input_schema: the tool's inputSchema unchanged;
//     {"type":"object","properties":{}} when it has none.
//
// Entries that are not objects or have no non-empty string name are not
// sent. tools is the capture's tools array, in server order.
func RequestShape(server string, tools []*canon.Value) Shape {
	return project(server, tools, true, nil)
}

// Spans locate the tools of a capture in their canonical array, which
// Index has counted: for each tool, where the canonical value of its
// description and of its inputSchema stand in Text ({0, 0} when absent).
// With them the request is copied from Text instead of written again, and
// its counts are derived from Index instead of counted again (see
// [token.Index]); the bytes and the counts are the same.
type Spans struct {
	Index                    *token.Index
	Text                     []byte
	Description, InputSchema [][2]int
}

// RequestShapeOf is [RequestShape] for tools whose canonical array spans
// locates (nil: as RequestShape).
func RequestShapeOf(server string, tools []*canon.Value, spans *Spans) Shape {
	if spans != nil && (len(spans.Description) != len(tools) || len(spans.InputSchema) != len(tools)) {
		spans = nil
	}
	return project(server, tools, true, spans)
}

// APIShape returns the plain projection of tools onto the Anthropic tool
// fields: the server's own names, descriptions not cut, defaults as in
// [RequestShape]. It is the request mcp-context-cost counted for its
// published Claude figures (method tools-delta/v1), and what an API client
// that forwards MCP tools unchanged sends.
func APIShape(tools []*canon.Value) Shape {
	return project("", tools, false, nil)
}

func project(server string, tools []*canon.Value, claudeCode bool, spans *Spans) Shape {
	s := Shape{
		Schema:   ShapeSchema,
		Method:   ShapeMethodAPI,
		Label:    ShapeLabel,
		Server:   server,
		Encoding: token.Encoding,
		Tools:    []ShapeTool{},
	}
	if claudeCode {
		s.Method = ShapeMethodClaudeCode
	}
	counter := token.O200k().(token.BytesCounter)
	// Sized once from a sample, so that a large capture is not copied as
	// the buffer grows.
	out := make([]byte, 1, canon.SizeHint(tools))
	out[0] = '['
	// copy appends the canonical value v, which stands at where in
	// spans.Text when where is not {0, 0}, and notes it as a region.
	var regions []token.Region
	copyValue := func(out []byte, v *canon.Value, where [2]int) []byte {
		if spans == nil || where[1] == 0 {
			return canon.Append(out, v)
		}
		regions = append(regions, token.Region{At: len(out), From: where[0], Len: where[1] - where[0]})
		return append(out, spans.Text[where[0]:where[1]]...)
	}
	var toolRegions []token.Region
	for i, tool := range tools {
		nameV := tool.Get("name")
		if tool.Kind() != canon.Object || nameV.Kind() != canon.String || nameV.Len() == 0 {
			s.Skipped++
			continue
		}
		t := ShapeTool{ServerName: nameV.Str()}
		start := len(out)
		first := len(regions)
		var descAt, schemaAt [2]int
		if spans != nil {
			descAt, schemaAt = spans.Description[i], spans.InputSchema[i]
		}
		if len(s.Tools) > 0 {
			out = append(out, ',')
			start++
		}
		out = append(out, `{"name":`...)
		if claudeCode {
			t.Name = ToolName(server, t.ServerName)
			out = canon.AppendString(out, t.Name)
		} else {
			t.Name = t.ServerName
			out = canon.Append(out, nameV) // keeps lone surrogates as sent
		}
		out = append(out, `,"description":`...)
		desc := tool.Get("description")
		if desc.Kind() == canon.String {
			t.DescriptionLength = UTF16Len(desc.Str())
		}
		switch {
		case desc.Kind() != canon.String:
			out = append(out, `""`...)
		case !claudeCode:
			out = copyValue(out, desc, descAt)
		default:
			cut, ok := Cut(desc.Str())
			if ok {
				t.DescriptionCut = true
				s.DescriptionsCut++
				out = canon.AppendString(out, cut)
			} else {
				out = copyValue(out, desc, descAt)
			}
		}
		out = append(out, `,"input_schema":`...)
		schema := tool.Get("inputSchema")
		if schema.Kind() == canon.Object {
			out = copyValue(out, schema, schemaAt)
			if claudeCode {
				for _, k := range []string{"anyOf", "oneOf", "allOf"} {
					if schema.Get(k) != nil {
						t.Notes = append(t.Notes, "inputSchema has a root-level "+k+
							": Claude Code (2.1.195+) flattens it and prepends a sentence to the description, which this count does not reproduce")
					}
				}
			}
		} else {
			out = append(out, emptySchema...)
			if schema != nil {
				t.Notes = append(t.Notes, "inputSchema is a "+schema.Kind().String()+", not an object; counted as an empty object schema")
			}
		}
		out = append(out, '}')
		if spans == nil {
			t.Tokens = counter.CountBytes(out[start:])
		} else {
			toolRegions = append(toolRegions[:0], regions[first:]...)
			for j := range toolRegions {
				toolRegions[j].At -= start
			}
			t.Tokens = spans.Index.Count(out[start:], toolRegions)
		}
		s.Tools = append(s.Tools, t)
	}
	out = append(out, ']')
	s.JSON = out
	s.Bytes = len(out)
	s.ToolCount = len(s.Tools)
	if spans == nil {
		s.Tokens = counter.CountBytes(out)
	} else {
		s.Tokens = spans.Index.Count(out, regions)
	}
	sum := sha256.Sum256(out)
	s.CanonicalSHA256 = hex.EncodeToString(sum[:])
	return s
}

// ToolName returns the name Claude Code gives the MCP tool tool of the
// server configured as server: "mcp__" + server + "__" + tool, with every
// character outside [A-Za-z0-9_-] replaced by '_' in both parts (so
// "my.server" and "get-user.v2" give "mcp__my_server__get-user_v2"). The
// Anthropic API limits tool names to 128 characters; a longer name is
// returned whole, as it is what the request would carry.
func ToolName(server, tool string) string {
	return "mcp__" + normalizeName(server) + "__" + normalizeName(tool)
}

func normalizeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
