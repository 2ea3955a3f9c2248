package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/automium/automium"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errorEnvelope is the machine-readable form of a failed call: {"error": {...}}.
// Clients (and this package's tests) read it with automium.Error's JSON form;
// the server writes it with envelopeJSON, in tool words.
type errorEnvelope struct {
	// URI names the resource a not-found error is about, as the SDK's own
	// not-found error does, cut by echoName.
	URI   string          `json:"uri,omitempty"`
	Error *automium.Error `json:"error"`
}

// toolWords names a capability by its tool's name: the words the adapter's
// errors are rendered in (see automium.Problem.MessageIn), so that an agent
// reads "from automium_create_run_submission" where a Go caller reads "from
// CreateRunSubmission". It is a render-time choice: no message is rewritten
// after it is made.
func toolWords(goName string) string {
	if name, ok := toolNames()[goName]; ok {
		return name
	}
	return goName
}

// envelopeJSON writes env with its messages in tool words.
func envelopeJSON(env errorEnvelope) []byte {
	e, err := env.Error.JSONIn(toolWords)
	if err != nil {
		e = []byte(`{"code":"internal","message":"internal error"}`)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as JSONIn: < in a client value is one byte, not six
	err = enc.Encode(struct {
		URI   string          `json:"uri,omitempty"`
		Error json.RawMessage `json:"error"`
	}{env.URI, e})
	if err != nil {
		return []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
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
	e := asError(log, toolName, err)
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{
			&mcp.TextContent{Text: readable(e)},
			&mcp.TextContent{Text: string(envelopeJSON(errorEnvelope{Error: e}))},
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
		return problem(automium.CodeCanceled, automium.Path{}, nil, "the call was canceled or timed out before it finished; call it again")
	}
	log.Error("mcpserver: unexpected error", "where", where, "error", err)
	return internalError()
}

// problem makes a one-problem error of the adapter's own. Client values among
// args must be echo.Value, which the one renderer quotes cut.
func problem(code automium.Code, at automium.Path, allowed []string, format string, args ...any) *automium.Error {
	return automium.NewProblem(code, at, allowed, format, args...).Err()
}

func internalError() *automium.Error {
	return problem(automium.CodeInternal, automium.Path{}, nil, "internal error in the automium MCP server; this is a bug, please report it")
}

// readable renders an error as lines a model can act on, one per problem:
// "code: field: message (allowed: ...)", in tool words.
func readable(e *automium.Error) string {
	problems := e.Problems()
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.TextIn(toolWords)
	}
	return strings.Join(lines, "\n")
}

// rpcError builds a JSON-RPC error with a real code, carrying the automium error
// as data so clients can read code, field and allowed values.
func rpcError(code int64, env errorEnvelope) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: readable(env.Error), Data: envelopeJSON(env)}
}
