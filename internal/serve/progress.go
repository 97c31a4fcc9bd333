package serve

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// progress sends progress notifications for one call, when the call
// carries a progress token; otherwise it does nothing.
type progress struct {
	ctx   context.Context
	req   *mcp.CallToolRequest
	token any
	total float64

	mu    sync.Mutex
	n     float64
	last  time.Time
	every time.Duration
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest, total int) *progress {
	p := &progress{ctx: ctx, req: req, total: float64(total), every: 200 * time.Millisecond}
	if req != nil && req.Params != nil && req.Session != nil {
		p.token = req.Params.GetProgressToken()
	}
	return p
}

// step reports one more unit of work done, with a message.
func (p *progress) step(msg string) {
	if p == nil || p.token == nil {
		return
	}
	p.mu.Lock()
	p.n++
	n := p.n
	p.last = time.Now()
	p.mu.Unlock()
	p.send(n, msg)
}

// note reports a message without advancing, at most every p.every.
func (p *progress) note(msg string) {
	if p == nil || p.token == nil {
		return
	}
	p.mu.Lock()
	if time.Since(p.last) < p.every {
		p.mu.Unlock()
		return
	}
	p.last = time.Now()
	n := p.n
	p.mu.Unlock()
	p.send(n, msg)
}

func (p *progress) send(n float64, msg string) {
	params := &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: n, Message: textsafe.Text(msg)}
	if p.total > 0 && n <= p.total {
		params.Total = p.total
	}
	// A client that went away is not an error of the call.
	_ = p.req.Session.NotifyProgress(p.ctx, params)
}

// lines is an io.Writer for progress lines ("\n"-terminated steps, or
// "\r"-updated status): each complete line becomes a notification, a step
// when steps is set, a throttled note otherwise.
func (p *progress) lines(steps bool) *progressWriter {
	return &progressWriter{p: p, steps: steps}
}

type progressWriter struct {
	p     *progress
	steps bool
	mu    sync.Mutex
	buf   []byte
}

func (w *progressWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexAny(w.buf, "\r\n")
		if i < 0 {
			break
		}
		line := strings.TrimSpace(strings.TrimPrefix(string(w.buf[:i]), "mcpcost: "))
		w.buf = w.buf[i+1:]
		if line == "" {
			continue
		}
		if w.steps {
			w.p.step(line)
		} else {
			w.p.note(line)
		}
	}
	if len(w.buf) > 4096 {
		w.buf = w.buf[:0]
	}
	return len(b), nil
}
