package mcpcost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/measure"
)

// MethodologyVersion is the version of the published methodology that
// [Measurement.TotalTokens] follows.
const MethodologyVersion = "1.0"

// Encoding is the tokenizer every count uses.
const Encoding = "o200k_base"

// DefaultTimeout bounds the measurement of a live server when
// [Options.Timeout] is zero: both captures, every launch and request.
const DefaultTimeout = 60 * time.Second

// MaxInputBytes is the largest tools JSON or measurement.json
// [MeasureFile] and [VerifyFile] read.
const MaxInputBytes = 256 << 20

// Part names, in the order a [Tool]'s Parts list them. "other" gathers
// every field not named here.
const (
	PartName         = "name"
	PartTitle        = "title"
	PartDescription  = "description"
	PartInputSchema  = "inputSchema"
	PartOutputSchema = "outputSchema"
	PartAnnotations  = "annotations"
	PartMeta         = "_meta"
	PartOther        = "other"
)

// A Measurement is what a server's tool definitions cost: the headline
// number of the published methodology and its breakdowns. Its figures are
// those "mcpcost measure --json" reports for the same capture.
type Measurement struct {
	// Name is the server's name: Options.Name, else what the server
	// calls itself (a live server) or the file's name (a file). It
	// prefixes the tool names of the Claude request and is
	// measurement.json's serverName.
	Name string
	// Status is "measured", or "dynamic" for a live server whose tools
	// differed between two captures (the figures are the first's).
	Status string

	// TotalTokens is the headline number: the o200k_base count of
	// JSON.stringify of the concatenated tools arrays.
	TotalTokens int
	ToolCount   int
	// CanonicalSHA256 is the SHA-256 of the canonical bytes, lowercase hex.
	CanonicalSHA256 string
	// CanonicalBytes is the length of the canonical bytes.
	CanonicalBytes int
	// SumOfToolTokens adds up the tools' own counts. It differs from
	// TotalTokens: at the joins between tools the array's brackets and
	// commas merge with neighbouring text into tokens of their own.
	SumOfToolTokens int
	// Tools in capture order.
	Tools []Tool

	// Claude is what Claude receives, beside the headline number.
	Claude Claude
	// Extras is what a live server puts in context besides its tools;
	// nil for a tools JSON.
	Extras *Extras

	// ServerVersion is the version a live server reports ("" otherwise).
	ServerVersion string
	// ChangedTools names the tools that differed between the two captures
	// of a dynamic server, sorted.
	ChangedTools []string
	// Warnings are what was odd but did not stop the measurement.
	Warnings []string
	// MeasuredAt is when the measurement was taken; measurement.json
	// records it. Set it before [Measurement.WriteFile] for a file that
	// does not change from one run to the next.
	MeasuredAt time.Time

	canonical    []byte
	result       *measure.Result
	instructions *string
	live         bool
	source       *measure.Source
}

// A Tool is one tool's share of a [Measurement].
type Tool struct {
	Name  string // "(unnamed)" for a tool without a string name
	Index int    // position in the capture, from 0
	// Tokens counts the tool's canonical JSON on its own.
	Tokens int
	// Bytes is the length of the tool's canonical JSON.
	Bytes int
	// DescriptionTokens counts the description text alone (0 when absent)
	// and InputSchemaTokens the canonical inputSchema, as
	// mcp-context-cost's measurement.json does.
	DescriptionTokens int
	InputSchemaTokens int
	// Parts count each field as it stands in the canonical JSON, key and
	// value ("description":"..."), in the order of the Part names; a
	// part the tool lacks is left out. They add up to close to, not
	// exactly, Tokens.
	Parts []Part
	// OtherFields names the fields gathered in the "other" part.
	OtherFields []string
}

// A Part is one field group of a tool: PartName, PartDescription, ...
type Part struct {
	Name   string
	Tokens int
}

// Part returns the tokens of the named part of t, 0 when t has none.
func (t Tool) Part(name string) int {
	for _, p := range t.Parts {
		if p.Name == name {
			return p.Tokens
		}
	}
	return 0
}

// Claude holds the figures of what Claude receives: a different number
// from the headline, which counts every field the server sends.
type Claude struct {
	// RequestTokens is the o200k_base count of the tools parameter Claude
	// Code sends for the server's tools (names mcp__<server>__<tool>,
	// descriptions cut to 2 KB, input_schema); RequestBytes its length.
	RequestTokens int
	RequestBytes  int
	// SessionStartTokens is what a client that defers tool definitions
	// loads at session start: the tool names and the instructions. When
	// SessionStartIsFloor is set the instructions were not captured (a
	// tools JSON) and it counts the names alone.
	SessionStartTokens  int
	SessionStartIsFloor bool
	ToolNameTokens      int
}

// Extras is what a live server puts in context besides its tools.
type Extras struct {
	InstructionsTokens      int
	Prompts                 int
	PromptsTokens           int
	Resources               int
	ResourcesTokens         int
	ResourceTemplates       int
	ResourceTemplatesTokens int
}

// Options tune a measurement. The zero value is ready to use.
type Options struct {
	// Name names the server (see [Measurement.Name]).
	Name string
	// Timeout bounds a live measurement; 0 means DefaultTimeout.
	Timeout time.Duration
	// Once captures a live server once instead of twice (no dynamic
	// check).
	Once bool
	// ProtocolVersion is the MCP protocol version to ask for; "" lets
	// client and server negotiate.
	ProtocolVersion string
}

// A Target is a server to launch or connect to: a command, or a URL.
type Target struct {
	// Command and Args launch a stdio server, without a shell, in Dir
	// ("" for the current folder). Its environment is PATH and HOME plus
	// Env. Env values are never kept in a Measurement or an error.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string

	// URL is a Streamable HTTP endpoint (falling back to the legacy
	// HTTP+SSE transport when the server only speaks that). Header values
	// are never kept in a Measurement or an error.
	URL     string
	Headers map[string]string

	// Transport is "" (stdio for a Command, http for a URL), "stdio",
	// "http" or "sse" (legacy HTTP+SSE only).
	Transport string
}

// A MeasureError is a live server that could not be measured.
type MeasureError struct {
	// Status is the failure class: "startup-failure", "timeout",
	// "protocol-error", "auth-required", "remote-auth-wall" or
	// "cancelled".
	Status string
	// Detail says why; StderrTail is the end of a stdio server's stderr.
	// Neither holds a secret of the Target.
	Detail     string
	StderrTail string
}

func (e *MeasureError) Error() string { return e.Status + ": " + e.Detail }

// An InputError is a tools JSON or measurement.json that cannot be read,
// naming the file (and line, for a JSON-RPC stream).
type InputError struct {
	File string
	Line int // 1-based; 0 when not applicable
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func inputError(err error) error {
	var ie *measure.InputError
	if errors.As(err, &ie) {
		return &InputError{File: ie.File, Line: ie.Line, Msg: ie.Msg}
	}
	var ne *measure.NotMeasurementError
	if errors.As(err, &ne) {
		return &InputError{File: ne.File, Msg: ne.Msg}
	}
	return err
}

// MeasureTools measures a tools JSON: a tools/list result
// ({"tools":[...]}), a bare array of tools, a JSON-RPC response (or a
// stream of them, one per line: the tools of every tools/list page, in
// order) or a measurement.json (its rawToolsCapture). o may be nil.
func MeasureTools(data []byte, o *Options) (*Measurement, error) {
	return measureTools("tools JSON", data, o, "")
}

// MeasureFile measures the tools JSON in the file at path (see
// [MeasureTools]). The server's name is o.Name, else a measurement.json's
// serverName, else the file's name as "mcpcost measure" derives it.
func MeasureFile(path string, o *Options) (*Measurement, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	return measureTools(path, data, o, nameFromPath(path))
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxInputBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxInputBytes {
		return nil, &InputError{File: path, Msg: fmt.Sprintf("larger than %d bytes", MaxInputBytes)}
	}
	return data, nil
}

func measureTools(file string, data []byte, o *Options, fileName string) (*Measurement, error) {
	if o == nil {
		o = &Options{}
	}
	c, err := measure.ParseInput(file, data)
	if err != nil {
		return nil, inputError(err)
	}
	name := o.Name
	if name == "" {
		name = strings.TrimSpace(c.ServerName)
	}
	if name == "" {
		name = fileName
	}
	if name == "" {
		name = "server"
	}
	r := measure.Tools(c.Tools, nil)
	m := newMeasurement(name, "measured", r, c.Tools, nil, name)
	m.source = &measure.Source{Kind: c.Kind, Pages: c.Pages}
	if file != "tools JSON" {
		m.source.File = file
	}
	if c.Skipped > 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%d JSON-RPC messages that were not tools/list responses skipped", c.Skipped))
	}
	if w := measure.RepeatedNamesWarning(name, c.Tools); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
	return m, nil
}

// newMeasurement copies r into a Measurement; configName prefixes the
// tool names of the Claude request.
func newMeasurement(name, st string, r *measure.Result, tools []*canon.Value, instructions *string, configName string) *Measurement {
	m := &Measurement{
		Name:            name,
		Status:          st,
		TotalTokens:     r.TotalTokens,
		ToolCount:       r.ToolCount,
		CanonicalSHA256: r.CanonicalSha256,
		CanonicalBytes:  r.CanonicalBytes,
		SumOfToolTokens: r.SumOfToolTokens,
		Tools:           make([]Tool, len(r.Tools)),
		MeasuredAt:      time.Now().UTC(),
		canonical:       r.Canonical,
		result:          r,
		instructions:    instructions,
	}
	for i, t := range r.Tools {
		pt := Tool{Name: t.Name, Index: t.Index, Tokens: t.Tokens, Bytes: t.Bytes,
			DescriptionTokens: t.DescriptionTokens, InputSchemaTokens: t.InputSchemaTokens,
			Parts: make([]Part, len(t.Parts)), OtherFields: append([]string(nil), t.OtherFields...)}
		for j, p := range t.Parts {
			pt.Parts[j] = Part{Name: p.Name, Tokens: p.Tokens}
		}
		m.Tools[i] = pt
	}
	d := claude.Describe(claude.Input{Server: configName, Tools: tools, Instructions: instructions,
		HeadlineTokens: r.TotalTokens, CaptureSHA256: r.CanonicalSha256, Spans: r.Spans})
	m.Claude = Claude{
		RequestTokens:       d.Request.Tokens,
		RequestBytes:        d.Request.Bytes,
		SessionStartTokens:  d.SessionStart.Tokens,
		SessionStartIsFloor: d.SessionStart.IsFloor,
		ToolNameTokens:      d.SessionStart.ToolNameTokens,
	}
	return m
}

// Canonical returns the canonical bytes: JSON.stringify of the
// concatenated tools arrays, which TotalTokens counts. The caller may
// change the copy it gets.
func (m *Measurement) Canonical() []byte { return append([]byte(nil), m.canonical...) }

// Tool returns the first tool named name.
func (m *Measurement) Tool(name string) (Tool, bool) {
	for _, t := range m.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Measure launches or connects to t, captures its definitions (twice, to
// tell a server whose tools change; once with o.Once) and measures them.
// A server that cannot be measured is a *[MeasureError]. o may be nil.
// It returns when every process it started is gone.
func Measure(ctx context.Context, t Target, o *Options) (*Measurement, error) {
	if t.Command == "" && t.URL == "" {
		return nil, errors.New("mcpcost: a Target needs a Command or a URL")
	}
	switch t.Transport {
	case "", "stdio", "http", "sse":
	default:
		return nil, fmt.Errorf("mcpcost: Target.Transport must be stdio, http or sse, not %q", t.Transport)
	}
	mt := mcpclient.Target{Command: t.Command, Args: t.Args, Env: t.Env, Cwd: t.Dir, URL: t.URL, Headers: t.Headers, Transport: t.Transport}
	return measureLive(ctx, mt, o)
}

// MeasureServer measures a go-sdk server in this process, as a client
// sees it: connected over a pair of pipes (nothing is launched), the
// server's tools/list, instructions, prompts and resources captured as
// the bytes it sent, and measured as [Measure] measures. It is what a Go
// MCP server's own tests call (see the package documentation). o may be
// nil.
func MeasureServer(ctx context.Context, s *mcp.Server, o *Options) (*Measurement, error) {
	if s == nil {
		return nil, errors.New("mcpcost: MeasureServer needs a server")
	}
	return measureLive(ctx, mcpclient.Target{Server: s}, o)
}

func measureLive(ctx context.Context, t mcpclient.Target, o *Options) (*Measurement, error) {
	if o == nil {
		o = &Options{}
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	res := mcpclient.Measure(ctx, t, mcpclient.Options{Timeout: timeout, Once: o.Once, ProtocolVersion: o.ProtocolVersion, ClientVersion: "library"})
	live := measure.FromLive(res, nil)
	if live.Result == nil {
		return nil, &MeasureError{Status: string(live.Status), Detail: live.Detail, StderrTail: live.StderrTail}
	}
	name := o.Name
	if name == "" {
		name = live.ServerName
	}
	if name == "" {
		name = "server"
	}
	m := newMeasurement(name, string(live.Status), live.Result, live.Tools, live.Instructions, name)
	m.live = true
	m.ServerVersion = live.ServerVersion
	m.ChangedTools = append([]string(nil), live.ChangedTools...)
	m.Warnings = append([]string(nil), live.Warnings...)
	if x := live.Extras; x != nil {
		m.Extras = &Extras{InstructionsTokens: x.InstructionsTokens, Prompts: x.Prompts, PromptsTokens: x.PromptsTokens,
			Resources: x.Resources, ResourcesTokens: x.ResourcesTokens, ResourceTemplates: x.ResourceTemplates,
			ResourceTemplatesTokens: x.ResourceTemplatesTokens}
	}
	m.source = &measure.Source{Kind: measure.KindLive, Transport: live.Transport, ProtocolVersion: live.ProtocolVersion, Pages: live.Pages}
	if t.Server == nil {
		if t.URL != "" {
			m.source.URL = t.Display()
		} else {
			m.source.Command = t.Display()
		}
	}
	return m, nil
}

// nameFromPath names a server after its file, as "mcpcost measure" does:
// the file's stem, or its folder's name for a generic file name.
func nameFromPath(p string) string {
	base := filepath.Base(p)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	switch strings.ToLower(stem) {
	case "wire", "tools", "measurement", "capture", "canonical", "tools-list", "tools_list", "result", "response":
		if dir := filepath.Base(filepath.Dir(p)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	}
	return stem
}
