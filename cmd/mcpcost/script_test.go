package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/textsafe/textsafetest"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mcpcost": runMcpcost,
		"mcpcall": mcpcall,
	})
}

// mcpcall TOOL ARGS -- COMMAND...: connect to the MCP server COMMAND over
// stdio, call TOOL with the JSON object ARGS, and print the text of the
// result, then its structured content as JSON. Exit 1 on a tool error.
func mcpcall() {
	args := os.Args[1:]
	if len(args) < 4 || args[2] != "--" {
		fmt.Fprintln(os.Stderr, "usage: mcpcall TOOL ARGS -- COMMAND...")
		os.Exit(2)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(args[1]), &in); err != nil {
		fmt.Fprintln(os.Stderr, "mcpcall:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpcall", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(args[3], args[4:]...)}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpcall:", err)
		os.Exit(1)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: args[0], Arguments: in})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpcall:", err)
		os.Exit(1)
	}
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			fmt.Println(tc.Text)
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		fmt.Println(string(b))
	}
	if res.IsError {
		os.Exit(1)
	}
}

// cmdMkfifo: mkfifo PATH makes a named pipe.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(mkfifo(ts.MkAbs(args[0])))
}

// cmdGen: gen FILE PART... writes the parts one after another; a part
// TEXT*N is TEXT repeated N times.
func cmdGen(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: gen FILE PART...")
	}
	var b strings.Builder
	for _, part := range args[1:] {
		if i := strings.LastIndex(part, "*"); i > 0 {
			if n, err := strconv.Atoi(part[i+1:]); err == nil {
				b.WriteString(strings.Repeat(part[:i], n))
				continue
			}
		}
		b.WriteString(part)
	}
	path := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	ts.Check(os.WriteFile(path, []byte(b.String()), 0o644))
}

// TestScript runs the end-to-end scenarios in testdata/script. Each runs
// with a fake home ($WORK/home unless the script says otherwise) and
// $SHARED pointing at the shared test data when it exists.
func TestScript(t *testing.T) {
	// Scripts build example servers with go: keep the real build and module
	// caches, which live under the real home.
	goenv := map[string]string{}
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			if i < len(lines) && lines[i] != "" {
				goenv[k] = lines[i]
			}
		}
	}
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..")
	shared := os.Getenv("MCPCOST_SHARED")
	if shared == "" {
		shared = filepath.Join(root, "..", "shared")
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("NO_COLOR", "1")
			// Text is fitted to COLUMNS when stdout is not a terminal: the
			// scripts read whole lines, and those about width set their own
			// (or none, for the default of 80) or run in a pseudo-terminal.
			e.Setenv("COLUMNS", "1000")
			e.Setenv("ROOT", root)
			e.Setenv("TESTDATA", filepath.Join(wd, "testdata"))
			hintCheckSetup(e)
			if _, err := os.Stat(filepath.Join(shared, "corpus")); err == nil {
				e.Setenv("SHARED", shared)
			}
			for k, v := range goenv {
				e.Setenv(k, v)
			}
			for _, k := range []string{"MCPCOST_NPM_DIR", "MCPCOST_REQUIRE_PEERS", "PATH", "GOROOT", "GOFLAGS", "GOPROXY"} {
				if v := os.Getenv(k); v != "" {
					e.Setenv(k, v)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"recorder":     cmdRecorder,
			"mkfifo":       cmdMkfifo,
			"pty":          cmdPty,
			"genhome":      cmdGenhome,
			"gen":          cmdGen,
			"sqlite":       cmdSQLite,
			"safetext":     cmdSafe(textsafetest.CheckText),
			"safemarkdown": cmdSafe(textsafetest.CheckMarkdown),
			"jsonstring":   cmdJSONString,
			"pgdb":         cmdPGDB,
			"webroot":      cmdWebroot,
			"procs":        cmdProcs,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "pg":
				_, err := testpeers.PostgresServer()
				return err == nil || os.Getenv("MCPCOST_REQUIRE_PEERS") == "1", nil
			case "shared":
				_, err := os.Stat(filepath.Join(shared, "corpus"))
				return err == nil, nil
			}
			return false, nil
		},
	})
}

// cmdRecorder starts an HTTP listener on loopback for the rest of the
// script, sets $RECORDER to its host:port, and appends the method and URL
// of every request it receives to the file named (created on the first
// request, so that "! exists FILE" says nothing was contacted). It
// answers 404.
func cmdRecorder(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: recorder FILE")
	}
	file := ts.MkAbs(args[0])
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	var mu sync.Mutex
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.URL)
			f.Close()
		}
		http.NotFound(w, r)
	})}
	go srv.Serve(ln)
	ts.Defer(func() { srv.Close() })
	ts.Setenv("RECORDER", ln.Addr().String())
}

// cmdSafe makes a script command that checks each file named (stdout and
// stderr are the last command's) with check: "safetext FILE..." and
// "safemarkdown FILE...".
func cmdSafe(check func(string) error) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: safetext|safemarkdown FILE...")
		}
		for _, f := range args {
			if err := check(ts.ReadFile(f)); err != nil {
				ts.Fatalf("%s: %v", f, err)
			}
		}
	}
}

// cmdJSONString is "jsonstring FILE STRING": FILE is valid JSON and holds,
// as a member name or a string value, exactly the string that the JSON
// string literal STRING stands for.
func cmdJSONString(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jsonstring FILE JSON-STRING")
	}
	var want string
	if err := json.Unmarshal([]byte(args[1]), &want); err != nil {
		ts.Fatalf("%s is not a JSON string: %v", args[1], err)
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("%s is not valid JSON: %v", args[0], err)
	}
	var found func(v any) bool
	found = func(v any) bool {
		switch v := v.(type) {
		case string:
			return v == want
		case []any:
			for _, e := range v {
				if found(e) {
					return true
				}
			}
		case map[string]any:
			for k, e := range v {
				if k == want || found(e) {
					return true
				}
			}
		}
		return false
	}
	if found(doc) == neg {
		if neg {
			ts.Fatalf("%s holds %q", args[0], want)
		}
		ts.Fatalf("%s does not hold %q", args[0], want)
	}
}

// cmdPGDB creates a PostgreSQL database of its own on the test server
// (testpeers.PostgresServer) for the rest of the script, sets $PGURL to
// its URL, and drops it at the end. Scripts run it under [pg]: true when
// a server answers, and under MCPCOST_REQUIRE_PEERS=1 (then pgdb fails
// without one).
func cmdPGDB(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: pgdb")
	}
	server, err := testpeers.PostgresServer()
	ts.Check(err)
	u, drop, err := testpeers.PostgresDatabase(server)
	ts.Check(err)
	ts.Defer(func() { ts.Check(drop()) })
	ts.Setenv("PGURL", u)
}
