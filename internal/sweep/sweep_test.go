package sweep

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	long := strings.Repeat("a", MaxNameLen)
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"memory", true}, {"mcp-atlassian", true}, {"a.b_c-1", true}, {"9lives", true}, {long, true},
		{"", false}, {long + "a", false}, {"../etc", false}, {"a/b", false}, {`a\b`, false}, {"..", false},
		{"a..b", false}, {".hidden", false}, {"-flag", false}, {"_x", false}, {"a\x00b", false}, {"a\nb", false},
		{"a\x1b[31m", false}, {"tab\t", false}, {"é", false}, {"a b", false}, {"a\u202eb", false}, {"<script>", false},
		{"a\xffb", false}, {"con:", false},
		// Names Windows cannot give a file: a final '.', and its device
		// names, in any case and with any extension.
		{"a.", false}, {"mcp.", false}, {"a.b.", false}, {"con", false}, {"CON", false}, {"Prn", false},
		{"aux", false}, {"nul", false}, {"NUL.txt", false}, {"nul.tar.gz", false}, {"com1", false}, {"COM9", false},
		{"lpt1", false}, {"Lpt9.md", false}, {"com0", false}, {"lpt0", false},
		{"console", true}, {"con-1", true}, {"nul_x", true}, {"com10", true}, {"lpt", true}, {"xcon", true},
		{"a.nul", true}, {"auxiliary", true}, {"a.b", true},
	} {
		why := CheckName(c.name)
		if (why == "") != c.ok {
			t.Errorf("CheckName(%q) = %q, want ok %v", c.name, why, c.ok)
		}
	}
}

func TestParse(t *testing.T) {
	src := `servers:
  - name: memory
    command: npx -y @modelcontextprotocol/server-memory
    package: "@modelcontextprotocol/server-memory"
    category: official-reference
    repo: https://github.com/modelcontextprotocol/servers
    metric: downloads
    metricSource: npm
    env: [API_KEY, OTHER]
    envValues: {OTHER: "bolt://localhost:7687"}
    timeoutSeconds: 120
  - name: quoted
    command: node "/path with space/index.js" --flag 'a b'
  - name: listed
    command: [node, server.js]
    args: [--port, "0"]
  - name: linear
    command: npx -y mcp-remote https://mcp.linear.app/sse
    remote: true
  - name: http
    url: http://127.0.0.1:9/mcp
    headers: [Authorization]
  - name: sse
    url: http://127.0.0.1:9/sse
    transport: sse
`
	got, err := Parse([]byte(src), "servers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("%d servers", len(got))
	}
	m := got[0]
	if m.Command != "npx" || !reflect.DeepEqual(m.Args, []string{"-y", "@modelcontextprotocol/server-memory"}) || m.CommandLine != "npx -y @modelcontextprotocol/server-memory" ||
		m.TimeoutSeconds != 120 || m.EnvValues["OTHER"] != "bolt://localhost:7687" || !reflect.DeepEqual(m.Env, []string{"API_KEY", "OTHER"}) ||
		m.Category != "official-reference" || m.Metric != "downloads" || m.MetricSource != "npm" {
		t.Errorf("memory: %+v", m)
	}
	if q := got[1]; q.Command != "node" || !reflect.DeepEqual(q.Args, []string{"/path with space/index.js", "--flag", "a b"}) {
		t.Errorf("quoted: %q %q", q.Command, q.Args)
	}
	if l := got[2]; l.Command != "node" || !reflect.DeepEqual(l.Args, []string{"server.js", "--port", "0"}) || l.CommandLine != "node server.js --port 0" {
		t.Errorf("listed: %+v", l)
	}
	if l := got[3]; !l.Remote || l.Measurable() {
		t.Errorf("linear: %+v", l)
	}
	if h := got[4]; h.URL == "" || !reflect.DeepEqual(h.Headers, []string{"Authorization"}) || !h.Measurable() {
		t.Errorf("http: %+v", h)
	}
	if s := got[5]; s.Transport != "sse" {
		t.Errorf("sse: %+v", s)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "no top-level servers"},
		{"servers: {}", "not a list"},
		{"- a", "not a mapping"},
		{"servers:\n  - name: ../x\n    command: x", `servers[1]: the name holds ".."`},
		{"servers:\n  - name: a/b\n    command: x", "servers[1]: the name holds a path separator"},
		{"servers:\n  - name: \"a\\x00\"\n    command: x", "servers[1]: the name holds"},
		{"servers:\n  - name: \"a\\nb\"\n    command: x", "servers[1]: the name holds"},
		{"servers:\n  - name: \"\\u202eevil\"\n    command: x", "servers[1]: the name holds"},
		{"servers:\n  - name: 7\n    command: x", "servers[1]: name is not a string"},
		{"servers:\n  - name: a\n    command: x\n  - name: A\n    command: y", "servers[2] (A): the name is servers[1]'s too"},
		{"servers:\n  - name: a", "servers[1] (a): no command or url"},
		{"servers:\n  - name: a\n    command: \"x 'y\"", "unclosed ' quote"},
		{"servers:\n  - name: a\n    command: x\n    env: [\"A=B\"]", `env holds "A=B"`},
		{"servers:\n  - name: a\n    command: x\n    timeoutSeconds: 0", "timeoutSeconds must be"},
		{"servers:\n  - name: a\n    command: x\n    timeoutSeconds: 3601", "timeoutSeconds must be"},
		{"servers:\n  - name: a\n    command: x\n    timeoutSeconds: 1.5", "timeoutSeconds must be"},
		{"servers:\n  - name: a\n    url: file:///etc/passwd", "not an http(s) URL"},
		{"servers:\n  - name: a\n    url: http://u:p@h/", "user or password"},
		{"servers:\n  - name: a\n    url: http://h/\n    command: x", "both command and url"},
		{"servers:\n  - name: a\n    command: x\n    category: other", "category"},
		{"servers:\n  - name: a\n    url: http://h/\n    transport: ws", "transport"},
		{"servers:\n  - name: a\n    url: http://h/\n    headers: [\"Bad Header\"]", "not a header name"},
		{"servers: [\n", "servers.yaml"},
		{"servers:\n  - name: NUL.json\n    command: x", `servers[1]: the name "NUL.json" is a device name on Windows (NUL)`},
		{"servers:\n  - name: mcp.\n    command: x", `servers[1]: the name "mcp." ends in '.'`},
	} {
		_, err := Parse([]byte(c.src), "servers.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "servers.yaml") {
			t.Errorf("%q: %v, want an error naming the file with %q", c.src, err, c.want)
		}
	}
	// A name over the cap, and one at it.
	for _, n := range []int{MaxNameLen, MaxNameLen + 1} {
		_, err := Parse([]byte(fmt.Sprintf("servers:\n  - name: %s\n    command: x\n", strings.Repeat("n", n))), "s.yaml")
		if (err == nil) != (n == MaxNameLen) {
			t.Errorf("a name of %d bytes: %v", n, err)
		}
	}
}

func TestParseCaps(t *testing.T) {
	// Aliases that expand past the YAML value cap are refused before they
	// are expanded, as client configs are.
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for i := 0; i < 8; i++ {
		n := fmt.Sprintf("l%d", i)
		fmt.Fprintf(&b, "%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", n, n, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = n
	}
	b.WriteString("servers: []\n")
	if _, err := Parse([]byte(b.String()), "bomb.yaml"); err == nil || !strings.Contains(err.Error(), "cap") {
		t.Errorf("an alias bomb: %v", err)
	}
	big := "servers: []\n#" + strings.Repeat("x", 4<<20)
	if _, err := Parse([]byte(big), "big.yaml"); err == nil || !strings.Contains(err.Error(), "cap") {
		t.Errorf("a file over the size cap: %v", err)
	}
}

func TestShard(t *testing.T) {
	var servers []Server
	for i := range 40 {
		servers = append(servers, Server{Name: fmt.Sprintf("s%02d", i), Command: "x"})
	}
	seen := map[string]int{}
	for k := range 6 {
		for _, s := range Shard(servers, 6, k) {
			seen[s.Name]++
			if ShardOf(s.Name, 6) != k {
				t.Errorf("%s in shard %d", s.Name, k)
			}
		}
	}
	for _, s := range servers {
		if seen[s.Name] != 1 {
			t.Errorf("%s is in %d shards", s.Name, seen[s.Name])
		}
	}
	// A server keeps its shard when others are removed.
	if got := Shard(servers[5:], 6, ShardOf("s10", 6)); !hasName(got, "s10") {
		t.Error("s10 moved shard")
	}
	if len(Shard(servers, 1, 0)) != len(servers) {
		t.Error("one shard is all")
	}
}

func hasName(ss []Server, n string) bool {
	for _, s := range ss {
		if s.Name == n {
			return true
		}
	}
	return false
}

func TestHistoryUpsert(t *testing.T) {
	day1 := []HistoryRow{{"2026-08-18", "b", 10, 1, "measured", "host"}, {"2026-08-18", "a", 5, 1, "measured", "host"}}
	h := Upsert(nil, day1)
	day2 := []HistoryRow{{"2026-08-19", "a", 6, 2, "dynamic", "sandbox"}}
	h = Upsert(h, day2)
	// A re-run of the same day replaces its row.
	h = Upsert(h, []HistoryRow{{"2026-08-19", "a", 7, 2, "measured", "sandbox"}})
	again := Upsert(h, []HistoryRow{{"2026-08-19", "a", 7, 2, "measured", "sandbox"}})
	want := "date,server,tokens,toolCount,status,isolation\n2026-08-18,a,5,1,measured,host\n2026-08-18,b,10,1,measured,host\n2026-08-19,a,7,2,measured,sandbox\n"
	if got := string(HistoryCSV(h)); got != want {
		t.Errorf("history:\n%s\nwant:\n%s", got, want)
	}
	if string(HistoryCSV(again)) != want {
		t.Error("a re-run changed the history")
	}
	back, err := ReadHistory(HistoryCSV(h), "history.csv")
	if err != nil || !reflect.DeepEqual(back, h) {
		t.Errorf("read back: %v %v", back, err)
	}
	// mcp-context-cost's rows without isolation read as not recorded.
	old, err := ReadHistory([]byte("date,server,tokens,toolCount,status,isolation\n2026-08-16,a,5,1,measured,\n"), "h")
	if err != nil || old[0].Isolation != "" {
		t.Errorf("an old row: %v %v", old, err)
	}
	for _, bad := range []string{
		"date,server\n", "date,server,tokens,toolCount,status,isolation\n2026-13-01,a,1,1,measured,host\n",
		"date,server,tokens,toolCount,status,isolation\n2026-08-01,../a,1,1,measured,host\n",
		"date,server,tokens,toolCount,status,isolation\n2026-08-01,a,-1,1,measured,host\n",
		"date,server,tokens,toolCount,status,isolation\n2026-08-01,a,1\n",
	} {
		if _, err := ReadHistory([]byte(bad), "history.csv"); err == nil || !strings.HasPrefix(err.Error(), "history.csv") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestHistoryStatus: a history holds measured and dynamic rows only (the
// only ones a sweep writes); a row of another status is an error naming
// its line and status.
func TestHistoryStatus(t *testing.T) {
	const head = "date,server,tokens,toolCount,status,isolation\n"
	rows, err := ReadHistory([]byte(head+"2026-08-01,a,5,1,measured,host\n2026-08-02,a,6,1,dynamic,host\n"), "history.csv")
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v %v", rows, err)
	}
	for _, st := range []string{"startup-failure", "timeout", "not-yet-run", "", "Measured", "=HYPERLINK(\"x\")"} {
		src := head + "2026-08-01,a,5,1,measured,host\n" + `2026-08-02,a,6,1,"` + strings.ReplaceAll(st, `"`, `""`) + `",host` + "\n"
		_, err := ReadHistory([]byte(src), "history.csv")
		if err == nil || !strings.HasPrefix(err.Error(), "history.csv: line 3: the status ") || !strings.Contains(err.Error(), "measured or dynamic") {
			t.Errorf("status %q: %v", st, err)
		}
	}
}

func TestTrend(t *testing.T) {
	h := []HistoryRow{
		{"2026-08-01", "a", 1, 1, "measured", "docker"},
		{"2026-08-02", "a", 2, 1, "measured", "host"},
		{"2026-08-03", "a", 3, 1, "measured", ""},
		{"2026-08-04", "a", 4, 1, "measured", "host"},
		{"2026-08-04", "b", 9, 1, "measured", "host"},
	}
	got := Trend(h, "a", 12)
	if len(got) != 3 || got[0].Tokens != 2 {
		t.Errorf("trend: %v", got)
	}
	if got := Trend(h, "a", 2); len(got) != 2 || got[0].Tokens != 3 {
		t.Errorf("trend of 2: %v", got)
	}
	if Trend(h, "c", 12) != nil {
		t.Error("no rows")
	}
}

func TestGuard(t *testing.T) {
	prior := func(n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("s%d", i)] = "measured"
		}
		return m
	}
	after := func(n, failed int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("s%d", i)] = "measured"
			if i < failed {
				m[fmt.Sprintf("s%d", i)] = "startup-failure"
			}
		}
		return m
	}
	for _, c := range []struct {
		comparable, failed int
		fault              bool
	}{
		{10, 5, true}, {10, 4, false}, {11, 5, false}, {5, 5, true}, {4, 4, false}, {9, 5, true}, {0, 0, false},
	} {
		v := Guard(prior(c.comparable), after(c.comparable, c.failed))
		if v.Fault != c.fault || v.Comparable != c.comparable || v.Regressed != c.failed {
			t.Errorf("%d of %d: %+v", c.failed, c.comparable, v)
		}
	}
	// A server that failed before does not count; nor one not swept.
	v := Guard(map[string]string{"a": "timeout", "b": "measured"}, map[string]string{"a": "timeout"})
	if v.Comparable != 0 || !strings.Contains(v.Reason, "not performed") {
		t.Errorf("%+v", v)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("servers:\n  - name: a\n    command: x 'y z'\n    env: [A]\n    envValues: {A: b}\n"))
	f.Add([]byte("servers:\n  - name: r\n    url: http://127.0.0.1/mcp\n    headers: [X]\n"))
	f.Add([]byte("servers: [{name: a, remote: true}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := Parse(data, "f.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("an error that does not name the file: %v", err)
			}
			return
		}
		for _, s := range servers {
			if why := CheckName(s.Name); why != "" {
				t.Fatalf("a name passed that is unsafe: %q: %s", s.Name, why)
			}
			if !s.Measurable() && !s.Remote {
				t.Fatalf("%s: nothing to launch", s.Name)
			}
		}
	})
}

// TestHistoryIsolation: a row's isolation is one a sweep records (host,
// sandbox, docker) or empty (mcp-context-cost's older rows); anything
// else, such as a formula a spreadsheet would run when history.csv is
// written back, is an error naming its line.
func TestHistoryIsolation(t *testing.T) {
	const head = "date,server,tokens,toolCount,status,isolation\n"
	for _, iso := range []string{"", "host", "sandbox", "docker"} {
		if _, err := ReadHistory([]byte(head+"2026-08-01,a,5,1,measured,"+iso+"\n"), "history.csv"); err != nil {
			t.Errorf("isolation %q: %v", iso, err)
		}
	}
	if _, err := ReadHistory([]byte(head+"2026-08-01,a,5,1,measured\n"), "history.csv"); err != nil {
		t.Errorf("no isolation column: %v", err)
	}
	for _, iso := range []string{"=HYPERLINK(\"http://x\")", "+1", "@SUM(1)", "-1", "Docker", "docker:node", "chroot"} {
		src := head + `2026-08-01,a,5,1,measured,"` + strings.ReplaceAll(iso, `"`, `""`) + `"` + "\n"
		_, err := ReadHistory([]byte(src), "history.csv")
		if err == nil || !strings.HasPrefix(err.Error(), "history.csv: line 2: the isolation ") {
			t.Errorf("isolation %q: %v", iso, err)
		}
	}
}
