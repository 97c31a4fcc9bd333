package cli

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// canaryServerEnv selects the hostile stdio server this test binary runs
// as when it is set (see TestMain).
const canaryServerEnv = "MCPCOST_CANARY_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(canaryServerEnv); mode != "" {
		os.Exit(hostileServer(mode))
	}
	os.Exit(m.Run())
}

// hostileServer is an MCP server over stdio that repeats everything it
// was launched with (its arguments and environment) in its stderr and, by
// mode, in its JSON-RPC error messages:
//
//	stderr    prints them on stderr and exits 3 before answering
//	rpcerror  answers initialize with an error holding them
//	toolserr  answers initialize, then tools/list with an error holding them
//	ok        a working server with one tool that repeats them in its
//	          version, instructions and tool description; every other
//	          list is an error holding them, and they are printed on
//	          stderr
func hostileServer(mode string) int {
	var said []string
	said = append(said, os.Args[1:]...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			said = append(said, kv)
		}
	}
	echo := strings.Join(said, " ")
	fmt.Fprintf(os.Stderr, "hostile server starting with %s\n", echo)
	if mode == "stderr" {
		fmt.Fprintf(os.Stderr, "fatal: cannot start: args %s\n", strings.Join(os.Args[1:], " "))
		return 3
	}
	enc := json.NewEncoder(os.Stdout)
	send := func(id json.RawMessage, result any, errMsg string) {
		m := map[string]any{"jsonrpc": "2.0", "id": id}
		if errMsg != "" {
			m["error"] = map[string]any{"code": -32603, "message": errMsg, "data": map[string]any{"argv": os.Args[1:], "env": os.Environ()}}
		} else {
			m["result"] = result
		}
		enc.Encode(m)
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || len(msg.ID) == 0 || msg.Method == "" {
			continue
		}
		switch msg.Method {
		case "server/discover":
			enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		case "initialize":
			if mode == "rpcerror" {
				send(msg.ID, nil, "refusing to start with "+echo)
				continue
			}
			// It repeats them in its version and instructions too.
			send(msg.ID, map[string]any{"protocolVersion": msg.Params.ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}},
				"serverInfo":   map[string]any{"name": "hostile", "version": "1.0.0 " + echo},
				"instructions": "Use with " + echo}, "")
		case "ping":
			send(msg.ID, map[string]any{}, "")
		case "tools/list":
			if mode == "toolserr" {
				send(msg.ID, nil, "no tools for "+echo)
				continue
			}
			send(msg.ID, map[string]any{"tools": []any{map[string]any{"name": "echo", "description": "Echo the text back. Launched with " + echo,
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "description": "as given to " + echo}}}}}}, "")
		default:
			send(msg.ID, nil, msg.Method+" is not served to "+echo)
		}
	}
	return 0
}

// hostileHTTP is a Streamable HTTP endpoint that answers every request with
// a JSON-RPC error repeating its query, its headers and the user and
// password the client sent.
func hostileHTTP(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(body, &req)
		user, pw, _ := r.BasicAuth()
		var hs []string
		for k, v := range r.Header {
			hs = append(hs, k+": "+strings.Join(v, ","))
		}
		sort.Strings(hs)
		msg := fmt.Sprintf("rejected %s?%s from %s:%s with %s", r.URL.Path, r.URL.RawQuery, user, pw, strings.Join(hs, "; "))
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32001, "message": msg}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestCanaryWalk plants a canary secret in every place a secret can reach
// mcpcost (env and header values, each argument form, DSN passwords, URL
// user info and query, a ${VAR} expanded into an argument and a URL, a
// file's contents expanded by Windsurf's ${file:}, a Codex TOML entry,
// VS Code inputs and env), has hostile servers repeat
// what they were launched with in their stderr and JSON-RPC errors, runs
// every command that reads configs, launches servers or reads their
// reports (clients, audit, measure, verify, badge, diff, findings, report,
// usage) in every format, and the tools of serve, and then reads
// every output and every file mcpcost wrote (measurement.json, the HTML
// report, the measurement cache, the usage store with its WAL) as bytes:
// the canary is in none of them.
func TestCanaryWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("launches servers")
	}
	const canary = "canary-5150"
	secret := func(place string) string { return canary + "-" + place }

	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	out := filepath.Join(root, "out")
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	web := hostileHTTP(t)
	hostPort := strings.TrimPrefix(web, "http://")

	// What mcpcost reads: written by the test, holding the canary, and not
	// searched.
	inputs := map[string]bool{}
	write := func(path string, v any) {
		t.Helper()
		var data []byte
		if s, ok := v.(string); ok {
			data = []byte(s)
		} else if data, err = json.MarshalIndent(v, "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		inputs[path] = true
	}
	for _, d := range []string{out, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// Every argument form, each with its own canary.
	argForms := func(p string) []string {
		return []string{
			"--token=" + secret(p+"-flag-eq"),
			"--token", secret(p + "-flag-sp"),
			"--api-key", secret(p + "-api-key"),
			"postgresql://app:" + secret(p+"-dsn") + "@db.example:5432/shop",
			"redis://:" + secret(p+"-redis") + "@cache.example:6379/0",
			"API_KEY=" + secret(p+"-positional"),
			"Bearer " + secret(p+"-bearer"),
			"${CANARY_VAR}",
		}
	}
	stdio := func(p, mode string) map[string]any {
		return map[string]any{"command": bin, "args": argForms(p),
			"env": map[string]string{canaryServerEnv: mode, "SECRET_ENV": secret(p + "-env")}}
	}
	remote := func(p string) map[string]any {
		return map[string]any{"type": "http",
			"url":     "http://app:" + secret(p+"-userinfo") + "@" + hostPort + "/mcp?token=" + secret(p+"-query") + "&key=${CANARY_VAR}&lang=en",
			"headers": map[string]string{"Authorization": "Bearer " + secret(p+"-header"), "X-Api-Key": secret(p + "-x-api-key")}}
	}
	// Claude Code, user scope (launched without a project approval).
	write(filepath.Join(home, ".claude.json"), map[string]any{"mcpServers": map[string]any{
		"hostile-stderr": stdio("user", "stderr"),
		"hostile-rpc":    stdio("user", "rpcerror"),
		"hostile-tools":  stdio("user", "toolserr"),
		"hostile-ok":     stdio("user", "ok"),
		"remote":         remote("user"),
	}})
	// A config named with --config (the user's explicit consent).
	cfg := filepath.Join(proj, "servers.json")
	write(cfg, map[string]any{"mcpServers": map[string]any{
		"cfg-stderr": stdio("cfg", "stderr"),
		"cfg-rpc":    stdio("cfg", "rpcerror"),
		"cfg-ok":     stdio("cfg", "ok"),
		"cfg-remote": remote("cfg"),
	}})
	// A cloned repository's own configs: listed as needing approval, with
	// the launch that would run.
	write(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"proj-stderr": stdio("proj", "stderr"),
		"proj-remote": remote("proj"),
	}})
	write(filepath.Join(proj, ".vscode", "mcp.json"), map[string]any{
		"inputs": []any{map[string]any{"type": "promptString", "id": "key", "password": true, "default": secret("ws-input")}},
		"servers": map[string]any{"ws": map[string]any{"type": "stdio", "command": bin, "args": []string{"--token=" + secret("ws-arg"), "${input:key}"},
			"env": map[string]string{canaryServerEnv: "stderr", "SECRET_ENV": secret("ws-env")}}},
	})
	// Codex, user scope, TOML.
	var toml strings.Builder
	for name, mode := range map[string]string{"codex-stderr": "stderr", "codex-rpc": "rpcerror"} {
		fmt.Fprintf(&toml, "[mcp_servers.%s]\ncommand = %q\nargs = [", name, bin)
		for i, a := range argForms("codex") {
			if i > 0 {
				toml.WriteString(", ")
			}
			fmt.Fprintf(&toml, "%q", strings.ReplaceAll(a, "${CANARY_VAR}", "--secret="+secret("codex-toml")))
		}
		fmt.Fprintf(&toml, "]\n[mcp_servers.%s.env]\n%s = %q\nSECRET_ENV = %q\n\n", name, canaryServerEnv, mode, secret("codex-env"))
	}
	write(filepath.Join(home, ".codex", "config.toml"), toml.String())
	// VS Code, user profile: an input the client prompts for (with a
	// default), and ${env:...} expanded into an argument.
	write(filepath.Join(home, ".config", "Code", "User", "mcp.json"), map[string]any{
		"inputs": []any{map[string]any{"type": "promptString", "id": "tok", "description": "Token", "password": true, "default": secret("vscode-input")}},
		"servers": map[string]any{
			"vs-input": map[string]any{"type": "stdio", "command": bin, "args": []string{"--api-key", "${input:tok}"},
				"env": map[string]string{canaryServerEnv: "stderr", "TOKEN": "${input:tok}"}},
			"vs-env": map[string]any{"type": "stdio", "command": bin, "args": []string{"--dir", "${env:CANARY_VAR}", "--token=" + secret("vscode-arg")},
				"env": map[string]string{canaryServerEnv: "rpcerror", "SECRET_ENV": secret("vscode-env")}},
		},
	})
	// Windsurf: a file's contents expanded into an argument (${file:}).
	write(filepath.Join(home, ".secrets", "token"), secret("windsurf-file")+"\n")
	write(filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"), map[string]any{"mcpServers": map[string]any{
		"windsurf-file": map[string]any{"command": bin, "args": []string{"${file:~/.secrets/token}", "--dir", "${env:CANARY_VAR}"},
			"env": map[string]string{canaryServerEnv: "stderr"}},
	}})
	// Sessions that called hostile-ok, for usage, findings and report.
	var lines []string
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i := range 6 {
		ts := at.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant","sessionId":"s1","cwd":%q,"timestamp":%q,"requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t%d","name":"mcp__hostile-ok__echo","input":{"text":"hi"}}],"usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":5000}}}`, proj, ts, i, i, i),
			fmt.Sprintf(`{"type":"user","sessionId":"s1","cwd":%q,"timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"hi"}]}}`, proj, ts, i))
	}
	write(filepath.Join(home, ".claude", "projects", "-proj", "s1.jsonl"), strings.Join(lines, "\n")+"\n")

	vars := map[string]string{
		"HOME":               home,
		"XDG_CONFIG_HOME":    filepath.Join(home, ".config"),
		"XDG_DATA_HOME":      filepath.Join(root, "data"),
		"XDG_CACHE_HOME":     filepath.Join(root, "xdg-cache"),
		"MCPCOST_CACHE_DIR":  filepath.Join(root, "cache"),
		"CANARY_VAR":         secret("expanded-var"),
		"FROM_ENV":           secret("measure-from-env"),
		"MCP_HEADERS":        "Authorization: Bearer " + secret("header-env") + "\nX-Api-Key: " + secret("header-env-key"),
		"ENABLE_TOOL_SEARCH": "false",
		"NO_COLOR":           "1",
		"PATH":               os.Getenv("PATH"),
	}
	getenv := func(k string) string { return vars[k] }
	var seen bytes.Buffer // every output, for the check that the walk did something
	leaks := func(what string, b []byte) {
		t.Helper()
		seen.Write(b)
		// Its first five letters: a secret clipped short is a leak too.
		if i := bytes.Index(b, []byte(canary[:5])); i >= 0 {
			lo, hi := max(0, i-120), min(len(b), i+60)
			t.Errorf("%s holds the canary: …%s…", what, b[lo:hi])
		}
	}
	run := func(args ...string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: getenv,
			Environ: func() []string { return nil }, Now: func() time.Time { return at.AddDate(0, 0, 2) },
			StderrTTY: true} // progress lines too
		code := Run(env, args)
		name := "mcpcost " + strings.Join(args, " ")
		leaks(name+" stdout", stdout.Bytes())
		leaks(name+" stderr", stderr.Bytes())
		t.Logf("%s: exit %d, %d+%d bytes", name, code, stdout.Len(), stderr.Len())
		return stdout.Bytes()
	}
	// keep writes a command's output to a file, for the commands that read
	// reports.
	keep := func(name string, b []byte) string {
		t.Helper()
		p := filepath.Join(out, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	server := append([]string{"--"}, bin)
	withEnv := func(mode string) []string {
		return []string{"--env", canaryServerEnv + "=" + mode, "--env", "SECRET_ENV=" + secret("measure-env"), "--once", "--timeout", "20s"}
	}
	measureArgs := func(p string) []string {
		a := argForms(p)
		a[len(a)-1] = "--key=" + secret(p+"-last") // measure does not expand variables
		return a
	}
	mOut := filepath.Join(out, "measurement.json")
	fOut := filepath.Join(out, "failed.json")
	htmlOut := filepath.Join(out, "report.html")
	webURL := "http://app:" + secret("measure-userinfo") + "@" + hostPort + "/mcp?token=" + secret("measure-query")

	run("clients")
	run("clients", "--json")
	run("clients", "--project", proj, "--config", cfg)
	run("clients", "--project", proj, "--config", cfg, "--json")
	run("audit", "--project", proj, "--no-launch")
	run("audit", "--project", proj)
	run("audit", "--project", proj, "--json", "--refresh")
	run("audit", "--project", proj, "--markdown", "--offline")
	run("audit", "--config", cfg)
	auditJSON := keep("audit.json", run("audit", "--config", cfg, "--json"))
	run("audit", "--config", cfg, "--markdown", "--offline")
	run("audit", "--config", cfg, "--budget", "1", "--threshold", "1")
	run("audit", "--config", cfg, "--baseline", auditJSON, "--max-increase", "0", "--markdown")
	run(append(append(append([]string{"measure"}, withEnv("ok")...), server...), measureArgs("m-ok")...)...)
	run(append(append(append([]string{"measure", "--json", "--out", mOut}, withEnv("ok")...), server...), measureArgs("m-json")...)...)
	run(append(append(append([]string{"measure"}, withEnv("stderr")...), server...), measureArgs("m-stderr")...)...)
	run(append(append(append([]string{"measure", "--out", fOut}, withEnv("rpcerror")...), server...), measureArgs("m-rpc")...)...)
	run(append(append(append([]string{"measure", "--json"}, withEnv("toolserr")...), server...), measureArgs("m-tools")...)...)
	run("measure", "--once", "--timeout", "20s", "--header", "Authorization: Bearer "+secret("measure-header"), webURL)
	run("measure", "--once", "--timeout", "20s", "--header-env", "MCP_HEADERS", webURL)
	run(append(append([]string{"measure", "--env", "FROM_ENV", "--env", canaryServerEnv + "=stderr", "--once"}, server...), "--verbose")...)
	run("measure", "--once", "--timeout", "20s", "--json", "--header", "X-Api-Key: "+secret("measure-x-api-key"), webURL)
	// sweep: the canary in a command given as one string, in a command
	// list, in args and in envValues, repeated by the servers.
	sweepFile := filepath.Join(proj, "servers.yaml")
	yq := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	write(sweepFile, fmt.Sprintf(`servers:
  - name: sw-str
    command: %s
    args: ["--api-key", %s, "postgresql://app:%s@db.example:5432/shop", "Bearer %s"]
    envValues: {%s: ok, SECRET_ENV: %s}
  - name: sw-list
    command: [%s, "--password", %s, "--token=%s"]
    envValues: {%s: rpcerror, SECRET_ENV: %s}
  - name: sw-stderr
    command: [%s, "API_KEY=%s"]
    envValues: {%s: stderr, SECRET_ENV: %s}
`, yq(bin+" --token="+secret("sweep-str-flag")+" --password "+secret("sweep-str-pw")), yq(secret("sweep-api-key")), secret("sweep-dsn"), secret("sweep-bearer"),
		canaryServerEnv, secret("sweep-env"),
		yq(bin), yq(secret("sweep-list-pw")), secret("sweep-list-flag"), canaryServerEnv, secret("sweep-env2"),
		yq(bin), secret("sweep-positional"), canaryServerEnv, secret("sweep-env3")))
	site := filepath.Join(out, "site")
	run("sweep", sweepFile, "--out", site, "--date", "2026-11-22", "--timeout", "20s")
	run("sweep", sweepFile, "--out", site, "--date", "2026-11-23", "--timeout", "20s", "--only", "sw-str")
	run("verify", filepath.Join(site, "results", "sw-str", "measurement.json"))
	run("verify", mOut)
	run("badge", mOut, "--svg", filepath.Join(out, "badge.svg"), "--shields", filepath.Join(out, "badge.json"))
	run("badge", auditJSON, "--svg", filepath.Join(out, "audit-badge.svg"))
	run("diff", auditJSON, mOut)
	run("diff", "--json", auditJSON, auditJSON)
	run("diff", "--markdown", mOut, auditJSON)
	run("findings", "--project", proj)
	run("findings", "--project", proj, "--json", "--launch")
	run("findings", "--project", proj, "--markdown")
	run("findings", "--project", proj, "--config", cfg, "--json")
	run("report", "--project", proj, "--html", htmlOut)
	run("report", "--project", proj, "--markdown")
	run("report", "--project", proj, "--json")
	run("report", "--project", proj, "--config", cfg, "--json")
	run("usage")
	run("usage", "--json", "--by", "server")
	run("usage", "--markdown", "--by", "tool")
	run("blocks", "--json")
	// push: the password of the shared store's URL, in either form, and
	// what a push writes there.
	run("push", "--no-ingest", "--machine", "m", "--store", "postgres://app:"+secret("push-url")+"@127.0.0.1:1/db?sslmode=disable&connect_timeout=5")
	run("push", "--no-ingest", "--store", "host=127.0.0.1 password="+secret("push-kv"))
	if server, err := testpeers.PostgresServer(); err == nil {
		u, drop, err := testpeers.PostgresDatabase(server)
		if err != nil {
			t.Fatal(err)
		}
		defer drop()
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		pu.User = url.UserPassword(pu.User.Username(), secret("push-real")) // trust auth takes any
		run("push", "--no-ingest", "--machine", "m", "--store", pu.String())
		db, err := sql.Open("pgx", u)
		if err != nil {
			t.Fatal(err)
		}
		for _, tbl := range []string{"machines", "held", "requests", "tool_calls", "sessions", "compactions"} {
			var dump sql.NullString
			if err := db.QueryRow(`SELECT string_agg(row_to_json(t)::text, E'\n') FROM ` + tbl + ` t`).Scan(&dump); err != nil {
				t.Fatal(err)
			}
			if tbl == "requests" && dump.String == "" {
				t.Error("the push sent no requests")
			}
			leaks("the shared store's "+tbl, []byte(dump.String))
		}
		db.Close()
	} else if os.Getenv("MCPCOST_REQUIRE_PEERS") == "1" {
		t.Fatal(err)
	}

	// Every file mcpcost wrote: measurement.json, the HTML page, the
	// measurement cache, the usage store and its WAL (read while serve
	// holds the store open, and again at the end).
	written := map[string]bool{}
	walk := func() {
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() || inputs[p] {
				return nil
			}
			written[strings.TrimPrefix(p, root+string(filepath.Separator))] = true
			b, err := os.ReadFile(p)
			if err != nil && !os.IsNotExist(err) {
				t.Errorf("reading %s: %v", p, err)
			}
			leaks(p, b)
			return nil
		})
	}

	// serve, over stdio in this process: every tool.
	serveTools(t, getenv, at, leaks, walk, []string{"--project", proj, "--timeout", "20s"}, []toolCall{
		{"audit_config", map[string]any{"launch": true}},
		{"audit_config", map[string]any{"path": cfg, "launch": true}},
		{"audit_config", map[string]any{}},
		{"measure_server", map[string]any{"command": bin, "args": measureArgs("serve-stderr"),
			"env": map[string]string{canaryServerEnv: "stderr", "SECRET_ENV": secret("serve-env")}}},
		{"measure_server", map[string]any{"command": bin, "args": measureArgs("serve-rpc"),
			"env": map[string]string{canaryServerEnv: "rpcerror", "SECRET_ENV": secret("serve-env")}}},
		{"measure_server", map[string]any{"command": bin, "args": measureArgs("serve-ok"),
			"env": map[string]string{canaryServerEnv: "ok", "SECRET_ENV": secret("serve-env")}}},
		{"measure_server", map[string]any{"url": "http://app:" + secret("serve-userinfo") + "@" + hostPort + "/mcp?token=" + secret("serve-query"),
			"headers": map[string]string{"Authorization": "Bearer " + secret("serve-header")}}},
		{"findings", map[string]any{"launch": true}},
		{"usage_summary", map[string]any{}},
		{"recent_sessions", map[string]any{}},
		{"session_tools", map[string]any{}},
		{"blocks", map[string]any{"token_limit": "max"}},
	})

	walk()
	var files []string
	for f := range written {
		files = append(files, f)
	}
	sort.Strings(files)
	t.Logf("files written: %s", strings.Join(files, ", "))

	// The walk did what it says: servers launched and repeated the
	// secrets (now the marker), failures were shown with their stderr and
	// error messages, and the files exist.
	all := seen.String()
	for _, want := range []string{
		"hostile server starting with", // a stderr tail
		"refusing to start with",       // a JSON-RPC error message
		"no tools for",                 // an error on tools/list
		"rejected /mcp",                // an HTTP server's error message
		"--token=***",                  // a redacted launch
		"postgresql://app:***@db.example:5432/shop",
		"hostile-ok",
		"needs-approval",                              // the repository's own servers, listed with their launch
		"mcpcost: measuring",                          // a progress line
		"args *** --dir ***",                          // Windsurf's ${file:} and ${env:} values, scrubbed by value
		"Launched with",                               // a tool description repeating the launch
		"the server repeats the values of SECRET_ENV", // the warning of a redacted capture
		"--password *** --api-key *** postgresql://app:***@db.example:5432/shop", // a sweep entry's launch
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no output holds %q: the walk did not exercise it", want)
		}
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`cache/`), regexp.MustCompile(`\.db$`), regexp.MustCompile(`^out/measurement\.json$`),
		regexp.MustCompile(`^out/failed\.json$`), regexp.MustCompile(`^out/report\.html$`),
		regexp.MustCompile(`^out/site/results/sw-str/measurement\.json$`), regexp.MustCompile(`^out/site/leaderboard\.csv$`),
		regexp.MustCompile(`^out/site/servers/sw-list\.html$`), regexp.MustCompile(`^out/site/history\.csv$`),
	} {
		found := false
		for _, w := range files {
			found = found || want.MatchString(w)
		}
		if !found {
			t.Errorf("no file written matches %s", want)
		}
	}
}

type toolCall struct {
	name string
	args map[string]any
}

// serveTools runs mcpcost serve over stdio in this process, calls each
// tool, runs during while serve is still up, and hands every byte the
// server sent, and every error, to leaks.
func serveTools(t *testing.T, getenv func(string) string, now time.Time, leaks func(string, []byte), during func(), flags []string, calls []toolCall) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var sent, stderr bytes.Buffer
	env := &Env{Stdin: inR, Stdout: outW, Stderr: &stderr, Getenv: getenv,
		Environ: func() []string { return nil }, Now: func() time.Time { return now.AddDate(0, 0, 2) }}
	done := make(chan int, 1)
	go func() {
		done <- Run(env, append([]string{"serve"}, flags...))
		outW.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "canary", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(outR, &sent)), Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connecting to serve: %v\n%s", err, stderr.String())
	}
	for _, call := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: call.args})
		what := "serve " + call.name
		if err != nil {
			leaks(what+" error", []byte(err.Error()))
			t.Logf("%s: error %v", what, err)
			continue
		}
		b, _ := json.Marshal(res)
		leaks(what+" result", b)
		t.Logf("%s: %d bytes", what, len(b))
	}
	during()
	cs.Close()
	inW.Close()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Error("serve did not stop when its client closed")
	}
	leaks("serve's stdout", sent.Bytes())
	leaks("serve's stderr", stderr.Bytes())
}
