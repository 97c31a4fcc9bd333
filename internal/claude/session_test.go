package claude

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon"
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
			s := SessionStart("srv", parseTools(t, []byte(tt.tools)), tt.instructions)
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
	s := SessionStart("srv", parseTools(t, []byte(`[{"name":"a\"b"},{"name":"c\\d"}]`)), ptr(""))
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
			s := SessionStart(name, parseTools(t, tools), c.Instructions)
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
			s := SessionStart(name, m.tools, nil)
			if s.ToolNameTokens != pub.ToolNameTokens {
				t.Errorf("%s: names %d, published %d", name, s.ToolNameTokens, pub.ToolNameTokens)
			}
			names++
			continue
		}
		s := SessionStart(name, m.tools, instr)
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

func TestSessionStartAlwaysLoad(t *testing.T) {
	tools := parseTools(t, []byte(`[{"name":"a","_meta":{"anthropic/alwaysLoad":true},"description":"Always here.","inputSchema":{"type":"object"}},`+
		`{"name":"b","_meta":{"anthropic/alwaysLoad":false}},{"name":"c","_meta":{"anthropic/alwaysLoad":"true"}},{"name":"d"}]`))
	s := SessionStart("srv", tools, ptr("Hi."))
	count := token.O200k().Count
	// deferred-load/v1 counts every name; Claude Code loads a in full.
	if s.ToolNameTokens != count(`["a","b","c","d"]`) || s.ClaudeCodeToolNameTokens != count(`["b","c","d"]`) {
		t.Errorf("names %d / %d", s.ToolNameTokens, s.ClaudeCodeToolNameTokens)
	}
	full := count(`[{"name":"mcp__srv__a","description":"Always here.","input_schema":{"type":"object"}}]`)
	if strings.Join(s.AlwaysLoadTools, ",") != "a" || s.AlwaysLoadTokens != full {
		t.Errorf("always load %v %d, want [a] %d", s.AlwaysLoadTools, s.AlwaysLoadTokens, full)
	}
	if s.ClaudeCodeTokens != s.ClaudeCodeToolNameTokens+full+count("Hi.") || s.Tokens != s.ToolNameTokens+count("Hi.") {
		t.Errorf("claude code %d, v1 %d", s.ClaudeCodeTokens, s.Tokens)
	}
}

// firecrawl 3.26.0 (shared corpus) marks two tools to load up front.
func TestSessionStartAlwaysLoadFirecrawl(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testpeers.Shared(t), "corpus", "firecrawl", "canonical.json"))
	if err != nil {
		t.Skip(err)
	}
	tools := parseTools(t, data)
	s := SessionStart("firecrawl", tools, ptr(""))
	if got := strings.Join(s.AlwaysLoadTools, ","); got != "firecrawl_scrape,firecrawl_search" {
		t.Fatalf("always load %s", got)
	}
	var two []*canon.Value
	for _, tool := range tools {
		if n := tool.Get("name").Str(); n == "firecrawl_scrape" || n == "firecrawl_search" {
			two = append(two, tool)
		}
	}
	if want := RequestShape("firecrawl", two).Tokens; s.AlwaysLoadTokens != want || s.ClaudeCodeTokens <= s.Tokens {
		t.Errorf("always-load tokens %d, want %d; claude code %d vs v1 %d", s.AlwaysLoadTokens, want, s.ClaudeCodeTokens, s.Tokens)
	}
}

func TestAddSessionStart(t *testing.T) {
	one, two := 1, 2
	a := SessionStartLoad{Tokens: 10, ToolNameTokens: 9, ToolNames: 3, InstructionsTokens: &one, ClaudeCodeTokens: 10, ClaudeCodeInstructionsTokens: &one, AlwaysLoadTools: []string{"x"}}
	b := SessionStartLoad{Tokens: 7, ToolNameTokens: 5, ToolNames: 2, InstructionsTokens: &two, ClaudeCodeTokens: 6, ClaudeCodeInstructionsTokens: &one, InstructionsCut: true}
	sum := AddSessionStart(a, b)
	if sum.Tokens != 17 || sum.ToolNameTokens != 14 || sum.ToolNames != 5 || sum.ClaudeCodeTokens != 16 || sum.IsFloor ||
		*sum.InstructionsTokens != 3 || *sum.ClaudeCodeInstructionsTokens != 2 || !sum.InstructionsCut || len(sum.AlwaysLoadTools) != 1 {
		t.Errorf("sum %+v", sum)
	}
	floor := AddSessionStart(a, SessionStartLoad{Tokens: 4, ToolNameTokens: 4, IsFloor: true})
	if !floor.IsFloor || floor.Tokens != 14 || floor.InstructionsTokens != nil {
		t.Errorf("floor %+v", floor)
	}
	if none := AddSessionStart(); none.Tokens != 0 || none.IsFloor || none.InstructionsTokens == nil || *none.InstructionsTokens != 0 || none.Method != SessionStartMethod {
		t.Errorf("empty %+v", none)
	}
}
