package serve

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/app"
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

// events is an app.Progress for one call: each event a notification
// worded as the command line words it, a step when steps is set and the
// event ends a unit of work (a server measured), a throttled note
// otherwise.
func (p *progress) events(steps bool) app.Progress {
	return func(e app.ProgressEvent) {
		if steps && e.Phase == app.PhaseStep && e.Work == app.WorkMeasure {
			p.step(e.String())
			return
		}
		p.note(e.String())
	}
}
