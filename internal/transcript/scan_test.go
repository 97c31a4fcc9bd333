package transcript_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// onlyReader hides a reader's other methods (ReadAt).
type onlyReader struct{ io.Reader }

func scanAll(t *testing.T, r io.Reader) (lens []int, errs []error, off int64) {
	t.Helper()
	off, _, err := transcript.ScanLines(r, 0, 1, func(l []byte, no int, end int64, err error) error {
		lens = append(lens, len(l))
		errs = append(errs, err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lens, errs, off
}

// TestScanLinesCap: a line of MaxLine bytes (its newline included) is
// read, one byte more is reported too long, and the lines around both are
// read, from a file (read exactly) and from a plain reader (gathered).
func TestScanLinesCap(t *testing.T) {
	const max = 3 << 20
	defer transcript.SetLimits(max, 8<<20)()
	fits := strings.Repeat("x", max-2) + "\r"
	over := strings.Repeat("y", max)
	in := "a\n" + fits + "\n" + "b\n" + over + "\n" + "c\n" + strings.Repeat("z", max+5) // an incomplete last line
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(in), 0o644)
	for _, c := range []struct {
		name string
		r    func() io.Reader
	}{
		{"file", func() io.Reader { f, _ := os.Open(path); t.Cleanup(func() { f.Close() }); return f }},
		{"reader", func() io.Reader { return onlyReader{strings.NewReader(in)} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			lens, errs, off := scanAll(t, c.r())
			if fmt.Sprint(lens) != fmt.Sprint([]int{1, max - 2, 1, 0, 1}) {
				t.Errorf("lengths %v", lens)
			}
			for i, err := range errs {
				if (i == 3) != errors.Is(err, transcript.ErrLineTooLong) {
					t.Errorf("line %d: %v", i+1, err)
				}
			}
			if want := int64(len(in) - (max + 5)); off != want {
				t.Errorf("offset %d, want %d (before the incomplete line)", off, want)
			}
		})
	}
}

// TestLongLinesBounded: the long lines held at once by concurrent
// ScanLines calls add up to at most LongLineBudget, and a line longer
// than the budget is still read (alone).
func TestLongLinesBounded(t *testing.T) {
	const budget = 5 << 20
	defer transcript.SetLimits(transcript.MaxLine, budget)()
	dir := t.TempDir()
	var paths []string
	for i := 0; i < 4; i++ {
		var b strings.Builder
		for j := 0; j < 3; j++ {
			size := 2 << 20
			if i == 0 && j == 1 {
				size = 6 << 20 // over the budget
			}
			b.WriteString(strings.Repeat("x", size) + "\nshort\n")
		}
		p := filepath.Join(dir, fmt.Sprint(i))
		os.WriteFile(p, []byte(b.String()), 0o644)
		paths = append(paths, p)
	}
	var held, most, count atomic.Int64
	var crowded atomic.Bool // more than one line held, over the budget
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r io.Reader
			f, err := os.Open(p)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			r = f
			if i%2 == 1 {
				r = onlyReader{f}
			}
			transcript.ScanLines(r, 0, 1, func(l []byte, no int, end int64, err error) error {
				if len(l) < 1<<20 {
					return nil
				}
				n, now := count.Add(1), held.Add(int64(len(l)))
				if n > 1 && now > budget {
					crowded.Store(true)
				}
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(20 * time.Millisecond)
				held.Add(-int64(len(l)))
				count.Add(-1)
				return nil
			})
		}()
	}
	wg.Wait()
	if crowded.Load() || most.Load() < 6<<20 {
		t.Errorf("long lines held at once: up to %d bytes, over the budget (%d) with more than one line", most.Load(), budget)
	}
	t.Logf("held at most %d bytes", most.Load())
}

// TestLongLineCostsItsLength: a long line read from a file allocates
// about its own length, not the doubling of a growing buffer.
func TestLongLineCostsItsLength(t *testing.T) {
	const size = 40 << 20
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, append(bytes.Repeat([]byte("x"), size), '\n'), 0o644)
	f, _ := os.Open(path)
	defer f.Close()
	transcript.ScanLines(strings.NewReader("warm\n"), 0, 1, func([]byte, int, int64, error) error { return nil })
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := 0
	transcript.ScanLines(f, 0, 1, func(l []byte, no int, end int64, err error) error {
		got = len(l)
		return nil
	})
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	if got != size || alloc > size*11/10 {
		t.Errorf("a %d-byte line allocated %d bytes (read %d)", size, alloc, got)
	}
}
