package serve

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/internal/store"
	"github.com/mcpcost/mcpcost/internal/usage"
)

// TestUsageWindowKeys: usage_summary's structured result has since and
// until always, null at an open end of the window, as usage --json has
// them (the same report, marshalled as the command line writes it), and
// the output schema the tool declares validates it.
func TestUsageWindowKeys(t *testing.T) {
	f := newFixture(t, true)
	cs, _ := connect(t, f.opts)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema *jsonschema.Resolved
	for _, tool := range tools.Tools {
		if tool.Name != toolUsage {
			continue
		}
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if schema, err = s.Resolve(nil); err != nil {
			t.Fatal(err)
		}
	}
	if schema == nil {
		t.Fatalf("no tool %s", toolUsage)
	}
	for _, c := range []struct {
		name string
		args map[string]any
		days int // of the command line's report; -1 for none (by block)
	}{
		{"all history", map[string]any{"by": "server"}, 0},
		{"the last 7 days", map[string]any{"by": "day", "days": 7}, 7},
		{"by block", map[string]any{"by": "block"}, -1},
		{"by block, the last 7 days", map[string]any{"by": "block", "days": 7}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolUsage, Arguments: c.args})
			if err != nil || res.IsError {
				t.Fatalf("%v %s", err, resultText(res))
			}
			b, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(got); err != nil {
				t.Errorf("the declared output schema rejects %s: %v", b, err)
			}
			for _, k := range []string{"since", "until"} {
				if _, ok := got[k]; !ok {
					t.Errorf("no %q in %s", k, b)
				}
			}
			if got["until"] != nil {
				t.Errorf("until %v, want null (the window is open at its end)", got["until"])
			}
			if c.days < 0 {
				return
			}
			st, err := store.Open(f.db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			o := usage.Options{By: c.args["by"].(string), Source: "all", Location: time.UTC, Now: time.Now()}
			if c.days > 0 {
				o.Since = o.Now.AddDate(0, 0, -c.days)
			}
			rep, err := usage.Build(context.Background(), st, o)
			if err != nil {
				t.Fatal(err)
			}
			cb, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			var cli map[string]any
			if err := json.Unmarshal(cb, &cli); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"since", "until"} {
				cv, inCLI := cli[k]
				sv, inServe := got[k]
				if inCLI != inServe || (cv == nil) != (sv == nil) {
					t.Errorf("%s: usage --json has %v (%v), usage_summary %v (%v)", k, cv, inCLI, sv, inServe)
				}
			}
		})
	}
}
