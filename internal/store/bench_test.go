package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/testpeers"
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

// BenchmarkRerun ingests the home named by MCPCOST_BENCH_HOME once, then
// times ingests that find nothing new.
func BenchmarkRerun(b *testing.B) {
	home := os.Getenv("MCPCOST_BENCH_HOME")
	if home == "" {
		b.Skip("MCPCOST_BENCH_HOME names no generated home")
	}
	s, err := Open(filepath.Join(b.TempDir(), "usage.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	o := IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
		Workers:     benchWorkers(),
	}
	if _, err := s.Ingest(context.Background(), o); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		st, err := s.Ingest(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if st.FilesRead != 0 {
			b.Fatalf("a re-run read %d files", st.FilesRead)
		}
	}
}

// BenchmarkPush ingests the home named by MCPCOST_BENCH_HOME once, then
// times pushes of the store into a new database of the test PostgreSQL
// server each time (a first push; compare with BenchmarkFirstIngest).
func BenchmarkPush(b *testing.B) {
	home := os.Getenv("MCPCOST_BENCH_HOME")
	if home == "" {
		b.Skip("MCPCOST_BENCH_HOME names no generated home")
	}
	server, err := testpeers.PostgresServer()
	if err != nil {
		b.Skip(err)
	}
	s, err := Open(filepath.Join(b.TempDir(), "usage.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Ingest(context.Background(), IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
		Workers:     benchWorkers(),
	}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		u, drop, err := testpeers.PostgresDatabase(server)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Push(context.Background(), u, PushOptions{Machine: "bench", User: "bench"}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		drop()
		b.StartTimer()
	}
}

// BenchmarkPushMirror ingests the home named by MCPCOST_BENCH_HOME once,
// then, into a new database each time, pushes it twice (a first push, and
// one that finds nothing new) and opens a mirror of it twice (built from
// empty, and brought up to date with nothing new), and reports each
// step's seconds and rows read.
func BenchmarkPushMirror(b *testing.B) {
	home := os.Getenv("MCPCOST_BENCH_HOME")
	if home == "" {
		b.Skip("MCPCOST_BENCH_HOME names no generated home")
	}
	server, err := testpeers.PostgresServer()
	if err != nil {
		b.Skip(err)
	}
	s, err := Open(filepath.Join(b.TempDir(), "usage.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Ingest(context.Background(), IngestOptions{
		ClaudeRoots: []string{filepath.Join(home, ".claude", "projects")},
		CodexRoots:  []string{filepath.Join(home, ".codex", "sessions")},
		Count:       token.O200k().Count,
		Workers:     benchWorkers(),
	}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		u, drop, err := testpeers.PostgresDatabase(server)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for i, name := range []string{"push1", "push2"} {
			start := time.Now()
			st, err := s.Push(context.Background(), u, PushOptions{Machine: "bench", User: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(time.Since(start).Seconds(), name+"-s")
			b.ReportMetric(float64(st.Rows), name+"-rows")
			if i == 1 && st.Rows != 0 {
				b.Fatalf("a push with nothing new read %d rows", st.Rows)
			}
		}
		path := filepath.Join(b.TempDir(), "mirror.db")
		for _, name := range []string{"mirror1", "mirror2"} {
			start := time.Now()
			m, st, err := OpenMirror(context.Background(), u, path, MirrorOptions{})
			if err != nil {
				b.Fatal(err)
			}
			m.Close()
			b.ReportMetric(time.Since(start).Seconds(), name+"-s")
			b.ReportMetric(float64(st.Rows), name+"-rows")
		}
		b.StopTimer()
		drop()
		b.StartTimer()
	}
}
