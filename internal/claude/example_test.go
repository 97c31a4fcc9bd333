package claude_test

import (
	"fmt"
	"os"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/claude"
)

func ExampleDescribe() {
	data, err := os.ReadFile("testdata/captures/pandoc.json")
	if err != nil {
		panic(err)
	}
	tools, err := canon.Parse(data)
	if err != nil {
		panic(err)
	}
	none := ""
	r := claude.Describe(claude.Input{
		Server:         "pandoc",
		Tools:          tools.Elems(),
		Instructions:   &none,
		HeadlineTokens: 1425,
		CaptureSHA256:  "4d8f9de25d7aa74f0fb5e0c828a904d74b3934e62cb1032bc6cf0fada1f0d952",
	})
	fmt.Println("headline:", r.HeadlineTokens)
	fmt.Println("Claude Code request:", r.Request.Tokens, "descriptions cut:", r.Request.DescriptionsCut)
	fmt.Println("session start:", r.SessionStart.Tokens)
	fmt.Println("tool-use system prompt on", r.Model+":", r.ToolUseOverhead.Auto)
	fmt.Println("published on the leaderboard:", r.Published != nil, "with a Claude figure:", r.Published.ClaudeTokens != nil)
	// Output:
	// headline: 1425
	// Claude Code request: 904 descriptions cut: 1
	// session start: 5
	// tool-use system prompt on claude-sonnet-5: 354
	// published on the leaderboard: true with a Claude figure: false
}
