package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpcost/mcpcost/internal/badge"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/render"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/sweep"
	"github.com/mcpcost/mcpcost/internal/textsafe"
	"github.com/mcpcost/mcpcost/internal/tmpdir"
)

// Isolation modes of a sweep.
const (
	IsolateNone    = "none"
	IsolateSandbox = "sandbox"
	IsolateDocker  = "docker"
)

// Docker images a sweep runs servers in, as mcp-context-cost chooses them.
const (
	DockerNodeImage = "public.ecr.aws/docker/library/node:22-slim"
	DockerUVImage   = "ghcr.io/astral-sh/uv:python3.12-bookworm-slim"
)

// MaxMeasurementFile caps a measurement.json read back from a sweep's
// folder.
const MaxMeasurementFile = 256 << 20

// SweepOptions configure [Machine.Sweep].
type SweepOptions struct {
	// Servers are all the file's entries; Swept names those measured now
	// (nil: all of them). The pages list every entry.
	Servers []sweep.Server
	Swept   map[string]bool
	Out     string
	// Timeout is the budget of a server without timeoutSeconds.
	Timeout     time.Duration
	Concurrency int
	// Date is history's UTC day (YYYY-MM-DD); "" for today.
	Date      string
	Isolate   string
	NoNetwork bool
	// Progress receives a line per server measured; nil drops them.
	Progress io.Writer
}

// SweepResult is what a sweep did.
type SweepResult struct {
	// Measured are the swept servers with their new status, in the file's
	// order.
	Measured []SweptServer
	Guard    sweep.Verdict
	// Written lists the files written, relative to Out, sorted.
	Written []string
	// Warnings name each measurement.json found in Out that was not
	// trusted, and why, in the file's order, then the temporary files a
	// stopped sweep left that this one removed.
	Warnings []string
}

// SweptServer is one server measured by a sweep.
type SweptServer struct {
	Name    string
	Status  string
	Tokens  *int
	Tools   *int
	Notes   string
	Retried bool
}

// Sweep measures the swept servers as measure does (two launches, the
// failure classes, a timeout retried once at twice the budget), each with
// a fresh HOME and working folder and only PATH, HOME and its named
// variables in its environment, then writes DIR's results, badges,
// leaderboard, history and pages. A harness fault (see [sweep.Guard])
// writes nothing at all. Sweeps into one folder at once each measure
// their own servers, then write the folder one at a time, each keeping
// what the others wrote (see publish).
func (m *Machine) Sweep(ctx context.Context, o SweepOptions) (*SweepResult, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	for _, p := range []string{sweepHomePrefix, sweepWorkPrefix, sweepRootPrefix} {
		tmpdir.CleanStale(p)
	}
	if o.Date == "" {
		o.Date = m.now().UTC().Format(time.DateOnly)
	}
	if o.Isolate == "" {
		o.Isolate = IsolateNone
	}
	if err := checkIsolation(o.Isolate); err != nil {
		return nil, err
	}
	in, err := openOutFolder(o.Out, false)
	if err != nil {
		return nil, err
	}
	// The results before (the harness guard's) and the history are read
	// before any launch: a history that cannot be read stops the sweep
	// before it has run for an hour. publish reads both again.
	prior, untrusted, err := readResults(in, o.Servers)
	if err == nil {
		_, err = readHistory(in)
	}
	in.Close()
	if err != nil {
		return nil, err
	}
	var warnings []string
	for _, s := range o.Servers {
		if why, ok := untrusted[s.Name]; ok {
			warnings = append(warnings, fmt.Sprintf("%s %s", in.show(resultFile(s.Name)), why))
		}
	}
	var todo []sweep.Server
	for _, s := range o.Servers {
		if (o.Swept == nil || o.Swept[s.Name]) && s.Measurable() && !(s.Remote && s.URL == "") {
			todo = append(todo, s)
		}
	}
	files := make([]*measure.File, len(todo))
	retried := make([]bool, len(todo))
	sem := make(chan struct{}, o.Concurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for i, s := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f, again, err := m.sweepOne(ctx, s, o)
			if err != nil {
				f = measure.FailedFile(status.StartupFailure, s.Name, s.CommandLine, nil, err.Error(), "mcpcost "+m.version(), m.now(), o.Timeout)
			}
			files[i], retried[i] = f, again
			if o.Progress != nil {
				mu.Lock()
				done++
				what := f.Status
				if f.TotalTokens != nil {
					what = f.Status + ", " + num.Count(*f.TotalTokens, "token")
				}
				fmt.Fprintf(o.Progress, "mcpcost: [%d/%d] %s: %s\n", done, len(todo), s.Name, textsafe.Text(what))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("the sweep was interrupted: nothing written")
	}
	res := &SweepResult{Warnings: warnings}
	before, after := map[string]string{}, map[string]string{}
	for name, f := range prior {
		before[name] = f.Status
	}
	for i, s := range todo {
		f := files[i]
		after[s.Name] = f.Status
		res.Measured = append(res.Measured, SweptServer{Name: s.Name, Status: f.Status, Tokens: f.TotalTokens, Tools: f.ToolCount, Notes: f.Notes, Retried: retried[i]})
	}
	res.Guard = sweep.Guard(before, after)
	if res.Guard.Fault {
		return res, nil
	}
	return res, m.publish(ctx, o, todo, files, res)
}

// publish writes everything a sweep makes. It holds the folder's lock
// from reading the folder again to the last rename: another sweep into
// the same folder may have written it since this one read it, and what
// it wrote (its history rows, its results) is kept, not overwritten by
// what this one read before; a third one waits meanwhile. The files are
// published all or none (see outFolder.publish).
func (m *Machine) publish(ctx context.Context, o SweepOptions, todo []sweep.Server, files []*measure.File, res *SweepResult) error {
	dir, err := openOutFolder(o.Out, true)
	if err != nil {
		return err
	}
	defer dir.Close()
	unlock, err := dir.lock(ctx, sweepLockWait)
	if err != nil {
		return err
	}
	defer unlock()
	prior, untrusted, err := readResults(dir, o.Servers)
	var history []sweep.HistoryRow
	if err == nil {
		history, err = readHistory(dir)
	}
	if err != nil {
		return err
	}
	out := map[string][]byte{}
	current := map[string]*measure.File{}
	for k, v := range prior {
		current[k] = v
	}
	var rows []sweep.HistoryRow
	for i, s := range todo {
		f := files[i]
		b, err := f.Marshal()
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		out[resultFile(s.Name)] = b
		// Read back as any reader will.
		var g measure.File
		if err := json.Unmarshal(b, &g); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		current[s.Name] = &g
		if status.Status(f.Status).OK() && f.TotalTokens != nil && f.ToolCount != nil {
			iso := ""
			if f.Isolation != nil {
				iso = f.Isolation.Mode
			}
			rows = append(rows, sweep.HistoryRow{Date: o.Date, Server: s.Name, Tokens: *f.TotalTokens, ToolCount: *f.ToolCount, Status: f.Status, Isolation: iso})
		}
	}
	history = sweep.Upsert(history, rows)
	out["history.csv"] = sweep.HistoryCSV(history)
	entries := sweep.Entries(o.Servers, current, history)
	for i, e := range entries {
		if why, ok := untrusted[e.Server.Name]; ok && e.File == nil {
			entries[i].Note = filepath.ToSlash(resultFile(e.Server.Name)) + " " + why
		}
	}
	for _, e := range entries {
		var tokens *int
		if e.Measured() {
			t := e.Tokens()
			tokens = &t
		}
		be := badge.New("", tokens, false)
		out[filepath.Join("badges", e.Server.Name+".json")] = be.JSON()
		out[filepath.Join("badges", e.Server.Name+".svg")] = be.SVG("../results/"+e.Server.Name+"/measurement.json", "")
		out[filepath.Join("servers", e.Server.Name+".html")] = render.SweepServerHTML(e, o.Date)
		out[filepath.Join("servers", e.Server.Name+".md")] = render.SweepServerMarkdown(e, o.Date)
	}
	out["leaderboard.md"] = render.LeaderboardMarkdown(entries, o.Date)
	out["leaderboard.csv"] = render.LeaderboardCSV(entries)
	out["index.html"] = render.SweepIndexHTML(entries, o.Date)
	names := make([]string, 0, len(out))
	for k := range out {
		names = append(names, k)
	}
	sort.Strings(names)
	if stale := dir.removeStale(names, m.now()); len(stale) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("removed %s that a stopped sweep left in %s: %s",
			num.Count(len(stale), "temporary file"), o.Out, textsafe.CutList(stale)))
	}
	if err := dir.publish(names, out); err != nil {
		return err
	}
	res.Written = names
	return nil
}

func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes: not read", path, max)
	}
	return b, nil
}

// MaxHistoryFile caps the history.csv read from a sweep's folder.
const MaxHistoryFile = 64 << 20

// readHistory reads the folder's history.csv, none when there is none.
func readHistory(dir *outFolder) ([]sweep.HistoryRow, error) {
	b, err := dir.read("history.csv", MaxHistoryFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h, err := sweep.ReadHistory(b, dir.show("history.csv"))
	if err != nil {
		return nil, WithHint(err, "fix or remove that row: a history holds date,server,tokens,toolCount,status,isolation rows of measured or dynamic servers, as a sweep writes them")
	}
	return h, nil
}

// resultFile is where a server's measurement.json is in a sweep's folder.
func resultFile(name string) string { return filepath.Join("results", name, "measurement.json") }

// readResults reads results/<name>/measurement.json of every server that
// has one (this tool's or mcp-context-cost's). A file is trusted when it
// passes verify's check, or records a failure with nothing to re-derive:
// untrusted says why each other one is not, and it is left out.
func readResults(dir *outFolder, servers []sweep.Server) (files map[string]*measure.File, untrusted map[string]string, err error) {
	files, untrusted = map[string]*measure.File{}, map[string]string{}
	for _, s := range servers {
		rel := resultFile(s.Name)
		b, err := dir.read(rel, MaxMeasurementFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		f, why := trusted(rel, b)
		if why != "" {
			untrusted[s.Name] = "does not pass verify (" + why + "): not trusted, taken as never measured"
			continue
		}
		files[s.Name] = f
	}
	return files, untrusted, nil
}

// trusted is the measurement.json b, or why it is not trusted: what
// 'mcpcost verify' finds wrong with it.
func trusted(name string, b []byte) (*measure.File, string) {
	v, err := measure.Verify(name, b, nil)
	if err != nil {
		return nil, strings.TrimPrefix(err.Error(), name+": ")
	}
	if !v.OK && !v.Skipped {
		why := textsafe.Cut(v.Problems[0], textsafe.MaxProse)
		if n := len(v.Problems) - 1; n > 0 {
			why += fmt.Sprintf(", and %s", num.Count(n, "more problem"))
		}
		return nil, why
	}
	var f measure.File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, "not a measurement.json: " + err.Error()
	}
	if f.Status == "" {
		return nil, "not a measurement.json: no status"
	}
	return &f, ""
}

func checkIsolation(mode string) error {
	switch mode {
	case IsolateNone:
		return nil
	case IsolateSandbox:
		p, err := exec.LookPath("unshare")
		if err != nil {
			return WithHint(errors.New("--isolate sandbox needs unshare (util-linux), which is not on PATH"), "install util-linux, or use --isolate none or docker")
		}
		if out, err := exec.Command(p, sandboxProbe...).CombinedOutput(); err != nil {
			return WithHint(fmt.Errorf("--isolate sandbox: unshare cannot make a user namespace here: %s", textsafe.Text(strings.TrimSpace(string(out)))), "unprivileged user namespaces may be off (sysctl kernel.unprivileged_userns_clone); use --isolate none or docker")
		}
		return nil
	case IsolateDocker:
		if _, err := exec.LookPath("docker"); err != nil {
			return WithHint(errors.New("--isolate docker needs the docker command, which is not on PATH"), "install Docker, or use --isolate sandbox or none")
		}
		return nil
	}
	return valueErrorf("--isolate", mode, []string{IsolateNone, IsolateSandbox, IsolateDocker}, "--isolate must be none, sandbox or docker, not %q", mode)
}

var sandboxProbe = []string{"--user", "--map-root-user", "--mount", "true"}

// sandboxSystem are the folders of the machine a sandboxed server sees,
// read-only, where they exist. /run/systemd/resolve is where
// systemd-resolved's /etc/resolv.conf links to, for package fetches.
var sandboxSystem = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/run/systemd/resolve"}

// sandboxScript builds the sandbox's root and runs the server in it. Its
// arguments: the root, the working folder, then pairs "ro PATH" or "rw
// PATH" up to "--", then the server's command and arguments. A symbolic
// link is copied as a link; anything else is bound at its own path. The
// shell expands nothing of the server's.
const sandboxScript = `set -e
R=$1; W=$2; shift 2
mount -t tmpfs -o mode=755,size=64m mcpcost-sandbox "$R"
while [ "$1" != -- ]; do
  kind=$1; src=$2; shift 2
  [ -e "$src" ] || [ -L "$src" ] || continue
  mkdir -p "$R$(dirname "$src")"
  if [ -e "$R$src" ] || [ -L "$R$src" ]; then continue; fi
  if [ -L "$src" ]; then ln -s "$(readlink "$src")" "$R$src"; continue; fi
  if [ -d "$src" ]; then mkdir -p "$R$src"; else : > "$R$src"; fi
  mount --rbind "$src" "$R$src"
  if [ "$kind" = ro ]; then mount -o remount,bind,ro "$R$src"; fi
done
shift
mkdir -p "$R/dev" "$R/proc" "$R/tmp"
chmod 1777 "$R/tmp"
mount --rbind /dev "$R/dev"
mount -t proc proc "$R/proc"
exec chroot "$R" /bin/sh -c 'cd "$1" && shift && exec "$@"' mcpcost-sandbox "$W" "$@"`

// sandboxBinds are the "ro PATH" and "rw PATH" pairs of sandboxScript for
// s: the system folders, the fresh home and working folder, and what s is
// launched from.
func sandboxBinds(s sweep.Server, home, work string) []string {
	var out []string
	for _, d := range sandboxSystem {
		out = append(out, "ro", d)
	}
	out = append(out, "rw", home, "rw", work)
	var paths []string
	if p, err := exec.LookPath(s.Command); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			paths = append(paths, abs)
		}
	}
	for _, a := range s.Args {
		if filepath.IsAbs(a) {
			paths = append(paths, filepath.Clean(a))
		}
	}
	seen := map[string]bool{}
	homes := homeFolders()
	add := func(p string) {
		if p == "" || p == "/" || seen[p] || underSystem(p) || !bindable(p, homes) {
			return
		}
		seen[p] = true
		out = append(out, "ro", p)
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		// A link (npm's .bin) is copied as a link: what it points to is
		// bound first, with the node_modules folder it is in.
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			add(nodeModulesOf(real))
		}
		add(nodeModulesOf(p))
	}
	return out
}

// homeFolders are the home folders the sandbox keeps out of reach: $HOME,
// the account's home in passwd (which differ when HOME is set), and every
// other account's in /etc/passwd; each as given and with its links
// resolved.
func homeFolders() []string {
	var homes []string
	add := func(h string) {
		if h == "" || !filepath.IsAbs(h) {
			return
		}
		h = filepath.Clean(h)
		if h == "/" || underSystem(h) {
			return
		}
		homes = append(homes, h)
		if real, err := filepath.EvalSymlinks(h); err == nil && real != h {
			homes = append(homes, real)
		}
	}
	add(os.Getenv("HOME"))
	if u, err := user.Current(); err == nil {
		add(u.HomeDir)
	}
	if b, err := readCapped("/etc/passwd", 4<<20); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Split(line, ":"); len(f) >= 7 {
				add(f[5])
			}
		}
	}
	return homes
}

// bindable reports whether p, a file a server is launched from, may be
// bound into the sandbox: never a home folder or a folder above one; in a
// home, a regular file or a node_modules folder, outside the hidden
// folders and files (.ssh, .config, .bashrc ...) where credentials live.
func bindable(p string, homes []string) bool {
	sep := string(filepath.Separator)
	paths := []string{p}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		paths = append(paths, real)
	}
	for _, q := range paths {
		for _, h := range homes {
			switch {
			case q == h || strings.HasPrefix(h, q+sep):
				return false
			case strings.HasPrefix(q, h+sep):
				rel := strings.TrimPrefix(q, h+sep)
				for _, part := range strings.Split(rel, sep) {
					if strings.HasPrefix(part, ".") {
						return false
					}
				}
				fi, err := os.Stat(q)
				if err != nil || !(fi.Mode().IsRegular() || fi.IsDir() && filepath.Base(q) == "node_modules") {
					return false
				}
			}
		}
	}
	return true
}

// nodeModulesOf returns the outermost node_modules folder p is in, else p.
func nodeModulesOf(p string) string {
	parts := strings.Split(p, string(filepath.Separator))
	for i, part := range parts {
		if part == "node_modules" {
			return strings.Join(parts[:i+1], string(filepath.Separator))
		}
	}
	return p
}

func underSystem(p string) bool {
	for _, d := range sandboxSystem {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// SweepTarget is the launch of s: the target, the isolation record, and
// the fresh HOME and working folder (removed by the caller).
//
// The sandbox (Linux namespaces through unshare) runs the server under a
// root of its own, a tmpfs mounted on root (an empty folder the caller
// makes and removes): the system folders (sandboxSystem) bound
// read-only, the fresh HOME and working folder bound read-write, /dev, a
// fresh /proc, an empty /tmp, and the files the server is launched from
// (its command and the absolute paths among its arguments, with the
// node_modules folder they are in) bound read-only. Nothing else of the
// machine is in it: no home folder ($HOME, the account's home in passwd,
// any other account's) nor a folder above one, even when an argument
// names it; of a home, only the regular files and node_modules folders
// the server is launched from, outside its hidden files and folders.
func SweepTarget(s sweep.Server, mode string, noNetwork bool, home, work, root string) (mcpclient.Target, *measure.Isolation, error) {
	// The dummy values and the fresh HOME are made up here: no secrets.
	t := mcpclient.Target{Name: s.Name, Placeholders: []string{sweep.DummyValue, home}}
	vars := map[string]string{}
	for _, n := range s.Env {
		vars[n] = sweep.DummyValue
	}
	for k, v := range s.EnvValues {
		vars[k] = v
	}
	if s.URL != "" {
		t.URL, t.Transport = s.URL, s.Transport
		for _, h := range s.Headers {
			if t.Headers == nil {
				t.Headers = map[string]string{}
			}
			v := sweep.DummyValue
			if ev, ok := s.EnvValues[h]; ok {
				v = ev
			}
			t.Headers[h] = v
		}
		return t, &measure.Isolation{Docker: false, Mode: sweep.IsolationHost, Note: "remote server, connected to directly"}, nil
	}
	t.Env = map[string]string{"HOME": home}
	for k, v := range vars {
		t.Env[k] = v
	}
	t.Cwd = work
	t.Transport = "stdio"
	switch mode {
	case IsolateSandbox:
		if root == "" {
			return t, nil, errors.New("the sandbox needs an empty folder for its root")
		}
		args := append([]string(nil), sandboxProbe[:3]...)
		args = append(args, "--pid", "--fork", "--kill-child", "--ipc", "--uts")
		note := "user, mount, pid, ipc and uts namespaces; a private root: the system folders read-only, the fresh HOME and working folder, the server's own files read-only; the user's home and every other folder out of reach"
		network := "host"
		if noNetwork {
			args = append(args, "--net")
			network = "none"
			note += "; no network"
		}
		args = append(args, "--", "sh", "-c", sandboxScript, "mcpcost-sandbox", root, work)
		args = append(args, sandboxBinds(s, home, work)...)
		args = append(args, "--", s.Command)
		t.Command, t.Args = "unshare", append(args, s.Args...)
		return t, &measure.Isolation{Docker: false, Mode: sweep.IsolationSandbox, Network: network, Note: note}, nil
	case IsolateDocker:
		image := DockerImage(s)
		if isDockerRun(s) {
			t.Command, t.Args = s.Command, s.Args
			return t, &measure.Isolation{Docker: true, Mode: sweep.IsolationDocker, Note: "command is itself a docker run (host-spawned container)"}, nil
		}
		t.Command, t.Args = "docker", DockerArgs(s, image, noNetwork)
		network := "bridge"
		if noNetwork {
			network = "none"
		}
		return t, &measure.Isolation{Docker: true, Mode: sweep.IsolationDocker, Image: image, Network: network, Note: "network enabled for package fetch; clean FS, no host credentials"}, nil
	}
	t.Command, t.Args = s.Command, s.Args
	return t, &measure.Isolation{Docker: false, Mode: sweep.IsolationHost, Note: "fresh HOME and working folder; only PATH, HOME and the named variables"}, nil
}

func isDockerRun(s sweep.Server) bool {
	return filepath.Base(s.Command) == "docker" && len(s.Args) > 0 && s.Args[0] == "run"
}

// DockerImage is the image s runs in: uv's for uvx, node's otherwise.
func DockerImage(s sweep.Server) string {
	if filepath.Base(s.Command) == "uvx" || filepath.Base(s.Command) == "uv" {
		return DockerUVImage
	}
	return DockerNodeImage
}

// DockerArgs is the docker argv of s (after "docker"), mcp-context-cost's:
// the variables pass by name (-e NAME), their values from docker's own
// environment.
func DockerArgs(s sweep.Server, image string, noNetwork bool) []string {
	args := []string{"run", "--rm", "-i", "--pull=missing", "--memory=1g", "--pids-limit=512", "--security-opt", "no-new-privileges", "-e", "HOME=/tmp", "-w", "/tmp"}
	if noNetwork {
		args = append(args, "--network=none")
	}
	names := make([]string, 0, len(s.Env)+len(s.EnvValues))
	seen := map[string]bool{}
	for _, n := range s.Env {
		if !seen[n] {
			names, seen[n] = append(names, n), true
		}
	}
	for n := range s.EnvValues {
		if !seen[n] {
			names, seen[n] = append(names, n), true
		}
	}
	sort.Strings(names)
	for _, n := range names {
		args = append(args, "-e", n)
	}
	line := make([]string, 0, 1+len(s.Args))
	for _, a := range append([]string{s.Command}, s.Args...) {
		line = append(line, shellQuote(a))
	}
	return append(args, image, "sh", "-lc", strings.Join(line, " "))
}

var shellSafe = lazyRegexp(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if shellSafe().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// The temporary folders of a sweep: each server's fresh HOME, working
// folder and sandbox root, named after the sweep's process (see
// package tmpdir), so that the next sweep removes those a killed one left.
const (
	sweepHomePrefix = "mcpcost-sweep-home-"
	sweepWorkPrefix = "mcpcost-sweep-work-"
	sweepRootPrefix = "mcpcost-sweep-root-"
)

// sweepOne measures one server; again reports a retry at twice the budget.
func (m *Machine) sweepOne(ctx context.Context, s sweep.Server, o SweepOptions) (f *measure.File, again bool, err error) {
	budget := o.Timeout
	if s.TimeoutSeconds > 0 {
		budget = time.Duration(s.TimeoutSeconds) * time.Second
	}
	home, err := tmpdir.Make(sweepHomePrefix)
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(home)
	work, err := tmpdir.Make(sweepWorkPrefix)
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(work)
	root, err := tmpdir.Make(sweepRootPrefix)
	if err != nil {
		return nil, false, err
	}
	defer os.Remove(root)
	t, iso, err := SweepTarget(s, o.Isolate, o.NoNetwork, home, work, root)
	if err != nil {
		return nil, false, err
	}
	res := mcpclient.Measure(ctx, t, mcpclient.Options{Timeout: budget, ClientVersion: m.version()})
	prefix := ""
	if res.Status == status.Timeout && ctx.Err() == nil {
		again = true
		budget *= 2
		res = mcpclient.Measure(ctx, t, mcpclient.Options{Timeout: budget, ClientVersion: m.version()})
		if res.Status == status.Timeout {
			prefix = "reproduced on double the timeout budget; "
		}
	}
	live := measure.FromLive(res, nil)
	display := s.CommandLine
	if s.URL != "" {
		display = t.Display()
	}
	envNames := envNamesOf(s)
	if live.Result == nil {
		f = measure.FailedFile(live.Status, s.Name, display, envNames, prefix+live.Detail, "mcpcost "+m.version(), m.now(), budget)
	} else {
		name := live.ServerName
		if name == "" {
			name = s.Name
		}
		f = measure.NewFile(live.Result, live.Status, name, "mcpcost "+m.version(), m.now())
		f.ServerVersion = live.ServerVersion
		f.LaunchCommand = display
		f.EnvVarNames = envNames
		f.ServerInstructions = measure.InstructionsJSON(live.Instructions)
		f.TimeoutMs = int(budget.Milliseconds())
		f.Extras = live.Extras
		f.ChangedTools = live.ChangedTools
		f.Warnings = live.Warnings
		if live.Status.Dynamic() {
			f.Notes = live.Detail
		}
		src := &measure.Source{Kind: measure.KindLive, Transport: live.Transport, ProtocolVersion: live.ProtocolVersion, Pages: live.Pages}
		if s.URL != "" {
			src.URL, src.HeaderNames = display, append([]string(nil), s.Headers...)
			sort.Strings(src.HeaderNames)
		} else {
			src.Command, src.EnvVarNames = display, envNames
		}
		f.Source = src
	}
	f.Isolation = iso
	f.Package = s.Package
	if pkg := packageOf(s); pkg != "" {
		f.Package = pkg
		f.PackageVersion = ResolveVersion(s, pkg, home)
	}
	return f, again, nil
}

// envNamesOf is envVarNames: the env names, then the envValues names not
// among them, sorted.
func envNamesOf(s sweep.Server) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range s.Env {
		if !seen[n] {
			out, seen[n] = append(out, n), true
		}
	}
	var extra []string
	for n := range s.EnvValues {
		if !seen[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}
