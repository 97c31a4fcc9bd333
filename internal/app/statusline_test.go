package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/usage"
)

// TestStatuslineMemo: the figure of a project's MCP definitions is kept
// beside the measurement cache and used while the files it came from are
// unchanged and it is young; a memo that is stale, unreadable or from the
// future is worked out again, and a missing store leaves the store's parts
// out without an error.
func TestStatuslineMemo(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "p")
	os.MkdirAll(project, 0o755)
	cacheDir := filepath.Join(home, "cache", "measurements")
	now := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	m := &Machine{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}, Now: func() time.Time { return now }, CacheDir: cacheDir, DBPath: filepath.Join(home, "none.db")}
	var in usage.StatusInput
	in.Model.DisplayName = "Opus"
	in.Workspace.ProjectDir = project
	line := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: time.Second})
	if line.MCPDefinitionTokens == nil || *line.MCPDefinitionTokens != 0 || line.BlockChecked || line.Today != nil || len(line.Late) != 0 {
		t.Fatalf("first line %+v", line)
	}
	memo := statusMemoPath(cacheDir, project)
	d, ok := readStatusMemo(memo, cacheDir, now)
	if !ok {
		t.Fatalf("no fresh memo at %s", memo)
	}
	// A memo says what it says while fresh: a figure written into it is
	// shown.
	d.Tokens, d.Servers = 4321, 1
	writeStatusMemo(memo, cacheDir, d)
	if line := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: time.Second}); *line.MCPDefinitionTokens != 4321 {
		t.Errorf("the fresh memo is not used: %d", *line.MCPDefinitionTokens)
	}
	for name, at := range map[string]time.Time{
		"stale":  now.Add(statusMemoAge + time.Second),
		"future": now.Add(-time.Hour),
	} {
		m.Now = func() time.Time { return at }
		if line := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: time.Second}); *line.MCPDefinitionTokens != 0 {
			t.Errorf("%s: the memo is used (%d)", name, *line.MCPDefinitionTokens)
		}
		writeStatusMemo(memo, cacheDir, d)
	}
	m.Now = func() time.Time { return now }
	// A change of the cache folder (a measurement added) makes it stale.
	os.WriteFile(filepath.Join(cacheDir, "new-entry"), []byte("x"), 0o600)
	if _, ok := readStatusMemo(memo, cacheDir, now); ok {
		t.Error("the memo outlives a change of the cache")
	}
	os.WriteFile(memo, []byte("{not json"), 0o600)
	if line := m.Statusline(context.Background(), StatuslineOptions{Input: in, Budget: time.Second}); line.MCPDefinitionTokens == nil || *line.MCPDefinitionTokens != 0 {
		t.Errorf("an unreadable memo: %+v", line)
	}
}
