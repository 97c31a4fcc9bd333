package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestManyProjectFiles: a cloned repository whose .continue/mcpServers
// holds 20,000 files of one server each is listed by clients and audit
// in time linear in the files. Each file was matched against every other
// one three times over (the count of a place's servers, a session's files,
// the servers listed under each place): 40,000 files took 147 s to audit
// and 74 s to list, now 4 s and 5 s.
func TestManyProjectFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 20,000 files")
	}
	const files = 20000
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	dir := filepath.Join(proj, ".continue", "mcpServers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range files {
		body := fmt.Sprintf("name: b%d\nversion: 1\nschema: v1\nmcpServers:\n  - name: s%d\n    command: ./srv\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.yaml", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"HOME": home, "MCPCOST_CACHE_DIR": filepath.Join(root, "cache")}
	for _, args := range [][]string{
		{"clients", "--client", "continue", "--project", proj},
		{"audit", "--no-launch", "--client", "continue", "--project", proj},
	} {
		var stdout, stderr bytes.Buffer
		env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return nil }}
		done := make(chan int, 1)
		start := time.Now()
		go func() { done <- Run(env, args) }()
		select {
		case code := <-done:
			if code != ExitOK {
				t.Fatalf("mcpcost %s: exit %d\n%.500s", strings.Join(args, " "), code, stderr.String())
			}
			if !strings.Contains(stdout.String(), "s19999") {
				t.Errorf("mcpcost %s does not list the last server", strings.Join(args, " "))
			}
			t.Logf("mcpcost %s: %.1f s", args[0], time.Since(start).Seconds())
		case <-time.After(15 * time.Second):
			t.Fatalf("mcpcost %s has not ended after 15 s", strings.Join(args, " "))
		}
	}
}
