package main

import (
	"context"
	"testing"

	"github.com/mcpcost/mcpcost/mcpcost"
)

// TestToolBudget holds the server's tool definitions to a budget: a
// change that makes them heavier than this fails here, before release.
func TestToolBudget(t *testing.T) {
	m, err := mcpcost.MeasureServer(context.Background(), newServer(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckBudget(mcpcost.Budget{Total: 800, PerTool: 250}); err != nil {
		t.Error(err)
	}
}
