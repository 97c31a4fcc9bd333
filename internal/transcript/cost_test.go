package transcript_test

import (
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript"
)

// TestClaudeCostUSD reads the cost Claude Code recorded in a line. A line
// whose costUSD is null or not a number is one ccusage does not count (its
// loader refuses the line): its usage is not counted either.
func TestClaudeCostUSD(t *testing.T) {
	const head = `{"type":"assistant","sessionId":"s","timestamp":"2026-11-01T10:00:00.000Z",`
	const msg = `"message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":5}}}`
	tests := []struct {
		line    string
		want    *float64
		skipped bool
	}{
		{head + `"costUSD":0.0123,` + msg, ptr(0.0123), false},
		{head + msg[:len(msg)-1] + `,"costUSD":2}`, ptr(2), false},
		{head + `"costUSD":0,` + msg, ptr(0), false},
		{head + msg, nil, false},
		{head + `"costUSD":null,` + msg, nil, true},
		{head + `"costUSD":"0.5",` + msg, nil, true}, // not a number: not a cost
	}
	for _, tt := range tests {
		p := &transcript.ClaudeParser{}
		rec, err := p.ParseLine([]byte(tt.line))
		if tt.skipped {
			if err != nil || rec == nil || rec.Request != nil || !rec.UsageSkipped {
				t.Errorf("%s: %+v %v; want the usage skipped", tt.line, rec, err)
			}
			continue
		}
		if err != nil || rec == nil || rec.Request == nil {
			t.Fatalf("%s: %v %v", tt.line, rec, err)
		}
		got := rec.Request.CostUSD
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("%s: costUSD %v, want %v", tt.line, deref(got), deref(tt.want))
		}
	}
}

func ptr(v float64) *float64 { return &v }

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}
