package token

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// corpusServer is one tools/list capture with the counts tiktoken 1.0.22
// gave (meta.json of the corpus).
type corpusServer struct {
	name      string
	canonical string
	tools     []string // the canonical bytes of each tool
	total     int
	perTool   []int
}

func loadCorpus(tb testing.TB, dir string) []corpusServer {
	tb.Helper()
	metas, err := filepath.Glob(filepath.Join(dir, "*", "meta.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []corpusServer
	for _, metaPath := range metas {
		d := filepath.Dir(metaPath)
		canon, err := os.ReadFile(filepath.Join(d, "canonical.json"))
		if err != nil {
			tb.Fatal(err)
		}
		raw, err := os.ReadFile(metaPath)
		if err != nil {
			tb.Fatal(err)
		}
		var meta struct {
			Total   int `json:"o200k_total"`
			PerTool []struct {
				Name  string `json:"name"`
				O200k int    `json:"o200k"`
			} `json:"per_tool"`
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			tb.Fatalf("%s: %v", metaPath, err)
		}
		var tools []json.RawMessage
		if err := json.Unmarshal(canon, &tools); err != nil {
			tb.Fatalf("%s: %v", d, err)
		}
		if len(tools) != len(meta.PerTool) {
			tb.Fatalf("%s: %d tools, meta.json lists %d", d, len(tools), len(meta.PerTool))
		}
		s := corpusServer{name: filepath.Base(d), canonical: string(canon), total: meta.Total}
		for i, tool := range tools {
			s.tools = append(s.tools, string(tool))
			s.perTool = append(s.perTool, meta.PerTool[i].O200k)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		tb.Fatalf("no corpus under %s", dir)
	}
	return out
}

func checkCorpus(t *testing.T, servers []corpusServer) {
	c := O200k()
	for _, s := range servers {
		if got := c.Count(s.canonical); got != s.total {
			t.Errorf("%s: canonical.json = %d tokens, want %d", s.name, got, s.total)
		}
		for i, tool := range s.tools {
			if got := c.Count(tool); got != s.perTool[i] {
				t.Errorf("%s: tool %d = %d tokens, want %d", s.name, i, got, s.perTool[i])
			}
		}
	}
}

func TestCorpusTestdata(t *testing.T) {
	checkCorpus(t, loadCorpus(t, filepath.Join("testdata", "corpus")))
}

func TestCorpusShared(t *testing.T) {
	servers := loadCorpus(t, filepath.Join(testpeers.Shared(t), "corpus"))
	if len(servers) < 50 {
		t.Fatalf("shared corpus has %d servers", len(servers))
	}
	checkCorpus(t, servers)
}
