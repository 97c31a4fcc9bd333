//go:build unix

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// TestOutputModes holds the modes of the files the commands write to the
// rule of outfile.Shared: every output named on the command line or
// published by a sweep, whatever it holds (report --html holds the
// usage of each project, as report --json sent there by the shell
// would), is 0666 (folders 0777) less the umask, as the shell's > and
// os.Create make them; the usage store, which mcpcost places itself, is
// its owner's alone.
func TestOutputModes(t *testing.T) {
	for _, mask := range []int{0o022, 0o002} {
		t.Run(fmt.Sprintf("umask %03o", mask), func(t *testing.T) {
			old := syscall.Umask(mask)
			defer syscall.Umask(old)
			shared, folder := os.FileMode(0o666&^mask), os.FileMode(0o777&^mask)
			h := newReportHome(t)
			dir := t.TempDir()
			in := func(name string) string { return filepath.Join(dir, name) }
			tools, _ := json.Marshal(map[string]any{"tools": h.tools["github"]})
			file := testpeers.WriteFile(t, t.TempDir(), "github.json", tools)
			servers := testpeers.WriteFile(t, t.TempDir(), "servers.yaml", []byte("servers:\n  - name: walled\n    command: npx -y mcp-remote https://example.invalid/sse\n    remote: true\n"))
			h.run(t, "measure", file, "--name", "github", "--out", in("measurement.json"), "--html", in("measure.html"))
			h.run(t, "badge", in("measurement.json"), "--svg", in("badge.svg"), "--shields", in("badge.json"))
			h.run(t, "report", "--html", in("report.html"))
			h.run(t, "sweep", servers, "--out", in("site"), "--date", "2026-12-01")
			for _, tt := range []struct {
				path string
				want os.FileMode
			}{
				{in("measurement.json"), shared},
				{in("measure.html"), shared},
				{in("badge.svg"), shared},
				{in("badge.json"), shared},
				{in("report.html"), shared},
				{in("site"), folder | os.ModeDir},
				{in("site/badges"), folder | os.ModeDir},
				{in("site/badges/walled.svg"), shared},
				{in("site/badges/walled.json"), shared},
				{in("site/servers/walled.html"), shared},
				{in("site/servers/walled.md"), shared},
				{in("site/index.html"), shared},
				{in("site/leaderboard.md"), shared},
				{in("site/leaderboard.csv"), shared},
				{in("site/history.csv"), shared},
				{h.db, 0o600},
			} {
				fi, err := os.Lstat(tt.path)
				if err != nil {
					t.Errorf("%v", err)
					continue
				}
				if got := fi.Mode() & (os.ModeType | os.ModePerm); got != tt.want {
					rel, _ := filepath.Rel(dir, tt.path)
					t.Errorf("%s: mode %v, want %v", rel, got, tt.want)
				}
			}
		})
	}
}
