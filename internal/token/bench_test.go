package token

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/cputime"
)

// benchCorpus returns the corpus the benchmarks run on: the shared corpus
// when it is there, else the copy under testdata.
func benchCorpus(b *testing.B) []corpusServer {
	dir := filepath.Join("testdata", "corpus")
	if d := os.Getenv("MCPCOST_SHARED"); d != "" {
		dir = filepath.Join(d, "corpus")
	} else if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "corpus")); err == nil {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	return loadCorpus(b, dir)
}

var (
	benchOnce  sync.Once
	benchWhole string
	benchTools []string
)

func benchInputs(b *testing.B) (string, []string) {
	benchOnce.Do(func() {
		var sb strings.Builder
		for _, s := range benchCorpus(b) {
			sb.WriteString(s.canonical)
			benchTools = append(benchTools, s.tools...)
		}
		benchWhole = sb.String()
	})
	return benchWhole, benchTools
}

func benchCount(b *testing.B, count func(string) int) {
	whole, _ := benchInputs(b)
	b.SetBytes(int64(len(whole)))
	b.ResetTimer()
	for b.Loop() {
		count(whole)
	}
}

func benchPerTool(b *testing.B, count func(string) int) {
	_, tools := benchInputs(b)
	n := 0
	for _, t := range tools {
		n += len(t)
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		for _, t := range tools {
			count(t)
		}
	}
}

// The concatenated corpus, one call.
func BenchmarkCorpusOurs(b *testing.B) { benchCount(b, O200k().Count) }
func BenchmarkCorpusReference(b *testing.B) {
	benchCount(b, func(s string) int { return refCount(b, s) })
}

// One call per tool.
func BenchmarkPerToolOurs(b *testing.B) { benchPerTool(b, O200k().Count) }
func BenchmarkPerToolReference(b *testing.B) {
	benchPerTool(b, func(s string) int { return refCount(b, s) })
}

// Both cores, one call per tool.
func BenchmarkPerToolOursParallel(b *testing.B) {
	_, tools := benchInputs(b)
	n := 0
	for _, t := range tools {
		n += len(t)
	}
	c := O200k()
	b.SetBytes(int64(n))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, t := range tools {
				c.Count(t)
			}
		}
	})
}

// BenchmarkCorpusRatio counts the concatenated corpus with both
// implementations in turn and reports each one's MB per CPU second and how
// many times faster ours is.
func BenchmarkCorpusRatio(b *testing.B) {
	whole, _ := benchInputs(b)
	benchRatio(b, []string{whole})
}

// BenchmarkPerToolRatio is BenchmarkCorpusRatio with one call per tool.
func BenchmarkPerToolRatio(b *testing.B) {
	_, tools := benchInputs(b)
	benchRatio(b, tools)
}

func benchRatio(b *testing.B, texts []string) {
	c := O200k()
	n := 0
	for _, s := range texts {
		n += len(s)
		c.Count(s)
		refCount(b, s)
	}
	var ours, ref time.Duration
	b.ResetTimer()
	for b.Loop() {
		t := cputime.Process()
		for _, s := range texts {
			c.Count(s)
		}
		ours += cputime.Process() - t
		t = cputime.Process()
		for _, s := range texts {
			refCount(b, s)
		}
		ref += cputime.Process() - t
	}
	mb := float64(n) / 1e6 * float64(b.N)
	b.ReportMetric(mb/ours.Seconds(), "ours-MB/cpu-s")
	b.ReportMetric(mb/ref.Seconds(), "ref-MB/cpu-s")
	b.ReportMetric(ref.Seconds()/ours.Seconds(), "x-faster")
}

// Building the tables, the cost of the first Count in a process.
func BenchmarkColdStart(b *testing.B) {
	var cpu time.Duration
	for b.Loop() {
		t := cputime.Process()
		c, err := newCounter()
		if err != nil {
			b.Fatal(err)
		}
		c.Count("x")
		cpu += cputime.Process() - t
	}
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}
