package measure

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/redact"
	"github.com/mcpcost/mcpcost/internal/token"
)

// Live is the measurement of a running server: its tools by the
// methodology, what else it puts in context, and what a deferring client
// loads at session start.
type Live struct {
	Status mcpclient.Status // measured, dynamic, or a failure class
	Detail string           // why, for failures; never a secret
	// StderrTail is the end of a failed server's stderr.
	StderrTail string

	Result *Result // nil on failure
	Tools  []*canon.Value
	Extras *Extras
	// SessionStart is what a client that defers tool definitions loads.
	SessionStart *claude.SessionStartLoad
	// ChangedTools names the tools that differed between the two captures
	// of a dynamic server (added, removed or changed).
	ChangedTools []string

	ServerName, ServerVersion string
	Instructions              *string
	ProtocolVersion           string
	Transport                 string
	Pages                     int
	Warnings                  []string
}

// FromLive measures what mcpclient captured. A capture whose tools cannot
// be read is a protocol error naming what was wrong. What the server said
// that is shown (detail, stderr, warnings, its name and version) goes
// through the target's scrubber.
//
// A value the user supplied (an env or header value, a secret of the
// arguments or URL) that the server repeats in what it sent (its name,
// version, instructions, tools, prompts, resources) is replaced by
// redact.Marker before anything is counted: what is measured is what is
// kept, so that a measurement.json re-derives to the same numbers, and a
// warning names each repeated value and says what the replacement changed.
func FromLive(r mcpclient.Result, c token.Counter) *Live {
	if c == nil {
		c = token.O200k()
	}
	red, repeated := redactCaptures(r)
	l := fromLive(red, c)
	if len(repeated) > 0 {
		l.Warnings = append(l.Warnings, repeatWarning(repeated, fromLive(r, c), l))
	}
	s := r.Target.Scrubber()
	l.Detail, l.StderrTail = s.String(l.Detail), s.String(l.StderrTail)
	l.ServerName, l.ServerVersion = s.String(l.ServerName), s.String(l.ServerVersion)
	s.Strings(l.Warnings)
	return l
}

func fromLive(r mcpclient.Result, c token.Counter) *Live {
	if c == nil {
		c = token.O200k()
	}
	l := &Live{Status: r.Status, Detail: r.Detail, StderrTail: r.StderrTail}
	if !r.OK() || r.First == nil {
		if l.Status == "" || l.Status.OK() {
			l.Status = mcpclient.StatusProtocolError
		}
		return l
	}
	first := r.First
	l.ServerName, l.ServerVersion, l.Instructions = first.ServerName, first.ServerVersion, first.Instructions
	l.ProtocolVersion, l.Transport, l.Pages = first.ProtocolVersion, first.Transport, len(first.ToolsPages)
	l.Warnings = append(l.Warnings, first.Warnings...)
	if first.SkippedStdoutLines > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("skipped %d %s on stdout that %s not JSON-RPC", first.SkippedStdoutLines,
			num.Plural(first.SkippedStdoutLines, "line", "lines"), num.Plural(first.SkippedStdoutLines, "was", "were")))
	}
	tools, err := pagesItems(first.ToolsPages, "tools/list", "tools", true)
	if err != nil {
		l.Status, l.Detail = mcpclient.StatusProtocolError, err.Error()
		return l
	}
	l.Tools = tools
	l.Result = Tools(tools, c)
	l.Status = mcpclient.StatusMeasured
	if r.Second != nil {
		second, err := pagesItems(r.Second.ToolsPages, "tools/list (second capture)", "tools", true)
		if err != nil {
			l.Status, l.Detail = mcpclient.StatusProtocolError, err.Error()
			l.Result = nil
			return l
		}
		if b := canon.Marshal(canon.NewArray(second)); string(b) != string(l.Result.Canonical) {
			l.Status = mcpclient.StatusDynamic
			l.ChangedTools = changedTools(tools, second)
			l.Detail = "tools/list differed between two captures; the number is the first capture's"
		}
	} else if first.RelistPages != nil {
		again, err := pagesItems(first.RelistPages, "tools/list (second list of the session)", "tools", true)
		if err != nil {
			l.Status, l.Detail = mcpclient.StatusProtocolError, err.Error()
			l.Result = nil
			return l
		}
		if b := canon.Marshal(canon.NewArray(again)); string(b) != string(l.Result.Canonical) {
			l.Status = mcpclient.StatusDynamic
			l.ChangedTools = changedTools(tools, again)
			l.Detail = "tools/list differed between two lists in the same session; the number is the first list's"
		}
	}
	x := &Extras{}
	if l.Instructions != nil && *l.Instructions != "" {
		x.InstructionsTokens = c.Count(*l.Instructions)
	}
	x.Prompts, x.PromptsTokens = countItems(first.PromptsPages, "prompts", c)
	x.Resources, x.ResourcesTokens = countItems(first.ResourcesPages, "resources", c)
	x.ResourceTemplates, x.ResourceTemplatesTokens = countItems(first.ResourceTemplatesPages, "resourceTemplates", c)
	ss := claude.SessionStart(l.ServerName, tools, instructionsOrEmpty(l.Instructions))
	x.SessionStartTokens = ss.Tokens
	l.SessionStart = &ss
	l.Extras = x
	return l
}

// instructionsOrEmpty returns the instructions as SessionStart wants them:
// a live capture always knows whether the server sent any.
func instructionsOrEmpty(s *string) *string {
	if s == nil {
		e := ""
		return &e
	}
	return s
}

// pagesItems concatenates the key arrays of list result pages.
func pagesItems(pages []json.RawMessage, method, key string, objects bool) ([]*canon.Value, error) {
	var all []*canon.Value
	for i, p := range pages {
		v, err := canon.Parse(p)
		if err != nil {
			return nil, fmt.Errorf("%s page %d: not JSON: %v", method, i+1, err)
		}
		if v.Kind() != canon.Object {
			return nil, fmt.Errorf("%s page %d: result is %s, not an object", method, i+1, kindName(v))
		}
		arr := v.Get(key)
		if arr == nil {
			continue // treated as no items, as clients do
		}
		if arr.Kind() != canon.Array {
			return nil, fmt.Errorf("%s page %d: %s is %s, not an array", method, i+1, key, kindName(arr))
		}
		for j, e := range arr.Elems() {
			if objects && e.Kind() != canon.Object {
				return nil, fmt.Errorf("%s page %d: %s[%d] is %s, not an object", method, i+1, key, j, kindName(e))
			}
		}
		all = append(all, arr.Elems()...)
	}
	return all, nil
}

// countItems counts the canonical JSON of the concatenated key arrays of
// list pages (prompts, resources, resource templates), as the tools are
// counted. Unreadable pages count nothing.
func countItems(pages []json.RawMessage, key string, c token.Counter) (n, tokens int) {
	items, err := pagesItems(pages, key, key, false)
	if err != nil || len(items) == 0 {
		return 0, 0
	}
	return len(items), c.Count(string(canon.Marshal(canon.NewArray(items))))
}

// ChangedTools names the tools that differ between two lists of the same
// server (added, removed or changed), sorted.
func ChangedTools(a, b []*canon.Value) []string { return changedTools(a, b) }

// changedTools names the tools that were added, removed or changed between
// two captures, sorted.
func changedTools(a, b []*canon.Value) []string {
	index := func(tools []*canon.Value) map[string]string {
		m := map[string]string{}
		for i, t := range tools {
			name := ToolName(t)
			if _, dup := m[name]; dup || name == UnnamedTool {
				name = fmt.Sprintf("%s#%d", name, i+1)
			}
			m[name] = string(canon.Marshal(t))
		}
		return m
	}
	ia, ib := index(a), index(b)
	var out []string
	for n, ca := range ia {
		if cb, ok := ib[n]; !ok || ca != cb {
			out = append(out, n)
		}
	}
	for n := range ib {
		if _, ok := ia[n]; !ok {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = append(out, "(order only)")
	}
	sort.Strings(out)
	return out
}

// redactCaptures returns r with each credential of r.Target.NamedSecrets
// (see redact.Named.Credential) that the server repeated replaced by
// redact.Marker in the strings of its captures, and the names of the
// values it found, in the target's order.
func redactCaptures(r mcpclient.Result) (mcpclient.Result, []string) {
	var named []redact.Named
	for _, n := range r.Target.NamedSecrets() {
		if n.Credential() {
			named = append(named, n)
		}
	}
	if len(named) == 0 {
		return r, nil
	}
	values := make([]string, len(named))
	each := make([]*redact.Scrubber, len(named))
	for i, n := range named {
		values[i], each[i] = n.Value, redact.New(n.Value)
	}
	all := redact.New(values...)
	found := make([]bool, len(named))
	scrub := func(text string) string {
		out := all.Values(text)
		if out != text {
			for i, sc := range each {
				found[i] = found[i] || sc.Values(text) != text
			}
		}
		return out
	}
	r.First, r.Second = redactCapture(r.First, scrub), redactCapture(r.Second, scrub)
	var names []string
	seen := map[string]bool{}
	for i, n := range named {
		if found[i] && !seen[n.Name] {
			names, seen[n.Name] = append(names, n.Name), true
		}
	}
	return r, names
}

// redactCapture is a copy of c with scrub applied to its server's name,
// version and instructions and to every string of its pages.
func redactCapture(c *mcpclient.Capture, scrub func(string) string) *mcpclient.Capture {
	if c == nil {
		return nil
	}
	d := *c
	d.ServerName, d.ServerVersion = scrub(c.ServerName), scrub(c.ServerVersion)
	if c.Instructions != nil {
		in := scrub(*c.Instructions)
		d.Instructions = &in
	}
	pages := func(ps []json.RawMessage) []json.RawMessage {
		if ps == nil {
			return nil
		}
		out := make([]json.RawMessage, len(ps))
		for i, p := range ps {
			out[i] = scrubJSONStrings(p, scrub)
		}
		return out
	}
	d.ToolsPages, d.RelistPages = pages(c.ToolsPages), pages(c.RelistPages)
	d.PromptsPages, d.ResourcesPages, d.ResourceTemplatesPages = pages(c.PromptsPages), pages(c.ResourcesPages), pages(c.ResourceTemplatesPages)
	return &d
}

// scrubJSONStrings applies scrub to each string (keys too) of a JSON
// text, re-encoding the strings it changes; everything else is kept byte
// for byte. A text that is not JSON is scanned all the same: what its
// parser then says of it is unchanged.
func scrubJSONStrings(data []byte, scrub func(string) string) []byte {
	var out []byte // nil until a string changes
	done := 0
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		j, escaped := i+1, false
		for j < len(data) && data[j] != '"' {
			if data[j] == '\\' {
				escaped = true
				j++
			}
			j++
		}
		if j >= len(data) {
			break // an unterminated string: left to the parser
		}
		lit := data[i : j+1]
		text := string(lit[1 : len(lit)-1])
		if escaped {
			if json.Unmarshal(lit, &text) != nil {
				i = j
				continue
			}
		}
		if s := scrub(text); s != text {
			out = append(out, data[done:i]...)
			out = append(out, canon.Marshal(canon.NewString(s))...)
			done = j + 1
		}
		i = j
	}
	if out == nil {
		return data
	}
	return append(out, data[done:]...)
}

// repeatWarning says which values the server repeated and what replacing
// them changed in the headline count.
func repeatWarning(names []string, sent, kept *Live) string {
	what := "the counts are of the text kept, with " + redact.Marker + " in place of each value"
	if sent.Result != nil && kept.Result != nil {
		switch d := sent.Result.TotalTokens - kept.Result.TotalTokens; {
		case d > 0:
			what += fmt.Sprintf(" (the tools' total is %d %s fewer than the server sent)", d, num.Plural(d, "token", "tokens"))
		case d < 0:
			what += fmt.Sprintf(" (the tools' total is %d %s more than the server sent)", -d, num.Plural(-d, "token", "tokens"))
		}
	}
	of := "the value of "
	if len(names) > 1 {
		of = "the values of "
	}
	return "the server repeats " + of + num.JoinAnd(names) + " in its definitions; " + what
}
