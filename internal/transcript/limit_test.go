package transcript_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestClaudeUsageLimitReset reads the reset time of Claude Code's
// placeholder for a request refused at the usage limit as ccusage 20.0.24
// reads it (each case was run through its blocks report): an API-error
// line that ccusage counts as an entry, the first "Claude AI usage limit
// reached" in its content as written, the digits after the next "|".
func TestClaudeUsageLimitReset(t *testing.T) {
	line := func(flag, model, usage, content string) string {
		return `{"type":"assistant","sessionId":"s1","version":"2.1.97","timestamp":"2026-11-20T10:00:00.000Z"` + flag +
			`,"message":{"id":"msg_e","model":"` + model + `","role":"assistant"` + usage + `,"content":` + content + `}}`
	}
	const zero = `,"usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}`
	api := `,"isApiErrorMessage":true`
	text := func(s string) string { return `[{"type":"text","text":"` + s + `"}]` }
	tests := []struct {
		name string
		line string
		want int64 // seconds
	}{
		{"placeholder", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|1795000000")), 1795000000},
		{"any model", line(api, "claude-sonnet-4-5", zero, text("Claude AI usage limit reached|1795000000")), 1795000000},
		{"with tokens", line(api, "<synthetic>", `,"usage":{"input_tokens":7,"output_tokens":0}`, text("Claude AI usage limit reached|1795000000")), 1795000000},
		{"content a string", line(api, "<synthetic>", zero, `"Claude AI usage limit reached|1795000000"`), 1795000000},
		{"content an object", line(api, "<synthetic>", zero, `{"type":"text","text":"Claude AI usage limit reached|1795000000"}`), 1795000000},
		{"any block", line(api, "<synthetic>", zero, `[{"type":"tool_result","content":"Claude AI usage limit reached|1795000000"}]`), 1795000000},
		{"digits in the next block", line(api, "<synthetic>", zero, `[{"type":"text","text":"Claude AI usage limit reached"},{"type":"text","text":"|1795000000"}]`), 1795000000},
		{"the pipe after spaces", line(api, "<synthetic>", zero, text("Claude AI usage limit reached  |1795000000")), 1795000000},
		{"after an escaped newline", line(api, "<synthetic>", zero, text(`Claude AI usage limit reached\n|1795000000`)), 1795000000},
		{"digits then more", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|12x3")), 12},
		{"a second pipe", line(api, "<synthetic>", zero, text("x Claude AI usage limit reached|1795000000|77")), 1795000000},
		{"leading zeros", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|00001")), 1},
		{"the largest", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|9223372036854775")), 9223372036854775},
		{"too large", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|9223372036854776")), 0},
		{"far too large", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|99999999999999999999")), 0},
		{"zero", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|0")), 0},
		{"no digits", line(api, "<synthetic>", zero, text("Claude AI usage limit reached")), 0},
		{"letters first", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|abc|1795000000")), 0},
		{"a space first", line(api, "<synthetic>", zero, text("Claude AI usage limit reached| 1795000000")), 0},
		{"a sign first", line(api, "<synthetic>", zero, text("Claude AI usage limit reached|-1795000000")), 0},
		{"the first phrase only", line(api, "<synthetic>", zero, `[{"type":"text","text":"Claude AI usage limit reached|abc"},{"type":"text","text":"Claude AI usage limit reached|1795000000"}]`), 0},
		{"the pipe before the phrase", line(api, "<synthetic>", zero, text("x|1795000000 Claude AI usage limit reached")), 0},
		{"an escaped pipe", line(api, "<synthetic>", zero, text(`Claude AI usage limit reached\u007c1795000000`)), 0},
		{"an escaped phrase", line(api, "<synthetic>", zero, text(`Claude \u0041I usage limit reached|1795000000`)), 0},
		{"another case", line(api, "<synthetic>", zero, text("claude ai usage limit reached|1795000000")), 0},
		{"another text", line(api, "<synthetic>", zero, text("5-hour limit reached | resets 3pm|1795000000")), 0},
		{"not an API error", line("", "<synthetic>", zero, text("Claude AI usage limit reached|1795000000")), 0},
		{"isApiErrorMessage false", line(`,"isApiErrorMessage":false`, "<synthetic>", zero, text("Claude AI usage limit reached|1795000000")), 0},
		{"isApiErrorMessage a string", line(`,"isApiErrorMessage":"true"`, "<synthetic>", zero, text("Claude AI usage limit reached|1795000000")), 0},
		{"no usage", line(api, "<synthetic>", "", text("Claude AI usage limit reached|1795000000")), 0},
		{"a line ccusage drops", strings.Replace(line(api, "<synthetic>", zero, text("Claude AI usage limit reached|1795000000")), `"version":"2.1.97"`, `"version":"dev"`, 1), 0},
		{"the phrase elsewhere on the line", line(api+`,"error":"Claude AI usage limit reached|1795000000"`, "<synthetic>", zero, text("x")), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &transcript.ClaudeParser{}
			rec, err := p.ParseLine([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			var got int64
			if rec != nil {
				got = rec.LimitReset
				if got != 0 && (rec.SessionID != "s1" || rec.Time.IsZero()) {
					t.Errorf("record %+v", rec)
				}
			}
			if got != tt.want*1000 {
				t.Errorf("reset %d ms, want %d", got, tt.want*1000)
			}
			if tt.want == 0 && rec != nil && rec.Request == nil {
				t.Errorf("a record for a line that carries nothing: %+v", rec)
			}
		})
	}
}

// TestBoundName: a name up to MaxName bytes is kept; a longer one is cut
// at a character's start to at most MaxName bytes, valid UTF-8, the same
// each time, and names that differ past the cut stay apart.
func TestBoundName(t *testing.T) {
	short := strings.Repeat("a", transcript.MaxName)
	if got := transcript.BoundName(short); got != short {
		t.Errorf("a name of MaxName bytes changed to %q", got)
	}
	for _, s := range []string{short + "b", strings.Repeat("é", transcript.MaxName), strings.Repeat("€", 1<<16), strings.Repeat("x", 1<<20)} {
		got := transcript.BoundName(s)
		if len(got) > transcript.MaxName || !utf8.ValidString(got) || got != transcript.BoundName(s) {
			t.Errorf("%d bytes: %d bytes, valid %v", len(s), len(got), utf8.ValidString(got))
		}
		if !strings.HasPrefix(s, strings.TrimRight(got[:len(got)-len("…")-16], "…")) {
			t.Errorf("%d bytes: %q is not its start", len(s), got[:20])
		}
		if other := transcript.BoundName(s + "z"); other == got {
			t.Errorf("%d bytes: two names, one %q", len(s), got[len(got)-20:])
		}
	}
}
