package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/automium/automium"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errorEnvelope is the machine-readable form of a failed call: {"error": {...}}.
type errorEnvelope struct {
	// URI names the resource a not-found error is about, as the SDK's own
	// not-found error does.
	URI   string          `json:"uri,omitempty"`
	Error *automium.Error `json:"error"`
}

// toolErrorResult turns the error of a capability into a failed tool result, so
// that the model sees it and can correct its call.
//
// The result has two text blocks: a readable line ("code: field: message
// (allowed: ...)") and the JSON {"error": {code, message, field, allowed}}. It
// deliberately has no structuredContent: every tool advertises an output schema,
// and the TypeScript SDK client (used by the MCP Inspector and many hosts)
// validates structuredContent against that schema even when isError is true.
// With @modelcontextprotocol/sdk 1.32.2, once the client has listed the tools, an
// error result carrying {"error": ...} as structuredContent makes callTool throw
// "-32602 Structured content does not match the tool's output schema", so the
// model would never see the error. Without structuredContent, the TypeScript and
// Go clients both accept the result.
func toolErrorResult(log *slog.Logger, toolName string, err error) *mcp.CallToolResult {
	e := errorInToolWords(asError(log, toolName, err))
	body, merr := json.Marshal(errorEnvelope{Error: e})
	if merr != nil {
		body = []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{
			&mcp.TextContent{Text: readable(e)},
			&mcp.TextContent{Text: string(body)},
		},
	}
}

// asError classifies any error as an *automium.Error. Domain errors pass through;
// a cancelled call says so; anything else is a bug, logged with its detail and
// reported to the client without it.
func asError(log *slog.Logger, where string, err error) *automium.Error {
	if ae, ok := errors.AsType[*automium.Error](err); ok {
		return ae
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &automium.Error{Code: automium.CodeCanceled, Message: "the call was canceled or timed out before it finished; call it again"}
	}
	log.Error("mcpserver: unexpected error", "where", where, "error", err)
	return internalError()
}

// errorInToolWords returns a copy of e whose messages name tools where the root
// package named its Go functions (see toToolWords).
func errorInToolWords(e *automium.Error) *automium.Error {
	c := *e
	c.Message = toToolWords(c.Message)
	if len(c.Problems) > 0 {
		c.Problems = slices.Clone(c.Problems)
		for i := range c.Problems {
			c.Problems[i].Message = toToolWords(c.Problems[i].Message)
		}
	}
	return &c
}

func internalError() *automium.Error {
	return &automium.Error{Code: automium.CodeInternal, Message: "internal error in the automium MCP server; this is a bug, please report it"}
}

// readable renders an error as lines a model can act on, one per problem:
// "code: field: message (allowed: ...)".
func readable(e *automium.Error) string {
	if len(e.Problems) == 0 {
		return automium.Problem{Code: e.Code, Message: e.Message, Field: e.Field, Allowed: e.Allowed}.String()
	}
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// rpcError builds a JSON-RPC error with a real code, carrying the automium error
// as data so clients can read code, field and allowed values.
func rpcError(code int64, env errorEnvelope) *jsonrpc.Error {
	env.Error = errorInToolWords(env.Error)
	data, err := json.Marshal(env)
	if err != nil {
		data = nil
	}
	return &jsonrpc.Error{Code: code, Message: readable(env.Error), Data: data}
}

// recoverPanics is receiving middleware that turns a panic in any handler into an
// error response, because the SDK does not recover and one bad call must not end
// the session. A panicking tool call becomes an internal tool error (the model sees
// it); any other request gets JSON-RPC internal error -32603.
func recoverPanics(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				log.Error("mcpserver: recovered panic", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				if method == "tools/call" {
					res, err = toolErrorResult(log, method, internalError()), nil
					return
				}
				res, err = nil, rpcError(jsonrpc.CodeInternalError, errorEnvelope{Error: internalError()})
			}()
			return next(ctx, method, req)
		}
	}
}
