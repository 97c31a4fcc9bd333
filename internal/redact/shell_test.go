package redact

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// canaries are the secrets planted where CANARY stands in the cases
// below: one shaped as a token, which its look alone gives away, and one
// that is not.
var canaries = []string{"sk-live-CANARY123456789", "hunter2-canary-pw"}

// shown returns what mcpcost shows of argv, launched with nothing else,
// that holds a canary: its launch line (Display, which clients and audit
// print), the command line of Args (measure's hint), and the line of a
// server that repeats each value the command line gives it on its
// stderr, as the launch's Scrubber leaves it.
func shown(argv []string, values ...string) []string {
	l := Launch{Command: argv[0], Args: argv[1:]}
	said := "srv: starting\n"
	for _, v := range values {
		said += "srv: got " + v + " (" + v + ")\n"
	}
	var out []string
	for what, text := range map[string]string{
		"Display": l.Display(),
		"Args":    strings.Join(Args(argv), " "),
		"stderr":  l.Scrubber().String(said),
	} {
		if strings.Contains(strings.ToLower(text), "canary") {
			out = append(out, what+": "+text)
		}
	}
	return out
}

// expectHidden checks that no canary planted in argv (for CANARY, each
// canary in turn) is shown; value is the secret the server is given, as
// it is given it (CANARY when empty), which it repeats on its stderr.
func expectHidden(t *testing.T, argv []string, value string) {
	t.Helper()
	if value == "" {
		value = "CANARY"
	}
	for _, c := range canaries {
		in := make([]string, len(argv))
		for i, a := range argv {
			in[i] = strings.ReplaceAll(a, "CANARY", c)
		}
		for _, s := range shown(in, strings.ReplaceAll(value, "CANARY", c)) {
			t.Errorf("%q shows a canary in %s", in, s)
		}
	}
}

// expectKept checks that argv, which holds no secret, is shown as written
// and that nothing of it is scrubbed from the server's stderr.
func expectKept(t *testing.T, argv []string) {
	t.Helper()
	if got := Args(argv); strings.Join(got, "\x00") != strings.Join(argv, "\x00") {
		t.Errorf("Args(%q)\n got %q, want it as written", argv, got)
	}
	if got := ArgSecrets(argv); len(got) > 0 {
		t.Errorf("ArgSecrets(%q) = %q, want none", argv, got)
	}
	want := make([]string, len(argv))
	for i, a := range argv {
		want[i] = a
		if strings.ContainsAny(a, " \t\n\"'") {
			want[i] = strconv.Quote(a)
		}
	}
	if got := (Launch{Command: argv[0], Args: argv[1:]}).Display(); got != strings.Join(want, " ") {
		t.Errorf("Display of %q\n got %s\nwant %s", argv, got, strings.Join(want, " "))
	}
}

type shellCase struct {
	name  string
	argv  []string
	value string // what the server is given, when it is not CANARY
}

func runShellCases(t *testing.T, hidden []shellCase, kept [][]string) {
	t.Helper()
	for _, c := range hidden {
		t.Run(c.name, func(t *testing.T) { expectHidden(t, c.argv, c.value) })
	}
	for _, argv := range kept {
		t.Run("kept "+strings.Join(argv, " "), func(t *testing.T) { expectKept(t, argv) })
	}
}

// TestShellPowerShellSplit: PowerShell joins the arguments after -Command
// with spaces into one script, which is read as one; the argument after
// -EncodedCommand is a script no one can read without decoding it, and is
// hidden whole.
func TestShellPowerShellSplit(t *testing.T) {
	hidden := []shellCase{
		{"env over args", []string{"powershell", "-Command", "$env:API_KEY", "=", "'CANARY';", "node", "server.js"}, ""},
		{"env and ; apart", []string{"powershell", "-Command", "$env:API_KEY", "=", "'CANARY'", ";", "node", "server.js"}, ""},
		{"pwsh -c", []string{"pwsh", "-c", "$env:API_KEY='CANARY';", "node", "server.js"}, ""},
		{"double quotes", []string{"pwsh", "-NoProfile", "-c", "$env:API_KEY", "=", `"CANARY";`, "node", "srv.js"}, ""},
		{"quoted flag value", []string{"pwsh", "-NoProfile", "-c", "node", "server.js", "--password", "'CANARY'"}, ""},
		{"quote over args", []string{"powershell", "-Command", "$env:DB_PASS", "=", "'CANARY", "x';", "node"}, "CANARY x"},
		{"call operator", []string{"powershell.exe", "-NoProfile", "-Command", "&", `'C:\srv\srv.exe'`, "--token", "CANARY"}, ""},
	}
	kept := [][]string{
		{"powershell", "-Command", "Start-Process", "node"},
		{"pwsh", "-NoProfile", "-c", "node", "server.js", "--port", "8080"},
		{"powershell", "-ExecutionPolicy", "Bypass", "-File", `C:\srv\run.ps1`, "-Port", "8080"},
	}
	runShellCases(t, hidden, kept)

	// An encoded command is hidden whole, and not decoded, whether it
	// looks like a credential or not (short, or holding / as base64 may).
	var encs []string
	for _, c := range canaries {
		script := "$env:API_KEY='" + c + "'; node server.js"
		var b []byte
		for _, u := range utf16.Encode([]rune(script)) {
			b = append(b, byte(u), byte(u>>8))
		}
		encs = append(encs, base64.StdEncoding.EncodeToString(b))
	}
	encs = append(encs, "cwByAHYA", "JABlAG4AdgA6AEEAUABJ/F8ASwBFAFkAPQAn+A==")
	for _, enc := range encs {
		for _, flag := range []string{"-EncodedCommand", "-enc", "-e", "-ec", "-EncodedArguments"} {
			argv := []string{"powershell", "-NoProfile", flag, enc}
			l := Launch{Command: argv[0], Args: argv[1:]}
			for what, text := range map[string]string{"Display": l.Display(), "Args": strings.Join(Args(argv), " "), "stderr": l.Scrubber().String("bad " + enc)} {
				if strings.Contains(text, enc[:8]) || strings.Contains(strings.ToLower(text), "canary") {
					t.Errorf("%s %s shows the encoded command in %s: %q", argv[0], flag, what, text)
				}
			}
			if got, want := l.Display(), "powershell -NoProfile "+flag+" ***"; got != want {
				t.Errorf("Display = %q, want %q", got, want)
			}
		}
	}
}

// TestShellCmdQuotes: cmd reads the rest of its command line after /c,
// the arguments joined as the launcher writes them, and strips the quote
// that starts it and the last one (always with /s).
func TestShellCmdQuotes(t *testing.T) {
	hidden := []shellCase{
		{"/s quoted exe", []string{"cmd", "/s", "/c", `"C:\tools\srv.exe" --token CANARY`}, ""},
		{"/s outer quotes", []string{"cmd", "/s", "/c", `""C:\tools\srv.exe" --token CANARY"`}, ""},
		{"/s escaped quotes", []string{"cmd", "/s", "/c", `"\"C:\tools\srv.exe\" --token CANARY"`}, ""},
		{"set quoted", []string{"cmd", "/c", `"set API_KEY=CANARY && node srv.js"`}, ""},
		{"set", []string{"cmd", "/c", "set API_KEY=CANARY && node srv.js"}, ""},
		{"set over args", []string{"cmd", "/c", "set", "API_KEY=CANARY", "&&", "node", "srv.js"}, ""},
		{"set lower case over args", []string{"cmd", "/c", "set", "api_key=CANARY&&", "node", "srv.js"}, ""},
		{"set quoted pair", []string{"cmd", "/s", "/c", `"set "API_KEY=CANARY" && node srv.js"`}, ""},
		{"quoted flag value", []string{"cmd", "/c", "srv.exe", "--password", `"CANARY"`}, ""},
		{"value with a space", []string{"cmd", "/c", "srv.exe", "--token", "a CANARY"}, "a CANARY"},
	}
	kept := [][]string{
		{"cmd", "/c", "npx", "-y", "@modelcontextprotocol/server-filesystem", `C:\data`},
		{"cmd", "/s", "/c", `"C:\Program Files\nodejs\npx.cmd" -y @modelcontextprotocol/server-filesystem C:\data`},
		{"cmd", "/c", `"C:\Program Files\srv\srv.exe"`, "--port", "8080"},
		{"cmd", "/d", "/s", "/c", `"npx -y mcp-remote https://mcp.example.com/sse"`},
	}
	runShellCases(t, hidden, kept)
}

// TestShellHereString: a here-string read into a variable (read VAR <<<
// WORD), or given to a command that takes a secret on its input, is the
// secret; export and declare -x assign as NAME=VALUE does.
func TestShellHereString(t *testing.T) {
	hidden := []shellCase{
		{"read", []string{"bash", "-c", "read TOKEN <<< CANARY; export TOKEN; node srv.js"}, ""},
		{"read -r quoted", []string{"bash", "-c", `read -r TOKEN <<< "CANARY" && node srv.js`}, ""},
		{"read lower case", []string{"bash", "-c", "read -r api_key <<<'CANARY'; node srv.js"}, ""},
		{"password-stdin", []string{"bash", "-c", "docker login -u me --password-stdin <<< CANARY && node srv.js"}, ""},
		{"export", []string{"sh", "-c", "export TOKEN=CANARY; node srv.js"}, ""},
		{"declare -x", []string{"bash", "-c", "declare -x TOKEN=CANARY; node srv.js"}, ""},
		{"declare -x quoted", []string{"bash", "-c", `declare -x TOKEN="CANARY" && node srv.js`}, ""},
	}
	kept := [][]string{
		{"sh", "-c", "node server.js --port 8080"},
		{"bash", "-c", "srv <<< hello"},
		{"bash", "-c", "read -r LINE < /etc/hostname; node srv.js"},
	}
	runShellCases(t, hidden, kept)
}

// TestShellSetEnvironmentVariable: [Environment]::SetEnvironmentVariable
// in PowerShell, Set-Item env:, and setx, directly or in cmd, set a
// variable: the value is hidden, the name and target kept.
func TestShellSetEnvironmentVariable(t *testing.T) {
	hidden := []shellCase{
		{"SetEnvironmentVariable", []string{"powershell", "-Command", "[Environment]::SetEnvironmentVariable('API_KEY', 'CANARY'); node srv.js"}, ""},
		{"System.Environment", []string{"pwsh", "-c", `[System.Environment]::SetEnvironmentVariable("API_KEY","CANARY","Process"); node srv.js`}, ""},
		{"over args", []string{"pwsh", "-c", "[Environment]::SetEnvironmentVariable('API_KEY',", "'CANARY')", ";", "node"}, ""},
		{"Set-Item", []string{"pwsh", "-c", "Set-Item -Path Env:API_KEY -Value 'CANARY'; node srv.js"}, ""},
		{"Set-Item positional", []string{"pwsh", "-c", "Set-Item env:API_KEY CANARY; node srv.js"}, ""},
		{"setx", []string{"setx", "API_KEY", "CANARY"}, ""},
		{"setx.exe /M", []string{`C:\Windows\System32\setx.exe`, "API_KEY", "CANARY", "/M"}, ""},
		{"cmd setx", []string{"cmd", "/c", "setx API_KEY CANARY && node srv.js"}, ""},
		{"cmd setx over args", []string{"cmd", "/c", "setx", "API_KEY", "CANARY"}, ""},
		{"setx /p", []string{"cmd", "/c", "setx /s host /u me /p CANARY MODE fast"}, ""},
		{"pwsh setx", []string{"pwsh", "-c", "setx API_KEY 'CANARY'; node srv.js"}, ""},
	}
	kept := [][]string{
		{"pwsh", "-c", "[Environment]::GetEnvironmentVariable('API_KEY'); node srv.js"},
		{"pwsh", "-c", "Set-Item -Path .\\config.json -Value x; node srv.js"},
	}
	runShellCases(t, hidden, kept)
	got := Args([]string{"pwsh", "-c", `[System.Environment]::SetEnvironmentVariable("API_KEY","hunter2-x","Process"); node srv.js`})
	if want := `[System.Environment]::SetEnvironmentVariable("API_KEY","***","Process"); node srv.js`; got[2] != want {
		t.Errorf("SetEnvironmentVariable shows %q, want %q", got[2], want)
	}
	if got, want := Args([]string{"setx", "API_KEY", "hunter2-x", "/M"}), []string{"setx", "API_KEY", "***", "/M"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("setx shows %q, want %q", got, want)
	}
}

// TestEnvSplitString: env -S STRING (--split-string) splits STRING into
// words as a command line, which follow the launch rule as the words of
// env's command line would; env's assignments hide their values, in any
// case.
func TestEnvSplitString(t *testing.T) {
	hidden := []shellCase{
		{"-S assignment", []string{"env", "-S", "API_KEY=CANARY node srv.js"}, ""},
		{"-S flag", []string{"env", "-S", "node srv.js --token CANARY"}, ""},
		{"--split-string=", []string{"env", "--split-string=node srv.js --password 'CANARY'"}, ""},
		{"--split-string", []string{"/usr/bin/env", "--split-string", "node srv.js --password \"CANARY\""}, ""},
		{"-S lower case", []string{"/usr/bin/env", "-S", "api_key=CANARY node srv.js"}, ""},
		{"-S shell", []string{"env", "-S", "bash -c 'TOKEN=CANARY node srv.js'"}, ""},
		{"-S attached", []string{"env", "-Snode srv.js --token CANARY"}, ""},
		{"-vS", []string{"env", "-vS", "node srv.js --token=CANARY"}, ""},
		{"-S then args", []string{"env", "-S", "node srv.js --token", "CANARY"}, ""},
		{"lower case", []string{"env", "api_key=CANARY", "node", "srv.js"}, ""},
		{"-u", []string{"env", "-u", "HOME", "db_pass=CANARY", "node"}, ""},
	}
	kept := [][]string{
		{"env", "-S", "node srv.js --port 8080"},
		{"env", "-u", "HOME", "node", "srv.js", "a=b"},
		{"/usr/bin/env", "node", "server.js"},
	}
	runShellCases(t, hidden, kept)
}

// TestShellANSIC: bash's ANSI-C quoting $'...' is read with its escapes:
// the value hidden is the one the server is given.
func TestShellANSIC(t *testing.T) {
	hidden := []shellCase{
		{"assignment", []string{"bash", "-c", `TOKEN=$'CANARY\n' node srv.js`}, "CANARY\n"},
		{"flag", []string{"bash", "-c", `node srv.js --token $'CANARY'`}, ""},
		{"escaped quote", []string{"bash", "-c", `TOKEN=$'it\'s CANARY' node srv.js`}, "it's CANARY"},
		{"token shape", []string{"bash", "-c", `node srv.js $'sk-live-Canary123456789'`}, "sk-live-Canary123456789"},
		{"hex", []string{"bash", "-c", `node srv.js --token $'\x68unter2-canary-pw'`}, "hunter2-canary-pw"},
	}
	kept := [][]string{
		{"bash", "-c", `printf $'a\tb\n' | node srv.js`},
		{"bash", "-c", `node srv.js "$'not ansi'"`},
	}
	runShellCases(t, hidden, kept)
	// The escapes are read as bash reads them.
	got := ArgSecrets([]string{"bash", "-c", `srv --token $'a\tb\x41\101\u00e9\cA\q\'' --port 80`})
	if want := "a\tbAA\u00e9\x01\\q'"; len(got) != 1 || got[0] != want {
		t.Errorf("ArgSecrets = %q, want [%q]", got, want)
	}
}

// TestShellSubstitution: a variable assigned what a command substitution
// prints (TOKEN=$(echo X)) is given what echo and printf print there, which
// is hidden; a substitution that reads the value from elsewhere ($(cat
// FILE)) holds none and is shown.
func TestShellSubstitution(t *testing.T) {
	hidden := []shellCase{
		{"$(echo)", []string{"sh", "-c", "TOKEN=$(echo CANARY) node srv.js"}, ""},
		{"quoted $(printf)", []string{"sh", "-c", `TOKEN="$(printf CANARY)" node srv.js`}, ""},
		{"backquotes", []string{"sh", "-c", "TOKEN=`echo CANARY` node srv.js"}, ""},
		{"export", []string{"bash", "-c", "export API_KEY=$(printf '%s' 'CANARY'); node srv.js"}, ""},
		{"quoted with text", []string{"sh", "-c", `TOKEN="x-$(echo CANARY)" node srv.js`}, ""},
	}
	kept := [][]string{
		{"sh", "-c", "TOKEN=$(cat ~/.secret) node srv.js"},
		{"sh", "-c", "TOKEN=`cat /run/t` node srv.js"},
		{"sh", "-c", `TOKEN="$(cat ~/.secret)" node srv.js`},
		{"sh", "-c", "echo starting && node srv.js"},
	}
	runShellCases(t, hidden, kept)
}

// TestShellLong: long command strings of each form, the deepest nesting
// of command strings in one another among them, are redacted in time
// linear in their length: 100,000 bytes well under a second (a tenth of
// that on an idle machine), where reading each string again inside the
// one holding it would take minutes.
func TestShellLong(t *testing.T) {
	const n = 100_000
	inputs := map[string][]string{
		"pwsh words":      append([]string{"pwsh", "-c"}, strings.Fields(strings.Repeat("pwsh -c ", n/8))...),
		"pwsh string":     {"pwsh", "-c", strings.Repeat("pwsh -c ", n/8)},
		"cmd words":       append([]string{"cmd", "/c"}, strings.Fields(strings.Repeat("cmd /c ", n/7))...),
		"cmd string":      {"cmd", "/s", "/c", `"` + strings.Repeat(`"a" `, n/4) + `"`},
		"env -S":          append([]string{"env"}, strings.Fields(strings.Repeat("-S x ", n/5))...),
		"env -S nested":   {"env", "-S", strings.Repeat("env -S ", n/7)},
		"env -S empty":    append([]string{"env"}, strings.Split(strings.Repeat("-S,,", n/4), ",")...),
		"here-strings":    {"bash", "-c", strings.Repeat("read T <<< x; ", n/14)},
		"ansi-c":          {"bash", "-c", "srv " + strings.Repeat(`$'\x41' `, n/8)},
		"substitutions":   {"sh", "-c", strings.Repeat("T=$(echo x) ", n/12)},
		"nested subst":    {"sh", "-c", "T=" + strings.Repeat("$(", n/4) + strings.Repeat(")", n/4)},
		"quoted subst":    {"sh", "-c", `T="` + strings.Repeat("$(", n/4) + strings.Repeat(")", n/4) + `"`},
		"setenv":          {"pwsh", "-c", strings.Repeat("[Environment]::SetEnvironmentVariable('A', 'x'); ", n/50)},
		"setenv open":     {"pwsh", "-c", "[Environment]::SetEnvironmentVariable(" + strings.Repeat("a,", n/2)},
		"setx":            append([]string{"setx"}, strings.Fields(strings.Repeat("/s x ", n/5))...),
		"encoded":         {"pwsh", "-enc", strings.Repeat("A", n)},
		"pwsh set-item":   {"pwsh", "-c", strings.Repeat("Set-Item env:A x; ", n/18)},
		"cmd set":         {"cmd", "/c", strings.Repeat("set A=x&& ", n/10)},
		"backquote subst": {"sh", "-c", strings.Repeat("T=`echo x` ", n/11)},
		"sudo words":      strings.Fields(strings.Repeat("sudo -u x ", n/10)),
		"docker run":      strings.Fields(strings.Repeat("docker run -e A=1 img ", n/22)),
		"npx words":       strings.Fields(strings.Repeat("npx -y ", n/7)),
		"exec in sh":      {"sh", "-c", strings.Repeat("exec sudo nohup ", n/16)},
	}
	for name, argv := range inputs {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			l := Launch{Command: argv[0], Args: argv[1:]}
			_ = l.Display()
			if d := time.Since(start); d > time.Second {
				t.Errorf("%d bytes took %v", len(strings.Join(argv, " ")), d)
			}
		})
	}
}
