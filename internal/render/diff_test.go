package render

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/clients"
	"github.com/mcpcost/mcpcost/internal/diff"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

func init() {
	// Golden files are rewritten with -update; another test file of this
	// package may define the flag first.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func loadDoc(t *testing.T, name string) *diff.Doc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "diff", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := diff.Load(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "diff", name)
	if updating() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// The pull-request comment: a failing gate (an increase over the limit, a
// server added that cannot be measured, a server measured before and not
// now), and a clean pass.
func TestDiffGolden(t *testing.T) {
	for _, tt := range []struct {
		cur, golden string
		max         int
	}{
		{"current.json", "pr-comment-fail", 200},
		{"clean-current.json", "pr-comment-pass", 500},
		{"clean-current.json", "informational", -1},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			d := diff.Compare(loadDoc(t, "base.json"), loadDoc(t, tt.cur))
			if tt.max >= 0 {
				d.Check(tt.max)
			}
			var md, text bytes.Buffer
			if err := DiffMarkdown(&md, d); err != nil {
				t.Fatal(err)
			}
			if err := DiffText(&text, d, Screen{Width: 80}); err != nil {
				t.Fatal(err)
			}
			goldenFile(t, tt.golden+".md", md.Bytes())
			goldenFile(t, tt.golden+".txt", text.Bytes())
		})
	}
}

func TestSigned(t *testing.T) {
	for n, want := range map[int]string{0: "0", 5: "+5", -5: "-5", 12345: "+12,345", -1234: "-1,234"} {
		if got := Signed(n); got != want {
			t.Errorf("Signed(%d) = %q, want %q", n, got, want)
		}
	}
	if got := SharePct(0.0123); got != "1.23%" {
		t.Errorf("SharePct = %q", got)
	}
}

// A diff too long for one comment keeps whole sections and says where the
// rest is.
func TestDiffMarkdownLong(t *testing.T) {
	var tools []string
	for i := 0; i < 400; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%03d_%s","tokens":100,"parts":[{"name":"name","tokens":5}]}`, i, strings.Repeat("x", 40)))
	}
	var configs []string
	for c := 0; c < 5; c++ {
		configs = append(configs, fmt.Sprintf(`{"client":"cursor","path":"p%d/mcp.json","totalTokens":40000,"servers":[{"name":"big","status":"measured","tokens":40000,"tools":[%s]}]}`, c, strings.Join(tools, ",")))
	}
	cur := `{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[` + strings.Join(configs, ",") + `]}`
	base := `{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[` + strings.ReplaceAll(strings.Join(configs, ","), `"servers":[{"name":"big"`, `"servers":[{"name":"small"`) + `]}`
	b, err := diff.Load("b", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	c, err := diff.Load("c", []byte(cur))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := DiffMarkdown(&out, diff.Compare(b, c)); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if len(s) > 65536 {
		t.Errorf("%d bytes, over a comment's limit", len(s))
	}
	if !strings.Contains(s, "more rows: see the text or --json output") || !strings.Contains(s, "too long for a comment") {
		t.Errorf("no note of what was left out")
	}
	if strings.Count(s, "<details>") != strings.Count(s, "</details>") {
		t.Error("a section was cut in half")
	}
}

// A config's path is a stranger's text: the summary line escapes it as
// the rest of the comment does, and a path of 70,000 bytes is cut to
// textsafe.MaxName runes wherever it is shown.
func TestDiffMarkdownHostilePath(t *testing.T) {
	for _, p := range []string{"<img src=x onerror=alert(1)>[a](https://e.invalid)*b*@team", strings.Repeat("p", 70_000)} {
		mk := func(name string, tokens int) *diff.Doc {
			doc := fmt.Sprintf(`{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[{"client":"cursor","path":%q,"totalTokens":%d,"servers":[{"name":"s","status":"measured","tokens":%d}]},{"client":"cursor","path":"q","totalTokens":1,"servers":[{"name":"s","status":"measured","tokens":1}]}]}`, p, tokens, tokens)
			d, err := diff.Load(name, []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		var out bytes.Buffer
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("a path of %d bytes: panic: %v", len(p), r)
				}
			}()
			if err := DiffMarkdown(&out, diff.Compare(mk("b", 10), mk("c", 20))); err != nil {
				t.Fatal(err)
			}
		}()
		s := out.String()
		first, _, _ := strings.Cut(s, "\n")
		if !strings.HasPrefix(first, "**mcpcost**: +10 tokens per request") {
			t.Errorf("first line %.300q", first)
		}
		for _, bad := range []string{"<img", "[a]", "*b*", "@team"} {
			if strings.Contains(s, bad) {
				t.Errorf("%q reached the comment unescaped", bad)
			}
		}
		if len(p) > textsafe.MaxName {
			if strings.Contains(s, strings.Repeat("p", textsafe.MaxName+1)) || !strings.Contains(first, "… (70000 bytes)") {
				t.Errorf("the path is not cut to %d runes with its mark: first line %.300q…, %d bytes in all", textsafe.MaxName, first, len(s))
			}
		}
	}
}

// The verdict and the gate name what was compared: a session, a file a
// client reads (the client's name, or, for a file given with --config
// whose client is not known, not the machine value "explicit"), or a
// server.
func TestDiffWords(t *testing.T) {
	n := func(v int) *int { return &v }
	f := func(v float64) *float64 { return &v }
	cfg := func(path, client string, before, after int) diff.ConfigDiff {
		return diff.ConfigDiff{Path: path, Client: client, Change: diff.Changed, Bound: "exact", Servers: []diff.ServerDiff{},
			Before: n(before), After: n(after), Delta: n(after - before), BeforeShare: f(float64(before) / 200000), AfterShare: f(float64(after) / 200000), ShareDelta: f(0)}
	}
	for _, tt := range []struct {
		name      string
		of        string
		c         diff.ConfigDiff
		want, not []string
	}{
		{name: "explicit file", of: "configs", c: cfg("npm.mcp.json", clients.Explicit, 6909, 4531),
			want: []string{"removes 2,378 tokens from every request in a client that loads this file:", "every config got lighter"},
			not:  []string{"in explicit"}},
		{name: "a client's file", of: "configs", c: cfg(".mcp.json", "claude-code", 100, 400),
			want: []string{"adds 300 tokens to every request in claude-code:"}},
		{name: "session", of: "sessions", c: cfg("/p", "claude-code", 951, 951),
			want: []string{"No change: this session costs the same 951 tokens", "increase gate: pass: no session got heavier"},
			not:  []string{"config"}},
		{name: "server", of: "configs", c: cfg("", "", 2823, 2823),
			want: []string{"No change: this server costs the same 2,823 tokens", "increase gate: pass: no server got heavier"},
			not:  []string{"config"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &diff.Diff{Base: &diff.Doc{}, Current: &diff.Doc{}, Comparable: true, ContextWindow: 200000, Of: tt.of,
				ConfigDiffs: []diff.ConfigDiff{tt.c}, Increase: tt.c.Delta}
			d.Check(1000)
			var b bytes.Buffer
			if err := DiffText(&b, d, Screen{}); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in:\n%s", w, got)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("%q in:\n%s", w, got)
				}
			}
		})
	}
}
