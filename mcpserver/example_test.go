package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/automium/automium/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect serves a new automium server to a client over in-memory transports,
// as a stdio host would over pipes.
func connect(ctx context.Context) (*mcp.ClientSession, error) {
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	if _, err := mcpserver.New(nil).Connect(ctx, serverTransport, nil); err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example-client", Version: "v1.0.0"}, nil)
	return client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

func Example() {
	ctx := context.Background()
	session, err := connect(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "automium_compile_journey" {
			fmt.Println(tool.Title)
			fmt.Println("read-only:", tool.Annotations.ReadOnlyHint)
		}
	}
	// Output:
	// Validate and compile a journey
	// read-only: true
}

// A bad argument comes back as a tool error the model can read and correct: the
// code, the field and the allowed values.
func Example_toolError() {
	ctx := context.Background()
	session, err := connect(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	res, err := session.CallTool(ctx, &mcp.CallToolParams{
		Name:      "automium_list_fixtures",
		Arguments: map[string]any{"appId": "gmail"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// true
	// invalid_app_id: appId: "gmail" is not an authorized benchmark app ID; use one of the allowed values (allowed: admin-console, banking, docs-portal, helpdesk, hr-onboarding, kanban, storefront)
}

// A program that already has an MCP server puts Automium's tools, resources and
// prompts on it beside its own. The completion handler is fixed when a server is
// made, so the program passes mcpserver.Complete itself.
func ExampleRegister() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "my-qa-server", Version: "v1.0.0"},
		&mcp.ServerOptions{CompletionHandler: mcpserver.Complete})
	mcp.AddTool(server, &mcp.Tool{Name: "my_flaky_tests", Description: "Lists this team's flaky tests."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "checkout.spec.ts"}}}, nil, nil
		})
	mcpserver.Register(server, nil)

	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverTransport, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example-client", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	ours := 0
	for _, tool := range tools.Tools {
		if strings.HasPrefix(tool.Name, "automium_") {
			ours++
		} else {
			fmt.Println(tool.Name)
		}
	}
	fmt.Println(ours > 0)
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "my_flaky_tests"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	vocabulary, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "automium://vocabulary/planner-intent-v1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(vocabulary.Contents[0].MIMEType)
	// Output:
	// my_flaky_tests
	// true
	// checkout.spec.ts
	// application/json
}
