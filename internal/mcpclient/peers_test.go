//go:build unix

package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/internal/token"
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

// corpusMeta is the part of a corpus meta.json the tests compare.
type corpusMeta struct {
	Tools      int    `json:"tools"`
	O200kTotal int    `json:"o200k_total"`
	Sha256     string `json:"sha256"`
}

// assertCorpus checks that the raw tools of c canonicalize to the corpus
// capture of the same server version byte for byte, with the same count.
func assertCorpus(t *testing.T, name string, c *Capture) {
	t.Helper()
	dir := filepath.Join(testpeers.Shared(t), "corpus", name)
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta corpusMeta
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	tools := c.Tools()
	joined := append([]byte("["), bytes.Join(rawSlices(tools), []byte(","))...)
	joined = append(joined, ']')
	got, err := canon.Transform(joined)
	if err != nil {
		t.Fatalf("canonical form of the captured tools: %v", err)
	}
	if len(tools) != meta.Tools {
		t.Errorf("%s: %d tools, corpus has %d", name, len(tools), meta.Tools)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: canonical tools differ from the corpus (%d bytes, corpus %d)", name, len(got), len(want))
	}
	if n := token.O200k().Count(string(got)); n != meta.O200kTotal {
		t.Errorf("%s: %d tokens, corpus %d", name, n, meta.O200kTotal)
	}
}

func rawSlices(rs []json.RawMessage) [][]byte {
	out := make([][]byte, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}

// TestPeersStdio measures the npm reference servers over stdio, both
// captures, and compares them with the corpus captures of the same
// versions.
func TestPeersStdio(t *testing.T) {
	for _, tc := range []struct {
		corpus, bin string
		args        func(dir string) []string
		env         func(dir string) map[string]string
	}{
		{"everything", "mcp-server-everything", func(string) []string { return []string{"stdio"} }, nil},
		{"filesystem", "mcp-server-filesystem", func(dir string) []string { return []string{dir} }, nil},
		{"memory", "mcp-server-memory", nil, func(dir string) map[string]string {
			return map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}
		}},
	} {
		t.Run(tc.corpus, func(t *testing.T) {
			t.Parallel()
			bin := testpeers.NPMBin(t, tc.bin)
			dir := t.TempDir()
			target := Target{Name: tc.corpus, Command: bin, Cwd: dir}
			if tc.args != nil {
				target.Args = tc.args(dir)
			}
			if tc.env != nil {
				target.Env = tc.env(dir)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := Measure(ctx, target, Options{Timeout: 20 * time.Second})
			if r.Status != StatusMeasured {
				t.Fatalf("status %s: %s\n%s", r.Status, r.Detail, r.StderrTail)
			}
			if r.Second == nil {
				t.Fatal("no second capture")
			}
			assertCorpus(t, tc.corpus, r.First)
			assertCorpus(t, tc.corpus, r.Second)
			if r.First.Transport != "stdio" || r.First.ServerName == "" {
				t.Errorf("capture: transport %q server %q", r.First.Transport, r.First.ServerName)
			}
		})
	}
}

// startHTTPPeer starts server-everything in an HTTP mode on a loopback port
// and returns its base URL once it accepts connections.
func startHTTPPeer(t *testing.T, mode string) string {
	t.Helper()
	node := testpeers.Node(t)
	bin := testpeers.NPMBin(t, "mcp-server-everything")
	port := freePort(t)
	preload, err := filepath.Abs("testdata/loopback.cjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--require", preload, bin, mode)
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.Dir = t.TempDir()
	setProcessGroup(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		signalGroup(cmd, true)
		<-done
	})
	addr := "127.0.0.1:" + port
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		select {
		case <-done:
			t.Fatalf("server-everything %s exited: %s", mode, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %s", mode, addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func TestPeerEverythingHTTP(t *testing.T) {
	want := corpusTools(t, "everything")
	for _, tc := range []struct {
		mode, path, transport, used string
	}{
		{"streamableHttp", "/mcp", "", "http"},
		{"sse", "/sse", "", "sse"},
		{"sse", "/sse", "sse", "sse"},
	} {
		t.Run(tc.mode+"/"+tc.transport, func(t *testing.T) {
			t.Parallel()
			base := startHTTPPeer(t, tc.mode)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := Measure(ctx, Target{URL: base + tc.path, Transport: tc.transport}, Options{Timeout: 20 * time.Second})
			if r.Status != StatusMeasured {
				t.Fatalf("status %s: %s", r.Status, r.Detail)
			}
			if r.First.Transport != tc.used {
				t.Errorf("transport %s, want %s", r.First.Transport, tc.used)
			}
			if got := toolNames(t, r.First); !slices.Equal(got, want) {
				t.Errorf("tools %v, want %v", got, want)
			}
			assertCorpus(t, "everything", r.First)
			assertCorpus(t, "everything", r.Second)
			t.Logf("%s %v %v", r.First.ProtocolVersion, r.First.Warnings, r.Elapsed)
		})
	}
}
