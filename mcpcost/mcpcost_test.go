package mcpcost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/cli"
	"github.com/mcpcost/mcpcost/internal/testpeers"
	"github.com/mcpcost/mcpcost/mcpcost"
)

var update = flag.Bool("update", false, "rewrite testdata/api.golden")

// cliReport is the part of "mcpcost measure --json" the package's figures
// are compared with.
type cliReport struct {
	Status          string `json:"status"`
	TotalTokens     int    `json:"totalTokens"`
	ToolCount       int    `json:"toolCount"`
	CanonicalSha256 string `json:"canonicalSha256"`
	CanonicalBytes  int    `json:"canonicalBytes"`
	SumOfToolTokens int    `json:"sumOfToolTokens"`
	Tools           []struct {
		Name              string `json:"name"`
		Index             int    `json:"index"`
		Tokens            int    `json:"tokens"`
		Bytes             int    `json:"bytes"`
		DescriptionTokens int    `json:"descriptionTokens"`
		InputSchemaTokens int    `json:"inputSchemaTokens"`
		Parts             []struct {
			Name   string `json:"name"`
			Tokens int    `json:"tokens"`
		} `json:"parts"`
	} `json:"tools"`
	Extras *struct {
		InstructionsTokens int `json:"instructionsTokens"`
		Prompts            int `json:"prompts"`
		PromptsTokens      int `json:"promptsTokens"`
		Resources          int `json:"resources"`
		ResourcesTokens    int `json:"resourcesTokens"`
		SessionStartTokens int `json:"sessionStartTokens"`
	} `json:"extras"`
	Claude struct {
		Request struct {
			Tokens int `json:"tokens"`
			Bytes  int `json:"bytes"`
		} `json:"request"`
		SessionStart struct {
			Tokens         int  `json:"tokens"`
			IsFloor        bool `json:"isFloor"`
			ToolNameTokens int  `json:"toolNameTokens"`
		} `json:"sessionStart"`
	} `json:"claude"`
}

// runMeasure runs "mcpcost measure --json args..." in process.
func runMeasure(t *testing.T, args ...string) cliReport {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Main(append([]string{"measure", "--json"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("mcpcost measure %v: exit %d\n%s", args, code, errb.String())
	}
	var r cliReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("mcpcost measure %v: %v", args, err)
	}
	return r
}

// sameAsCLI checks every figure of m against measure's report.
func sameAsCLI(t *testing.T, what string, m *mcpcost.Measurement, r cliReport) {
	t.Helper()
	type totals struct {
		Status                            string
		Total, Count, Bytes, Sum          int
		SHA                               string
		Request, RequestBytes, Start, Nms int
		Floor                             bool
	}
	got := totals{m.Status, m.TotalTokens, m.ToolCount, m.CanonicalBytes, m.SumOfToolTokens, m.CanonicalSHA256,
		m.Claude.RequestTokens, m.Claude.RequestBytes, m.Claude.SessionStartTokens, m.Claude.ToolNameTokens, m.Claude.SessionStartIsFloor}
	want := totals{r.Status, r.TotalTokens, r.ToolCount, r.CanonicalBytes, r.SumOfToolTokens, r.CanonicalSha256,
		r.Claude.Request.Tokens, r.Claude.Request.Bytes, r.Claude.SessionStart.Tokens, r.Claude.SessionStart.ToolNameTokens, r.Claude.SessionStart.IsFloor}
	if got != want {
		t.Errorf("%s: package %+v, measure --json %+v", what, got, want)
	}
	if len(m.Tools) != len(r.Tools) {
		t.Fatalf("%s: %d tools, measure --json has %d", what, len(m.Tools), len(r.Tools))
	}
	// measure lists the heaviest first; the package, in capture order.
	for _, rt := range r.Tools {
		pt := m.Tools[rt.Index]
		if pt.Name != rt.Name || pt.Tokens != rt.Tokens || pt.Bytes != rt.Bytes || pt.DescriptionTokens != rt.DescriptionTokens || pt.InputSchemaTokens != rt.InputSchemaTokens {
			t.Errorf("%s: tool %d: package %+v, measure --json %+v", what, rt.Index, pt, rt)
		}
		if len(pt.Parts) != len(rt.Parts) {
			t.Errorf("%s: tool %s: parts %v, measure --json %v", what, rt.Name, pt.Parts, rt.Parts)
			continue
		}
		for j, p := range rt.Parts {
			if pt.Parts[j].Name != p.Name || pt.Parts[j].Tokens != p.Tokens || pt.Part(p.Name) != p.Tokens {
				t.Errorf("%s: tool %s: part %d = %+v, measure --json %+v", what, rt.Name, j, pt.Parts[j], p)
			}
		}
	}
	if (m.Extras == nil) != (r.Extras == nil) {
		t.Fatalf("%s: extras %v, measure --json %v", what, m.Extras, r.Extras)
	}
	if m.Extras != nil {
		x, rx := m.Extras, r.Extras
		if x.InstructionsTokens != rx.InstructionsTokens || x.Prompts != rx.Prompts || x.PromptsTokens != rx.PromptsTokens ||
			x.Resources != rx.Resources || x.ResourcesTokens != rx.ResourcesTokens || m.Claude.SessionStartTokens != rx.SessionStartTokens {
			t.Errorf("%s: extras %+v, measure --json %+v", what, *x, *rx)
		}
	}
}

// checkCorpus measures each capture's wire.jsonl and checks it against
// the reference counts of its meta.json and against measure --json.
func checkCorpus(t *testing.T, dir string) int {
	t.Setenv("HOME", t.TempDir())
	metas, err := filepath.Glob(filepath.Join(dir, "*", "meta.json"))
	if err != nil || len(metas) == 0 {
		t.Fatalf("no captures under %s (%v)", dir, err)
	}
	for _, metaPath := range metas {
		d := filepath.Dir(metaPath)
		name := filepath.Base(d)
		raw, err := os.ReadFile(metaPath)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Total   int    `json:"o200k_total"`
			SHA     string `json:"sha256"`
			Bytes   int    `json:"canonical_bytes"`
			Tools   int    `json:"tools"`
			PerTool []struct {
				Name  string `json:"name"`
				O200k int    `json:"o200k"`
			} `json:"per_tool"`
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			t.Fatalf("%s: %v", metaPath, err)
		}
		wire := filepath.Join(d, "wire.jsonl")
		m, err := mcpcost.MeasureFile(wire, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Name != name || m.TotalTokens != meta.Total || m.CanonicalSHA256 != meta.SHA || m.CanonicalBytes != meta.Bytes || m.ToolCount != meta.Tools || len(m.Tools) != len(meta.PerTool) {
			t.Errorf("%s: %s %d tokens, %d tools, %d bytes, sha %s; reference %d tokens, %d tools, %d bytes, sha %s",
				name, m.Name, m.TotalTokens, m.ToolCount, m.CanonicalBytes, m.CanonicalSHA256, meta.Total, meta.Tools, meta.Bytes, meta.SHA)
			continue
		}
		for i, pt := range meta.PerTool {
			if m.Tools[i].Name != pt.Name || m.Tools[i].Tokens != pt.O200k {
				t.Errorf("%s: tool %d = %s %d tokens, reference %s %d", name, i, m.Tools[i].Name, m.Tools[i].Tokens, pt.Name, pt.O200k)
			}
		}
		if !bytes.Equal(m.Canonical(), mustRead(t, filepath.Join(d, "canonical.json"))) {
			t.Errorf("%s: canonical bytes differ from canonical.json", name)
		}
		sameAsCLI(t, name, m, runMeasure(t, wire))
	}
	return len(metas)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCorpusTestdata runs on the copies of a few captures (wire.jsonl and
// meta.json only), so that it runs without the shared data.
func TestCorpusTestdata(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	metas, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "meta.json"))
	if len(metas) < 4 {
		t.Fatalf("testdata/corpus has %d captures", len(metas))
	}
	for _, metaPath := range metas {
		d := filepath.Dir(metaPath)
		var meta struct {
			Total   int    `json:"o200k_total"`
			SHA     string `json:"sha256"`
			PerTool []struct {
				O200k int `json:"o200k"`
			} `json:"per_tool"`
		}
		if err := json.Unmarshal(mustRead(t, metaPath), &meta); err != nil {
			t.Fatal(err)
		}
		wire := filepath.Join(d, "wire.jsonl")
		m, err := mcpcost.MeasureFile(wire, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.TotalTokens != meta.Total || m.CanonicalSHA256 != meta.SHA || len(m.Tools) != len(meta.PerTool) {
			t.Errorf("%s: %d tokens, sha %s; reference %d, sha %s", d, m.TotalTokens, m.CanonicalSHA256, meta.Total, meta.SHA)
			continue
		}
		for i, pt := range meta.PerTool {
			if m.Tools[i].Tokens != pt.O200k {
				t.Errorf("%s: tool %d = %d tokens, reference %d", d, i, m.Tools[i].Tokens, pt.O200k)
			}
		}
		sameAsCLI(t, d, m, runMeasure(t, wire))
	}
}

func TestCorpusShared(t *testing.T) {
	if n := checkCorpus(t, filepath.Join(testpeers.Shared(t), "corpus")); n < 57 {
		t.Errorf("shared corpus has %d captures, want 57", n)
	}
}

// newUnits is a go-sdk server with two tools, instructions and a prompt.
func newUnits() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "units", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: "Convert units; call list_units first."})
	type convertIn struct {
		Value float64 `json:"value" jsonschema:"the quantity to convert"`
		From  string  `json:"from" jsonschema:"the unit of value"`
		To    string  `json:"to" jsonschema:"the unit to convert to"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "convert", Title: "Convert units", Description: "Convert a quantity between units of the same dimension.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, convertIn) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "list_units", Description: "List the units convert understands."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "how", Description: "How to convert"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	return s
}

// TestServerOverHTTP: one go-sdk server measured in process, over
// Streamable HTTP and over SSE gives the same figures, and the same as
// measure --json over HTTP.
func TestServerOverHTTP(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ctx := context.Background()
	s := newUnits()
	opts := &mcpcost.Options{Name: "units", Timeout: 30 * time.Second}
	inproc, err := mcpcost.MeasureServer(ctx, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if inproc.Status != "measured" || inproc.ToolCount != 2 || inproc.Extras == nil || inproc.Extras.Prompts != 1 || inproc.Extras.InstructionsTokens == 0 {
		t.Fatalf("in process: %+v", inproc)
	}
	streamable := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer streamable.Close()
	sse := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer sse.Close()
	for _, tc := range []struct {
		name string
		t    mcpcost.Target
	}{
		{"streamable", mcpcost.Target{URL: streamable.URL}},
		{"sse", mcpcost.Target{URL: sse.URL, Transport: "sse"}},
	} {
		m, err := mcpcost.Measure(ctx, tc.t, opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sameAsCLI(t, tc.name, m, reportOf(inproc))
		if !bytes.Equal(m.Canonical(), inproc.Canonical()) {
			t.Errorf("%s: canonical bytes differ from the in-process capture's", tc.name)
		}
	}
	sameAsCLI(t, "measure --json URL", inproc, runMeasure(t, "--name", "units", streamable.URL))
}

// reportOf turns a Measurement into the shape measure --json has, to
// compare two Measurements with sameAsCLI.
func reportOf(m *mcpcost.Measurement) cliReport {
	var r cliReport
	r.Status, r.TotalTokens, r.ToolCount, r.CanonicalSha256, r.CanonicalBytes, r.SumOfToolTokens = m.Status, m.TotalTokens, m.ToolCount, m.CanonicalSHA256, m.CanonicalBytes, m.SumOfToolTokens
	r.Claude.Request.Tokens, r.Claude.Request.Bytes = m.Claude.RequestTokens, m.Claude.RequestBytes
	r.Claude.SessionStart.Tokens, r.Claude.SessionStart.IsFloor, r.Claude.SessionStart.ToolNameTokens = m.Claude.SessionStartTokens, m.Claude.SessionStartIsFloor, m.Claude.ToolNameTokens
	for _, t := range m.Tools {
		rt := struct {
			Name              string `json:"name"`
			Index             int    `json:"index"`
			Tokens            int    `json:"tokens"`
			Bytes             int    `json:"bytes"`
			DescriptionTokens int    `json:"descriptionTokens"`
			InputSchemaTokens int    `json:"inputSchemaTokens"`
			Parts             []struct {
				Name   string `json:"name"`
				Tokens int    `json:"tokens"`
			} `json:"parts"`
		}{Name: t.Name, Index: t.Index, Tokens: t.Tokens, Bytes: t.Bytes, DescriptionTokens: t.DescriptionTokens, InputSchemaTokens: t.InputSchemaTokens}
		for _, p := range t.Parts {
			rt.Parts = append(rt.Parts, struct {
				Name   string `json:"name"`
				Tokens int    `json:"tokens"`
			}{p.Name, p.Tokens})
		}
		r.Tools = append(r.Tools, rt)
	}
	if x := m.Extras; x != nil {
		r.Extras = &struct {
			InstructionsTokens int `json:"instructionsTokens"`
			Prompts            int `json:"prompts"`
			PromptsTokens      int `json:"promptsTokens"`
			Resources          int `json:"resources"`
			ResourcesTokens    int `json:"resourcesTokens"`
			SessionStartTokens int `json:"sessionStartTokens"`
		}{x.InstructionsTokens, x.Prompts, x.PromptsTokens, x.Resources, x.ResourcesTokens, m.Claude.SessionStartTokens}
	}
	return r
}

// TestServerOverStdio measures the example units server, built from
// examples/servers/units, as a command, and compares with measure --json.
func TestServerOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a server")
	}
	bin := filepath.Join(t.TempDir(), "units")
	if out, err := exec.Command("go", "build", "-o", bin, "../examples/servers/units").CombinedOutput(); err != nil {
		t.Fatalf("building examples/servers/units: %v\n%s", err, out)
	}
	t.Setenv("HOME", t.TempDir()) // after the build, which keeps its cache under HOME
	m, err := mcpcost.Measure(context.Background(), mcpcost.Target{Command: bin, Env: map[string]string{"UNITS_TOKEN": "s3cret-value"}}, &mcpcost.Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "units" || m.ToolCount != 2 || m.Status != "measured" {
		t.Errorf("got %s %s %d tools", m.Name, m.Status, m.ToolCount)
	}
	sameAsCLI(t, "stdio", m, runMeasure(t, "--name", "units", "--", bin))
	f, err := m.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(f, []byte("s3cret-value")) {
		t.Error("measurement.json holds an env value")
	}
}

// TestServerRepeatsEnv: a server that writes an env value and a secret
// argument into its version, instructions and tool description is
// measured with *** in their place, the file it makes verifies, and a
// warning names the variable. A plain value it repeats (PLAIN: neither
// named nor shaped like a credential) is measured as the model reads it.
func TestServerRepeatsEnv(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a server")
	}
	bin := filepath.Join(t.TempDir(), "stdioserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../internal/mcpclient/testdata/stdioserver").CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	const env, arg = "envpass-4711", "argpass-4712"
	m, err := mcpcost.Measure(context.Background(), mcpcost.Target{Command: bin, Args: []string{"repeat", "--token=" + arg}, Env: map[string]string{"SECRET": env, "PLAIN": "verbose"}}, &mcpcost.Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{env, arg} {
		if bytes.Contains(f, []byte(v)) || strings.Contains(m.ServerVersion, v) || strings.Contains(strings.Join(m.Warnings, " "), v) {
			t.Errorf("the measurement holds %q:\n%s", v, f)
		}
	}
	if !bytes.Contains(f, []byte(`Launched with key *** level verbose and args --token=***`)) {
		t.Errorf("the tool description is not kept with *** in place of the values:\n%s", f)
	}
	want := "the server repeats the values of SECRET and an argument in its definitions"
	if len(m.Warnings) == 0 || !strings.HasPrefix(m.Warnings[len(m.Warnings)-1], want) || !bytes.Contains(f, []byte(want)) {
		t.Errorf("warnings %q, want one starting %q in the file too", m.Warnings, want)
	}
	path := filepath.Join(t.TempDir(), "measurement.json")
	if err := os.WriteFile(path, f, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := mcpcost.VerifyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK || v.RederivedTokens == nil || *v.RederivedTokens != m.TotalTokens {
		t.Errorf("verify: %+v, measured %d tokens", v, m.TotalTokens)
	}
}

func TestMeasureErrors(t *testing.T) {
	_, err := mcpcost.MeasureTools([]byte(`{"tools": 3}`), nil)
	var ie *mcpcost.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `"tools" is a number`) {
		t.Errorf("MeasureTools: %v", err)
	}
	_, err = mcpcost.MeasureFile(filepath.Join(t.TempDir(), "none.json"), nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MeasureFile of a missing file: %v", err)
	}
	_, err = mcpcost.Measure(context.Background(), mcpcost.Target{Command: filepath.Join(t.TempDir(), "no-such-server")}, nil)
	var me *mcpcost.MeasureError
	if !errors.As(err, &me) || me.Status != "startup-failure" {
		t.Errorf("Measure of a missing command: %v", err)
	}
	if _, err := mcpcost.Measure(context.Background(), mcpcost.Target{}, nil); err == nil {
		t.Error("Measure of an empty target: no error")
	}
	if _, err := mcpcost.MeasureServer(context.Background(), nil, nil); err == nil {
		t.Error("MeasureServer(nil): no error")
	}
}

// TestBudget checks each limit on both sides: at the figure (within) and
// one below it (over).
func TestBudget(t *testing.T) {
	m, err := mcpcost.MeasureServer(context.Background(), newUnits(), &mcpcost.Options{Once: true})
	if err != nil {
		t.Fatal(err)
	}
	conv, _ := m.Tool("convert")
	list, _ := m.Tool("list_units")
	if conv.Tokens <= list.Tokens {
		t.Fatalf("convert %d tokens, list_units %d: the table below wants convert heavier", conv.Tokens, list.Tokens)
	}
	tests := []struct {
		name    string
		b       mcpcost.Budget
		total   bool     // the total is over
		over    []string // tools over
		missing []string
	}{
		{"none", mcpcost.Budget{}, false, nil, nil},
		{"total at", mcpcost.Budget{Total: m.TotalTokens}, false, nil, nil},
		{"total below", mcpcost.Budget{Total: m.TotalTokens - 1}, true, nil, nil},
		{"per tool at", mcpcost.Budget{PerTool: conv.Tokens}, false, nil, nil},
		{"per tool below", mcpcost.Budget{PerTool: conv.Tokens - 1}, false, []string{"convert"}, nil},
		{"per tool below both", mcpcost.Budget{PerTool: list.Tokens - 1}, false, []string{"convert", "list_units"}, nil},
		{"named at", mcpcost.Budget{PerTool: 1, Tools: map[string]int{"convert": conv.Tokens, "list_units": list.Tokens}}, false, nil, nil},
		{"named below", mcpcost.Budget{Tools: map[string]int{"list_units": list.Tokens - 1}}, false, []string{"list_units"}, nil},
		{"named overrides per tool", mcpcost.Budget{PerTool: list.Tokens, Tools: map[string]int{"convert": conv.Tokens}}, false, nil, nil},
		{"named missing", mcpcost.Budget{Tools: map[string]int{"convert_old": 100}}, false, nil, []string{"convert_old"}},
		{"all", mcpcost.Budget{Total: 1, PerTool: 1}, true, []string{"convert", "list_units"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := m.CheckBudget(tc.b)
			if !tc.total && tc.over == nil && tc.missing == nil {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			var be *mcpcost.BudgetError
			if !errors.As(err, &be) {
				t.Fatalf("got %v, want a *BudgetError", err)
			}
			if got := be.TotalLimit > 0; got != tc.total {
				t.Errorf("total over = %v, want %v", got, tc.total)
			}
			if tc.total && (be.Total != m.TotalTokens || !strings.Contains(err.Error(), "total ")) {
				t.Errorf("total %d in %q", be.Total, err)
			}
			var names []string
			for _, o := range be.Tools {
				names = append(names, o.Name)
				if !strings.Contains(err.Error(), "tool "+o.Name+" ") || o.Tokens <= o.Limit {
					t.Errorf("%+v in %q", o, err)
				}
			}
			if strings.Join(names, ",") != strings.Join(tc.over, ",") || strings.Join(be.Missing, ",") != strings.Join(tc.missing, ",") {
				t.Errorf("over %v missing %v, want %v %v", names, be.Missing, tc.over, tc.missing)
			}
			if !strings.HasPrefix(err.Error(), "units is over its token budget: ") {
				t.Errorf("error %q", err)
			}
		})
	}
}

// TestMeasurementFile: a written measurement.json verifies here and with
// mcpcost verify, and measuring it again gives the same numbers; a
// tampered one does not verify.
func TestMeasurementFile(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	m, err := mcpcost.MeasureServer(context.Background(), newUnits(), &mcpcost.Options{Name: "units"})
	if err != nil {
		t.Fatal(err)
	}
	m.MeasuredAt = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "measurement.json")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	v, err := mcpcost.VerifyFile(path)
	if err != nil || !v.OK || v.Skipped || *v.RederivedTokens != m.TotalTokens || v.RederivedSHA256 != m.CanonicalSHA256 || v.ToolsChecked != 2 || v.ServerName != "units" {
		t.Fatalf("VerifyFile: %+v, %v", v, err)
	}
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"verify", path}, strings.NewReader(""), &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "OK units") {
		t.Errorf("mcpcost verify: exit %d\n%s%s", code, out.String(), errb.String())
	}
	again, err := mcpcost.MeasureFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.TotalTokens != m.TotalTokens || again.CanonicalSHA256 != m.CanonicalSHA256 || again.Claude.RequestTokens != m.Claude.RequestTokens || again.Tools[0].Tokens != m.Tools[0].Tokens {
		t.Errorf("measurement.json measured again: %+v, was %+v", again, m)
	}
	b, _ := os.ReadFile(path)
	if !bytes.Contains(b, []byte(`"measuredAt": "2026-08-01T12:00:00.000Z"`)) || !bytes.Contains(b, []byte(`"generator": "mcpcost library"`)) {
		t.Errorf("measurement.json:\n%s", b)
	}
	tampered := bytes.Replace(b, []byte(`"totalTokens": `), []byte(`"totalTokens": 1`), 1)
	v, err = mcpcost.Verify(tampered)
	if err != nil || v.OK || len(v.Problems) == 0 || !strings.Contains(v.Problems[0], "token mismatch") {
		t.Errorf("Verify of a tampered file: %+v, %v", v, err)
	}
	if _, err := mcpcost.Verify([]byte(`[1]`)); err == nil {
		t.Error("Verify of an array: no error")
	}
}

// TestAPI holds the exported surface to testdata/api.golden (go doc
// -all), so that a change to it is a choice: run with -update and review
// the diff.
func TestAPI(t *testing.T) {
	out, err := exec.Command("go", "doc", "-all", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go doc: %v\n%s", err, out)
	}
	golden := filepath.Join("testdata", "api.golden")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("the exported API differs from testdata/api.golden (run go test -run TestAPI -update and review the diff):\n%s", out)
	}
	// No internal type in the exported API.
	if bytes.Contains(out, []byte("internal/")) || bytes.Contains(out, []byte("measure.")) || bytes.Contains(out, []byte("mcpclient.")) {
		t.Error("the exported API names an internal package")
	}
}

// TestMeasureServerDynamic: a server whose tools differ between the two
// sessions is dynamic, with the first session's figures and the tool that
// changed named.
func TestMeasureServerDynamic(t *testing.T) {
	s := newUnits()
	var lists atomic.Int32
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				if lists.Add(1) == 2 {
					mcp.AddTool(s, &mcp.Tool{Name: "added"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
						return nil, nil, nil
					})
				}
			}
			return next(ctx, method, req)
		}
	})
	m, err := mcpcost.MeasureServer(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != "dynamic" || m.ToolCount != 2 || strings.Join(m.ChangedTools, ",") != "added" {
		t.Errorf("status %s, %d tools, changed %v", m.Status, m.ToolCount, m.ChangedTools)
	}
	once, err := mcpcost.MeasureServer(context.Background(), newUnits(), &mcpcost.Options{Once: true})
	if err != nil || once.Status != "measured" || once.TotalTokens != m.TotalTokens {
		t.Errorf("Once: %+v, %v", once, err)
	}
}

// TestVerifyPublished verifies mcp-context-cost's own files: a measured
// one agrees, and a failed one, holding no capture, is skipped (as
// "mcpcost verify" does; mcp-context-cost's verify reports it as a
// problem, "no rawToolsCapture in measurement").
func TestVerifyPublished(t *testing.T) {
	v, err := mcpcost.VerifyFile(filepath.Join("testdata", "published", "airbnb", "measurement.json"))
	if err != nil || !v.OK || v.Skipped || v.RederivedTokens == nil || *v.RederivedTokens != *v.StoredTokens || len(v.Problems) != 0 {
		t.Errorf("airbnb: %+v, %v", v, err)
	}
	m, err := mcpcost.MeasureFile(filepath.Join("testdata", "published", "airbnb", "measurement.json"), nil)
	if err != nil || m.Name != "airbnb" || m.TotalTokens != *v.StoredTokens {
		t.Errorf("airbnb measured: %+v, %v", m, err)
	}
	v, err = mcpcost.VerifyFile(filepath.Join("testdata", "published", "azure", "measurement.json"))
	if err != nil || v.OK || !v.Skipped || v.Status != "auth-required" || v.RederivedTokens != nil {
		t.Errorf("azure: %+v, %v", v, err)
	}
}

// TestBudgetErrorEscapes: a tool name with control characters (a server
// chose it) reads escaped in the budget error a test prints.
func TestBudgetErrorEscapes(t *testing.T) {
	m, err := mcpcost.MeasureTools([]byte(`{"tools":[{"name":"a\u001b]0;pwn\u0007\u001b[2J","description":"`+strings.Repeat("word ", 40)+`","inputSchema":{"type":"object"}}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = m.CheckBudget(mcpcost.Budget{PerTool: 1, Tools: map[string]int{"gone\u001b[31m": 5}})
	if err == nil {
		t.Fatal("within budget")
	}
	for _, r := range err.Error() {
		if r < 0x20 || r == 0x7f {
			t.Fatalf("the error holds a raw control character: %q", err.Error())
		}
	}
	if !strings.Contains(err.Error(), `\x1b`) {
		t.Errorf("the name is not escaped: %q", err.Error())
	}
}

// TestMeasureToolsRepeatedNames: a list whose tool names repeat is
// counted whole, as sent, with a warning naming the server and the names,
// escaped.
func TestMeasureToolsRepeatedNames(t *testing.T) {
	list := []byte(`{"tools":[{"name":"a\u001b[2J"},{"name":"b"},{"name":"a\u001b[2J"}]}`)
	m, err := mcpcost.MeasureTools(list, &mcpcost.Options{Name: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	if m.ToolCount != 3 {
		t.Errorf("ToolCount %d, want 3", m.ToolCount)
	}
	want := `server "docs" lists tools that share a name: "a\x1b[2J" (2 tools); the Anthropic API rejects`
	if len(m.Warnings) != 1 || !strings.HasPrefix(m.Warnings[0], want) {
		t.Errorf("warnings %q, want one starting %q", m.Warnings, want)
	}
	m, err = mcpcost.MeasureTools([]byte(`{"tools":[{"name":"a"},{"name":"b"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("distinct names: warnings %q", m.Warnings)
	}
}
