package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The README's first command is run as a new user runs it: from the
// repository's root, with nothing of this machine's configs or cache, and
// what it prints must be what the README shows under it, to the byte:
// header, table, prose and footer, line by line and word by word (the
// README writes the checkout's folder as /home/you/mcpcost, whose length
// moves the columns of a table, so the gaps between columns are compared
// as one space; indentation is kept).
func TestReadmeFirstCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches the example servers")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmdLine, sample := readmeMainJob(t, string(readme))

	// mcpcost's own cache, config and data folders are fresh. HOME stays:
	// the example servers run `go run`, and a stdio server inherits only
	// PATH and HOME, so a fresh HOME would give their go a cold build cache
	// (minutes) where a user's machine has the one that just built mcpcost.
	// The servers are built once first, so that their `go run` inside the
	// measurement's budget only links, on a loaded machine too.
	build := exec.Command("go", "build", "-o", os.DevNull, "./examples/servers/notes", "./examples/servers/units")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	dirs := t.TempDir()
	cmd := exec.Command("sh", "-c", cmdLine)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GOCACHE=" + strings.TrimSpace(string(gocache)),
		"XDG_CACHE_HOME=" + filepath.Join(dirs, "cache"), "XDG_CONFIG_HOME=" + filepath.Join(dirs, "config"),
		"XDG_DATA_HOME=" + filepath.Join(dirs, "data"), "MCPCOST_CACHE_DIR=" + filepath.Join(dirs, "mcpcost-cache")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", cmdLine, err, stdout.String(), stderr.String())
	}
	if len(tableRows(sample)) < 3 {
		t.Fatalf("the README's sample output has no server table:\n%s", sample)
	}
	if got := asInReadme(stdout.String(), root); got != asInReadme(sample, "/home/you/mcpcost") {
		t.Errorf("%s prints\n%s\nwhere the README shows\n%s", cmdLine, stdout.String(), sample)
	}
	for _, l := range strings.Split(stdout.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("a line of %d columns, over 80: %q", n, l)
		}
	}
}

// readmeMainJob returns the command marked "the main job" in the README's
// first sh block, and the first plain code block after it (its output).
func readmeMainJob(t *testing.T, readme string) (string, string) {
	t.Helper()
	i := strings.Index(readme, "```sh\n")
	if i < 0 {
		t.Fatal("the README has no sh block")
	}
	block := readme[i+len("```sh\n"):]
	end := strings.Index(block, "```")
	var cmdLine string
	for _, line := range strings.Split(block[:end], "\n") {
		if c, _, ok := strings.Cut(line, "# the main job"); ok {
			cmdLine = strings.TrimSpace(c)
		}
	}
	if cmdLine == "" {
		t.Fatal(`no command marked "# the main job" in the README's first sh block`)
	}
	rest := block[end+3:]
	j := strings.Index(rest, "\n```\n")
	if j < 0 {
		t.Fatal("no output block after the README's first sh block")
	}
	out := rest[j+len("\n```\n"):]
	return cmdLine, out[:strings.Index(out, "```")]
}

var rowSpace = regexp.MustCompile(`\s+`)

// asInReadme is out with the checkout's folder root written as the
// README writes it, and each line's gaps between columns (runs of spaces
// after its indentation) made one space.
//
// The output is fitted to 80 columns, so where the checkout's path is
// longer or shorter than the README's, prose wraps and columns align
// elsewhere: the words are compared, in order, and every line of the
// output must fit 80 columns.
func asInReadme(out, root string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(out, root, "/home/you/mcpcost")), " ")
}

// tableRows returns the server table's rows (header to total), with runs of
// spaces made one.
func tableRows(out string) []string {
	var rows []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.TrimSpace(line)
		if strings.HasPrefix(f, "server ") {
			in = true
		}
		if in {
			rows = append(rows, rowSpace.ReplaceAllString(f, " "))
			if strings.HasPrefix(f, "total ") {
				break
			}
		}
	}
	return rows
}

// The README's sample servers.yaml is swept as it is written, but for its
// commands: each npx server is the Go test server (the sample's shape,
// names, packages, variables and remote entry are what is tested; the npm
// servers' own counts are tested elsewhere).
func TestReadmeServersYAML(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpcost and a test server")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Publish your server's number\n")
	if !ok {
		t.Fatal(`the README has no "Publish your server's number"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, yaml, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal("the README's Publish section has no yaml block")
	}
	yaml, _, _ = strings.Cut(yaml, "```")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/mcpcost", "./internal/mcpclient/testdata/stdioserver")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	command := regexp.MustCompile(`(?m)^(\s+)command: .*$`)
	if n := len(command.FindAllString(yaml, -1)); n != 4 {
		t.Fatalf("the sample has %d commands, want 4:\n%s", n, yaml)
	}
	file := filepath.Join(dir, "servers.yaml")
	if err := os.WriteFile(file, []byte(command.ReplaceAllString(yaml, "${1}command: ["+filepath.Join(bin, "stdioserver")+", ok]")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "mcpcost"), "sweep", file, "--out", filepath.Join(dir, "site"), "--date", "2026-12-01")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "COLUMNS=100"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcpcost sweep on the README's servers.yaml: %v\n%s", err, out)
	}
	for _, want := range []string{"memory: 81 tokens", "filesystem: 81 tokens", "github: 81 tokens", "swept 3 servers: 3 measured"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("mcpcost sweep on the README's servers.yaml does not say %q:\n%s", want, out)
		}
	}
	board, err := os.ReadFile(filepath.Join(dir, "site", "leaderboard.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(board), "| [linear](servers/linear.md) | remote-auth-wall |") {
		t.Errorf("the leaderboard does not list linear behind its wall:\n%s", board)
	}
	for _, name := range []string{"memory", "filesystem", "github"} {
		if _, err := os.Stat(filepath.Join(dir, "site", "results", name, "measurement.json")); err != nil {
			t.Error(err)
		}
	}
}
