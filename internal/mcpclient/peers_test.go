package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// corpusTools reads the tool names of a corpus capture.
func corpusTools(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testpeers.Shared(t), "corpus", name, "capture.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	return names
}

func toolNames(t *testing.T, c *Capture) []string {
	t.Helper()
	var names []string
	for _, raw := range c.Tools() {
		var tool struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func TestPeerEverythingStdio(t *testing.T) {
	bin := testpeers.NPMBin(t, "mcp-server-everything")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := Measure(ctx, Target{Command: bin, Args: []string{"stdio"}, Cwd: t.TempDir()}, Options{Timeout: 20 * time.Second})
	if r.Status != StatusMeasured {
		t.Fatalf("status %s: %s\n%s", r.Status, r.Detail, r.StderrTail)
	}
	t.Logf("%+v", r.First.Warnings)
	t.Logf("pv %s server %s %s", r.First.ProtocolVersion, r.First.ServerName, r.First.ServerVersion)
	t.Logf("names %v", toolNames(t, r.First))
	t.Logf("elapsed %v", r.Elapsed)
}
