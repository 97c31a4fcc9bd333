package transcript

// This file keeps the Claude Code line parser as it was before its fast
// paths (one parse before the wanted check, remembered string ends), as
// the reference the fuzz targets compare the parser with.

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
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
type refClaudeParser struct {
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

	arena refTextArena
}

// A textArena holds the decoded text parts of one line's tool results,
// from line to line in the same buffer; a nil *textArena copies each text
// into a string of its own.
type refTextArena struct{ buf []byte }

// maxArena is the largest buffer kept from one line to the next; a longer
// line's is let go, so that one huge result does not stay in memory.
const refMaxArena = 4 << 20

// text decodes a string member as str does: the same text, or the same
// error. Through a textArena, a text without escapes is the member's own
// bytes, and one with escapes is decoded into the buffer.
func (a *refTextArena) text(key string, v []byte) (string, error) {
	if a == nil {
		return refStr(key, v)
	}
	n := len(v)
	if n < 2 || v[0] != '"' || v[n-1] != '"' {
		return refStr(key, v)
	}
	if bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return unsafe.String(unsafe.SliceData(v[1:]), n-2), nil
	}
	start := len(a.buf)
	buf, ok := refAppendUnquote(a.buf, v)
	if !ok {
		return refStr(key, v)
	}
	a.buf = buf
	return unsafe.String(unsafe.SliceData(buf[start:]), len(buf)-start), nil
}

// reset makes the buffer free for the next line.
func (a *refTextArena) reset() {
	if cap(a.buf) > refMaxArena {
		a.buf = nil
	}
	a.buf = a.buf[:0]
}

// claudeLine is the part of a Claude Code line that matters here.
type refClaudeLine struct {
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
	Message         *refClaudeMessage
	CompactMetadata *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
}

type refClaudeMessage struct {
	ID      string
	Model   string
	Content []byte // raw: a string or an array of blocks
	Usage   *refClaudeUsage
	// empty is set when id or model is an empty string.
	empty bool
}

// decodeMessage reads a line's message: the id, model and usage are
// decoded, the content kept raw for blocks.
func refDecodeMessage(val []byte) (*refClaudeMessage, error) {
	if string(val) == "null" {
		return nil, nil
	}
	m := &refClaudeMessage{}
	err := refSplitObject(val, func(key string, v []byte) error {
		var err error
		switch key {
		case "id":
			m.ID, err = refStr("message.id", v)
			m.empty = m.empty || string(v) == `""`
		case "model":
			m.Model, err = refStr("message.model", v)
			m.empty = m.empty || string(v) == `""`
		case "content":
			m.Content = v
		case "usage":
			err = refDecodeUsage(v, &m.Usage)
		}
		return err
	})
	if err == errRefNotObject {
		err = errors.New("unexpected JSON: message is not an object")
	}
	return m, err
}

type refClaudeUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreation            *struct {
		Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	ServerToolUse *struct {
		WebSearch int64 `json:"web_search_requests"`
		WebFetch  int64 `json:"web_fetch_requests"`
	} `json:"server_tool_use"`
	Speed string `json:"speed"`
}

// decodeUsage decodes a message's usage into *u as encoding/json does.
// The usual object (integer counts, known keys once each) is read
// directly; anything else is left to encoding/json, so that the result
// and the errors are the same.
func refDecodeUsage(v []byte, u **refClaudeUsage) error {
	if string(v) == "null" {
		*u = nil
		return nil
	}
	// A second usage member merges into the first, as encoding/json does.
	if *u == nil && json.Valid(v) {
		if fast, ok := refFastUsage(v); ok {
			*u = fast
			return nil
		}
	}
	return refDecodeField("message.usage", v, u)
}

var (
	refUsageKeys         = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation", "server_tool_use", "speed"}
	refCacheCreationKeys = []string{"ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"}
	refServerToolKeys    = []string{"web_search_requests", "web_fetch_requests"}
)

// fastUsage reads a valid usage object; false means "ask encoding/json".
func refFastUsage(v []byte) (*refClaudeUsage, bool) {
	u := &refClaudeUsage{}
	var seen uint
	ok := true
	err := refSplitObject(v, func(key string, val []byte) error {
		i := refKeyIndex(refUsageKeys, key, &seen, &ok)
		switch i {
		case 0:
			ok = ok && refIntValue(val, &u.InputTokens)
		case 1:
			ok = ok && refIntValue(val, &u.OutputTokens)
		case 2:
			ok = ok && refIntValue(val, &u.CacheCreationInputTokens)
		case 3:
			ok = ok && refIntValue(val, &u.CacheReadInputTokens)
		case 4:
			if string(val) != "null" {
				c := &struct {
					Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
					Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
				}{}
				ok = ok && refFastCounts(val, refCacheCreationKeys, &c.Ephemeral5m, &c.Ephemeral1h)
				u.CacheCreation = c
			}
		case 5:
			if string(val) != "null" {
				s := &struct {
					WebSearch int64 `json:"web_search_requests"`
					WebFetch  int64 `json:"web_fetch_requests"`
				}{}
				ok = ok && refFastCounts(val, refServerToolKeys, &s.WebSearch, &s.WebFetch)
				u.ServerToolUse = s
			}
		case 6:
			switch {
			case string(val) == "null":
			case len(val) > 0 && val[0] == '"':
				s, err := refStr("speed", val)
				ok = ok && err == nil
				u.Speed = s
			default:
				ok = false
			}
		}
		return nil
	})
	return u, ok && err == nil
}

// fastCounts reads an object of two integer counts.
func refFastCounts(v []byte, keys []string, a, b *int64) bool {
	var seen uint
	ok := true
	err := refSplitObject(v, func(key string, val []byte) error {
		switch refKeyIndex(keys, key, &seen, &ok) {
		case 0:
			ok = ok && refIntValue(val, a)
		case 1:
			ok = ok && refIntValue(val, b)
		}
		return nil
	})
	return ok && err == nil
}

// keyIndex is key's index in keys (-1 for another key). A key seen twice,
// or one that matches only without regard to case (as encoding/json
// would match it), clears ok.
func refKeyIndex(keys []string, key string, seen *uint, ok *bool) int {
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

// intValue reads a JSON integer (null leaves *n as it is); false for any
// other value.
func refIntValue(val []byte, n *int64) bool {
	if string(val) == "null" {
		return true
	}
	if len(val) == 0 || len(val) > 19 {
		return false
	}
	for i, c := range val {
		if (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	x, err := strconv.ParseInt(string(val), 10, 64)
	if err != nil {
		return false
	}
	*n = x
	return true
}

type refClaudeBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Byte patterns of the lines worth decoding.
var (
	refPatUsage      = []byte(`"usage"`)
	refPatToolUse    = []byte(`"tool_use"`)
	refPatToolResult = []byte(`"tool_result"`)
	refPatCompact    = []byte(`"compact_boundary"`)
)

// claudeWanted reports whether a line can carry usage, tool calls, tool
// results or a compaction marker. Everything else (prompts, progress,
// snapshots, attachments) is skipped without decoding.
func refClaudeWanted(line []byte) bool {
	// Tool results, the largest lines, name their type near the start:
	// look for them first.
	return bytes.Contains(line, refPatToolResult) || bytes.Contains(line, refPatToolUse) ||
		bytes.Contains(line, refPatUsage) || bytes.Contains(line, refPatCompact)
}

var errRefNotObject = errors.New("not a JSON object")

// wantedLine trims a JSONL line and says whether to parse it: not when it
// is blank, or when wanted (a cheap scan for the keys a reader needs) says
// it holds nothing of use. A line that is not an object is an error; so
// is a skipped one that does not close its object, rejected cheaply as
// not JSON.
func refWantedLine(line []byte, wanted func([]byte) bool) ([]byte, bool, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, false, nil
	}
	if line[0] != '{' {
		return nil, false, errRefNotObject
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
func (p *refClaudeParser) ParseLine(line []byte) (*Record, error) {
	line, ok, err := refWantedLine(line, refClaudeWanted)
	if !ok {
		return nil, err
	}
	var arena *refTextArena
	if p.ReuseText {
		arena = &p.arena
		arena.reset()
	}
	var l refClaudeLine
	err = refSplitObject(line, func(key string, val []byte) error {
		var err error
		switch key {
		case "type":
			l.Type, err = refStr(key, val)
		case "subtype":
			l.Subtype, err = refStr(key, val)
		case "sessionId":
			l.SessionID, err = refStr(key, val)
			l.empty = l.empty || string(val) == `""`
		case "version":
			l.Version, err = refStr(key, val)
			l.hasVersion = true
		case "timestamp":
			l.Timestamp, err = refStr(key, val)
		case "cwd":
			l.Cwd, err = refStr(key, val)
		case "agentId":
			l.AgentID, err = refStr(key, val)
		case "requestId":
			l.RequestID, err = refStr(key, val)
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
				err = refDecodeField(key, val, &l.IsSidechain)
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
			l.Message, err = refDecodeMessage(val)
		case "compactMetadata":
			err = refDecodeField(key, val, &l.CompactMetadata)
		}
		return err
	})
	if err != nil {
		return nil, err
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
	hasUsage := l.Message != nil && l.Message.Usage != nil && !refSyntheticError(&l)
	skipped := hasUsage && !refCcusageValid(line, &l)
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
				Input:         u.InputTokens,
				Output:        u.OutputTokens,
				CacheRead:     u.CacheReadInputTokens,
				CacheCreation: u.CacheCreationInputTokens,
				CacheWrite5m:  u.CacheCreationInputTokens,
			},
		}
		if c := u.CacheCreation; c != nil {
			// The split, when given, is the truth (as ccusage takes it).
			r.Usage.CacheWrite5m, r.Usage.CacheWrite1h = c.Ephemeral5m, c.Ephemeral1h
			r.Usage.CacheCreation = c.Ephemeral5m + c.Ephemeral1h
		}
		if s := u.ServerToolUse; s != nil {
			r.Usage.WebSearch, r.Usage.WebFetch = s.WebSearch, s.WebFetch
		}
		if err := r.Usage.check(); err != nil {
			return nil, err
		}
		rec.Request = r
		if l.badCost {
			rec.Warning = errCost.Error()
		}
	}
	switch {
	case (l.Type == "assistant" || l.Type == "") && l.Message != nil:
		for _, b := range refBlocks(l.Message.Content) {
			if b.Type == "tool_use" && b.ID != "" && b.Name != "" {
				rec.Calls = append(rec.Calls, ToolCall{ID: b.ID, Name: b.Name, Tool: ParseToolName(b.Name), Args: bytes.Clone(b.Input)})
			}
		}
		if l.Type == "" {
			rec.Results = refToolResults(l.Message.Content, arena)
		}
	case l.Type == "user" && l.Message != nil:
		rec.Results = refToolResults(l.Message.Content, arena)
	case l.Type == "system" && (l.Subtype == "compact_boundary" || l.Subtype == "microcompact_boundary"):
		c := &Compaction{Trigger: l.Subtype}
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
	if l.IsAPIError && l.Message != nil && l.Message.Usage != nil && refCcusageValid(line, &l) {
		rec.LimitReset = refLimitReset(l.Message.Content)
	}
	if rec.Request == nil && rec.Calls == nil && rec.Results == nil && rec.Compaction == nil && rec.LimitReset == 0 {
		if skipped {
			return &Record{UsageSkipped: true}, nil
		}
		return nil, nil
	}
	rec.UsageSkipped = skipped
	t, err := parseTime(l.Timestamp)
	if err != nil {
		return nil, err
	}
	rec.Time = t
	if rec.SessionID == "" {
		return nil, errors.New("no session id")
	}
	return rec, nil
}

// nullable are the members that ccusage refuses to see as null anywhere
// on a line (its loader's schema has them as optional strings, numbers or
// booleans, and null is none of those).
var refNullable = map[string]bool{"id": true, "cwd": true, "model": true, "speed": true, "costUSD": true, "version": true,
	"sessionId": true, "requestId": true, "isApiErrorMessage": true, "cache_read_input_tokens": true, "cache_creation_input_tokens": true}

var refPatNull = []byte(`":null`)

// ccusageValid reports whether ccusage counts the usage of line: it drops
// a line whose version is not of the form 1.2.3, whose sessionId,
// requestId, message id or model is an empty string, whose costUSD is not
// a number, or where one of the nullable members is null (written
// "key":null, as Claude Code writes JSON). Its totals are the truth mcpcost's equal, so such a line's usage
// is not counted either; its tool calls and results still are.
func refCcusageValid(line []byte, l *refClaudeLine) bool {
	if l.empty || l.mistyped || l.Message.empty || (l.hasVersion && !refSemverPrefix(l.Version)) {
		return false
	}
	for rest, off := line, 0; ; {
		i := bytes.Index(rest, refPatNull)
		if i < 0 {
			return true
		}
		if j := bytes.LastIndexByte(rest[:i], '"'); j >= 0 && refNullable[string(rest[j+1:i])] {
			return false
		}
		off += i + len(refPatNull)
		rest = line[off:]
	}
}

// semverPrefix reports whether v starts with digits.digits.digit.
func refSemverPrefix(v string) bool {
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
func refSyntheticError(l *refClaudeLine) bool {
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
var refLimitPhrase = []byte("Claude AI usage limit reached")

// maxLimitReset is the latest reset a placeholder may name, in seconds:
// its milliseconds fit in 64 bits (as ccusage reads it).
const refMaxLimitReset = math.MaxInt64 / 1000

// limitReset reads the reset time of a usage-limit placeholder from its
// message's content, as ccusage 20 does: in the content's JSON as written
// (escapes not decoded), after the first "Claude AI usage limit reached",
// the digits right after the first "|" are the reset's Unix seconds.
// It returns the reset in Unix milliseconds, or 0 for none (no phrase, no
// digits, 0, or past maxLimitReset).
func refLimitReset(content []byte) int64 {
	i := bytes.Index(content, refLimitPhrase)
	if i < 0 {
		return 0
	}
	rest := content[i+len(refLimitPhrase):]
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
		if secs > (refMaxLimitReset-int64(c-'0'))/10 {
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
// texts decoded through arena.
func refToolResults(content []byte, arena *refTextArena) []ToolResult {
	var rs []ToolResult
	for _, b := range refBlocks(content) {
		if b.Type == "tool_result" && b.ToolUseID != "" {
			r := ToolResult{ID: b.ToolUseID, IsError: b.IsError}
			refAddContent(&r, b.Content, arena)
			rs = append(rs, r)
		}
	}
	return rs
}

// blocks splits a message's content when it is an array of blocks,
// decoding only the members of interest.
func refBlocks(content []byte) []refClaudeBlock {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || content[0] != '[' {
		return nil
	}
	var bs []refClaudeBlock
	refSplitArray(content, func(v []byte) error {
		var b refClaudeBlock
		err := refSplitObject(v, func(key string, v []byte) error {
			var err error
			switch key {
			case "type":
				b.Type, err = refStr(key, v)
			case "id":
				b.ID, err = refStr(key, v)
			case "name":
				b.Name, err = refStr(key, v)
			case "tool_use_id":
				b.ToolUseID, err = refStr(key, v)
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

// str decodes a string member (null is "").
func refStr(key string, val []byte) (string, error) {
	if n := len(val); n >= 2 && val[0] == '"' && val[n-1] == '"' && bytes.IndexByte(val, '\\') < 0 && utf8.Valid(val) {
		return string(val[1 : n-1]), nil
	}
	if string(val) == "null" {
		return "", nil
	}
	if s, ok := refUnquote(val); ok {
		return s, nil
	}
	var s string
	err := refDecodeField(key, val, &s)
	return s, err
}

// Transcript lines are large (tool results, often twice: Claude Code
// repeats them in toolUseResult) and only a few of their fields matter.
// splitObject finds the top-level members of a line's object with a fast
// skipper (strings are crossed with IndexByte, not a byte-at-a-time state
// machine), so that only the members wanted are decoded. It checks the
// structure (strings closed, brackets balanced, one object); the members
// it skips are not otherwise validated.

var (
	errRefTruncated = errors.New("truncated JSON")
	errRefSyntax    = errors.New("invalid JSON")
)

// splitObject calls fn for every member of the object in b, with its key
// and its raw value.
func refSplitObject(b []byte, fn func(key string, val []byte) error) error {
	i := refSkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errRefNotObject
	}
	i = refSkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		if refSkipSpace(b, i+1) != len(b) {
			return errRefSyntax
		}
		return nil
	}
	for {
		if i >= len(b) {
			return errRefTruncated
		}
		if b[i] != '"' {
			return errRefSyntax
		}
		end, err := refSkipString(b, i)
		if err != nil {
			return err
		}
		rawKey := b[i:end]
		key := refKeyString(rawKey[1 : len(rawKey)-1])
		if !refPlainKey(rawKey) {
			if key, err = refDecodeKey(rawKey); err != nil {
				return errRefSyntax
			}
		}
		i = refSkipSpace(b, end)
		if i >= len(b) {
			return errRefTruncated
		}
		if b[i] != ':' {
			return errRefSyntax
		}
		i = refSkipSpace(b, i+1)
		vend, err := refSkipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(key, b[i:vend]); err != nil {
			return err
		}
		i = refSkipSpace(b, vend)
		if i >= len(b) {
			return errRefTruncated
		}
		switch b[i] {
		case ',':
			i = refSkipSpace(b, i+1)
		case '}':
			if refSkipSpace(b, i+1) != len(b) {
				return errRefSyntax
			}
			return nil
		default:
			return errRefSyntax
		}
	}
}

// keyString is a member's key as a string, without an allocation for the
// keys transcripts repeat on every line.
func refKeyString(k []byte) string {
	if s, ok := refCommonKeys[string(k)]; ok {
		return s
	}
	return string(k)
}

// commonKeys are the keys of Claude Code and Codex lines.
var refCommonKeys = map[string]string{}

func init() {
	for _, k := range []string{
		"type", "subtype", "sessionId", "timestamp", "cwd", "agentId", "requestId", "isSidechain", "message", "compactMetadata", "parentUuid", "uuid", "userType", "version", "gitBranch", "slug", "toolUseResult", "role", "id", "model", "content", "usage", "stop_reason", "stop_sequence", "name", "input", "tool_use_id", "is_error", "text", "thinking", "signature", "data", "source", "payload", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation", "ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens", "server_tool_use", "web_search_requests", "web_fetch_requests", "service_tier", "speed", "isCompactSummary", "leafUuid", "summary", "isMeta", "level",
	} {
		refCommonKeys[k] = k
	}
}

// decodeKey decodes a quoted key with escapes or non-ASCII bytes (apart,
// so that the usual key does not escape to the heap).
func refDecodeKey(raw []byte) (string, error) {
	var key string
	err := json.Unmarshal(raw, &key)
	return key, err
}

// plainKey reports whether a quoted key needs no decoding: ASCII without
// escapes.
func refPlainKey(k []byte) bool {
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// splitArray calls fn for every element of the array in b.
func refSplitArray(b []byte, fn func(val []byte) error) error {
	i := refSkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errRefSyntax
	}
	i = refSkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		if refSkipSpace(b, i+1) != len(b) {
			return errRefSyntax
		}
		return nil
	}
	for {
		end, err := refSkipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(b[i:end]); err != nil {
			return err
		}
		i = refSkipSpace(b, end)
		if i >= len(b) {
			return errRefTruncated
		}
		switch b[i] {
		case ',':
			i = refSkipSpace(b, i+1)
		case ']':
			if refSkipSpace(b, i+1) != len(b) {
				return errRefSyntax
			}
			return nil
		default:
			return errRefSyntax
		}
	}
}

func refSkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] ('"').
func refSkipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errRefTruncated
		}
		q := j + k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just past the value starting at b[i].
func refSkipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errRefTruncated
	}
	switch c := b[i]; {
	case c == '"':
		return refSkipString(b, i)
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := refSkipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
				if depth < 0 {
					return 0, errRefSyntax
				}
			}
		}
		return 0, errRefTruncated
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		lit := b[i:j]
		if c == 't' || c == 'f' || c == 'n' {
			if string(lit) != "true" && string(lit) != "false" && string(lit) != "null" {
				return 0, errRefSyntax
			}
		}
		return j, nil
	}
	return 0, errRefSyntax
}

// decodeField decodes one member's value, naming the member on error.
func refDecodeField(key string, val []byte, v any) error {
	if err := json.Unmarshal(val, v); err != nil {
		var ue *json.UnmarshalTypeError
		if errors.As(err, &ue) {
			// ue.Error() quotes numbers ("number 1e999"): name the kinds only.
			kind, _, _ := strings.Cut(ue.Value, " ")
			where := key
			if ue.Field != "" {
				where += "." + ue.Field
			}
			return errors.New("unexpected JSON: " + where + " is " + refArticle(kind) + ", want " + refJsonKind(ue.Type))
		}
		return errors.New("invalid JSON in " + key)
	}
	return nil
}

// jsonKind names the JSON value that decodes into t, for a user: "an
// object", "a number".
func refJsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another value"
}

// article puts "a" or "an" before a JSON kind ("an object").
func refArticle(kind string) string {
	if kind == "bool" {
		return "true or false"
	}
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// unquote decodes a JSON string (with its quotes) the way encoding/json
// does, quickly. It reports false for anything unusual (invalid UTF-8,
// control characters, bad escapes), which callers hand to encoding/json.
func refUnquote(b []byte) (string, bool) {
	out, ok := refAppendUnquote(make([]byte, 0, len(b)), b)
	if !ok {
		return "", false
	}
	// out is not used again: the string takes it over, as a
	// strings.Builder's String does.
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// appendUnquote appends the decoding of the JSON string b (with its
// quotes) to dst, as unquote decodes it, in one pass: runs of plain ASCII
// are copied whole, and each other byte is looked at once. On false,
// dst's bytes past len(dst) may have been written and the result is dst
// unchanged.
func refAppendUnquote(dst, b []byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return dst, false
	}
	orig := dst
	b = b[1 : len(b)-1]
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && !refUnquoteSpecial[b[j]] {
			j++
		}
		dst = append(dst, b[i:j]...)
		if j == len(b) {
			break
		}
		c := b[j]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				return orig, false
			}
			dst = append(dst, b[j:j+size]...)
			i = j + size
			continue
		}
		if c != '\\' || j+1 == len(b) {
			return orig, false // a control character or '"'; a lone backslash
		}
		switch b[j+1] {
		case '"', '\\', '/':
			dst = append(dst, b[j+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := refHex4(b[j+2:])
			if !ok {
				return orig, false
			}
			i = j + 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if r2, ok2 := refHex4(b[i+2:]); ok2 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							i += 6
							continue
						}
					}
				}
				dst = utf8.AppendRune(dst, utf8.RuneError)
				continue
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return orig, false
		}
		i = j + 2
	}
	return dst, true
}

// unquoteSpecial marks the bytes appendUnquote stops at: control
// characters, '"', the backslash and every byte of a multi-byte sequence.
var refUnquoteSpecial = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf
	}
	return t
}()

func refHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func refAddContent(r *ToolResult, content json.RawMessage, arena *refTextArena) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return
	}
	switch content[0] {
	case '"':
		if s, err := arena.text("content", content); err == nil {
			r.addText(s)
		}
		return
	case '[':
		refSplitArray(content, func(raw []byte) error {
			var typ, text string
			var hasText bool
			var data []byte
			err := refSplitObject(raw, func(key string, v []byte) error {
				var err error
				switch key {
				case "type":
					typ, err = refStr(key, v)
				case "text":
					hasText = len(v) > 0 && v[0] == '"'
					text, err = arena.text(key, v)
				case "data":
					data = v
				case "source":
					refSplitObject(v, func(key string, v []byte) error {
						if key == "data" {
							data = v
						}
						return nil
					})
				}
				return err
			})
			switch {
			case err != nil:
				r.addOther(raw)
			case typ == "text" && hasText:
				r.addText(text)
			case typ == "image":
				s, _ := refStr("data", data)
				r.NonText++
				r.EstimatedTokens += imageBlockTokens(s)
			default:
				r.addOther(raw)
			}
			return nil
		})
		return
	}
	r.addOther(content)
}
