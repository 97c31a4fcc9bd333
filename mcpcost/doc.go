// Package mcpcost measures what an MCP server's tool definitions cost in
// an AI agent's context window, as "mcpcost measure" does: the o200k_base
// token count of JSON.stringify of the concatenated tools arrays (the
// published methodology, version [MethodologyVersion]), its canonical
// bytes and SHA-256, and counts per tool and per part (name, description,
// inputSchema, ...), with what Claude receives beside it.
//
// It is the stable surface of mcpcost for server authors; everything else
// in the module is internal.
//
// # Measuring
//
// [MeasureTools] and [MeasureFile] measure a tools JSON (a tools/list
// result, an array of tools, a JSON-RPC response stream or a
// measurement.json). [Measure] launches a stdio server or connects to a
// Streamable HTTP or SSE URL. [MeasureServer] measures a go-sdk
// *mcp.Server in the same process, over a pair of pipes, launching
// nothing. Each returns a [Measurement] whose numbers are those of
// "mcpcost measure --json" for the same capture.
//
// # A budget in your server's tests
//
// A Go MCP server can hold its definitions to a budget in its own go
// test, so that a release that makes them heavier fails:
//
//	func TestToolBudget(t *testing.T) {
//		m, err := mcpcost.MeasureServer(context.Background(), newServer(), nil)
//		if err != nil {
//			t.Fatal(err)
//		}
//		err = m.CheckBudget(mcpcost.Budget{Total: 2000, PerTool: 600})
//		if err != nil {
//			t.Error(err) // names the total and each tool over its limit
//		}
//	}
//
// [Measurement.CheckBudget] returns a *[BudgetError] naming what is over.
//
// # Publishing
//
// [Measurement.WriteFile] writes measurement.json, which [Verify] (and
// "mcpcost verify", and mcp-context-cost's verify) re-derives every number
// of from the capture it holds.
//
// # Compatibility
//
// The exported identifiers of this package change only by addition. Its
// types are its own: none of the module's internal types appears in them.
package mcpcost
