package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/transcript"
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

// BenchmarkIngestToolCallsOneFile ingests, into a new store each time,
// one Claude Code transcript of n lines that each make one MCP tool call
// (a new session every 1,000 lines, as bench/ingest/calls.sh generates):
// the time per call should not grow with n.
func BenchmarkIngestToolCallsOneFile(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			home := b.TempDir()
			dir := filepath.Join(home, ".claude", "projects", "p")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "f.jsonl"), toolCallLines(n), 0o644); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				s, err := Open(filepath.Join(b.TempDir(), "usage.db"))
				if err != nil {
					b.Fatal(err)
				}
				st, err := s.Ingest(context.Background(), options(home))
				if err != nil {
					b.Fatal(err)
				}
				if st.ToolCalls != n {
					b.Fatalf("stored %d tool calls, want %d", st.ToolCalls, n)
				}
				s.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/call")
		})
	}
}

// toolCallLines is a transcript of n assistant lines, each one call of an
// MCP tool with its own arguments, a new session every 1,000 lines.
func toolCallLines(n int) []byte {
	var buf []byte
	for i := range n {
		ts := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		buf = fmt.Appendf(buf, `{"cwd":"/home/u/p","sessionId":"s%d","version":"2.1.97","type":"assistant","message":{"id":"m%d","model":"claude-sonnet-4-5","role":"assistant",`+
			`"content":[{"type":"tool_use","id":"t%d","name":"mcp__gh__x","input":{"a":%d}}],"usage":{"input_tokens":%d,"output_tokens":3}},"requestId":"r%d","uuid":"a%d","timestamp":"%s"}`+"\n",
			i/1000, i, i, i, i%100, i, i, ts)
	}
	return buf
}

// BenchmarkReadLines parses and counts, on one goroutine and with no
// store writes, the Claude Code lines of the home named by
// MCPCOST_BENCH_HOME (up to MCPCOST_BENCH_MB megabytes of files, default
// 64), as a first ingest's readers do: each file through its own parser
// and the lines through parseLine, with a count cache that starts empty.
// It reports the readers' CPU cost without the writer's.
func BenchmarkReadLines(b *testing.B) {
	home := os.Getenv("MCPCOST_BENCH_HOME")
	if home == "" {
		b.Skip("MCPCOST_BENCH_HOME names no generated home")
	}
	limit := 64
	if n, err := strconv.Atoi(os.Getenv("MCPCOST_BENCH_MB")); err == nil && n > 0 {
		limit = n
	}
	files, err := transcript.DiscoverClaude([]string{filepath.Join(home, ".claude", "projects")})
	if err != nil {
		b.Fatal(err)
	}
	type file struct {
		f     transcript.File
		lines [][]byte
	}
	var fs []file
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			b.Fatal(err)
		}
		fs = append(fs, file{f, bytes.Split(data, []byte("\n"))})
		if size += len(data); size >= limit<<20 {
			break
		}
	}
	s := &Store{key: make([]byte, 32)}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		count := newCountCache(token.O200k().Count).Count
		tokens := 0
		for _, f := range fs {
			p, _ := transcript.NewParser(f.f, nil)
			p.(*transcript.ClaudeParser).ReuseText = true
			for _, l := range f.lines {
				rec, _, _ := s.parseLine(p, l, count)
				if rec != nil {
					for _, r := range rec.Results {
						tokens += r.Tokens
					}
				}
			}
		}
		if tokens == 0 {
			b.Fatal("no tokens")
		}
	}
}
