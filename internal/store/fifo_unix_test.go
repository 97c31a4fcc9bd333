//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/token"
)

// TestFIFOSwappedIn: a transcript, a chat or an agent's database that
// is a FIFO by the time it is opened (swapped in since it was listed:
// before its read, or before the check of a known file's edges) is
// never waited on: the ingest ends, with a warning naming the file. A
// deadline guards the test; it is not what decides it (past the
// deadline the FIFO is opened for writing, which lets an open waiting on
// it go, until the ingest ends).
func TestFIFOSwappedIn(t *testing.T) {
	for _, tc := range []struct {
		name, path string // path under the home
		plan       bool   // swapped in before the plan, the file known
	}{
		{"claude", ".claude/projects/p/s.jsonl", false},
		{"claude known", ".claude/projects/p/s.jsonl", true},
		{"codex", ".codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-0b4c7a3e-0000-4000-8000-000000000001.jsonl", false},
		{"copilot", ".copilot/session-state/0b4c7a3e/events.jsonl", false},
		{"gemini jsonl", ".gemini/tmp/ab/chats/session-2026-01-02T10-00-x.jsonl", false},
		{"gemini json", ".gemini/tmp/ab/chats/session-2026-01-02T10-00-y.json", false},
		{"gemini known", ".gemini/tmp/ab/chats/session-2026-01-02T10-00-y.json", true},
		{"opencode message", ".local/share/opencode/storage/message/ses_1/msg_1.json", false},
		{"opencode.db", ".local/share/opencode/opencode.db", false},
		{"goose", ".local/share/goose/sessions/sessions.db", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			target := filepath.Join(home, tc.path)
			os.MkdirAll(filepath.Dir(target), 0o755)
			// Its content does not matter: it is a FIFO when it is read. A
			// known file is empty, as the FIFO's size is.
			os.WriteFile(target, nil, 0o644)
			other := filepath.Join(home, ".claude/projects/q/other.jsonl")
			os.MkdirAll(filepath.Dir(other), 0o755)
			os.WriteFile(other, nil, 0o644)
			o := IngestOptions{
				ClaudeRoots:   []string{filepath.Join(home, ".claude/projects")},
				CodexRoots:    []string{filepath.Join(home, ".codex/sessions")},
				CopilotRoots:  []string{filepath.Join(home, ".copilot/session-state")},
				GeminiRoots:   []string{filepath.Join(home, ".gemini")},
				OpencodeRoots: []string{filepath.Join(home, ".local/share/opencode")},
				GooseRoots:    []string{filepath.Join(home, ".local/share/goose/sessions")},
				Count:         token.O200k().Count,
			}
			s := open(t, filepath.Join(t.TempDir(), "usage.db"))
			swap := func() {
				os.Remove(target)
				if err := syscall.Mkfifo(target, 0o644); err != nil {
					t.Skip("no FIFOs here:", err)
				}
			}
			if tc.plan {
				if _, err := s.Ingest(context.Background(), o); err != nil {
					t.Fatal(err)
				}
				// Another file has new bytes: the known ones are planned.
				os.WriteFile(other, []byte(`{"type":"summary"}`+"\n"), 0o644)
				defer func(old func()) { testOnlyAfterCheck = old }(testOnlyAfterCheck)
				testOnlyAfterCheck = func() { testOnlyAfterCheck = func() {}; swap() }
			} else {
				defer func(old func(string)) { testOnlyBeforeRead = old }(testOnlyBeforeRead)
				testOnlyBeforeRead = func(path string) {
					if path == target {
						swap()
					}
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			type result struct {
				st  *IngestStats
				err error
			}
			done := make(chan result, 1)
			go func() {
				st, err := s.Ingest(ctx, o)
				done <- result{st, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-ctx.Done():
				// Let each open that waits on the FIFO go, until the ingest
				// ends.
				for r.st == nil {
					if w, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						w.Close()
					}
					select {
					case r = <-done:
					case <-time.After(50 * time.Millisecond):
					}
				}
				t.Fatal("the ingest waited on the FIFO")
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			found := false
			for _, w := range r.st.Warnings {
				found = found || (strings.HasPrefix(w, target+": ") && strings.HasSuffix(w, "not a regular file (a named pipe), not read"))
			}
			if !found {
				t.Errorf("warnings %q; want one naming %s, not a regular file", r.st.Warnings, target)
			}
		})
	}
}
