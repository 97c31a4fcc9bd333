package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// lastClaude is the time of the fixture's last Claude Code request.
func (f *fixture) lastClaude() time.Time {
	var last time.Time
	for _, r := range f.manifest.Requests {
		if r.Source == "claude" && r.Time.After(last) {
			last = r.Time
		}
	}
	return last
}

// TestBlocksTool: the blocks tool's arguments are the blocks command's
// flags, its result the blocks report of the store, with an active block
// when the clock is within five hours of the last request.
func TestBlocksTool(t *testing.T) {
	f := newFixture(t, true)
	now := f.lastClaude().Add(40 * time.Minute)
	f.opts.Now = func() time.Time { return now }
	cs, _ := connect(t, f.opts)

	var all usage.BlocksReport
	text := call(t, cs, toolBlocks, nil, &all)
	st, err := store.Open(f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	want, err := usage.Blocks(context.Background(), st, usage.BlocksOptions{Now: now, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(all)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(got, wantJSON) {
		t.Errorf("blocks:\n got %s\nwant %s", got, wantJSON)
	}
	active := all.Blocks[len(all.Blocks)-1]
	if all.Schema != usage.BlocksSchema || len(all.Blocks) < 2 || !active.IsActive || active.BurnRate == nil || active.Projection == nil {
		t.Fatalf("blocks: %s", got)
	}
	if !strings.Contains(text, " (active): ") || !strings.Contains(text, "burn rate") {
		t.Errorf("blocks text:\n%s", text)
	}

	// A token limit as a number or a string, max, the session length, the
	// active block alone, newest first.
	for _, tc := range []struct {
		args  map[string]any
		check func(r *usage.BlocksReport) bool
	}{
		{map[string]any{"token_limit": 1000}, func(r *usage.BlocksReport) bool {
			b := r.Blocks[len(r.Blocks)-1]
			return *r.TokenLimit == 1000 && b.TokenLimitStatus != nil && b.TokenLimitStatus.Status == "exceeds"
		}},
		{map[string]any{"token_limit": "1000000000"}, func(r *usage.BlocksReport) bool {
			return *r.TokenLimit == 1e9 && r.Blocks[len(r.Blocks)-1].TokenLimitStatus.Status == "ok"
		}},
		{map[string]any{"token_limit": "max", "active": true}, func(r *usage.BlocksReport) bool {
			return r.ActiveOnly && len(r.Blocks) == 1 && r.TokenLimit != nil && r.Blocks[0].TokenLimitStatus != nil
		}},
		{map[string]any{"session_length": 2.5}, func(r *usage.BlocksReport) bool {
			b := r.Blocks[0]
			return r.LengthHours == 2.5 && b.EndTime.Sub(b.StartTime) == 150*time.Minute
		}},
		{map[string]any{"order": "desc", "recent": true, "mode": "calculate"}, func(r *usage.BlocksReport) bool {
			for _, b := range r.Blocks {
				if b.StartTime.Before(now.Add(-72 * time.Hour)) {
					return false
				}
			}
			return r.Mode == "calculate" && r.Blocks[0].IsActive
		}},
	} {
		var r usage.BlocksReport
		call(t, cs, toolBlocks, tc.args, &r)
		if len(r.Blocks) == 0 || !tc.check(&r) {
			js, _ := json.Marshal(r)
			t.Errorf("blocks %v: %s", tc.args, js)
		}
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"token_limit": 1.5}, `token_limit must be a number of tokens or "max", not 1.5`},
		{map[string]any{"token_limit": "lots"}, `token_limit must be a number of tokens from 1 to 9007199254740991, or max (the most a finished block used), not "lots"`},
		{map[string]any{"token_limit": true}, `token_limit must be a number of tokens or "max", not true`},
		{map[string]any{"session_length": -1}, "session_length must be a number of hours from 0.0003 (a second) to 8760, not -1"},
		{map[string]any{"order": "up"}, `order must be asc or desc, not "up"`},
		{map[string]any{"mode": "guess"}, "mode must be one of auto, calculate, display"},
		{map[string]any{"active": true, "recent": true}, "active and recent exclude each other"},
		{map[string]any{"days": -1}, "days must be from 0 (all history) to 36525"},
		{map[string]any{"project": "x"}, "project"},
	} {
		if msg := callErr(t, cs, toolBlocks, tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("blocks %v: %q, want it to mention %q", tc.args, msg, tc.want)
		}
	}
}

// TestBlocksBinary runs the built binary's blocks tool over stdio and over
// HTTP on a home with transcripts, and requires the same report as
// "mcpcost blocks --json" on the store it read them into (but for the
// moment each was made).
func TestBlocksBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpcost")
	}
	f := newFixture(t, true)
	bin := build(t, "cmd/mcpcost")
	env := append(os.Environ(), "HOME="+f.home, "XDG_CACHE_HOME="+f.cache, "XDG_DATA_HOME="+filepath.Join(f.home, "data"), "TZ=UTC", "MCPCOST_TEST_TOKEN=canary-blocks-token")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := map[string]any{"token_limit": "max", "order": "desc"}

	cmd := exec.Command(bin, "serve")
	cmd.Dir, cmd.Env = f.project, env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var overStdio map[string]any
	call(t, cs, toolBlocks, args, &overStdio)
	cs.Close()

	cli := exec.Command(bin, "blocks", "--json", "--no-ingest", "--token-limit", "max", "--order", "desc")
	cli.Dir, cli.Env = f.project, env
	out, err := cli.Output()
	if err != nil {
		t.Fatalf("mcpcost blocks --json: %v", err)
	}
	var want map[string]any
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	if bl, _ := want["blocks"].([]any); len(bl) < 2 {
		t.Fatalf("mcpcost blocks --json: %s", out)
	}
	sameReport := func(how string, got map[string]any) {
		t.Helper()
		delete(got, "generatedAt")
		w := map[string]any{}
		for k, v := range want {
			w[k] = v
		}
		delete(w, "generatedAt")
		g, _ := json.Marshal(got)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(g, wj) {
			t.Errorf("blocks over %s:\n got %s\nwant %s", how, g, wj)
		}
	}
	sameReport("stdio", overStdio)

	srv := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--token-env", "MCPCOST_TEST_TOKEN")
	srv.Dir, srv.Env = f.project, env
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatalf("no line on stderr: %v", lines.Err())
	}
	go io.Copy(io.Discard, stderr)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp) `).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("stderr: %q", lines.Text())
	}
	hs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: m[1], HTTPClient: &http.Client{Transport: bearer{"canary-blocks-token", http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	var overHTTP map[string]any
	call(t, hs, toolBlocks, args, &overHTTP)
	sameReport("HTTP", overHTTP)
}
