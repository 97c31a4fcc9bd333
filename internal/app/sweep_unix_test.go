//go:build unix

package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/sweep"
)

// sweepWithin runs a sweep of one server ("ok") into out and fails the
// test when it has not returned within 30 s: a FIFO opened to be read
// waits for a writer that never comes.
func sweepWithin(t *testing.T, out string) (*SweepResult, error) {
	t.Helper()
	stdio := testServer(t, "stdioserver")
	servers := []sweep.Server{{Name: "ok", Command: stdio, Args: []string{"ok"}, CommandLine: stdio + " ok"}}
	type result struct {
		res *SweepResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Out: out, Date: "2026-12-01"})
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(30 * time.Second):
		t.Fatal("the sweep still runs after 30 s: it waits on a FIFO")
	}
	return nil, nil
}

// TestSweepOwnFolder: a sweep reads and writes only regular files in real
// folders below its output folder. A link to a file it writes is replaced,
// not written through; a FIFO where it writes is replaced, not waited on; a
// link or a FIFO where it reads (a prior measurement, the history), and a
// link where it makes a folder, are refused, naming them, and nothing
// outside the folder is read or written.
func TestSweepOwnFolder(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "victim")
	const secret = "root:x:0:0:secret\n"
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	fifo := func(p string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	regular := func(p string) {
		t.Helper()
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v, not a regular file", p, fi.Mode())
		}
	}

	t.Run("written", func(t *testing.T) {
		write(victim, secret)
		out := t.TempDir()
		link(victim, filepath.Join(out, "servers", "ok.html"))
		link(victim, filepath.Join(out, "badges", "ok.json"))
		fifo(filepath.Join(out, "leaderboard.md"))
		fifo(filepath.Join(out, "servers", "ok.md"))
		if _, err := sweepWithin(t, out); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(victim); string(b) != secret {
			t.Errorf("written through a link: %q", b)
		}
		for _, f := range []string{"servers/ok.html", "badges/ok.json", "leaderboard.md", "servers/ok.md"} {
			regular(filepath.Join(out, f))
		}
	})
	for _, tt := range []struct {
		name, what string
		make       func(out string)
	}{
		{"measurement link", "results/ok/measurement.json is a symbolic link", func(out string) { link(victim, filepath.Join(out, "results", "ok", "measurement.json")) }},
		{"measurement FIFO", "results/ok/measurement.json is a named pipe", func(out string) { fifo(filepath.Join(out, "results", "ok", "measurement.json")) }},
		{"history link", "history.csv is a symbolic link", func(out string) { link(victim, filepath.Join(out, "history.csv")) }},
		{"history FIFO", "history.csv is a named pipe", func(out string) { fifo(filepath.Join(out, "history.csv")) }},
		{"results folder link", "results is a symbolic link", func(out string) { link(filepath.Dir(victim), filepath.Join(out, "results")) }},
		{"badges folder link", "badges is a symbolic link", func(out string) { link(filepath.Dir(victim), filepath.Join(out, "badges")) }},
		{"server folder link", "results/ok is a symbolic link", func(out string) { link(filepath.Dir(victim), filepath.Join(out, "results", "ok")) }},
		{"folder a file", "servers is not a folder", func(out string) { write(filepath.Join(out, "servers"), "x") }},
		{"lock link", ".mcpcost-sweep.lock is a symbolic link", func(out string) { link(victim, filepath.Join(out, ".mcpcost-sweep.lock")) }},
		{"lock FIFO", ".mcpcost-sweep.lock is a named pipe", func(out string) { fifo(filepath.Join(out, ".mcpcost-sweep.lock")) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(filepath.Dir(victim))
			write(victim, secret)
			out := t.TempDir()
			tt.make(out)
			_, err := sweepWithin(t, out)
			if err == nil || !strings.Contains(err.Error(), filepath.Join(out, tt.what)) {
				t.Errorf("got %v, want an error naming %s", err, tt.what)
			}
			if errorHintOf(err) == "" {
				t.Errorf("%v: no hint", err)
			}
			if b, _ := os.ReadFile(victim); string(b) != secret {
				t.Errorf("written through a link: %q", b)
			}
			if es, _ := os.ReadDir(filepath.Dir(victim)); len(es) != 1 {
				t.Errorf("%d files beside the victim: written through a link", len(es))
			}
		})
	}
}

// TestOutFolderMissing: a folder that does not exist holds nothing, at
// its top and below.
func TestOutFolderMissing(t *testing.T) {
	dir, err := openOutFolder(filepath.Join(t.TempDir(), "none"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	for _, rel := range []string{"history.csv", filepath.Join("results", "a", "measurement.json")} {
		if _, err := dir.read(rel, 10); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v, want it not to exist", rel, err)
		}
	}
}
