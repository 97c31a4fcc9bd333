//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// interruptAfter is a stdout that sends this process an interrupt, as
// Ctrl-C does, once it has been written frames times.
type interruptAfter struct {
	mu     sync.Mutex
	frames int
	writes int
	b      bytes.Buffer
}

func (w *interruptAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !bytes.HasPrefix(p, []byte("\x1b[?25")) { // not the cursor's hiding or showing
		w.writes++
		if w.writes == w.frames {
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
	}
	return len(p), nil
}

// TestBlocksLive: --live redraws the active block until interrupted, in
// place on a terminal (the cursor hidden, each frame from the top left,
// the cursor shown again at the end) and as plain frames one after the
// other when the output is not a terminal; an interrupt ends it with
// status 0.
func TestBlocksLive(t *testing.T) {
	home := t.TempDir()
	now := time.Date(2026, 11, 2, 12, 10, 0, 0, time.UTC)
	dir := filepath.Join(home, ".claude", "projects", "-home-u-p")
	os.MkdirAll(dir, 0o755)
	var lines []string
	for i, at := range []string{"2026-11-02T10:05:00.000Z", "2026-11-02T11:05:00.000Z"} {
		lines = append(lines, fmt.Sprintf(`{"type":"assistant","cwd":"/home/u/p","sessionId":"s1","version":"2.1.97","message":{"id":"msg_%d","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":10,"output_tokens":590}},"requestId":"req_%d","uuid":"a%d","timestamp":"%s"}`, i, i, i, at))
	}
	os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "TZ":
			return "UTC"
		}
		return ""
	}
	// An empty Codex folder: named, it must exist.
	if err := os.MkdirAll(filepath.Join(home, "none"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tty := range []bool{true, false} {
		t.Run(fmt.Sprintf("tty=%v", tty), func(t *testing.T) {
			out := &interruptAfter{frames: 2}
			var stderr bytes.Buffer
			env := &Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &stderr, Getenv: getenv, Environ: func() []string { return nil },
				Now: func() time.Time { return now }, StdoutTTY: tty}
			code := Run(env, []string{"blocks", "--live", "--refresh", "1", "--tz", "UTC", "--db", filepath.Join(t.TempDir(), "u.db"),
				"--claude-dir", filepath.Join(home, ".claude"), "--codex-dir", filepath.Join(home, "none")})
			got := out.b.String()
			if code != ExitOK {
				t.Fatalf("exit %d\n%s%s", code, got, stderr.String())
			}
			if n := strings.Count(got, "Active block: from 10:00 to 15:00 (2h 50m left): 1,200 tokens in 2 requests"); n != 2 {
				t.Errorf("%d frames with the active block, want 2:\n%q", n, got)
			}
			// On a terminal the status is in colour.
			plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(got, "")
			if strings.Contains(plain, "2026-11-02 10:00  ACTIVE, 2h 50m left") == false {
				t.Errorf("no active row:\n%s", got)
			}
			escapes := strings.Contains(got, "\x1b[")
			if tty {
				if !strings.HasPrefix(got, "\x1b[?25l\x1b[2J\x1b[H") || !strings.HasSuffix(got, "\x1b[J\x1b[?25h") || strings.Count(got, "\x1b[H") != 2 {
					t.Errorf("not redrawn in place:\n%q", got)
				}
			} else if escapes {
				t.Errorf("escape codes where the output is not a terminal:\n%q", got)
			}
		})
	}
}
