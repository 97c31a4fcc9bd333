package claude

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/canon/canontest"
)

// Cut keeps a prefix of whole characters, within the limit, and marks
// exactly the strings it shortened.
func FuzzCut(f *testing.F) {
	f.Add("short")
	f.Add(strings.Repeat("a", CutLimit-1) + "😀b")
	f.Add(strings.Repeat("é", CutLimit+1))
	f.Add(strings.Repeat("\xff", CutLimit+3))
	for _, s := range canontest.Seeds() {
		f.Add(string(s))
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, cut := Cut(s)
		if !cut {
			if got != s || UTF16Len(s) > CutLimit {
				t.Fatalf("not cut, yet %d units and changed=%v", UTF16Len(s), got != s)
			}
			return
		}
		kept, ok := strings.CutSuffix(got, CutMarker)
		if !ok || !strings.HasPrefix(s, kept) || UTF16Len(s) <= CutLimit {
			t.Fatalf("cut wrongly: %d units in, %d kept", UTF16Len(s), UTF16Len(kept))
		}
		if n := UTF16Len(kept); n > CutLimit || n < CutLimit-1 {
			t.Fatalf("kept %d units", n)
		}
		if utf8.ValidString(s) && !utf8.ValidString(kept) {
			t.Fatal("split a character")
		}
	})
}

// Any tools array gives a request shape that is canonical JSON with three
// fields per tool, and a session start that does not fail.
func FuzzRequestShape(f *testing.F) {
	f.Add([]byte(`[{"name":"t","description":"d","inputSchema":{"type":"object"}}]`), "srv")
	f.Add([]byte(`[{"name":"a\ud800","inputSchema":[1]},null,{"name":""},{"name":"x","description":1e400}]`), "my.server")
	f.Add([]byte(`[]`), "")
	for _, n := range canontest.SeedSizes {
		f.Add(canontest.ToolsArray(n), "srv")
	}
	for _, s := range canontest.Seeds() {
		f.Add(s, "boundary")
	}
	f.Fuzz(func(t *testing.T, data []byte, server string) {
		v, err := canon.Parse(data)
		if err != nil || v.Kind() != canon.Array {
			return
		}
		for _, s := range []Shape{RequestShape(server, v.Elems()), APIShape(v.Elems())} {
			again, err := canon.Transform(s.JSON)
			if err != nil || !bytes.Equal(again, s.JSON) {
				t.Fatalf("not canonical: %s (%v)", s.JSON, err)
			}
			var tools []map[string]json.RawMessage
			if err := json.Unmarshal(s.JSON, &tools); err != nil {
				t.Fatalf("not a JSON array of objects: %s", s.JSON)
			}
			if len(tools) != s.ToolCount || s.ToolCount+s.Skipped != len(v.Elems()) {
				t.Fatalf("%d tools, %d counted, %d skipped of %d", len(tools), s.ToolCount, s.Skipped, len(v.Elems()))
			}
			for _, tool := range tools {
				if len(tool) != 3 {
					t.Fatalf("tool with %d fields", len(tool))
				}
			}
		}
		instr := string(data)
		ss := SessionStart(server, v.Elems(), &instr)
		if ss.Tokens < ss.ToolNameTokens || len(ss.AlwaysLoadTools) == 0 && ss.ClaudeCodeTokens > ss.Tokens+8 {
			t.Fatalf("session start %+v", ss)
		}
	})
}

// The leaderboard reader returns an error, never a panic.
func FuzzParseLeaderboard(f *testing.F) {
	f.Add(leaderboardCSV)
	f.Add([]byte("name,status\n\"x"))
	for _, s := range canontest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseLeaderboard(data)
		if err != nil && m != nil {
			t.Fatal("a result with an error")
		}
	})
}

// retryAfter never gives a negative wait.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "3", "1.5", "-2", "NaN", "Inf", "Mon, 02 Jan 2006 15:04:05 GMT"} {
		f.Add(s)
	}
	for _, s := range canontest.SeedLines() {
		f.Add(string(s))
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := retryAfter(s); d < 0 || (!ok && d != 0) {
			t.Fatalf("retryAfter(%q) = %v %v", s, d, ok)
		}
	})
}
