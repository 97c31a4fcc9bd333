//go:build unix

package transcript_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestGooseWALHostile: a write-ahead log beside sessions.db that is a link
// to /dev/zero, a FIFO or a link into /proc is refused at once, naming it:
// never copied until the disk is full, never waited on.
func TestGooseWALHostile(t *testing.T) {
	script, err := os.ReadFile("testdata/goose.sql")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(wal string) error{
		"dev-zero": func(wal string) error { return os.Symlink("/dev/zero", wal) },
		"fifo":     func(wal string) error { return syscall.Mkfifo(wal, 0o600) },
		"proc":     func(wal string) error { return os.Symlink("/proc/self/status", wal) },
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), transcript.GooseDB)
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(string(script)); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if err := mk(path + "-wal"); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := transcript.ExportGoose(path); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "sessions.db-wal") {
					t.Errorf("a hostile write-ahead log: %v, want an error naming it", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the export waits on the write-ahead log")
			}
		})
	}
}
