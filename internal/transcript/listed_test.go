package transcript_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestDiscoverListsSizeAndTime: each file listed carries the size and
// modification time a stat of its path gives, a linked file its
// target's, so that an ingest need not ask again.
func TestDiscoverListsSizeAndTime(t *testing.T) {
	base := t.TempDir()
	p := filepath.Join(base, "projects", "p")
	os.MkdirAll(filepath.Join(p, "s", "subagents"), 0o755)
	os.WriteFile(filepath.Join(p, "s.jsonl"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(p, "s", "subagents", "agent-a.jsonl"), []byte("{}\n{}\n"), 0o644)
	out := filepath.Join(base, "elsewhere.jsonl")
	os.WriteFile(out, []byte("{}\n{}\n{}\n"), 0o644)
	old := time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)
	os.Chtimes(out, old, old)
	if err := os.Symlink(out, filepath.Join(p, "t.jsonl")); err != nil {
		t.Skip("no links here:", err)
	}
	files, err := transcript.DiscoverClaude([]string{filepath.Join(base, "projects")})
	if err != nil || len(files) != 3 {
		t.Fatalf("files %+v, %v; want 3", files, err)
	}
	for _, f := range files {
		fi, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Listed || f.Size != fi.Size() || f.ModTime != fi.ModTime().UnixNano() {
			t.Errorf("%s: listed %v, size %d, time %d; want %d, %d", f.Path, f.Listed, f.Size, f.ModTime, fi.Size(), fi.ModTime().UnixNano())
		}
	}
}
