// Package mcpclient measures live MCP servers: it launches a stdio server or
// connects to a Streamable HTTP or legacy HTTP+SSE endpoint, negotiates
// either protocol era (initialize, or server/discover for 2026-07-28), and
// records the raw bytes of every result that costs context: the
// initialize (or discover) result with its instructions, and every page of
// tools/list, prompts/list, resources/list and resources/templates/list.
//
// The go-sdk does the transports, negotiation, pings and server-to-client
// requests; this package taps the bytes underneath it (stdout lines for
// stdio, response bodies and SSE events for HTTP), because the SDK's typed
// values drop unknown fields and key order and the measurement must come
// from what the server sent.
//
// A stdio server is started without a shell, in its own process group,
// with only PATH and HOME from mcpcost's environment plus Target.Env (as
// the published methodology does). Lines on its stdout that are not
// JSON-RPC are skipped and counted; notifications are counted and not
// handed to the SDK. When a capture ends (its session over, or the budget
// spent), the server is stopped within Options.KillGrace: its stdin is
// closed, its process group gets SIGTERM a quarter of KillGrace later and
// SIGKILL at the end of KillGrace, and SIGKILL again once the server has
// exited. On Linux mcpcost is also a child subreaper, and every process the
// server detached from its group is killed and reaped (reap_linux.go), so
// no descendant outlives the measurement.
//
// Options.Timeout bounds the whole measurement of a target, both captures
// and any relaunch included.
//
// Failures are classified from structured signals only: exit status, HTTP
// status with WWW-Authenticate and OAuth protected-resource metadata,
// JSON-RPC error codes and deadlines. Never from words in a message.
//
// Secrets: Target.Env and Target.Headers values are used to launch and
// connect and appear in no other field of a Result; stderr, error texts
// and warnings go through package redact's scrubber of the target (its env
// and header values, Target.Secrets, the secrets of its arguments and URL,
// and secrets by their shape).
package mcpclient

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/status"
)

// Target is one server to measure: a stdio command or an HTTP URL.
type Target struct {
	Name string // display name (config key or derived)

	// stdio
	Command string
	Args    []string
	Env     map[string]string // values are secrets
	Cwd     string

	// HTTP
	URL     string
	Headers map[string]string // values are secrets

	// Secrets are other secret values of the launch (the values of
	// variables expanded into Args or URL), scrubbed like those of Env.
	Secrets []string
	// Placeholders are values of Env or Headers that are no secrets (a
	// sweep's dummy values and fresh HOME): never scrubbed.
	Placeholders []string

	// In-process: a go-sdk server in this process, connected over a pair
	// of pipes (no launch). Each capture is a session of its own.
	Server *mcp.Server

	// Transport is "", "stdio", "http" (Streamable HTTP, falling back to
	// the legacy HTTP+SSE transport when the server only speaks that),
	// "sse" (legacy HTTP+SSE only) or "memory" (Server, in process). ""
	// picks memory for a Server, stdio for a Command and http for a URL.
	Transport string
}

// Defaults for Options; a zero field means its default.
const (
	DefaultTimeout          = 60 * time.Second
	DefaultMaxResponseBytes = 16 << 20 // one JSON-RPC message
	DefaultMaxCaptureBytes  = 64 << 20 // all results of one capture together
	DefaultMaxPages         = 100      // per list method
	DefaultMaxTools         = 10000
	DefaultMaxStderrBytes   = 64 << 10 // kept from the end of stderr
	DefaultKillGrace        = 2 * time.Second
)

// DiscoverShare is the share of the budget a server may take to answer
// server/discover (1/DiscoverShare of Options.Timeout): one that has not
// answered by then is taken for a legacy server that ignores the request,
// and the measurement goes on with the initialize handshake on the same
// connection, so that a server still starting up loses nothing.
const DiscoverShare = 4

// Options tune a measurement.
type Options struct {
	// Timeout bounds the whole measurement of one target: both captures,
	// every launch or connection, the start-up of a stdio server, each
	// request and each write to its stdin, and the ending of its processes
	// but for KillGrace. A slow request may use all that is left of it;
	// nothing is retried. Default DefaultTimeout.
	Timeout time.Duration
	// ProtocolVersion is sent in initialize or server/discover; "" lets the
	// SDK negotiate (server/discover at 2026-07-28 first, then initialize at
	// 2025-11-25).
	ProtocolVersion string
	// Once skips the second capture.
	Once bool
	// Relist asks tools/list a second time in the same session, after the
	// first list, and keeps its pages in Capture.RelistPages: a server whose
	// list changes from one call to the next is then told apart without a
	// second launch. (A server whose list changes only from one launch to
	// the next needs the second capture.)
	Relist bool
	// Progress is told of MeasureAll's steps: once before any target
	// starts (Done 0), then once per finished target; may be nil.
	Progress func(Step)
	// ClientVersion is sent as clientInfo.version ("" = "dev").
	ClientVersion string

	MaxResponseBytes int // largest accepted message; default DefaultMaxResponseBytes
	MaxCaptureBytes  int // all results of one capture; default DefaultMaxCaptureBytes
	MaxPages         int // pages per list method; default DefaultMaxPages
	MaxTools         int // tools over all pages; default DefaultMaxTools
	MaxStderrBytes   int // stderr kept; default DefaultMaxStderrBytes

	// KillGrace bounds the stop of a capture, counted from the end of its
	// session or of the budget, whichever comes first. A stdio server has
	// its stdin closed, gets SIGTERM (its process group) a quarter of
	// KillGrace later and SIGKILL at the end of KillGrace, and the capture
	// returns as soon as the killed processes are reaped. An HTTP or
	// in-process session has KillGrace to close (an HTTP session's DELETE)
	// before its requests are cut. Default DefaultKillGrace.
	KillGrace time.Duration
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.MaxCaptureBytes <= 0 {
		o.MaxCaptureBytes = DefaultMaxCaptureBytes
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.MaxTools <= 0 {
		o.MaxTools = DefaultMaxTools
	}
	if o.MaxStderrBytes <= 0 {
		o.MaxStderrBytes = DefaultMaxStderrBytes
	}
	if o.KillGrace <= 0 {
		o.KillGrace = DefaultKillGrace
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	return o
}

// Capture is what one launch (or one HTTP session) returned, as raw bytes.
type Capture struct {
	ProtocolVersion string          // negotiated
	Transport       string          // "stdio", "http" or "sse": what was actually used
	Initialize      json.RawMessage // raw result of initialize (or of server/discover)
	ServerName      string
	ServerVersion   string
	Instructions    *string // nil = none sent

	ToolsPages             []json.RawMessage // raw result of each tools/list page, in order
	RelistPages            []json.RawMessage // with Options.Relist: the pages of the second tools/list of the session
	PromptsPages           []json.RawMessage // nil when the capability is absent or the call failed
	ResourcesPages         []json.RawMessage
	ResourceTemplatesPages []json.RawMessage

	SkippedStdoutLines int      // non-JSON-RPC lines on stdout, skipped
	Warnings           []string // what was odd but not fatal; never a secret
	Elapsed            time.Duration
}

// Tools returns the concatenated tools arrays of all pages, each element as
// the raw bytes the server sent.
func (c *Capture) Tools() []json.RawMessage {
	var all []json.RawMessage
	for _, p := range c.ToolsPages {
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(p, &page) == nil {
			all = append(all, page.Tools...)
		}
	}
	return all
}

// Status classifies a result; the names and what they mean belong to
// package status.
type Status = status.Status

// The statuses this package reports (StatusDynamic is set by the measure
// package when two captures differ; this package reports StatusMeasured
// for any success).
const (
	StatusMeasured       = status.Measured
	StatusDynamic        = status.Dynamic
	StatusAuthRequired   = status.AuthRequired
	StatusRemoteAuthWall = status.RemoteAuthWall
	StatusStartupFailure = status.StartupFailure
	StatusTimeout        = status.Timeout
	StatusProtocolError  = status.ProtocolError
	StatusCancelled      = status.Cancelled
)

// Result is the outcome of measuring one target.
type Result struct {
	Target     Target // as given; callers must not print secret values
	Status     Status
	Detail     string // why, for failures; never a secret
	StderrTail string // last lines of stderr (secrets redacted); for failures
	// First and Second are the two captures; both are nil unless the target
	// was captured (Status measured), and Second is nil with Options.Once.
	First   *Capture
	Second  *Capture
	Elapsed time.Duration
}

// OK reports whether the target was captured.
func (r Result) OK() bool { return r.Status.OK() }

// Measure captures a target twice (two launches for stdio, two sessions for
// HTTP; once with Options.Once), within Options.Timeout in all. The first
// failure decides the status. It returns when every process it started,
// with all its descendants, is gone.
func Measure(ctx context.Context, t Target, o Options) Result {
	o = o.withDefaults()
	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, o.Timeout, errMeasureBudget)
	res := measureOnce(ctx, t, o)
	cancel()
	res.Target = t
	res.Elapsed = time.Since(start)
	s := t.Scrubber()
	res.Detail = s.String(res.Detail)
	res.StderrTail = s.String(res.StderrTail)
	for _, c := range []*Capture{res.First, res.Second} {
		if c != nil {
			s.Strings(c.Warnings)
		}
	}
	return res
}

func measureOnce(ctx context.Context, t Target, o Options) Result {
	var res Result
	first, f := captureTarget(ctx, t, o)
	if f != nil {
		res.Status, res.Detail, res.StderrTail = f.status, f.detail, f.stderrTail
		return res
	}
	res.First = first
	if !o.Once {
		// The second capture speaks the era the first one settled on.
		o2 := o
		if o2.ProtocolVersion == "" {
			o2.ProtocolVersion = legacyProtocolVersion
			if first.ProtocolVersion >= modernProtocolVersion {
				o2.ProtocolVersion = modernProtocolVersion
			}
		}
		second, f := captureTarget(ctx, t, o2)
		if f != nil {
			res.Status, res.Detail, res.StderrTail = f.status, "second capture: "+f.detail, f.stderrTail
			res.First = nil
			return res
		}
		res.Second = second
	}
	res.Status = StatusMeasured
	return res
}

// measureHook, when set by a test, runs around each measurement of
// MeasureAll.
var measureHook func() (done func())

// A Step is MeasureAll's progress: Done of Total targets measured, and
// the one that just finished (its name without any secret, its status and
// time); Done is 0 once, before any target starts.
type Step struct {
	Done, Total int
	Name        string
	Status      Status
	Elapsed     time.Duration
}

// DefaultConcurrency is MeasureAll's default: a small multiple of the cores.
func DefaultConcurrency() int { return 2 * runtime.NumCPU() }

// MeasureAll measures targets with at most concurrency at once (<= 0 means
// DefaultConcurrency). Results are in input order. When o.Progress is set,
// it is told of the start and of each finished target.
func MeasureAll(ctx context.Context, ts []Target, o Options, concurrency int) []Result {
	if concurrency <= 0 {
		concurrency = DefaultConcurrency()
	}
	results := make([]Result, len(ts))
	if o.Progress != nil && len(ts) > 0 {
		o.Progress(Step{Total: len(ts)})
	}
	sem := make(chan struct{}, concurrency)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for i, t := range ts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if measureHook != nil {
				defer measureHook()()
			}
			r := Measure(ctx, t, o)
			results[i] = r
			if o.Progress != nil {
				mu.Lock()
				done++
				o.Progress(Step{Done: done, Total: len(ts), Name: displayName(t), Status: r.Status, Elapsed: r.Elapsed})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return results
}

// displayName names a target without any secret: its Name, else the command
// base name, else the URL's host.
func displayName(t Target) string {
	if t.Name != "" {
		return t.Name
	}
	if t.Command != "" {
		return baseName(t.Command)
	}
	return redactURL(t.URL)
}
