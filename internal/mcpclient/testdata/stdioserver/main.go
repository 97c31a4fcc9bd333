// Command stdioserver is a small MCP server over stdio for the mcpclient
// tests. It speaks raw newline-delimited JSON-RPC so that it can misbehave
// in exactly one way at a time, chosen by its first argument:
//
//	ok              three tools, one page
//	full            instructions, paginated tools, prompts, resources, templates
//	banner          non-JSON lines on stdout around every message
//	stderr-flood    40 MiB on stderr before it serves
//	huge            a tools/list response of several megabytes
//	endless-pages   a new cursor on every page, forever
//	repeat-cursor   the same cursor again and again
//	slow-pages      endless pages, each 400ms late: in time for a request, never done
//	many-tools      500 tools
//	dup-names       two tools with the same name
//	no-name         a tool without a name
//	not-array       "tools" is an object
//	invalid-utf8    a description with bytes that are not UTF-8
//	server-requests ping, roots/list, sampling and elicitation requests before answering tools/list
//	silent          reads everything, answers nothing
//	stubborn        answers nothing, outlives stdin closing and ignores SIGTERM; appends "eof NS" and
//	                "term NS" (Unix nanoseconds) to $STATEFILE when stdin closes and when SIGTERM comes
//	jammed          as stubborn, but it answers: before answering tools/list it sends 4 pings with ids of
//	                32 KiB and stops reading stdin, so that the answers to them fill the pipe; it notes
//	                "answered NS" once it has answered tools/list
//	deaf-pinger     answers initialize, then stops reading stdin and sends pings without end
//	no-discover     ignores server/discover (a legacy server that drops unknown requests)
//	discover-crash  exits with status 1 on server/discover (a legacy server strict about initialize coming first)
//	bad-version     answers initialize with a protocol version nobody speaks
//	odd-init        answers initialize with instructions that are a number
//	no-tools        declares only prompts, and has no tools/list
//	rpc-error       answers tools/list with JSON-RPC error -32603
//	exit-mid-list   exits with status 3 when asked for the second page
//	crash           writes to stderr and exits with status 1 at once
//	ignore-stdin    serves, then ignores stdin closing and SIGTERM
//	spawn-child     starts a child that ignores SIGTERM, and never exits on its own
//	dynamic         a different tool list on every launch (counter in $STATEFILE)
//	dynamic-call    a different tool list on every tools/list call, the same on every launch
//	env             reports the names (not values) of its environment in a tool description
//	echo-secret     writes the value of $SECRET to stderr, then exits 1
//	exit            exits at once with status 0 (start-up cost alone)
//	daemon          serves, after forking a setsid() daemon (a double fork: the daemon's parent exits at once);
//	                with $DAEMON_STDIO=1 the daemon keeps the server's stdout and stderr, else /dev/null
//	deep            a tool whose inputSchema nests 1200 levels (deeper than the SDK's limit of 1000)
//	nest            a tools/list response nesting exactly $DEPTH levels: arrays in the tool's
//	                inputSchema, or objects {"a":{"a":...}} with $NEST=object
//	notify-flood    $NOTIFY (default 200000) notifications/message before answering tools/list
//	close-stdout    answers initialize, then closes stdout and keeps running until stdin closes
//	close-stdin     closes stdin, answers initialize and keeps stdout open until killed
//	nonjson-flood   writes lines that are not JSON to stdout without end
//	slow-modern     speaks 2026-07-28 only (server/discover; initialize is refused), and its first
//	                launch (counter in $STATEFILE) starts 1.5s late
//	sleep           (internal) the child of spawn-child, and the daemon of daemon
//	detach          (internal) the intermediate of daemon: setsid, start the daemon, exit
//
// Arguments after the first are passed on to every child it starts (the
// tests put a unique marker there, to find any process left behind).
// When $PIDFILE is set, the server appends its pid (and its child's) to it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	mode      string
	listCalls int // tools/list calls answered, in dynamic-call mode
	out       = bufio.NewWriter(os.Stdout)
)

func send(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	if mode == "banner" {
		fmt.Fprintln(out, "starting up... (not JSON)")
	}
	out.Write(data)
	out.WriteString("\n")
	if mode == "banner" {
		fmt.Fprintln(out, "[info] sent a message")
		fmt.Fprintln(out, `{"not":"json-rpc"}`)
	}
	out.Flush()
}

func result(id json.RawMessage, r any) {
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": r})
}

func rpcError(id json.RawMessage, code int, msg string) {
	send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func tool(name, desc string) map[string]any {
	return map[string]any{
		"name":        name,
		"description": desc,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}},
	}
}

// nestedList is a tools/list response to id that nests depth levels (at
// least 6): the message, its result, the tools array, the tool, its
// inputSchema, then arrays or objects down to depth.
func nestedList(id json.RawMessage, depth int, objects bool) string {
	k := depth - 5
	nest := strings.Repeat("[", k) + strings.Repeat("]", k)
	if objects {
		nest = strings.Repeat(`{"a":`, k-1) + "{}" + strings.Repeat("}", k-1)
	}
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[{"name":"deep","inputSchema":{"type":"object","x":` + nest + `}}]}}`
}

// repeated is what a "repeat" server says back: $SECRET, $PLAIN (when
// set) and its arguments.
func repeated() string {
	s := "key " + os.Getenv("SECRET")
	if p := os.Getenv("PLAIN"); p != "" {
		s += " level " + p
	}
	return s + " and args " + strings.Join(os.Args[2:], " ")
}

func writePid(pids ...int) {
	path := os.Getenv("PIDFILE")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	for _, p := range pids {
		fmt.Fprintln(f, p)
	}
	f.Close()
}

func main() {
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "sleep":
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		time.Sleep(time.Hour)
		return
	case "detach":
		// Already in a new session (started with Setsid): start the
		// daemon and exit, so that it is orphaned.
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		child := exec.Command(os.Args[0], append([]string{"sleep"}, os.Args[2:]...)...)
		if os.Getenv("DAEMON_STDIO") == "1" {
			child.Stdout, child.Stderr = os.Stdout, os.Stderr
		}
		if err := child.Start(); err == nil {
			writePid(child.Process.Pid)
		}
		return
	case "nonjson-flood":
		chunk := []byte(strings.Repeat(strings.Repeat("log: not JSON-RPC ", 4)+"\n", 1000))
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return
			}
		}
	case "exit":
		return
	case "crash":
		fmt.Fprintln(os.Stderr, "loading configuration")
		fmt.Fprintln(os.Stderr, "fatal: the database is not reachable")
		os.Exit(1)
	case "echo-secret":
		fmt.Fprintln(os.Stderr, "starting with key "+os.Getenv("SECRET"))
		os.Exit(1)
	case "ignore-stdin", "spawn-child":
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	case "stubborn", "jammed":
		signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		go func() {
			for range term {
				note("term")
			}
		}()
	}
	writePid(os.Getpid())
	if mode == "daemon" {
		mid := exec.Command(os.Args[0], append([]string{"detach"}, os.Args[2:]...)...)
		mid.Stdout, mid.Stderr = os.Stdout, os.Stderr
		mid.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := mid.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "detach:", err)
		}
	}
	if mode == "spawn-child" {
		child := exec.Command(os.Args[0], append([]string{"sleep"}, os.Args[2:]...)...)
		if err := child.Start(); err == nil {
			writePid(child.Process.Pid)
		}
	}
	if mode == "stderr-flood" {
		// Before serving: a client that does not drain stderr blocks us here.
		line := strings.Repeat("x", 1023) + "\n"
		for i := 0; i < 40<<10; i++ {
			if _, err := os.Stderr.WriteString(line); err != nil {
				break
			}
		}
	}
	generation := 0
	if mode == "dynamic" || mode == "slow-modern" {
		path := os.Getenv("STATEFILE")
		data, _ := os.ReadFile(path)
		generation, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		os.WriteFile(path, []byte(strconv.Itoa(generation+1)), 0o644)
	}
	if mode == "slow-modern" && generation == 0 {
		time.Sleep(1500 * time.Millisecond)
	}

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	var pendingList json.RawMessage // tools/list id held back in server-requests mode
	answers := map[string]string{}
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(in.Bytes(), &msg); err != nil {
			continue
		}
		if mode == "silent" || mode == "stubborn" {
			continue
		}
		if msg.Method == "" { // a response to one of our requests
			var id string
			json.Unmarshal(msg.ID, &id)
			if msg.Error != nil {
				answers[id] = "error " + strconv.Itoa(msg.Error.Code)
			} else {
				answers[id] = "result"
			}
			if len(answers) == 4 && pendingList != nil {
				keys := make([]string, 0, 4)
				for k, v := range answers {
					keys = append(keys, k+"="+v)
				}
				sort.Strings(keys)
				result(pendingList, map[string]any{"tools": []any{tool("answers", strings.Join(keys, "; "))}})
				pendingList = nil
			}
			continue
		}
		if len(msg.ID) == 0 { // a notification
			continue
		}
		var params struct {
			ProtocolVersion string `json:"protocolVersion"`
			Cursor          string `json:"cursor"`
		}
		json.Unmarshal(msg.Params, &params)
		switch msg.Method {
		case "server/discover":
			if mode == "no-discover" {
				continue
			}
			if mode == "discover-crash" {
				fmt.Fprintln(os.Stderr, "error: received request before initialization")
				os.Exit(1)
			}
			if mode == "slow-modern" {
				result(msg.ID, map[string]any{"supportedVersions": []string{"2026-07-28"}, "capabilities": map[string]any{"tools": map[string]any{}},
					"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "stdioserver", "version": "1.0.0"}}})
				continue
			}
			rpcError(msg.ID, -32601, "Method not found")
		case "initialize":
			if mode == "slow-modern" {
				rpcError(msg.ID, -32600, "this server speaks 2026-07-28 only")
				continue
			}
			pv := params.ProtocolVersion
			if mode == "bad-version" {
				pv = "1999-01-01"
			}
			caps := map[string]any{"tools": map[string]any{}}
			r := map[string]any{"protocolVersion": pv, "capabilities": caps, "serverInfo": map[string]any{"name": "stdioserver", "version": "1.0.0"}}
			if mode == "no-tools" {
				delete(caps, "tools")
				caps["prompts"] = map[string]any{}
			}
			if mode == "odd-init" {
				r["instructions"] = 42
			}
			if mode == "repeat" {
				r["serverInfo"] = map[string]any{"name": "stdioserver", "version": "1." + os.Getenv("SECRET")}
				r["instructions"] = "Use with " + repeated()
			}
			if mode == "full" {
				caps["prompts"] = map[string]any{}
				caps["resources"] = map[string]any{}
				r["instructions"] = "Use these tools for testing."
			}
			if mode == "close-stdin" {
				// Closed before the answer, so that every later write fails.
				os.Stdin.Close()
				result(msg.ID, r)
				time.Sleep(time.Hour)
			}
			result(msg.ID, r)
			if mode == "close-stdout" {
				os.Stdout.Close()
			}

			if mode == "deaf-pinger" {
				for i := 0; ; i++ {
					send(map[string]any{"jsonrpc": "2.0", "id": i, "method": "ping"})
				}
			}
		case "ping":
			result(msg.ID, map[string]any{})
		case "tools/list":
			if mode == "no-tools" {
				rpcError(msg.ID, -32601, "Method not found")
				continue
			}
			if mode == "jammed" {
				for i := 0; i < 4; i++ {
					send(map[string]any{"jsonrpc": "2.0", "id": strconv.Itoa(i) + strings.Repeat("-", 32<<10), "method": "ping"})
				}
				listTools(msg.ID, params.Cursor, generation, &pendingList)
				note("answered")
				time.Sleep(time.Hour)
			}
			listTools(msg.ID, params.Cursor, generation, &pendingList)
		case "prompts/list":
			if params.Cursor == "" {
				result(msg.ID, map[string]any{"prompts": []any{map[string]any{"name": "greet", "description": "Say hello", "arguments": []any{map[string]any{"name": "who", "required": true}}}}, "nextCursor": "2"})
			} else {
				result(msg.ID, map[string]any{"prompts": []any{map[string]any{"name": "part", "description": "Say goodbye"}}})
			}
		case "resources/list":
			result(msg.ID, map[string]any{"resources": []any{map[string]any{"uri": "file:///a.txt", "name": "a", "description": "A file"}}})
		case "resources/templates/list":
			rpcError(msg.ID, -32601, "Method not found")
		default:
			rpcError(msg.ID, -32601, "Method not found")
		}
	}
	if mode == "stubborn" {
		note("eof")
	}
	if mode == "ignore-stdin" || mode == "spawn-child" || mode == "stubborn" {
		time.Sleep(time.Hour)
	}
}

// note appends what happened, and when (Unix nanoseconds), to $STATEFILE.
func note(what string) {
	f, err := os.OpenFile(os.Getenv("STATEFILE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %d\n", what, time.Now().UnixNano())
	f.Close()
}

func listTools(id json.RawMessage, cursor string, generation int, pending *json.RawMessage) {
	basic := []any{tool("alpha", "First tool."), tool("beta", "Second tool."), tool("gamma", "Third tool.")}
	switch mode {
	case "full":
		switch cursor {
		case "":
			result(id, map[string]any{"tools": basic[:1], "nextCursor": "page-2"})
		case "page-2":
			result(id, map[string]any{"tools": basic[1:2], "nextCursor": "page-3"})
		default:
			result(id, map[string]any{"tools": basic[2:]})
		}
	case "nest":
		depth, _ := strconv.Atoi(os.Getenv("DEPTH"))
		out.WriteString(nestedList(id, depth, os.Getenv("NEST") == "object") + "\n")
		out.Flush()
	case "deep":
		schema := any(map[string]any{"type": "string"})
		for range 1200 {
			schema = map[string]any{"type": "array", "items": schema}
		}
		result(id, map[string]any{"tools": []any{map[string]any{"name": "deep", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"x": schema}}}}})
	case "notify-flood":
		n, err := strconv.Atoi(os.Getenv("NOTIFY"))
		if err != nil {
			n = 200000
		}
		for i := range n {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"log line %d"}}`+"\n", i)
		}
		result(id, map[string]any{"tools": basic})
	case "huge":
		result(id, map[string]any{"tools": []any{tool("big", strings.Repeat("lorem ipsum ", 400000))}})
	case "endless-pages", "slow-pages":
		if mode == "slow-pages" {
			time.Sleep(400 * time.Millisecond)
		}
		n, _ := strconv.Atoi(cursor)
		result(id, map[string]any{"tools": []any{tool("t"+strconv.Itoa(n), "a page")}, "nextCursor": strconv.Itoa(n + 1)})
	case "repeat-cursor":
		result(id, map[string]any{"tools": []any{tool("t"+cursor, "a page")}, "nextCursor": "again"})
	case "many-tools":
		tools := make([]any, 500)
		for i := range tools {
			tools[i] = map[string]any{"name": "t" + strconv.Itoa(i), "inputSchema": map[string]any{"type": "object"}}
		}
		result(id, map[string]any{"tools": tools})
	case "dup-names":
		result(id, map[string]any{"tools": []any{tool("alpha", "one"), tool("beta", "two"), tool("alpha", "three")}})
	case "no-name":
		result(id, map[string]any{"tools": []any{tool("alpha", "one"), map[string]any{"description": "nameless", "inputSchema": map[string]any{"type": "object"}}}})
	case "not-array":
		result(id, map[string]any{"tools": map[string]any{"alpha": tool("alpha", "one")}})
	case "invalid-utf8":
		line := []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[{"name":"alpha","description":"caf` + "\xe9\xff" + ` ok","inputSchema":{"type":"object"}}]}}`)
		out.Write(line)
		out.WriteString("\n")
		out.Flush()
	case "server-requests":
		*pending = id
		send(map[string]any{"jsonrpc": "2.0", "id": "ping", "method": "ping"})
		send(map[string]any{"jsonrpc": "2.0", "id": "roots", "method": "roots/list"})
		send(map[string]any{"jsonrpc": "2.0", "id": "sampling", "method": "sampling/createMessage", "params": map[string]any{"messages": []any{}, "maxTokens": 1}})
		send(map[string]any{"jsonrpc": "2.0", "id": "elicitation", "method": "elicitation/create", "params": map[string]any{"message": "hi", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}})
		send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
	case "rpc-error":
		rpcError(id, -32603, "internal error")
	case "exit-mid-list":
		if cursor == "" {
			result(id, map[string]any{"tools": basic[:1], "nextCursor": "next"})
			return
		}
		fmt.Fprintln(os.Stderr, "panic: lost the second page")
		os.Exit(3)
	case "dynamic":
		result(id, map[string]any{"tools": []any{tool("alpha", "launch "+strconv.Itoa(generation))}})
	case "dynamic-call":
		listCalls++
		result(id, map[string]any{"tools": []any{tool("alpha", "call "+strconv.Itoa(listCalls))}})
	case "read":
		// What the files named by READ_* variables hold, or that they
		// cannot be read: the sandbox test's probe.
		var seen []string
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			if !strings.HasPrefix(k, "READ_") {
				continue
			}
			got := "unreadable"
			if b, err := os.ReadFile(v); err == nil {
				got = strings.TrimSpace(string(b))
			}
			seen = append(seen, k+"="+got)
		}
		sort.Strings(seen)
		result(id, map[string]any{"tools": []any{tool("read", strings.Join(seen, ","))}})
	case "repeat":
		result(id, map[string]any{"tools": []any{tool("repeat", "Launched with "+repeated())}})
	case "env":
		var names []string
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			names = append(names, k)
		}
		sort.Strings(names)
		result(id, map[string]any{"tools": []any{tool("env", strings.Join(names, ","))}})
	default:
		result(id, map[string]any{"tools": basic})
	}
}
