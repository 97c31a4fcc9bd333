package serve

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBlockTotalCapped: two billing blocks of about 5.4e18 tokens
// each (600 requests of 2^53-1 input tokens, the most a line may record)
// are each exact, but usage_summary by block adds them with a plain int64
// sum, which wraps to a negative total, and no note says anything since
// no block reached the cap.
func TestBlockTotalCapped(t *testing.T) {
	f := newFixture(t, false)
	dir := filepath.Join(f.home, ".claude", "projects", "-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for blk, hour := range []int{1, 12} {
		for i := range 600 {
			fmt.Fprintf(&b, `{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-11-20T%02d:%02d:%02d.000Z","requestId":"r%d-%d","message":{"id":"m%d-%d","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":9007199254740991,"output_tokens":1}}}`+"\n",
				hour, i/60, i%60, blk, i, blk, i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o := f.opts
	o.Now = func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }
	cs, _ := connect(t, o)
	// The structured result reaches a client as JSON numbers, read here
	// as a float64 (as most clients read them): 2^63-1 is not an int64
	// once it has been through one.
	var out struct {
		Tokens float64  `json:"tokens"`
		Notes  []string `json:"notes"`
	}
	text := call(t, cs, toolUsage, map[string]any{"by": "block", "days": 0}, &out)
	capped := false
	for _, n := range out.Notes {
		capped = capped || strings.Contains(n, "largest 64-bit integer")
	}
	if out.Tokens != math.MaxInt64 || !capped || !strings.Contains(text, "9,223,372,036,854,775,807 tokens") {
		t.Errorf("by block: total tokens %.0f, notes %q: the sum wrapped, and no note says so\n%s", out.Tokens, out.Notes, text)
	}
}

// TestBurnRateCapped: an active block of about 5.4e18 tokens written
// within six seconds burns more than 2^63 tokens a minute; the note of
// usage_summary by block converts that float to an int64, which is not
// defined past 2^63 and gives a negative rate on amd64.
func TestBurnRateCapped(t *testing.T) {
	f := newFixture(t, false)
	dir := filepath.Join(f.home, ".claude", "projects", "-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-11-20T09:00:%02d.%03dZ","requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":9007199254740991,"output_tokens":1}}}`+"\n",
			i/100, i%100*10, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o := f.opts
	o.Now = func() time.Time { return time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC) }
	cs, _ := connect(t, o)
	var out UsageResult
	text := call(t, cs, toolUsage, map[string]any{"by": "block", "days": 0}, &out)
	found := false
	for _, n := range out.Notes {
		if strings.HasPrefix(n, "active block:") {
			found = true
			if strings.HasPrefix(n, "active block: -") {
				t.Errorf("burn rate note %q: a negative rate\n%s", n, text)
			}
		}
	}
	if !found {
		t.Fatalf("no active block note: %q\n%s", out.Notes, text)
	}
}
