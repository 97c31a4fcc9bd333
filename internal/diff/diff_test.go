package diff

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// auditJSON builds a small mcpcost audit report: configs of servers; a
// server's tokens < 0 means not measured (status given), tools as
// name:tokens with description parts.
type srv struct {
	name   string
	status string
	tokens int // -1: not measured
	tools  map[string]int
}

type cfg struct {
	path    string
	servers []srv
}

func auditDoc(t *testing.T, file string, configs ...cfg) *Doc {
	t.Helper()
	type part struct {
		Name   string `json:"name"`
		Tokens int    `json:"tokens"`
	}
	type tool struct {
		Name   string `json:"name"`
		Tokens int    `json:"tokens"`
		Parts  []part `json:"parts"`
	}
	type server struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Tokens *int   `json:"tokens"`
		Tools  []tool `json:"tools"`
	}
	type config struct {
		Client      string   `json:"client"`
		Path        string   `json:"path"`
		TotalTokens int      `json:"totalTokens"`
		Servers     []server `json:"servers"`
	}
	var cs []config
	for _, c := range configs {
		cc := config{Client: "claude-code", Path: c.path}
		for _, s := range c.servers {
			ss := server{Name: s.name, Status: s.status, Tools: []tool{}}
			if s.status == "" {
				ss.Status = "measured"
			}
			if s.tokens >= 0 {
				n := s.tokens
				ss.Tokens = &n
				cc.TotalTokens += n
			}
			for _, name := range sortedKeys(s.tools) {
				n := s.tools[name]
				ss.Tools = append(ss.Tools, tool{Name: name, Tokens: n, Parts: []part{{"name", 3}, {"description", n - 3}}})
			}
			cc.Servers = append(cc.Servers, ss)
		}
		cs = append(cs, cc)
	}
	b, err := json.Marshal(map[string]any{"schema": "mcpcost.audit/v1", "methodologyVersion": "1.0", "encoding": "o200k_base", "contextWindow": 200000, "configs": cs, "emptyConfigs": []any{}, "problems": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(file, b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func sortedKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func codes(is []Issue) string {
	var s []string
	for _, i := range is {
		s = append(s, i.Code)
	}
	return strings.Join(s, ",")
}

func TestCompareServers(t *testing.T) {
	gh := srv{name: "github", tokens: 1000, tools: map[string]int{"create_issue": 600, "list_issues": 400}}
	mem := srv{name: "memory", tokens: 500, tools: map[string]int{"read_graph": 500}}
	tests := []struct {
		name       string
		base, cur  []srv
		change     string // of the server named "x" or the single differing one
		delta      string // config delta
		bound      string
		issues     string
		gate100    bool
		understate int
	}{
		{"unchanged", []srv{gh, mem}, []srv{gh, mem}, "", "0", "exact", "", true, 0},
		{"added", []srv{gh}, []srv{gh, mem}, Added, "500", "exact", "", false, 0},
		{"added under limit", []srv{gh}, []srv{gh, {name: "tiny", tokens: 80}}, Added, "80", "exact", "", true, 0},
		{"removed", []srv{gh, mem}, []srv{gh}, Removed, "-500", "exact", "", true, 0},
		{"changed", []srv{gh}, []srv{{name: "github", tokens: 1050, tools: map[string]int{"create_issue": 650, "list_issues": 400}}}, Changed, "50", "exact", "", true, 0},
		{"unmeasured now", []srv{gh, mem}, []srv{gh, {name: "memory", status: "auth-required", tokens: -1}}, UnmeasuredNow, "-500", "lower", "unmeasured-now", false, 500},
		{"added unmeasured", []srv{gh}, []srv{gh, {name: "remote", status: "remote-auth-wall", tokens: -1}}, AddedUnmeasured, "0", "lower", "added-unmeasured", false, 0},
		{"unmeasured both", []srv{gh, {name: "remote", status: "timeout", tokens: -1}}, []srv{gh, {name: "remote", status: "timeout", tokens: -1}}, UnmeasuredBoth, "0", "unknown", "unmeasured-both", false, 0},
		{"unmeasured before, within", []srv{gh, {name: "m", status: "timeout", tokens: -1}}, []srv{gh, {name: "m", tokens: 90}}, UnmeasuredBefore, "90", "upper", "", true, 0},
		{"unmeasured before, over", []srv{gh, {name: "m", status: "timeout", tokens: -1}}, []srv{gh, {name: "m", tokens: 900}}, UnmeasuredBefore, "900", "upper", "", false, 0},
		{"removed unmeasured", []srv{gh, {name: "m", status: "timeout", tokens: -1}}, []srv{gh}, RemovedUnmeasured, "0", "upper", "", true, 0},
		{"removed unmeasured, over", []srv{gh, {name: "m", status: "timeout", tokens: -1}}, []srv{{name: "github", tokens: 1200}}, RemovedUnmeasured + "," + Changed, "200", "upper", "", false, 0},
		{"switched off", []srv{gh, mem}, []srv{gh, {name: "memory", status: "disabled", tokens: -1}}, Removed, "-500", "exact", "", true, 0},
		{"off both", []srv{gh, {name: "m", status: "disabled", tokens: -1}}, []srv{gh, {name: "m", status: "disabled", tokens: -1}}, "", "0", "exact", "", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := auditDoc(t, "base.json", cfg{".mcp.json", tt.base})
			c := auditDoc(t, "cur.json", cfg{".mcp.json", tt.cur})
			d := Compare(b, c)
			if len(d.ConfigDiffs) != 1 {
				t.Fatalf("configs = %d", len(d.ConfigDiffs))
			}
			cd := d.ConfigDiffs[0]
			if got := itoa(cd.Delta); got != tt.delta {
				t.Errorf("delta = %s, want %s", got, tt.delta)
			}
			if cd.Bound != tt.bound {
				t.Errorf("bound = %s, want %s", cd.Bound, tt.bound)
			}
			if got := codes(d.Issues); got != tt.issues {
				t.Errorf("issues = %q, want %q", got, tt.issues)
			}
			if cd.Understated != tt.understate {
				t.Errorf("understated = %d, want %d", cd.Understated, tt.understate)
			}
			var changes []string
			for _, s := range cd.Servers {
				if s.Change != Unchanged {
					changes = append(changes, s.Change)
				}
			}
			if got := strings.Join(changes, ","); got != tt.change {
				t.Errorf("server changes = %q, want %q", got, tt.change)
			}
			g := d.Check(100)
			if g.Pass != tt.gate100 {
				t.Errorf("gate(100) pass = %v, want %v; reasons %v", g.Pass, tt.gate100, g.Reasons)
			}
			if !g.Pass && len(g.Reasons) == 0 {
				t.Error("a failed gate gives no reason")
			}
			for _, r := range g.Reasons {
				if r.Code == "" || !strings.Contains(r.Message, ".mcp.json") {
					t.Errorf("reason does not name itself and its config: %+v", r)
				}
			}
		})
	}
}

func itoa(p *int) string {
	if p == nil {
		return "nil"
	}
	b, _ := json.Marshal(*p)
	return string(b)
}

func TestToolsAndParts(t *testing.T) {
	b := auditDoc(t, "b", cfg{".mcp.json", []srv{{name: "gh", tokens: 1000, tools: map[string]int{"a": 600, "b": 400}}}})
	c := auditDoc(t, "c", cfg{".mcp.json", []srv{{name: "gh", tokens: 1100, tools: map[string]int{"a": 700, "c": 400}}}})
	d := Compare(b, c)
	s := d.ConfigDiffs[0].Servers[0]
	if s.Change != Changed || *s.Delta != 100 {
		t.Fatalf("server %+v", s)
	}
	var got []string
	for _, td := range s.Tools {
		got = append(got, td.Label()+":"+td.Change+":"+itoa(&td.Delta))
		if td.Name == "a" {
			if len(td.Parts) != 1 || td.Parts[0].Name != "description" || td.Parts[0].Delta != 100 {
				t.Errorf("parts of a: %+v", td.Parts)
			}
		}
	}
	// Ties in size by name.
	if want := "b:removed:-400,c:added:400,a:changed:100"; strings.Join(got, ",") != want {
		t.Errorf("tools = %s, want %s", strings.Join(got, ","), want)
	}
}

func TestDuplicateToolNames(t *testing.T) {
	mk := func(tokens ...int) []Tool {
		var ts []Tool
		for _, n := range tokens {
			ts = append(ts, Tool{Name: "dup", Tokens: n})
		}
		return ts
	}
	out, unchanged := compareTools(mk(10, 20), mk(10, 25, 5), DetailTool)
	if unchanged != 1 || len(out) != 2 {
		t.Fatalf("unchanged %d, out %+v", unchanged, out)
	}
	if out[0].Label() != "dup #2" || out[0].Delta != 5 || out[1].Label() != "dup #3" || out[1].Change != Added {
		t.Errorf("out = %+v", out)
	}
}

func TestConfigPairing(t *testing.T) {
	s := []srv{{name: "a", tokens: 100}}
	t.Run("missing and new", func(t *testing.T) {
		b := auditDoc(t, "b", cfg{"one.json", s}, cfg{"two.json", s})
		c := auditDoc(t, "c", cfg{"one.json", s}, cfg{"three.json", s})
		d := Compare(b, c)
		if got := codes(d.Issues); got != "config-new,config-missing" {
			t.Errorf("issues = %s", got)
		}
		if g := d.Check(1000); g.Pass {
			t.Error("gate passed with a config missing and one new")
		}
	})
	t.Run("sole config", func(t *testing.T) {
		b := auditDoc(t, "b", cfg{"/ci/base/.mcp.json", s})
		c := auditDoc(t, "c", cfg{"/ci/pr/.mcp.json", []srv{{name: "a", tokens: 150}}})
		d := Compare(b, c)
		cd := d.ConfigDiffs[0]
		if cd.Pairing != "sole-config" || cd.BasePath != "/ci/base/.mcp.json" || *cd.Delta != 50 {
			t.Errorf("%+v", cd)
		}
		if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "one config on each side") {
			t.Errorf("warnings %v", d.Warnings)
		}
		if g := d.Check(50); !g.Pass {
			t.Errorf("gate(50) failed: %v", g.Reasons)
		}
		if g := d.Check(49); g.Pass || codes(g.Reasons) != "over-limit" {
			t.Errorf("gate(49): %+v", g)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		d := Compare(auditDoc(t, "b"), auditDoc(t, "c"))
		if codes(d.Issues) != "nothing-compared" || d.Check(0).Pass {
			t.Errorf("issues %v", d.Issues)
		}
	})
}

func TestNotComparable(t *testing.T) {
	base := `{"schema":"mcpcost.measure/v1","server":"s","status":"measured","methodologyVersion":"1.0","encoding":"o200k_base","totalTokens":10,"tools":[{"name":"a","tokens":10}]}`
	tests := []struct{ name, cur, code string }{
		{"methodology", strings.Replace(base, `"1.0"`, `"2.0"`, 1), IssueMethodologyChanged},
		{"encoding", strings.Replace(base, `o200k_base`, `cl100k_base`, 1), IssueEncodingChanged},
		{"schema", strings.Replace(base, `measure/v1`, `measure/v2`, 1), IssueSchemaChanged},
		{"kind", `{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[]}`, IssueKindMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Load("base.json", []byte(base))
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load("cur.json", []byte(tt.cur))
			if err != nil {
				t.Fatal(err)
			}
			d := Compare(b, c)
			if d.Comparable {
				t.Error("comparable")
			}
			if !strings.Contains(codes(d.Issues), tt.code) {
				t.Errorf("issues %v, want %s", d.Issues, tt.code)
			}
			if d.Check(1_000_000).Pass {
				t.Error("gate passed on reports that are not the same measurement")
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, data, msg string }{
		{"empty", "", "the file is empty"},
		{"not json", "{nope", "not JSON"},
		{"array", "[1]", "expected a JSON object"},
		{"tools capture", `{"tools":[{"name":"a"}]}`, "tools/list capture"},
		{"other", `{"hello":1}`, "not an mcpcost or mcp-context-cost report"},
		{"usage report", `{"schema":"mcpcost.usage/v1"}`, "a mcpcost.usage/v1 report"},
		{"foreign schema", `{"schema":"other/v1"}`, "unknown schema"},
		{"bad shape", `{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[{"path":"a","servers":"x"}]}`, "not a valid mcpcost audit report"},
		{"no path", `{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[{"servers":[]}]}`, "configs[0] has no path"},
		{"peer audit without methodology", `{"configs":[]}`, "no methodologyVersion"},
		{"measured without total", `{"schema":"mcpcost.measure/v1","status":"measured","methodologyVersion":"1.0","encoding":"o200k_base"}`, "no totalTokens"},
		{"two values", `{"schema":"mcpcost.measure/v1"} {}`, "more than one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("f.json", []byte(tt.data))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *LoadError", err)
			}
			if !strings.HasPrefix(err.Error(), "f.json: ") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %q, want it to name the file and say %q", err, tt.msg)
			}
		})
	}
}

func TestLoadPeerAudit(t *testing.T) {
	// mcp-context-cost's audit --json (§3.5): source paths, measured servers
	// and skipped ones.
	peer := `{"methodologyVersion":"1.0","encoding":"o200k_base","generatedAt":"2026-08-20T00:00:00.000Z","contextWindow":200000,
"configs":[{"client":"claude-code","source":"/p/.mcp.json","totalTokens":2378,"toolCount":9,"serverCount":2,"contextShare":0.01,
"servers":[{"name":"memory","transport":"stdio","status":"measured","tokens":2378,"toolCount":9,"share":1,"envVarNames":[]}],
"skipped":[{"name":"linear","transport":"remote","status":"remote-not-measurable","tokens":null,"toolCount":null,"share":null,"envVarNames":[]}]}],
"emptyConfigs":[],"problems":[]}`
	b, err := Load("peer.json", []byte(peer))
	if err != nil {
		t.Fatal(err)
	}
	if b.Kind != KindPeerAudit || b.Detail != DetailServer || len(b.Configs) != 1 || len(b.Configs[0].Servers) != 2 {
		t.Fatalf("%+v", b)
	}
	c := auditDoc(t, "cur.json", cfg{"/p/.mcp.json", []srv{{name: "memory", tokens: 2378, tools: map[string]int{"x": 2378}}, {name: "linear", status: "remote-auth-wall", tokens: -1}}})
	d := Compare(b, c)
	if d.Detail != DetailServer || len(d.Warnings) == 0 || !strings.Contains(d.Warnings[0], "server-level numbers only") {
		t.Errorf("detail %s, warnings %v", d.Detail, d.Warnings)
	}
	if codes(d.Issues) != "unmeasured-both" {
		t.Errorf("issues %v", d.Issues)
	}
	if s := d.ConfigDiffs[0].Servers; len(s[len(s)-1].Tools) != 0 {
		t.Errorf("tools compared against a baseline without them: %+v", s)
	}
}

// Every published mcp-context-cost measurement.json loads; measured ones
// carry their number, failed ones none; each compares with itself as
// unchanged (or, unmeasured in both, as not established).
func TestPublished(t *testing.T) {
	shared := testpeers.Shared(t)
	files, _ := filepath.Glob(filepath.Join(shared, "published", "*", "measurement.json"))
	if len(files) < 70 {
		t.Fatalf("%d published files", len(files))
	}
	measured := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Load(f, data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if d.Kind != KindPeerMeasurement || d.Detail != DetailTool {
			t.Errorf("%s: kind %s detail %s", f, d.Kind, d.Detail)
		}
		s := d.Configs[0].Servers[0]
		x := Compare(d, d)
		if s.Tokens != nil {
			measured++
			if x.ConfigDiffs[0].Change != Unchanged || !x.Check(0).Pass {
				t.Errorf("%s: compared with itself: %+v %v", f, x.ConfigDiffs[0], x.Issues)
			}
		} else if x.Check(0).Pass {
			t.Errorf("%s: an unmeasured server passed the gate against itself", f)
		}
	}
	if measured != 69 {
		t.Errorf("%d measured, want 69", measured)
	}
}

func FuzzLoad(f *testing.F) {
	seeds := []string{
		`{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[{"path":"a","servers":[{"name":"s","tokens":1,"tools":[{"name":"t","tokens":1,"parts":[{"name":"name","tokens":1}]}]}]}]}`,
		`{"methodologyVersion":"1.0","encoding":"o200k_base","status":"measured","totalTokens":5,"tools":[{"name":"a","tokens":5}],"canonicalSha256":"x","rawToolsCapture":[]}`,
		`{"configs":[{"source":"x","servers":[],"skipped":[{"name":"y","tokens":null}]}],"methodologyVersion":"1.0","encoding":"o200k_base"}`,
		`{"schema":"mcpcost.measure/v9","tools":7}`,
		`{"schema":"mcpcost.audit/v1","methodologyVersion":"1.0","encoding":"o200k_base","configs":[{"path":"a","servers":[{"name":"s","status":"timeout","tokens":null},{"name":"d","status":"disabled","tokens":3}]}],"problems":[{"path":"b","error":"bad"}]}`,
	}
	for i, a := range seeds {
		f.Add([]byte(a), []byte(seeds[(i+1)%len(seeds)]))
	}
	boundary := canontest.Seeds()
	for i, a := range boundary {
		f.Add(a, boundary[(i+7)%len(boundary)])
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		da, err := Load("a", a)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "a: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		db, err := Load("b", b)
		if err != nil {
			db = da
		}
		for _, x := range []*Diff{Compare(da, da), Compare(da, db), Compare(db, da)} {
			g := x.Check(0)
			if !g.Pass && len(g.Reasons) == 0 {
				t.Fatal("failed gate without a reason")
			}
			if g.Pass && (len(x.Issues) > 0 || !x.Comparable) {
				t.Fatalf("gate passed with issues %v", x.Issues)
			}
			if _, err := json.Marshal(x); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSessionsCompared: two audits holding sessions are compared session
// by session (a server moving from the user file to the project's is no
// change; an overridden copy is not counted); against a v1 baseline,
// without sessions, the files are.
func TestSessionsCompared(t *testing.T) {
	notes := `{"name":"notes","status":"measured","tokens":611,"tools":[]}`
	units := `{"name":"units","status":"measured","tokens":340,"tools":[]}`
	over := `{"name":"notes","status":"overridden","tokens":null,"tools":[]}`
	base := `{"schema":"mcpcost.audit/v2","methodologyVersion":"1.0","encoding":"o200k_base","contextWindow":200000,
		"sessions":[{"client":"claude-code","path":"/p","totalTokens":611,"servers":[` + notes + `]}],
		"configs":[{"client":"claude-code","path":"/h/.claude.json","scope":"user","totalTokens":611,"servers":[` + notes + `]}]}`
	cur := `{"schema":"mcpcost.audit/v2","methodologyVersion":"1.0","encoding":"o200k_base","contextWindow":200000,
		"sessions":[{"client":"claude-code","path":"/p","totalTokens":951,"servers":[` + notes + `,` + units + `,` + over + `]}],
		"configs":[{"client":"claude-code","path":"/h/.claude.json","scope":"user","totalTokens":340,"servers":[` + units + `,` + over + `]},
		           {"client":"claude-code","path":"/p/.mcp.json","scope":"project","totalTokens":611,"servers":[` + notes + `]}]}`
	v1 := strings.Replace(strings.Replace(base, "audit/v2", "audit/v1", 1), `"sessions":[{"client":"claude-code","path":"/p","totalTokens":611,"servers":[`+notes+`]}],`, "", 1)
	load := func(name, s string) *Doc {
		t.Helper()
		d, err := Load(name, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := Compare(load("base", base), load("cur", cur))
	if d.Of != "sessions" || len(d.ConfigDiffs) != 1 || d.Increase == nil || *d.Increase != 340 {
		t.Fatalf("sessions: of %q, %d pairs, increase %v; want sessions, 1, 340", d.Of, len(d.ConfigDiffs), d.Increase)
	}
	if g := d.Check(339); g.Pass {
		t.Errorf("a session 340 heavier passes --max-increase 339")
	}
	if g := d.Check(340); !g.Pass {
		t.Errorf("a session 340 heavier fails --max-increase 340: %v", g.Reasons)
	}
	d = Compare(load("base", v1), load("cur", cur))
	if d.Of != "configs" || len(d.Issues) != 0 && d.Issues[0].Code == IssueSchemaChanged {
		t.Fatalf("v1 baseline: of %q, issues %v; want configs and no schema change", d.Of, d.Issues)
	}
}
