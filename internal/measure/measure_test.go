package measure

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/testpeers"
)

type corpusMeta struct {
	Name    string `json:"name"`
	Tools   int    `json:"tools"`
	Total   int    `json:"o200k_total"`
	Sha256  string `json:"sha256"`
	Bytes   int    `json:"canonical_bytes"`
	PerTool []struct {
		Name  string `json:"name"`
		O200k int    `json:"o200k"`
	} `json:"per_tool"`
}

// corpusDirs returns the corpus servers of testdata, and of the shared
// corpus when it is there.
func corpusDirs(t *testing.T, shared bool) []string {
	t.Helper()
	dirs, _ := filepath.Glob("testdata/corpus/*")
	if shared {
		s := testpeers.Shared(t)
		more, _ := filepath.Glob(filepath.Join(s, "corpus", "*", "wire.jsonl"))
		dirs = dirs[:0]
		for _, m := range more {
			dirs = append(dirs, filepath.Dir(m))
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no corpus servers found")
	}
	return dirs
}

func checkCorpus(t *testing.T, dir string) {
	t.Helper()
	var meta corpusMeta
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	wire, err := os.ReadFile(filepath.Join(dir, "wire.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseInput("wire.jsonl", wire)
	if err != nil {
		t.Fatalf("ParseInput: %v", err)
	}
	r := Tools(c.Tools, nil)
	if r.TotalTokens != meta.Total || r.CanonicalSha256 != meta.Sha256 || r.ToolCount != meta.Tools || r.CanonicalBytes != meta.Bytes {
		t.Errorf("got %d tokens, %d tools, %d bytes, sha %s; want %d, %d, %d, %s",
			r.TotalTokens, r.ToolCount, r.CanonicalBytes, r.CanonicalSha256, meta.Total, meta.Tools, meta.Bytes, meta.Sha256)
	}
	if len(meta.PerTool) != len(r.Tools) {
		t.Fatalf("per-tool: got %d tools, want %d", len(r.Tools), len(meta.PerTool))
	}
	for i, pt := range meta.PerTool {
		if got := r.Tools[i]; got.Name != pt.Name || got.Tokens != pt.O200k {
			t.Errorf("tool %d: got %s %d, want %s %d", i, got.Name, got.Tokens, pt.Name, pt.O200k)
		}
	}
}

func TestCorpusTestdata(t *testing.T) {
	for _, dir := range corpusDirs(t, false) {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkCorpus(t, dir) })
	}
}

// TestCorpusShared checks every server of the shared corpus: total, hash,
// tool count, canonical length and every per-tool count.
func TestCorpusShared(t *testing.T) {
	dirs := corpusDirs(t, true)
	if len(dirs) != 57 {
		t.Errorf("shared corpus has %d servers, want 57", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkCorpus(t, dir) })
	}
}

func publishedFiles(t *testing.T, shared bool) []string {
	t.Helper()
	if shared {
		s := testpeers.Shared(t)
		files, _ := filepath.Glob(filepath.Join(s, "published", "*", "measurement.json"))
		return files
	}
	files, _ := filepath.Glob("testdata/published/*/measurement.json")
	return files
}

func checkPublished(t *testing.T, file string) (measured bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(file, data, nil)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if v.Status != "measured" && v.Status != "dynamic" {
		if v.OK {
			t.Errorf("status %s without a capture verified OK", v.Status)
		}
		return false
	}
	if !v.OK {
		t.Errorf("problems: %q", v.Problems)
	}
	if v.ToolsChecked != *v.ToolCount {
		t.Errorf("checked %d per-tool entries of %d", v.ToolsChecked, *v.ToolCount)
	}
	// measure reads a measurement.json as an input too.
	c, err := ParseInput(file, data)
	if err != nil {
		t.Fatal(err)
	}
	if r := Tools(c.Tools, nil); r.CanonicalSha256 != v.StoredSha {
		t.Errorf("measure of the file: sha %s, want %s", r.CanonicalSha256, v.StoredSha)
	}
	return true
}

func TestPublishedTestdata(t *testing.T) {
	for _, f := range publishedFiles(t, false) {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) { checkPublished(t, f) })
	}
}

// TestPublishedShared re-derives every published measurement.json: the 69
// measured ones agree in count, hash, tool count and every per-tool number.
func TestPublishedShared(t *testing.T) {
	measured := 0
	for _, f := range publishedFiles(t, true) {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) {
			if checkPublished(t, f) {
				measured++
			}
		})
	}
	if measured != 69 {
		t.Errorf("%d measured published files, want 69", measured)
	}
}

func TestFileRoundTrip(t *testing.T) {
	wire, err := os.ReadFile("testdata/corpus/filesystem/wire.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseInput("wire.jsonl", wire)
	if err != nil {
		t.Fatal(err)
	}
	r := Tools(c.Tools, nil)
	f := NewFile(r, "measured", "filesystem", "mcpcost test", time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC))
	b, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "}\n") || !strings.Contains(string(b), `"measuredAt": "2026-11-29T00:00:00.000Z"`) {
		t.Errorf("unexpected file:\n%.300s", b)
	}
	v, err := Verify("m.json", b, nil)
	if err != nil || !v.OK {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
	// Tampering is found.
	tampered := strings.Replace(string(b), `"totalTokens": 2823`, `"totalTokens": 2000`, 1)
	tampered = strings.Replace(tampered, `"Read the complete contents`, `"Read the contents`, 1)
	v, err = Verify("m.json", []byte(tampered), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.OK || len(v.Problems) < 2 {
		t.Errorf("tampered file: ok=%v problems=%q", v.OK, v.Problems)
	}
}

func TestParseInput(t *testing.T) {
	tool := `{"name":"a","description":"d","inputSchema":{"type":"object"}}`
	tests := []struct {
		name    string
		in      string
		kind    InputKind
		tools   int
		pages   int
		wantErr string
	}{
		{"result", `{"tools":[` + tool + `]}`, KindToolsResult, 1, 1, ""},
		{"array", `[` + tool + `,` + tool + `]`, KindToolsArray, 2, 1, ""},
		{"bom", "\ufeff[" + tool + "]", KindToolsArray, 1, 1, ""},
		{"rpc one", `{"jsonrpc":"2.0","id":2,"result":{"tools":[` + tool + `]}}`, KindRPC, 1, 1, ""},
		{"rpc stream pages", `{"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[` + tool + `],"nextCursor":"x"}}` + "\n\n" +
			`{"jsonrpc":"2.0","id":3,"result":{"tools":[` + tool + `,` + tool + `]}}` + "\n", KindRPC, 3, 2, ""},
		{"measurement", `{"methodologyVersion":"1.0","rawToolsCapture":[` + tool + `]}`, KindMeasurement, 1, 1, ""},
		{"empty", "", "", 0, 0, "x.json: empty input"},
		{"spaces", " \n\t", "", 0, 0, "x.json: empty input"},
		{"not json", "hello", "", 0, 0, "x.json: not JSON"},
		{"rpc error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, "", 0, 0, "x.json: JSON-RPC error response -32601: Method not found"},
		{"rpc error line 3", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` + "\n" + `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"boom"}}`, "", 0, 0, "x.json:3: JSON-RPC error response -32000: boom"},
		{"stream bad line", `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` + "\n" + `{oops` + "\n", "", 0, 0, "x.json:2: not JSON"},
		{"stream no tools", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}`, "", 0, 0, "x.json: no tools/list response"},
		{"tools missing", `{"result":1}`, "", 0, 0, `x.json: no "tools" array`},
		{"tools not array", `{"tools":{}}`, "", 0, 0, `x.json: "tools" is an object, not an array`},
		{"tool not object", `{"tools":[` + tool + `,"x"]}`, "", 0, 0, `x.json: tools[1] is a string, not an object`},
		{"bare tool not object", `[1]`, "", 0, 0, `x.json: tool 1 is a number, not an object`},
		{"scalar", `42`, "", 0, 0, `found a number`},
		{"deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), "", 0, 0, "x.json: the tools/list response it stands for nests deeper than the 1000 levels the MCP SDK reads (100002 levels)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseInput("x.json", []byte(tt.in))
			if tt.wantErr != "" {
				var ie *InputError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ie) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Kind != tt.kind || len(c.Tools) != tt.tools || c.Pages != tt.pages {
				t.Errorf("got kind %s, %d tools, %d pages; want %s, %d, %d", c.Kind, len(c.Tools), c.Pages, tt.kind, tt.tools, tt.pages)
			}
		})
	}
}

func TestParts(t *testing.T) {
	in := `[{"name":"search","title":"Search","description":"Find things","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"anthropic/alwaysLoad":true},"execution":{"taskSupport":"optional"},"icons":[]}]`
	c, err := ParseInput("x", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	r := Tools(c.Tools, nil)
	tl := r.Tools[0]
	var names []string
	sum := 0
	for _, p := range tl.Parts {
		names = append(names, p.Name)
		sum += p.Tokens
		if p.Tokens <= 0 {
			t.Errorf("part %s has %d tokens", p.Name, p.Tokens)
		}
	}
	if got := strings.Join(names, ","); got != "name,title,description,inputSchema,annotations,_meta,other" {
		t.Errorf("parts = %s", got)
	}
	if strings.Join(tl.OtherFields, ",") != "execution,icons" || !tl.AlwaysLoad {
		t.Errorf("other fields %q, alwaysLoad %v", tl.OtherFields, tl.AlwaysLoad)
	}
	if d := tl.Tokens - sum; d < 0 || d > 8 {
		t.Errorf("parts add up to %d, tool is %d", sum, tl.Tokens)
	}
}

// TestFailedFileNotesCut: notes longer than 700 bytes are cut at the
// start of a character on both sides of the limit, so that they stay
// UTF-8 whatever a server's stderr held.
func TestFailedFileNotesCut(t *testing.T) {
	for _, n := range []int{698, 699, 700, 701, 702} {
		for _, r := range []string{"a", "é", "€", "😀"} {
			notes := ""
			for len(notes) < n {
				notes += r
			}
			f := FailedFile(status.Timeout, "s", "cmd", nil, notes, "test", time.Unix(0, 0), time.Second)
			if !utf8.ValidString(f.Notes) || len(f.Notes) > 700 || len(f.Notes) < 700-3 && len(notes) >= 700 {
				t.Errorf("%d bytes of %q: notes of %d bytes, valid %v", len(notes), r, len(f.Notes), utf8.ValidString(f.Notes))
			}
			if len(notes) <= 700 && f.Notes != notes {
				t.Errorf("%d bytes of %q were cut", len(notes), r)
			}
		}
	}
}

// TestInstructionsJSON: serverInstructions is written as JSON.stringify
// writes a string, as the rest of the file is: a file measured from a
// live server and the same file measured again from itself are the same
// bytes.
func TestInstructionsJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Constraints & Limitations", `"Constraints & Limitations"`},
		{"<b>bold</b>", `"<b>bold</b>"`},
		{"line\u2028sep\u2029para", "\"line\u2028sep\u2029para\""},
		{"tab\tnl\n\"q\" \\ \x01", `"tab\tnl\n\"q\" \\ \u0001"`},
		{"", `""`},
	} {
		s := c.in
		if got := string(InstructionsJSON(&s)); got != c.want {
			t.Errorf("InstructionsJSON(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := string(InstructionsJSON(nil)); got != "null" {
		t.Errorf("InstructionsJSON(nil) = %s, want null", got)
	}
}
