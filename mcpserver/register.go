package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
// A panic in an Automium handler is recovered and answered as an internal
// error, so it cannot end the caller's process. Register adds no middleware:
// requests for the caller's features pass through untouched. A name Automium
// uses that the server already has is replaced, as mcp.Server.AddTool does.
func Register(server *mcp.Server, opts *Options) {
	register(server, opts.logger(), tools(), prompts(), resources())
}

// register adds the rows of the tool, prompt and resource tables to s, and the
// reference journey template, each handler wrapped so that it recovers its own
// panics.
func register(s *mcp.Server, log *slog.Logger, toolTable []tool, promptTable []prompt, resourceTable []resource) {
	// The prompts' closed sets are checked against the root package now, so a
	// build whose prompts miss a lane or verdict fails at start-up, not on a
	// client's first call.
	closedSets()
	for _, t := range toolTable {
		s.AddTool(t.def, recoverTool(log, t.def.Name, t.handler(log)))
	}
	for _, r := range resourceTable {
		s.AddResource(r.def, recoverResource(log, r.read))
	}
	s.AddResourceTemplate(journeysTemplate, recoverResource(log, readJourney))
	for _, p := range promptTable {
		s.AddPrompt(p.def, recoverPrompt(log, p.def.Name, p.handler(log)))
	}
}

// logPanic records a recovered panic with its stack; the client gets no detail.
func logPanic(log *slog.Logger, where string, r any) {
	log.Error("mcpserver: recovered panic", "where", where, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
}

func recoverTool(log *slog.Logger, name string, h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				logPanic(log, name, r)
				res, err = toolErrorResult(log, name, internalError()), nil
			}
		}()
		return h(ctx, req)
	}
}

func recoverPrompt(log *slog.Logger, name string, h mcp.PromptHandler) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				logPanic(log, name, r)
				res, err = nil, rpcError(jsonrpc.CodeInternalError, errorEnvelope{Error: internalError()})
			}
		}()
		return h(ctx, req)
	}
}

func recoverResource(log *slog.Logger, h mcp.ResourceHandler) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (res *mcp.ReadResourceResult, err error) {
		markServed(ctx)
		defer func() {
			if r := recover(); r != nil {
				logPanic(log, "resources/read", r)
				res, err = nil, rpcError(jsonrpc.CodeInternalError, errorEnvelope{Error: internalError()})
			}
		}()
		return h(ctx, req)
	}
}
