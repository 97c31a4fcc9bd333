package measure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/canon/canontest"
	"github.com/mcpcost/mcpcost/internal/claude"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/token"
)

// direct is o200k_base without its index: every count is counted.
type direct struct{ token.BytesCounter }

// measureJSON returns what "mcpcost measure FILE --json --out F" writes
// for tools, the report and measurement.json, counted with c.
func measureJSON(t *testing.T, tools []*canon.Value, c token.Counter) (report, file []byte) {
	t.Helper()
	r := Tools(tools, c)
	src := &Source{Kind: KindToolsResult, File: "tools.json", Pages: 1}
	rep := NewReport("server", "measured", src, r)
	d := claude.Describe(claude.Input{Server: "my.server", Tools: tools, HeadlineTokens: rep.TotalTokens,
		CaptureSHA256: rep.CanonicalSha256, Spans: r.Spans})
	rep.Claude = &d
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	// The request's bytes are not in the report's JSON: compare them too.
	fmt.Fprintf(&b, "%s\n", d.Request.JSON)
	f := NewFile(r, "measured", "server", "mcpcost test", time.Unix(0, 0))
	fb, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// rawToolsCapture is indented apart: as encoding/json indents it.
	if std, err := f.marshalStd(); err != nil || !bytes.Equal(fb, std) {
		t.Fatalf("measurement.json differs from encoding/json's (%v):\n%s", err, firstDiff(fb, std))
	}
	return b.Bytes(), fb
}

// checkDerived measures tools with derived counts and with direct ones,
// and wants the same bytes.
func checkDerived(t *testing.T, name string, tools []*canon.Value) {
	t.Helper()
	gotRep, gotFile := measureJSON(t, tools, nil)
	wantRep, wantFile := measureJSON(t, tools, direct{token.O200k().(token.BytesCounter)})
	if !bytes.Equal(gotRep, wantRep) {
		t.Errorf("%s: the report with derived counts differs from direct counting:\n%s", name, firstDiff(gotRep, wantRep))
	}
	if !bytes.Equal(gotFile, wantFile) {
		t.Errorf("%s: measurement.json with derived counts differs from direct counting:\n%s", name, firstDiff(gotFile, wantFile))
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n derived %.300s\n direct  %.300s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}

// TestDerivedCorpus: every capture of the shared corpus and of testdata
// gives the same report and measurement.json with derived and direct
// counts.
func TestDerivedCorpus(t *testing.T) {
	dirs := corpusDirs(t, false)
	if s := os.Getenv("MCPCOST_SHARED"); s != "" || dirExists(filepath.Join(testpeers.Root(t), "..", "shared", "corpus")) {
		dirs = append(dirs, corpusDirs(t, true)...)
	}
	for _, dir := range dirs {
		wire, err := os.ReadFile(filepath.Join(dir, "wire.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseInput("wire.jsonl", wire)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		checkDerived(t, dir, c.Tools)
	}
	if len(dirs) < 57 {
		t.Logf("%d captures (the shared corpus is not here)", len(dirs))
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// TestDerivedGenerated: the generated boundary documents, as tools arrays,
// and tools made to take every other path: escaped and long (cut)
// descriptions, keys with a lone surrogate, several "other" fields, a tool
// that loads up front, entries that are not tools.
func TestDerivedGenerated(t *testing.T) {
	for _, d := range canontest.Docs() {
		v, err := canon.Parse(d.JSON)
		if err != nil {
			t.Fatal(err)
		}
		tools := v.Elems()
		if v.Kind() != canon.Array {
			tools = []*canon.Value{v}
		}
		checkDerived(t, d.Name, tools)
	}
	long := strings.Repeat("Reads the file at path and returns its contents. ", 60)
	r := strings.Repeat
	doc := `[{"name":"read","description":` + quote(long) + `,"inputSchema":{"type":"object","properties":{"path":{"type":"string","description":` + quote(long[:300]) + `}}}},` +
		`{"name":"esc","description":"line one\nline \"two\"\t` + r("more text ", 30) + `","inputSchema":{"type":"object"}},` +
		`{"name":"emoji","description":"` + r(`\ud83d\ude00 wide `, 400) + `"},` +
		`{"name":"lone","k\ud800ey":"` + r("value ", 40) + `","x\udc00":1,"zz":"` + r("other ", 30) + `","inputSchema":[1,2]},` +
		`{"name":"always","_meta":{"anthropic/alwaysLoad":true},"description":"` + r("up front ", 40) + `","inputSchema":{"type":"object","anyOf":[{}]}},` +
		`"not a tool",{"description":"no name ` + r("x ", 100) + `"},{"name":"","title":"t"},` +
		`{"name":"spaces","description":"` + r(" ", 200) + "x" + r("\u00a0", 100) + `","annotations":{"title":"` + r("A\u0301B", 60) + `"}}]`
	v, err := canon.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	checkDerived(t, "handmade", v.Elems())
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestIndentJSON compares indentJSON with encoding/json's indentation on
// the shapes that matter: empty and nested containers, escapes, numbers,
// whitespace between tokens.
func TestIndentJSON(t *testing.T) {
	for _, doc := range []string{
		`[]`, `{}`, `[[]]`, `[{}]`, `{"a":[]}`, `{"a":{}}`, `[1,-2.5e+21,true,false,null]`,
		`{"k\"ey\\":"v\"a\\l\\","x":[ 1 , { "y" : [ ] } ],"z":"\u2028<&>"}`,
		` [ "a" ,"b\\\\" ] `, `[{"a":1},{"b":[2,[3,{}]]}]`, `"s"`, `0`,
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]json.RawMessage{"v": json.RawMessage(doc)}); err != nil {
			t.Fatal(err)
		}
		got := append(indentJSON([]byte("{\n  \"v\": "), []byte(doc), 1), "\n}\n"...)
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s:\n got %q\nwant %q", doc, got, want.Bytes())
		}
	}
}
