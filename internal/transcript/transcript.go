// Package transcript reads the session transcripts that agents write as
// JSON Lines: Claude Code (~/.claude/projects/<project>/<session>.jsonl and
// its sub-agent files) and OpenAI Codex (~/.codex/sessions/YYYY/MM/DD/
// rollout-*.jsonl), and, read whole each time they change, Gemini CLI's
// chats (~/.gemini/tmp/<project>/chats/session-*.json or .jsonl: see
// ReadGemini) and opencode's messages, parts and database
// (~/.local/share/opencode/storage/, opencode.db: see ReadOpencodeFile and
// ReadOpencodeDB).
//
// Reading is streaming, one line at a time, from any byte offset: a caller
// that remembers how far it got reads only the new bytes next time. A final
// line without its newline is read when it is a whole JSON object (its
// writer stopped there), and left for the next read otherwise (its writer
// is mid-line). Parsers turn one line
// into a Record (requests with their token usage, tool calls, tool results,
// compaction markers) or skip it; a line that is not valid JSON is an error
// that names nothing but itself, and the caller reports the file and line.
//
// Lines that can carry neither usage nor tool data are recognised from their
// bytes and skipped without decoding, which is where most of the speed of
// ingestion comes from.
package transcript

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
	"unicode/utf8"
)

// Source names the agent that wrote a transcript.
type Source string

// Sources.
const (
	Claude Source = "claude"
	Codex  Source = "codex"
	// Copilot is GitHub Copilot CLI.
	Copilot Source = "copilot"
	// Goose is Block's Goose, whose sessions are in a SQLite database.
	Goose    Source = "goose"
	Gemini   Source = "gemini"
	Opencode Source = "opencode"
)

// Usage is the token usage of one model request, as the agent recorded it.
//
// For Claude Code, Input is the uncached input, CacheCreation the tokens
// written to the prompt cache (split into the 5-minute and 1-hour kinds
// when the transcript gives the split; otherwise all of it counts as
// 5-minute writes), CacheRead the tokens read from it.
//
// For Codex, Input is the uncached input (input_tokens minus
// cached_input_tokens), CacheRead the cached input, Output the
// output_tokens (which include Reasoning), and there are no cache writes.
type Usage struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheCreation int64 `json:"cacheCreation"`
	CacheWrite5m  int64 `json:"cacheWrite5m"`
	CacheWrite1h  int64 `json:"cacheWrite1h"`
	CacheRead     int64 `json:"cacheRead"`
	Reasoning     int64 `json:"reasoning,omitempty"`
	WebSearch     int64 `json:"webSearch,omitempty"`
	WebFetch      int64 `json:"webFetch,omitempty"`
}

// MaxTokens is the largest token count a line may record for one kind:
// 2^53−1, the largest integer a JSON number holds exactly in JavaScript
// (and so in ccusage). A line with a larger or a negative count is
// skipped and reported; sums of counts within this bound cannot wrap
// before about a thousand such lines, and readers add them saturating at
// the largest int64 (see usage.Tokens).
const MaxTokens = 1<<53 - 1

// MaxName is the longest name kept as written: a session id, an agent
// id, a working folder, a model, a tool's or a
// server's name. A reader carries some of them from line to line (the
// session, folder and model a line names, in its saved state too), and
// the store writes them into every row of a request or tool call: a
// longer name is shortened by BoundName, so that one line's bytes are
// not stored again for every line after it. 4 KiB keeps every path Linux
// and macOS allow (PATH_MAX) as written, so that a folder a user names
// (--project) matches the rows of its sessions.
const MaxName = 4096

// BoundName returns s when it is at most MaxName bytes long, and
// otherwise its first bytes (whole UTF-8 sequences) followed by "…" and
// the first 16 hex digits of its SHA-256: at most MaxName bytes, the
// same for the same s, and two long names that differ stay apart.
func BoundName(s string) string {
	if len(s) <= MaxName {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	suffix := "…" + hex.EncodeToString(sum[:8])
	cut := MaxName - len(suffix)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + suffix
}

// errTokens is a line's count outside [0, MaxTokens].
var errTokens = errors.New("a token count is negative or over 2^53-1")

// MaxCostUSD is the largest cost, in US dollars, that one request may
// record: $100,000, far above what any single model request costs (a
// million output tokens of the dearest model is under $100). A recorded
// cost that is negative, not finite or over this bound is not stored:
// the request is kept without it (priced as if none was recorded) and
// the line reported, and the store's queries ignore such a cost written
// before this check (see ValidCost).
const MaxCostUSD = 100_000

// ValidCost reports whether c is a cost one request may record: finite
// and within [0, MaxCostUSD].
func ValidCost(c float64) bool { return c >= 0 && c <= MaxCostUSD }

// errCost is a line's recorded cost outside [0, MaxCostUSD].
var errCost = errors.New("costUSD is negative or over $100,000; cost ignored")

// check reports a count outside [0, MaxTokens].
func (u Usage) check() error {
	for _, n := range [...]int64{u.Input, u.Output, u.CacheCreation, u.CacheWrite5m, u.CacheWrite1h, u.CacheRead, u.Reasoning, u.WebSearch, u.WebFetch} {
		if n < 0 || n > MaxTokens {
			return errTokens
		}
	}
	return nil
}

// Total is the sum of the four billed kinds: input, output, cache writes
// and cache reads.
func (u Usage) Total() int64 { return u.Input + u.Output + u.CacheCreation + u.CacheRead }

// A Request is one model request and its usage.
type Request struct {
	// MessageID is the API message id (msg_…); empty for Codex.
	MessageID string `json:"messageId,omitempty"`
	// RequestID is the API request id (req_…), when recorded.
	RequestID string `json:"requestId,omitempty"`
	// Session is the sessionId the line itself names, which a line copied
	// into a resumed session keeps (Claude Code). It is part of the
	// de-duplication key of a request recorded without a request id.
	Session string `json:"session,omitempty"`
	Model   string `json:"model"`
	Usage   Usage  `json:"usage"`
	// Speed is "fast" for fast-mode requests, when recorded.
	Speed string `json:"speed,omitempty"`
	// CostUSD is the cost Claude Code recorded in the line (costUSD), when
	// it did; nil otherwise.
	CostUSD *float64 `json:"costUSD,omitempty"`
	// Turn numbers Codex token counts within their session (1, 2, …).
	Turn int `json:"turn,omitempty"`
}

// A ToolCall is the model's call of one tool.
type ToolCall struct {
	// ID joins the call to its result (Claude's toolu_… id, Codex's call_id).
	ID string `json:"id"`
	// Name is the tool's name as the model saw it (mcp__github__search).
	Name string `json:"name"`
	Tool Tool   `json:"tool"`
	// Args is the arguments' JSON as written in the transcript. Callers
	// hash it and drop it: arguments are never stored.
	Args []byte `json:"-"`
}

// A ToolResult is what a tool returned to the model.
type ToolResult struct {
	ID      string `json:"id"`
	IsError bool   `json:"isError,omitempty"`
	// Texts are the text parts of the result, counted one by one.
	Texts []string `json:"-"`
	// Bytes is the size of the result's text parts in UTF-8.
	Bytes int `json:"bytes"`
	// NonText counts blocks that are not text (images, resources, tool
	// references); EstimatedTokens is their estimated token cost (see
	// EstimateBlock).
	NonText         int `json:"nonText,omitempty"`
	EstimatedTokens int `json:"estimatedTokens,omitempty"`
	// Spilled is set when the agent saved the full output to a file and
	// showed the model only a preview (Claude Code's tool-results/).
	Spilled bool `json:"spilled,omitempty"`
	// Tokens is the exact o200k_base count of Texts, filled in by Count.
	Tokens int `json:"tokens"`
	// DurationMs is how long the tool ran, when the transcript records it
	// (Codex's shell metadata and "Wall time"), in milliseconds.
	DurationMs *int64 `json:"durationMs,omitempty"`
}

// Count fills in r.Tokens with count over every text part.
func (r *ToolResult) Count(count func(string) int) {
	n := 0
	for _, t := range r.Texts {
		n += count(t)
	}
	r.Tokens = n
}

// A Compaction marks the point where the agent summarised the conversation
// to free the context window.
type Compaction struct {
	Trigger   string `json:"trigger,omitempty"`
	PreTokens int64  `json:"preTokens,omitempty"`
}

// A Record is what one line contributes. Lines that contribute nothing
// give no Record.
type Record struct {
	Time      time.Time `json:"time"`
	SessionID string    `json:"sessionId"`
	// AgentID names the sub-agent that wrote the line; empty for the main
	// conversation.
	AgentID string `json:"agentId,omitempty"`
	// Sidechain is Claude Code's isSidechain.
	Sidechain bool `json:"sidechain,omitempty"`
	// Cwd is the working directory the line was written in: the project.
	Cwd     string   `json:"cwd,omitempty"`
	Request *Request `json:"request,omitempty"`
	// More are further requests the line records, beside Request: a
	// Copilot CLI shutdown records one per model.
	More       []Request    `json:"more,omitempty"`
	Calls      []ToolCall   `json:"calls,omitempty"`
	Results    []ToolResult `json:"results,omitempty"`
	Compaction *Compaction  `json:"compaction,omitempty"`
	// LineSession is the sessionId the line names (Claude Code), "" when
	// it names none. Copied is set when that is another session than its
	// file's (SessionID): Claude Code copied the line into a resumed
	// session from the one it names.
	LineSession string `json:"-"`
	Copied      bool   `json:"copied,omitempty"`
	// MessageID and RequestID are the line's message and request ids,
	// whether or not its usage counts: a tool call is a copy of another
	// when the requests of their lines are (see the store).
	MessageID string `json:"-"`
	RequestID string `json:"-"`
	// UsageSkipped is set when the line has usage that is not counted,
	// because ccusage does not count it (see ClaudeParser). A line with
	// nothing else gives a Record with only this set.
	UsageSkipped bool `json:"usageSkipped,omitempty"`
	// LimitReset is when Claude's usage limit resets (Unix milliseconds),
	// on Claude Code's placeholder for a request refused at the limit
	// ("Claude AI usage limit reached|<epoch>"); 0 on any other line.
	LimitReset int64 `json:"limitReset,omitempty"`
	// Warning says what of the line was dropped while the rest is kept
	// (a recorded cost out of range); the caller reports it with the
	// file and line.
	Warning string `json:"warning,omitempty"`
}

// A Parser turns a transcript's lines into records, in file order.
type Parser interface {
	// ParseLine parses one line (without its newline). It returns nil and
	// no error for lines that carry nothing of interest, and nil and an
	// error for a line that is not a valid record.
	ParseLine(line []byte) (*Record, error)
}

// MaxLine is the longest line read; longer lines are skipped and reported.
const MaxLine = 256 << 20

// LongLineBudget bounds the bytes of long lines (over the 1 MiB line
// buffer) that all ScanLines calls of the process hold at once: a long
// line waits until the lines held before it are released, so that the
// workers of an ingest, however many, never hold more than this between
// them, or one line when a single line is longer. See ScanLines.
const LongLineBudget = 64 << 20

// ErrLineTooLong reports a line longer than MaxLine.
var ErrLineTooLong = errors.New("line too long")

// lineReaders are ScanLines' buffers, reused from file to file rather
// than allocated (and cleared) for each.
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, lineBuffer) }}

const lineBuffer = 1 << 20

// collectAfter is the length of a line after which the garbage collector
// runs: a few milliseconds, against about a second to read such a line.
const collectAfter = 16 << 20

// maxLine and longLines are MaxLine and the long lines' gate, variables
// for the tests of their bounds.
var (
	maxLine   int64 = MaxLine
	longLines       = newGate(LongLineBudget)
)

// ScanLines calls fn for every complete line of r, which starts at byte
// offset start of its file. It passes the line without its newline (and
// without a trailing carriage return), its number counted from firstLine,
// and the offset just past its newline. A final line without a newline is
// not passed: it may still be being written. ScanLines returns the offset
// after the last complete line and the number of lines passed.
//
// A line longer than MaxLine is passed as nil with ErrLineTooLong to fn's
// err argument, so that the caller can report it and go on. The line's
// bytes are reused once fn returns: fn copies what it keeps.
//
// # Memory
//
// Lines up to 1 MiB are passed from a reused buffer. A longer line is
// first read through to its end, then, when r is an io.ReaderAt whose
// offsets are the file's (an *os.File), read again into a buffer of its
// exact size: it costs its own length once. Such lines hold a share of
// LongLineBudget from then until fn returns, so that the long lines held
// at once by all the calls of the process add up to at most
// LongLineBudget, or to the one line when it is longer. When r is not an
// io.ReaderAt, a long line is gathered as it is read, holding the whole
// budget (one such line at a time, up to twice its length).
func ScanLines(r io.Reader, start int64, firstLine int, fn func(line []byte, lineNo int, end int64, err error) error) (int64, int, error) {
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		lineReaders.Put(br)
	}()
	ra, _ := r.(io.ReaderAt)
	off := start
	n := 0
	for {
		lineStart := off
		chunk, err := br.ReadSlice('\n')
		var held int64
		line := chunk
		length := int64(len(chunk))
		if err == bufio.ErrBufferFull {
			var long []byte
			if ra == nil {
				held = longLines.acquire(maxLine)
				long = append(long, chunk...)
			}
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				length += int64(len(chunk))
				if ra == nil && int64(len(long)+len(chunk)) <= maxLine {
					long = append(long, chunk...)
				}
			}
			line = long
		}
		if err == io.EOF {
			// A last line without its newline: passed when it is a whole
			// JSON object (its writer is done with it), else left for next
			// time (its writer is mid-line).
			if length == 0 || length > maxLine {
				longLines.release(held)
				return lineStart, n, nil
			}
			if length > int64(len(chunk)) && ra != nil {
				held = longLines.acquire(length)
				line = make([]byte, length)
				if _, err := ra.ReadAt(line, lineStart); err != nil {
					longLines.release(held)
					return lineStart, n, nil
				}
			}
			line = bytes.TrimRight(line, " \t\r")
			if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
				longLines.release(held)
				return lineStart, n, nil
			}
			off += length
			lineNo := firstLine + n
			n++
			err = fn(line, lineNo, off, nil)
			longLines.release(held)
			return off, n, err
		}
		if err != nil {
			longLines.release(held)
			return lineStart, n, err
		}
		off += length
		lineNo := firstLine + n
		n++
		if length > maxLine {
			longLines.release(held)
			if err := fn(nil, lineNo, off, ErrLineTooLong); err != nil {
				return off, n, err
			}
			continue
		}
		if length > int64(len(chunk)) && ra != nil {
			held = longLines.acquire(length)
			line = make([]byte, length)
			if _, err := ra.ReadAt(line, lineStart); err != nil || line[length-1] != '\n' {
				longLines.release(held)
				if err == nil {
					err = errors.New("the file changed while it was read")
				}
				return lineStart, n - 1, err
			}
		}
		line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
		err = fn(line, lineNo, off, nil)
		if length >= collectAfter {
			// What the line cost is garbage now: collect it before the
			// next long line is let in, rather than let the heap grow to
			// twice its size (GOGC) first.
			line = nil
			runtime.GC()
		}
		longLines.release(held)
		if err != nil {
			return off, n, err
		}
	}
}

// SkipNewline returns where reading r (an *os.File) goes on from offset,
// the end of the lines read before: past a newline (or CR LF) written there
// after a last line that was read without its newline. Elsewhere it is
// offset.
func SkipNewline(r io.ReaderAt, offset int64) int64 {
	if offset <= 0 {
		return offset
	}
	var b [3]byte
	n, _ := r.ReadAt(b[:], offset-1)
	switch {
	case n < 2 || b[0] == '\n':
		return offset
	case b[1] == '\n':
		return offset + 1
	case n == 3 && b[1] == '\r' && b[2] == '\n':
		return offset + 2
	}
	return offset
}

// A gate hands out shares of a byte budget in the order they are asked
// for. A request larger than the budget takes all of it.
type gate struct {
	mu      sync.Mutex
	budget  int64
	used    int64
	waiting []*gateWaiter
}

type gateWaiter struct {
	n     int64
	ready chan struct{}
}

func newGate(budget int64) *gate { return &gate{budget: budget} }

// acquire waits for n bytes of the budget and returns the share taken,
// to be given to release.
func (g *gate) acquire(n int64) int64 {
	n = min(n, g.budget)
	g.mu.Lock()
	if len(g.waiting) == 0 && g.used+n <= g.budget {
		g.used += n
		g.mu.Unlock()
		return n
	}
	w := &gateWaiter{n: n, ready: make(chan struct{})}
	g.waiting = append(g.waiting, w)
	g.mu.Unlock()
	<-w.ready
	return n
}

// release gives back a share taken by acquire (0 gives back nothing).
func (g *gate) release(n int64) {
	if n == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.used -= n
	for len(g.waiting) > 0 && g.used+g.waiting[0].n <= g.budget {
		w := g.waiting[0]
		g.waiting = g.waiting[1:]
		g.used += w.n
		close(w.ready)
	}
}

// A LineError is a line that could not be parsed.
type LineError struct {
	Path string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// MinTime and MaxTime bound the times a line may record: from 2000-01-01
// to 2100-01-01 (excluded), UTC. No agent wrote a transcript before 2000;
// a time from 2100 on is a broken clock or a forged line. A line whose
// time is outside them is skipped and reported, by every reader, so that
// no year of five digits (or below 1) reaches a period's key, and no
// block starts a lifetime away. The bound needs no clock: a time in the
// near future (a clock running fast) is kept, and blocks never call a
// block that starts after now active.
var (
	MinTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// errTimeRange is a line's time outside [MinTime, MaxTime).
var errTimeRange = errors.New("time out of range (before 2000-01-01 or from 2100-01-01 UTC)")

// checkTime returns t in UTC, or errTimeRange when it is outside
// [MinTime, MaxTime).
func checkTime(t time.Time) (time.Time, error) {
	if t.Before(MinTime) || !t.Before(MaxTime) {
		return time.Time{}, errTimeRange
	}
	return t.UTC(), nil
}

// parseTime reads an RFC 3339 timestamp within [MinTime, MaxTime). Its
// error never repeats the value: a line's values may be anything, secrets
// included.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("no timestamp")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, errors.New("bad timestamp (not RFC 3339)")
	}
	return checkTime(t)
}
