package clients

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestDisplayHidesEnvValues(t *testing.T) {
	s := Server{Name: "x", Transport: Stdio, Command: "srv", Args: []string{"--db", "hunter2-password"},
		Env: map[string]string{"DB_PASS": "hunter2-password"}, Headers: map[string]string{"X-Key": "zzz"}}
	if got := s.Display(); got != "srv --db ***" {
		t.Errorf("Display = %q", got)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2", "zzz"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("JSON holds %q: %s", secret, b)
		}
	}
	if !strings.Contains(string(b), `"envNames":["DB_PASS"]`) || !strings.Contains(string(b), `"headerNames":["X-Key"]`) {
		t.Errorf("JSON lacks the names: %s", b)
	}
}

// TestDisplayKeepsCommand: the launch line audit and clients show hides
// the values of secret-named env variables and credentials, not a plain
// value, and never the command word some value equals.
func TestDisplayKeepsCommand(t *testing.T) {
	env := map[string]string{"NODE": "node", "SHELL": "/bin/sh", "LOG_LEVEL": "info", "API_KEY": "k-77"}
	for _, c := range []struct {
		s    Server
		want string
	}{
		{Server{Transport: Stdio, Command: "node", Args: []string{"srv.js", "--level", "info", "--key", "k-77"}, Env: env}, "node srv.js --level info --key ***"},
		{Server{Transport: Stdio, Command: "/bin/sh", Args: []string{"-c", "node srv.js --level info x/k-77"}, Env: env}, `/bin/sh -c "node srv.js --level info x/***"`},
	} {
		if got := c.s.Display(); got != c.want {
			t.Errorf("Display = %q, want %q", got, c.want)
		}
	}
}

func TestDisplayQuotes(t *testing.T) {
	s := Server{Transport: Stdio, Command: "node", Args: []string{"/path with space/index.js", ""}}
	if got, want := s.Display(), `node "/path with space/index.js" ""`; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
}

func TestLaunchKey(t *testing.T) {
	key := []byte("per-install key")
	a := Server{Transport: Stdio, Command: "srv", Args: []string{"a"}, Env: map[string]string{"K": "secret-1", "A": "x"}}
	b := a
	b.Env = map[string]string{"A": "x", "K": "secret-1"}
	c := a
	c.Env = map[string]string{"A": "x", "K": "secret-2"}
	ka, kb, kc := a.LaunchKey(key), b.LaunchKey(key), c.LaunchKey(key)
	if ka != kb {
		t.Error("the same launch spec gives two keys")
	}
	if ka == kc {
		t.Error("a different env value gives the same key")
	}
	if ka == a.LaunchKey([]byte("another key")) {
		t.Error("the key does not depend on the install key")
	}
	if len(ka) != 64 || strings.Contains(ka, "secret") {
		t.Errorf("key %q", ka)
	}
	d := a
	d.Name, d.Client, d.Source = "other", Cursor, "/x"
	if d.LaunchKey(key) != ka {
		t.Error("the key depends on more than the launch spec")
	}
	// The folder a stdio server starts in is part of its launch (`go run
	// .` in two projects); a remote server's is not.
	e, f := a, a
	e.Dir, f.Dir = "/p1", "/p2"
	if e.LaunchKey(key) == f.LaunchKey(key) || e.LaunchKey(key) == ka {
		t.Error("one stdio launch in two folders gives one key")
	}
	r1 := Server{Transport: HTTP, URL: "https://example.com/mcp", Dir: "/p1"}
	r2 := r1
	r2.Dir = "/p2"
	if r1.LaunchKey(key) != r2.LaunchKey(key) {
		t.Error("a remote server's key depends on the project folder")
	}
}

func TestToolFilter(t *testing.T) {
	cases := []struct {
		f    *ToolFilter
		tool string
		want bool
	}{
		{nil, "x", true},
		{&ToolFilter{AllowList: true, Include: []string{"a", "b"}, Exclude: []string{"b"}}, "a", true},
		{&ToolFilter{AllowList: true, Include: []string{"a", "b"}, Exclude: []string{"b"}}, "b", false},
		{&ToolFilter{AllowList: true, Include: []string{"a", "b"}}, "c", false},
		{&ToolFilter{AllowList: true}, "a", false},
		{&ToolFilter{Exclude: []string{"x"}}, "y", true},
		{&ToolFilter{Exclude: []string{"srv_*"}, Glob: true, Prefix: "srv_"}, "read", false},
		{&ToolFilter{Exclude: []string{"srv_w*"}, Glob: true, Prefix: "srv_"}, "read", true},
		{&ToolFilter{Exclude: []string{"srv_w*"}, Glob: true, Prefix: "srv_"}, "write", false},
		{&ToolFilter{Exclude: []string{"["}, Glob: true}, "[", true}, // a bad pattern matches nothing
	}
	for i, c := range cases {
		if got := c.f.Allows(c.tool); got != c.want {
			t.Errorf("%d: Allows(%q) = %v, want %v", i, c.tool, got, c.want)
		}
	}
}

func TestLaunchEnv(t *testing.T) {
	s := Server{Env: map[string]string{"A": "1", "CLAUDE_PROJECT_DIR": "/mine"}, ClientEnv: map[string]string{"CLAUDE_PROJECT_DIR": "/p", "B": "2"}}
	got := s.LaunchEnv()
	if len(got) != 3 || got["CLAUDE_PROJECT_DIR"] != "/mine" || got["B"] != "2" {
		t.Errorf("LaunchEnv = %v", got)
	}
	if e := (Server{Env: map[string]string{"A": "1"}}).LaunchEnv(); len(e) != 1 {
		t.Errorf("LaunchEnv without client env = %v", e)
	}
}

func TestSecretsOfExpandedVariables(t *testing.T) {
	vars := map[string]string{"TOKEN": "tok-11aa", "PGPASSWORD": "pw-22bb", "PGUSER": "app", "DIR": "/srv/data"}
	sys := &System{OS: "linux", Home: "/home/me", Cwd: "/proj", Getenv: func(k string) string { return vars[k] }}
	r := entryReader{sys: sys, expand: sys.expandShell}
	s := r.read("db", map[string]any{
		"command": "srv",
		"args":    []any{"--auth", "${TOKEN}", "postgresql://${PGUSER}:${PGPASSWORD}@db/x", "--dir=${DIR}", "plain", "${UNSET}"},
	})
	got := s.Secrets()
	for _, want := range []string{"tok-11aa", "pw-22bb", "/srv/data"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets misses %q: %q", want, got)
		}
	}
	for _, not := range []string{"plain", "${UNSET}", "srv"} {
		if slices.Contains(got, not) {
			t.Errorf("Secrets holds %q: %q", not, got)
		}
	}
	if d := s.Display(); d != "srv --auth *** postgresql://${PGUSER}:***@db/x --dir=${DIR} plain ${UNSET}" {
		t.Errorf("Display = %q", d)
	}
	// A variable hidden in one place reads as written in another.
	s = r.read("x", map[string]any{"command": "srv", "args": []any{"--token=${TOKEN}", "${TOKEN}"}})
	if d := s.Display(); d != "srv --token=*** ${TOKEN}" {
		t.Errorf("Display = %q", d)
	}
}

func TestExpandedValues(t *testing.T) {
	cases := []struct {
		raw, expanded string
		want          []string
	}{
		{"${A}", "x1", []string{"x1"}},
		{"pre-${A}-mid-${B}-post", "pre-one-mid-two-post", []string{"one", "two"}},
		{"${A}${B}", "onetwo", []string{"onetwo"}},
		{"${userHome}/x/${env:K}", "/home/me/x/val", []string{"val"}},
		{"$HOME/x", "$HOME/x", nil},
		{"a${A}b", "zzz", []string{"zzz"}},
		{"{env:A}", "x1", []string{"x1"}},
		{"k={file:~/t}&h={env:H}", "k=one&h=two", []string{"one", "two"}},
		{`{"a": 1}`, `{"a": 1}`, nil},
	}
	for _, c := range cases {
		if got := expandedValues(c.raw, c.expanded); !slices.Equal(got, c.want) {
			t.Errorf("expandedValues(%q, %q) = %q, want %q", c.raw, c.expanded, got, c.want)
		}
	}
}

// opencode's own references, {env:NAME} and {file:path}, are variables as
// any other: what they expanded to is a secret of the launch.
func TestSecretsOfOpencodeReferences(t *testing.T) {
	vars := map[string]string{"TOKEN": "tok-33cc", "HOST": "db.internal"}
	sys := &System{OS: "linux", Home: "/home/me", Cwd: "/proj", Getenv: func(k string) string { return vars[k] },
		FS: mapFS{"/proj/opencode.json": []byte(`{"mcp": {
			"local": {"type": "local", "command": ["srv", "{env:TOKEN}", "{file:key.txt}", "at-{env:HOST}-x", "plain"]},
			"remote": {"type": "remote", "url": "https://{env:HOST}/mcp?k={file:~/k2}"}}}`),
			"/proj/key.txt": []byte("file-44dd\n"), "/home/me/k2": []byte("file-55ee")}}
	cfg, err := Load(*sys, "/proj/opencode.json")
	if err != nil || len(cfg.Servers) != 2 {
		t.Fatalf("Load: %v, %+v", err, cfg)
	}
	for _, s := range cfg.Servers {
		got := s.Secrets()
		want := map[string][]string{"local": {"tok-33cc", "file-44dd", "db.internal"}, "remote": {"db.internal", "file-55ee"}}[s.Name]
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: Secrets misses %q: %q", s.Name, w, got)
			}
		}
		if slices.Contains(got, "plain") || slices.Contains(got, "srv") {
			t.Errorf("%s: Secrets holds a literal: %q", s.Name, got)
		}
		for _, w := range want {
			if strings.Contains(s.Display(), w) {
				t.Errorf("%s: Display shows %q: %s", s.Name, w, s.Display())
			}
		}
	}
}
