package clients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type postureCase struct {
	name    string
	os      string
	env     map[string]string
	files   map[string]string
	mode    string
	refusal string
}

func postureSystem(c postureCase) System {
	sys := System{OS: "linux", Home: "/home/me", Cwd: "/home/me/proj", FS: mapFS{}}
	switch c.os {
	case "darwin":
		sys.OS, sys.Home, sys.Cwd = "darwin", "/Users/me", "/Users/me/proj"
	case "windows":
		sys.OS, sys.Home, sys.Cwd = "windows", `C:\Users\me`, `C:\Users\me\proj`
	}
	fsys := mapFS{}
	for p, data := range c.files {
		fsys[norm(p)] = []byte(data)
	}
	sys.FS = fsys
	sys.Getenv = func(k string) string { return c.env[k] }
	return sys
}

const (
	linuxManaged  = "/etc/claude-code/managed-settings.json"
	linuxUser     = "/home/me/.claude/settings.json"
	linuxProject  = "/home/me/proj/.claude/settings.json"
	linuxLocal    = "/home/me/proj/.claude/settings.local.json"
	darwinManaged = "/Library/Application Support/ClaudeCode/managed-settings.json"
	winManaged    = `C:\Program Files\ClaudeCode\managed-settings.json`
	winUser       = `C:\Users\me\.claude\settings.json`
)

func envBlock(kv ...string) string {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		var v any
		if err := json.Unmarshal([]byte(kv[i+1]), &v); err != nil {
			v = kv[i+1]
		}
		m[kv[i]] = v
	}
	b, _ := json.Marshal(map[string]any{"env": m})
	return string(b)
}

var postureCases = []postureCase{
	{name: "nothing-set", mode: ModeDeferred},
	{name: "shell-true", env: map[string]string{VarToolSearch: "true"}, mode: ModeDeferred},
	{name: "shell-false", env: map[string]string{VarToolSearch: " false "}, mode: ModeUpFront},
	{name: "shell-auto", env: map[string]string{VarToolSearch: "auto"}, mode: ModeThreshold},
	{name: "user-auto-5", files: map[string]string{linuxUser: envBlock(VarToolSearch, `"auto:5"`)}, mode: ModeThreshold},
	{name: "auto-0", env: map[string]string{VarToolSearch: "auto:0"}, mode: ModeThreshold},
	{name: "auto-100", env: map[string]string{VarToolSearch: "auto:100"}, mode: ModeThreshold},
	{name: "auto-101", env: map[string]string{VarToolSearch: "auto:101"}, mode: ModeUnrecognized, refusal: RefusalUnrecognized},
	{name: "auto-empty", env: map[string]string{VarToolSearch: "auto:"}, mode: ModeUnrecognized, refusal: RefusalUnrecognized},
	{name: "upper-true", env: map[string]string{VarToolSearch: "TRUE"}, mode: ModeUnrecognized, refusal: RefusalUnrecognized},
	{name: "one", files: map[string]string{linuxProject: envBlock(VarToolSearch, `"1"`)}, mode: ModeUnrecognized, refusal: RefusalUnrecognized},
	{name: "betas-shell", env: map[string]string{VarDisableBetas: "1", VarToolSearch: "true"}, mode: ModeUpFront},
	{name: "betas-zero-managed-darwin", os: "darwin", files: map[string]string{darwinManaged: envBlock(VarDisableBetas, `"0"`)}, mode: ModeUpFront},
	{name: "betas-number", files: map[string]string{linuxProject: envBlock(VarDisableBetas, `1`)}, mode: ModeUnresolved, refusal: RefusalValueUnreadable},
	{name: "betas-disagree", env: map[string]string{VarDisableBetas: "1"}, files: map[string]string{linuxUser: envBlock(VarDisableBetas, `"yes"`)}, mode: ModeUnresolved, refusal: RefusalDisagree},
	{name: "ets-json-false", files: map[string]string{linuxLocal: envBlock(VarToolSearch, `false`)}, mode: ModeUnresolved, refusal: RefusalValueUnreadable},
	{name: "ets-null", files: map[string]string{linuxUser: envBlock(VarToolSearch, `null`)}, mode: ModeUnresolved, refusal: RefusalValueUnreadable},
	{name: "ets-disagree", env: map[string]string{VarToolSearch: "true"}, files: map[string]string{linuxUser: envBlock(VarToolSearch, `"false"`)}, mode: ModeUnresolved, refusal: RefusalDisagree},
	{name: "ets-agree", env: map[string]string{VarToolSearch: "false"}, files: map[string]string{linuxManaged: envBlock(VarToolSearch, `"false"`)}, mode: ModeUpFront},
	{name: "files-never-conflict-windows", os: "windows", files: map[string]string{winManaged: envBlock(VarToolSearch, `"true"`), winUser: envBlock(VarToolSearch, `"false"`)}, mode: ModeDeferred},
	{name: "windows-config-dir", os: "windows", env: map[string]string{"CLAUDE_CONFIG_DIR": `D:\claude`}, files: map[string]string{`D:\claude\settings.json`: envBlock(VarToolSearch, `"false"`)}, mode: ModeUpFront},
	{name: "local-beats-user", files: map[string]string{linuxLocal: envBlock(VarToolSearch, `"auto:20"`), linuxUser: envBlock(VarToolSearch, `"false"`)}, mode: ModeThreshold},
	{name: "base-url-proxy", env: map[string]string{VarBaseURL: "https://llm-proxy.corp.example:8443/anthropic?key=secret"}, mode: ModeUpFront},
	{name: "base-url-first-party", env: map[string]string{VarBaseURL: "https://API.anthropic.com"}, mode: ModeDeferred},
	{name: "base-url-unparseable", files: map[string]string{linuxUser: envBlock(VarBaseURL, `"::not a url"`)}, mode: ModeUpFront},
	{name: "base-url-with-ets", env: map[string]string{VarBaseURL: "https://proxy.example", VarToolSearch: "true"}, mode: ModeDeferred},
	{name: "base-url-disagree", env: map[string]string{VarBaseURL: "https://a.example"}, files: map[string]string{linuxUser: envBlock(VarBaseURL, `"https://b.example"`)}, mode: ModeUnresolved, refusal: RefusalDisagree},
	{name: "base-url-conflict-unreached", env: map[string]string{VarBaseURL: "https://a.example", VarToolSearch: "false"}, files: map[string]string{linuxUser: envBlock(VarBaseURL, `"https://b.example"`)}, mode: ModeUpFront},
	{name: "base-url-number", files: map[string]string{linuxUser: envBlock(VarBaseURL, `42`)}, mode: ModeUnresolved, refusal: RefusalValueUnreadable},
	{name: "settings-comment-skipped", env: map[string]string{VarToolSearch: "true"}, files: map[string]string{linuxProject: "{\n  // a comment\n  \"env\": {\"ENABLE_TOOL_SEARCH\": \"false\"}\n}"}, mode: ModeDeferred},
	{name: "settings-trailing-comma-skipped", files: map[string]string{linuxUser: "{\"env\": {\"CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS\": \"1\",},}"}, mode: ModeDeferred},
	{name: "unreadable-settings-permission", files: map[string]string{linuxManaged: "!unreadable\n"}, mode: ModeUnresolved, refusal: RefusalSourceUnreadable},
	{name: "settings-array", files: map[string]string{linuxUser: "[]"}, mode: ModeUnresolved, refusal: RefusalSourceUnreadable},
	{name: "env-not-object", env: map[string]string{VarToolSearch: "false"}, files: map[string]string{linuxUser: `{"env": ["x"]}`}, mode: ModeUpFront},
	{name: "empty-string-is-unset", env: map[string]string{VarToolSearch: "true"}, files: map[string]string{linuxUser: envBlock(VarToolSearch, `"  "`)}, mode: ModeDeferred},
	{name: "managed-drop-in", files: map[string]string{"/etc/claude-code/managed-settings.d/10-search.json": envBlock(VarToolSearch, `"false"`)}, mode: ModeUpFront},
}

// TestClaudeCodePosture covers every row of the decision table and each
// refusal; the wording is checked by golden files.
func TestClaudeCodePosture(t *testing.T) {
	for _, c := range postureCases {
		t.Run(c.name, func(t *testing.T) {
			p := ClaudeCodePosture(postureSystem(c))
			if p.Mode != c.mode || p.Refusal != c.refusal {
				t.Fatalf("mode %q refusal %q, want %q %q", p.Mode, p.Refusal, c.mode, c.refusal)
			}
			var check *ThresholdCheck
			if p.Mode == ModeThreshold {
				check = p.CheckThreshold(200000, []StackPart{{Wire: 12000}}, false)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			p.Limits = nil // covered by TestLimits
			if err := enc.Encode(p); err != nil {
				t.Fatal(err)
			}
			buf.WriteString("---\n")
			for _, l := range p.Explain(check) {
				buf.WriteString(l + "\n")
			}
			for _, secret := range []string{"secret", "llm-proxy.corp.example:8443/anthropic"} {
				if strings.Contains(buf.String(), secret) {
					t.Errorf("output holds %q", secret)
				}
			}
			golden(t, "testdata/posture/"+c.name+".golden", buf.Bytes())
		})
	}
}

func TestPostureOtherClients(t *testing.T) {
	sys := postureSystem(postureCase{})
	var buf bytes.Buffer
	for _, client := range append(Clients(), Explicit) {
		if client == ClaudeCode {
			continue
		}
		p := PostureFor(sys, client)
		want := ModeNoRecord
		if client == Explicit {
			want = ModeUnknownClient
		}
		if p.Mode != want {
			t.Errorf("%s: mode %q, want %q", client, p.Mode, want)
		}
		fmt.Fprintf(&buf, "== %s %s\n", client, p.Mode)
		for _, l := range p.Explain(nil) {
			buf.WriteString(l + "\n")
		}
	}
	if !strings.Contains(buf.String(), "an absence of a record about the client, not a measurement of it") {
		t.Error("the no-record wording is missing")
	}
	golden(t, "testdata/posture/other-clients.golden", buf.Bytes())
}

func TestLimits(t *testing.T) {
	l := Limits(VSCode)
	if len(l) == 0 || l[0].Value != 128 || !l[0].Verified {
		t.Fatalf("VS Code limits = %+v, want the 128-tool cap first", l)
	}
	for _, l := range knownLimits {
		if l.Source == "" || l.Text == "" || !Known(l.Client) {
			t.Errorf("limit %+v lacks a source, a text or a known client", l)
		}
	}
}

// TestCheckThreshold runs the worked examples of the range comparison.
func TestCheckThreshold(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		percent, window int
		parts           []StackPart
		floor           bool
		t, low, high    int
		crosses         *bool
	}{
		{10, 200000, []StackPart{{Wire: 12000}}, false, 20000, 2400, 23040, nil},
		{10, 200000, []StackPart{{Wire: 25000}}, false, 20000, 5000, 48000, nil},
		{10, 200000, []StackPart{{Wire: 10000}}, false, 20000, 2000, 19200, &no},
		{10, 200000, []StackPart{{Wire: 10000}}, true, 20000, 2000, 19200, nil},
		{10, 200000, []StackPart{{Wire: 200000}}, false, 20000, 40000, 384000, &yes},
		{10, 200000, []StackPart{{Wire: 12000, Claude: 21000, HasClaude: true}}, false, 20000, 21000, 21000, &yes},
		{5, 200000, []StackPart{{Wire: 1000}}, false, 10000, 200, 1920, &no},
		{100, 200000, []StackPart{{Wire: 1000}}, false, 200000, 200, 1920, &no},
		{0, 200000, nil, false, 0, 0, 0, &yes},
		{10, 1000000, []StackPart{{Wire: 200000}}, false, 100000, 40000, 384000, nil},
	}
	for i, c := range cases {
		p := Posture{Mode: ModeThreshold, ThresholdPercent: c.percent}
		got := p.CheckThreshold(c.window, c.parts, c.floor)
		if got.ThresholdTokens != c.t || got.Low != c.low || got.High != c.high {
			t.Errorf("%d: threshold %d range %d–%d, want %d %d–%d", i, got.ThresholdTokens, got.Low, got.High, c.t, c.low, c.high)
		}
		if (got.Crosses == nil) != (c.crosses == nil) || (got.Crosses != nil && *got.Crosses != *c.crosses) {
			t.Errorf("%d: crosses %v, want %v", i, ptr(got.Crosses), ptr(c.crosses))
		}
	}
	if (Posture{Mode: ModeDeferred}).CheckThreshold(200000, nil, false) != nil {
		t.Error("a check outside threshold mode")
	}
	// The wording of each side.
	var buf bytes.Buffer
	for i, c := range cases {
		p := Posture{Client: ClaudeCode, Mode: ModeThreshold, ThresholdPercent: c.percent, Exceptions: claudeCodeExceptions,
			Setting: &Setting{Variable: VarToolSearch, Value: strPtr("auto"), Source: ShellSource, ReadFromMachine: true}}
		fmt.Fprintf(&buf, "== %d\n", i)
		for _, l := range p.CheckThreshold(c.window, c.parts, c.floor).explain(p.Exceptions) {
			buf.WriteString(l + "\n")
		}
	}
	golden(t, "testdata/posture/threshold-checks.golden", buf.Bytes())
}

func ptr(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}

func strPtr(s string) *string { return &s }

func TestSessionLines(t *testing.T) {
	if SessionLines([]string{"a"}) != nil {
		t.Error("one file is not a shared session")
	}
	got := strings.Join(SessionLines([]string{"/h/.claude.json", "/p/.mcp.json"}), "\n")
	want := "These 2 config files are read into one Claude Code session:\n  /h/.claude.json\n  /p/.mcp.json\nso they face the question below together, as their sum."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLoadsUpFront(t *testing.T) {
	yes, no := true, false
	cc := func(mode string) Posture { return Posture{Client: ClaudeCode, Mode: mode} }
	cases := []struct {
		p              Posture
		check          *ThresholdCheck
		alwaysLoad     bool
		upFront, known bool
	}{
		{cc(ModeDeferred), nil, false, false, true},
		{cc(ModeDeferred), nil, true, true, true},
		{cc(ModeUpFront), nil, false, true, true},
		{cc(ModeThreshold), &ThresholdCheck{Crosses: &yes}, false, false, true},
		{cc(ModeThreshold), &ThresholdCheck{Crosses: &no}, false, true, true},
		{cc(ModeThreshold), &ThresholdCheck{}, false, false, false},
		{cc(ModeThreshold), &ThresholdCheck{}, true, true, true},
		{cc(ModeUnresolved), nil, false, false, false},
		{cc(ModeUnrecognized), nil, false, false, false},
		{Posture{Client: Cursor, Mode: ModeNoRecord}, nil, false, true, true},
		{Posture{Client: Explicit, Mode: ModeUnknownClient}, nil, false, true, true},
	}
	for i, c := range cases {
		up, known := c.p.LoadsUpFront(c.check, c.alwaysLoad)
		if up != c.upFront || known != c.known {
			t.Errorf("%d: %s: upFront %v known %v, want %v %v", i, c.p.Mode, up, known, c.upFront, c.known)
		}
	}
}
