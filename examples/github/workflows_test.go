package github

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/cli"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"gopkg.in/yaml.v3"
)

type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]job    `yaml:"jobs"`
}

type job struct {
	Needs          string            `yaml:"needs"`
	If             string            `yaml:"if"`
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Permissions    map[string]string `yaml:"permissions"`
	Outputs        map[string]string `yaml:"outputs"`
	Steps          []step            `yaml:"steps"`
}

type step struct {
	Name       string            `yaml:"name"`
	ID         string            `yaml:"id"`
	If         string            `yaml:"if"`
	Uses       string            `yaml:"uses"`
	Run        string            `yaml:"run"`
	With       map[string]any    `yaml:"with"`
	Env        map[string]string `yaml:"env"`
	WorkingDir string            `yaml:"working-directory"`
	// ContinueOnError lets the job go on when the step fails.
	ContinueOnError bool `yaml:"continue-on-error"`
}

func load(t *testing.T, name string) *workflow {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &w
}

var (
	stepRef   = regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.`)
	pinnedUse = regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+@v[0-9]+$`)
)

// The structure of both workflows: triggers, one job that runs mcpcost (a
// second may post its comment), each step either an action (pinned to a
// major version) or a script, every steps.ID they refer to defined earlier,
// and no ${{ }} expression inside a script (values reach scripts through
// env, never by text substitution).
func TestStructure(t *testing.T) {
	for _, name := range []string{"mcp-config-gate.yml", "server-author-gate.yml"} {
		t.Run(name, func(t *testing.T) {
			w := load(t, name)
			if w.Name == "" || w.On["pull_request"] == nil && !hasKey(w.On, "pull_request") {
				t.Errorf("name %q, on %v: want a name and a pull_request trigger", w.Name, w.On)
			}
			if len(w.Permissions) != 1 || w.Permissions["contents"] != "read" {
				t.Errorf("permissions %v: want contents: read and nothing else", w.Permissions)
			}
			if w.Env["MAX_INCREASE"] == "" {
				t.Error("no MAX_INCREASE")
			}
			measuring := 0
			for name, j := range w.Jobs {
				if j.RunsOn == "" || len(j.Steps) == 0 {
					t.Fatalf("job %s: %+v", name, j)
				}
				if !runsMcpcost(j) {
					continue
				}
				measuring++
				if len(j.Steps) < 5 {
					t.Fatalf("job %s: %+v", name, j)
				}
				ids := map[string]bool{}
				mcpcost := 0
				for i, s := range j.Steps {
					if (s.Uses == "") == (s.Run == "") {
						t.Errorf("step %d (%s): want exactly one of uses and run", i, s.Name)
					}
					if s.Uses != "" && !pinnedUse.MatchString(s.Uses) {
						t.Errorf("step %d: %s is not pinned to a major version", i, s.Uses)
					}
					if s.Run != "" && s.Name == "" {
						t.Errorf("step %d has no name", i)
					}
					if strings.Contains(s.Run, "${{") {
						t.Errorf("step %q puts an expression in its script", s.Name)
					}
					for _, text := range append([]string{s.If}, values(s.Env)...) {
						for _, m := range stepRef.FindAllStringSubmatch(text, -1) {
							if !ids[m[1]] {
								t.Errorf("step %q refers to steps.%s, not defined before it", s.Name, m[1])
							}
						}
					}
					if s.ID != "" {
						if ids[s.ID] {
							t.Errorf("id %s twice", s.ID)
						}
						ids[s.ID] = true
					}
					cmds, err := commands(s.Run)
					if err != nil {
						t.Errorf("step %q: %v", s.Name, err)
					}
					mcpcost += len(cmds)
				}
				if mcpcost < 2 {
					t.Errorf("%d mcpcost commands", mcpcost)
				}
			}
			if measuring != 1 {
				t.Errorf("%d jobs run mcpcost, want 1", measuring)
			}
		})
	}
}

// A pull request's config or server is code its author chose, and the
// workflows run it: they are safe for pull requests from forks. They run
// on pull_request (never pull_request_target or workflow_run, which run
// with the base repository's secrets and a token that can write), use no
// secret, keep no credentials in their checkouts, and give a token that
// can write only to a job that checks out and runs nothing of the pull
// request (it posts the comment the measuring job wrote), and only for
// pull requests from the repository itself.
func TestForkSafe(t *testing.T) {
	for _, name := range []string{"mcp-config-gate.yml", "server-author-gate.yml"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			w := load(t, name)
			for trigger := range w.On {
				if trigger != "pull_request" && trigger != "push" {
					t.Errorf("triggered by %s: want pull_request (and push) only", trigger)
				}
			}
			for _, bad := range []string{"pull_request_target", "workflow_run", "secrets."} {
				if bytes.Contains(raw, []byte(bad)) && !commentOnly(raw, bad) {
					t.Errorf("uses %s outside its comments", bad)
				}
			}
			for name, j := range w.Jobs {
				writes := false
				for scope, level := range j.Permissions {
					if level != "read" && level != "none" {
						writes = true
						if scope != "pull-requests" {
							t.Errorf("job %s: %s: %s", name, scope, level)
						}
					}
				}
				for i, s := range j.Steps {
					if strings.HasPrefix(s.Uses, "actions/checkout@") {
						if writes {
							t.Errorf("job %s can write and checks out the pull request (step %d)", name, i)
						}
						if s.With["persist-credentials"] != false {
							t.Errorf("job %s step %q keeps the checkout's credentials", name, s.Name)
						}
					}
					if writes && (strings.Contains(s.Run, "mcpcost") || strings.Contains(s.Run, "npm") || s.WorkingDir != "") {
						t.Errorf("job %s can write and runs %q", name, s.Run)
					}
				}
				if writes {
					if !strings.Contains(j.If, "github.event.pull_request.head.repo.full_name == github.repository") {
						t.Errorf("job %s can write and runs for pull requests from forks too: if %q", name, j.If)
					}
					if j.Needs == "" || !runsMcpcost(w.Jobs[j.Needs]) {
						t.Errorf("job %s can write and does not wait for the measuring job", name)
					}
				} else if runsMcpcost(j) && j.Permissions != nil {
					t.Errorf("the measuring job %s sets its own permissions %v", name, j.Permissions)
				}
			}
		})
	}
}

// runsMcpcost reports whether a job runs mcpcost.
func runsMcpcost(j job) bool {
	for _, s := range j.Steps {
		if cmds, _ := commands(s.Run); len(cmds) > 0 || strings.Contains(s.Run, "go install") {
			return true
		}
	}
	return false
}

// commentOnly reports whether every occurrence of s in a YAML file is in
// a comment.
func commentOnly(raw []byte, s string) bool {
	for _, line := range strings.Split(string(raw), "\n") {
		if i := strings.Index(line, s); i >= 0 && !strings.HasPrefix(strings.TrimSpace(line[:i]), "#") {
			return false
		}
	}
	return true
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// command is one mcpcost command line of a script.
type command struct {
	line string
	// okCodes are the exit codes the script accepts ("|| true": any).
	orTrue, orOne bool
}

// commands returns the mcpcost command lines of a script, continuation
// lines joined.
func commands(script string) ([]command, error) {
	script = strings.ReplaceAll(script, "\\\n", " ")
	var out []command
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "mcpcost ") {
			continue
		}
		c := command{line: line}
		if i := strings.Index(line, "||"); i >= 0 {
			tail := strings.TrimSpace(line[i+2:])
			switch tail {
			case "true":
				c.orTrue = true
			case "test $? -eq 1":
				c.orOne = true
			default:
				return nil, &os.PathError{Op: "parse", Path: line, Err: os.ErrInvalid}
			}
			c.line = strings.TrimSpace(line[:i])
		}
		out = append(out, c)
	}
	return out, nil
}

// words splits a command as sh would for the forms the workflows use:
// quotes, $VAR and ${VAR} (split into words when unquoted), and one
// "> FILE" redirection.
func words(line string, vars map[string]string) (args []string, redirect string) {
	var cur strings.Builder
	inWord, quoted, toFile := false, false, false
	flush := func() {
		if !inWord {
			return
		}
		if toFile {
			redirect, toFile = cur.String(), false
		} else {
			args = append(args, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	expand := func(s string, i int) (string, int) {
		j := i + 1
		if j < len(s) && s[j] == '{' {
			k := strings.IndexByte(s[j:], '}')
			return vars[s[j+1:j+k]], j + k + 1
		}
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		return vars[s[i+1:j]], j
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case quoted && c == '"':
			quoted = false
			i++
		case quoted && c == '$':
			v, j := expand(line, i)
			cur.WriteString(v)
			i = j
		case quoted:
			cur.WriteByte(c)
			i++
		case c == '"':
			quoted, inWord = true, true
			i++
		case c == '\'':
			k := strings.IndexByte(line[i+1:], '\'')
			cur.WriteString(line[i+1 : i+1+k])
			inWord = true
			i += k + 2
		case c == ' ' || c == '\t':
			flush()
			i++
		case c == '>':
			flush()
			toFile = true
			i++
		case c == '$':
			v, j := expand(line, i)
			// Unquoted: split into words.
			for n, f := range strings.Fields(v) {
				if n > 0 {
					flush()
				}
				cur.WriteString(f)
				inWord = true
			}
			i = j
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	flush()
	return args, redirect
}

func TestWords(t *testing.T) {
	args, out := words(`mcpcost audit $CONFIGS --baseline "$RUNNER_TEMP/b.json" --x '$NOT' > "${RUNNER_TEMP}/c.md"`, map[string]string{"CONFIGS": "--config .mcp.json", "RUNNER_TEMP": "/r"})
	if got := strings.Join(args, "|"); got != "mcpcost|audit|--config|.mcp.json|--baseline|/r/b.json|--x|$NOT" || out != "/r/c.md" {
		t.Errorf("args %s, redirect %s", got, out)
	}
}

// run runs the workflow's mcpcost commands in order, as the runner would:
// each in its step's working directory under root, with the workflow's
// env and RUNNER_TEMP, stdout to the redirection's file. It returns the
// exit code of each step that has an id.
func run(t *testing.T, w *workflow, root string, event string) map[string]int {
	t.Helper()
	temp := filepath.Join(root, "runner-temp")
	os.MkdirAll(temp, 0o755)
	vars := map[string]string{"RUNNER_TEMP": temp, "GITHUB_REPOSITORY": "owner/repo", "GITHUB_RUN_ID": "1"}
	for k, v := range w.Env {
		vars[k] = v
	}
	codes := map[string]int{}
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.If, "github.event_name == 'push'") && event != "push" ||
				strings.Contains(s.If, "github.event_name == 'pull_request'") && event != "pull_request" {
				continue
			}
			cmds, err := commands(s.Run)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cmds {
				args, redirect := words(c.line, vars)
				dir := root
				if s.WorkingDir != "" {
					dir = filepath.Join(root, s.WorkingDir)
				}
				var stdout, stderr bytes.Buffer
				env := &cli.Env{
					Stdin:  strings.NewReader(""),
					Stdout: &stdout,
					Stderr: &stderr,
					Getenv: func(k string) string {
						switch k {
						case "HOME":
							return filepath.Join(root, "home")
						case "MCPCOST_CACHE_DIR":
							return filepath.Join(root, "cache")
						case "NO_COLOR":
							return "1"
						}
						return os.Getenv(k)
					},
					Environ: os.Environ,
					Now:     time.Now,
				}
				t.Chdir(dir)
				code := cli.Run(env, args[1:])
				if redirect != "" {
					if err := os.WriteFile(redirect, stdout.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				t.Logf("%s: %s -> exit %d\n%s", s.Name, strings.Join(args, " "), code, stderr.String())
				switch {
				case code == 2 && !s.ContinueOnError:
					t.Errorf("step %q: %s: exit 2 (usage or runtime error):\n%s", s.Name, c.line, stderr.String())
				case code != 0 && !c.orTrue && !(c.orOne && code == 1) && s.ID == "" && !s.ContinueOnError:
					t.Errorf("step %q: %s: exit %d would fail the job:\n%s", s.Name, c.line, code, stderr.String())
				}
				if s.ID != "" {
					if _, seen := codes[s.ID]; !seen {
						codes[s.ID] = code
					}
				}
			}
		}
	}
	return codes
}

// The config gate, run for real: the base branch has the memory server,
// the pull request adds the filesystem server (+2,823 tokens, over the
// 2,000 allowed): the gate fails and the comment says so first.
func TestConfigGateRuns(t *testing.T) {
	testpeers.Node(t)
	memory := testpeers.NPMBin(t, "mcp-server-memory")
	fs := testpeers.NPMBin(t, "mcp-server-filesystem")
	root := t.TempDir()
	for dir, cfg := range map[string]string{
		"base": `{"mcpServers":{"memory":{"command":"` + memory + `"}}}`,
		"pr":   `{"mcpServers":{"memory":{"command":"` + memory + `"},"fs":{"command":"` + fs + `","args":["` + root + `"]}}}`,
	} {
		os.MkdirAll(filepath.Join(root, dir), 0o755)
		os.WriteFile(filepath.Join(root, dir, ".mcp.json"), []byte(cfg), 0o644)
	}
	w := load(t, "mcp-config-gate.yml")
	codes := run(t, w, root, "pull_request")
	if codes["gate"] != 1 {
		t.Errorf("gate exit %d, want 1", codes["gate"])
	}
	comment, _ := os.ReadFile(filepath.Join(root, "runner-temp", "comment.md"))
	if !bytes.HasPrefix(comment, []byte("❌ **mcpcost** gate failed: +2,823 tokens per request (2,378 → 5,201), over the 2,000 allowed\n")) {
		t.Errorf("comment:\n%s", comment)
	}
	if !bytes.Contains(comment, []byte("<summary>The audit of this run</summary>")) {
		t.Error("the comment does not carry the audit")
	}
}

// The pull request that adds the first config: the base branch has none,
// so there is no baseline; the gate fails and says why, in the comment.
func TestConfigGateFirstConfig(t *testing.T) {
	testpeers.Node(t)
	memory := testpeers.NPMBin(t, "mcp-server-memory")
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "base"), 0o755)
	os.MkdirAll(filepath.Join(root, "pr"), 0o755)
	os.WriteFile(filepath.Join(root, "pr", ".mcp.json"), []byte(`{"mcpServers":{"memory":{"command":"`+memory+`"}}}`), 0o644)
	codes := run(t, load(t, "mcp-config-gate.yml"), root, "pull_request")
	if codes["gate"] != 1 {
		t.Errorf("gate exit %d, want 1", codes["gate"])
	}
	comment, _ := os.ReadFile(filepath.Join(root, "runner-temp", "comment.md"))
	if !bytes.HasPrefix(comment, []byte("❌ **mcpcost** gate failed: the increase could not be established (1 reason)\n\n- <code>not-a-report</code> ")) {
		t.Errorf("comment:\n%s", comment)
	}
}

// The server-author gate, run for real on the memory server's package
// (node dist/index.js) for both branches: no change, the gate passes, and
// on a push the badge is made.
func TestServerAuthorGateRuns(t *testing.T) {
	testpeers.Node(t)
	pkg := testpeers.NPMPackage(t, "@modelcontextprotocol/server-memory")
	root := t.TempDir()
	for _, d := range []string{"base", "pr"} {
		if err := os.Symlink(pkg, filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	w := load(t, "server-author-gate.yml")
	codes := run(t, w, root, "pull_request")
	if codes["gate"] != 0 {
		t.Errorf("gate exit %d, want 0", codes["gate"])
	}
	comment, _ := os.ReadFile(filepath.Join(root, "runner-temp", "comment.md"))
	if !bytes.HasPrefix(comment, []byte("✅ **mcpcost** gate passed: no change (2,378 tokens per request), within the 500 allowed\n")) {
		t.Errorf("comment:\n%s", comment)
	}
	codes = run(t, w, root, "push")
	if codes["measure"] != 0 {
		t.Errorf("measure exit %d", codes["measure"])
	}
	svg, err := os.ReadFile(filepath.Join(root, "runner-temp", "badge.svg"))
	if err != nil || !bytes.Contains(svg, []byte(">2,378 tokens</text>")) || !bytes.Contains(svg, []byte(`href="https://github.com/owner/repo/actions/runs/1"`)) {
		t.Errorf("badge: %v\n%s", err, svg)
	}
}

// The weekly sweep: a schedule, one shard a week by the week number, the
// sandbox, a verify of what it publishes, and no ${{ }} in its scripts.
func TestWeeklySweep(t *testing.T) {
	w := load(t, "weekly-sweep.yml")
	if !hasKey(w.On, "schedule") || w.Permissions["contents"] != "write" || w.Env["SHARDS"] == "" {
		t.Fatalf("on %v, permissions %v, env %v", w.On, w.Permissions, w.Env)
	}
	var script strings.Builder
	for _, j := range w.Jobs {
		for i, s := range j.Steps {
			if s.Uses != "" && !pinnedUse.MatchString(s.Uses) {
				t.Errorf("step %d: %s is not pinned to a major version", i, s.Uses)
			}
			if strings.Contains(s.Run, "${{") {
				t.Errorf("step %d: an expression inside a script", i)
			}
			script.WriteString(s.Run)
		}
	}
	for _, want := range []string{"mcpcost sweep servers.yaml --out site --shards \"$SHARDS\" --shard-index \"$shard\"", "--isolate sandbox", "mcpcost verify", "/ 604800"} {
		if !strings.Contains(script.String(), want) {
			t.Errorf("the workflow lacks %q", want)
		}
	}
}
