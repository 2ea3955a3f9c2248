package stdio

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/automium/automium/internal/echo"
)

// The SDK's own error texts that the transport rewrites. A test pins each one
// against go-sdk, so an upgrade that changes them fails there, not at a client.
const (
	// sdkDecodeFailure is in every params decoding error of go-sdk v1.8.0:
	// `unmarshaling "<the whole params>" into a *mcp.CallToolParamsRaw: <decoder error>`.
	sdkDecodeFailure = "unmarshaling "
	sdkDecodeTarget  = " into a "
	// sdkMissingParams ends the error for a method that requires params.
	sdkMissingParams = `missing required "params"`
	// sdkBeforeInitialize ends the plain error for a call before initialize.
	sdkBeforeInitialize = "is invalid during session initialization"
)

// encodeResponse encodes the response to a call of method ("" when unknown),
// repairing what go-sdk v1.8.0 would get wrong on the wire; see [rewriteError].
// A response without a valid id would be sent with no id member at all; it gets
// "id": null.
func encodeResponse(resp *jsonrpc.Response, method string) ([]byte, error) {
	if resp.Error != nil {
		fixed := *resp
		fixed.Error = rewriteError(resp.Error, method)
		resp = &fixed
	}
	if !resp.ID.IsValid() {
		wire := resp.Error.(*jsonrpc.Error) // a response without an id is always an error
		return errorLine(nil, wire.Code, wire.Message), nil
	}
	if resp.Error == nil && len(resp.Result) > 0 {
		return resultLine(resp), nil
	}
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return nil, fmt.Errorf("stdio: encoding response: %w", err)
	}
	return data, nil
}

// resultLine writes a result response around the result's bytes as they are.
// The SDK made them with the encoder jsonrpc.EncodeMessage uses (compact, no
// HTML escaping), so the line is byte for byte what EncodeMessage would give,
// without its second pass over the result: about five times faster for a
// result of megabytes (BenchmarkEncodeResult), which is most of what a large
// answer costs the transport.
func resultLine(resp *jsonrpc.Response) []byte {
	const head, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	id := rawID(resp.ID)
	line := make([]byte, 0, len(head)+len(id)+len(mid)+len(resp.Result)+1)
	line = append(line, head...)
	line = append(line, id...)
	line = append(line, mid...)
	line = append(line, resp.Result...)
	return append(line, '}')
}

// rewriteError turns an error the SDK is about to send into the one the client
// should read:
//
//   - a params decoding failure, which names Go types and quotes the whole params,
//     becomes -32602 naming the method;
//   - a missing params becomes -32602 (initialize's is a plain error, code 0);
//   - a call before initialize becomes -32600 (a plain error, code 0): the request
//     is not valid at this point of the session;
//   - method not found quotes the method through echo.Quote;
//   - any other error without a JSON-RPC code (a plain Go error, or code 0)
//     becomes -32603 (Internal error) with the same message and data;
//   - a message longer than MaxErrorMessageBytes is cut, its length noted.
func rewriteError(err error, method string) *jsonrpc.Error {
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
	out.Message = capMessage(out.Message)
	return out
}

// capMessage cuts a message to MaxErrorMessageBytes on a rune boundary.
func capMessage(msg string) string {
	if len(msg) <= MaxErrorMessageBytes {
		return msg
	}
	note := "… (" + strconv.Itoa(len(msg)) + " bytes)"
	cut := MaxErrorMessageBytes - len(note)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + note
}
