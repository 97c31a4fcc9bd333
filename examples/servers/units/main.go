// Command units is a small MCP server that converts units of length, mass,
// temperature and data size. It serves over stdio, or over Streamable HTTP
// with -http ADDR.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// factors maps a unit to its dimension and its size in the dimension's base
// unit (metre, kilogram, byte).
var factors = map[string]struct {
	dim    string
	factor float64
}{
	"mm": {"length", 0.001}, "cm": {"length", 0.01}, "m": {"length", 1}, "km": {"length", 1000},
	"in": {"length", 0.0254}, "ft": {"length", 0.3048}, "yd": {"length", 0.9144}, "mi": {"length", 1609.344},
	"g": {"mass", 0.001}, "kg": {"mass", 1}, "t": {"mass", 1000}, "oz": {"mass", 0.028349523125}, "lb": {"mass", 0.45359237},
	"B": {"data", 1}, "KB": {"data", 1e3}, "MB": {"data", 1e6}, "GB": {"data", 1e9},
	"KiB": {"data", 1 << 10}, "MiB": {"data", 1 << 20}, "GiB": {"data", 1 << 30},
}

type convertIn struct {
	Value float64 `json:"value" jsonschema:"the quantity to convert"`
	From  string  `json:"from" jsonschema:"the unit of value, e.g. km, lb, C, MiB (see list_units)"`
	To    string  `json:"to" jsonschema:"the unit to convert to, of the same dimension"`
}

type convertOut struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	Text  string  `json:"text"`
}

type listIn struct {
	Dimension string `json:"dimension,omitempty" jsonschema:"length, mass, temperature or data; all when empty"`
}

type listOut struct {
	Units map[string][]string `json:"units"`
}

func toKelvin(v float64, u string) (float64, bool) {
	switch u {
	case "K":
		return v, true
	case "C":
		return v + 273.15, true
	case "F":
		return (v-32)*5/9 + 273.15, true
	}
	return 0, false
}

func fromKelvin(k float64, u string) float64 {
	switch u {
	case "C":
		return k - 273.15
	case "F":
		return (k-273.15)*9/5 + 32
	}
	return k
}

func convert(_ context.Context, _ *mcp.CallToolRequest, in convertIn) (*mcp.CallToolResult, convertOut, error) {
	if k, ok := toKelvin(in.Value, in.From); ok {
		if _, ok := toKelvin(0, in.To); !ok {
			return nil, convertOut{}, fmt.Errorf("cannot convert temperature to %q", in.To)
		}
		v := fromKelvin(k, in.To)
		return nil, convertOut{v, in.To, fmt.Sprintf("%g %s = %g %s", in.Value, in.From, v, in.To)}, nil
	}
	f, ok1 := factors[in.From]
	t, ok2 := factors[in.To]
	switch {
	case !ok1:
		return nil, convertOut{}, fmt.Errorf("unknown unit %q", in.From)
	case !ok2:
		return nil, convertOut{}, fmt.Errorf("unknown unit %q", in.To)
	case f.dim != t.dim:
		return nil, convertOut{}, fmt.Errorf("cannot convert %s (%s) to %s (%s)", in.From, f.dim, in.To, t.dim)
	}
	v := in.Value * f.factor / t.factor
	return nil, convertOut{v, in.To, fmt.Sprintf("%g %s = %g %s", in.Value, in.From, v, in.To)}, nil
}

func list(_ context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
	out := listOut{Units: map[string][]string{}}
	for u, f := range factors {
		if in.Dimension == "" || strings.EqualFold(in.Dimension, f.dim) {
			out.Units[f.dim] = append(out.Units[f.dim], u)
		}
	}
	if in.Dimension == "" || strings.EqualFold(in.Dimension, "temperature") {
		out.Units["temperature"] = []string{"C", "F", "K"}
	}
	for _, us := range out.Units {
		sort.Strings(us)
	}
	return nil, out, nil
}

func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "units", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "convert",
		Title:       "Convert units",
		Description: "Convert a quantity between units of the same dimension: length (mm, cm, m, km, in, ft, yd, mi), mass (g, kg, t, oz, lb), temperature (C, F, K) or data size (B, KB, MB, GB, KiB, MiB, GiB).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, convert)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "list_units",
		Description: "List the units convert understands, by dimension.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, list)
	return server
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (default: stdio)")
	flag.Parse()
	server := newServer()
	if *addr != "" {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
		log.Fatal(http.ListenAndServe(*addr, h))
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
