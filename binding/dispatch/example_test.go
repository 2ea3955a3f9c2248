package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExampleDispatcher binds a click to a synthetic-UI MCP server and dispatches
// it: the planner pins the server's catalog and issues a sealed grant; the
// dispatcher connects, computes the live digest, and sends the call only
// through the broker, once.
func ExampleDispatcher() {
	ctx := context.Background()

	// A synthetic-UI server; in a live run it is its own process, connected
	// with dispatch.CommandTransport.
	ui := mcp.NewServer(&mcp.Implementation{Name: "synthetic-ui", Version: "v1.4.0"}, nil)
	ui.AddTool(&mcp.Tool{Name: "click", InputSchema: json.RawMessage(`{"type":"object",` +
		`"properties":{"target":{"type":"string"}},"required":["target"],"additionalProperties":false}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "clicked " + string(req.Params.Arguments)}}}, nil
		})
	serve := func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		_, _ = ui.Connect(ctx, st, nil)
		return ct
	}
	session := &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

	// The planner reads and pins the catalog, then issues the plan's grants.
	planner, _ := mcp.NewClient(&mcp.Implementation{Name: "planner", Version: "v1"}, nil).Connect(ctx, serve(), session)
	catalog, _ := dispatch.ListCatalog(ctx, planner, 1000, 10)
	planner.Close()
	key := binding.SealKey{ID: "2026-11", Secret: []byte("from your secret store, 32+ bytes")}
	policy, _ := binding.Digest(map[string]any{"servers": []string{"synthetic-ui"}})
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	grants, err := binding.IssuePlan(binding.Plan{
		Servers: []binding.PinnedServer{{Identity: binding.ServerIdentity{Name: "synthetic-ui", Version: "v1.4.0"}, Catalog: catalog}},
		RunID:   "run_4f1c2a", PolicyDigest: policy, Host: "vm-host-7", VMUUID: "5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10",
		IssuedAt: now, ExpiresAt: now.Add(10 * time.Minute),
		Steps: [][]binding.Call{{{Tool: "click", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)}}},
	}, &key)
	if err != nil {
		panic(err)
	}

	// The executor's broker knows its run, policy, host and VM, and the key.
	broker, _ := binding.NewBroker(binding.BrokerOptions{
		RunID: "run_4f1c2a", PolicyDigest: policy, Host: "vm-host-7", VMUUID: "5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10",
		Keys: []binding.SealKey{key}, Now: func() time.Time { return now.Add(time.Minute) },
	})
	// The dispatcher's own transport compares the answers to its re-reads
	// of the catalog as bytes; go-sdk's transports work too, and decode
	// every answer.
	st, ct := dispatch.NewInMemoryTransports()
	_, _ = ui.Connect(ctx, st, nil)
	d := dispatch.New(broker, nil)
	srv, err := d.Connect(ctx, ct, session)
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	// The model's decision: the granted call.
	call := binding.Call{Server: srv.Identity(), Tool: "click", Arguments: json.RawMessage(`{"target": "button:Sign in"}`)}
	res, err := d.Dispatch(ctx, grants[0], call)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, err)
	_, err = d.Dispatch(ctx, grants[0], call)
	var refused *automium.Error
	fmt.Println(errors.As(err, &refused), refused.Code)
	// Output:
	// clicked {"target":"button:Sign in"} <nil>
	// true grant_consumed
}
