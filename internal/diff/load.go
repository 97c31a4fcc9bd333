package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/status"
)

// Kind is what sort of report a document is.
type Kind string

const (
	// KindAudit is mcpcost's audit JSON (schema mcpcost.audit/v2, or v1).
	KindAudit Kind = "audit"
	// KindMeasure is mcpcost's measure JSON (schema mcpcost.measure/v1).
	KindMeasure Kind = "measure"
	// KindMeasurement is mcpcost's measurement.json (mcpcost.measurement/v1).
	KindMeasurement Kind = "measurement"
	// KindPeerAudit is mcp-context-cost's audit --json.
	KindPeerAudit Kind = "mcp-context-cost-audit"
	// KindPeerMeasurement is mcp-context-cost's measurement.json.
	KindPeerMeasurement Kind = "mcp-context-cost-measurement"
)

// Server reports whether documents of kind k measure one server (as
// opposed to configs of servers).
func (k Kind) Server() bool {
	return k == KindMeasure || k == KindMeasurement || k == KindPeerMeasurement
}

// Title is how the kind reads in a sentence.
func (k Kind) Title() string {
	switch k {
	case KindAudit:
		return "mcpcost audit report"
	case KindMeasure:
		return "mcpcost measure report"
	case KindMeasurement:
		return "mcpcost measurement.json"
	case KindPeerAudit:
		return "mcp-context-cost audit report"
	case KindPeerMeasurement:
		return "mcp-context-cost measurement.json"
	}
	return string(k)
}

// Detail says how fine-grained a document's numbers are.
type Detail string

const (
	DetailServer Detail = "server" // per server only
	DetailTool   Detail = "tool"   // per tool
	DetailPart   Detail = "part"   // per tool and part
)

// Doc is a report read for comparison: any of the kinds, reduced to
// configs of servers of tools of parts. A server measurement is one config
// (Path "") holding one server.
type Doc struct {
	File               string `json:"file"`
	Kind               Kind   `json:"kind"`
	Schema             string `json:"schema,omitempty"`
	Generator          string `json:"generator,omitempty"`
	MethodologyVersion string `json:"methodologyVersion"`
	Encoding           string `json:"encoding"`
	GeneratedAt        string `json:"generatedAt,omitempty"`
	ContextWindow      int    `json:"contextWindow"`
	Detail             Detail `json:"detail"`
	// SchemaUnknown is set when the document names a schema version this
	// build does not know: its numbers are read as far as they go and are
	// not comparable.
	SchemaUnknown bool     `json:"schemaUnknown,omitempty"`
	Configs       []Config `json:"-"`
	// Sessions are an audit's sessions (v2), each as a config of the
	// servers it counts or lists (those the client does not load left
	// out, so that a name is there once); Compare pairs them instead of
	// the files when both reports have them.
	Sessions []Config `json:"-"`
}

// Config is one config file (or, for a server measurement, the server).
type Config struct {
	Path   string
	Client string
	Scope  string
	Total  int
	// Unreadable holds why the config could not be read in this run.
	Unreadable string
	Servers    []Server
}

// Server is one server entry.
type Server struct {
	Name   string
	Status string
	// Tokens is nil when the server was not measured.
	Tokens *int
	// Off is set for a server the client does not load (disabled or
	// overridden): it costs nothing, and that is known.
	Off    bool
	Detail Detail
	Tools  []Tool
}

// Tool is one tool of a server.
type Tool struct {
	Name   string
	Tokens int
	Parts  []measure.Part
}

// LoadError says a file is not a report that can be compared, and why.
type LoadError struct {
	File string
	Msg  string
	Hint string
}

func (e *LoadError) Error() string { return e.File + ": " + e.Msg }

// Known schema versions.
const (
	measureSchema = measure.Schema
	fileSchema    = measure.FileSchema
	auditSchema   = audit.Schema
	// auditSchemaV1 is the audit before sessions: its configs are read
	// the same way.
	auditSchemaV1 = "mcpcost.audit/v1"
)

// raw is the union of every report's fields that a diff reads.
type raw struct {
	Schema             *string         `json:"schema"`
	Generator          string          `json:"generator"`
	MethodologyVersion *string         `json:"methodologyVersion"`
	Encoding           *string         `json:"encoding"`
	GeneratedAt        string          `json:"generatedAt"`
	ContextWindow      int             `json:"contextWindow"`
	Configs            json.RawMessage `json:"configs"`
	Sessions           json.RawMessage `json:"sessions"`
	EmptyConfigs       json.RawMessage `json:"emptyConfigs"`
	Problems           json.RawMessage `json:"problems"`

	// One server.
	Server          string          `json:"server"`
	ServerName      string          `json:"serverName"`
	Status          string          `json:"status"`
	TotalTokens     *int            `json:"totalTokens"`
	Tools           json.RawMessage `json:"tools"`
	RawToolsCapture json.RawMessage `json:"rawToolsCapture"`
	MeasuredAt      string          `json:"measuredAt"`
	CanonicalSha256 *string         `json:"canonicalSha256"`
}

type rawConfig struct {
	Client      string      `json:"client"`
	Path        string      `json:"path"`
	Source      string      `json:"source"`
	Scope       string      `json:"scope"`
	TotalTokens *int        `json:"totalTokens"`
	Servers     []rawServer `json:"servers"`
	Skipped     []rawServer `json:"skipped"`
}

type rawServer struct {
	Name   string    `json:"name"`
	Status string    `json:"status"`
	Tokens *int      `json:"tokens"`
	Tools  []rawTool `json:"tools"`
}

type rawTool struct {
	Name   string         `json:"name"`
	Tokens int            `json:"tokens"`
	Parts  []measure.Part `json:"parts"`
}

type rawEmpty struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Source string `json:"source"`
	Scope  string `json:"scope"`
}

type rawProblem struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	Error  string `json:"error"`
}

const reportHint = "a baseline is the JSON of 'mcpcost audit --json', 'mcpcost measure --json', a measurement.json ('mcpcost measure --out'), or mcp-context-cost's audit --json or measurement.json"

// Load reads a report of any known kind. file names it in errors. A file
// that is none of them is a *LoadError naming the file.
func Load(file string, data []byte) (*Doc, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	bad := func(format string, a ...any) error {
		return &LoadError{File: file, Msg: fmt.Sprintf(format, a...), Hint: reportHint}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, bad("not a report: the file is empty")
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return nil, bad("not a report: not JSON")
		}
		return nil, bad("not a report: expected a JSON object")
	}
	var r raw
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&r); err != nil {
		if !json.Valid(trimmed) {
			return nil, bad("not a report: not JSON: %v", syntaxMsg(trimmed, err))
		}
		return nil, bad("not a report: %v", err)
	}
	if dec.More() {
		return nil, bad("not a report: more than one JSON value")
	}
	d := &Doc{File: file, Generator: r.Generator, GeneratedAt: r.GeneratedAt, ContextWindow: r.ContextWindow}
	if r.MethodologyVersion != nil {
		d.MethodologyVersion = *r.MethodologyVersion
	}
	if r.Encoding != nil {
		d.Encoding = *r.Encoding
	}
	schema := ""
	if r.Schema != nil {
		schema = *r.Schema
		d.Schema = schema
	}
	family, _, _ := strings.Cut(schema, "/")
	switch {
	case schema == "":
		// mcp-context-cost writes no schema field.
		switch {
		case r.Configs != nil:
			d.Kind = KindPeerAudit
		case r.RawToolsCapture != nil || (r.TotalTokens != nil || r.Tools != nil) && r.CanonicalSha256 != nil:
			d.Kind = KindPeerMeasurement
		case r.Tools != nil:
			return nil, &LoadError{File: file, Msg: "not a report: it looks like a tools/list capture, not a measurement of one", Hint: "measure it first: mcpcost measure " + file + " --out measurement.json"}
		default:
			return nil, bad("not an mcpcost or mcp-context-cost report: no schema, configs or rawToolsCapture")
		}
		if r.MethodologyVersion == nil || r.Encoding == nil {
			return nil, bad("not a complete %s: no methodologyVersion or encoding", d.Kind.Title())
		}
	case family == "mcpcost.audit":
		d.Kind = KindAudit
		d.SchemaUnknown = schema != auditSchema && schema != auditSchemaV1
	case family == "mcpcost.measure":
		d.Kind = KindMeasure
		d.SchemaUnknown = schema != measureSchema
	case family == "mcpcost.measurement":
		d.Kind = KindMeasurement
		d.SchemaUnknown = schema != fileSchema
	case strings.HasPrefix(schema, "mcpcost."):
		return nil, bad("a %s report, not an audit or a measurement: nothing to compare", schema)
	default:
		return nil, bad("not an mcpcost or mcp-context-cost report: unknown schema %q", schema)
	}
	var err error
	if d.Kind.Server() {
		err = loadServer(d, &r)
	} else {
		err = loadAudit(d, &r)
	}
	if err != nil {
		if d.SchemaUnknown {
			// A version we cannot read: keep what names it, compare nothing.
			d.Configs = nil
			return d, nil
		}
		return nil, bad("not a valid %s: %v", d.Kind.Title(), err)
	}
	if d.ContextWindow <= 0 {
		d.ContextWindow = audit.DefaultContextWindow
	}
	return d, nil
}

func syntaxMsg(data []byte, err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, se)
	}
	return err.Error()
}

func loadServer(d *Doc, r *raw) error {
	name := r.Server
	if name == "" {
		name = r.ServerName
	}
	if d.GeneratedAt == "" {
		d.GeneratedAt = r.MeasuredAt
	}
	var tools []rawTool
	if len(r.Tools) > 0 && string(r.Tools) != "null" {
		if err := json.Unmarshal(r.Tools, &tools); err != nil {
			return fmt.Errorf("tools: %v", jsonMsg(err))
		}
	}
	st := status.Status(r.Status).OrMeasured()
	s := Server{Name: name, Status: string(st)}
	if st.OK() {
		if r.TotalTokens == nil {
			return fmt.Errorf("status %s and no totalTokens", s.Status)
		}
		t := *r.TotalTokens
		s.Tokens = &t
	}
	s.Tools, s.Detail = convertTools(tools)
	if d.Kind == KindPeerMeasurement {
		// mcp-context-cost keeps per-tool counts, never parts.
		s.Detail = min2(s.Detail, DetailTool)
	}
	d.Detail = s.Detail
	total := 0
	if s.Tokens != nil {
		total = *s.Tokens
	}
	d.Configs = []Config{{Total: total, Servers: []Server{s}}}
	return nil
}

func convertTools(tools []rawTool) ([]Tool, Detail) {
	detail := DetailPart
	out := make([]Tool, 0, len(tools))
	for _, t := range tools {
		if len(t.Parts) == 0 {
			detail = DetailTool
		}
		out = append(out, Tool(t))
	}
	if detail == DetailTool {
		for i := range out {
			out[i].Parts = nil
		}
	}
	return out, detail
}

func jsonMsg(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		return fmt.Sprintf("%s is a JSON %s, not %s", te.Field, te.Value, te.Type)
	}
	return err.Error()
}

func loadAudit(d *Doc, r *raw) error {
	if r.Configs == nil {
		return fmt.Errorf("no configs array")
	}
	var configs []rawConfig
	if err := json.Unmarshal(r.Configs, &configs); err != nil {
		return fmt.Errorf("configs: %v", jsonMsg(err))
	}
	var empties []rawEmpty
	if len(r.EmptyConfigs) > 0 && string(r.EmptyConfigs) != "null" {
		if err := json.Unmarshal(r.EmptyConfigs, &empties); err != nil {
			return fmt.Errorf("emptyConfigs: %v", jsonMsg(err))
		}
	}
	var problems []rawProblem
	if d.Kind == KindAudit && len(r.Problems) > 0 && string(r.Problems) != "null" {
		// mcp-context-cost's problems are strings; only ours name a path.
		if err := json.Unmarshal(r.Problems, &problems); err != nil {
			return fmt.Errorf("problems: %v", jsonMsg(err))
		}
	}
	d.Detail = DetailPart
	if d.Kind == KindPeerAudit {
		d.Detail = DetailServer
	}
	built, err := d.readConfigs(configs, "configs", false)
	if err != nil {
		return err
	}
	d.Configs = built
	if len(r.Sessions) > 0 && string(r.Sessions) != "null" {
		var sessions []rawConfig
		if err := json.Unmarshal(r.Sessions, &sessions); err != nil {
			return fmt.Errorf("sessions: %v", jsonMsg(err))
		}
		if d.Sessions, err = d.readConfigs(sessions, "sessions", true); err != nil {
			return err
		}
	}
	for _, e := range empties {
		p := e.Path
		if p == "" {
			p = e.Source
		}
		d.Configs = append(d.Configs, Config{Path: p, Client: e.Client, Scope: e.Scope})
	}
	for _, p := range problems {
		if p.Path != "" {
			d.Configs = append(d.Configs, Config{Path: p.Path, Client: p.Client, Unreadable: p.Error})
		}
	}
	return nil
}

// readConfigs reads an audit's configs (or sessions, what), leaving out
// the servers the client does not load when dropOff is set.
func (d *Doc) readConfigs(configs []rawConfig, what string, dropOff bool) ([]Config, error) {
	var out []Config
	for i, rc := range configs {
		c := Config{Path: rc.Path, Client: rc.Client, Scope: rc.Scope}
		if c.Path == "" {
			c.Path = rc.Source
		}
		if c.Path == "" {
			return nil, fmt.Errorf("%s[%d] has no path", what, i)
		}
		for j, rs := range append(append([]rawServer{}, rc.Servers...), rc.Skipped...) {
			if rs.Name == "" {
				return nil, fmt.Errorf("%s[%d] (%s): server %d has no name", what, i, c.Path, j)
			}
			s := Server{Name: rs.Name, Status: rs.Status, Tokens: rs.Tokens, Off: status.Status(rs.Status).Off()}
			if s.Off && dropOff {
				continue
			}
			if s.Off {
				s.Tokens = nil
			}
			if s.Status == "" && s.Tokens != nil {
				s.Status = string(status.Measured)
			}
			if d.Kind == KindPeerAudit {
				s.Detail = DetailServer
			} else {
				s.Tools, s.Detail = convertTools(rs.Tools)
				if s.Tokens != nil && len(rs.Tools) == 0 && *s.Tokens > 0 {
					s.Detail = DetailServer
				}
			}
			if s.Tokens != nil && s.Detail != DetailPart {
				d.Detail = min2(d.Detail, s.Detail)
			}
			c.Servers = append(c.Servers, s)
		}
		if rc.TotalTokens != nil {
			c.Total = *rc.TotalTokens
		} else {
			for _, s := range c.Servers {
				if s.Tokens != nil {
					c.Total += *s.Tokens
				}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// min2 returns the coarser of two details.
func min2(a, b Detail) Detail {
	rank := map[Detail]int{DetailServer: 0, DetailTool: 1, DetailPart: 2}
	if rank[b] < rank[a] {
		return b
	}
	return a
}
