package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// TestGroupWithRacedBatch writes the batches of several files in one
// group, one of which another process took first: that one is left out
// (counted busy), the others are stored with their offsets, and the next
// ingest completes the store as one ingest would have.
func TestGroupWithRacedBatch(t *testing.T) {
	home := t.TempDir()
	if _, err := transcripttest.Generate(home, transcripttest.Small()); err != nil {
		t.Fatal(err)
	}
	ref := open(t, filepath.Join(t.TempDir(), "ref.db"))
	ingest(t, ref, home)

	s := open(t, filepath.Join(t.TempDir(), "usage.db"))
	o := options(home)
	o.MaxWarnings = 20
	o.Progress = func(IngestStep) {}
	files, err := transcript.DiscoverClaude(o.ClaudeRoots)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("%d files, want at least 3", len(files))
	}
	var group []*batch
	for _, f := range files {
		fi, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out := make(chan *batch, 1000)
		s.readGuarded(context.Background(), &job{file: f, size: fi.Size(), mtime: fi.ModTime().UnixNano()}, o, out)
		close(out)
		for b := range out {
			group = append(group, b)
		}
	}
	raced := files[1]
	if _, err := s.db.Exec(`INSERT INTO files (path, source, session_id, agent_id) VALUES (?, ?, ?, ?)`,
		raced.Path, string(raced.Source), raced.SessionID, raced.AgentID); err != nil {
		t.Fatal(err)
	}
	w := &writer{s: s, o: o, st: &IngestStats{}, owner: "unleased", total: len(files)}
	defer w.close()
	if err := w.applyAll(context.Background(), group); err != nil {
		t.Fatal(err)
	}
	if w.st.Busy != 1 || w.st.FilesRead != len(files)-1 {
		t.Errorf("busy %d, files read %d of %d; want 1 busy, the others read", w.st.Busy, w.st.FilesRead, len(files))
	}
	var stored int
	if err := s.db.QueryRow(`SELECT count(*) FROM files WHERE offset > 0`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != len(files)-1 {
		t.Errorf("%d files stored with an offset, want %d", stored, len(files)-1)
	}
	ingest(t, s, home)
	if got, want := totals(t, s), totals(t, ref); got != want {
		t.Errorf("after a group with a raced batch and a re-run:\n%s\nwant:\n%s", got, want)
	}
}
