//go:build unix

package mcpclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdioLaunches counts the launches of a measurement with Once, by a
// command that appends a line to a file each time it starts: a server that
// exits with status 0 before answering the handshake is launched once (a
// relaunch speaking initialize took as long again: sh -c "sleep 3" took
// 6 s); one that reads server/discover and fails on it is launched again
// with initialize, as a legacy server strict about requests it does not
// know.
func TestStdioLaunches(t *testing.T) {
	for _, c := range []struct {
		name, script string
		launches     int
	}{
		{"exits with status 0", "sleep 1", 1},
		{"reads and exits with status 0", "head -n 1 >/dev/null", 1},
		{"reads and fails", "head -n 1 >/dev/null; exit 1", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "launches")
			o := testOptions()
			o.Once = true
			r := Measure(context.Background(), Target{Command: "sh", Args: []string{"-c", "echo launch >> '" + file + "'; " + c.script}, Cwd: t.TempDir()}, o)
			if r.Status != StatusStartupFailure || !strings.Contains(r.Detail, "before answering the handshake") {
				t.Errorf("status %s (%s), want %s before answering the handshake", r.Status, r.Detail, StatusStartupFailure)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(b), "launch\n"); n != c.launches {
				t.Errorf("launched %d times, want %d", n, c.launches)
			}
		})
	}
}
