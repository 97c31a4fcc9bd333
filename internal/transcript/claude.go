package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// ClaudeParser parses the lines of one Claude Code transcript file.
//
// Claude Code writes an API response as one line per content block
// (thinking, text, tool_use), every one repeating the response's message
// id, request id and usage; early copies may hold intermediate output
// counts. The parser reports every copy; whoever sums them keeps one per
// message (see the store's deduplication).
//
// Which lines count is ccusage's choice, so that totals equal its own: a
// line's usage counts whatever its type (older and third-party writers
// leave lines without one), except on a line ccusage drops (see
// ccusageValid), which is reported as Record.UsageSkipped. Claude Code's
// own placeholders for an API error or a usage limit (model "<synthetic>",
// isApiErrorMessage, no tokens) are no request.
type ClaudeParser struct {
	// SessionID is the session the file belongs to (its name, or for a
	// sub-agent file the name of its session folder). When empty, each
	// line's own sessionId is used.
	SessionID string
	// AgentID is the sub-agent that wrote the file; empty for a main file.
	AgentID string
	// ReuseText makes the text parts of a record's tool results views of
	// the line and of a buffer the parser reuses: they are valid only until
	// the next ParseLine and while the line's bytes are unchanged. Without
	// it every text is a copy of its own.
	ReuseText bool

	arena textArena
	memo  strMemo
	last  lastValues
	// msg, usage and blocks hold a line's message, its usage and its
	// content's blocks, from line to line.
	msg    claudeMessage
	usage  usageBuf
	blocks []claudeBlock
}

// lastValues are the values of the members that repeat from line to line
// (a file's session and project, its model), kept so that a line which
// repeats one costs no copy.
type lastValues struct{ session, cwd, model, messageID, requestID, agent string }

// repeated decodes a string member as str does, giving *last again when
// the member is written as *last without escapes, and keeping it in *last
// otherwise.
func repeated(last *string, key string, val []byte) (string, error) {
	if n := len(val); n >= 2 && val[0] == '"' && val[n-1] == '"' && string(val[1:n-1]) == *last && bytes.IndexByte(val, '\\') < 0 {
		// str gives these bytes as they are: they are valid UTF-8, as
		// every string str gives is.
		return *last, nil
	}
	s, err := str(key, val)
	if err == nil {
		*last = s
	}
	return s, err
}

// A textArena holds the decoded text parts of one line's tool results,
// from line to line in the same buffer; a nil *textArena copies each text
// into a string of its own.
type textArena struct{ buf []byte }

// maxArena is the largest buffer kept from one line to the next; a longer
// line's is let go, so that one huge result does not stay in memory.
const maxArena = 4 << 20

// text decodes a string member as str does: the same text, or the same
// error. Through a textArena, a text without escapes is the member's own
// bytes, and one with escapes is decoded into the buffer.
func (a *textArena) text(key string, v []byte) (string, error) {
	if a == nil {
		return str(key, v)
	}
	n := len(v)
	if n < 2 || v[0] != '"' || v[n-1] != '"' {
		return str(key, v)
	}
	if bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return unsafe.String(unsafe.SliceData(v[1:]), n-2), nil
	}
	start := len(a.buf)
	buf, ok := appendUnquote(a.buf, v)
	if !ok {
		return str(key, v)
	}
	a.buf = buf
	return unsafe.String(unsafe.SliceData(buf[start:]), len(buf)-start), nil
}

// reset makes the buffer free for the next line.
func (a *textArena) reset() {
	if cap(a.buf) > maxArena {
		a.buf = nil
	}
	a.buf = a.buf[:0]
}

// claudeLine is the part of a Claude Code line that matters here.
type claudeLine struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	SessionID   string `json:"sessionId"`
	Timestamp   string `json:"timestamp"`
	Cwd         string `json:"cwd"`
	IsSidechain bool   `json:"isSidechain"`
	AgentID     string `json:"agentId"`
	RequestID   string `json:"requestId"`
	CostUSD     *float64
	IsAPIError  bool   `json:"isApiErrorMessage"`
	Version     string `json:"version"`
	// hasVersion is set when the line names a version; empty when its
	// sessionId or requestId is an empty string; mistyped when costUSD is
	// neither a number nor null.
	hasVersion, empty, mistyped bool
	// badCost is set when costUSD is a number outside [0, MaxCostUSD].
	badCost         bool
	Message         *claudeMessage
	CompactMetadata *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
}

type claudeMessage struct {
	ID      string
	Model   string
	Content []byte // raw: a string or an array of blocks
	Usage   *claudeUsage
	// empty is set when id or model is an empty string.
	empty bool
	// wanted is set when the message's usage key is written as it is in
	// patUsage.
	wanted bool
}

// decodeMessage reads a line's message into m (nil: a new one): the id,
// model and usage are decoded (the usage into ub, when it is read
// directly; nil: a new one), the content kept raw for blocks.
func decodeMessage(val []byte, memo *strMemo, last *lastValues, m *claudeMessage, ub *usageBuf) (*claudeMessage, error) {
	if string(val) == "null" {
		return nil, nil
	}
	if m == nil {
		m = &claudeMessage{}
	}
	*m = claudeMessage{}
	err := splitObjectMemo(val, memo, func(key string, v []byte) error {
		var err error
		switch key {
		case "id":
			m.ID, err = repeated(&last.messageID, "message.id", v)
			m.empty = m.empty || string(v) == `""`
		case "model":
			m.Model, err = repeated(&last.model, "message.model", v)
			m.empty = m.empty || string(v) == `""`
		case "content":
			m.Content = v
		case "usage":
			err = decodeUsage(v, &m.Usage, ub)
			// The key as written, just before its value, is "usage" in
			// the line: claudeWanted would find it.
			at := cap(val) - cap(v)
			m.wanted = m.wanted || bytes.Contains(val[max(0, at-len(patUsage)-8):at], patUsage)
		}
		return err
	})
	if err == errNotObject {
		err = errors.New("unexpected JSON: message is not an object")
	}
	return m, err
}

type claudeUsage struct {
	InputTokens              count          `json:"input_tokens"`
	OutputTokens             count          `json:"output_tokens"`
	CacheCreationInputTokens count          `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     count          `json:"cache_read_input_tokens"`
	CacheCreation            *cacheCreation `json:"cache_creation"`
	ServerToolUse            *serverToolUse `json:"server_tool_use"`
	Speed                    string         `json:"speed"`
}

type cacheCreation struct {
	Ephemeral5m count `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h count `json:"ephemeral_1h_input_tokens"`
}

type serverToolUse struct {
	WebSearch count `json:"web_search_requests"`
	WebFetch  count `json:"web_fetch_requests"`
}

// A usageBuf holds a usage read directly, with its parts.
type usageBuf struct {
	u  claudeUsage
	cc cacheCreation
	st serverToolUse
}

// decodeUsage decodes a message's usage into *u as encoding/json does.
// The usual object (integer counts, known keys once each, valid JSON) is
// read directly, into ub (nil: a new one); anything else is left to
// encoding/json, so that the result and the errors are the same.
func decodeUsage(v []byte, u **claudeUsage, ub *usageBuf) error {
	if string(v) == "null" {
		*u = nil
		return nil
	}
	// A second usage member merges into the first, as encoding/json does.
	if *u == nil {
		if fast, ok := fastUsage(v, ub); ok {
			*u = fast
			return nil
		}
	}
	return decodeField("message.usage", v, u)
}

// A usageCheck gathers what the direct reading of a usage object cannot
// vouch for by itself: ok is cleared by anything encoding/json is to
// decide, deep is set by a member's object or array that only a check of
// the whole value (which counts its depth) can validate.
type usageCheck struct{ ok, deep bool }

// key clears ok for a key with a control character: valid JSON only when
// it is escaped, which the splitter does not tell.
func (c *usageCheck) key(key string) {
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 {
			c.ok = false
		}
	}
}

// other checks the value of a member that is not read: a string without
// escapes or control characters is valid; a literal was checked by the
// splitter; a number is checked here; an object or an array is left to
// the check of the whole.
func (c *usageCheck) other(val []byte) {
	switch val[0] {
	case '"':
		for _, b := range val[1 : len(val)-1] {
			if b < 0x20 || b == '\\' {
				c.ok = c.ok && json.Valid(val)
				return
			}
		}
	case '{', '[':
		c.deep = true
	case 't', 'f', 'n':
	default:
		c.ok = c.ok && json.Valid(val)
	}
}

var (
	usageKeys         = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation", "server_tool_use", "speed"}
	cacheCreationKeys = []string{"ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"}
	serverToolKeys    = []string{"web_search_requests", "web_fetch_requests"}
)

// fastUsage reads a usage object that is valid JSON into ub (nil: a new
// one); false means "ask encoding/json".
func fastUsage(v []byte, ub *usageBuf) (*claudeUsage, bool) {
	if ub == nil {
		ub = &usageBuf{}
	}
	*ub = usageBuf{}
	u := &ub.u
	var seen uint
	c := usageCheck{ok: true}
	err := splitObject(v, func(key string, val []byte) error {
		c.key(key)
		switch keyIndex(usageKeys, key, &seen, &c.ok) {
		case -1:
			c.other(val)
		case 0:
			c.ok = c.ok && intValue(val, &u.InputTokens)
		case 1:
			c.ok = c.ok && intValue(val, &u.OutputTokens)
		case 2:
			c.ok = c.ok && intValue(val, &u.CacheCreationInputTokens)
		case 3:
			c.ok = c.ok && intValue(val, &u.CacheReadInputTokens)
		case 4:
			if string(val) != "null" {
				cc := &ub.cc
				c.counts(val, cacheCreationKeys, &cc.Ephemeral5m, &cc.Ephemeral1h)
				u.CacheCreation = cc
			}
		case 5:
			if string(val) != "null" {
				s := &ub.st
				c.counts(val, serverToolKeys, &s.WebSearch, &s.WebFetch)
				u.ServerToolUse = s
			}
		case 6:
			switch {
			case string(val) == "null":
			case val[0] == '"':
				s, err := str("speed", val)
				c.ok = c.ok && err == nil && json.Valid(val)
				u.Speed = s
			default:
				c.ok = false
			}
		}
		return nil
	})
	if err != nil || !c.ok {
		return nil, false
	}
	if c.deep && !json.Valid(v) {
		return nil, false
	}
	return u, true
}

// counts reads an object of two integer counts, as fastUsage reads
// usage.
func (c *usageCheck) counts(v []byte, keys []string, a, b *count) {
	var seen uint
	err := splitObject(v, func(key string, val []byte) error {
		c.key(key)
		switch keyIndex(keys, key, &seen, &c.ok) {
		case -1:
			c.other(val)
		case 0:
			c.ok = c.ok && intValue(val, a)
		case 1:
			c.ok = c.ok && intValue(val, b)
		}
		return nil
	})
	c.ok = c.ok && err == nil
}

// keyIndex is key's index in keys (-1 for another key). A key seen twice,
// or one that matches only without regard to case (as encoding/json
// would match it), clears ok.
func keyIndex(keys []string, key string, seen *uint, ok *bool) int {
	for i, k := range keys {
		if k == key {
			if *seen&(1<<i) != 0 {
				*ok = false
			}
			*seen |= 1 << i
			return i
		}
	}
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			*ok = false
		}
	}
	return -1
}

// intValue reads a count as count.UnmarshalJSON does (null leaves *n as
// it is); false for any other value, and for what is not a JSON number
// (a leading zero), which encoding/json is to decide.
func intValue(val []byte, n *count) bool {
	if string(val) == "null" {
		return true
	}
	x, ok := exactInt(val)
	if ok {
		*n = count(x)
	}
	return ok
}

// A count is a token count as a line writes it: a JSON number whose value
// is an integer, in any of JSON's forms (1000, 1e3, 1000.0, 1.0E3, as
// ccusage reads them); a fraction is refused. A count past MaxTokens
// either way reads as one past it, which Usage.check refuses.
type count int64

var int64Type = reflect.TypeFor[int64]()

// UnmarshalJSON reads a count; null leaves it as it is.
func (n *count) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	x, ok := exactInt(b)
	if !ok {
		// As encoding/json words an int64's: the kind of what was found.
		kind := "number"
		switch b[0] {
		case '"':
			kind = "string"
		case '{':
			kind = "object"
		case '[':
			kind = "array"
		case 't', 'f':
			kind = "bool"
		}
		return &json.UnmarshalTypeError{Value: kind, Type: int64Type}
	}
	*n = count(x)
	return nil
}

// exactInt reads a JSON number that is an exact integer, past
// ±MaxTokens clamped to ±(MaxTokens+1); false for a fraction and for what
// is not a JSON number. It reads the digits as written, never through a
// float, so that 9007199254740993 is not read as ...992, and a huge
// exponent costs nothing.
func exactInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	intPart := b[:i]
	if len(intPart) == 0 || (len(intPart) > 1 && intPart[0] == '0') {
		return 0, false
	}
	var frac []byte
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if frac = b[i+1 : j]; len(frac) == 0 {
			return 0, false
		}
		i = j
	}
	exp := int64(0)
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		expNeg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			expNeg = b[i] == '-'
			i++
		}
		start := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			// Past a billion the exponent says as much as it will: the
			// digits of a line are far fewer.
			exp = min(exp*10+int64(b[i]-'0'), 1e9)
		}
		if i == start {
			return 0, false
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(b) {
		return 0, false
	}
	// The value is digits × 10^scale: the integer's own digits, as
	// almost every line writes them, else those of both parts.
	digits := intPart
	if len(frac) > 0 {
		digits = append(append(make([]byte, 0, len(intPart)+len(frac)), intPart...), frac...)
	}
	digits = bytes.TrimLeft(digits, "0")
	if len(digits) == 0 {
		return 0, true // zero, however written
	}
	scale := exp - int64(len(frac))
	trimmed := bytes.TrimRight(digits, "0")
	scale += int64(len(digits) - len(trimmed))
	digits = trimmed
	if scale < 0 {
		return 0, false // a fraction
	}
	var x int64
	if int64(len(digits))+scale > 16 { // MaxTokens has 16 digits
		x = MaxTokens + 1
	} else {
		for _, d := range digits {
			x = x*10 + int64(d-'0')
		}
		for range scale {
			x *= 10
		}
		x = min(x, MaxTokens+1)
	}
	if neg {
		x = -x
	}
	return x, true
}

type claudeBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	// wanted is set when the type is written as in patToolUse or
	// patToolResult.
	wanted bool
}

// Byte patterns of the lines worth decoding.
var (
	patUsage      = []byte(`"usage"`)
	patToolUse    = []byte(`"tool_use"`)
	patToolResult = []byte(`"tool_result"`)
	patCompact    = []byte(`"compact_boundary"`)
)

// claudeWanted reports whether a line can carry usage, tool calls, tool
// results or a compaction marker. Everything else (prompts, progress,
// snapshots, attachments) is skipped without decoding.
func claudeWanted(line []byte) bool {
	// Tool results, the largest lines, name their type near the start:
	// look for them first.
	return bytes.Contains(line, patToolResult) || bytes.Contains(line, patToolUse) ||
		bytes.Contains(line, patUsage) || bytes.Contains(line, patCompact)
}

var errNotObject = errors.New("not a JSON object")

// wantedLine trims a JSONL line and says whether to parse it: not when it
// is blank, or when wanted (a cheap scan for the keys a reader needs) says
// it holds nothing of use. A line that is not an object is an error; so
// is a skipped one that does not close its object, rejected cheaply as
// not JSON.
func wantedLine(line []byte, wanted func([]byte) bool) ([]byte, bool, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, false, nil
	}
	if line[0] != '{' {
		return nil, false, errNotObject
	}
	if !wanted(line) {
		if line[len(line)-1] != '}' {
			return nil, false, errors.New("truncated JSON object")
		}
		return nil, false, nil
	}
	return line, true, nil
}

// ParseLine implements Parser.
//
// A line is parsed before claudeWanted is asked about it: the parse sees
// most of the patterns that make a line wanted (the usage key, a block's
// type), and a line it finds nothing on gives nothing either way. Only
// what the parse found without such a pattern is checked against the
// line's bytes, and is what wantedLine would give when they are not there.
func (p *ClaudeParser) ParseLine(line []byte) (*Record, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if line[0] != '{' {
		return nil, errNotObject
	}
	rec, wanted, err := p.parse(line)
	if (rec == nil && err == nil) || wanted || claudeWanted(line) {
		return rec, err
	}
	_, _, err = wantedLine(line, func([]byte) bool { return false })
	return nil, err
}

// parse parses a line that wantedLine would pass, and says whether it
// found one of the patterns of claudeWanted on the way.
func (p *ClaudeParser) parse(line []byte) (_ *Record, wanted bool, err error) {
	var arena *textArena
	if p.ReuseText {
		arena = &p.arena
		arena.reset()
	}
	memo := &p.memo
	memo.reset()
	// The message is the only member split further.
	memo.deep = "message"
	var l claudeLine
	err = splitObjectMemo(line, memo, func(key string, val []byte) error {
		var err error
		switch key {
		case "type":
			l.Type, err = view(key, val)
		case "subtype":
			l.Subtype, err = view(key, val)
			wanted = wanted || bytes.Equal(val, patCompact)
		case "sessionId":
			l.SessionID, err = repeated(&p.last.session, key, val)
			l.empty = l.empty || string(val) == `""`
		case "version":
			l.Version, err = view(key, val)
			l.hasVersion = true
		case "timestamp":
			l.Timestamp, err = view(key, val)
		case "cwd":
			l.Cwd, err = repeated(&p.last.cwd, key, val)
		case "agentId":
			l.AgentID, err = repeated(&p.last.agent, key, val)
		case "requestId":
			l.RequestID, err = repeated(&p.last.requestID, key, val)
			l.empty = l.empty || string(val) == `""`
		case "isApiErrorMessage":
			l.IsAPIError = string(val) == "true"
		case "isSidechain":
			switch string(val) {
			case "true":
				l.IsSidechain = true
			case "false":
				l.IsSidechain = false
			default:
				// Apart, so that l itself stays off the heap.
				v := l.IsSidechain
				err = decodeField(key, val, &v)
				l.IsSidechain = v
			}
		case "costUSD":
			// null, or a number; anything else is not a cost.
			var c *float64
			if json.Unmarshal(val, &c) == nil {
				l.CostUSD = c
				if c != nil && !ValidCost(*c) {
					l.CostUSD, l.badCost = nil, true
				}
			} else {
				l.mistyped = true
			}
		case "message":
			l.Message, err = decodeMessage(val, memo, &p.last, &p.msg, &p.usage)
		case "compactMetadata":
			m := l.CompactMetadata
			err = decodeField(key, val, &m)
			l.CompactMetadata = m
		}
		return err
	})
	if err != nil {
		return nil, wanted, err
	}
	if l.Message != nil && l.Message.wanted {
		wanted = true
	}
	rec := &Record{
		SessionID: p.SessionID,
		AgentID:   p.AgentID,
		Sidechain: l.IsSidechain,
		Cwd:       l.Cwd,
	}
	if rec.SessionID == "" {
		rec.SessionID = l.SessionID
	}
	rec.LineSession = l.SessionID
	rec.Copied = l.SessionID != "" && l.SessionID != rec.SessionID
	if l.Message != nil {
		rec.MessageID = l.Message.ID
	}
	rec.RequestID = l.RequestID
	if rec.AgentID == "" && l.IsSidechain {
		rec.AgentID = l.AgentID
	}
	// Usage counts whatever the line's type, as ccusage counts it: lines
	// without a type (older and third-party writers) carry requests too.
	hasUsage := l.Message != nil && l.Message.Usage != nil && !syntheticError(&l)
	skipped := hasUsage && !ccusageValid(line, &l)
	if m := l.Message; hasUsage && !skipped {
		u := m.Usage
		r := &Request{
			MessageID: m.ID,
			RequestID: l.RequestID,
			Session:   l.SessionID,
			Model:     m.Model,
			Speed:     u.Speed,
			CostUSD:   l.CostUSD,
			Usage: Usage{
				Input:         int64(u.InputTokens),
				Output:        int64(u.OutputTokens),
				CacheRead:     int64(u.CacheReadInputTokens),
				CacheCreation: int64(u.CacheCreationInputTokens),
				CacheWrite5m:  int64(u.CacheCreationInputTokens),
			},
		}
		if c := u.CacheCreation; c != nil {
			// The split, when given, is the truth (as ccusage takes it).
			r.Usage.CacheWrite5m, r.Usage.CacheWrite1h = int64(c.Ephemeral5m), int64(c.Ephemeral1h)
			r.Usage.CacheCreation = int64(c.Ephemeral5m + c.Ephemeral1h)
		}
		if s := u.ServerToolUse; s != nil {
			r.Usage.WebSearch, r.Usage.WebFetch = int64(s.WebSearch), int64(s.WebFetch)
		}
		if err := r.Usage.check(); err != nil {
			return nil, wanted, err
		}
		rec.Request = r
		if l.badCost {
			rec.Warning = errCost.Error()
		}
	}
	switch {
	case (l.Type == "assistant" || l.Type == "") && l.Message != nil:
		for _, b := range blocks(l.Message.Content, memo, &p.blocks) {
			if b.Type == "tool_use" && b.ID != "" && b.Name != "" {
				rec.Calls = append(rec.Calls, ToolCall{ID: b.ID, Name: b.Name, Tool: ParseToolName(b.Name), Args: bytes.Clone(b.Input)})
				wanted = wanted || b.wanted
			}
		}
		if l.Type == "" {
			var w bool
			rec.Results, w = toolResults(l.Message.Content, arena, memo, &p.blocks)
			wanted = wanted || w
		}
	case l.Type == "user" && l.Message != nil:
		var w bool
		rec.Results, w = toolResults(l.Message.Content, arena, memo, &p.blocks)
		wanted = wanted || w
	case l.Type == "system" && (l.Subtype == "compact_boundary" || l.Subtype == "microcompact_boundary"):
		c := &Compaction{Trigger: strings.Clone(l.Subtype)}
		if m := l.CompactMetadata; m != nil {
			if m.Trigger != "" {
				c.Trigger = m.Trigger
			}
			c.PreTokens = m.PreTokens
		}
		rec.Compaction = c
	}
	// A placeholder for a request refused at the usage limit marks its
	// billing block where ccusage counts it as an entry: with usage, on a
	// line it reads.
	if l.IsAPIError && l.Message != nil && l.Message.Usage != nil && ccusageValid(line, &l) {
		rec.LimitReset = limitReset(l.Message.Content)
	}
	if rec.Request == nil && rec.Calls == nil && rec.Results == nil && rec.Compaction == nil && rec.LimitReset == 0 {
		if skipped {
			return &Record{UsageSkipped: true}, wanted, nil
		}
		return nil, wanted, nil
	}
	rec.UsageSkipped = skipped
	t, err := parseTime(l.Timestamp)
	if err != nil {
		return nil, wanted, err
	}
	rec.Time = t
	if rec.SessionID == "" {
		return nil, wanted, errors.New("no session id")
	}
	return rec, wanted, nil
}

// nullable are the members that ccusage refuses to see as null anywhere
// on a line (its loader's schema has them as optional strings, numbers or
// booleans, and null is none of those).
var nullable = map[string]bool{"id": true, "cwd": true, "model": true, "speed": true, "costUSD": true, "version": true,
	"sessionId": true, "requestId": true, "isApiErrorMessage": true, "cache_read_input_tokens": true, "cache_creation_input_tokens": true}

var patNull = []byte(`":null`)

// ccusageValid reports whether ccusage counts the usage of line: it drops
// a line whose version is not of the form 1.2.3, whose sessionId,
// requestId, message id or model is an empty string, whose costUSD is not
// a number, or where one of the nullable members is null (written
// "key":null, as Claude Code writes JSON). Its totals are the truth mcpcost's equal, so such a line's usage
// is not counted either; its tool calls and results still are.
func ccusageValid(line []byte, l *claudeLine) bool {
	if l.empty || l.mistyped || l.Message.empty || (l.hasVersion && !semverPrefix(l.Version)) {
		return false
	}
	for rest, off := line, 0; ; {
		i := indexNull(rest)
		if i < 0 {
			return true
		}
		if j := bytes.LastIndexByte(rest[:i], '"'); j >= 0 && nullable[string(rest[j+1:i])] {
			return false
		}
		off += i + len(patNull)
		rest = line[off:]
	}
}

// indexNull is bytes.Index(b, patNull), looking for the colon: JSON has
// one for each member, where it has two quotes or more (an escaped text
// has four for each of its own members), each of which bytes.Index would
// stop at.
func indexNull(b []byte) int {
	for i := 1; i < len(b); {
		k := bytes.IndexByte(b[i:], ':')
		if k < 0 {
			return -1
		}
		i += k
		if b[i-1] == '"' && len(b)-i >= len(patNull)-1 && string(b[i+1:i+len(patNull)-1]) == "null" {
			return i - 1
		}
		i++
	}
	return -1
}

// semverPrefix reports whether v starts with digits.digits.digit.
func semverPrefix(v string) bool {
	for part := 0; part < 2; part++ {
		n := 0
		for n < len(v) && v[n] >= '0' && v[n] <= '9' {
			n++
		}
		if n == 0 || n == len(v) || v[n] != '.' {
			return false
		}
		v = v[n+1:]
	}
	return len(v) > 0 && v[0] >= '0' && v[0] <= '9'
}

// syntheticError reports a line that Claude Code wrote itself in place of
// a response (an API error, a usage limit): model "<synthetic>" or
// isApiErrorMessage, with no tokens. No request was billed, so none is
// counted. (ccusage counts the tokens of every line with usage; these
// have none, so its totals are the same.)
func syntheticError(l *claudeLine) bool {
	if l.Message.Model != "<synthetic>" && !l.IsAPIError {
		return false
	}
	u := l.Message.Usage
	zero := u.InputTokens == 0 && u.OutputTokens == 0 && u.CacheCreationInputTokens == 0 && u.CacheReadInputTokens == 0
	if c := u.CacheCreation; c != nil {
		zero = zero && c.Ephemeral5m == 0 && c.Ephemeral1h == 0
	}
	if s := u.ServerToolUse; s != nil {
		zero = zero && s.WebSearch == 0 && s.WebFetch == 0
	}
	return zero
}

// limitPhrase starts the text of Claude Code's placeholder for a request
// refused at the usage limit: "Claude AI usage limit reached|<epoch>".
var limitPhrase = []byte("Claude AI usage limit reached")

// maxLimitReset is the latest reset a placeholder may name, in seconds:
// its milliseconds fit in 64 bits (as ccusage reads it).
const maxLimitReset = math.MaxInt64 / 1000

// limitReset reads the reset time of a usage-limit placeholder from its
// message's content, as ccusage 20 does: in the content's JSON as written
// (escapes not decoded), after the first "Claude AI usage limit reached",
// the digits right after the first "|" are the reset's Unix seconds.
// It returns the reset in Unix milliseconds, or 0 for none (no phrase, no
// digits, 0, or past maxLimitReset).
func limitReset(content []byte) int64 {
	i := bytes.Index(content, limitPhrase)
	if i < 0 {
		return 0
	}
	rest := content[i+len(limitPhrase):]
	j := bytes.IndexByte(rest, '|')
	if j < 0 {
		return 0
	}
	var secs int64
	n := 0
	for _, c := range rest[j+1:] {
		if c < '0' || c > '9' {
			break
		}
		if secs > (maxLimitReset-int64(c-'0'))/10 {
			return 0
		}
		secs = secs*10 + int64(c-'0')
		n++
	}
	if n == 0 || secs == 0 {
		return 0
	}
	return secs * 1000
}

// toolResults reads the tool_result blocks of a message's content, their
// texts decoded through arena, the blocks split into buf as blocks splits
// them. It says whether one of them has its type written as in
// patToolResult.
func toolResults(content []byte, arena *textArena, memo *strMemo, buf *[]claudeBlock) (rs []ToolResult, wanted bool) {
	for _, b := range blocks(content, memo, buf) {
		if b.Type == "tool_result" && b.ToolUseID != "" {
			r := ToolResult{ID: b.ToolUseID, IsError: b.IsError}
			r.addContent(b.Content, arena, memo)
			rs = append(rs, r)
			wanted = wanted || b.wanted
		}
	}
	return rs, wanted
}

// blocks splits a message's content when it is an array of blocks,
// decoding only the members of interest, into *buf (nil: a new slice),
// which holds them until the next call.
func blocks(content []byte, memo *strMemo, buf *[]claudeBlock) []claudeBlock {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || content[0] != '[' {
		return nil
	}
	var bs []claudeBlock
	if buf != nil {
		if cap(*buf) > maxBlocks {
			*buf = nil
		}
		bs = (*buf)[:0]
		defer func() { *buf = bs }()
	}
	splitArray(content, memo, func(v []byte) error {
		var b claudeBlock
		err := splitObjectMemo(v, memo, func(key string, v []byte) error {
			var err error
			switch key {
			case "type":
				b.Type, err = view(key, v)
				b.wanted = bytes.Equal(v, patToolUse) || bytes.Equal(v, patToolResult)
			case "id":
				b.ID, err = str(key, v)
			case "name":
				b.Name, err = str(key, v)
			case "tool_use_id":
				b.ToolUseID, err = str(key, v)
			case "input":
				b.Input = v
			case "content":
				b.Content = v
			case "is_error":
				b.IsError = string(v) == "true"
			}
			return err
		})
		if err == nil {
			bs = append(bs, b)
		}
		return nil
	})
	return bs
}

// maxBlocks is the most blocks kept from one line to the next.
const maxBlocks = 256

// view decodes a string member as str does, as a view of the line's
// bytes where it has no escapes: for the values only looked at while the
// line is parsed (types, version, timestamp), never kept.
func view(key string, val []byte) (string, error) {
	if n := len(val); n >= 2 && val[0] == '"' && val[n-1] == '"' && bytes.IndexByte(val, '\\') < 0 && utf8.Valid(val) {
		return unsafe.String(unsafe.SliceData(val[1:]), n-2), nil
	}
	return str(key, val)
}

// str decodes a string member (null is "").
func str(key string, val []byte) (string, error) {
	if n := len(val); n >= 2 && val[0] == '"' && val[n-1] == '"' && bytes.IndexByte(val, '\\') < 0 && utf8.Valid(val) {
		return string(val[1 : n-1]), nil
	}
	if string(val) == "null" {
		return "", nil
	}
	if s, ok := unquote(val); ok {
		return s, nil
	}
	var s string
	err := decodeField(key, val, &s)
	return s, err
}
