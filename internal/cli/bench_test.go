package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkMeasureFile runs "mcpcost measure FILE --json --out F" on the
// tools list named by MCPCOST_BENCH_TOOLS (bench/measure/run.sh writes a
// 5 MB one), for CPU profiles of the whole command:
//
//	MCPCOST_BENCH_TOOLS=tools.json go test -run - -bench MeasureFile -cpuprofile cpu.out ./internal/cli
func BenchmarkMeasureFile(b *testing.B) {
	file := os.Getenv("MCPCOST_BENCH_TOOLS")
	if file == "" {
		b.Skip("MCPCOST_BENCH_TOOLS names no tools list")
	}
	out := filepath.Join(b.TempDir(), "measurement.json")
	getenv := func(string) string { return "" }
	for b.Loop() {
		env := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv,
			Environ: func() []string { return nil }, Now: func() time.Time { return time.Unix(0, 0) }}
		if code := Run(env, []string{"measure", file, "--json", "--out", out}); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
