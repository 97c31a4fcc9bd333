package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteProjectFromStore: for a caller over HTTP, a tool's project is
// looked up among the projects of the usage store alone, never on the
// disk: a folder that exists and one that does not get the same answer, and
// a folder's configs are not read, so that the answers tell nothing of the
// machine's folders. A project of the store is found by its path or its
// folder's name. Over stdio the caller is the serving user's own agent, and
// a folder is still taken as a project.
func TestRemoteProjectFromStore(t *testing.T) {
	f := newFixture(t, true)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers": {"canary-elsewhere": {"command": "canary-elsewhere-cmd"}}}`
	if err := os.WriteFile(filepath.Join(elsewhere, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(filepath.Dir(elsewhere), "missing")
	stored := f.manifest.Requests[0].Project

	remote := f.opts
	remote.Remote, remote.NoLaunch = true, true
	rcs, _ := connect(t, remote)
	for _, tool := range []string{toolUsage, toolRecent, toolFindings} {
		there := callErr(t, rcs, tool, map[string]any{"project": elsewhere})
		gone := callErr(t, rcs, tool, map[string]any{"project": missing})
		if strings.ReplaceAll(there, elsewhere, missing) != gone {
			t.Errorf("%s over HTTP: a folder that exists: %q; one that does not: %q", tool, there, gone)
		}
		if !strings.Contains(there, "no session of such a project in the usage store") || strings.Contains(there, "folder") || strings.Contains(there, "canary") {
			t.Errorf("%s over HTTP, a folder not in the store: %q", tool, there)
		}
	}
	for _, p := range []string{stored, filepath.Base(stored)} {
		var u UsageResult
		call(t, rcs, toolUsage, map[string]any{"project": p}, &u)
		if u.Requests == 0 {
			t.Errorf("usage_summary over HTTP of project %q of the store: no requests", p)
		}
		var s SessionsResult
		call(t, rcs, toolRecent, map[string]any{"project": p}, &s)
		if len(s.Sessions) == 0 {
			t.Errorf("recent_sessions over HTTP of project %q of the store: no session", p)
		}
		var fr FindingsResult
		call(t, rcs, toolFindings, map[string]any{"project": p}, &fr)
	}

	// Over stdio, as before: a folder is a project.
	lcs, _ := connect(t, f.opts)
	var u UsageResult
	call(t, lcs, toolUsage, map[string]any{"project": elsewhere}, &u)
	if u.Requests != 0 {
		t.Errorf("usage_summary over stdio of a folder without sessions: %d requests", u.Requests)
	}
	var s SessionsResult
	call(t, lcs, toolRecent, map[string]any{"project": elsewhere}, &s)
	var fr FindingsResult
	call(t, lcs, toolFindings, map[string]any{"project": elsewhere}, &fr)
	if msg := callErr(t, lcs, toolUsage, map[string]any{"project": missing}); !strings.Contains(msg, "no such folder, and no session of such a project in the usage store") {
		t.Errorf("usage_summary over stdio of a missing folder: %q", msg)
	}
}
