package redact

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

var tokenChars = regexp.MustCompile(`^[A-Za-z0-9]{4,}$`)

// FuzzScrub plants a secret in text: the scrubbed text never holds it,
// whatever surrounds it; planted as API_KEY=SECRET, Text alone removes
// it.
func FuzzScrub(f *testing.F) {
	stderr := strings.Repeat("2026-12-01T08:00:00Z info listening on stdio; args --port 8080 --db /tmp/x.db\n", 100)
	f.Add("canary-5e6f7a8b9c0d", "starting with --token=", " and "+stderr)
	f.Add("hunter2!", stderr+"postgresql://app:", "@db:5432/shop\n"+stderr)
	f.Add("tok-1234", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"bad key `, `"}}`)
	f.Add("ab***", "aab*****", "***")
	f.Add("a b c d", "x=", strings.Repeat("a b c ", 1_000))
	f.Add("sk-ant-api03-0123456789", "Authorization: Bearer ", strings.Repeat("é\u2028\x1b[2J", 500))
	f.Add("    ", "", "")
	f.Add("****", "*****", "**")
	f.Fuzz(func(t *testing.T, secret, before, after string) {
		text := before + secret + after
		got := New(secret).String(text)
		if len(secret) >= MinSecret && strings.TrimSpace(secret) != "" && strings.Trim(secret, "*") != "" && strings.Contains(got, secret) {
			t.Fatalf("the secret %q is left in %q", secret, got)
		}
		if tokenChars.MatchString(secret) {
			planted := "API_KEY=" + secret
			if got := Text(before + " " + planted + "\n" + after); strings.Contains(got, planted) {
				t.Fatalf("Text left %q in %q", planted, got)
			}
		}
		_ = Args(strings.Fields(text))
	})
}

// FuzzArgs: a secret given as --token=X, --api-key X or ?apiKey=X is
// hidden whatever it holds.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{"abc", "ghp_x", "a b", "https://x", "=", "***", strings.Repeat("k3y-", 10_000)} {
		f.Add(seed)
	}
	for _, s := range canontest.SeedLines() {
		f.Add(string(s))
	}
	f.Fuzz(func(t *testing.T, secret string) {
		if secret == "" || strings.ContainsAny(secret, " \t\n&#=?%+;") {
			return
		}
		got := Args([]string{"srv", "--token=" + secret, "--api-key", secret})
		if got[1] != "--token="+Marker || (!strings.HasPrefix(secret, "-") && got[3] != Marker) {
			t.Fatalf("secret %q kept: %q", secret, got)
		}
		u := URL("https://x.example/mcp?apiKey=" + secret)
		if u != "https://x.example/mcp?apiKey="+Marker {
			t.Fatalf("secret %q kept in %q", secret, u)
		}
		d := URL("postgresql://app:" + secret + "@db.example/shop")
		if strings.Contains(secret, "@") || strings.Contains(secret, "/") {
			return // the user info ends at the first / and the last @
		}
		if d != "postgresql://app:"+Marker+"@db.example/shop" {
			t.Fatalf("password %q kept in %q", secret, d)
		}
	})
}

// FuzzShellArgs: a secret given as --token=X inside a shell's command
// string is hidden, whatever words stand around it outside quotes, and
// every command string is redacted without failing.
func FuzzShellArgs(f *testing.F) {
	f.Add("my-server", "abc123", "--api-key sk-live-XYZ")
	f.Add("cd /srv && exec", "hunter2", "2>&1 | tee log; x")
	f.Add("'open", "k3y", `"`)
	f.Add("$env:X = 'a''b';", "tok-1", "`\"")
	f.Add("read T <<< $'", "k3y", "\\x41'; T=$(echo \"$(printf x`)\")")
	f.Add("[Environment]::SetEnvironmentVariable('A', (", "tok-1", "),'User'); setx A")
	f.Add(`"set "A=`, "k3y", `" && env -S 'x -S "y'`)
	f.Fuzz(func(t *testing.T, before, secret, after string) {
		for _, shell := range [][]string{{"sh", "-c"}, {"cmd", "/c"}, {"cmd", "/s", "/c"}, {"pwsh", "-c"}, {"env", "-S"}} {
			_ = Args(append(shell, before+secret+after))
		}
		// Over several arguments, as PowerShell and cmd join them.
		for _, shell := range [][]string{{"cmd", "/c"}, {"pwsh", "-c"}, {"env"}} {
			argv := append(shell, strings.Split(before+secret+after, " ")...)
			if got := Args(argv); len(got) != len(argv) {
				t.Fatalf("Args(%q) = %q: %d arguments, want %d", argv, got, len(got), len(argv))
			}
		}
		if !tokenChars.MatchString(secret) || strings.ContainsAny(before+after, `'"\`) || strings.Contains(before+after, secret) {
			return
		}
		got := Args([]string{"sh", "-c", before + " --token=" + secret + " " + after})
		if strings.Contains(got[2], secret) {
			t.Fatalf("secret %q kept: %q", secret, got[2])
		}
		got = Args([]string{"env", "-S", before + " --token=" + secret + " " + after})
		if strings.Contains(got[2], secret) {
			t.Fatalf("secret %q kept: %q", secret, got[2])
		}
	})
}
