package clients

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactArgs(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"}, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"}},
		{[]string{"srv", "--token=abc"}, []string{"srv", "--token=***"}},
		{[]string{"srv", "--api-key", "abc", "--verbose"}, []string{"srv", "--api-key", "***", "--verbose"}},
		{[]string{"srv", "--password", "--next"}, []string{"srv", "--password", "--next"}},
		{[]string{"srv", "--access_token=x", "--port=8080"}, []string{"srv", "--access_token=***", "--port=8080"}},
		{[]string{"docker", "run", "-e", "GITHUB_TOKEN=ghp_x", "-e", "MODE=fast", "image"}, []string{"docker", "run", "-e", "GITHUB_TOKEN=***", "-e", "MODE=***", "image"}},
		{[]string{"srv", "--header", "Authorization: Bearer abc.def"}, []string{"srv", "--header", "Authorization: ***"}},
		{[]string{"srv", "Bearer abc"}, []string{"srv", "Bearer ***"}},
		{[]string{"srv", "sk-ant-api03-abcdef"}, []string{"srv", "***"}},
		{[]string{"srv", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}, []string{"srv", "***"}},
		{[]string{"srv", "a1b2c3d4e5f6a7b8c9d0e1f2"}, []string{"srv", "***"}},
		{[]string{"srv", "mcp-server-everything-and-more"}, []string{"srv", "mcp-server-everything-and-more"}},
		{[]string{"srv", "https://x.example/mcp?key=abc&x=1"}, []string{"srv", "https://x.example/mcp?key=***&x=1"}},
		{[]string{"srv", "--url=https://u:p@x.example/"}, []string{"srv", "--url=https://u:***@x.example/"}},
		{[]string{"uvx", "mcp-server-time", "--local-timezone=Europe/Paris"}, []string{"uvx", "mcp-server-time", "--local-timezone=Europe/Paris"}},
	}
	for _, c := range cases {
		got := RedactArgs(c.in)
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("RedactArgs(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://api.githubcopilot.com/mcp/", "https://api.githubcopilot.com/mcp/"},
		{"https://x.example/sse?apiKey=abc", "https://x.example/sse?apiKey=***"},
		{"https://x.example/sse?api_key=abc&lang=en", "https://x.example/sse?api_key=***&lang=en"},
		{"https://x.example/sse?id=Zx9fQ2mA7bK4nL0pR5sT8uV", "https://x.example/sse?id=***"},
		{"https://user:pw@x.example/mcp", "https://user:***@x.example/mcp"},
		{"https://tok@x.example/mcp", "https://***@x.example/mcp"},
		{"https://mcp.example.com/sk-abcdef1234567890/sse", "https://mcp.example.com/***/sse"},
		{"https://mcp.example.com/v1/3f9a2b7c8d1e4f5a6b7c8d9e0f1a2b3c/sse?x=1", "https://mcp.example.com/v1/***/sse?x=1"},
		{"https://x.example/mcp?token=${TOKEN}", "https://x.example/mcp?token=***"},
		{"https://${HOST}/mcp?lang=en", "https://${HOST}/mcp?lang=en"},
		{"not a url with sk-abcdef123456", "not a url with ***"},
	}
	for _, c := range cases {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

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
