package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var discard = slog.New(slog.DiscardHandler)

// protocolVersions are the versions sessions are tested with: the SDK client's
// default (the stateless 2026-07-28 protocol, which skips initialize) and the
// handshake versions real clients such as the MCP Inspector and Claude send,
// and 2025-03-26, the last without structuredContent.
var protocolVersions = []string{"", "2025-11-25", "2025-06-18", "2025-03-26"}

// connect opens an in-memory session between server and a go-sdk client speaking
// protocol version (empty for the SDK default).
func connect(t testing.TB, server *mcp.Server, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		t.Fatalf("server.Connect: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpserver-test", Version: "v0.0.0"}, nil)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, clientTransport, opts)
	if err != nil {
		t.Fatalf("client.Connect(protocol %q): %v", version, err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// eachProtocol runs f in a subtest per protocol version, each with its own session.
func eachProtocol(t *testing.T, f func(t *testing.T, cs *mcp.ClientSession)) {
	for _, v := range protocolVersions {
		name := v
		if name == "" {
			name = "sdk-default"
		}
		t.Run(name, func(t *testing.T) { f(t, connect(t, New(nil), v)) })
	}
}

// rpcCode returns the JSON-RPC error code carried by err, failing the test when
// err is not a JSON-RPC error.
func rpcCode(t *testing.T, err error) (int64, *jsonrpc.Error) {
	t.Helper()
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("error %v (%T) is not a JSON-RPC error", err, err)
	}
	return werr.Code, werr
}

// toolError extracts the structured error of a failed tool result and checks that
// the result has the documented shape.
func toolError(t *testing.T, res *mcp.CallToolResult) *automium.Error {
	t.Helper()
	if !res.IsError {
		t.Fatalf("result is not an error: %s", resultText(res))
	}
	if res.StructuredContent != nil {
		t.Errorf("error result has structuredContent %v; it must not, or schema-validating clients reject it", res.StructuredContent)
	}
	if len(res.Content) != 2 {
		t.Fatalf("error result has %d content blocks, want 2 (readable text, JSON)", len(res.Content))
	}
	var env struct {
		Error *automium.Error `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(res.Content[1].(*mcp.TextContent).Text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || env.Error == nil {
		t.Fatalf("second content block is not {\"error\": {...}}: %v", err)
	}
	if got, want := res.Content[0].(*mcp.TextContent).Text, readable(env.Error); got != want {
		t.Errorf("readable text = %q, want %q", got, want)
	}
	return env.Error
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// outputSchemas returns each tool's advertised output schema, resolved, as a client
// sees it.
func outputSchemas(t *testing.T, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: output schema does not parse: %v", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tool.Name, err)
		}
		out[tool.Name] = r
	}
	return out
}
