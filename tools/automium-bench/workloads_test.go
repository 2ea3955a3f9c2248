package main

import (
	"context"
	"testing"

	"github.com/automium/automium/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWorkloadsCallEveryTool: the bench measures every tool the server lists,
// each with at least one workload; a tool the hand-made workloads miss gets
// its tool table row's example.
func TestWorkloadsCallEveryTool(t *testing.T) {
	ctx := context.Background()
	loads, err := workloads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	measured := map[string]bool{}
	for _, w := range loads {
		measured[w.tool] = true
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "automium-bench-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if !measured[tool.Name] {
			t.Errorf("no workload calls %s", tool.Name)
		}
	}
	if len(list.Tools) == 0 {
		t.Error("the server lists no tools")
	}
}
