package token

import (
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// TestBoundaryDocsTiktoken counts the canonical form of every boundary
// document (canontest: every shape at every size and depth) and compares
// the counts with npm tiktoken's.
func TestBoundaryDocsTiktoken(t *testing.T) {
	docs := canontest.Docs()
	texts := make([]string, len(docs))
	size := 0
	for i, d := range docs {
		b, err := canon.Transform(d.JSON)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		texts[i] = string(b)
		size += len(b)
	}
	start := time.Now()
	want := tiktokenCounts(t, texts)
	t.Logf("tiktoken counted %d documents (%d bytes) in %v", len(texts), size, time.Since(start))
	c := O200k()
	start = time.Now()
	for i, s := range texts {
		if got := c.Count(s); got != want[i] {
			t.Errorf("%s: Count = %d, tiktoken counts %d", docs[i].Name, got, want[i])
		}
	}
	t.Logf("counted in %v", time.Since(start))
}
