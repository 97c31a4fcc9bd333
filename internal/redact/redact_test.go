package redact

import (
	"slices"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"}, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"}},
		{[]string{"srv", "--token=abc"}, []string{"srv", "--token=***"}},
		{[]string{"srv", "--api-key", "abc", "--verbose"}, []string{"srv", "--api-key", "***", "--verbose"}},
		{[]string{"srv", "--password", "--next"}, []string{"srv", "--password", "--next"}},
		{[]string{"srv", "--db-pw", "hunter22", "--passphrase=horse", "--key-passphrase", "staple"}, []string{"srv", "--db-pw", "***", "--passphrase=***", "--key-passphrase", "***"}},
		{[]string{"srv", "--pwd-file", "x", "--wpw", "y"}, []string{"srv", "--pwd-file", "***", "--wpw", "y"}},
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
		// DSNs of any scheme, whole or as a flag's value.
		{[]string{"npx", "-y", "@modelcontextprotocol/server-postgres", "postgresql://app:hunter2@db.internal:5432/shop"}, []string{"npx", "-y", "@modelcontextprotocol/server-postgres", "postgresql://app:***@db.internal:5432/shop"}},
		{[]string{"srv", "redis://:hunter2@localhost:6379/0"}, []string{"srv", "redis://:***@localhost:6379/0"}},
		{[]string{"srv", "--dsn=mysql://root:pw-9@tcp/db"}, []string{"srv", "--dsn=mysql://root:***@tcp/db"}},
		{[]string{"srv", "--db", "mongodb+srv://me:s3cr%40t@cluster0.example.net/x"}, []string{"srv", "--db", "mongodb+srv://me:***@cluster0.example.net/x"}},
		{[]string{"srv", "postgresql://${PGUSER}:${PGPASSWORD}@db/x"}, []string{"srv", "postgresql://${PGUSER}:***@db/x"}},
		{[]string{"srv", "API_KEY=hunter2"}, []string{"srv", "API_KEY=***"}},
		{[]string{"srv", "EMPTY="}, []string{"srv", "EMPTY="}},
		// "pass" as a word of its own is a password; inside a word it is not.
		{[]string{"srv", "--pass=hunter2", "--db-pass", "pw-7", "DB_PASS=pw-8"}, []string{"srv", "--pass=***", "--db-pass", "***", "DB_PASS=***"}},
		{[]string{"srv", "--bypass=cache", "--passthrough=1", "--compass", "north"}, []string{"srv", "--bypass=cache", "--passthrough=1", "--compass", "north"}},
		// pass followed by another word is the verb: what it passes is
		// named, not hidden (mcp-proxy --pass-environment COMMAND).
		{[]string{"mcp-proxy", "--pass-environment", "uvx", "--pass-through=stdio", "--pass-file", "/run/db.pw"}, []string{"mcp-proxy", "--pass-environment", "uvx", "--pass-through=stdio", "--pass-file", "/run/db.pw"}},
		// The MySQL and MariaDB clients take a password attached to -p;
		// -p alone prompts, and what follows it is the database.
		{[]string{"mysql", "-uroot", "-phunter2", "db"}, []string{"mysql", "-uroot", "-p***", "db"}},
		{[]string{"/usr/bin/mysqldump", "-phunter2", "shop"}, []string{"/usr/bin/mysqldump", "-p***", "shop"}},
		{[]string{"mariadb", "-phunter2"}, []string{"mariadb", "-p***"}},
		{[]string{"mysqladmin", "-p'hunter2'", "status"}, []string{"mysqladmin", "-p***", "status"}},
		{[]string{`C:\Program Files\MySQL\bin\mysql.exe`, "-phunter2"}, []string{`C:\Program Files\MySQL\bin\mysql.exe`, "-p***"}},
		{[]string{"mariadb-dump", "-p=hunter2"}, []string{"mariadb-dump", "-p***"}},
		{[]string{"mysql", "-p", "shop", "-P3306", "-h", "db.internal"}, []string{"mysql", "-p", "shop", "-P3306", "-h", "db.internal"}},
		{[]string{"mysql", "--password=hunter2", "--user=root"}, []string{"mysql", "--password=***", "--user=root"}},
		// The other clients of both that take -p[password] as mysql does.
		{[]string{"mysqlbinlog", "-phunter2", "binlog.000001"}, []string{"mysqlbinlog", "-p***", "binlog.000001"}},
		{[]string{"mysqlslap", "-phunter2"}, []string{"mysqlslap", "-p***"}},
		{[]string{"mysql_upgrade", "-phunter2"}, []string{"mysql_upgrade", "-p***"}},
		{[]string{"mysql_secure_installation", "-phunter2"}, []string{"mysql_secure_installation", "-p***"}},
		{[]string{"mariadb-binlog", "-phunter2"}, []string{"mariadb-binlog", "-p***"}},
		{[]string{"mariadb-slap", "-phunter2"}, []string{"mariadb-slap", "-p***"}},
		{[]string{"mariadb-upgrade", "-phunter2"}, []string{"mariadb-upgrade", "-p***"}},
		{[]string{"mariadb-secure-installation", "-phunter2"}, []string{"mariadb-secure-installation", "-p***"}},
		{[]string{"mariadb-backup", "--backup", "-phunter2"}, []string{"mariadb-backup", "--backup", "-p***"}},
		{[]string{"mariabackup", "--backup", "-phunter2"}, []string{"mariabackup", "--backup", "-p***"}},
		// mycli's -p takes its value attached or as the next argument.
		{[]string{"mycli", "-phunter2", "-p", "hunter3", "-u", "root"}, []string{"mycli", "-p***", "-p", "***", "-u", "root"}},
		// Elsewhere -p is no password (a port, a path, a profile).
		{[]string{"srv", "-p8080", "-p", "9090"}, []string{"srv", "-p8080", "-p", "9090"}},
		{[]string{"docker", "run", "--name", "mysql", "-p3306:3306", "mysql:8"}, []string{"docker", "run", "--name", "mysql", "-p3306:3306", "mysql:8"}},
		{[]string{"mysql-mcp-server", "-pdev"}, []string{"mysql-mcp-server", "-pdev"}},
	}
	for _, c := range cases {
		got := Args(c.in)
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("Args(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestArgSecrets(t *testing.T) {
	got := ArgSecrets([]string{"srv", "--token=tok-1", "--api-key", "key-2", "postgresql://u:pw-3@h/db", "API_KEY=val-4", "--header", "Authorization: Bearer tok-5", "--port=80"})
	for _, want := range []string{"tok-1", "key-2", "pw-3", "val-4", "Bearer tok-5", "tok-5"} {
		if !slices.Contains(got, want) {
			t.Errorf("ArgSecrets misses %q: %q", want, got)
		}
	}
	if slices.Contains(got, "80") || slices.Contains(got, "srv") {
		t.Errorf("ArgSecrets holds a value that is not hidden: %q", got)
	}
	for _, c := range []struct {
		argv []string
		want []string
	}{
		{[]string{"mysql", "-uroot", "-phunter2", "db"}, []string{"hunter2"}},
		{[]string{"mysqladmin", "-p'hunter2'"}, []string{"'hunter2'", "hunter2"}},
		{[]string{"mycli", "-p", "hunter3"}, []string{"hunter3"}},
		{[]string{"srv", "-p8080"}, nil},
	} {
		if got := ArgSecrets(c.argv); !slices.Equal(got, c.want) {
			t.Errorf("ArgSecrets(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
	// A value no one hid is not scrubbed from what the server prints.
	if got := ArgSecrets([]string{"mcp-proxy", "--pass-environment", "uvx", "mcp-server-fetch"}); len(got) != 0 {
		t.Errorf("ArgSecrets of mcp-proxy --pass-environment uvx: %q, want none", got)
	}
}

func TestURL(t *testing.T) {
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
		{"https://me:${PASS}@${HOST}/mcp", "https://me:***@${HOST}/mcp"},
		{"not a url with sk-abcdef123456", "not a url with ***"},
		{"postgres://u:p%40ss@h/db?sslmode=require&password=x", "postgres://u:***@h/db?sslmode=require&password=***"},
	}
	for _, c := range cases {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := URLSecrets("postgres://u:p%40ss@h/db"); !slices.Contains(got, "p@ss") || !slices.Contains(got, "p%40ss") {
		t.Errorf("URLSecrets = %q, want both forms of the password", got)
	}
}

// TestURLVariableReferences: a variable reference, in any client's
// syntax, is redacted whole or kept whole, never cut at a colon of its
// own: in the user info alone it is the user name and is hidden; before a
// password it stays, and the password goes; in the path and in a query
// value of a name that is no secret word it stays; in a secret query
// value it goes. (${env:X}@host read as user "${env" and password "X}",
// and showed as ${env:***@host.)
func TestURLVariableReferences(t *testing.T) {
	for _, ref := range []string{"${env:MCP_KEY}", "${MCP_KEY}", "$MCP_KEY", "{env:MCP_KEY}", "${MCP_USER:-me}", "${input:mcp-key}"} {
		for _, c := range []struct{ in, want, hidden string }{
			{"https://R@mcp.example.com/mcp", "https://***@mcp.example.com/mcp", "R"},
			{"https://R:R@mcp.example.com/mcp", "https://R:***@mcp.example.com/mcp", "R"},
			{"https://me:R@mcp.example.com/mcp", "https://me:***@mcp.example.com/mcp", "R"},
			{"https://mcp.example.com/mcp/R/sse", "https://mcp.example.com/mcp/R/sse", ""},
			{"https://mcp.example.com/mcp?api_key=R&lang=en", "https://mcp.example.com/mcp?api_key=***&lang=en", "R"},
			{"https://mcp.example.com/mcp?user=R", "https://mcp.example.com/mcp?user=R", ""},
		} {
			in := strings.ReplaceAll(c.in, "R", ref)
			want := strings.ReplaceAll(c.want, "R", ref)
			if got := URL(in); got != want {
				t.Errorf("URL(%q) = %q, want %q", in, got, want)
			}
			if got := Text("connecting to " + in); got != "connecting to "+want {
				t.Errorf("Text(%q) = %q, want %q", "connecting to "+in, got, "connecting to "+want)
			}
			var hidden []string
			if c.hidden != "" {
				hidden = []string{ref}
			}
			// Each hidden value is the reference whole (recorded once per
			// form: as written and decoded).
			if got := slices.Compact(URLSecrets(in)); !slices.Equal(got, hidden) {
				t.Errorf("URLSecrets(%q) = %q, want %q", in, got, hidden)
			}
		}
	}
}

func TestEndpointOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@example.com/mcp?api_key=qv9#frag": "https://example.com/mcp?…",
		"http://127.0.0.1:8080/sse":                        "http://127.0.0.1:8080/sse",
		"not a url":                                        "(invalid URL)",
	} {
		if got := Endpoint(in); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Origin("https://k:pw@proxy.example:8443/v1?key=x"); got != "https://proxy.example:8443" {
		t.Errorf("Origin = %q", got)
	}
	if got := Origin("::"); got != "" {
		t.Errorf("Origin of a bad URL = %q", got)
	}
}

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"listening on stdio", "listening on stdio"},
		{"connecting to postgresql://app:hunter2@db:5432/shop failed", "connecting to postgresql://app:***@db:5432/shop failed"},
		{"redis://:hunter2@localhost:6379", "redis://:***@localhost:6379"},
		{"GET https://x.example/mcp?token=abc&lang=en: 401", "GET https://x.example/mcp?token=***&lang=en: 401"},
		{"args: --token=abc --api-key def9 --port 80", "args: --token=*** --api-key *** --port 80"},
		{"error: --token is required", "error: --token is required"},
		{"env API_KEY=hunter2 MODE=fast", "env API_KEY=*** MODE=fast"},
		{"password=hunter2; user=bob", "password=***; user=bob"},
		{"DB_PW=hunter22 GPG_PASSPHRASE=horse", "DB_PW=*** GPG_PASSPHRASE=***"},
		{"TOKEN=$(cat ~/.secret) node; TOKEN=`cat /run/t`", "TOKEN=$(cat ~/.secret) node; TOKEN=`cat /run/t`"},
		{`{"apiKey": "hunter2", "name": "x"}`, `{"apiKey": "***", "name": "x"}`},
		{"Authorization: Bearer abc.def", "Authorization: Bearer ***"},
		{"X-Api-Key: a1b2c3", "X-Api-Key: ***"},
		{"token: expired", "token: expired"},
		{"answered HTTP 401 (WWW-Authenticate: Bearer)", "answered HTTP 401 (WWW-Authenticate: Bearer)"},
		{`WWW-Authenticate: Bearer realm="mcp", error="invalid_token"`, `WWW-Authenticate: Bearer realm="mcp", error="invalid_token"`},
		{"auth Basic dXNlcjpwYXNz", "auth Basic ***"},
		{"bad key sk-ant-api03-abcdef123 given", "bad key *** given"},
		{"unknown ghp_16C7e42F292c6912E7710c838347Ae178B4a", "unknown ***"},
		{"task-abcdefghij and compat-layer12", "task-abcdefghij and compat-layer12"},
		{"see my-token abc123", "see my-token abc123"},
		{"login --pass=hunter2 failed", "login --pass=*** failed"},
		{"bypass=cache", "bypass=cache"},
		{"pass-through=yes --db-pass hunter2-x", "pass-through=yes --db-pass ***"},
	}
	for _, c := range cases {
		got := Text(c.in)
		if got != c.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := Text(got); again != got {
			t.Errorf("Text is not idempotent on %q: %q", got, again)
		}
	}
}

// TestTextPass: pass is a secret's name as the last word of a name
// (--pass, DB_PASS, db.pass), as a key (pass=x, "pass": "x", pass: x
// where a key stands: a line's start, a YAML list item, a flow mapping),
// never as the verb of prose ("tests pass: 3/3" showed "tests pass: ***").
func TestTextPass(t *testing.T) {
	cases := []struct{ in, want string }{
		// Redacted.
		{"login --pass=hunter2 failed", "login --pass=*** failed"},
		{"login --pass hunter2-x failed", "login --pass *** failed"},
		{"pass-through=yes --db-pass hunter2-x", "pass-through=yes --db-pass ***"},
		{"env DB_PASS=hunter2 MODE=fast", "env DB_PASS=*** MODE=fast"},
		{"PASS=hunter2", "PASS=***"},
		{"pass=3/3", "pass=***"},
		{"pass: hunter2", "pass: ***"},
		{"  pass: hunter2", "  pass: ***"},
		{"- pass: hunter2", "- pass: ***"},
		{"PASS: hunter2", "PASS: ***"},
		{"{user: root, pass: hunter2, db: shop}", "{user: root, pass: ***, db: shop}"},
		{"user: root; pass: hunter2", "user: root; pass: ***"},
		{"db.pass: x1", "db.pass: ***"},
		{"DB_PASS: hunter2", "DB_PASS: ***"},
		{"the db-pass: hunter2", "the db-pass: ***"},
		{`{"pass": "3/3"}`, `{"pass": "***"}`},
		{"password: hunter2", "password: ***"},
		{"the password: hunter2", "the password: ***"},
		{"you pass --pass 3/3", "you pass --pass ***"},
		// pass in prose with a value that is not a count: a log line
		// naming a password as often as a verb.
		{"INFO connecting with pass: hunter2x9", "INFO connecting with pass: ***"},
		{"x=1 pass: hunter2x9", "x=1 pass: ***"},
		{"[db] pass: hunter2x9", "[db] pass: ***"},
		{"# pass: hunter2x9", "# pass: ***"},
		{"| pass: hunter2x9", "| pass: ***"},
		{"user: root pass: hunter2x9", "user: root pass: ***"},
		{"user: root\tpass: hunter2x9", "user: root\tpass: ***"},
		{"error: pass: hunter2x9", "error: pass: ***"},
		{"all checks pass: ok2", "all checks pass: ***"},
		{"pass: 3/3", "pass: ***"},
		{"  pass: 100%", "  pass: ***"},
		{"with pass: 1234", "with pass: ***"},
		// Kept: pass in prose with a count, a plain word, pass inside a
		// word or before another.
		{"tests pass: 3/3", "tests pass: 3/3"},
		{"all checks pass: 100%", "all checks pass: 100%"},
		{"all checks pass: 99.5%", "all checks pass: 99.5%"},
		{"all checks pass: ok", "all checks pass: ok"},
		{"tests: pass: 3/3", "tests: pass: 3/3"},
		{"pass is ok", "pass is ok"},
		{"bypass=cache", "bypass=cache"},
		{"compass: 3/4", "compass: 3/4"},
		{"--pass-environment uvx", "--pass-environment uvx"},
		{"token: expired", "token: expired"},
		{"error: --token is required", "error: --token is required"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestScrubber(t *testing.T) {
	s := New("abcdef", "ab", "hunter 2", "x")
	got := s.String("abcdef ab x hunter 2 hunter+2 hunter%202")
	if want := "*** ab x *** *** ***"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	// A replacement that joins two pieces into another occurrence.
	// ... by the marker of a value, of a pattern, of a clipped piece.
	for _, c := range []struct {
		values []string
		in     string
	}{
		{[]string{"ab***"}, "aab******"},
		{[]string{"ken=***"}, "--token=abc now"},
		{[]string{"xy***", "canary-5150"}, "xycanary-51…"},
	} {
		if got := New(c.values...).String(c.in); strings.Contains(got, c.values[0]) {
			t.Errorf("New(%q).String(%q) = %q: a joined occurrence is left", c.values, c.in, got)
		}
	}
	// Clipped: the start of a value before an ellipsis or at the end, its
	// end at the start.
	cut := New("canary-5150-user-redis")
	for in, want := range map[string]string{
		"redis://:canary-5150-user-r…)":                  "redis://:***…)",
		"error (canary-5150-us...) and canary-5150-use…": "error (***...) and ***…",
		"at the end canary-5150":                         "at the end ***",
		"50-user-redis@cache:6379 refused":               "***@cache:6379 refused",
		"canary… and ca…":                                "***… and ca…",
		"redis://:canar…)":                               "redis://:***…)",
		"redis://:canary-5150-user-r":                    "redis://:***",
	} {
		if got := cut.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	var none *Scrubber
	if got := none.String("--token=abc"); got != "--token=***" {
		t.Errorf("a nil Scrubber does not redact by pattern: %q", got)
	}
	if got := New(`say "hi"`).String(`{"msg":"say \"hi\""}`); strings.Contains(got, `say \"hi\"`) {
		t.Errorf("the JSON-escaped form is left: %q", got)
	}
}

func TestLaunchSecrets(t *testing.T) {
	l := Launch{
		Command: "srv",
		Args:    []string{"--token=tok-arg1", "postgresql://u:pw-dsn2@h/db"},
		Env:     map[string]string{"API_KEY": "env-val3"},
		URL:     "https://u:pw-url4@x.example/mcp?key=q-val5",
		Headers: map[string]string{"Authorization": "Bearer hdr-tok6"},
		Known:   []string{"expanded7"},
	}
	text := "tok-arg1 pw-dsn2 env-val3 pw-url4 q-val5 hdr-tok6 expanded7"
	if got := l.Scrubber().String(text); got != strings.TrimSpace(strings.Repeat("*** ", 7)) {
		t.Errorf("String = %q", got)
	}
}

// TestScrubberPlainWords: a launch's value that is no credential (a plain
// word, a path, a flag's value) is removed only where it stands as a
// whole word, not inside a longer run of letters, digits, _ and -; a
// credential (by its name or its shape) is removed wherever it is.
func TestScrubberPlainWords(t *testing.T) {
	l := Launch{
		Command: "srv",
		Args:    []string{"--token", "tok-arg-7"},
		Env: map[string]string{
			"LOG_LEVEL": "info", "DEBUG": "true", "ROOT": "/srv/data", "MODE": "fast lane",
			"API_KEY": "hunter2x", "FOO": "sk-abcdef123456", "OTHER": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		},
		Headers: map[string]string{"X-Region": "eu-west", "Authorization": "Bearer hdr-9"},
	}
	cases := []struct{ in, want string }{
		// Plain values: whole words only.
		{"information is logged", "information is logged"},
		{"level info set", "level *** set"},
		{"info", "***"},
		{"(info).", "(***)."},
		{`{"level":"info"}`, `{"level":"***"}`},
		{"info-x x_info info2 Info", "info-x x_info info2 Info"},
		{"DEBUG=true; untrue, trueness", "DEBUG=***; untrue, trueness"},
		{"reading /srv/data/x.db and /srv/database", "reading ***/x.db and /srv/database"},
		{"x/srv/data", "x***"},
		{"fast lane, fast lanes", "***, fast lanes"},
		{"eu-west-1 eu-west", "eu-west-1 ***"},
		// Credentials, by name or shape: anywhere.
		{"xhunter2xy", "x***y"},
		{"keysk-abcdef123456x", "key***x"},
		{"Xghp_16C7e42F292c6912E7710c838347Ae178B4aY", "X***Y"},
		{"atok-arg-7b", "a***b"},
		{"hdr-9z", "***z"},
		// A clipped plain value is removed from the start of a word only.
		{"at /srv/da…", "at ***…"},
		{"the informati…", "the informati…"},
		{"lanes fast la…", "lanes ***…"},
	}
	sc := l.Scrubber()
	for _, c := range cases {
		if got := sc.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Values keeps the same rule.
	if got := sc.Values("information: info"); got != "information: ***" {
		t.Errorf("Values = %q", got)
	}
	// Display too, for the values it hides (a variable expanded into the
	// launch; a plain env value is not hidden there at all).
	d := Launch{Command: "node", Args: []string{"srv.js", "--log-level=info", "--format=information"}, Known: []string{"info"}}
	if got, want := d.Display(), "node srv.js --log-level=*** --format=information"; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
}

// TestLaunchDisplaySecrets: a launch line shows as *** only what is a
// secret: the values of env variables and headers whose name mentions a
// secret word or that look like credentials, what the launch rule hides,
// and the values of variables expanded into the launch; never the
// command word, of the launch or of a command in a shell's string, that
// some value happens to equal.
func TestLaunchDisplaySecrets(t *testing.T) {
	cases := []struct {
		name string
		l    Launch
		want string
	}{
		{"env equal to the command", Launch{Command: "node", Args: []string{"srv.js"}, Env: map[string]string{"NODE": "node"}}, "node srv.js"},
		{"env equal to the shell", Launch{Command: "/bin/sh", Args: []string{"-c", "node srv.js --port 80"}, Env: map[string]string{"SHELL": "/bin/sh", "NODE": "node"}}, `/bin/sh -c "node srv.js --port 80"`},
		{"plain env values", Launch{Command: "npx", Args: []string{"-y", "@scope/srv", "--level", "info", "/srv/data"}, Env: map[string]string{"RUNNER": "npx", "LOG_LEVEL": "info", "ROOT": "/srv/data"}}, "npx -y @scope/srv --level info /srv/data"},
		{"secret-named env", Launch{Command: "srv", Args: []string{"--db", "hunter2-pw", "at/hunter2-pw"}, Env: map[string]string{"DB_PASS": "hunter2-pw"}}, "srv --db *** at/***"},
		{"credential-shaped env", Launch{Command: "srv", Args: []string{"path/a1b2c3d4e5f6a7b8c9d0e1f2/x"}, Env: map[string]string{"FOO": "a1b2c3d4e5f6a7b8c9d0e1f2"}}, "srv path/***/x"},
		{"env named PW", Launch{Command: "srv", Args: []string{"--db", "hunter22", "at/hunter22"}, Env: map[string]string{"DB_PW": "hunter22"}}, "srv --db *** at/***"},
		{"env named PASSPHRASE", Launch{Command: "srv", Args: []string{"--phrase=horse battery"}, Env: map[string]string{"GPG_PASSPHRASE": "horse battery"}}, "srv --phrase=***"},
		{"secret-named env equal to the command", Launch{Command: "node", Args: []string{"srv.js"}, Env: map[string]string{"API_KEY": "node"}}, "node srv.js"},
		{"expanded value", Launch{Command: "srv", Args: []string{"--root", "/home/me/proj"}, Known: []string{"/home/me/proj"}}, "srv --root ***"},
		{"expanded command", Launch{Command: "/opt/bin/srv", Args: []string{"x"}, Known: []string{"/opt/bin/srv"}}, "/opt/bin/srv x"},
		{"expanded command of a shell string", Launch{Command: "sh", Args: []string{"-c", "/opt/bin/srv --token=abc123 x"}, Known: []string{"/opt/bin/srv"}}, `sh -c "/opt/bin/srv --token=*** x"`},
		{"command shaped as a token", Launch{Command: "hf_mcp_server", Args: []string{"--port", "80"}}, "hf_mcp_server --port 80"},
		{"env command shaped as a token", Launch{Command: "env", Args: []string{"A=b", "sk-mcp-server", "--x"}}, "env A=*** sk-mcp-server --x"},
		{"shell command that is no word", Launch{Command: "sh", Args: []string{"-c", "true; --token=abc123 srv"}}, `sh -c "true; --token=*** srv"`},
		{"plain header", Launch{URL: "https://x.example/mcp/eu-west", Headers: map[string]string{"X-Region": "eu-west"}}, "https://x.example/mcp/eu-west"},
		{"secret header", Launch{URL: "https://x.example/mcp/k-abc-1", Headers: map[string]string{"X-Api-Key": "k-abc-1"}}, "https://x.example/mcp/***"},
	}
	for _, c := range cases {
		if got := c.l.Display(); got != c.want {
			t.Errorf("%s: Display = %q, want %q", c.name, got, c.want)
		}
	}
	// As written, the same rule.
	l := Launch{Command: "node", Args: []string{"/srv/data/srv.js", "--key", "zz-9"}, Env: map[string]string{"NODE": "node", "API_KEY": "zz-9"}}
	if got, want := l.DisplayCommand([]string{"node", "${ROOT}/srv.js", "--key", "${API_KEY}", "zz-9"}), "node ${ROOT}/srv.js --key *** ***"; got != want {
		t.Errorf("DisplayCommand = %q, want %q", got, want)
	}
	u := Launch{URL: "https://x.example/eu-west/mcp?key=q1", Headers: map[string]string{"X-Region": "eu-west", "Authorization": "Bearer t0k-1"}}
	if got, want := u.DisplayURL("https://x.example/eu-west/t0k-1/mcp?key=q1"), "https://x.example/eu-west/***/mcp?key=***"; got != want {
		t.Errorf("DisplayURL = %q, want %q", got, want)
	}
}

func TestLaunchDisplay(t *testing.T) {
	l := Launch{Command: "node", Args: []string{"/path with space/index.js", "", "--db", "hunter2-pw"}, Env: map[string]string{"DB_PASS": "hunter2-pw"}}
	if got, want := l.Display(), `node "/path with space/index.js" "" --db ***`; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
	u := Launch{URL: "https://u:pw@x.example/mcp?apiKey=k1&lang=en", Headers: map[string]string{"Authorization": "Bearer t"}}
	if got, want := u.Display(), "https://u:***@x.example/mcp?apiKey=***&lang=en"; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
	if got := (Launch{}).DisplayCommand([]string{"srv", "--token", "abc"}); got != "srv --token ***" {
		t.Errorf("Command = %q", got)
	}
}

func TestDSN(t *testing.T) {
	const canary = "Canary-pw-7f3a"
	cases := []struct{ in, want string }{
		{"postgres://u:" + canary + "@h:5432/db?sslmode=verify-full", "postgres://u:***@h:5432/db?sslmode=verify-full"},
		{"postgresql://u@h/db", "postgresql://u@h/db"},
		{"postgres://u:@h1:5432,h2/mcpcost_test_3f9a2b7c8d1e4f5a", "postgres://u:@h1:5432,h2/mcpcost_test_3f9a2b7c8d1e4f5a"},
		{"postgres://u:p%2Fw@h/db?sslpassword=x&application_name=a", "postgres://u:***@h/db?sslpassword=***&application_name=a"},
		{"postgres://h/db?password=" + canary + "&sslmode=require", "postgres://h/db?password=***&sslmode=require"},
		// libpq ends the user info at the first "@" before a "/": a "#"
		// or "?" in the password is the password's, as pgx reads it.
		{"postgres://u:pa#ss" + canary + "@h:5432/db", "postgres://u:***@h:5432/db"},
		{"postgres://u:pa?ss" + canary + "@h/db?sslmode=require", "postgres://u:***@h/db?sslmode=require"},
		{"postgres://u:pa#" + canary + "@h", "postgres://u:***@h"},
		// A "/" in it is no URL libpq reads; the password meant is hidden.
		{"postgres://u:pa/ss" + canary + "@h:1/db", "postgres://u:***@h:1/db"},
		{"postgres://u@h/db?application_name=a@b", "postgres://u@h/db?application_name=a@b"},
		{"postgres://h/db?options=x:y@z", "postgres://h/db?options=x:y@z"},
		{"host=h user=u password=" + canary + " dbname=db", "host=h user=u password=*** dbname=db"},
		{"host=h password = '" + canary + " with \\' quote' sslmode=require", "host=h password = *** sslmode=require"},
		{"host=h password=" + canary, "host=h password=***"},
		{"host=h sslpassword=" + canary + " sslmode=verify-ca", "host=h sslpassword=*** sslmode=verify-ca"},
		{"password=a\\ " + canary + " host=h", "password=*** host=h"},
		{"host=h password=", "host=h password="},
		{"host=h password=''", "host=h password=***"},
		{"host=h dangling " + canary, "host=h dangling " + canary},
		{"sqlite:/home/u/usage.db", "sqlite:/home/u/usage.db"},
		{"", ""},
	}
	for _, c := range cases {
		if got := DSN(c.in); got != c.want {
			t.Errorf("DSN(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	got := DSNSecrets("host=h password='" + canary + " x'")
	if !slices.Contains(got, canary+" x") {
		t.Errorf("DSNSecrets = %q, want the quoted password", got)
	}
	if got := DSNSecrets("postgres://u:a#" + canary + "@h/db"); !slices.Contains(got, "a#"+canary) {
		t.Errorf("DSNSecrets = %q, want the password with its \"#\"", got)
	}
}

// TestShellArgs: the command string a shell runs (sh -c, bash -lc, cmd
// /c, powershell -Command, ...) is split as the shell splits it and each
// word redacted by the launch rule, as the same words given as arguments
// would be; the string is put back as written, each secret replaced by
// the marker. A string that cannot be split is redacted as free text.
func TestShellArgs(t *testing.T) {
	cases := []struct {
		in     []string
		want   string // the command string, redacted
		hidden []string
	}{
		// Hidden: flags, NAME=VALUE, the MySQL -p, URLs, known tokens.
		{[]string{"sh", "-c", "my-server --token=abc123 --api-key sk-live-XYZ"}, "my-server --token=*** --api-key ***", []string{"abc123", "sk-live-XYZ"}},
		{[]string{"bash", "-c", "my-server --token=abc123"}, "my-server --token=***", []string{"abc123"}},
		{[]string{"zsh", "-c", "my-server --api-key sk-live-XYZ"}, "my-server --api-key ***", []string{"sk-live-XYZ"}},
		{[]string{"dash", "-c", "my-server --password hunter2"}, "my-server --password ***", []string{"hunter2"}},
		{[]string{"/bin/sh", "-c", "my-server --token=abc123"}, "my-server --token=***", []string{"abc123"}},
		{[]string{"/usr/bin/env", "bash", "-lc", "GITHUB_TOKEN=ghp_x my-server"}, "GITHUB_TOKEN=*** my-server", []string{"ghp_x"}},
		{[]string{"bash", "-ic", "mysql -uroot -phunter2 shop"}, "mysql -uroot -p*** shop", []string{"hunter2"}},
		{[]string{"bash", "--noprofile", "-e", "-o", "pipefail", "-c", "my-server --token=abc123"}, "my-server --token=***", []string{"abc123"}},
		{[]string{"sh", "-c", "cd /srv && API_KEY=k1-val ./srv --secret=s3 | tee log; DB_PASS=pw9 mysql -pmy-pw"}, "cd /srv && API_KEY=*** ./srv --secret=*** | tee log; DB_PASS=*** mysql -p***", []string{"k1-val", "s3", "pw9", "my-pw"}},
		{[]string{"sh", "-c", "exec my-server --password 'hunter 2' --port 80"}, "exec my-server --password '***' --port 80", []string{"hunter 2"}},
		{[]string{"sh", "-c", `srv --token="a b" --verbose`}, `srv --token="***" --verbose`, []string{"a b"}},
		{[]string{"sh", "-c", `srv --token=ab\ cd --verbose`}, `srv --token=*** --verbose`, []string{"ab cd"}},
		{[]string{"sh", "-c", "srv --db postgresql://app:pw-1@db/shop"}, "srv --db postgresql://app:***@db/shop", []string{"pw-1"}},
		{[]string{"sh", "-c", `srv "https://x.example/mcp?token=t0k&lang=en"`}, `srv "https://x.example/mcp?token=***&lang=en"`, []string{"t0k"}},
		{[]string{"sh", "-c", "srv ghp_16C7e42F292c6912E7710c838347Ae178B4a"}, "srv ***", []string{"ghp_16C7e42F292c6912E7710c838347Ae178B4a"}},
		{[]string{"sh", "-c", `srv --header "Authorization: Bearer abc.def"`}, `srv --header "Authorization: ***"`, []string{"abc.def"}},
		{[]string{"sh", "-c", "srv   --token=abc123\n\t--x"}, "srv   --token=***\n\t--x", []string{"abc123"}},
		{[]string{"bash", "-c", `sh -c 'srv --token=abc123'`}, `sh -c 'srv --token=***'`, []string{"abc123"}},
		// A command substitution's words are its command's, not the ones
		// around it: the value hidden is the one the server is given.
		{[]string{"sh", "-c", "x=`srv --token abc123`; TOKEN=`cat /run/t` node"}, "x=`srv --token ***`; TOKEN=`cat /run/t` node", []string{"abc123"}},
		{[]string{"sh", "-c", "srv --token `cat /run/t`"}, "srv --token `cat /run/t`", nil},
		// A here-document's body is text, not commands.
		{[]string{"sh", "-c", "cat <<'EOF' | srv\ntoken: t0k-val\nport: 80\nEOF\nsrv --token abc123"}, "cat <<'EOF' | srv\ntoken: ***\nport: 80\nEOF\nsrv --token ***", []string{"t0k-val", "abc123"}},
		{[]string{"bash", "-c", "srv <<-END\n\tpassword=pw9 FOO=bar\n\tEND"}, "srv <<-END\n\tpassword=*** FOO=bar\n\tEND", []string{"pw9"}},
		{[]string{"sh", "-c", "srv <<< FOO=bar"}, "srv <<< FOO=***", []string{"bar"}},
		// An assignment's name may be in lower case, before the command
		// or after export and its kin.
		{[]string{"sh", "-c", "api_key=k1-val srv"}, "api_key=*** srv", []string{"k1-val"}},
		{[]string{"bash", "-lc", "export api_key=k1-val db_url=u2-val; readonly Pass=p3-val; srv a=b"}, "export api_key=*** db_url=***; readonly Pass=***; srv a=b", []string{"k1-val", "u2-val", "p3-val"}},
		{[]string{"docker", "exec", "ctr", "sh", "-c", "srv --token=abc123"}, "srv --token=***", []string{"abc123"}},
		{[]string{"cmd", "/c", "my-server --token=abc123 --api-key sk-live-XYZ"}, "my-server --token=*** --api-key ***", []string{"abc123", "sk-live-XYZ"}},
		{[]string{`C:\Windows\System32\cmd.exe`, "/s", "/C", `"C:\tools\srv.exe" --token abc123`}, `"C:\tools\srv.exe" --token ***`, []string{"abc123"}},
		{[]string{"cmd", "/c", "set GITHUB_TOKEN=ghp_x&& srv"}, "set GITHUB_TOKEN=***&& srv", []string{"ghp_x"}},
		{[]string{"powershell", "-NoProfile", "-ExecutionPolicy", "Bypass", "-Command", `& 'C:\srv\srv.exe' --token abc123`}, `& 'C:\srv\srv.exe' --token ***`, []string{"abc123"}},
		{[]string{"pwsh", "-c", "my-server --api-key sk-live-XYZ"}, "my-server --api-key ***", []string{"sk-live-XYZ"}},
		{[]string{"pwsh", "-c", "${env:API_KEY}='k1-val'; ${Env:DB_PASS} = \"p2-val\"; srv ${HOME}"}, "${env:API_KEY}='***'; ${Env:DB_PASS} = \"***\"; srv ${HOME}", []string{"k1-val", "p2-val"}},
		{[]string{"pwsh.exe", "-command", `$env:GITHUB_TOKEN='ghp_x'; $env:Api_Key = "k-2"; srv`}, `$env:GITHUB_TOKEN='***'; $env:Api_Key = "***"; srv`, []string{"ghp_x", "k-2"}},
		// Cannot be split (a quote left open): free text.
		{[]string{"sh", "-c", "srv --token=abc123 'oops"}, "srv --token=*** 'oops", []string{"abc123"}},
		// Kept as written.
		{[]string{"sh", "-c", "npx -y @modelcontextprotocol/server-filesystem /home/me/src"}, "npx -y @modelcontextprotocol/server-filesystem /home/me/src", nil},
		{[]string{"bash", "-lc", `cd ~/srv && exec uv run server.py --port 8080 2>>"$HOME/log"`}, `cd ~/srv && exec uv run server.py --port 8080 2>>"$HOME/log"`, nil},
		{[]string{"sh", "-c", `echo "it's" 'a \ b' | srv --bypass=cache -p8080 --mode=fast`}, `echo "it's" 'a \ b' | srv --bypass=cache -p8080 --mode=fast`, nil},
		{[]string{"sh", "-c", "mysql -p shop"}, "mysql -p shop", nil},
		{[]string{"cmd", "/c", `C:\tools\srv.exe --port 80 ^& more`}, `C:\tools\srv.exe --port 80 ^& more`, nil},
		{[]string{"pwsh", "-c", "Get-Item `\"x y`\" | srv"}, "Get-Item `\"x y`\" | srv", nil},
		{[]string{"sh", "-c", "srv 'open"}, "srv 'open", nil},
	}
	for _, c := range cases {
		got := Args(c.in)
		if len(got) != len(c.in) || got[len(got)-1] != c.want {
			t.Errorf("Args(%q)\n got %q\nwant the last %q", c.in, got, c.want)
		}
		hidden := ArgSecrets(c.in)
		for _, v := range c.hidden {
			if !slices.Contains(hidden, v) {
				t.Errorf("ArgSecrets(%q) = %q, misses %q", c.in, hidden, v)
			}
		}
		if c.hidden == nil && len(hidden) > 0 {
			t.Errorf("ArgSecrets(%q) = %q, want none", c.in, hidden)
		}
		for _, v := range hidden {
			if strings.Contains(c.want, v) {
				t.Errorf("ArgSecrets(%q) holds %q, which is shown", c.in, v)
			}
		}
	}
	// The words before the command string are redacted as arguments.
	if got := Args([]string{"sh", "-c", "srv", "--token=abc123"}); got[3] != "--token=***" {
		t.Errorf("Args after the command string: %q", got)
	}
	// What a server repeats of a value hidden in its command string is
	// scrubbed, and its launch line shows none.
	l := Launch{Command: "sh", Args: []string{"-c", "my-server --token=abc123 --api-key sk-live-XYZ"}}
	if got := l.Scrubber().String("bad token abc123 (key sk-live-XYZ)"); strings.Contains(got, "abc123") || strings.Contains(got, "XYZ") {
		t.Errorf("Scrubber left a secret of the command string: %q", got)
	}
	if got, want := l.Display(), `sh -c "my-server --token=*** --api-key ***"`; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
}

// TestShellScriptLooks: finding a shell's command string looks at each
// word of a command line a bounded number of times, where the options of
// a shell that runs no string hold other shells' names (sh -o sh -o ...),
// and finds the same string as before.
func TestShellScriptLooks(t *testing.T) {
	long := func(n int, tail ...string) []string {
		var argv []string
		for i := 0; i < n; i++ {
			argv = append(argv, "sh", "-o")
		}
		return append(argv, tail...)
	}
	tests := []struct {
		name   string
		argv   []string
		script int
	}{
		{"sh -o pairs", long(2000), -1},
		{"rcfile pairs", strings.Fields(strings.Repeat("bash --rcfile bash ", 2000)), -1},
		{"then a shell", long(2000, "bash", "-c", "TOKEN=x node"), 4002},
		{"option value", []string{"sh", "-o", "bash", "-c", "X"}, 4},
		{"script file", []string{"sh", "-e", "run.sh", "bash", "-c", "X"}, 5},
		{"after --", []string{"sh", "--", "bash", "-lc", "X"}, 4},
		{"value at end", []string{"sh", "-o"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script, _, looked := findScript(tt.argv)
			if script != tt.script {
				t.Errorf("script = %d, want %d", script, tt.script)
			}
			if looked > 2*len(tt.argv) {
				t.Errorf("%d words looked at %d times, want at most %d", len(tt.argv), looked, 2*len(tt.argv))
			}
		})
	}
}

// TestPasswordFlags: each canary is a password, key or token given the
// way a command takes it (sshpass -p, redis-cli -a, mongosh -p, curl -u
// USER:PW, sqlcmd and bcp -P, --pat, --license, --pw, --jwt, --sas, an
// AWS secret key after its access key id), on its own and run by a
// wrapper (env, sudo, npx -y, sh -c, docker run IMAGE CMD); none is shown
// by Args or Display, and the server's repeating it is scrubbed.
func TestPasswordFlags(t *testing.T) {
	const key = "AKIAIOSFODNN7EXAMPLE"
	cases := []struct {
		argv   []string
		canary string
	}{
		{[]string{"sshpass", "-p", "cn-sshpass-sep", "ssh", "me@host"}, "cn-sshpass-sep"},
		{[]string{"sshpass", "-pcn-sshpass-att", "ssh", "host"}, "cn-sshpass-att"},
		{[]string{"redis-cli", "-h", "cache", "-a", "cn-redis-a", "ping"}, "cn-redis-a"},
		{[]string{"mongosh", "mongodb://db/shop", "-u", "app", "-p", "cn-mongosh-p"}, "cn-mongosh-p"},
		{[]string{"mongosh", "--username", "app", "--password", "cn-mongosh-password"}, "cn-mongosh-password"},
		{[]string{"curl", "-u", "admin:cn-curl-u", "https://api.example/x"}, "cn-curl-u"},
		{[]string{"curl", "--user", "admin:cn-curl-user", "https://api.example/x"}, "cn-curl-user"},
		{[]string{"curl", "--user=admin:cn-curl-user-eq", "https://api.example/x"}, "cn-curl-user-eq"},
		{[]string{"curl", "-uadmin:cn-curl-u-att", "https://api.example/x"}, "cn-curl-u-att"},
		{[]string{"sqlcmd", "-S", "db", "-U", "sa", "-P", "cn-sqlcmd-P"}, "cn-sqlcmd-P"},
		{[]string{"bcp", "shop.dbo.t", "out", "t.dat", "-S", "db", "-U", "sa", "-P", "cn-bcp-P"}, "cn-bcp-P"},
		{[]string{"srv", "--pat", "cn-pat-sep"}, "cn-pat-sep"},
		{[]string{"srv", "--pat=cn-pat-eq"}, "cn-pat-eq"},
		{[]string{"srv", "--license", "cn-license-sep"}, "cn-license-sep"},
		{[]string{"srv", "--license=cn-license-eq"}, "cn-license-eq"},
		{[]string{"srv", "--pw", "cn-pw-sep"}, "cn-pw-sep"},
		{[]string{"srv", "--pw=cn-pw-eq"}, "cn-pw-eq"},
		{[]string{"srv", "--jwt", "cn-jwt-sep"}, "cn-jwt-sep"},
		{[]string{"srv", "--jwt=cn-jwt-eq"}, "cn-jwt-eq"},
		{[]string{"srv", "--sas", "cn-sas-sep"}, "cn-sas-sep"},
		{[]string{"srv", "--sas=cn-sas-eq"}, "cn-sas-eq"},
		{[]string{"aws-mcp", key, "cn/aws/secret+key"}, "cn/aws/secret+key"},
		// An option that always takes a password takes one that starts
		// with a dash too.
		{[]string{"sshpass", "-p", "-cn-sshpass-dash", "ssh", "host"}, "-cn-sshpass-dash"},
		{[]string{"redis-cli", "-a", "--cn-redis-dash", "ping"}, "--cn-redis-dash"},
		{[]string{"sqlcmd", "-S", "db", "-P", "-cn-sqlcmd-dash"}, "-cn-sqlcmd-dash"},
		{[]string{"bcp", "t", "out", "t.dat", "-P", "-cn-bcp-dash"}, "-cn-bcp-dash"},
		{[]string{"curl", "-u", "-me:cn-curl-dash", "https://x"}, "cn-curl-dash"},
		// Run by a wrapper.
		{[]string{"env", "REDIS_HOST=cache", "redis-cli", "-a", "cn-env-redis"}, "cn-env-redis"},
		{[]string{"sudo", "-u", "mssql", "sqlcmd", "-P", "cn-sudo-sqlcmd"}, "cn-sudo-sqlcmd"},
		{[]string{"sudo", "-E", "srv", "--jwt", "cn-sudo-jwt"}, "cn-sudo-jwt"},
		{[]string{"npx", "-y", "mongosh", "-p", "cn-npx-mongosh"}, "cn-npx-mongosh"},
		{[]string{"npx", "--yes", "mongosh@2", "-pcn-npx-mongosh-att"}, "cn-npx-mongosh-att"},
		{[]string{"sh", "-c", "sshpass -p cn-sh-sshpass ssh host"}, "cn-sh-sshpass"},
		{[]string{"bash", "-lc", "exec curl -u me:cn-sh-curl https://x.example"}, "cn-sh-curl"},
		{[]string{"docker", "run", "--rm", "-i", "-e", "A=1", "--name", "r", "redis:7", "redis-cli", "-a", "cn-docker-redis"}, "cn-docker-redis"},
		{[]string{"docker", "exec", "-it", "db", "sqlcmd", "-P", "cn-docker-sqlcmd"}, "cn-docker-sqlcmd"},
		{[]string{"docker", "run", "--rm", "--entrypoint", "redis-cli", "redis:7", "-a", "cn-docker-entry"}, "cn-docker-entry"},
		{[]string{"podman", "run", "--entrypoint=sshpass", "img", "-p", "cn-podman-entry", "ssh", "h"}, "cn-podman-entry"},
		{[]string{"docker", "run", "--rm", "aws-img", key, "cn/docker/aws+key"}, "cn/docker/aws+key"},
		{[]string{"sudo", "docker", "run", "-i", "--rm", "mongo:7", "mongosh", "-p", "cn-sudo-docker-mongosh"}, "cn-sudo-docker-mongosh"},
		{[]string{"timeout", "10", "sshpass", "-p", "cn-timeout-sshpass", "ssh", "h"}, "cn-timeout-sshpass"},
		{[]string{"timeout", "-s", "KILL", "-k", "5", "30s", "redis-cli", "-a", "cn-timeout-redis"}, "cn-timeout-redis"},
		{[]string{"timeout", "--signal=TERM", "--preserve-status", "1m", "sqlcmd", "-P", "cn-timeout-sqlcmd"}, "cn-timeout-sqlcmd"},
		{[]string{"nice", "-n", "5", "redis-cli", "-a", "cn-nice-redis"}, "cn-nice-redis"},
		{[]string{"nice", "sshpass", "-p", "cn-nice-sshpass", "ssh", "h"}, "cn-nice-sshpass"},
		{[]string{"uvx", "--from", "mongo-tools", "mongosh", "-p", "cn-uvx-mongosh"}, "cn-uvx-mongosh"},
		{[]string{"kubectl", "exec", "-it", "-n", "db", "redis-0", "--", "redis-cli", "-a", "cn-kubectl-redis"}, "cn-kubectl-redis"},
		{[]string{"podman", "run", "--replace", "--rm", "redis:7", "redis-cli", "-a", "cn-podman-replace"}, "cn-podman-replace"},
	}
	leaks := 0
	for _, c := range cases {
		shown := strings.Join(Args(c.argv), " ")
		l := Launch{Command: c.argv[0], Args: c.argv[1:]}
		display := l.Display()
		said := l.Scrubber().String("auth failed for " + c.canary + ".")
		if strings.Contains(shown, c.canary) || strings.Contains(display, c.canary) || strings.Contains(said, c.canary) {
			leaks++
			t.Errorf("%q: Args %q, Display %q, scrubbed %q", c.argv, shown, display, said)
		}
	}
	if leaks > 0 {
		t.Logf("%d of %d canaries shown", leaks, len(cases))
	}
	// Kept: what is no password.
	for _, c := range []struct{ in, want []string }{
		{[]string{"curl", "-u", "admin", "https://x"}, []string{"curl", "-u", "admin", "https://x"}},
		{[]string{"srv", "-p", "8080", "--path", "/x", "--pattern", "a*", "--swatch", "red"}, []string{"srv", "-p", "8080", "--path", "/x", "--pattern", "a*", "--swatch", "red"}},
		{[]string{"redis-cli", "-h", "cache", "-p", "6379"}, []string{"redis-cli", "-h", "cache", "-p", "6379"}},
		{[]string{"mysql", "-P", "3306", "-h", "db"}, []string{"mysql", "-P", "3306", "-h", "db"}},
		{[]string{"docker", "run", "--rm", "-p", "8080:80", "nginx"}, []string{"docker", "run", "--rm", "-p", "8080:80", "nginx"}},
		{[]string{"docker", "run", "--entrypoint", "node", "img", "srv.js", "-p", "80"}, []string{"docker", "run", "--entrypoint", "node", "img", "srv.js", "-p", "80"}},
		{[]string{"sudo", "-u", "app", "node", "srv.js"}, []string{"sudo", "-u", "app", "node", "srv.js"}},
		{[]string{"timeout", "30", "node", "srv.js", "-p", "80"}, []string{"timeout", "30", "node", "srv.js", "-p", "80"}},
		{[]string{"nice", "-n", "5", "redis-cli", "-p", "6379"}, []string{"nice", "-n", "5", "redis-cli", "-p", "6379"}},
		{[]string{"kubectl", "exec", "pod", "--", "srv", "-a", "x"}, []string{"kubectl", "exec", "pod", "--", "srv", "-a", "x"}},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me"}, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me"}},
		{[]string{"srv", key}, []string{"srv", "***"}},
		{[]string{"srv", key, "--port", "80"}, []string{"srv", "***", "--port", "80"}},
		{[]string{"mongosh", "-p", "--host", "db"}, []string{"mongosh", "-p", "--host", "db"}},
		{[]string{"srv", "--password", "--verbose"}, []string{"srv", "--password", "--verbose"}},
	} {
		if got := Args(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Args(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
