package token

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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

// Building the tables, the cost of the first Count in a process.
func BenchmarkColdStart(b *testing.B) {
	for b.Loop() {
		c, err := newCounter()
		if err != nil {
			b.Fatal(err)
		}
		c.Count("x")
	}
}
