package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/usage"
)

func TestStoreSpec(t *testing.T) {
	for _, c := range []struct {
		flag, env, db  string
		path, url, err string
	}{
		{},
		{flag: "sqlite:/x/u.db", path: "/x/u.db"},
		{flag: "sqlite:///x/u.db", path: "/x/u.db"},
		{flag: "rel/u.db", path: "rel/u.db"},
		{env: "sqlite:/e.db", path: "/e.db"},
		{env: "sqlite:/e.db", db: "/d.db", path: "/d.db"},
		{flag: "/f.db", env: "postgres://h/db", path: "/f.db"},
		{env: "postgres://u:pw@h/db", url: "postgres://u:pw@h/db"},
		{flag: "postgresql://h/db", db: "/d.db", url: "postgresql://h/db"},
		{flag: "sqlite:", err: "--store sqlite:: sqlite: names no file"},
		{flag: "sqlite:/a.db", db: "/b.db", err: "--store and --db both name the local store"},
		{flag: "mysql://u:pw@h/x", err: "--store mysql://u:***@h/x: not a store mcpcost reads"},
		{env: "ftp://h/x", err: "MCPCOST_STORE=ftp://h/x: not a store"},
	} {
		m := machineFor(map[string]string{"MCPCOST_STORE": c.env}, "--")
		m.Store, m.DBPath = c.flag, c.db
		got, err := m.storeSpec()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: %v, want an error with %q", c, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "pw") {
				t.Errorf("%+v: the error shows the password: %v", c, err)
			}
		case err != nil:
			t.Errorf("%+v: %v", c, err)
		case got.path != c.path || got.url != c.url:
			t.Errorf("%+v: %+v, want path %q url %q", c, got, c.path, c.url)
		}
	}
}

func TestMachineName(t *testing.T) {
	host, _ := os.Hostname()
	for _, c := range []struct {
		flag, env, want string
		bad             bool
	}{
		{want: host},
		{env: "ci-7", want: "ci-7"},
		{flag: "laptop", env: "ci-7", want: "laptop"},
		{flag: " laptop", bad: true},
		{env: "a\x1bb", bad: true},
		{flag: strings.Repeat("x", 256), bad: true},
	} {
		m := machineFor(map[string]string{"MCPCOST_MACHINE": c.env}, "--")
		m.MachineName = c.flag
		got, err := m.machineName()
		if c.bad != (err != nil) || (!c.bad && got != c.want) {
			t.Errorf("%q %q: %q, %v; want %q (an error: %v)", c.flag, c.env, got, err, c.want, c.bad)
		}
	}
}

func TestProjectKey(t *testing.T) {
	cfg := t.TempDir()
	vars := map[string]string{"XDG_CONFIG_HOME": cfg}
	var warned []string
	m := machineFor(vars, "--")
	m.Warn = func(s string) { warned = append(warned, s) }
	k1, err := m.projectKey()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cfg, "mcpcost", "project-key")
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the key file's mode is %v, want 0600", fi.Mode().Perm())
	}
	if len(k1) != 64 || len(warned) != 1 || !strings.Contains(warned[0], file) {
		t.Errorf("key %q (want 64 hex digits), warnings %q (want one naming %s)", k1, warned, file)
	}
	k2, err := m.projectKey()
	if err != nil || string(k2) != string(k1) || len(warned) != 1 {
		t.Errorf("a second use: %q, %v, warnings %q; want the same key, made once", k2, err, warned)
	}
	vars["MCPCOST_PROJECT_KEY"] = "a key teammates share"
	if k, err := m.projectKey(); err != nil || string(k) != "a key teammates share" {
		t.Errorf("MCPCOST_PROJECT_KEY: %q, %v", k, err)
	}
	vars["MCPCOST_PROJECT_KEY"] = "short"
	if _, err := m.projectKey(); err == nil {
		t.Error("a 5-character key was taken")
	}
}

const sessionLine = `{"type":"assistant","sessionId":"%s","cwd":"/home/u/%s","timestamp":"2026-11-0%dT10:00:01.000Z","requestId":"r-%s","message":{"id":"m-%s","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":10,"output_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}
`

// home writes a Claude Code folder with one session of one request for
// each of sessions, and returns a machine that reads it into its own
// local store and reports from the shared store at url, as name.
func home(t *testing.T, cache, url, name string, sessions ...string) *Machine {
	dir := t.TempDir()
	day := map[string]string{"s-a": "1", "shared": "2", "s-b": "3", "s-c": "4"}
	for _, s := range sessions {
		p := filepath.Join(dir, "projects", "-home-u-"+s, s+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		line := strings.NewReplacer("%s", s).Replace(strings.Replace(sessionLine, "%d", day[s], 1))
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := machineFor(map[string]string{"HOME": dir, "XDG_CACHE_HOME": cache, "XDG_CONFIG_HOME": dir}, "--")
	m.DBPath, m.ClaudeDirs, m.CodexDirs = filepath.Join(dir, "usage.db"), []string{dir}, []string{filepath.Join(dir, "no-codex")}
	m.Store, m.MachineName = url, name
	return m
}

func usageBy(t *testing.T, m *Machine, by string, o UsageOptions) *usage.Report {
	t.Helper()
	o.By, o.Source = by, "all"
	rep, _, err := m.Usage(context.Background(), o)
	if err != nil {
		t.Fatalf("usage by %s: %v", by, err)
	}
	return rep
}

func keys(rep *usage.Report) map[string]int {
	k := map[string]int{}
	for _, u := range rep.Usage {
		k[u.Key] = u.Requests
	}
	return k
}

// sharedDatabase is the URL of a fresh PostgreSQL database, dropped when
// the test ends; the test is skipped where no server can run, unless
// MCPCOST_REQUIRE_PEERS=1.
func sharedDatabase(t *testing.T) string {
	t.Helper()
	server, err := testpeers.PostgresServer()
	if err != nil {
		if os.Getenv("MCPCOST_REQUIRE_PEERS") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	url, drop, err := testpeers.PostgresDatabase(server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drop() })
	return url
}

func TestOpenStoreShared(t *testing.T) {
	url := sharedDatabase(t)
	cache := t.TempDir()
	a := home(t, cache, url, "laptop-a", "s-a", "shared")
	b := home(t, cache, url, "laptop-b", "shared", "s-b")

	// Each report pushes its machine's rows first, then reads the shared
	// store: the union, the shared session once, under its first pusher.
	if got := keys(usageBy(t, a, "machine", UsageOptions{})); len(got) != 1 || got["laptop-a"] != 2 {
		t.Errorf("after a: by machine %v, want laptop-a's 2 requests", got)
	}
	rep := usageBy(t, b, "machine", UsageOptions{})
	if got := keys(rep); len(got) != 2 || got["laptop-a"] != 2 || got["laptop-b"] != 1 {
		t.Errorf("after b: by machine %v, want laptop-a 2, laptop-b 1", got)
	}
	if rep.Totals.Requests != 3 || rep.Totals.Sessions != 3 {
		t.Errorf("totals: %d requests in %d sessions, want 3 in 3", rep.Totals.Requests, rep.Totals.Sessions)
	}
	// Without an ingest, nothing is pushed: the shared store as it is.
	noIngest := UsageOptions{Store: StoreOptions{NoIngest: true}}
	if got := keys(usageBy(t, a, "session", noIngest)); len(got) != 3 {
		t.Errorf("by session from a: %v, want 3 sessions", got)
	}
	if got := keys(usageBy(t, a, "day", UsageOptions{Machine: "laptop-b", Store: StoreOptions{NoIngest: true}})); len(got) != 1 || got["2026-11-03"] != 1 {
		t.Errorf("laptop-b by day: %v, want its one request on 2026-11-03", got)
	}
	if got := usageBy(t, a, "day", UsageOptions{User: "no-such-user", Store: StoreOptions{NoIngest: true}}); got.Totals.Requests != 0 {
		t.Errorf("a user no machine has: %d requests", got.Totals.Requests)
	}
	// Sync (serve's background read) reads and pushes, as a report does.
	c := home(t, cache, url, "laptop-c", "s-c")
	if _, err := c.Sync(context.Background(), IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := keys(usageBy(t, a, "machine", noIngest)); len(got) != 3 || got["laptop-c"] != 1 {
		t.Errorf("after c's sync: by machine %v, want laptop-c's request too", got)
	}
	// The local store is the local one still, whatever Store names.
	local, _, err := a.openStore(context.Background(), StoreOptions{NoIngest: true, Local: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r, err := range local.Requests(context.Background(), store.Filter{Machine: "laptop-a"}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Machine != "laptop-a" {
			t.Errorf("a local row of machine %q, want laptop-a", r.Machine)
		}
		n++
	}
	local.Close()
	if n != 2 {
		t.Errorf("the local store of a holds %d requests of laptop-a, want 2", n)
	}
	// The replica is in the cache folder, named without the URL.
	files, _ := filepath.Glob(filepath.Join(cache, "mcpcost", "shared", "*"))
	if len(files) == 0 {
		t.Errorf("no replica in %s", filepath.Join(cache, "mcpcost", "shared"))
	}
	for _, f := range files {
		if strings.Contains(f, "127.0.0.1") || strings.Contains(f, "mcpcost_test") {
			t.Errorf("the replica's name %s shows the URL", f)
		}
	}
}

func TestOpenStoreUnreachable(t *testing.T) {
	const pw = "Canary-pw-5521"
	url := "postgres://u:" + pw + "@127.0.0.1:1/db?sslmode=disable&connect_timeout=5"
	cache := t.TempDir()
	m := home(t, cache, url, "laptop-a", "s-a")
	_, _, err := m.Usage(context.Background(), UsageOptions{By: "day", Source: "all"})
	if err == nil {
		t.Fatal("no error from a store that cannot be reached")
	}
	var h interface{ Hint() string }
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "local store kept everything") {
		t.Errorf("error %q: no hint that the local store kept everything", err)
	}
	if strings.Contains(err.Error(), pw) || (h != nil && strings.Contains(h.Hint(), pw)) {
		t.Errorf("the password is shown: %v", err)
	}
	if !strings.Contains(err.Error(), "postgres://u:***@127.0.0.1:1/db") {
		t.Errorf("error %q does not name the store without its password", err)
	}
	// The ingest went into the local store: nothing is lost.
	m.Store = ""
	rep, _, err := m.Usage(context.Background(), UsageOptions{By: "day", Source: "all", Store: StoreOptions{NoIngest: true}})
	if err != nil || rep.Totals.Requests != 1 {
		t.Fatalf("the local store after the failure: %v, %v; want its 1 request", rep, err)
	}
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), pw) {
				t.Errorf("%s holds the password", p)
			}
		}
		return nil
	})
}

// TestBlocksSharedLimits: Claude Code's usage-limit placeholders are
// pushed with the requests, so that the blocks report of a shared store
// marks the blocks the local store marks, with the same reset times,
// and a machine's blocks only with its own placeholders.
func TestBlocksSharedLimits(t *testing.T) {
	url := sharedDatabase(t)
	cache := t.TempDir()
	a := home(t, cache, url, "laptop-a", "s-a", "shared")
	b := home(t, cache, url, "laptop-b", "s-b")
	// A placeholder after each of a's requests; b has none.
	limit := `{"type":"assistant","sessionId":"%s","cwd":"/home/u/%s","timestamp":"2026-11-0%dT10:30:00.000Z","isApiErrorMessage":true,"message":{"id":"e-%s","model":"<synthetic>","content":[{"type":"text","text":"Claude AI usage limit reached|179%d000000"}],"usage":{"input_tokens":0,"output_tokens":0}}}` + "\n"
	for s, day := range map[string]int{"s-a": 1, "shared": 2} {
		p := filepath.Join(a.ClaudeDirs[0], "projects", "-home-u-"+s, s+".jsonl")
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, strings.ReplaceAll(limit, "%s", s), day, day)
		f.Close()
	}
	// b has a request in the hour of a's second placeholder too.
	p := filepath.Join(b.ClaudeDirs[0], "projects", "-home-u-s-b", "s-b.jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, strings.NewReplacer("%s", "s-b2", "%d", "2").Replace(sessionLine))
	f.Close()
	resets := func(m *Machine, o BlocksOptions) []string {
		t.Helper()
		rep, _, err := m.Blocks(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, bl := range rep.Blocks {
			if bl.IsGap {
				continue
			}
			r := "none"
			if bl.UsageLimitResetTime != nil {
				r = bl.UsageLimitResetTime.Format(time.RFC3339)
			}
			out = append(out, bl.StartTime.Format(time.RFC3339)+" "+r)
		}
		return out
	}
	a.Store = ""
	want := resets(a, BlocksOptions{})
	if !slices.Equal(want, []string{"2026-11-01T10:00:00Z 2026-10-03T04:00:00Z", "2026-11-02T10:00:00Z 2026-10-14T17:46:40Z"}) {
		t.Fatalf("the local store's blocks: %q, want each marked with its reset", want)
	}
	a.Store = url
	if got := resets(a, BlocksOptions{}); !slices.Equal(got, want) {
		t.Errorf("the shared store's blocks after a's push: %q, want the local store's %q", got, want)
	}
	if _, err := b.Sync(context.Background(), IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	noIngest := StoreOptions{NoIngest: true}
	if got := resets(b, BlocksOptions{Machine: "laptop-a", Store: noIngest}); !slices.Equal(got, want) {
		t.Errorf("laptop-a's blocks read by b: %q, want %q", got, want)
	}
	if got := resets(b, BlocksOptions{Machine: "laptop-b", Store: noIngest}); !slices.Equal(got, []string{"2026-11-02T10:00:00Z none", "2026-11-03T10:00:00Z none"}) {
		t.Errorf("laptop-b's blocks: %q, want its two blocks unmarked (a's placeholder is not b's)", got)
	}
}

// TestRedactedLongProject: with --redact-projects, a project folder over
// transcript.MaxName (which the store keeps shortened, and a push hashes
// as kept) is found by its whole path, as the user and as a remote
// caller (serve's project argument) give it, by usage and by findings.
func TestRedactedLongProject(t *testing.T) {
	url := sharedDatabase(t)
	long := "/home/u/" + strings.Repeat("long-folder/", 416) + "p" // 5,001 bytes
	if len(long) < 5000 {
		t.Fatalf("a %d-byte path", len(long))
	}
	m := home(t, t.TempDir(), url, "laptop-a")
	p := filepath.Join(m.ClaudeDirs[0], "projects", "-long", "s-long.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	line := strings.NewReplacer("%s", "s-long", "%d", "1").Replace(sessionLine)
	line = strings.Replace(line, `"cwd":"/home/u/s-long"`, `"cwd":`+strconv.Quote(long), 1)
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	m.RedactProjects = true
	m.Warn = func(string) {}
	for _, c := range []struct {
		name, project string
		remote        bool
	}{
		{"path", long, false},
		{"path with a trailing slash", long + "/", false},
		{"remote", long, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, _, err := m.Usage(context.Background(), UsageOptions{By: "session", Source: "all", Project: c.project, Remote: c.remote})
			if err != nil {
				t.Fatalf("usage --project (%d bytes) --redact-projects: %v", len(c.project), err)
			}
			if rep.Totals.Requests != 1 {
				t.Errorf("usage --project (%d bytes) --redact-projects: %d requests, want 1", len(c.project), rep.Totals.Requests)
			}
			if _, err := m.Findings(context.Background(), FindingsOptions{Project: c.project, Remote: c.remote, Store: StoreOptions{NoIngest: true}}); err != nil {
				t.Errorf("findings --project (%d bytes) --redact-projects: %v", len(c.project), err)
			}
		})
	}
}

// TestSharedErrorShortPassword: a password shorter than redact.MinSecret
// is not scrubbed by value from the driver's words, as nowhere else: the
// words stay whole, and the marker does not show where the password was.
func TestSharedErrorShortPassword(t *testing.T) {
	const driver = "failed to connect to `user=u database=db`: server error: FATAL: role \"u\" does not exist"
	for _, c := range []struct{ url, msg, want, not string }{
		{"postgres://u:ab@h/db", driver, "database=db", "dat***ase"},
		{"postgres://u:x@h/db", driver, "does not exist", "e***ist"},
		{"postgres://u:Canary-pw-5522@h/db", "auth failed for Canary-pw-5522", "auth failed for ***", "Canary"},
	} {
		got := sharedError(c.url, errors.New(c.msg), "").Error()
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("sharedError(%q, %q) = %q, want %q in it and no %q", c.url, c.msg, got, c.want, c.not)
		}
	}
}
