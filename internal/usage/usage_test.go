package usage_test

import (
	"bytes"
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
	"github.com/mcpcost/mcpcost/internal/usage"
)

var update = flag.Bool("update", false, "rewrite golden files")

func smallStore(t *testing.T) (*store.Store, *transcripttest.Manifest) {
	t.Helper()
	home := t.TempDir()
	m, err := transcripttest.Generate(home, transcripttest.Small())
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(filepath.Join(t.TempDir(), "usage.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Ingest(context.Background(), store.IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
	}); err != nil {
		t.Fatal(err)
	}
	return s, m
}

var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// TestByServer checks the per-server figures against the generator's own
// record of every call.
func TestByServer(t *testing.T) {
	s, m := smallStore(t)
	rep, err := usage.Build(context.Background(), s.DB(), usage.Options{By: "server", Location: time.UTC, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	type agg struct {
		calls, errors int
		tokens, max   int64
		latencies     []int64
	}
	want := map[string]*agg{}
	for _, c := range m.Calls {
		server := transcript.ParseToolName(c.Name).Server
		a := want[server]
		if a == nil {
			a = &agg{}
			want[server] = a
		}
		a.calls++
		if c.IsError {
			a.errors++
		}
		n := int64(0)
		for _, tx := range c.Texts {
			n += int64(token.O200k().Count(tx))
		}
		a.tokens += n
		a.max = max(a.max, n)
		a.latencies = append(a.latencies, c.Latency.Milliseconds())
	}
	if len(rep.Tools) != len(want) {
		t.Errorf("%d server rows, want %d", len(rep.Tools), len(want))
	}
	nearest := func(v []int64, p float64) int64 {
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[int(math.Ceil(p*float64(len(v))))-1]
	}
	total := 0
	for _, r := range rep.Tools {
		w := want[r.Server]
		if w == nil {
			t.Errorf("unexpected server %q", r.Server)
			continue
		}
		total += r.Calls
		if r.Calls != w.calls || r.Errors != w.errors || r.ResultTokens != w.tokens || r.MaxResultTokens != w.max {
			t.Errorf("%q: calls %d errors %d tokens %d max %d; want %d %d %d %d", r.Server, r.Calls, r.Errors, r.ResultTokens, r.MaxResultTokens, w.calls, w.errors, w.tokens, w.max)
		}
		if r.LatencyP50Ms == nil || *r.LatencyP50Ms != nearest(w.latencies, 0.5) || *r.LatencyP95Ms != nearest(w.latencies, 0.95) {
			t.Errorf("%q: latency p50 %v p95 %v, want %d %d", r.Server, *r.LatencyP50Ms, *r.LatencyP95Ms, nearest(w.latencies, 0.5), nearest(w.latencies, 0.95))
		}
		if r.BuiltIn != (r.Server == "") {
			t.Errorf("%q: builtIn %v", r.Server, r.BuiltIn)
		}
	}
	if total != len(m.Calls) || rep.Totals.ToolCalls != len(m.Calls) {
		t.Errorf("%d calls in rows, %d in totals, want %d", total, rep.Totals.ToolCalls, len(m.Calls))
	}
	// MCP servers first, then the built-in tools.
	if last := rep.Tools[len(rep.Tools)-1]; !last.BuiltIn {
		t.Errorf("the built-in tools are not last: %+v", last)
	}
}

// TestGolden renders reports of the small tree in every form.
func TestGolden(t *testing.T) {
	s, _ := smallStore(t)
	for _, tc := range []struct {
		name string
		o    usage.Options
		form string
	}{
		{"server", usage.Options{By: "server"}, "text"},
		{"tool", usage.Options{By: "tool"}, "markdown"},
		{"day", usage.Options{By: "day"}, "text"},
		{"session", usage.Options{By: "session", Source: "claude"}, "text"},
		{"model", usage.Options{By: "model"}, "json"},
		{"project", usage.Options{By: "project", Project: "infra"}, "text"},
		{"period", usage.Options{By: "day", Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}, "text"},
		{"tz", usage.Options{By: "day", Location: time.FixedZone("UTC+9", 9*3600)}, "text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Now = fixedNow
			if o.Location == nil {
				o.Location = time.UTC
			}
			rep, err := usage.Build(context.Background(), s.DB(), o)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			switch tc.form {
			case "text":
				err = rep.WriteText(&b)
			case "markdown":
				err = rep.WriteMarkdown(&b)
			case "json":
				err = render.JSON(&b, rep)
			}
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "report_"+tc.name+".golden")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("differs from %s (-update to rewrite):\n%s", golden, b.String())
			}
		})
	}
}

func TestBuildRejectsUnknownGrouping(t *testing.T) {
	s, _ := smallStore(t)
	if _, err := usage.Build(context.Background(), s.DB(), usage.Options{By: "color"}); err == nil || !strings.Contains(err.Error(), "color") {
		t.Errorf("err = %v", err)
	}
}
