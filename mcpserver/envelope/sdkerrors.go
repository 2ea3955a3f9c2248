package envelope

import (
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/automium/automium/internal/echo"
)

// The go-sdk v1.8.0 error texts that [SDKError] recognises. A test pins each
// one against go-sdk, so an upgrade that changes them fails there, not at a
// client.
const (
	// sdkDecodeFailure is in every params decoding error of go-sdk v1.8.0:
	// `unmarshaling "<the whole params>" into a *mcp.CallToolParamsRaw: <decoder error>`.
	sdkDecodeFailure = "unmarshaling "
	sdkDecodeTarget  = " into a "
	// sdkMissingParams ends the error for a method that requires params.
	sdkMissingParams = `missing required "params"`
	// sdkBeforeInitialize ends the plain error for a call before initialize.
	sdkBeforeInitialize = "is invalid during session initialization"
	// sdkNotHandled begins the text of go-sdk's check of a call's method
	// (jsonrpc2.ErrNotHandled), which its HTTP transport sends as plain text.
	sdkNotHandled = "JSON RPC not handled"
)

// SDKRefusal renders the plain-text refusal go-sdk's HTTP transport sends
// for a call its method check fails, as [SDKError] renders the same check's
// error on stdio, where it arrives with its JSON-RPC code.
func SDKRefusal(text, method string) *jsonrpc.Error {
	text = strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(text, sdkNotHandled):
		return SDKError(&jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: text}, method)
	}
	// Its other refusals (a protocol version header it does not speak, an
	// Accept header without both media types) are the client's to fix too.
	return SDKError(&jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: text}, method)
}

// SDKError turns an error go-sdk is about to send for a call of method into
// the one the client reads, the same on every transport:
//
//   - a params decoding failure, which names Go types and quotes the whole
//     params, becomes -32602 naming the method;
//   - a missing params becomes -32602 (initialize's is a plain error, code 0);
//   - a call before initialize becomes -32600 (a plain error, code 0);
//   - method not found quotes the method through echo.Quote;
//   - any other error without a JSON-RPC code (a plain Go error, or code 0)
//     becomes -32603 (Internal error) with the same message and data;
//   - a message longer than MaxErrorMessageBytes is cut, its length noted.
//
// The door cannot take these out before go-sdk sees the call: they depend on
// go-sdk's own params types. Rewriting only ever changes an error's text and
// code, never whether a request is served.
func SDKError(err error, method string) *jsonrpc.Error {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		wire = &jsonrpc.Error{}
	}
	out := &jsonrpc.Error{Code: wire.Code, Message: err.Error(), Data: wire.Data}
	switch msg := out.Message; {
	case strings.Contains(msg, sdkDecodeFailure) && strings.Contains(msg, sdkDecodeTarget):
		out = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: "Invalid params: the params of " + echo.Quote(method) + " do not have the shape MCP defines for them"}
	case strings.HasSuffix(msg, sdkMissingParams):
		out = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + echo.Quote(method) + " requires params"}
	case out.Code == 0 && strings.HasSuffix(msg, sdkBeforeInitialize):
		out = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "Invalid Request: " + echo.Quote(method) + " was sent before initialize; send initialize first"}
	case out.Code == jsonrpc.CodeMethodNotFound:
		out.Message = "Method not found: " + echo.Quote(method)
	case out.Code == 0:
		out.Code = jsonrpc.CodeInternalError
	}
	out.Message = CapMessage(out.Message)
	return out
}
