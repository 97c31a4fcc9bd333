//go:build unix

package transcript_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestDiscoverReportsSkips: every path that looks like a transcript (a
// .jsonl name) or a root, and is skipped, is reported with its reason:
// not a regular file, a link into a system folder, not a folder. None is
// opened (a FIFO would block the walk); paths that do not look like one
// are skipped in silence, as are roots that do not exist.
func TestDiscoverReportsSkips(t *testing.T) {
	base := t.TempDir()
	projects := filepath.Join(base, "projects")
	p := filepath.Join(projects, "p")
	os.MkdirAll(p, 0o755)
	fifo := func(path string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	os.WriteFile(filepath.Join(p, "ok.jsonl"), nil, 0o644)
	fifo(filepath.Join(p, "x.jsonl"))
	fifo(filepath.Join(p, "notes.txt"))
	os.Symlink(filepath.Join(p, "x.jsonl"), filepath.Join(p, "tofifo.jsonl"))
	os.Symlink(filepath.Join(p, "notes.txt"), filepath.Join(p, "tofifo.txt"))
	os.Symlink("/dev/zero", filepath.Join(p, "zero.jsonl"))
	os.Symlink("/proc/self/status", filepath.Join(p, "status.jsonl"))
	fifoRoot := filepath.Join(base, "fifo-projects")
	fifo(fifoRoot)
	fileRoot := filepath.Join(base, "file-projects")
	os.WriteFile(fileRoot, nil, 0o644)
	fifoConfig := filepath.Join(base, "fifo-config")
	fifo(fifoConfig)

	files, err := transcript.DiscoverClaude([]string{projects, fifoRoot, fileRoot, filepath.Join(fifoConfig, "projects"), filepath.Join(base, "none", "projects")})
	if len(files) != 1 || filepath.Base(files[0].Path) != "ok.jsonl" {
		t.Errorf("files %+v; want ok.jsonl alone", files)
	}
	want := []string{
		filepath.Join(p, "x.jsonl") + ": not a regular file (a named pipe), not read",
		filepath.Join(p, "tofifo.jsonl") + ": a link to a named pipe, not read",
		filepath.Join(p, "zero.jsonl") + ": a link into a system folder (/proc, /sys, /dev), not read",
		fifoRoot + ": not a folder (a named pipe), not read",
		fileRoot + ": not a folder (a file), not read",
		fifoConfig + ": not a folder (a named pipe), not read",
	}
	if _, serr := os.Stat("/proc/self/status"); serr == nil {
		want = append(want, filepath.Join(p, "status.jsonl")+": a link into a system folder (/proc, /sys, /dev), not read")
	}
	var got []string
	if err != nil {
		got = strings.Split(err.Error(), "\n")
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("no warning %q in %q", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d warnings %q; want %d", len(got), got, len(want))
	}
}
