package claude

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "captures", "airbnb.json"))
	if err != nil {
		t.Fatal(err)
	}
	tools := parseTools(t, data)
	const sha = "79c3109b4fa4e4735ba1071cacbd98948c6aba20b70c9a4295a78e84850a81e0"
	r := Describe(Input{Server: "airbnb", Tools: tools, Instructions: ptr(""), HeadlineTokens: 486, CaptureSHA256: sha})
	if r.Schema != ReportSchema || r.Model != DefaultModel || r.ToolUseOverhead == nil || r.ToolUseOverhead.Auto != 354 {
		t.Errorf("schema %q model %q overhead %+v", r.Schema, r.Model, r.ToolUseOverhead)
	}
	if r.Published == nil || r.Published.Server != "airbnb" || r.Published.ClaudeTokens != nil {
		t.Errorf("published %+v", r.Published)
	}
	if r.SessionStart.Tokens != 10 || r.DeferringCostsMore {
		t.Errorf("session start %d, costs more %v", r.SessionStart.Tokens, r.DeferringCostsMore)
	}
	if r.Request.ToolCount != 2 || r.Claude != nil {
		t.Errorf("request %d tools, claude %v", r.Request.ToolCount, r.Claude)
	}

	// A changed capture gets no published figures; an unknown model no
	// overhead; a session start over the definitions is flagged.
	r = Describe(Input{Server: "x", Tools: tools, Instructions: ptr(strings.Repeat("long instructions ", 100)), HeadlineTokens: 100,
		CaptureSHA256: strings.Repeat("0", 64), Model: "claude-unknown-9"})
	if r.Published != nil || r.ToolUseOverhead != nil || !r.DeferringCostsMore {
		t.Errorf("published %v overhead %v costs more %v", r.Published, r.ToolUseOverhead, r.DeferringCostsMore)
	}

	// Counting with Claude's tokenizer: the loopback API gets exactly the
	// request shape.
	f, srv := newFake(t)
	c, _ := testClient(srv.URL, testKey)
	if err := r.Count(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if r.Claude == nil || r.Claude.Tokens != len(r.Request.JSON)/10 || string(f.bodies[0]["tools"]) != string(r.Request.JSON) {
		t.Errorf("claude %+v", r.Claude)
	}
	out, err := json.Marshal(r)
	if err != nil || strings.Contains(string(out), testKey) {
		t.Errorf("json: %v", err)
	}
	// A failed count leaves the report as it was.
	r.Claude = nil
	bad, _ := testClient(srv.URL, "wrong")
	if err := r.Count(context.Background(), bad); err == nil || r.Claude != nil {
		t.Errorf("err %v claude %v", err, r.Claude)
	}
}
