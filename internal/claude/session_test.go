package claude

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/token"
)

func ptr(s string) *string { return &s }

func TestSessionStart(t *testing.T) {
	count := token.O200k().Count
	tools := `[{"name":"read_file"},{"name":""},{"description":"x"},{"name":7},{"name":"write_file"}]`
	names := count(`["read_file","write_file"]`)
	long := strings.Repeat("word ", 500) // 2,500 code units
	cut, _ := Cut(long)
	tests := []struct {
		name         string
		tools        string
		instructions *string
		tokens       int
		floor        bool
		instr        int // -1: nil
		claudeCode   int
		wasCut       bool
	}{
		{"names, no instructions", tools, ptr(""), names, false, 0, names, false},
		{"names and instructions are counted apart and summed", tools, ptr("Use read_file first."),
			names + count("Use read_file first."), false, count("Use read_file first."), names + count("Use read_file first."), false},
		{"instructions never captured: a floor", tools, nil, names, true, -1, names, false},
		{"no tools", `[]`, ptr("hi"), count("hi"), false, count("hi"), count("hi"), false},
		{"only unnamed tools", `[{"description":"x"}]`, ptr(""), 0, false, 0, 0, false},
		{"long instructions: deferred-load/v1 counts them whole, Claude Code cuts", tools, &long,
			names + count(long), false, count(long), names + count(cut), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := SessionStart(parseTools(t, []byte(tt.tools)), tt.instructions)
			if s.Method != SessionStartMethod || s.Encoding != "o200k_base" {
				t.Errorf("method %q encoding %q", s.Method, s.Encoding)
			}
			if s.Tokens != tt.tokens || s.IsFloor != tt.floor || s.ClaudeCodeTokens != tt.claudeCode || s.InstructionsCut != tt.wasCut {
				t.Errorf("tokens %d floor %v claude code %d cut %v, want %d %v %d %v",
					s.Tokens, s.IsFloor, s.ClaudeCodeTokens, s.InstructionsCut, tt.tokens, tt.floor, tt.claudeCode, tt.wasCut)
			}
			switch {
			case tt.instr < 0 && (s.InstructionsTokens != nil || s.ClaudeCodeInstructionsTokens != nil):
				t.Errorf("instructions counted although unknown")
			case tt.instr >= 0 && (s.InstructionsTokens == nil || *s.InstructionsTokens != tt.instr):
				t.Errorf("instructions %v, want %d", s.InstructionsTokens, tt.instr)
			}
		})
	}
}

func TestSessionStartNamesAreJSON(t *testing.T) {
	// Names are written as JSON.stringify writes them.
	s := SessionStart(parseTools(t, []byte(`[{"name":"a\"b"},{"name":"c\\d"}]`)), ptr(""))
	if want := token.O200k().Count(`["a\"b","c\\d"]`); s.ToolNameTokens != want {
		t.Errorf("names %d, want %d", s.ToolNameTokens, want)
	}
}

func TestCostsMoreThanLoading(t *testing.T) {
	s := SessionStartLoad{Tokens: 521}
	if !s.CostsMoreThanLoading(359) || s.CostsMoreThanLoading(521) || s.CostsMoreThanLoading(5000) {
		t.Error("CostsMoreThanLoading is wrong")
	}
}

// sessionCapture is a testdata/session file: a capture's tool names and
// its initialize instructions, from the shared corpus.
type sessionCapture struct {
	SHA256       string            `json:"sha256"`
	Tools        []json.RawMessage `json:"tools"`
	Instructions *string           `json:"instructions"`
}

// The three published servers with instructions whose capture (same hash)
// and instructions are in the shared corpus reproduce the leaderboard's
// session start exactly, names and instructions halves both. xcodebuildmcp's
// instructions (2,254 code units) are over the 2 KB cut: the published
// figure counts them whole.
func TestSessionStartMatchesLeaderboardWithInstructions(t *testing.T) {
	for _, name := range []string{"context7", "everything", "xcodebuildmcp"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "session", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var c sessionCapture
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatal(err)
			}
			tools, _ := json.Marshal(c.Tools)
			s := SessionStart(parseTools(t, tools), c.Instructions)
			pub, ok := Published(c.SHA256)
			if !ok {
				t.Fatalf("%s is not on the leaderboard", c.SHA256)
			}
			if s.Tokens != pub.SessionStartTokens || s.ToolNameTokens != pub.ToolNameTokens ||
				s.InstructionsTokens == nil || pub.InstructionsTokens == nil || *s.InstructionsTokens != *pub.InstructionsTokens || s.IsFloor {
				t.Errorf("ours %d = %d + %v, published %d = %d + %v", s.Tokens, s.ToolNameTokens, s.InstructionsTokens,
					pub.SessionStartTokens, pub.ToolNameTokens, pub.InstructionsTokens)
			}
			if wantCut := name == "xcodebuildmcp"; s.InstructionsCut != wantCut || (s.ClaudeCodeTokens < s.Tokens) != wantCut {
				t.Errorf("cut %v, claude code %d vs %d", s.InstructionsCut, s.ClaudeCodeTokens, s.Tokens)
			}
		})
	}
}

// Every published capture reproduces the leaderboard's tool-name tokens;
// where the leaderboard records no instructions (0) or a floor, the whole
// session-start figure too.
func TestSessionStartMatchesLeaderboard(t *testing.T) {
	shared := testpeers.Shared(t)
	f, err := os.Open(filepath.Join(shared, "reference", "leaderboard.csv"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	names, whole := 0, 0
	for _, row := range rows[1:] {
		name := row[col["name"]]
		m := readMeasurement(t, shared, name)
		if m.CanonicalSHA256 != row[col["canonical_sha256"]] {
			t.Errorf("%s: published/ holds another capture", name)
			continue
		}
		pub, _ := Published(m.CanonicalSHA256)
		var instr *string
		switch {
		case pub.SessionStartIsFloor:
			// never captured
		case *pub.InstructionsTokens == 0:
			instr = ptr("")
		default:
			// The instructions are not in published/: names only.
			s := SessionStart(m.tools, nil)
			if s.ToolNameTokens != pub.ToolNameTokens {
				t.Errorf("%s: names %d, published %d", name, s.ToolNameTokens, pub.ToolNameTokens)
			}
			names++
			continue
		}
		s := SessionStart(m.tools, instr)
		if s.Tokens != pub.SessionStartTokens || s.IsFloor != pub.SessionStartIsFloor || s.ToolNameTokens != pub.ToolNameTokens {
			t.Errorf("%s: %d (floor %v), published %d (floor %v)", name, s.Tokens, s.IsFloor, pub.SessionStartTokens, pub.SessionStartIsFloor)
		}
		names++
		whole++
	}
	// 69 rows; 17 have instructions that published/ does not carry.
	if names != 69 || whole != 52 {
		t.Errorf("checked names on %d rows and whole figures on %d, want 69 and 52", names, whole)
	}
}
