package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcost/mcpcost/internal/transcript/transcripttest"
)

// TestGenerateLargeAgentDBs writes, when MCPCOST_LARGE_AGENTDB names a
// folder, an opencode.db and a Goose sessions.db of 500 MB of messages
// each under it (opencode/ and goose/), for measuring an ingest's memory.
func TestGenerateLargeAgentDBs(t *testing.T) {
	dir := os.Getenv("MCPCOST_LARGE_AGENTDB")
	if dir == "" {
		t.Skip("MCPCOST_LARGE_AGENTDB is not set")
	}
	for _, d := range []string{"opencode", "goose"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	n, err := transcripttest.LargeOpencodeDB(filepath.Join(dir, "opencode", "opencode.db"), 1, 500<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("opencode.db: %d messages", n)
	n, err = transcripttest.LargeGooseDB(filepath.Join(dir, "goose", "sessions.db"), 1, 500<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sessions.db: %d messages", n)
}
