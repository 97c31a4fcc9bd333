package measure

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/status"
)

// FileSchema names the mcpcost additions to measurement.json.
const FileSchema = "mcpcost.measurement/v1"

// File is measurement.json. The fields up to TimeoutMs are those of
// mcp-context-cost's measurement.json, in its order, so that either tool
// verifies the other's files; mcpcost's own fields follow.
type File struct {
	MethodologyVersion string     `json:"methodologyVersion"`
	Provider           string     `json:"provider"`
	Encoding           string     `json:"encoding"`
	Status             string     `json:"status"`
	TotalTokens        *int       `json:"totalTokens"`
	ToolCount          *int       `json:"toolCount"`
	Tools              []FileTool `json:"tools"`
	CanonicalSha256    *string    `json:"canonicalSha256"`
	// RawToolsCapture is the tools array; JSON.stringify of it is the
	// canonical string.
	RawToolsCapture json.RawMessage `json:"rawToolsCapture"`
	MeasuredAt      string          `json:"measuredAt"`
	ServerName      string          `json:"serverName"`
	ServerVersion   string          `json:"serverVersion,omitempty"`
	// LaunchCommand is the command line with secrets redacted.
	LaunchCommand string   `json:"launchCommand,omitempty"`
	EnvVarNames   []string `json:"envVarNames,omitempty"`
	// ServerInstructions has three states: a string, null (the server sent
	// none), absent (not captured, as for a file input).
	ServerInstructions json.RawMessage `json:"serverInstructions,omitempty"`
	Notes              string          `json:"notes,omitempty"`
	// Isolation says how the server was run (a sweep records it).
	Isolation *Isolation `json:"isolation,omitempty"`
	TimeoutMs int        `json:"timeoutMs,omitempty"`

	// mcpcost's additions.
	Generator string  `json:"generator"`
	Schema    string  `json:"schema"`
	Source    *Source `json:"source,omitempty"`
	// CanonicalBytes is the length of the canonical string in bytes.
	CanonicalBytes int `json:"canonicalBytes,omitempty"`
	// Extras counts what else the server puts in context.
	Extras *Extras `json:"extras,omitempty"`
	// ChangedTools names the tools that differed between the two captures
	// of a dynamic server.
	ChangedTools []string `json:"changedTools,omitempty"`
	// Warnings are what was odd about the measurement, such as a server
	// that repeats a value the user supplied (stored and counted as ***).
	Warnings []string `json:"warnings,omitempty"`
	// Package is the package the command runs (a sweep's package:), and
	// PackageVersion the version installed, as read from the installed
	// package's own metadata, or "unknown".
	Package        string `json:"package,omitempty"`
	PackageVersion string `json:"packageVersion,omitempty"`

	// canonical is the canonical array RawToolsCapture was set to by
	// NewFile, valid JSON by construction.
	canonical []byte
}

// FileTool is one tool in measurement.json, in capture order.
type FileTool struct {
	Name              string `json:"name"`
	Tokens            int    `json:"tokens"`
	DescriptionTokens int    `json:"descriptionTokens"`
	InputSchemaTokens int    `json:"inputSchemaTokens"`
	Parts             []Part `json:"parts,omitempty"`
}

// Isolation is how a server was run: mcp-context-cost's {docker:false} or
// {docker:true, image, network, note}, with mcpcost's mode (host,
// sandbox or docker) beside.
type Isolation struct {
	Docker  bool   `json:"docker"`
	Image   string `json:"image,omitempty"`
	Network string `json:"network,omitempty"`
	Note    string `json:"note,omitempty"`
	Mode    string `json:"mode,omitempty"`
}

// Source says where a measurement came from. It never holds a secret:
// environment variables and headers by name only, and the URL and the
// command line redacted.
type Source struct {
	Kind            InputKind `json:"kind"`
	File            string    `json:"file,omitempty"`
	Transport       string    `json:"transport,omitempty"`
	Command         string    `json:"command,omitempty"`
	URL             string    `json:"url,omitempty"`
	HeaderNames     []string  `json:"headerNames,omitempty"`
	EnvVarNames     []string  `json:"envVarNames,omitempty"`
	ProtocolVersion string    `json:"protocolVersion,omitempty"`
	Pages           int       `json:"pages,omitempty"`
}

// Extras is what a server puts in context besides its tools.
type Extras struct {
	InstructionsTokens      int `json:"instructionsTokens"`
	Prompts                 int `json:"prompts"`
	PromptsTokens           int `json:"promptsTokens"`
	Resources               int `json:"resources"`
	ResourcesTokens         int `json:"resourcesTokens"`
	ResourceTemplates       int `json:"resourceTemplates"`
	ResourceTemplatesTokens int `json:"resourceTemplatesTokens"`
	// SessionStartTokens is what a client that defers tool definitions
	// loads at session start: the tool names and the instructions.
	SessionStartTokens int `json:"sessionStartTokens"`
}

// NewFile builds measurement.json for a measured capture.
func NewFile(r *Result, st status.Status, serverName, generator string, at time.Time) *File {
	total, count, sha := r.TotalTokens, r.ToolCount, r.CanonicalSha256
	f := &File{
		MethodologyVersion: MethodologyVersion,
		Provider:           "tiktoken",
		Encoding:           "o200k_base",
		Status:             string(st),
		TotalTokens:        &total,
		ToolCount:          &count,
		CanonicalSha256:    &sha,
		RawToolsCapture:    json.RawMessage(r.Canonical),
		canonical:          r.Canonical,
		MeasuredAt:         at.UTC().Format("2006-01-02T15:04:05.000Z"),
		ServerName:         serverName,
		Generator:          generator,
		Schema:             FileSchema,
		CanonicalBytes:     r.CanonicalBytes,
		Tools:              make([]FileTool, len(r.Tools)),
	}
	for i, t := range r.Tools {
		f.Tools[i] = FileTool{Name: t.Name, Tokens: t.Tokens, DescriptionTokens: t.DescriptionTokens, InputSchemaTokens: t.InputSchemaTokens, Parts: t.Parts}
	}
	return f
}

// Marshal writes f as measurement.json: two-space indentation and a final
// newline, like JSON.stringify(m, null, 2) + "\n". Indenting adds only
// whitespace: the string and number literals of rawToolsCapture are kept
// byte for byte, so JSON.stringify of it gives the canonical string back.
//
// rawToolsCapture, which is most of the file, is indented apart by
// indentJSON, as encoding/json would indent it, and put in place of a
// short stand-in; the rest goes through encoding/json.
func (f *File) Marshal() ([]byte, error) {
	raw := f.RawToolsCapture
	canonical := len(raw) == len(f.canonical) && (len(raw) == 0 || &raw[0] == &f.canonical[0])
	if len(raw) < 1<<10 || !canonical && !json.Valid(raw) {
		return f.marshalStd()
	}
	g := *f
	g.RawToolsCapture = json.RawMessage(rawStandIn)
	b, err := g.marshalStd()
	if err != nil {
		return nil, err
	}
	at := bytes.Index(b, []byte("\n  \"rawToolsCapture\": "+rawStandIn))
	if at < 0 {
		return f.marshalStd()
	}
	at += len("\n  \"rawToolsCapture\": ")
	out := make([]byte, 0, len(b)+len(raw)*3/2)
	out = append(out, b[:at]...)
	out = indentJSON(out, raw, 1)
	return append(out, b[at+len(rawStandIn):]...), nil
}

// rawStandIn holds the place of rawToolsCapture while the rest is written.
// It is found after the line break and key that only that field has (a
// string value cannot hold a raw line break).
const rawStandIn = `"\u0000rawToolsCapture"`

func (f *File) marshalStd() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// indentJSON appends src, valid JSON, indented as encoding/json's Encoder
// with SetIndent("", "  ") and SetEscapeHTML(false) writes it at depth
// levels in: whitespace between tokens dropped, a line for each element
// and member, ": " after a key, empty arrays and objects kept as [] and
// {}, strings and numbers byte for byte.
func indentJSON(dst, src []byte, depth int) []byte {
	newline := func(dst []byte, depth int) []byte {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
		return dst
	}
	open := false // after [ or {: the line break waits for what follows
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if open && c != ']' && c != '}' {
			dst = newline(dst, depth)
		}
		switch c {
		case '"':
			j := i + 1
			for ; j < len(src); j++ {
				if src[j] == '\\' {
					j++
				} else if src[j] == '"' {
					break
				}
			}
			dst = append(dst, src[i:j+1]...)
			i = j
			open = false
		case '[', '{':
			dst = append(dst, c)
			depth++
			open = true
		case ']', '}':
			depth--
			if !open {
				dst = newline(dst, depth)
			}
			dst = append(dst, c)
			open = false
		case ',':
			dst = append(dst, ',')
			dst = newline(dst, depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \t\n\r,:]}", rune(src[j])) {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
			open = false
		}
	}
	return dst
}

// FailedFile builds measurement.json for a server that could not be
// measured: no number, the status and why.
func FailedFile(st status.Status, serverName, launch string, envNames []string, notes, generator string, at time.Time, timeout time.Duration) *File {
	if len(notes) > 700 {
		// Cut at a character's start, so that the notes stay UTF-8.
		cut := 700
		for cut > 0 && !utf8.RuneStart(notes[cut]) {
			cut--
		}
		notes = notes[:cut]
	}
	return &File{
		MethodologyVersion: MethodologyVersion,
		Provider:           "tiktoken",
		Encoding:           "o200k_base",
		Status:             string(st),
		Tools:              []FileTool{},
		RawToolsCapture:    json.RawMessage("null"),
		MeasuredAt:         at.UTC().Format("2006-01-02T15:04:05.000Z"),
		ServerName:         serverName,
		LaunchCommand:      launch,
		EnvVarNames:        envNames,
		Notes:              notes,
		TimeoutMs:          int(timeout.Milliseconds()),
		Generator:          generator,
		Schema:             FileSchema,
	}
}

// InstructionsJSON is serverInstructions in its three states: a string,
// null for none sent. The string is written as JSON.stringify writes it
// (& < > and U+2028 as they are), as every other string of the file is,
// so that the file read back and written again is the same bytes.
func InstructionsJSON(s *string) json.RawMessage {
	if s == nil {
		return json.RawMessage("null")
	}
	return canon.AppendString(nil, *s)
}
