package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
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
		if size += len(data); size >= 64<<20 {
			break
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
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
}
