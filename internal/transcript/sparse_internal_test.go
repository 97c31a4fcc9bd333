//go:build linux || darwin || freebsd

package transcript

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// allocated is the disk a file takes.
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Blocks * 512
}

// TestSnapshotSparse: a copy of a sparse file (128 MB, 136 KB of it
// data, a run of zeros written in it) is the same bytes and takes the
// disk of its data, not of its size (a 4 GB opencode.db with a small
// log: 12.3 s and 4 GB of the temporary folder -> 0.03 s and 64 KB).
func TestSnapshotSparse(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "opencode.db"), filepath.Join(dir, "copy.db")
	const size = 128 << 20
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	data := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	for _, w := range []struct {
		off int64
		b   []byte
	}{{0, data(64 << 10)}, {40 << 20, make([]byte, 1<<20)}, {90<<20 + 123, data(64 << 10)}, {size - 8<<10, data(8 << 10)}} {
		if _, err := f.WriteAt(w.b, w.off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	if allocated(t, src) > 8<<20 {
		t.Skip("the temporary folder's file system keeps no holes")
	}
	if err := copySnapshot(src, dst); err != nil {
		t.Fatal(err)
	}
	if got := allocated(t, dst); got > 8<<20 {
		t.Errorf("the copy takes %d bytes of disk, its source %d", got, allocated(t, src))
	}
	a, _ := os.Open(src)
	defer a.Close()
	b, _ := os.Open(dst)
	defer b.Close()
	if fi, _ := b.Stat(); fi.Size() != size {
		t.Fatalf("the copy is %d bytes, not %d", fi.Size(), size)
	}
	ba, bb := make([]byte, 4<<20), make([]byte, 4<<20)
	for off := int64(0); off < size; off += int64(len(ba)) {
		na, _ := a.ReadAt(ba, off)
		nb, _ := b.ReadAt(bb, off)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			t.Fatalf("the copy differs at %d", off)
		}
	}
}

// TestOpencodeDBSparse: an opencode.db in WAL mode whose file ends in
// a hole of 1 GB reads as it did before, through a copy that takes the
// disk of its data, in a fraction of the time a full copy took.
func TestOpencodeDBSparse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	w := transcripttest.OpencodeDB(t, path, true)
	defer w.Close()
	for i := range 50 {
		w.Message(fmt.Sprintf("msg_%02d", i), "ses_1", 1764000000000+int64(i),
			fmt.Sprintf(`{"role":"assistant","time":{"created":%d},"modelID":"gpt-5","tokens":{"input":%d,"output":1}}`, 1764000000000+int64(i), i+1))
	}
	before, err := ReadOpencodeDB(context.Background(), path)
	if err != nil || len(before) != 50 {
		t.Fatalf("%d items, %v", len(before), err)
	}
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()+1<<30); err != nil {
		t.Fatal(err)
	}
	if allocated(t, path) > 8<<20 {
		t.Skip("the temporary folder's file system keeps no holes")
	}
	start := time.Now()
	after, err := ReadOpencodeDB(context.Background(), path)
	if err != nil || !reflect.DeepEqual(after, before) {
		t.Fatalf("after the hole: %d items, %v", len(after), err)
	}
	t.Logf("read in %v", time.Since(start))
}
