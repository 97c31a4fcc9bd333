//go:build unix

package clients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test when f does not return within d (a read that
// hangs on a named pipe).
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

func TestReadFileMax(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	writeFile(t, p("ten"), []byte("0123456789"))
	writeFile(t, p("eleven"), []byte("0123456789a"))
	writeFile(t, p("at-cap"), bytes.Repeat([]byte(" "), MaxConfigSize))
	writeFile(t, p("over-cap"), bytes.Repeat([]byte(" "), MaxConfigSize+1))
	// Sparse: the size is refused from the file's status, unread.
	for name, size := range map[string]int64{"at-state-cap": MaxClaudeStateSize, "over-state-cap": MaxClaudeStateSize + 1} {
		f, err := os.Create(p(name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"/dev/zero", "zero"}, {"/dev/urandom", "urandom"}, {"loop-b", "loop-a"}, {"loop-a", "loop-b"}, {"ten", "link-to-ten"}, {"fifo", "link-to-fifo"}} {
		if err := os.Symlink(l[0], p(l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(p("folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		max  int64
		want string // "" reads; else a part of the error
		size int
	}{
		{"ten", 10, "", 10},
		{"eleven", 10, "11 bytes, larger than the 10 bytes cap", 0},
		{"eleven", 11, "", 11},
		{"link-to-ten", 10, "", 10},
		{"at-cap", MaxConfigSize, "", MaxConfigSize},
		{"over-cap", MaxConfigSize, "4,194,305 bytes, larger than the 4 MiB (4,194,304-byte) cap on config files", 0},
		{"at-state-cap", MaxClaudeStateSize, "", MaxClaudeStateSize},
		{"over-state-cap", MaxClaudeStateSize, "268,435,457 bytes, larger than the 256 MiB (268,435,456-byte) cap on config files", 0},
		{"fifo", MaxConfigSize, "a named pipe (FIFO), not a regular file", 0},
		{"link-to-fifo", MaxConfigSize, "a named pipe (FIFO), not a regular file", 0},
		{"zero", MaxConfigSize, "a character device, not a regular file", 0},
		{"urandom", MaxConfigSize, "a character device, not a regular file", 0},
		{"loop-a", MaxConfigSize, "too many levels of symbolic links", 0},
		{"folder", MaxConfigSize, "a folder, not a regular file", 0},
		{"missing", MaxConfigSize, "no such file", 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.name, tt.max), func(t *testing.T) {
			if tt.size > MaxConfigSize && testing.Short() {
				t.Skip("reads 256 MiB")
			}
			var data []byte
			var err error
			// A refusal or a small read is at once; 256 MiB on a loaded
			// machine may take a while, and only a hang is wrong there.
			bound := 5 * time.Second
			if tt.size > MaxConfigSize {
				bound = 2 * time.Minute
			}
			within(t, bound, func() { data, err = OSFS{}.ReadFileMax(p(tt.name), tt.max) })
			if tt.want == "" {
				if err != nil || len(data) != tt.size {
					t.Fatalf("got %d bytes, %v; want %d bytes", len(data), err, tt.size)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
			if msg := readError(p(tt.name), err).Error(); !strings.HasPrefix(msg, "reading "+p(tt.name)+": ") || strings.Count(msg, p(tt.name)) != 1 {
				t.Errorf("the message names the file once: %q", msg)
			}
		})
	}
	// ReadFile is ReadFileMax with MaxConfigSize: envFile and {file:}
	// references go through it.
	if _, err := (OSFS{}).ReadFile(p("over-cap")); err == nil {
		t.Errorf("ReadFile read a file over MaxConfigSize")
	}
}

// hostileRepo makes a project folder a cloned repository could hold: each
// client's project config is something that must be refused.
func hostileRepo(t *testing.T) System {
	t.Helper()
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	deep := strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000)
	writeFile(t, filepath.Join(proj, ".vscode", "mcp.json"), []byte(`{"servers": `+deep+`}`))
	writeFile(t, filepath.Join(proj, ".gemini", "settings.json"), []byte(`{"mcpServers": {"a": `+strings.Repeat(`{"a": `, 5000)+strings.Repeat("}", 5002)))
	writeFile(t, filepath.Join(proj, ".codex", "config.toml"), []byte("[mcp_servers"+strings.Repeat(".a", 1_000_000)+"]\ncommand = \"x\"\n"))
	writeFile(t, filepath.Join(proj, ".continue", "mcpServers", "deep.yaml"), []byte("mcpServers:\n  "+strings.Repeat("- ", 1_000_000)+"x\n"))
	writeFile(t, filepath.Join(proj, ".continue", "mcpServers", "flow.yaml"), []byte("mcpServers: "+deep+"\n"))
	writeFile(t, filepath.Join(proj, "opencode.json"), bytes.Repeat([]byte(" "), MaxConfigSize+1))
	if err := os.Symlink("/dev/zero", filepath.Join(proj, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, ".cursor", "mcp.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, ".zed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("settings.json", filepath.Join(proj, ".zed", "settings.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, ".vscode", "settings.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Claude Code's settings, read for approvals and the posture.
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, ".claude", "settings.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/urandom", filepath.Join(proj, ".claude", "settings.local.json")); err != nil {
		t.Fatal(err)
	}
	// A good config beside them is still read.
	writeFile(t, filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"), []byte(`{"mcpServers": {"ok": {"command": "ok"}}}`))
	return System{OS: "linux", Home: home, Cwd: proj, FS: OSFS{}, Getenv: func(string) string { return "" }}
}

// TestHostileRepo: every refused file is named with its reason, quickly,
// and the rest of discovery goes on.
func TestHostileRepo(t *testing.T) {
	sys := hostileRepo(t)
	var configs []Config
	var looked []Location
	within(t, 20*time.Second, func() { configs, looked = Discover(sys, nil) })
	want := map[string]string{
		".mcp.json":                      "a character device, not a regular file",
		".cursor/mcp.json":               "a named pipe (FIFO), not a regular file",
		".vscode/mcp.json":               ":1:1012: arrays and objects nested more than 1000 levels deep",
		".vscode/settings.json":          "a folder, not a regular file",
		".gemini/settings.json":          ":1:6010: arrays and objects nested more than 1000 levels deep",
		".codex/config.toml":             ":1:2011: table names nested more than 1000 levels deep",
		".continue/mcpServers/deep.yaml": ":2:1999: collections nested more than 1000 levels deep",
		".continue/mcpServers/flow.yaml": ":1:1012: flow collections nested more than 1000 levels deep",
		".zed/settings.json":             "too many levels of symbolic links",
		"opencode.json":                  "4,194,305 bytes, larger than the 4 MiB (4,194,304-byte) cap on config files",
	}
	got := map[string]string{}
	for _, l := range looked {
		if rel, ok := strings.CutPrefix(l.Path, sys.Cwd+"/"); ok && l.Error != "" {
			got[rel] = l.Error
			if !strings.Contains(l.Error, l.Path) {
				t.Errorf("%s: the error does not name the file: %q", rel, l.Error)
			}
		}
	}
	for rel, w := range want {
		if !strings.Contains(got[rel], w) {
			t.Errorf("%s: got %q, want %q", rel, got[rel], w)
		}
	}
	ok := false
	for _, c := range configs {
		if c.Client == Windsurf && len(c.Servers) == 1 && c.Error == "" {
			ok = true
		}
	}
	if !ok {
		t.Errorf("the good Windsurf config beside the hostile files was not read")
	}
	// The posture reads the same settings: it says they cannot be read.
	var p Posture
	within(t, 20*time.Second, func() { p = PostureFor(sys, ClaudeCode) })
	b, _ := json.Marshal(p)
	if p.Refusal != RefusalSourceUnreadable || !strings.Contains(string(b), "settings.json: a named pipe (FIFO)") || !strings.Contains(string(b), "settings.local.json: a character device") {
		t.Errorf("the posture does not refuse for the unreadable settings, naming them: %s", b)
	}
	// Load, as --config and audit_config read a file, refuses alike.
	for rel, w := range map[string]string{".mcp.json": "a character device", ".cursor/mcp.json": "a named pipe", ".vscode/mcp.json": "nested more than"} {
		var cfg Config
		var err error
		within(t, 20*time.Second, func() { cfg, err = Load(sys, filepath.Join(sys.Cwd, rel)) })
		msg := cfg.Error
		if err != nil {
			msg = err.Error()
		}
		if !strings.Contains(msg, w) || !strings.Contains(msg, filepath.Join(sys.Cwd, rel)) {
			t.Errorf("Load %s: got %q, want the file and %q", rel, msg, w)
		}
	}
}

// touchFS is a filesystem that records every path under under it is asked
// about.
type touchFS struct {
	FS
	under   string
	touched *[]string
}

func (f touchFS) note(name string) {
	if strings.HasPrefix(name, f.under) {
		*f.touched = append(*f.touched, name)
	}
}
func (f touchFS) ReadFile(name string) ([]byte, error)  { f.note(name); return f.FS.ReadFile(name) }
func (f touchFS) ReadDir(name string) ([]string, error) { f.note(name); return f.FS.ReadDir(name) }
func (f touchFS) IsDir(name string) bool                { f.note(name); return f.FS.IsDir(name) }

// TestWithheldEnvFileNotRead: the envFile of a server that needs approval
// is neither opened nor asked about, and what is shown of the server is
// the same whether the file exists, is missing, cannot be read or is a
// folder: a repository's "envFile" was a probe of the user's files (the
// note "cannot be read" appeared only for a missing or unreadable one).
// An approved server's envFile is still read.
func TestWithheldEnvFileNotRead(t *testing.T) {
	states := []string{"exists", "missing", "unreadable", "folder"}
	for _, client := range []string{ClaudeCode, VSCode} {
		var first string
		for _, state := range states {
			if state == "unreadable" && os.Geteuid() == 0 {
				continue // root reads a file of mode 000
			}
			for _, trust := range []bool{false, true} {
				root := t.TempDir()
				home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
				envFile := filepath.Join(root, "secrets", "env")
				entry := fmt.Sprintf(`{"command": "p-mcp", "envFile": %q}`, envFile)
				scope := "project"
				if client == ClaudeCode {
					writeFile(t, filepath.Join(proj, ".mcp.json"), []byte(`{"mcpServers": {"p": `+entry+`}}`))
				} else {
					scope = "workspace"
					writeFile(t, filepath.Join(proj, ".vscode", "mcp.json"), []byte(`{"servers": {"p": `+entry+`}}`))
				}
				switch state {
				case "exists", "unreadable":
					writeFile(t, envFile, []byte("FROM_FILE=1\n"))
					if state == "unreadable" {
						if err := os.Chmod(envFile, 0); err != nil {
							t.Fatal(err)
						}
					}
				case "folder":
					if err := os.MkdirAll(envFile, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				var touched []string
				sys := System{OS: "linux", Home: home, Cwd: proj, TrustProject: trust,
					FS: touchFS{FS: OSFS{}, under: filepath.Join(root, "secrets"), touched: &touched}, Getenv: func(string) string { return "" }}
				configs, _ := Discover(sys, []string{client})
				s, ok := statuses(configs, scope)["p"]
				if !ok {
					t.Fatalf("%s %s: no server p in %+v", client, state, configs)
				}
				b, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				shown := strings.ReplaceAll(string(b)+"\n"+strings.Join(s.Notes, "\n")+"\n"+s.Display(), root, "ROOT")
				if trust {
					if loaded := s.Env["FROM_FILE"] == "1"; loaded != (state == "exists") {
						t.Errorf("%s %s, trusted: envFile loaded %v: %s", client, state, loaded, shown)
					}
					continue
				}
				if s.Status() != StatusNeedsApproval {
					t.Fatalf("%s %s: status %s, want needs approval", client, state, s.Status())
				}
				if len(touched) > 0 {
					t.Errorf("%s %s: the withheld envFile is looked at: %q", client, state, touched)
				}
				if first == "" {
					first = shown
				} else if shown != first {
					t.Errorf("%s: a withheld envFile that is %s shows\n%s\nwhere one that exists shows\n%s", client, state, shown, first)
				}
			}
		}
	}
}

// TestUnstartedEnvFileNotRead: the envFile of a server mcpcost does not
// start because it is disabled or has a problem is not read either, and
// what is shown of it is the same whatever the file is: a project's
// server that needs approval but is disabled (Codex's untrusted project,
// disabledMcpjsonServers in the project's own settings) or has a problem
// (an unknown type) is never withheld, and its envFile told whether a
// path exists and listed the names a file holds (AWS_SECRET_ACCESS_KEY
// of any NAME=value file on the machine).
func TestUnstartedEnvFileNotRead(t *testing.T) {
	for _, tt := range []struct {
		name, client, scope string
		files               func(envFile string) map[string]string
	}{
		{"claude-code problem", ClaudeCode, "project", func(envFile string) map[string]string {
			return map[string]string{".mcp.json": fmt.Sprintf(`{"mcpServers": {"p": {"type": "bogus", "command": "p-mcp", "envFile": %q}}}`, envFile)}
		}},
		{"claude-code disabled by the project", ClaudeCode, "project", func(envFile string) map[string]string {
			return map[string]string{
				".mcp.json":             fmt.Sprintf(`{"mcpServers": {"p": {"command": "p-mcp", "envFile": %q}}}`, envFile),
				".claude/settings.json": `{"disabledMcpjsonServers": ["p"]}`,
			}
		}},
		{"codex untrusted project", Codex, "project", func(envFile string) map[string]string {
			return map[string]string{".codex/config.toml": fmt.Sprintf("[mcp_servers.p]\ncommand = \"p-mcp\"\nenvFile = %q\n", envFile)}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var first string
			for _, state := range []string{"exists", "missing", "folder"} {
				root := t.TempDir()
				home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
				envFile := filepath.Join(root, "secrets", "env")
				for name, data := range tt.files(envFile) {
					writeFile(t, filepath.Join(proj, name), []byte(data))
				}
				switch state {
				case "exists":
					writeFile(t, envFile, []byte("AWS_SECRET_ACCESS_KEY=x\n"))
				case "folder":
					if err := os.MkdirAll(envFile, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				var touched []string
				sys := System{OS: "linux", Home: home, Cwd: proj,
					FS: touchFS{FS: OSFS{}, under: filepath.Join(root, "secrets"), touched: &touched}, Getenv: func(string) string { return "" }}
				configs, _ := Discover(sys, []string{tt.client})
				s, ok := statuses(configs, tt.scope)["p"]
				if !ok {
					t.Fatalf("%s: no server p in %+v", state, configs)
				}
				if s.Launchable() {
					t.Fatalf("%s: server p is launchable", state)
				}
				b, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				shown := strings.ReplaceAll(string(b)+"\n"+strings.Join(s.Notes, "\n")+"\n"+s.Display(), root, "ROOT")
				if len(touched) > 0 {
					t.Errorf("%s: the envFile of a server not started is looked at: %q", state, touched)
				}
				if strings.Contains(shown, "AWS_SECRET_ACCESS_KEY") {
					t.Errorf("%s: a name the envFile holds is shown: %s", state, shown)
				}
				if first == "" {
					first = shown
				} else if shown != first {
					t.Errorf("an envFile that is %s shows\n%s\nwhere one that exists shows\n%s", state, shown, first)
				}
			}
		})
	}
}

// TestEnvFileGuarded: the envFile of an approved server is read as config
// files are: a named pipe, a device or a file over MaxConfigSize is
// refused at once, unread, with a note naming the file and why, and
// what is not refused is read to the cap (a read that waits on the pipe
// or takes /dev/zero whole fails here instead of hanging).
func TestEnvFileGuarded(t *testing.T) {
	pad := func(size int) []byte {
		b := bytes.Repeat([]byte("#"), size)
		copy(b, "FROM_FILE=1\n")
		b[size-1] = '\n'
		return b
	}
	tests := []struct {
		state string
		make  func(t *testing.T, path string)
		want  string // a part of the note; "" loads the file
	}{
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is refused (a named pipe (FIFO), not a regular file), so the variables it holds are missing"},
		{"link to a fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path+".fifo", 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(path+".fifo", path); err != nil {
				t.Fatal(err)
			}
		}, "is refused (a named pipe (FIFO), not a regular file), so the variables it holds are missing"},
		{"/dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "is refused (a character device, not a regular file), so the variables it holds are missing"},
		{"over the cap", func(t *testing.T, path string) { writeFile(t, path, pad(MaxConfigSize+1)) },
			"is refused (4,194,305 bytes, larger than the 4 MiB (4,194,304-byte) cap on config files), so the variables it holds are missing"},
		{"at the cap", func(t *testing.T, path string) { writeFile(t, path, pad(MaxConfigSize)) }, ""},
		{"missing", func(t *testing.T, path string) {}, "cannot be read, so the variables it holds are missing"},
	}
	for _, tt := range tests {
		t.Run(tt.state, func(t *testing.T) {
			root := t.TempDir()
			home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
			envFile := filepath.Join(root, "secrets", "env")
			if err := os.MkdirAll(filepath.Dir(envFile), 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, envFile)
			writeFile(t, filepath.Join(proj, ".mcp.json"), []byte(fmt.Sprintf(`{"mcpServers": {"p": {"command": "p-mcp", "envFile": %q}}}`, envFile)))
			writeFile(t, filepath.Join(home, ".claude", "settings.json"), []byte(`{"enabledMcpjsonServers": ["p"]}`))
			sys := System{OS: "linux", Home: home, Cwd: proj, FS: OSFS{}, Getenv: func(string) string { return "" }}
			var configs []Config
			within(t, 5*time.Second, func() { configs, _ = Discover(sys, []string{ClaudeCode}) })
			s, ok := statuses(configs, "project")["p"]
			if !ok {
				t.Fatalf("no server p in %+v", configs)
			}
			notes := strings.Join(s.Notes, "\n")
			if tt.want == "" {
				if s.Env["FROM_FILE"] != "1" || notes != "" {
					t.Fatalf("envFile not loaded: env %q, notes %q", s.EnvNames(), notes)
				}
				return
			}
			if _, loaded := s.Env["FROM_FILE"]; loaded {
				t.Errorf("envFile loaded")
			}
			if want := "envFile " + envFile + " " + tt.want; notes != want {
				t.Errorf("notes\n%s\nwant\n%s", notes, want)
			}
		})
	}
}
