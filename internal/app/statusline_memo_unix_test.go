//go:build unix

package app

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStatuslineMemoNotAFile: what is in the memo's place and is not a
// memo is not read: a device that never ends, a named pipe, a file of
// /proc, a memo over the cap; a memo padded to the cap is read.
func TestStatuslineMemoNotAFile(t *testing.T) {
	home := t.TempDir()
	cacheDir := filepath.Join(home, "cache", "measurements")
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	memo := statusMemoPath(cacheDir, filepath.Join(home, "p"))
	d := statusMemo{Tokens: 4321, Servers: 1, Window: 200000, At: now}
	writeStatusMemo(memo, cacheDir, d)
	good, err := os.ReadFile(memo)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		make func() error
		ok   bool
	}{
		{"/dev/zero", func() error { return os.Symlink("/dev/zero", memo) }, false},
		{"named pipe", func() error { return syscall.Mkfifo(memo, 0o600) }, false},
		{"over the cap", func() error {
			return os.WriteFile(memo, append(bytes.Clone(good), bytes.Repeat([]byte(" "), maxStatusMemo+1-len(good))...), 0o600)
		}, false},
		{"at the cap", func() error {
			return os.WriteFile(memo, append(bytes.Clone(good), bytes.Repeat([]byte(" "), maxStatusMemo-len(good))...), 0o600)
		}, true},
	}
	if _, err := os.Stat("/proc/self/status"); err == nil {
		cases = append(cases, struct {
			name string
			make func() error
			ok   bool
		}{"procfs", func() error { return os.Symlink("/proc/self/status", memo) }, false})
	}
	for _, c := range cases {
		os.Remove(memo)
		if err := c.make(); err != nil {
			t.Fatal(err)
		}
		got, ok := readStatusMemo(memo, cacheDir, now)
		if ok != c.ok || (ok && got.Tokens != d.Tokens) {
			t.Errorf("%s: read %v, %+v; want read %v", c.name, ok, got, c.ok)
		}
	}
}
