package transport

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Recover returns receiving middleware that turns a panic in any method
// handler of the server it is added to into an answer, because go-sdk v1.8.0
// recovers none (PR #1180 was declined) and a panic in a handler goroutine
// ends the process: every session, on every transport. It is the one
// recovery of the server: add it to the server last, so that it is
// outermost and covers every tool, prompt, resource and completion handler
// and every other middleware, whatever transport serves the session.
//
// A panicking tools/call is answered as a failed tool call (isError), so the
// model sees that the tool failed; any other request gets JSON-RPC internal
// error -32603. Neither says more than that: the panic value and its stack
// go to log, at error, the value cut to a short prefix. The session lives
// on. A handler's own goroutines are beyond its reach.
func Recover(log *slog.Logger) mcp.Middleware {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				log.Error("transport: recovered panic", "method", auditValue(method), "name", auditValue(requestName(req)),
					"panic", auditValue(fmt.Sprint(r)), "stack", string(debug.Stack()))
				if method == "tools/call" {
					res, err = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: panicMessage}}}, nil
					return
				}
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: " + panicMessage}
			}()
			return next(ctx, method, req)
		}
	}
}

// requestName is what a request names beside its method: the tool, the
// prompt or the resource, for the audit log and the panic log.
func requestName(req mcp.Request) string {
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		return p.Name
	case *mcp.GetPromptParams:
		return p.Name
	case *mcp.ReadResourceParams:
		return p.URI
	}
	return ""
}

// panicMessage is all a client learns of a recovered panic.
const panicMessage = "the server failed while handling this request; this is a bug in the server, please report it"
