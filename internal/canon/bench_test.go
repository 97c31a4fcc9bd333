package canon

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/cputime"
	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// benchCorpus returns the canonical files of the shared corpus (or of
// testdata when there is none) joined into one array.
func benchCorpus(b *testing.B) []byte {
	root := filepath.Join("testdata", "corpus")
	if dir := os.Getenv("MCPCOST_SHARED"); dir != "" {
		root = filepath.Join(dir, "corpus")
	} else if dir := filepath.Join(testpeers.Root(b), "..", "shared", "corpus"); isDir(dir) {
		root = dir
	}
	var parts [][]byte
	for _, dir := range corpusDirs(b, root) {
		data, err := os.ReadFile(filepath.Join(dir, "canonical.json"))
		if err != nil {
			b.Fatal(err)
		}
		parts = append(parts, data)
	}
	return append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']')
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// The benchmarks also report MB per second of CPU time the process used
// (MB/cpu-s), which stays meaningful on a loaded machine where the wall
// clock figure (MB/s) does not.

func BenchmarkTransformCorpus(b *testing.B) {
	data := benchCorpus(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := cputime.Process()
	n := 0
	for b.Loop() {
		if _, err := Transform(data); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportCPU(b, cpu, n*len(data))
}

func BenchmarkParseCorpus(b *testing.B) {
	data := benchCorpus(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := cputime.Process()
	n := 0
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportCPU(b, cpu, n*len(data))
}

func BenchmarkAppendCorpus(b *testing.B) {
	data := benchCorpus(b)
	v, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := cputime.Process()
	n := 0
	buf := make([]byte, 0, len(data))
	for b.Loop() {
		buf = Append(buf[:0], v)
		n++
	}
	reportCPU(b, cpu, n*len(data))
}

func reportCPU(b *testing.B, start time.Duration, bytes int) {
	if d := cputime.Process() - start; start > 0 && d > 0 {
		b.ReportMetric(float64(bytes)/1e6/d.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkStdlibCompactCorpus is a yardstick for the machine: the speed of
// encoding/json's Compact, which only removes whitespace, on the same bytes.
func BenchmarkStdlibCompactCorpus(b *testing.B) {
	data := benchCorpus(b)
	b.SetBytes(int64(len(data)))
	var buf bytes.Buffer
	cpu := cputime.Process()
	n := 0
	for b.Loop() {
		buf.Reset()
		if err := json.Compact(&buf, data); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportCPU(b, cpu, n*len(data))
}

// toolsLike returns a compact tools array of at least size bytes, built
// from the corpus with every tool name made unique.
func toolsLike(b *testing.B, size int) []byte {
	corpus := benchCorpus(b)
	v, err := Parse(corpus)
	if err != nil {
		b.Fatal(err)
	}
	var tools [][]byte
	for _, server := range v.Elems() {
		for _, tool := range server.Elems() {
			tools = append(tools, Marshal(tool))
		}
	}
	out := make([]byte, 0, size+64<<10)
	out = append(out, '[')
	for i := 0; len(out) < size; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		t := tools[i%len(tools)]
		// {"name":"x" → {"name":"x_123"
		j := bytes.Index(t, []byte(`","`))
		if j < 0 {
			out = append(out, t...)
			continue
		}
		out = append(out, t[:j]...)
		out = append(out, '_')
		out = strconv.AppendInt(out, int64(i), 10)
		out = append(out, t[j:]...)
	}
	return append(out, ']')
}

// peakHeap samples the live heap every millisecond until stop is called,
// and returns the largest value seen.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		metrics.Read(sample)
		return max(peak, sample[0].Value.Uint64())
	}
}

// BenchmarkParseAppend100MB parses and writes a 100 MB tools-like input
// and reports the peak live heap, including the input and the output, as a
// multiple of the input size (peak/input), and the size of the parsed tree
// (tree/input).
func BenchmarkParseAppend100MB(b *testing.B) {
	if testing.Short() {
		b.Skip("100 MB benchmark skipped in -short mode")
	}
	data := toolsLike(b, 100<<20)
	b.SetBytes(int64(len(data)))
	var worstPeak, worstTree float64
	for b.Loop() {
		runtime.GC()
		base := heapObjects()
		stop := peakHeap()
		v, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		tree := heapObjects() - base
		out := Append(make([]byte, 0, len(data)), v)
		peak := stop()
		if len(out) != len(data) {
			b.Fatalf("output %d bytes, input %d", len(out), len(data))
		}
		runtime.KeepAlive(v)
		worstPeak = max(worstPeak, float64(peak-base+uint64(len(data)))/float64(len(data)))
		worstTree = max(worstTree, float64(tree)/float64(len(data)))
	}
	b.ReportMetric(worstPeak, "peak/input")
	b.ReportMetric(worstTree, "tree/input")
}

// BenchmarkTransform100MB reports the peak live heap of Transform on a
// 100 MB tools-like input, including the input and the output.
func BenchmarkTransform100MB(b *testing.B) {
	if testing.Short() {
		b.Skip("100 MB benchmark skipped in -short mode")
	}
	data := toolsLike(b, 100<<20)
	b.SetBytes(int64(len(data)))
	var worstPeak float64
	for b.Loop() {
		runtime.GC()
		base := heapObjects()
		stop := peakHeap()
		out, err := Transform(data)
		if err != nil {
			b.Fatal(err)
		}
		peak := stop()
		if len(out) != len(data) {
			b.Fatalf("output %d bytes, input %d", len(out), len(data))
		}
		worstPeak = max(worstPeak, float64(peak-base+uint64(len(data)))/float64(len(data)))
	}
	b.ReportMetric(worstPeak, "peak/input")
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
