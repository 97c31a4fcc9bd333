package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTokenSumsCapped: 1,100 requests of 2^53-1 input tokens and as many
// cache writes each (the most a line may record) sum past the largest
// int64. The sums stop there, and usage and blocks say so (a warning in
// the text and on stderr, tokensCapped in the JSON), and so do findings
// (its cache finding's writes) and report (its days, sessions and
// projects): a warning on stderr, tokensCapped in the JSON. Under it,
// nothing is said.
func TestTokenSumsCapped(t *testing.T) {
	for _, n := range []int{1100, 2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			root := t.TempDir()
			home := filepath.Join(root, "home")
			vars := map[string]string{"HOME": home, "TZ": "UTC", "XDG_DATA_HOME": filepath.Join(root, "data")}
			getenv := func(k string) string { return vars[k] }
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, `{"type":"assistant","sessionId":"s1","cwd":"/p","timestamp":"2026-11-20T09:%02d:%02d.000Z","requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":9007199254740991,"cache_creation_input_tokens":9007199254740991,"output_tokens":20}}}`+"\n", i/60%60, i%60, i, i)
			}
			path := filepath.Join(home, ".claude", "projects", "-p", "s1.jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(args ...string) (string, string) {
				t.Helper()
				var stdout, stderr bytes.Buffer
				env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Environ: func() []string { return nil },
					Now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }}
				if code := Run(env, args); code != ExitOK {
					t.Fatalf("mcpcost %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
				}
				return stdout.String(), stderr.String()
			}
			capped := n > 1000
			for _, cmd := range []string{"usage", "blocks", "findings", "report"} {
				out, _ := run(cmd, "--json")
				type finding struct {
					Type     string `json:"type"`
					Evidence struct {
						CacheWrites int64 `json:"cacheWrites"`
					} `json:"evidence"`
				}
				var doc struct {
					TokensCapped *bool     `json:"tokensCapped"`
					Findings     []finding `json:"findings"`
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatal(err)
				}
				if doc.TokensCapped == nil || *doc.TokensCapped != capped {
					t.Errorf("%s --json: tokensCapped %v, want %v", cmd, doc.TokensCapped, capped)
				}
				if cmd == "findings" {
					// The writes of the day stop at the largest int64 (they
					// wrapped below zero, and the finding was lost).
					want := int64(n) * 9007199254740991
					if capped {
						want = math.MaxInt64
					}
					i := slices.IndexFunc(doc.Findings, func(f finding) bool { return f.Type == "cache-inefficiency" })
					if i < 0 || doc.Findings[i].Evidence.CacheWrites != want {
						t.Errorf("findings --json: findings %+v, want a cache-inefficiency of %d writes", doc.Findings, want)
					}
				}
				for _, args := range [][]string{{cmd, "--no-ingest"}, {cmd, "--no-ingest", "--markdown"}} {
					if cmd == "blocks" && len(args) == 3 {
						continue
					}
					out, errs := run(args...)
					words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
					said := strings.Contains(errs, "warning: token sums shown as 9,223,372,036,854,775,807 reached the largest 64-bit integer")
					if cmd == "usage" || cmd == "blocks" {
						said = said && strings.Contains(words(out), "reached the largest 64-bit integer")
					}
					if said != capped {
						t.Errorf("mcpcost %s: the warning said %v, want %v\n%s\n%s", strings.Join(args, " "), said, capped, out, errs)
					}
				}
			}
		})
	}
}
