package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// FuzzClaudeReference checks the Claude Code parser against the
// reference in claude_ref_test.go (the parser before its fast paths):
// for every line, copying texts and reusing them after another line, the
// same record, field for field and text for text, or the same error.
func FuzzClaudeReference(f *testing.F) {
	lines := referenceSeeds(f)
	for i, l := range lines {
		f.Add(lines[(i+len(lines)-1)%len(lines)], l)
	}
	f.Fuzz(func(t *testing.T, prev, line []byte) {
		compareReference(t, prev, line)
	})
}

// TestClaudeReferenceGenerated runs the comparison over every line of a
// generated tree, quirks and defects included, line after line through
// the same parsers, and each line after the one before it through new
// ones.
func TestClaudeReferenceGenerated(t *testing.T) {
	lines := generatedLines(t)
	for _, reuse := range []bool{false, true} {
		ref := &refClaudeParser{ReuseText: reuse}
		p := &ClaudeParser{ReuseText: reuse}
		for _, l := range lines {
			compareParsers(t, ref, p, l)
		}
	}
	var prev []byte
	for _, l := range lines {
		compareReference(t, prev, l)
		prev = l
	}
}

func compareReference(t *testing.T, prev, line []byte) {
	t.Helper()
	for _, reuse := range []bool{false, true} {
		ref := &refClaudeParser{ReuseText: reuse}
		p := &ClaudeParser{ReuseText: reuse}
		ref.ParseLine(bytes.Clone(prev))
		p.ParseLine(bytes.Clone(prev))
		compareParsers(t, ref, p, line)
	}
}

// compareParsers parses line with both, each from a copy of its own.
func compareParsers(t *testing.T, ref *refClaudeParser, p *ClaudeParser, line []byte) {
	t.Helper()
	want, werr := ref.ParseLine(bytes.Clone(line))
	got, gerr := p.ParseLine(bytes.Clone(line))
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("reuse %v, line %.300q: error %v, reference %v", p.ReuseText, line, gerr, werr)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("reuse %v, line %.300q:\n got %s\nwant %s", p.ReuseText, line, describe(got), describe(want))
	}
}

func describe(r *Record) string {
	if r == nil {
		return "nil"
	}
	s := fmt.Sprintf("%+v", *r)
	if r.Request != nil {
		s += fmt.Sprintf(" request %+v", *r.Request)
	}
	for _, c := range r.Calls {
		s += fmt.Sprintf(" call %+v args %q", c, c.Args)
	}
	for _, res := range r.Results {
		s += fmt.Sprintf(" result %+v", res)
	}
	return s
}

// generatedLines are the Claude Code lines of a small generated tree.
func generatedLines(tb testing.TB) [][]byte {
	home := tb.TempDir()
	o := transcripttest.Small()
	o.Codex = 0
	if _, err := transcripttest.Generate(home, o); err != nil {
		tb.Fatal(err)
	}
	var lines [][]byte
	err := filepath.WalkDir(filepath.Join(home, ".claude"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(lines) == 0 {
		tb.Fatal("no lines generated")
	}
	return lines
}

// referenceSeeds are lines that reach each fast path and its edges: the
// testdata and a generated tree's lines; tool results whose texts are
// around and far over the length of a remembered string, with runs of
// backslashes before quotes, whole and cut at points in and around them;
// deep values; keys and types written with escapes, so that the patterns
// of claudeWanted are not in the line, or only in text.
func referenceSeeds(f *testing.F) [][]byte {
	var lines [][]byte
	for _, path := range []string{"testdata/claude.jsonl"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
	}
	gen := generatedLines(f)
	// The generated tree's largest lines, and a few others of each kind.
	for i, l := range gen {
		if i%7 == 0 || len(l) > 4096 {
			lines = append(lines, l)
		}
	}
	const head = `{"type":"user","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","cwd":"/p","message":{"role":"user","content":[`
	text := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			switch i % 5 {
			case 0:
				b.WriteString(`\"q\" `)
			case 1:
				b.WriteString(`\\\\\"`)
			case 2:
				b.WriteString(`a\nb `)
			case 3:
				b.WriteString("é ")
			default:
				b.WriteString(`word `)
			}
		}
		s := b.String()[:n]
		// Do not end on a lone backslash, which would escape the quote.
		return strings.TrimRight(s, `\`)
	}
	for _, n := range []int{509, 510, 511, 512, 513, 4096, 1 << 16} {
		s := text(n)
		long := head + `{"type":"tool_result","tool_use_id":"t1","content":"` + s + `"},` +
			`{"tool_use_id":"t2","content":[{"type":"text","text":"` + s + `"},{"type":"image","source":{"data":"` + s + `"}}],"type":"tool_result"}]},` +
			`"toolUseResult":{"stdout":"` + s + `","deep":[[[{"a":"` + s + `"}]]]}}`
		lines = append(lines, []byte(long))
		for _, cut := range []int{len(head) + 60, len(head) + 60 + n/2, len(head) + 60 + n, len(head) + 61 + n, len(long) - n/2, len(long) - 3, len(long) - 1} {
			if cut > 0 && cut < len(long) {
				lines = append(lines, []byte(long[:cut]))
			}
		}
		// The same text with its closing quote escaped.
		lines = append(lines, []byte(head+`{"type":"tool_result","tool_use_id":"t1","content":"`+s+`\"}]}}`))
	}
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	for _, l := range []string{
		head + `{"type":"tool_result","tool_use_id":"t1","content":"x"}]},"toolUseResult":` + deep + `}`,
		head + `{"type":"tool_result","tool_use_id":"t1","content":"x"}]},"toolUseResult":` + deep[:15000] + `}`,
		`{"type":"user","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","message":{"content":"` + text(2000) + `"},"toolUseResult":` + deep + `}`,
		head + `{"type":"tool\u005fresult","tool_use_id":"t1","content":"x"}]}}`,
		head + `{"type":"tool\u005fresult","tool_use_id":"t1","content":"x \"usage\""}]}}`,
		head + `{"type":"tool\u005fresult","tool_use_id":"t1","content":"x"}]},"p":"\"usage\" "}`,
		head + `{"type":"tool\u005fresult","tool_use_id":"t1","content":"x"}]},"p":"\"usage\""}`,
		head + `{"type":"tool\u005fresult","tool_use_id":"t1","content":"x"}]},"tool_use":1}`,
		head + `{"type":"tool\u005fresult","tool_use_id":"t1","content":"x"}]}`,
		head + `{"type":"tool\u005fresult","tool_use_id":"t1","content":"x"}]}} `,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","message":{"id":"m","model":"c","content":[{"type":"tool\u005fuse","id":"u","name":"n","input":{}}]}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","message":{"id":"m","model":"c","content":[{"type":"tool_use","id":"u","name":"n","input":{}}]}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","requestId":"r","version":"2.0.1","message":{"id":"m","model":"c","\u0075sage":{"input_tokens":1}}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","requestId":"r","message":{"id":"m","model":"c","usage"   :   {"input_tokens":1}}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","requestId":"r","message":{"id":"m","model":"c","usage"` + "\t\r\n:\n\t " + `{"input_tokens":1}}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","requestId":"r","message":{"id":"m","model":"c","usage"                        :{"input_tokens":1}}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","requestId":"r","message":{"id":"m","model":"c","usage":{"input_tokens":1}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"bad","requestId":"r","message":{"id":"m","model":"c","usage":{"input_tokens":1}}}`,
		`{"type":"assistant","timestamp":"2026-01-02T03:04:05Z","message":{"id":"m","model":"c","\u0075sage":{"input_tokens":1}}}`,
		`{"type":"assistant","sessionId":"s","timestamp":"bad","message":{"id":"m","model":"c","\u0075sage":{"input_tokens":-1}}}`,
		`{"type":"system","subtype":"compact_boundary","sessionId":"s","timestamp":"2026-01-02T03:04:05Z"}`,
		`{"type":"system","subtype":"compact\u005fboundary","sessionId":"s","timestamp":"2026-01-02T03:04:05Z"}`,
		`{"type":"system","subtype":"microcompact_boundary","sessionId":"s","timestamp":"2026-01-02T03:04:05Z"}`,
		`{"type":"system","subtype":"microcompact_boundary","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","x":"compact_boundary"}`,
		`{"type":"system","subtype":"microcompact_boundary","sessionId":"s","timestamp":"2026-01-02T03:04:05Z","x":"\"compact_boundary\""}`,
		`{"type":"system","subtype":"microcompact_boundary","sessionId":"s","timestamp":"bad"}`,
		`{"type":"system","subtype":"microcompact_boundary","sessionId":"s","timestamp":"bad"`,
		`{"type":"system","subtype":"microcompact_boundary","sessionId":1}`,
		`{"type":"user","sessionId":"s","message":{"content":"no timestamp"}}`,
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"text","text":"hi"}]}} `,
		` {"type":"user"} ` + "\u00a0",
		`{"type":"user","message":{"content":"x"}}}`,
		`{"type":"user","message":{"content":"x"}`,
		`{"type":"user","message":{"content":"x"`,
		`{"type":"user","message":{"content":[1}]}}`,
		`[{"type":"tool_result"}]`,
		``, ` `, `{`, `}`, `{}`,
	} {
		lines = append(lines, []byte(l))
	}
	return lines
}

// FuzzSkipString checks the word-at-a-time string skipper against the
// reference's, which looks for quotes and counts the backslashes before
// each, from every start in the input.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{`""`, `"a\"b"`, `"\\"`, `"\\\"`, `"a\\\\\"b\\"c`, `"12345678\"12345678"`, `"1234567\\"`, `"\`, `"abc`} {
		f.Add([]byte(s))
	}
	for _, l := range referenceSeeds(f) {
		if len(l) <= 1<<12 {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i, c := range b {
			if c != '"' {
				continue
			}
			gend, gerr := skipString(b, i)
			wend, werr := refSkipString(b, i)
			if gend != wend || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
				t.Fatalf("%q from %d: %d, %v; reference %d, %v", b, i, gend, gerr, wend, werr)
			}
		}
	})
}

// FuzzAppendUnquote checks the string decoder against the reference's,
// byte for byte, on what it accepts and what it leaves to encoding/json.
func FuzzAppendUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"a\nb"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"12345678\"1234567\u0041"`, "\"1234567\x1f\"", "\"12345678\x7f\x80\"", `"\x"`, "\"\xff\"", "\"12345678é12345678\""} {
		f.Add([]byte(s))
	}
	addBoundaryStrings(f)
	// Each kind of special byte at every offset of the first words.
	for _, sp := range []string{`\n`, `\"`, `\u00e9`, `\ud83d\ude00`, "\x01", "\x1f", "\x7f", "é", "\xff", `"`, `\`} {
		for n := 0; n <= 24; n++ {
			for at := 0; at <= n; at++ {
				f.Add([]byte(`"` + strings.Repeat("a", at) + sp + strings.Repeat("b", n-at) + `"`))
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, n := range []int{0, 3} {
			dst := []byte("pre")[:n]
			got, gok := appendUnquote(bytes.Clone(dst), b)
			want, wok := refAppendUnquote(bytes.Clone(dst), b)
			if gok != wok || !bytes.Equal(got, want) {
				t.Fatalf("%q: %q %v; reference %q %v", b, got, gok, want, wok)
			}
		}
	})
}
