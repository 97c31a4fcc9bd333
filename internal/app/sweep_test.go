package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/sweep"
	"github.com/mcpcost/mcpcost/internal/testpeers"
)

var (
	sweepBinsOnce sync.Once
	sweepBins     string
	sweepBinsErr  error
)

// testServer builds the mcpclient test servers once and returns one's path.
func testServer(t *testing.T, name string) string {
	t.Helper()
	sweepBinsOnce.Do(func() {
		sweepBins, sweepBinsErr = os.MkdirTemp("", "mcpcost-app-sweep-")
		if sweepBinsErr != nil {
			return
		}
		for _, n := range []string{"stdioserver", "httpserver"} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(sweepBins, n), "../mcpclient/testdata/"+n).CombinedOutput()
			if err != nil {
				sweepBinsErr = fmt.Errorf("building %s: %v\n%s", n, err, out)
				return
			}
		}
	})
	if sweepBinsErr != nil {
		t.Fatal(sweepBinsErr)
	}
	return filepath.Join(sweepBins, name)
}

// httpServer starts the test HTTP server in mode and returns its base URL.
func httpServer(t *testing.T, mode string) string {
	t.Helper()
	cmd := exec.Command(testServer(t, "httpserver"), mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("httpserver %s: %v", mode, err)
	}
	return strings.TrimSpace(line)
}

func sweepMachine(at time.Time) *Machine {
	return &Machine{Version: "test", Now: func() time.Time { return at }}
}

// tree reads every file under dir, by its path relative to dir.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func wellFormedXML(t *testing.T, name, doc string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s is not well-formed XML: %v", name, err)
			return
		}
	}
}

// TestSweepRealServers sweeps the npm reference servers, Go test servers
// (one that reports its environment), a failing one, a hanging one and
// two remote ones on loopback (Streamable HTTP and SSE), and checks every
// file written.
func TestSweepRealServers(t *testing.T) {
	node := testpeers.Node(t)
	memory := testpeers.NPMPackage(t, "@modelcontextprotocol/server-memory")
	filesystem := testpeers.NPMPackage(t, "@modelcontextprotocol/server-filesystem")
	stdio := testServer(t, "stdioserver")
	streamable, sse := httpServer(t, "streamable"), httpServer(t, "sse")
	var memPkg struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(memory, "package.json")); err != nil || json.Unmarshal(b, &memPkg) != nil || memPkg.Version == "" {
		t.Fatalf("server-memory's package.json: %v", err)
	}
	src := fmt.Sprintf(`servers:
  - name: memory
    command: [%[1]q, %[2]q]
    package: "@modelcontextprotocol/server-memory"
    category: official-reference
    repo: "<img src=x onerror=alert(1)>"
  - name: filesystem
    command: [%[1]q, %[3]q, "."]
    package: "@modelcontextprotocol/server-filesystem"
    category: official-reference
  - name: go-env
    command: [%[4]q, env]
    env: [API_KEY, NEO4J_URI]
    envValues: {NEO4J_URI: "bolt://localhost:7687", REGION: "eu-west-1"}
    category: community
  - name: broken
    command: [%[4]q, crash]
    metric: "<script>alert(1)</script>"
  - name: hangs
    command: [%[4]q, silent]
    timeoutSeconds: 1
  - name: remote-http
    url: %[5]s/mcp
  - name: remote-sse
    url: %[6]s/sse
    transport: sse
  - name: linear
    command: npx -y mcp-remote https://mcp.linear.app/sse
    remote: true
`, node, filepath.Join(memory, "dist", "index.js"), filepath.Join(filesystem, "dist", "index.js"), stdio, streamable, sse)
	servers, err := sweep.Parse([]byte(src), "servers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// A published measurement of a server this sweep lists but does not
	// measure stands on the leaderboard as it is.
	pub := testpeers.Shared(t)
	servers = append(servers, sweep.Server{Name: "github", Command: "docker", Args: []string{"run", "github"}, CommandLine: "docker run github", Category: "vendor-official"})
	pubGithub, err := os.ReadFile(filepath.Join(pub, "published", "github", "measurement.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(out, "results", "github"), 0o755)
	os.WriteFile(filepath.Join(out, "results", "github", "measurement.json"), pubGithub, 0o644)
	swept := map[string]bool{}
	for _, s := range servers[:len(servers)-1] {
		swept[s.Name] = true
	}
	var progress bytes.Buffer
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	opts := SweepOptions{Servers: servers, Swept: swept, Out: out, Timeout: 60 * time.Second, Concurrency: 2, Date: "2026-12-01", Progress: &progress}
	res, err := sweepMachine(at).Sweep(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Guard.Fault {
		t.Fatalf("a harness fault: %+v", res.Guard)
	}
	want := map[string]string{"memory": "measured", "filesystem": "measured", "go-env": "measured", "broken": "startup-failure", "hangs": "timeout", "remote-http": "measured", "remote-sse": "measured"}
	got := map[string]string{}
	for _, s := range res.Measured {
		got[s.Name] = s.Status
		if s.Name == "hangs" && !s.Retried {
			t.Error("the timeout was not retried")
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if n := strings.Count(progress.String(), "\n"); n != len(want) {
		t.Errorf("%d progress lines, want %d:\n%s", n, len(want), progress.String())
	}
	files := tree(t, out)
	for _, s := range servers {
		for _, f := range []string{"badges/%s.json", "badges/%s.svg", "servers/%s.html", "servers/%s.md"} {
			if _, ok := files[fmt.Sprintf(f, s.Name)]; !ok {
				t.Errorf("no %s", fmt.Sprintf(f, s.Name))
			}
		}
	}
	for _, f := range []string{"leaderboard.md", "leaderboard.csv", "history.csv", "index.html"} {
		if _, ok := files[f]; !ok {
			t.Errorf("no %s", f)
		}
	}
	if _, ok := files["results/linear/measurement.json"]; ok {
		t.Error("a remote-auth-wall entry was measured")
	}
	if files["results/github/measurement.json"] != string(pubGithub) {
		t.Error("the published measurement of a server not swept was changed")
	}

	// Every measurement verifies; the failures carry their status.
	for name, st := range want {
		b := files["results/"+name+"/measurement.json"]
		var f measure.File
		if err := json.Unmarshal([]byte(b), &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.Status != st || f.Isolation == nil || f.Isolation.Mode != sweep.IsolationHost {
			t.Errorf("%s: status %s, isolation %+v", name, f.Status, f.Isolation)
		}
		if st != "measured" {
			continue
		}
		v, err := measure.Verify(name, []byte(b), nil)
		if err != nil || !v.OK {
			t.Errorf("%s does not verify: %v %+v", name, err, v)
		}
	}
	var mem measure.File
	json.Unmarshal([]byte(files["results/memory/measurement.json"]), &mem)
	if mem.Package != "@modelcontextprotocol/server-memory" || mem.PackageVersion != memPkg.Version {
		t.Errorf("memory's package %q %q, want its package.json's %q", mem.Package, mem.PackageVersion, memPkg.Version)
	}
	var hangs measure.File
	json.Unmarshal([]byte(files["results/hangs/measurement.json"]), &hangs)
	if hangs.TimeoutMs != 2000 || !strings.HasPrefix(hangs.Notes, "reproduced on double the timeout budget; ") {
		t.Errorf("hangs: timeoutMs %d, notes %q", hangs.TimeoutMs, hangs.Notes)
	}
	// Only PATH, HOME and the named variables reach the server: the env
	// server lists the names it sees in its tool's description.
	var env measure.File
	json.Unmarshal([]byte(files["results/go-env/measurement.json"]), &env)
	var tools []struct{ Description string }
	json.Unmarshal(env.RawToolsCapture, &tools)
	if len(tools) != 1 || tools[0].Description != "API_KEY,HOME,NEO4J_URI,PATH,REGION" {
		t.Errorf("the env server saw %v", tools)
	}
	if !reflect.DeepEqual(env.EnvVarNames, []string{"API_KEY", "NEO4J_URI", "REGION"}) {
		t.Errorf("envVarNames %v", env.EnvVarNames)
	}

	// Badges: shields endpoint JSON, key order and all; SVG well-formed.
	wantBadge := `{"schemaVersion":1,"label":"context cost","message":"unknown","color":"lightgrey","cacheSeconds":3600}` + "\n"
	if files["badges/broken.json"] != wantBadge {
		t.Errorf("broken's badge %q", files["badges/broken.json"])
	}
	if !strings.HasPrefix(files["badges/github.json"], `{"schemaVersion":1,"label":"context cost","message":"54,422 tokens","color":"red",`) {
		t.Errorf("github's badge %q", files["badges/github.json"])
	}
	for name, b := range files {
		if strings.HasSuffix(name, ".svg") {
			wellFormedXML(t, name, b)
		}
	}

	// History: measured and dynamic only, one row per day and server.
	hist, err := sweep.ReadHistory([]byte(files["history.csv"]), "history.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 5 {
		t.Errorf("history: %v", hist)
	}

	// The leaderboard: github (published, with its Claude figure) first;
	// mcp-context-cost's columns first, in order.
	lb := files["leaderboard.md"]
	if !strings.Contains(lb, "| 1 | [github](servers/github.md) | 54,422 |") || !strings.Contains(lb, "18,406") {
		t.Errorf("leaderboard.md:\n%s", lb)
	}
	if !strings.HasPrefix(files["leaderboard.csv"], "name,tokens,toolCount,status,category,metric,metricSource,claudeTokens,claudeModel,sessionStartTokens,sessionStartIsFloor,toolNameTokens,instructionsTokens,") {
		t.Errorf("leaderboard.csv's header: %.200s", files["leaderboard.csv"])
	}
	for name, b := range files {
		if strings.HasSuffix(name, ".html") && (strings.Contains(b, "<img src=x") || strings.Contains(b, "<script>alert")) {
			t.Errorf("%s: a stranger's text became markup", name)
		}
	}

	// A re-run on the same day changes nothing but what was measured anew.
	if _, err := sweepMachine(at).Sweep(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	again := tree(t, out)
	for _, f := range []string{"history.csv", "leaderboard.csv", "leaderboard.md", "index.html", "badges/memory.json"} {
		if again[f] != files[f] {
			t.Errorf("a re-run changed %s", f)
		}
	}
	// The next day adds its rows beside the first day's.
	next := opts
	next.Date = "2026-12-02"
	next.Swept = map[string]bool{"go-env": true}
	if _, err := sweepMachine(at.Add(24*time.Hour)).Sweep(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	hist2, _ := sweep.ReadHistory([]byte(tree(t, out)["history.csv"]), "history.csv")
	if len(hist2) != 6 || hist2[5].Date != "2026-12-02" || hist2[5].Server != "go-env" {
		t.Errorf("history after a second day: %v", hist2)
	}
}

// TestSweepHarnessFault: when the servers measured before all fail now,
// the sweep publishes nothing and every file stays as it was.
func TestSweepHarnessFault(t *testing.T) {
	pub := filepath.Join(testpeers.Shared(t), "published")
	stdio := testServer(t, "stdioserver")
	out := t.TempDir()
	names := []string{"memory", "filesystem", "everything", "fetch", "time", "git"}
	var servers []sweep.Server
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(pub, n, "measurement.json"))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(out, "results", n), 0o755)
		os.WriteFile(filepath.Join(out, "results", n, "measurement.json"), b, 0o644)
		servers = append(servers, sweep.Server{Name: n, Command: stdio, Args: []string{"crash"}, CommandLine: stdio + " crash"})
	}
	os.WriteFile(filepath.Join(out, "history.csv"), []byte("date,server,tokens,toolCount,status,isolation\n2026-08-19,memory,1,1,measured,docker\n"), 0o644)
	before := tree(t, out)
	res, err := sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Out: out, Date: "2026-12-01"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Guard.Fault || res.Guard.Regressed != 6 || res.Guard.Comparable != 6 || !strings.Contains(res.Guard.Reason, "6 of 6") {
		t.Fatalf("guard %+v", res.Guard)
	}
	if after := tree(t, out); !reflect.DeepEqual(after, before) {
		t.Error("a harness fault changed the published files")
	}
	// Four failures of six is no fault.
	for i := range servers[:2] {
		servers[i].Args = []string{"ok"}
	}
	res, err = sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Out: out, Date: "2026-12-01"})
	if err != nil || res.Guard.Fault || res.Guard.Regressed != 4 {
		t.Fatalf("four of six: %v %+v", err, res.Guard)
	}
}

func TestSweepTargetIsolation(t *testing.T) {
	s := sweep.Server{Name: "n", Command: "npx", Args: []string{"-y", "pkg it's"}, Env: []string{"B", "A"}, EnvValues: map[string]string{"C": "v"}}
	tg, iso, err := SweepTarget(s, IsolateDocker, false, "/tmp/h", "/tmp/w", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run", "--rm", "-i", "--pull=missing", "--memory=1g", "--pids-limit=512", "--security-opt", "no-new-privileges", "-e", "HOME=/tmp", "-w", "/tmp",
		"-e", "A", "-e", "B", "-e", "C", DockerNodeImage, "sh", "-lc", `npx -y 'pkg it'\''s'`}
	if tg.Command != "docker" || !reflect.DeepEqual(tg.Args, want) {
		t.Errorf("docker argv %q", tg.Args)
	}
	if tg.Env["A"] != "dummy" || tg.Env["C"] != "v" || tg.Env["HOME"] != "/tmp/h" || !iso.Docker || iso.Image != DockerNodeImage || iso.Network != "bridge" {
		t.Errorf("docker: env %v, isolation %+v", tg.Env, iso)
	}
	uv := sweep.Server{Name: "u", Command: "uvx", Args: []string{"arxiv-mcp-server"}}
	if DockerImage(uv) != DockerUVImage {
		t.Error("uvx runs in uv's image")
	}
	_, iso, _ = SweepTarget(uv, IsolateDocker, true, "/tmp/h", "/tmp/w", "")
	if iso.Network != "none" {
		t.Errorf("--no-network: %+v", iso)
	}
	run := sweep.Server{Name: "g", Command: "docker", Args: []string{"run", "-i", "ghcr.io/github/github-mcp-server"}}
	tg, iso, _ = SweepTarget(run, IsolateDocker, false, "/tmp/h", "/tmp/w", "")
	if tg.Command != "docker" || tg.Args[1] != "-i" || !strings.Contains(iso.Note, "host-spawned") {
		t.Errorf("a docker run command: %q %+v", tg.Args, iso)
	}
}

// TestSweepSandbox measures the env server in the unshare sandbox: the
// user's home is out of its reach, and the isolation is recorded.
func TestSweepSandbox(t *testing.T) {
	if err := checkIsolation(IsolateSandbox); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	stdio := testServer(t, "stdioserver")
	out := t.TempDir()
	servers := []sweep.Server{{Name: "env", Command: stdio, Args: []string{"env"}, CommandLine: stdio + " env", Env: []string{"K"}}}
	res, err := sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Out: out, Isolate: IsolateSandbox, NoNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Measured[0].Status != "measured" {
		t.Fatalf("in the sandbox: %+v", res.Measured[0])
	}
	var f measure.File
	b, _ := os.ReadFile(filepath.Join(out, "results", "env", "measurement.json"))
	json.Unmarshal(b, &f)
	if f.Isolation == nil || f.Isolation.Mode != sweep.IsolationSandbox || f.Isolation.Network != "none" || f.LaunchCommand != stdio+" env" {
		t.Errorf("isolation %+v, launch %q", f.Isolation, f.LaunchCommand)
	}
	h, _ := os.ReadFile(filepath.Join(out, "history.csv"))
	if !strings.Contains(string(h), ",env,") || !strings.HasSuffix(string(h), ",measured,sandbox\n") {
		t.Errorf("history %q", h)
	}
}

// TestSweepSandboxReach: a server in the sandbox cannot read a file in
// the user's real home, nor one in a folder outside its fresh home; the
// same server without the sandbox can (so that the probe is seen to
// work). It skips only where unshare cannot make the namespaces.
func TestSweepSandboxReach(t *testing.T) {
	if err := checkIsolation(IsolateSandbox); err != nil {
		t.Skipf("no sandbox here (unshare cannot make user and mount namespaces): %v", err)
	}
	// The account's home (from passwd: /root as root) and a $HOME
	// elsewhere: the sandbox hides both, even when the server's
	// arguments name them.
	u, err := user.Current()
	if err != nil || u.HomeDir == "" || u.HomeDir == "/" {
		t.Skipf("no home folder to probe (%+v, %v)", u, err)
	}
	passwdMarker, err := os.CreateTemp(u.HomeDir, ".mcpcost-sandbox-probe-")
	if err != nil {
		t.Skipf("cannot write a marker in the home folder: %v", err)
	}
	passwdMarker.WriteString("PASSWD-MARKER\n")
	passwdMarker.Close()
	t.Cleanup(func() { os.Remove(passwdMarker.Name()) })
	envHome := t.TempDir()
	t.Setenv("HOME", envHome)
	homeMarker := filepath.Join(envHome, ".bashrc")
	if err := os.WriteFile(homeMarker, []byte("HOME-MARKER\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "marker")
	if err := os.WriteFile(other, []byte("OTHER-MARKER\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdio := testServer(t, "stdioserver")
	args := []string{"read", u.HomeDir, envHome, homeMarker, passwdMarker.Name(), filepath.Dir(u.HomeDir)}
	servers := []sweep.Server{{Name: "probe", Command: stdio, Args: args, CommandLine: stdio + " " + strings.Join(args, " "),
		EnvValues: map[string]string{"READ_HOME": homeMarker, "READ_PASSWD": passwdMarker.Name(), "READ_OTHER": other}}}
	description := func(isolate string) string {
		out := t.TempDir()
		res, err := sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Out: out, Isolate: isolate, NoNetwork: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Measured[0].Status != "measured" {
			t.Fatalf("--isolate %s: %+v", isolate, res.Measured[0])
		}
		var f measure.File
		b, _ := os.ReadFile(filepath.Join(out, "results", "probe", "measurement.json"))
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		var tools []struct {
			Description string `json:"description"`
		}
		if err := json.Unmarshal(f.RawToolsCapture, &tools); err != nil || len(tools) != 1 {
			t.Fatalf("--isolate %s: capture %s (%v)", isolate, f.RawToolsCapture, err)
		}
		return tools[0].Description
	}
	if got, want := description(IsolateNone), "READ_HOME=HOME-MARKER,READ_OTHER=OTHER-MARKER,READ_PASSWD=PASSWD-MARKER"; got != want {
		t.Fatalf("--isolate none: the probe reports %q, want %q", got, want)
	}
	if got, want := description(IsolateSandbox), "READ_HOME=unreadable,READ_OTHER=unreadable,READ_PASSWD=unreadable"; got != want {
		t.Errorf("--isolate sandbox: the probe reports %q, want %q", got, want)
	}
}

// TestSweepPublishedAsBaselines: mcp-context-cost's 79 published files,
// read as a sweep's previous results with nothing swept, make the
// leaderboard of its 69 measured servers and its 10 failures.
func TestSweepPublishedAsBaselines(t *testing.T) {
	pub := filepath.Join(testpeers.Shared(t), "published")
	dirs, err := os.ReadDir(pub)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var servers []sweep.Server
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(pub, d.Name(), "measurement.json"))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(out, "results", d.Name()), 0o755)
		os.WriteFile(filepath.Join(out, "results", d.Name(), "measurement.json"), b, 0o644)
		servers = append(servers, sweep.Server{Name: d.Name(), Command: "npx", Args: []string{d.Name()}, CommandLine: "npx " + d.Name()})
	}
	if len(servers) != 79 {
		t.Fatalf("%d published servers", len(servers))
	}
	res, err := sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Swept: map[string]bool{}, Out: out, Date: "2026-12-01"})
	if err != nil || len(res.Measured) != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	lb, _ := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	if !strings.Contains(string(lb), "Measured 69/79 candidates") || !strings.Contains(string(lb), "| 1 | [github](servers/github.md) | 54,422 | 556 | 18,406 |") {
		t.Errorf("leaderboard.md:\n%.1500s", lb)
	}
	// The published files are left as they were, and still verify.
	for _, s := range servers {
		a, _ := os.ReadFile(filepath.Join(pub, s.Name, "measurement.json"))
		b, _ := os.ReadFile(filepath.Join(out, "results", s.Name, "measurement.json"))
		if !bytes.Equal(a, b) {
			t.Errorf("%s was rewritten", s.Name)
		}
	}
	h, _ := os.ReadFile(filepath.Join(out, "history.csv"))
	if string(h) != strings.Join(sweep.HistoryHeader, ",")+"\n" {
		t.Errorf("nothing measured adds no history: %q", h)
	}
}

// TestSandboxBinds: what a sandboxed server is launched from is bound
// read-only (an npm .bin link with its node_modules folder, a binary, an
// absolute argument), and nothing under the system folders twice.
func TestSandboxBinds(t *testing.T) {
	dir := t.TempDir()
	nm := filepath.Join(dir, "proj", "node_modules")
	os.MkdirAll(filepath.Join(nm, ".bin"), 0o755)
	os.MkdirAll(filepath.Join(nm, "pkg"), 0o755)
	os.WriteFile(filepath.Join(nm, "pkg", "index.js"), []byte("#!/usr/bin/env node\n"), 0o755)
	if err := os.Symlink("../pkg/index.js", filepath.Join(nm, ".bin", "srv")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "server")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	script := filepath.Join(dir, "data", "s.js")
	os.MkdirAll(filepath.Dir(script), 0o755)
	os.WriteFile(script, nil, 0o644)
	tests := []struct {
		s    sweep.Server
		want []string // after the system folders, home and work
	}{
		{sweep.Server{Command: filepath.Join(nm, ".bin", "srv")}, []string{"ro", nm}},
		{sweep.Server{Command: bin, Args: []string{"--x", script, filepath.Join(dir, "missing")}}, []string{"ro", bin, "ro", script}},
		{sweep.Server{Command: "sh", Args: []string{"/usr/lib", "/etc/hosts"}}, nil},
	}
	for _, tc := range tests {
		got := sandboxBinds(tc.s, "/tmp/h", "/tmp/w")
		head := 2*len(sandboxSystem) + 4
		if len(got) < head || got[head-3] != "/tmp/h" || got[head-1] != "/tmp/w" {
			t.Fatalf("%s: %q", tc.s.Command, got)
		}
		if strings.Join(got[head:], " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: binds %q, want %q", tc.s.Command, got[head:], tc.want)
		}
	}
}

// TestSweepPriorVerified: a measurement.json found in the folder is
// trusted only when it passes verify's check (or records a failure, with
// nothing to re-derive): one whose figures do not match its capture, or
// that is not a measurement at all, is named in a warning, and the pages,
// the badges and the harness guard take the server as never measured.
func TestSweepPriorVerified(t *testing.T) {
	pub := filepath.Join(testpeers.Shared(t), "published")
	out := t.TempDir()
	put := func(name string, b []byte) {
		t.Helper()
		os.MkdirAll(filepath.Join(out, "results", name), 0o755)
		if err := os.WriteFile(filepath.Join(out, "results", name, "measurement.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good, err := os.ReadFile(filepath.Join(pub, "time", "measurement.json"))
	if err != nil {
		t.Fatal(err)
	}
	put("time", good)
	// memory's number made smaller than its capture, as a hand or a
	// stranger could.
	b, err := os.ReadFile(filepath.Join(pub, "memory", "measurement.json"))
	if err != nil {
		t.Fatal(err)
	}
	put("memory", bytes.Replace(b, []byte(`"totalTokens": 2378`), []byte(`"totalTokens": 12`), 1))
	put("notjson", []byte("{not json"))
	put("nocapture", []byte(`{"methodologyVersion":"1.0","status":"measured","totalTokens":5,"toolCount":1}`))
	put("failed", []byte(`{"methodologyVersion":"1.0","status":"startup-failure","totalTokens":null,"toolCount":null,"notes":"exited"}`))
	var servers []sweep.Server
	for _, n := range []string{"time", "memory", "notjson", "nocapture", "failed"} {
		servers = append(servers, sweep.Server{Name: n, Command: "npx", Args: []string{n}, CommandLine: "npx " + n})
	}
	res, err := sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Swept: map[string]bool{}, Out: out, Date: "2026-12-01"})
	if err != nil {
		t.Fatal(err)
	}
	warned := strings.Join(res.Warnings, "\n")
	for _, n := range []string{"memory", "notjson", "nocapture"} {
		p := filepath.Join(out, "results", n, "measurement.json")
		if !strings.Contains(warned, p+" does not pass verify") {
			t.Errorf("no warning names %s:\n%s", p, warned)
		}
	}
	if !strings.Contains(warned, "token mismatch: re-derived 2378, stored 12") {
		t.Errorf("the warning does not say what failed:\n%s", warned)
	}
	for _, n := range []string{"time", "failed"} {
		if strings.Contains(warned, filepath.Join("results", n)) {
			t.Errorf("%s verifies (or records a failure), yet: %s", n, warned)
		}
	}
	lb, _ := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	if !strings.Contains(string(lb), "| 1 | [time](servers/time.md) | 293 |") || strings.Contains(string(lb), "| 12 |") || strings.Contains(string(lb), "[memory](servers/memory.md) | 12") {
		t.Errorf("leaderboard.md:\n%s", lb)
	}
	if !strings.Contains(string(lb), "| [memory](servers/memory.md) | not-yet-run | results/memory/measurement.json does not pass verify") {
		t.Errorf("leaderboard.md does not say why memory is not on it:\n%s", lb)
	}
	badge, _ := os.ReadFile(filepath.Join(out, "badges", "memory.json"))
	if !strings.Contains(string(badge), `"message":"unknown"`) {
		t.Errorf("memory's badge %s", badge)
	}
}

// TestSweepHistoryFirst: the history is read, and a bad one refused,
// before any server is launched.
func TestSweepHistoryFirst(t *testing.T) {
	const head = "date,server,tokens,toolCount,status,isolation\n2026-08-19,a,1,1,measured,host\n"
	for _, tt := range []struct{ row, want string }{
		{"2026-08-20,a,1,1,startup-failure,host\n", `line 3: the status "startup-failure"`},
		{"2026-13-01,a,1,1,measured,host\n", `line 3: the date "2026-13-01"`},
	} {
		out := t.TempDir()
		marker := filepath.Join(t.TempDir(), "launched")
		hist := head + tt.row
		if err := os.WriteFile(filepath.Join(out, "history.csv"), []byte(hist), 0o644); err != nil {
			t.Fatal(err)
		}
		servers := []sweep.Server{{Name: "a", Command: "sh", Args: []string{"-c", "touch " + marker}, CommandLine: "sh -c touch"}}
		_, err := sweepMachine(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)).Sweep(context.Background(), SweepOptions{Servers: servers, Out: out, Date: "2026-12-01"})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(out, "history.csv")+": "+tt.want) {
			t.Errorf("got %v, want the history's %s refused", err, tt.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: a server was launched before the history was read", tt.want)
		}
		if b, _ := os.ReadFile(filepath.Join(out, "history.csv")); string(b) != hist {
			t.Errorf("the history was rewritten: %q", b)
		}
	}
}

// publishedTree is tree(dir) with every folder below dir, as "NAME/", so
// that a folder made and not removed shows.
func publishedTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := tree(t, dir)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out[rel+"/"] = ""
		}
		return nil
	})
	return out
}

// temporaries are the ".mcpcost-" files below dir other than the lock.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	var tmps []string
	for rel := range tree(t, dir) {
		if b := filepath.Base(rel); strings.HasPrefix(b, ".mcpcost-") && b != sweepLockName {
			tmps = append(tmps, rel)
		}
	}
	return tmps
}

// TestSweepPublishAllOrNothing: a sweep that cannot write one of its
// files (a folder in the way, before or after the others in their order)
// publishes none of them: every file is as it was, byte for byte, no
// folder it made and no temporary file is left, and the error names the
// file.
func TestSweepPublishAllOrNothing(t *testing.T) {
	stdio := testServer(t, "stdioserver")
	ok := sweep.Server{Name: "ok", Command: stdio, Args: []string{"ok"}, CommandLine: stdio + " ok"}
	env := sweep.Server{Name: "env", Command: stdio, Args: []string{"env"}, CommandLine: stdio + " env"}
	for _, blocked := range []string{"servers/ok.md", "leaderboard.md", "badges/env.json", "badges/ok.json", "servers"} {
		t.Run(blocked, func(t *testing.T) {
			out := t.TempDir()
			at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			_, err := sweepMachine(at).Sweep(context.Background(), SweepOptions{Servers: []sweep.Server{ok}, Out: out, Date: "2026-12-01"})
			if err != nil {
				t.Fatal(err)
			}
			// A folder where a file goes, or a file where a folder goes.
			p := filepath.Join(out, filepath.FromSlash(blocked))
			if filepath.Ext(p) != "" {
				os.Remove(p)
				err = os.MkdirAll(filepath.Join(p, "kept"), 0o755)
			} else {
				os.RemoveAll(p)
				err = os.WriteFile(p, []byte("kept"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			before := publishedTree(t, out)
			// A new day, a new server: every page, the history and the
			// leaderboards change, and results/env is a new folder.
			_, err = sweepMachine(at.AddDate(0, 0, 1)).Sweep(context.Background(), SweepOptions{Servers: []sweep.Server{ok, env}, Out: out, Date: "2026-12-02"})
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "nothing published") {
				t.Fatalf("got %v, want an error naming %s, nothing published", err, p)
			}
			t.Log(err)
			after := publishedTree(t, out)
			for name, b := range after {
				if a, ok := before[name]; !ok {
					t.Errorf("%s was made", name)
				} else if a != b {
					t.Errorf("%s was rewritten", name)
				}
			}
			for name := range before {
				if _, ok := after[name]; !ok {
					t.Errorf("%s was removed", name)
				}
			}
			if tmps := temporaries(t, out); len(tmps) > 0 {
				t.Errorf("temporary files left: %v", tmps)
			}
		})
	}
}

// TestSweepPublishRenameFails: a rename that fails midway (a folder put
// in a file's place once every file is written) names the files
// published and those not; each of those is as it was, and no temporary
// file is left.
func TestSweepPublishRenameFails(t *testing.T) {
	stdio := testServer(t, "stdioserver")
	ok := sweep.Server{Name: "ok", Command: stdio, Args: []string{"ok"}, CommandLine: stdio + " ok"}
	out := t.TempDir()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if _, err := sweepMachine(at).Sweep(context.Background(), SweepOptions{Servers: []sweep.Server{ok}, Out: out, Date: "2026-12-01"}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, out)
	const blocked = "leaderboard.csv"
	testOnlyBeforeRename = func(rel string) {
		if rel == blocked {
			os.Remove(filepath.Join(out, rel))
			os.Mkdir(filepath.Join(out, rel), 0o755)
		}
	}
	defer func() { testOnlyBeforeRename = nil }()
	_, err := sweepMachine(at.AddDate(0, 0, 1)).Sweep(context.Background(), SweepOptions{Servers: []sweep.Server{ok}, Out: out, Date: "2026-12-02"})
	t.Log(err)
	// What changes from one day to the next, in the order of names.
	published := []string{"history.csv", "index.html"}
	notPublished := []string{"leaderboard.csv", "leaderboard.md", "results/ok/measurement.json", "servers/ok.html", "servers/ok.md"}
	want := fmt.Sprintf("renaming into %s: ", filepath.Join(out, blocked))
	want2 := fmt.Sprintf("published 2 of 7 files (%s); not published, as they were: %s", strings.Join(published, ", "), strings.Join(notPublished, ", "))
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), want2) {
		t.Fatalf("got %v, want %q and %q", err, want, want2)
	}
	if errorHintOf(err) == "" {
		t.Errorf("%v: no hint", err)
	}
	after := tree(t, out)
	for _, name := range published {
		if after[name] == before[name] {
			t.Errorf("%s is as it was, said to be published", name)
		}
	}
	for _, name := range notPublished[1:] {
		if after[name] != before[name] {
			t.Errorf("%s was rewritten, said not to be", name)
		}
	}
	if tmps := temporaries(t, out); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// errorHintOf is the hint err carries, "" for none.
func errorHintOf(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	return ""
}

// TestSweepRemovesStaleTemporaries: the temporary files a sweep stopped
// between staging and renaming left (named as outfile.CreateTemp names
// them, a minute old or more) are removed by the next sweep into the
// folder, which says so; a younger one (another mcpcost may be writing
// it), the lock, a link or a folder of that name, another name, and a
// folder no file is published in are left.
func TestSweepRemovesStaleTemporaries(t *testing.T) {
	stdio := testServer(t, "stdioserver")
	ok := sweep.Server{Name: "ok", Command: stdio, Args: []string{"ok"}, CommandLine: stdio + " ok"}
	out := t.TempDir()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if _, err := sweepMachine(at).Sweep(context.Background(), SweepOptions{Servers: []sweep.Server{ok}, Out: out, Date: "2026-12-01"}); err != nil {
		t.Fatal(err)
	}
	next := at.AddDate(0, 0, 1)
	file := func(rel string, age time.Duration) {
		p := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, next.Add(-age), next.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	stale := []string{".mcpcost-1", "badges/.mcpcost-3w5e11264sgsf", "results/ok/.mcpcost-abc123", "servers/.mcpcost-zz"}
	for _, rel := range stale {
		file(rel, 2*time.Minute)
	}
	file("servers/.mcpcost-young", staleAge-time.Second)
	file("servers/.mcpcost-edge", staleAge)
	file("servers/.mcpcost-ABC", time.Hour)            // not a name CreateTemp gives
	file("servers/.mcpcost-12345678901234", time.Hour) // 14 characters: neither
	file("elsewhere/.mcpcost-old", time.Hour)          // no file is published there
	kept := []string{"servers/.mcpcost-young", "servers/.mcpcost-ABC", "servers/.mcpcost-12345678901234", "elsewhere/.mcpcost-old", "badges/.mcpcost-dir", sweepLockName}
	if err := os.Symlink(filepath.Join(out, "leaderboard.md"), filepath.Join(out, "servers", ".mcpcost-link")); err == nil {
		kept = append(kept, "servers/.mcpcost-link")
	} else if runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(out, "badges", ".mcpcost-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := sweepMachine(next).Sweep(context.Background(), SweepOptions{Servers: []sweep.Server{ok}, Out: out, Date: "2026-12-02"})
	if err != nil {
		t.Fatal(err)
	}
	removed := append([]string{"servers/.mcpcost-edge"}, stale...)
	sort.Strings(removed)
	for _, rel := range removed {
		if _, err := os.Lstat(filepath.Join(out, rel)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it removed", rel, err)
		}
	}
	for _, rel := range kept {
		if _, err := os.Lstat(filepath.Join(out, rel)); err != nil {
			t.Errorf("%s: %v, want it kept", rel, err)
		}
	}
	want := fmt.Sprintf("removed 5 temporary files that a stopped sweep left in %s: %s", out, strings.Join(removed, ", "))
	if len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", res.Warnings, want)
	}
	// Nothing left old enough to remove: no warning.
	res, err = sweepMachine(next).Sweep(context.Background(), SweepOptions{Servers: []sweep.Server{ok}, Out: out, Date: "2026-12-02"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "temporary") {
			t.Errorf("second sweep: %q", w)
		}
	}
}
