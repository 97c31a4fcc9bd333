package transcript_test

import (
	"math"
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

// TestClaudeCostUSDBounds keeps a request whose costUSD is negative or
// over MaxCostUSD without that cost (it is then priced as if none was
// recorded), and says so in the record's warning. Both sides of each
// bound.
func TestClaudeCostUSDBounds(t *testing.T) {
	const head = `{"type":"assistant","sessionId":"s","timestamp":"2026-11-01T10:00:00.000Z",`
	const msg = `"message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":5}}}`
	tests := []struct {
		cost string
		want *float64
	}{
		{"0", ptr(0)},
		{"-0", ptr(0)},
		{"5e-324", ptr(5e-324)},
		{"-5e-324", nil},
		{"-5", nil},
		{"100000", ptr(transcript.MaxCostUSD)},
		{"100000.00000000001", nil},
		{"100001", nil},
		{"1e15", nil},
		{"1e308", nil},
		{"-1e308", nil},
	}
	for _, tt := range tests {
		p := &transcript.ClaudeParser{}
		rec, err := p.ParseLine([]byte(head + `"costUSD":` + tt.cost + `,` + msg))
		if err != nil || rec == nil || rec.Request == nil {
			t.Fatalf("%s: %+v %v; want the request kept", tt.cost, rec, err)
		}
		got := rec.Request.CostUSD
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("%s: costUSD %v, want %v", tt.cost, deref(got), deref(tt.want))
		}
		if wantWarn := tt.want == nil; (rec.Warning != "") != wantWarn {
			t.Errorf("%s: warning %q, want one: %v", tt.cost, rec.Warning, wantWarn)
		}
		if rec.UsageSkipped {
			t.Errorf("%s: usage skipped; want it counted", tt.cost)
		}
	}
	for _, c := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, transcript.MaxCostUSD + 0.01} {
		if transcript.ValidCost(c) {
			t.Errorf("ValidCost(%v) = true", c)
		}
	}
	for _, c := range []float64{0, 0.01, transcript.MaxCostUSD} {
		if !transcript.ValidCost(c) {
			t.Errorf("ValidCost(%v) = false", c)
		}
	}
}

// TestOpencodeCostBounds: opencode's recorded cost is kept within [0,
// MaxCostUSD] (0 is none), and ignored with a warning outside it.
func TestOpencodeCostBounds(t *testing.T) {
	for _, tt := range []struct {
		cost string
		want *float64
		warn bool
	}{
		{"0", nil, false},
		{"0.25", ptr(0.25), false},
		{"100000", ptr(transcript.MaxCostUSD), false},
		{"100000.01", nil, true},
		{"1e308", nil, true},
		{"-0.01", nil, true},
	} {
		rec, err := transcript.ParseOpencodeMessage([]byte(`{"id":"m","sessionID":"s","role":"assistant","modelID":"x","time":{"created":1764321101000},"cost":`+tt.cost+`,"tokens":{"input":1,"output":1}}`), "", "")
		if err != nil || rec == nil || rec.Request == nil {
			t.Fatalf("%s: %v %v", tt.cost, rec, err)
		}
		got := rec.Request.CostUSD
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want || (rec.Warning != "") != tt.warn {
			t.Errorf("%s: cost %v, warning %q; want %v, a warning %v", tt.cost, deref(got), rec.Warning, deref(tt.want), tt.warn)
		}
	}
}
