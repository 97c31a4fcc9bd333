package mcpcost_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcost/mcpcost/mcpcost"
)

func ExampleMeasureTools() {
	tools := []byte(`{"tools":[
		{"name":"get_weather","description":"Current weather for a city.",
		 "inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
		{"name":"ping","inputSchema":{"type":"object"}}
	]}`)
	m, err := mcpcost.MeasureTools(tools, &mcpcost.Options{Name: "weather"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d tools, %d tokens (%d bytes)\n", m.ToolCount, m.TotalTokens, m.CanonicalBytes)
	for _, t := range m.Tools {
		fmt.Printf("%s: %d tokens, description %d, inputSchema %d\n", t.Name, t.Tokens, t.Part(mcpcost.PartDescription), t.Part(mcpcost.PartInputSchema))
	}
	fmt.Printf("Claude request: %d tokens\n", m.Claude.RequestTokens)
	// Output:
	// 2 tools, 49 tokens (208 bytes)
	// get_weather: 35 tokens, description 8, inputSchema 22
	// ping: 12 tokens, description 0, inputSchema 8
	// Claude request: 61 tokens
}

func ExampleMeasurement_CheckBudget() {
	m, err := mcpcost.MeasureTools([]byte(`[
		{"name":"search","description":"Search the catalogue by keyword, category, price range and availability, sorted by relevance or price.","inputSchema":{"type":"object","properties":{"query":{"type":"string"},"category":{"type":"string"},"minPrice":{"type":"number"},"maxPrice":{"type":"number"}}}},
		{"name":"ping","inputSchema":{"type":"object"}}
	]`), &mcpcost.Options{Name: "shop"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.CheckBudget(mcpcost.Budget{Total: 200, PerTool: 100}))
	fmt.Println(m.CheckBudget(mcpcost.Budget{Total: 50, PerTool: 40}))
	// Output:
	// <nil>
	// shop is over its token budget: total 79 tokens, limit 50 (29 over); tool search 65 tokens, limit 40 (25 over)
}

func ExampleMeasureServer() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type in struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Say hello to someone."},
		func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	m, err := mcpcost.MeasureServer(context.Background(), s, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s: %d tool, %d tokens\n", m.Name, m.Status, m.ToolCount, m.TotalTokens)
	if err := m.CheckBudget(mcpcost.Budget{PerTool: 100}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// greeter measured: 1 tool, 47 tokens
}
