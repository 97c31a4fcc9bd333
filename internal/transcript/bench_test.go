package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcost/mcpcost/internal/cputime"
	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// BenchmarkClaudeTexts parses the Claude Code file named by
// MCPCOST_BENCH_FILE (one of bench/ingest's generated transcripts) and
// visits every tool-result text, with texts copied and with texts reused
// (ReuseText, as the store reads).
func BenchmarkClaudeTexts(b *testing.B) {
	path := os.Getenv("MCPCOST_BENCH_FILE")
	if path == "" {
		b.Skip("MCPCOST_BENCH_FILE names no transcript")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	for _, reuse := range []bool{false, true} {
		name := "copy"
		if reuse {
			name = "reuse"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				p := &transcript.ClaudeParser{SessionID: "s", ReuseText: reuse}
				n := 0
				for _, l := range lines {
					rec, _ := p.ParseLine(l)
					if rec != nil {
						for _, r := range rec.Results {
							for _, t := range r.Texts {
								n += len(t)
							}
						}
					}
				}
				if n == 0 {
					b.Fatal("no text")
				}
			}
		})
	}
}

// BenchmarkClaudeParse parses the Claude Code lines of the home named by
// MCPCOST_BENCH_HOME (bench/ingest's generated tree), up to 64 MB of
// them, as the store reads them (ReuseText), visiting every text.
func BenchmarkClaudeParse(b *testing.B) {
	home := os.Getenv("MCPCOST_BENCH_HOME")
	if home == "" {
		b.Skip("MCPCOST_BENCH_HOME names no generated home")
	}
	benchClaudeLines(b, claudeLines(b, home, 64<<20))
}

// BenchmarkClaudeLines is BenchmarkClaudeParse over lines made here: the
// package's testdata and a generated tree of about 8 MB, quirks and
// defects included.
func BenchmarkClaudeLines(b *testing.B) {
	home := b.TempDir()
	o := transcripttest.Small()
	o.Codex, o.Sessions, o.TotalBytes, o.Quirks = 0, 40, 8<<20, true
	if _, err := transcripttest.Generate(home, o); err != nil {
		b.Fatal(err)
	}
	lines := claudeLines(b, home, 0)
	data, err := os.ReadFile(filepath.Join("testdata", "claude.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	benchClaudeLines(b, append(lines, bytes.Split(data, []byte("\n"))...))
}

// claudeLines reads the lines of home's Claude Code files, up to max
// bytes of them (0: all).
func claudeLines(b *testing.B, home string, max int) [][]byte {
	files, err := transcript.DiscoverClaude([]string{filepath.Join(home, ".claude", "projects")})
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
		if size += len(data); max > 0 && size >= max {
			break
		}
	}
	return lines
}

// benchClaudeLines parses lines as the store reads them (ReuseText),
// visiting every text, and reports the CPU time per parse of them all
// beside the wall time (steadier on a shared machine; the garbage
// collector's included).
func benchClaudeLines(b *testing.B, lines [][]byte) {
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		p := &transcript.ClaudeParser{SessionID: "s", ReuseText: true}
		n := 0
		for _, l := range lines {
			rec, _ := p.ParseLine(l)
			if rec != nil {
				for _, r := range rec.Results {
					for _, t := range r.Texts {
						n += len(t)
					}
				}
			}
		}
		if n == 0 {
			b.Fatal("no text")
		}
	}
	if d := cputime.Process() - cpu; cpu > 0 && d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
