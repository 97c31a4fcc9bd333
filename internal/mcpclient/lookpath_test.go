package mcpclient

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A relative entry of the PATH names a folder below the server's start
// folder, as the clients' spawn finds it after changing to that folder,
// and the file found is the one run (an absolute path).
func TestLookPathRelativeEntries(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the command is left to the system's search on Windows")
	}
	own := t.TempDir()    // mcpcost's folder
	server := t.TempDir() // the server's cwd
	exe := func(dir string) string {
		p := filepath.Join(dir, "srv")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exe(filepath.Join(own, "bin"))
	exe(own)
	inServerBin := exe(filepath.Join(server, "bin"))
	inServer := exe(server)
	t.Chdir(own)
	for _, c := range []struct {
		name, path, cwd, want string
	}{
		{"relative entry, server folder", "bin", server, inServerBin},
		{"dot entry, server folder", ".", server, inServer},
		{"empty entry, server folder", "/nonexistent:", server, inServer},
		{"dot-slash entry, server folder", "./bin", server, inServerBin},
		{"relative entry, no server folder", "bin", "", filepath.Join(own, "bin", "srv")},
		{"absolute entry", filepath.Join(server, "bin"), "", inServerBin},
		{"relative server folder", "bin", "sub", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := lookPath("srv", []string{"HOME=/x", "PATH=" + c.path}, c.cwd)
			if c.want == "" {
				if err == nil {
					t.Fatalf("lookPath = %q, want not found", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("lookPath = %q, want %q", got, c.want)
			}
		})
	}
	// A ".." of an entry goes up from where a link led, as the kernel
	// resolves it in the child: from a server folder that is a link to
	// deep/proj/sub, ../bin is deep/proj/bin, not the bin beside the link.
	physical := exe(filepath.Join(server, "deep", "proj", "bin"))
	if err := os.MkdirAll(filepath.Join(server, "deep", "proj", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(server, "deep", "proj", "sub"), filepath.Join(server, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, cwd string }{
		{"../bin", filepath.Join(server, "link")},
		{"link/../bin", server},
		{"bin", server + string(os.PathSeparator) + "link" + string(os.PathSeparator) + ".."},
	} {
		got, err := lookPath("srv", []string{"PATH=" + c.path}, c.cwd)
		want, _ := os.Stat(physical)
		if fi, serr := os.Stat(got); err != nil || serr != nil || !os.SameFile(fi, want) || !filepath.IsAbs(got) {
			t.Errorf("lookPath with PATH=%s from %s = %q, %v; want %q", c.path, c.cwd, got, err, physical)
		}
	}
	// A server folder named relative to mcpcost's is followed the same way.
	sub := exe(filepath.Join(own, "sub", "bin"))
	if got, err := lookPath("srv", []string{"PATH=bin"}, "sub"); err != nil || got != sub {
		t.Errorf("lookPath under a relative server folder = %q, %v; want %q", got, err, sub)
	}
}
