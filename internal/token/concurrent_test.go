package token

import (
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrent counts from several goroutines at once (run it with -race)
// and checks every count against the serial one.
func TestConcurrent(t *testing.T) {
	servers := loadCorpus(t, filepath.Join("testdata", "corpus"))
	var texts []string
	for _, s := range servers {
		texts = append(texts, s.canonical)
		texts = append(texts, s.tools...)
	}
	for _, v := range hardVectors() {
		if len(v.text) <= keepScratch { // the longest add time, not cases
			texts = append(texts, v.text)
		}
	}
	c := O200k()
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = c.Count(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 3 {
				for i := range texts {
					j := (i + g*7 + k) % len(texts)
					if got := c.Count(texts[j]); got != want[j] {
						t.Errorf("goroutine %d: text %d = %d, want %d", g, j, got, want[j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestCountBytesDoesNotRetain changes a buffer after counting it: the
// cache must have copied what it keeps.
func TestCountBytesDoesNotRetain(t *testing.T) {
	c := O200k().(BytesCounter)
	buf := []byte("unmergeablezqxj unmergeablezqxj")
	want := c.CountBytes(buf)
	for i := range buf {
		buf[i] = 'a' + byte(i%3)
	}
	if got := c.Count("unmergeablezqxj unmergeablezqxj"); got != want {
		t.Errorf("count after the buffer changed = %d, want %d", got, want)
	}
	if got, ref := c.CountBytes(buf), refCount(t, string(buf)); got != ref {
		t.Errorf("CountBytes(%q) = %d, tiktoken-go counts %d", buf, got, ref)
	}
}
