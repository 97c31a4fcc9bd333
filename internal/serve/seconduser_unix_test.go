//go:build unix

package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// secondUserReads tries to read the token file as user nobody (65534),
// with every folder above it opened to others, so that only the file's
// own mode keeps it: that needs the test to run as root.
func secondUserReads(t *testing.T, file string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Log("not root: the token file is not read as another user")
		return
	}
	for d := filepath.Dir(file); strings.HasPrefix(d, os.TempDir()) && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("cat", file)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("user 65534 read the token file: %q", out)
	} else if !strings.Contains(string(out), "Permission denied") {
		t.Errorf("user 65534 reading the token file: %v %s", err, out)
	}
}
