package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/audit"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// TestCheckFailedNamesAFewOfMany: the check-failed line of a partial
// audit and of audit --budget names the first textsafe.MaxListed servers,
// configs or reasons and counts the rest, so that 2,000 unmeasured
// servers make a line of a few hundred bytes, not tens of kilobytes; up
// to the limit every one is named, as before. A name is cut to
// textsafe.MaxName runes and a reason to textsafe.MaxProse.
func TestCheckFailedNamesAFewOfMany(t *testing.T) {
	names := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("server-%d", i)
		}
		return s
	}
	partial := func(list []string) *audit.Report {
		return &audit.Report{Partial: true, Configs: []audit.Config{{Path: ".mcp.json", Unmeasured: list}}}
	}
	configs := func(list []string) *audit.Report {
		g := &audit.BudgetGate{Limit: 100, Of: "configs"}
		for _, p := range list {
			g.Configs = append(g.Configs, audit.BudgetConfig{Path: p, Reasons: []string{"over"}})
		}
		return &audit.Report{Budget: g}
	}
	reasons := func(list []string) *audit.Report {
		var rs []string
		for _, s := range list {
			rs = append(rs, s+" could not be measured, so the total is a lower bound")
		}
		return &audit.Report{Budget: &audit.BudgetGate{Limit: 100, Of: "configs", Configs: []audit.BudgetConfig{{Path: ".mcp.json", Reasons: rs}}}}
	}
	long := strings.Repeat("x", 100_000)
	tests := []struct {
		name     string
		report   func([]string) *audit.Report
		list     []string
		want     string // the end of the line
		maxBytes int
	}{
		{"partial 2", partial, names(2), "(server-0 and server-1): the report is partial (audit)", 0},
		{"partial 10", partial, names(10), "server-8 and server-9): the report is partial (audit)", 0},
		{"partial 11", partial, names(11), "server-8, server-9 and 1 more): the report is partial (audit)", 0},
		{"partial 2000", partial, names(2000), "server-8, server-9 and 1,990 more): the report is partial (audit)", 400},
		{"partial, a long name", partial, []string{"server-0", long}, "server-0 and " + long[:textsafe.MaxName] + "… (100000 bytes)): the report is partial (audit)", 700},
		{"configs 2", configs, names(2), "100 tokens: server-0 and server-1 (audit --budget)", 0},
		{"configs 10", configs, names(10), "server-8 and server-9 (audit --budget)", 0},
		{"configs 11", configs, names(11), "server-8, server-9 and 1 more (audit --budget)", 0},
		{"configs 2000", configs, names(2000), "server-8, server-9 and 1,990 more (audit --budget)", 400},
		{"reasons 2", reasons, names(2), ".mcp.json: server-0 could not be measured, so the total is a lower bound; server-1 could not be measured, so the total is a lower bound (audit --budget)", 0},
		{"reasons 10", reasons, names(10), "; server-9 could not be measured, so the total is a lower bound (audit --budget)", 0},
		{"reasons 11", reasons, names(11), "; server-9 could not be measured, so the total is a lower bound; and 1 more reason (audit --budget)", 0},
		{"reasons 2000", reasons, names(2000), "; server-9 could not be measured, so the total is a lower bound; and 1,990 more reasons (audit --budget)", 1000},
		{"reasons, a long one", reasons, []string{long}, ".mcp.json: " + long[:textsafe.MaxProse] + "… (100053 bytes) (audit --budget)", 2200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			auditChecksFailed(&Env{Stderr: &errb}, tt.report(tt.list), true)
			got := errb.String()
			if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "mcpcost: check failed: ") {
				t.Fatalf("stderr %.200q, want one check-failed line", got)
			}
			line := strings.TrimSuffix(got, "\n")
			if !strings.HasSuffix(line, tt.want) {
				t.Errorf("line ends %q, want it to end %q", line[max(0, len(line)-len(tt.want)-20):], tt.want)
			}
			if tt.maxBytes > 0 && len(line) >= tt.maxBytes {
				t.Errorf("line of %s bytes, want under %s", num.Int(len(line)), num.Int(tt.maxBytes))
			}
			for i, s := range tt.list {
				if s == long {
					continue
				}
				if listed := strings.Contains(line, s+" ") || strings.Contains(line, s+")") || strings.Contains(line, s+","); listed != (i < textsafe.MaxListed) {
					t.Errorf("%s listed: %v, want %v", s, listed, i < textsafe.MaxListed)
					break
				}
			}
			t.Logf("%d names: a line of %s bytes", len(tt.list), num.Int(len(line)))
		})
	}
}

// TestThresholdFailedNamesThree: the check-failed line of audit
// --threshold names the three largest tools, each name cut, and counts
// the rest as the other checks count theirs ("1,990 more").
func TestThresholdFailedNamesThree(t *testing.T) {
	tools := func(n int, name string) []audit.ToolRef {
		out := make([]audit.ToolRef, n)
		for i := range out {
			out[i] = audit.ToolRef{Server: "srv", Tool: fmt.Sprintf("%s%d", name, i), Tokens: 5000 - i}
		}
		return out
	}
	long := strings.Repeat("t", 100_000)
	tests := []struct {
		name     string
		tools    []audit.ToolRef
		want     string
		maxBytes int
	}{
		{"3", tools(3, "tool"), "srv · tool1 (4,999) and srv · tool2 (4,998) (audit --threshold)", 0},
		{"4", tools(4, "tool"), "srv · tool2 (4,998) and 1 more (audit --threshold)", 0},
		{"2000", tools(2000, "tool"), "srv · tool2 (4,998) and 1,997 more (audit --threshold)", 300},
		{"a long name", tools(1, long), "srv · " + long[:textsafe.MaxName] + "… (100001 bytes) (5,000) (audit --threshold)", 700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			rep := &audit.Report{Threshold: &audit.ThresholdGate{Limit: 100, Of: "configs", Tools: tt.tools}}
			auditChecksFailed(&Env{Stderr: &errb}, rep, true)
			line := strings.TrimSuffix(errb.String(), "\n")
			if !strings.HasSuffix(line, tt.want) {
				t.Errorf("line ends %q, want it to end %q", line[max(0, len(line)-len(tt.want)-20):], tt.want)
			}
			if tt.maxBytes > 0 && len(line) >= tt.maxBytes {
				t.Errorf("line of %s bytes, want under %s", num.Int(len(line)), num.Int(tt.maxBytes))
			}
		})
	}
}
