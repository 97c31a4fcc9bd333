package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mcpcost/mcpcost/internal/token"
)

// BenchmarkFirstIngest ingests, into a new store each time, the home
// named by MCPCOST_BENCH_HOME (bench/ingest/run.sh generates one), with
// MCPCOST_BENCH_WORKERS readers (default: one per CPU).
func BenchmarkFirstIngest(b *testing.B) {
	home := os.Getenv("MCPCOST_BENCH_HOME")
	if home == "" {
		b.Skip("MCPCOST_BENCH_HOME names no generated home")
	}
	for b.Loop() {
		s, err := Open(filepath.Join(b.TempDir(), "usage.db"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Ingest(context.Background(), IngestOptions{
			ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
			CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
			Count:       token.O200k().Count,
			Workers:     benchWorkers(),
		}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func benchWorkers() int {
	n, _ := strconv.Atoi(os.Getenv("MCPCOST_BENCH_WORKERS"))
	return n
}
