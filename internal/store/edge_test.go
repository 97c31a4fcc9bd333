package store

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestEdgeHash: edgeHash hashes the offset and the first and the last KiB
// of the file's first offset bytes (all of them when fewer than two KiB),
// and a file cut short as far as it goes; a file that cannot be opened
// has none.
func TestEdgeHash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	data := make([]byte, 5000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	os.WriteFile(path, data, 0o644)
	want := func(offset int64) []byte {
		h := sha256.New()
		fmt.Fprintf(h, "%d\n", offset)
		end := min(offset, int64(len(data)))
		head := min(end, edgeKiB)
		h.Write(data[:head])
		tail := max(min(offset, edgeKiB), offset-edgeKiB)
		if tail < end {
			h.Write(data[tail:end])
		}
		return h.Sum(nil)
	}
	for _, offset := range []int64{0, 1, 1000, edgeKiB, edgeKiB + 1, 2 * edgeKiB, 2*edgeKiB + 5, 4999, 5000, 6000} {
		if got := edgeHash(path, offset); !bytes.Equal(got, want(offset)) {
			t.Errorf("offset %d: %x, want %x", offset, got, want(offset))
		}
	}
	if bytes.Equal(edgeHash(path, 3000), edgeHash(path, 3001)) {
		t.Error("two offsets, one hash")
	}
	if got := edgeHash(filepath.Join(t.TempDir(), "gone.jsonl"), 10); got != nil {
		t.Errorf("a missing file: %x", got)
	}
}
