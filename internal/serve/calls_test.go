package serve

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectServer connects a real go-sdk client to srv in process.
func connectServer(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// TestCallLimit: of the tool calls sent at once, MaxRunningCalls run,
// MaxWaitingCalls wait and run as places free up, and the rest are
// answered at once with a tool error starting "busy:". The tool blocks
// until the test releases it, so that no call ends early.
func TestCallLimit(t *testing.T) {
	srv := New(withDefaults(Options{Version: "test", Getenv: func(string) string { return "" }}))
	const over = 5
	total := MaxRunningCalls + MaxWaitingCalls + over
	release := make(chan struct{})
	started := make(chan struct{}, total+1)
	var running, most atomic.Int32
	mcp.AddTool(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return textResult("done"), nil, nil
	})
	cs := connectServer(t, srv)
	// Released before the session closes (cleanups run last first), so
	// that a failure does not leave calls blocked.
	releaseAll := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseAll)

	type outcome struct {
		text          string
		isError, busy bool
		err           error
	}
	outcomes := make(chan outcome, total)
	var wg sync.WaitGroup
	for range total {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
			if err != nil {
				outcomes <- outcome{err: err}
				return
			}
			text := resultText(res)
			outcomes <- outcome{text: text, isError: res.IsError, busy: res.IsError && strings.HasPrefix(text, "busy: ")}
		}()
	}
	// Nothing ends before the release: the calls over the bounds are
	// the only answers, and they come at once; MaxRunningCalls start.
	timeout := time.After(30 * time.Second)
	for busy, run := 0, 0; busy < over || run < MaxRunningCalls; {
		select {
		case o := <-outcomes:
			if !o.busy {
				t.Fatalf("a call answered before any was released, not busy: %+v", o)
			}
			busy++
		case <-started:
			if run++; run > MaxRunningCalls {
				t.Fatalf("%d calls run at once, want at most %d", run, MaxRunningCalls)
			}
		case <-timeout:
			t.Fatalf("within 30 s, %d of %d calls over the bounds were answered busy, and %d calls started", busy, over, run)
		}
	}
	releaseAll()
	wg.Wait()
	close(outcomes)
	done := 0
	for o := range outcomes {
		if o.err != nil || o.isError || o.text != "done" {
			t.Errorf("a call held or waiting: %+v", o)
			continue
		}
		done++
	}
	if done != MaxRunningCalls+MaxWaitingCalls {
		t.Errorf("%d calls done, want %d", done, MaxRunningCalls+MaxWaitingCalls)
	}
	if n := most.Load(); n != MaxRunningCalls {
		t.Errorf("%d calls ran at once, want %d", n, MaxRunningCalls)
	}

	// The places are free again.
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("a call after the others ended: %v %v", err, res)
	}
}
