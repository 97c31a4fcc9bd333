//go:build unix

package outfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteDevice: a FILE below the devices folder (/dev/null,
// /dev/stdout) is written through, as the user asked, never replaced by a
// renamed file nor refused for want of room for one there; a link
// elsewhere is still replaced. The devices folder is a temporary one, so
// that a failure replaces nothing of the machine's.
func TestWriteDevice(t *testing.T) {
	dev := t.TempDir()
	old := deviceFolder
	deviceFolder = dev
	t.Cleanup(func() { deviceFolder = old })

	target := filepath.Join(t.TempDir(), "tty")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout := filepath.Join(dev, "stdout")
	if err := os.Symlink(target, stdout); err != nil {
		t.Fatal(err)
	}
	if err := Write(stdout, []byte("badge"), 0o644); err != nil {
		t.Fatalf("writing %s: %v", stdout, err)
	}
	if fi, err := os.Lstat(stdout); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s was replaced (%v, %v); want the link kept and written through", stdout, fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "badge" {
		t.Errorf("what %s links to holds %q, want %q", stdout, b, "badge")
	}
	entries, _ := os.ReadDir(dev)
	if len(entries) != 1 {
		t.Errorf("the devices folder holds %d names, want 1 (no temporary file)", len(entries))
	}

	// Elsewhere a link is replaced, as before.
	other := filepath.Join(t.TempDir(), "out.svg")
	if err := os.Symlink(target, other); err != nil {
		t.Fatal(err)
	}
	if err := Write(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(other); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s: a link outside the devices folder was kept (%v)", other, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "badge" {
		t.Errorf("a link outside the devices folder was written through: %q", b)
	}

	// The real one, where mcpcost may not make a file.
	deviceFolder = old
	if os.Geteuid() != 0 {
		if err := Write(os.DevNull, []byte("x"), 0o644); err != nil {
			t.Errorf("writing %s: %v", os.DevNull, err)
		}
	}
}
