package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

func TestPublished(t *testing.T) {
	tests := []struct {
		name, sha   string
		ok          bool
		server      string
		claude      int // 0: none
		model       string
		start       int
		floor       bool
		nameTokens  int
		instrTokens int // -1: unknown
	}{
		{"github, with a Claude figure", "086879383bcdc68ea1b960a141ab1b41cb2a203321c4440553c033b5e9a5344d", true, "github", 18406, "claude-opus-5", 556, false, 179, 377},
		{"airbnb, no Claude figure", "79c3109b4fa4e4735ba1071cacbd98948c6aba20b70c9a4295a78e84850a81e0", true, "airbnb", 0, "", 10, false, 10, 0},
		{"apify, a floor", "45e69bb7d3ab57903ca84555f5bb3851cbc806ae35ce9398eb88eea7f587ec91", true, "apify", 8313, "claude-opus-5", 51, true, 51, -1},
		{"deepwiki, deferring costs more", "3735162916165ab23696fc91fbf626bd99a36ddcd1e15746e91e16c7e336b379", true, "deepwiki", 0, "", 521, false, 14, 507},
		// blender's published Claude row was stale (its hash moved), so
		// the leaderboard carries no Claude figure for its current hash.
		{"blender, stale Claude row", "14c1a93ca0b59e6b394bae642a6eba89f01c8c953076c19ed8ae16c6a0db6e09", true, "blender", 0, "", 151, false, 151, 0},
		{"one hex digit off", "086879383bcdc68ea1b960a141ab1b41cb2a203321c4440553c033b5e9a5344e", false, "", 0, "", 0, false, 0, 0},
		{"upper case is not the published form", strings.ToUpper("086879383bcdc68ea1b960a141ab1b41cb2a203321c4440553c033b5e9a5344d"), false, "", 0, "", 0, false, 0, 0},
		{"empty", "", false, "", 0, "", 0, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := Published(tt.sha)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				if f != (PublishedFigures{}) {
					t.Errorf("figures for a miss: %+v", f)
				}
				return
			}
			if f.Server != tt.server || f.CanonicalSHA256 != tt.sha {
				t.Errorf("server %q sha %q", f.Server, f.CanonicalSHA256)
			}
			switch {
			case tt.claude == 0 && f.ClaudeTokens != nil:
				t.Errorf("claude = %d, want none", *f.ClaudeTokens)
			case tt.claude != 0 && (f.ClaudeTokens == nil || *f.ClaudeTokens != tt.claude):
				t.Errorf("claude = %v, want %d", f.ClaudeTokens, tt.claude)
			}
			if f.ClaudeModel != tt.model {
				t.Errorf("model %q, want %q", f.ClaudeModel, tt.model)
			}
			if (f.ClaudeMethod == PublishedMethod) != (tt.claude != 0) {
				t.Errorf("method %q", f.ClaudeMethod)
			}
			if f.SessionStartTokens != tt.start || f.SessionStartIsFloor != tt.floor || f.ToolNameTokens != tt.nameTokens {
				t.Errorf("session start %d floor %v names %d", f.SessionStartTokens, f.SessionStartIsFloor, f.ToolNameTokens)
			}
			switch {
			case tt.instrTokens < 0 && f.InstructionsTokens != nil:
				t.Errorf("instructions = %d, want unknown", *f.InstructionsTokens)
			case tt.instrTokens >= 0 && (f.InstructionsTokens == nil || *f.InstructionsTokens != tt.instrTokens):
				t.Errorf("instructions = %v, want %d", f.InstructionsTokens, tt.instrTokens)
			}
		})
	}
}

func TestPublishedTable(t *testing.T) {
	m, err := parseLeaderboard(leaderboardCSV)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 69 {
		t.Errorf("%d rows, the leaderboard has 69 measured servers", len(m))
	}
	claude, floors := 0, 0
	for sha, f := range m {
		if f.ClaudeTokens != nil {
			claude++
		}
		if f.SessionStartIsFloor {
			floors++
			if f.InstructionsTokens != nil || f.SessionStartTokens != f.ToolNameTokens {
				t.Errorf("%s: a floor with instructions", f.Server)
			}
		} else if f.InstructionsTokens == nil || f.SessionStartTokens != f.ToolNameTokens+*f.InstructionsTokens {
			t.Errorf("%s: session start %d is not names + instructions", f.Server, f.SessionStartTokens)
		}
		if sha != f.CanonicalSHA256 || strings.ToLower(sha) != sha {
			t.Errorf("%s: key %s", f.Server, sha)
		}
	}
	// The reference: 19 current Claude rows, 4 floors.
	if claude != 19 || floors != 4 {
		t.Errorf("%d Claude figures and %d floors, want 19 and 4", claude, floors)
	}
}

// The embedded copy is the shared reference file, byte for byte.
func TestPublishedIsTheReference(t *testing.T) {
	ref, err := os.ReadFile(filepath.Join(testpeers.Shared(t), "reference", "leaderboard.csv"))
	if err != nil {
		t.Skip(err)
	}
	if !bytes.Equal(ref, leaderboardCSV) {
		t.Error("internal/claude/leaderboard.csv differs from ../shared/reference/leaderboard.csv; copy it again")
	}
}

func TestParseLeaderboardErrors(t *testing.T) {
	header := "name,status,tool_count,o200k_tokens,session_start_tokens,session_start_is_floor,tool_name_tokens,instructions_tokens,claude_tokens,claude_model,canonical_sha256,measured_date\n"
	sha := strings.Repeat("a", 64)
	tests := []struct{ name, data, want string }{
		{"empty", "", "reading header"},
		{"missing column", "name,status\nx,measured\n", `no "tool_count" column`},
		{"bad number", header + "x,measured,two,1,1,false,1,0,,," + sha + ",2026-08-19\n", "leaderboard.csv:2: tool_count"},
		{"bad floor flag", header + "x,measured,2,1,1,maybe,1,0,,," + sha + ",2026-08-19\n", "session_start_is_floor"},
		{"short hash", header + "x,measured,2,1,1,false,1,0,,,abc,2026-08-19\n", "not a SHA-256"},
		{"duplicate hash", header + "x,measured,2,1,1,false,1,0,,," + sha + ",2026-08-19\ny,measured,2,1,1,false,1,0,,," + sha + ",2026-08-19\n", "leaderboard.csv:3: y: canonical_sha256 appears twice"},
		{"ragged row", header + "x,measured\n", "wrong number of fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseLeaderboard([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
