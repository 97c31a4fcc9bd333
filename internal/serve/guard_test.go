package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type boomIn struct {
	File string `json:"file"`
}

func (in boomIn) subject() string { return "file " + in.File }

// panicky is a server whose injected functions panic where the real tools
// call them (reading the environment, the clock), with one more tool that
// panics on its own, as a parser meeting an input it cannot handle would.
func panicky(t *testing.T) *mcp.Server {
	o := Options{
		Version: "test",
		Getenv:  func(k string) string { panic("injected: no environment") },
		Now:     func() time.Time { panic("injected: no clock") },
		DBPath:  t.TempDir() + "/usage.db",
	}
	srv := New(o)
	addTool(srv, &mcp.Tool{Name: "boom", InputSchema: &jsonschema.Schema{Type: "object"}}, func(_ context.Context, _ *mcp.CallToolRequest, in boomIn) (*mcp.CallToolResult, *AuditResult, error) {
		var members []int
		_ = members[:len(in.File)*100] // slice bounds out of range
		return nil, nil, nil
	})
	return srv
}

// TestPanicInHandler: a panic inside a tool handler is a tool error naming
// the tool, its input and where it failed; the server answers the next call,
// over stdio and over HTTP.
func TestPanicInHandler(t *testing.T) {
	cases := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"boom", map[string]any{"file": "tools.json"}, []string{"boom failed on file tools.json", "slice bounds out of range", "guard_test.go:"}},
		{toolAudit, map[string]any{"path": "cfg/.mcp.json"}, []string{`audit_config failed on config "cfg/.mcp.json"`, "injected: no environment"}},
		{toolUsage, map[string]any{"days": 3, "by": "tool"}, []string{"usage_summary failed on the usage of the last 3 days by tool", "injected: no clock"}},
		{toolSession, map[string]any{"session": "abc"}, []string{"reading transcripts into", "internal error: injected: no environment"}},
	}
	// session_tools meets the panic in the background read of the
	// transcripts (which first reads MCPCOST_STORE), which ends with an
	// error naming the store.
	check := func(t *testing.T, cs *mcp.ClientSession) {
		ctx := context.Background()
		for _, c := range cases {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("%s: %v (the server did not carry on)", c.tool, err)
			}
			text := resultText(res)
			t.Logf("%s: %s", c.tool, text)
			if !res.IsError {
				t.Errorf("%s: not a tool error: %s", c.tool, text)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("%s: %q does not say %q", c.tool, text, w)
				}
			}
			if err := cs.Ping(ctx, nil); err != nil {
				t.Fatalf("after %s: %v", c.tool, err)
			}
		}
	}

	t.Run("stdio", func(t *testing.T) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- panicky(t).Run(ctx, &StdioTransport{Reader: inR, Writer: outW}) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			t.Fatal(err)
		}
		check(t, cs)
		cs.Close()
		cancel()
		<-done
	})
	t.Run("http", func(t *testing.T) {
		h, err := handler(panicky(t), HTTPOptions{Token: "guard-test-token"})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		defer ts.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{"guard-test-token", http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		check(t, cs)
	})
}
