package findings

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// BenchmarkCompute times the findings over a generated store of about
// 20 MB of transcripts.
func BenchmarkCompute(b *testing.B) {
	dir := b.TempDir()
	o := transcripttest.Small()
	o.Sessions, o.Codex, o.Projects, o.Days, o.TotalBytes, o.Defects, o.KeepTexts = 200, 20, 8, 30, 20<<20, false, false
	if _, err := transcripttest.Generate(dir, o); err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "usage.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Ingest(context.Background(), store.IngestOptions{ClaudeRoots: []string{filepath.Join(dir, ".claude", "projects")},
		CodexRoots: []string{filepath.Join(dir, ".codex", "sessions")}, Count: token.O200k().Count}); err != nil {
		b.Fatal(err)
	}
	var r *Report
	for b.Loop() {
		if r, err = Compute(context.Background(), st, nil, Options{Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	if r.Window.Requests == 0 || r.Window.ToolCalls == 0 {
		b.Fatalf("nothing ingested: %+v", r.Window)
	}
	b.ReportMetric(float64(r.Window.Requests), "requests")
	b.ReportMetric(float64(r.Window.ToolCalls), "calls")
}
