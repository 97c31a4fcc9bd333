//go:build unix

package mcpclient

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// BenchmarkOverhead reports mcpcost's own cost per measured server: one
// capture (Once) of a Go server that answers at once, minus the time to
// start and reap the same binary doing nothing (its own start-up). Compare
// overhead-ms with BenchmarkNodeStartup, the floor of any Node server.
func BenchmarkOverhead(b *testing.B) {
	o := Options{Once: true, Timeout: 10 * time.Second}
	target := Target{Command: bin(b, "stdioserver"), Args: []string{"ok"}}
	var spawn, measure time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := exec.Command(bin(b, "stdioserver"), "exit").Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		r := Measure(context.Background(), target, o)
		t2 := time.Now()
		if r.Status != StatusMeasured {
			b.Fatalf("%s: %s", r.Status, r.Detail)
		}
		spawn += t1.Sub(t0)
		measure += t2.Sub(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(spawn.Microseconds())/1000/n, "spawn-ms/op")
	b.ReportMetric(float64(measure.Microseconds())/1000/n, "measure-ms/op")
	b.ReportMetric(float64((measure-spawn).Microseconds())/1000/n, "overhead-ms/op")
}

// BenchmarkNodeStartup is the time to start and reap `node -e 0`.
func BenchmarkNodeStartup(b *testing.B) {
	node := testpeers.Node(b)
	for b.Loop() {
		if err := exec.Command(node, "-e", "0").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
