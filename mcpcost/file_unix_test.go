//go:build unix

package mcpcost_test

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mcpcost/mcpcost/mcpcost"
)

// TestWriteFileWhole: WriteFile writes a new file in the folder and
// renames it over path, as mcpcost measure --out does. A write that
// fails midway (here the file size limit, as a full disk would) leaves
// the old file as it was and no temporary file behind; a symbolic link
// at path is replaced, not written through. The file is 0644 under the
// umask 022.
func TestWriteFileWhole(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	m, err := mcpcost.MeasureTools([]byte(`{"tools":[{"name":"read_file","description":"Read a file.","inputSchema":{"type":"object"}}]}`), &mcpcost.Options{Name: "files"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	const before = "the old measurement.json, longer than the limit of the failing write"
	tests := []struct {
		name string
		// setup makes what is at path before the write.
		setup func(t *testing.T, path, victim string)
		// limit is the file size limit of the write (0: none).
		limit   uint64
		wantErr bool
	}{
		{name: "new file", setup: func(*testing.T, string, string) {}},
		{name: "over a file", setup: func(t *testing.T, path, _ string) { put(t, path, before) }},
		{name: "over a link", setup: func(t *testing.T, path, victim string) {
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "failing write", setup: func(t *testing.T, path, _ string) { put(t, path, before) }, limit: 16, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "measurement.json")
			victim := filepath.Join(t.TempDir(), "victim")
			put(t, victim, "victim")
			tt.setup(t, path, victim)
			var err error
			if tt.limit > 0 {
				err = withFileSizeLimit(t, tt.limit, func() error { return m.WriteFile(path) })
			} else {
				err = m.WriteFile(path)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("WriteFile: %v, want an error: %v", err, tt.wantErr)
			}
			got, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if tt.wantErr {
				if string(got) != before {
					t.Errorf("after a failed write the file holds %q, want the old one %q", got, before)
				}
			} else {
				if !bytes.Equal(got, want) {
					t.Errorf("the file holds %d bytes, want MarshalFile's %d", len(got), len(want))
				}
				fi, err := os.Lstat(path)
				if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
					t.Errorf("%s: %v (%v), want a regular file of mode 0644", path, fi.Mode(), err)
				}
			}
			if b, _ := os.ReadFile(victim); string(b) != "victim" {
				t.Errorf("a link at the path was written through: %.40q", b)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("the folder holds %q, want measurement.json alone", names)
			}
		})
	}
}

func put(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// withFileSizeLimit runs f with the process's file size limit at limit
// bytes: a write past it fails with EFBIG (Go ignores SIGXFSZ).
func withFileSizeLimit(t *testing.T, limit uint64, f func() error) error {
	t.Helper()
	var was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &was); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: was.Max}); err != nil {
		t.Fatal(err)
	}
	err := f()
	if serr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &was); serr != nil {
		t.Fatal(serr)
	}
	return err
}
