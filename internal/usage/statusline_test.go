package usage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/mcpcost/mcpcost/internal/usage"
)

func TestParseStatusInput(t *testing.T) {
	full := `{"hook_event_name":"Status","session_id":"abc","transcript_path":"/t.jsonl","cwd":"/p","model":{"id":"claude-opus-4-6","display_name":"Opus"},
		"workspace":{"current_dir":"/p/sub","project_dir":"/p"},"version":"2.1.97","cost":{"total_cost_usd":0.5},"context_window":{"context_window_size":1000000}}`
	in, err := usage.ParseStatusInput([]byte(full))
	if err != nil || in.SessionID != "abc" || in.Model.DisplayName != "Opus" || in.Workspace.ProjectDir != "/p" || in.Cost.TotalCostUSD == nil ||
		*in.Cost.TotalCostUSD != 0.5 || in.ContextWindow.ContextWindowSize != 1000000 {
		t.Errorf("%+v %v", in, err)
	}
	for _, tc := range []struct {
		body, err string
		check     func(usage.StatusInput) bool
	}{
		{"", "no status input", nil},
		{"  \n", "no status input", nil},
		{"[1]", "not a JSON object", nil},
		{`{"a":`, "not a JSON object", nil},
		{strings.Repeat(" ", usage.MaxStatusInput) + "{}", "over 1048576 bytes", nil},
		{strings.Repeat(" ", usage.MaxStatusInput-2) + "{}", "", func(in usage.StatusInput) bool { return in.SessionID == "" }},
		// Members of the wrong kind lose themselves alone.
		{`{"session_id":7,"model":{"display_name":"M"},"cost":{"total_cost_usd":"x"}}`, "", func(in usage.StatusInput) bool {
			return in.SessionID == "" && in.Model.DisplayName == "M" && in.Cost.TotalCostUSD == nil
		}},
		{`{"cost":{"total_cost_usd":-1},"context_window":{"context_window_size":-5}}`, "", func(in usage.StatusInput) bool {
			return in.Cost.TotalCostUSD == nil && in.ContextWindow.ContextWindowSize == 0
		}},
		{`{"cost":null,"model":null}`, "", func(in usage.StatusInput) bool { return in.Cost.TotalCostUSD == nil }},
	} {
		in, err := usage.ParseStatusInput([]byte(tc.body))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%.40q: err %v, want %q", tc.body, err, tc.err)
		case tc.err == "" && (err != nil || !tc.check(in)):
			t.Errorf("%.40q: %+v %v", tc.body, in, err)
		}
	}
}

func TestStatusLineText(t *testing.T) {
	now := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	f, n, k := 1.234, 12345, int64(950)
	block := &usage.Block{CostUSD: 2.1, EndTime: now.Add(2*time.Hour + 13*time.Minute)}
	for _, tc := range []struct {
		s    usage.StatusLine
		want string
	}{
		{usage.StatusLine{}, "mcpcost"},
		{usage.StatusLine{Model: "Opus", SessionCost: &f, Today: &f, TodayPartial: true, Block: block, Now: now,
			MCPDefinitionTokens: &n, MCPServers: 2, ContextWindow: 200000, MCPResultTokens: &k},
			"Opus | session $1.23 | today $1.23* | block $2.10 (2h 13m left) | MCP defs 12.3K (6.2%) | MCP results 950"},
		{usage.StatusLine{Model: "x\x1b[2J\ny", BlockChecked: true}, `x\x1b[2J\ny | no active block`},
		{usage.StatusLine{MCPDefinitionTokens: new(int), MCPServers: 0}, "no MCP servers measured"},
		// A model's name is cut to MaxStatusModel runes, before escaping.
		{usage.StatusLine{Model: strings.Repeat("A", 300), BlockChecked: true}, strings.Repeat("A", usage.MaxStatusModel-1) + "… | no active block"},
		{usage.StatusLine{Model: strings.Repeat("é", usage.MaxStatusModel)}, strings.Repeat("é", usage.MaxStatusModel)},
		{usage.StatusLine{Model: strings.Repeat("x", usage.MaxStatusModel-2) + "\x1b[2J"}, strings.Repeat("x", usage.MaxStatusModel-2) + `\x1b…`},
	} {
		if got := tc.s.Text(); got != tc.want {
			t.Errorf("Text() = %q, want %q", got, tc.want)
		}
	}
}

// TestActiveBlockReadsBackFarEnough: requests every four hours for three
// days form one chain of blocks whose boundaries depend on its first
// request, more than a day back: ActiveBlock reads back until a pause
// longer than a block, and finds the active block Blocks finds from all
// history; so it does after a pause, and where no block is active.
func TestActiveBlockReadsBackFarEnough(t *testing.T) {
	now := time.Date(2026, 11, 5, 12, 40, 0, 0, time.UTC)
	type chain struct {
		name  string
		first time.Duration // before now
		every time.Duration
		last  time.Duration // before now
	}
	cases := []chain{
		{"a chain of four months", 120 * 24 * time.Hour, 4*time.Hour + 30*time.Minute, 20 * time.Minute},
		{"after a pause", 10*time.Hour + 5*time.Minute, 3 * time.Hour, 70 * time.Minute},
		{"none active", 80 * time.Hour, 4 * time.Hour, 6 * time.Hour},
		// Requests after now (a clock running fast): the block after now
		// is not active, the one now is.
		{"requests after now", 3 * time.Hour, time.Hour, -3 * time.Hour},
	}
	// Chains of three days whose first request moves by 20 minutes: the
	// block of the last request, and whether it is active, move with it.
	for m := 0; m < 240; m += 20 {
		first := 80*time.Hour + time.Duration(m)*time.Minute
		cases = append(cases, chain{fmt.Sprintf("a chain of three days from %s", first), first, 4 * time.Hour, 0})
	}
	active := 0
	defer func() {
		if active < 3 {
			t.Errorf("only %d chains end in an active block", active)
		}
	}()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, "projects", "-p")
			os.MkdirAll(dir, 0o755)
			var b strings.Builder
			i := 0
			for at := now.Add(-tc.first); !at.After(now.Add(-tc.last)); at = at.Add(tc.every) {
				fmt.Fprintf(&b, `{"type":"assistant","cwd":"/p","sessionId":"s","version":"2.1.97","message":{"id":"m%d","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":%d}},"requestId":"r%d","uuid":"u%d","timestamp":"%s"}`+"\n",
					i, 100+i, i, i, at.UTC().Format("2006-01-02T15:04:05.000Z"))
				i++
			}
			os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(b.String()), 0o644)
			s, err := store.Open(filepath.Join(t.TempDir(), "u.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Ingest(context.Background(), store.IngestOptions{ClaudeRoots: []string{filepath.Join(home, "projects")}, Count: token.O200k().Count}); err != nil {
				t.Fatal(err)
			}
			rep, err := usage.Blocks(context.Background(), s, usage.BlocksOptions{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			got, err := usage.ActiveBlock(context.Background(), s, usage.BlocksOptions{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			want := rep.Active()
			if (got == nil) != (want == nil) || (tc.name == "none active" && want != nil) {
				t.Fatalf("active block %v, from all history %v", got, want)
			}
			if want == nil {
				return
			}
			active++
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if string(gj) != string(wj) {
				t.Errorf("active block\n%s\nfrom all history\n%s", gj, wj)
			}
		})
	}
}
