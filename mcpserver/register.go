package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Register adds Automium's tools, resources, resource template and prompts to
// server, a server the caller already has, beside the caller's own features.
// opts may be nil; its Logger receives Automium's diagnostics.
//
// The SDK fixes a server's completion handler and instructions when the server
// is made, so Register cannot add them: pass [Complete] as
// mcp.ServerOptions.CompletionHandler (or call it from the caller's handler for
// Automium's references), and include [Instructions] in the server's
// instructions if its clients should learn Automium's flow.
//
// Register adds no middleware: requests for the caller's features pass
// through untouched. Nor does it recover panics: go-sdk v1.8.0 recovers none,
// in the caller's handlers or Automium's, so a server that must outlive a bug
// adds transport.Recover (package mcpserver/transport) as its outermost
// receiving middleware, as automium-mcp does. A name Automium
// uses that the server already has is replaced, as mcp.Server.AddTool does.
func Register(server *mcp.Server, opts *Options) {
	register(server, opts.logger(), tools(), prompts(), resources(), false)
}

// register adds the rows of the tool, prompt and resource tables to s, and the
// reference journey template; each resource handler marks its request served
// (markServed). fresh says no session can reach s yet (New's server), so the
// tools may skip go-sdk's schema checks (addShippedTool).
func register(s *mcp.Server, log *slog.Logger, toolTable []tool, promptTable []prompt, resourceTable []resource, fresh bool) {
	// The prompts' closed sets are checked against the root package now, so a
	// build whose prompts miss a lane or verdict fails at start-up, not on a
	// client's first call.
	closedSets()
	for _, t := range toolTable {
		if fresh {
			addShippedTool(s, t.def, t.handler(log))
		} else {
			s.AddTool(t.def, t.handler(log))
		}
	}
	for _, r := range resourceTable {
		s.AddResource(r.def, served(r.read))
	}
	s.AddResourceTemplate(journeysTemplate, served(readJourney))
	for _, p := range promptTable {
		s.AddPrompt(p.def, p.handler(log))
	}
}

// served wraps a resource handler so that it marks its request served, for
// guardNames.
func served(h mcp.ResourceHandler) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		markServed(ctx)
		return h(ctx, req)
	}
}

// placeholderInput is the input schema addShippedTool hands go-sdk's AddTool.
// It is JSON, not a *jsonschema.Schema: AddTool encodes the input schema to
// look for x-mcp-header annotations, and encoding a *jsonschema.Schema first
// builds the encoder of that 60-field type, 6% of a start's CPU (perf, 100
// starts). A few bytes of JSON are copied instead, as the go-sdk peer's are.
var placeholderInput = json.RawMessage(`{"type":"object"}`)

// addShippedTool adds def to s as s.AddTool does, without AddTool's checks
// of the schemas. AddTool checks a schema it is not handed as a
// *jsonschema.Schema by encoding it and decoding it into a map: the input
// schema twice (its type, then its x-mcp-header annotations), the output
// schema once. For Automium's schemas that was most of New's time and memory,
// paid by every start. The shipped schemas are checked by the tests instead
// (TestListedSchemasAreShipped: an object input, valid JSON, no
// x-mcp-header). So AddTool gets a copy of def with a placeholder input
// schema and no output schema, and the shipped schemas go back into that
// copy at once. This is safe only while no session can list the tools, so
// New uses it and Register does not.
func addShippedTool(s *mcp.Server, def *mcp.Tool, h mcp.ToolHandler) {
	t := *def
	t.InputSchema, t.OutputSchema = placeholderInput, nil
	s.AddTool(&t, h)
	t.InputSchema, t.OutputSchema = def.InputSchema, def.OutputSchema
}
