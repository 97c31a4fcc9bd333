package measure

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// TestParallelPanic: a panic in one item reaches the caller, which can
// recover from it, and the other workers stop.
func TestParallelPanic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var done atomic.Int64
	got := func() (v any) {
		defer func() { v = recover() }()
		parallel(10000, func(i int, _ *[]byte) {
			if i == 7 {
				var s []int
				_ = s[:i] // slice bounds out of range
			}
			done.Add(1)
		})
		return nil
	}()
	if got == nil || !strings.Contains(toString(got), "slice bounds out of range") {
		t.Fatalf("recovered %v, want the worker's panic", got)
	}
	if n := done.Load(); n == 10000-1 {
		t.Errorf("all %d other items ran after the panic", n)
	}
}

func toString(v any) string {
	if e, ok := v.(error); ok {
		return e.Error()
	}
	s, _ := v.(string)
	return s
}
