// Package measure turns a server's tools/list capture into a measurement:
// the o200k_base count of the canonical JSON of its concatenated tools
// array (the published methodology, version 1.0), the canonical SHA-256,
// and per-tool and per-part breakdowns.
//
// # The number
//
// The headline number is the token count of JSON.stringify(tools), where
// tools is the concatenation of the tools arrays of every tools/list page,
// in server order, counted as one string with o200k_base (special-token text
// counted as ordinary text). It agrees byte for byte with the published
// methodology of mcp-context-cost.
//
// Per-tool counts are the count of each tool's own canonical JSON. They do
// not add up to the total: at the joins between tools the array's brackets
// and commas merge with neighbouring text into tokens of their own. Parts
// (name, description, inputSchema, ...) count each field as it stands in the
// tool's canonical JSON, key and value ("description":"..."), so the parts
// of a tool add up to close to, not exactly, the tool's count.
package measure

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/token"
)

// MethodologyVersion is the version of the published methodology the
// headline number follows.
const MethodologyVersion = "1.0"

// Schema is the version of the JSON report of "mcpcost measure".
const Schema = "mcpcost.measure/v1"

// Part names, in display order. "other" gathers every other field.
var PartNames = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "other"}

// Result is the measurement of one tools capture.
type Result struct {
	TotalTokens     int    `json:"totalTokens"`
	ToolCount       int    `json:"toolCount"`
	CanonicalSha256 string `json:"canonicalSha256"`
	CanonicalBytes  int    `json:"canonicalBytes"`
	// SumOfToolTokens is the sum of the per-tool counts; it differs from
	// TotalTokens by the merges at the joins between tools.
	SumOfToolTokens int `json:"sumOfToolTokens"`
	// Tools in capture order.
	Tools []Tool `json:"tools"`
	// Canonical is the canonical JSON of the tools array.
	Canonical []byte `json:"-"`
	// Spans locate the tools' fields in Canonical for the Claude request,
	// with the count of Canonical to derive its counts from (valid while
	// Canonical is not changed); nil when the counter cannot index.
	Spans *claude.Spans `json:"-"`
}

// Tool is one tool's share of the measurement.
type Tool struct {
	Name  string `json:"name"`
	Index int    `json:"index"` // position in the capture, from 0
	// Tokens counts the tool's canonical JSON on its own.
	Tokens int     `json:"tokens"`
	Share  float64 `json:"share"` // Tokens / TotalTokens
	Bytes  int     `json:"bytes"` // canonical bytes
	// DescriptionTokens counts the description text (0 when absent), and
	// InputSchemaTokens the canonical inputSchema, as mcp-context-cost does.
	DescriptionTokens int `json:"descriptionTokens"`
	InputSchemaTokens int `json:"inputSchemaTokens"`
	// DescriptionBytes is the UTF-8 length of the description.
	DescriptionBytes int `json:"descriptionBytes"`
	// Parts counts each field group as it stands in the canonical JSON.
	Parts []Part `json:"parts"`
	// Fields lists the names of the fields gathered in the "other" part.
	OtherFields []string `json:"otherFields,omitempty"`
	// Hidden is set when _meta["anthropic/alwaysLoad"] is true.
	AlwaysLoad bool `json:"alwaysLoad,omitempty"`
}

// Part is one field group of a tool.
type Part struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// UnnamedTool is the name shown for a tool without a string name.
const UnnamedTool = "(unnamed)"

// Tools measures a tools array with counter c (nil for o200k_base).
//
// The canonical array is written once; each tool's canonical JSON is the
// span of it between the array's commas (JSON.stringify writes an array's
// elements exactly as it writes them alone), and so is each of its
// members, so nothing is written twice. When c is a [token.Indexer] (as
// o200k_base is), the array is counted once and every other count (each
// tool, part, inputSchema, description) is derived from that count; any
// other counter counts each of them directly.
func Tools(tools []*canon.Value, c token.Counter) *Result {
	if c == nil {
		c = token.O200k()
	}
	spans := make([][2]int, len(tools))
	members := make([][]canon.MemberSpan, len(tools))
	canonical := make([]byte, 1, canon.SizeHint(tools))
	canonical[0] = '['
	var all []canon.MemberSpan
	for i, t := range tools {
		if i > 0 {
			canonical = append(canonical, ',')
		}
		spans[i][0] = len(canonical)
		from := len(all)
		canonical, all = canon.AppendSpans(canonical, t, all)
		members[i] = all[from:len(all):len(all)]
		spans[i][1] = len(canonical)
	}
	canonical = append(canonical, ']')
	k := counting{c: c, count: countFunc(c), text: canonical}
	if ix, ok := c.(token.Indexer); ok {
		k.index = ix.Index(canonical)
	}
	sum := sha256.Sum256(canonical)
	r := &Result{
		TotalTokens:     k.span(0, len(canonical)),
		ToolCount:       len(tools),
		CanonicalSha256: hex.EncodeToString(sum[:]),
		CanonicalBytes:  len(canonical),
		Tools:           make([]Tool, len(tools)),
		Canonical:       canonical,
	}
	if k.index != nil {
		r.Spans = &claude.Spans{Index: k.index, Text: canonical,
			Description: make([][2]int, len(tools)), InputSchema: make([][2]int, len(tools))}
	}
	// Tools are independent: count them on every core.
	parallel(len(tools), func(i int, scratch *[]byte) {
		r.Tools[i] = k.tool(i, tools[i], spans[i], members[i], scratch, r.Spans)
	})
	for i := range r.Tools {
		r.SumOfToolTokens += r.Tools[i].Tokens
		if r.TotalTokens > 0 {
			r.Tools[i].Share = float64(r.Tools[i].Tokens) / float64(r.TotalTokens)
		}
	}
	return r
}

// countFunc counts bytes without copying them when c can.
func countFunc(c token.Counter) func([]byte) int {
	if bc, ok := c.(token.BytesCounter); ok {
		return bc.CountBytes
	}
	return func(b []byte) int { return c.Count(string(b)) }
}

// counting counts spans of the canonical array text: derived from index,
// or directly when there is none.
type counting struct {
	c     token.Counter
	count func([]byte) int
	text  []byte
	index *token.Index
}

func (k *counting) span(from, to int) int {
	if k.index != nil {
		return k.index.Span(from, to)
	}
	return k.count(k.text[from:to])
}

// tool measures one tool whose canonical JSON is text[span[0]:span[1]],
// with its members at ms. scratch is reused between tools for the parts.
// When spans is not nil, it records where the description and inputSchema
// values stand.
func (k *counting) tool(i int, t *canon.Value, span [2]int, ms []canon.MemberSpan, scratch *[]byte, spans *claude.Spans) Tool {
	out := Tool{Name: ToolName(t), Index: i, Tokens: k.span(span[0], span[1]), Bytes: span[1] - span[0]}
	members := t.Members()
	// member returns the span of the first member named key, as Get finds it.
	member := func(key string) (canon.MemberSpan, bool) {
		for j, m := range members {
			if m.Key == key {
				return ms[j], true
			}
		}
		return canon.MemberSpan{}, false
	}
	if d := t.Get("description"); d != nil && d.Kind() == canon.String && d.Str() != "" {
		out.DescriptionBytes = len(d.Str())
		sp, _ := member("description")
		// The text between the quotes is the description itself when
		// nothing in it is escaped.
		if body := k.text[sp.Value+1 : sp.End-1]; k.index != nil && string(body) == d.Str() {
			out.DescriptionTokens = k.span(sp.Value+1, sp.End-1)
		} else {
			out.DescriptionTokens = k.c.Count(d.Str())
		}
	}
	if sp, ok := member("description"); ok && spans != nil {
		spans.Description[i] = [2]int{sp.Value, sp.End}
	}
	if s := t.Get("inputSchema"); s != nil {
		sp, _ := member("inputSchema")
		out.InputSchemaTokens = k.span(sp.Value, sp.End)
		if spans != nil {
			spans.InputSchema[i] = [2]int{sp.Value, sp.End}
		}
	}
	if m := t.Get("_meta"); m != nil && m.Kind() == canon.Object {
		if a := m.Get("anthropic/alwaysLoad"); a != nil && a.Kind() == canon.Bool && a.Bool() {
			out.AlwaysLoad = true
		}
	}
	partOf := func(key string) string {
		for _, n := range PartNames[:len(PartNames)-1] {
			if key == n {
				return n
			}
		}
		return "other"
	}
	for _, m := range members {
		if partOf(m.Key) == "other" {
			out.OtherFields = append(out.OtherFields, m.Key)
		}
	}
	// Each part: its members as they stand in the canonical object, joined
	// by commas, counted. A member whose key is written as the canonical
	// object writes it (always, but for a lone surrogate) is a span of the
	// array.
	var regions []token.Region
	var key []byte
	for _, n := range PartNames {
		buf := (*scratch)[:0]
		regions = regions[:0]
		found := false
		for j, m := range members {
			if partOf(m.Key) != n {
				continue
			}
			if found {
				buf = append(buf, ',')
			}
			found = true
			if k.index != nil {
				sp := ms[j]
				if key = appendKey(key[:0], m.Key); string(key) == string(k.text[sp.Key:sp.Value-1]) {
					regions = append(regions, token.Region{At: len(buf), From: sp.Key, Len: sp.End - sp.Key})
					buf = append(buf, k.text[sp.Key:sp.End]...)
					continue
				}
			}
			buf = appendMember(buf, m)
		}
		*scratch = buf
		if !found {
			continue
		}
		var tokens int
		switch {
		case k.index == nil:
			tokens = k.count(buf)
		case len(regions) == 1 && regions[0].At == 0 && regions[0].Len == len(buf):
			tokens = k.span(regions[0].From, regions[0].From+regions[0].Len)
		default:
			tokens = k.index.Count(buf, regions)
		}
		out.Parts = append(out.Parts, Part{Name: n, Tokens: tokens})
	}
	return out
}

// appendMember appends "key":value in canonical form.
func appendMember(dst []byte, m canon.Member) []byte {
	dst = appendKey(dst, m.Key)
	dst = append(dst, ':')
	return canon.Append(dst, m.Value)
}

// ToolName returns a tool's name, or UnnamedTool.
func ToolName(t *canon.Value) string {
	if n := t.Get("name"); n != nil && n.Kind() == canon.String && n.Str() != "" {
		return n.Str()
	}
	return UnnamedTool
}

// Heaviest returns the indexes of r.Tools sorted by tokens, heaviest first,
// ties in capture order.
func (r *Result) Heaviest() []int {
	idx := make([]int, len(r.Tools))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.Tools[idx[a]].Tokens > r.Tools[idx[b]].Tokens })
	return idx
}

// PartTokens returns the tokens of the named part of t (0 when absent).
func (t *Tool) PartTokens(name string) int {
	for _, p := range t.Parts {
		if p.Name == name {
			return p.Tokens
		}
	}
	return 0
}

// appendKey appends key as JSON.stringify writes a string. Keys come decoded
// (a lone surrogate already replaced), so this serves the part counts only;
// whole tools are always written by canon.
func appendKey(dst []byte, key string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
