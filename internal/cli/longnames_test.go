package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestLongStoredNames: a transcript whose model name, project path and MCP
// server and tool names are a megabyte each gets reports of a few
// kilobytes in text and Markdown (every table cell and every listed name
// cut, with a marker), valid UTF-8 with no raw escape; --json keeps the
// strings whole.
func TestLongStoredNames(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	vars := map[string]string{"HOME": home, "TZ": "UTC", "XDG_DATA_HOME": filepath.Join(root, "data")}
	getenv := func(k string) string { return vars[k] }
	const mb = 1 << 20
	big := func(c string) string { return strings.Repeat(c, mb/len(c)) }
	js := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	model := "claude-" + big("é\x1b")
	line := fmt.Sprintf(`{"type":"assistant","sessionId":"s1","cwd":%s,"timestamp":"2026-11-20T09:00:00.000Z","requestId":"r1","message":{"id":"m1","model":%s,"content":[{"type":"tool_use","id":"t1","name":%s,"input":{}}],"usage":{"input_tokens":10,"output_tokens":20}}}`,
		js("/p/"+big("ü")), js(model), js("mcp__"+big("s")+"__"+big("ẗ")))
	path := filepath.Join(home, ".claude", "projects", "-p", "s1.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Environ: func() []string { return nil }, Now: func() time.Time { return at }}
		if code := Run(env, args); code != ExitOK {
			t.Fatalf("mcpcost %s: exit %d\n%.500s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	// The store keeps a name over transcript.MaxName shortened, with a
	// hash of the whole; --json shows it as stored, not cut again.
	stored := transcript.BoundName(model)
	if stored == model || len(stored) > transcript.MaxName {
		t.Fatalf("the model name of %d bytes is stored as %d bytes", len(model), len(stored))
	}
	if out := run("usage", "--json"); !strings.Contains(out, js(stored)[1:len(js(stored))-1]) {
		t.Errorf("usage --json does not keep the model name as stored")
	}
	for _, args := range [][]string{
		{"usage", "--by", "model"}, {"usage", "--by", "model", "--markdown"},
		{"usage", "--by", "project"}, {"usage", "--by", "project", "--markdown"},
		{"usage", "--by", "tool"}, {"usage", "--by", "tool", "--markdown"},
		{"usage", "--by", "session", "--markdown"},
		{"blocks", "--no-ingest"},
	} {
		out := run(append(args, "--no-ingest")...)
		name := strings.Join(args, " ")
		if len(out) > 64<<10 {
			t.Errorf("mcpcost %s: %d bytes", name, len(out))
		}
		if !utf8.ValidString(out) || strings.Contains(out, "\x1b") {
			t.Errorf("mcpcost %s: invalid UTF-8 or a raw escape", name)
		}
		if !strings.Contains(out, "bytes)") && !strings.Contains(out, "…") {
			t.Errorf("mcpcost %s: no mark of a cut in %.300q", name, out)
		}
	}
}
