package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIngestJSONDeterministic: usage and blocks --json, run twice over the
// same store and transcripts under the same clock, print the same bytes:
// nothing in them is timed by the wall clock (the ingest's wait for
// another process goes to stderr only).
func TestIngestJSONDeterministic(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	vars := map[string]string{"HOME": home, "TZ": "UTC", "XDG_DATA_HOME": filepath.Join(root, "data")}
	getenv := func(k string) string { return vars[k] }
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	line := `{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-11-20T09:00:00.000Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":10,"output_tokens":20}}}` + "\n"
	path := filepath.Join(home, ".claude", "projects", "-p", "s1.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Environ: func() []string { return nil }, Now: func() time.Time { return at.AddDate(0, 0, 1) }}
		if code := Run(env, args); code != ExitOK {
			t.Fatalf("mcpcost %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.Bytes()
	}
	for _, cmd := range [][]string{{"usage", "--json"}, {"blocks", "--json"}} {
		run(cmd...) // reads the transcript
		a, b := run(cmd...), run(cmd...)
		if !bytes.Equal(a, b) {
			t.Errorf("mcpcost %s: two runs differ:\n%s\n---\n%s", strings.Join(cmd, " "), a, b)
		}
		if !bytes.Contains(a, []byte(`"ingest"`)) {
			t.Errorf("mcpcost %s: no ingest in\n%s", strings.Join(cmd, " "), a)
		}
	}
}
