package usage_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// BenchmarkBuildByDay builds the by-day report on the store named by
// MCPCOST_BENCH_DB (bench/ingest/run.sh leaves one in its folder).
func BenchmarkBuildByDay(b *testing.B) {
	path := os.Getenv("MCPCOST_BENCH_DB")
	if path == "" {
		b.Skip("MCPCOST_BENCH_DB names no store")
	}
	st, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for b.Loop() {
		if _, err := usage.Build(context.Background(), st, usage.Options{By: "day", Location: time.UTC, Now: time.Unix(0, 0)}); err != nil {
			b.Fatal(err)
		}
	}
}
