package envelope

import (
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/echo"
)

// SDKRefusal is the JSON-RPC error for a call that go-sdk's HTTP transport
// refused with a plain-text 400 of its own, rendered, like [SDKError], from
// what the call was: its method and whether it carried params. Its text is
// never forwarded; the HTTP handler reads only its first 20 bytes, to tell
// go-sdk's "JSON RPC not handled" from its other refusal. The HTTP handler answers the header checks go-sdk makes first
// (Accept, MCP-Protocol-Version) itself, and the door a call named as a
// notification, so what is left is go-sdk's method check: a method it does
// not have, or one that needs params sent without them. notHandled says it
// is the first (the call carried params, so only the first can be the
// reason, or go-sdk said so): -32601, stdio's answer to the same call.
// Otherwise it is answered as go-sdk answers a call without the params it
// needs on stdio: -32600.
func SDKRefusal(method string, notHandled bool) *jsonrpc.Error {
	if notHandled {
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + echo.Quote(method)}
	}
	return SDKError(&jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest}, method)
}

// SDKError is the error the client reads for an error go-sdk is about to send
// for a call of method, the same on every transport. It is rendered from the
// error's code alone, never from its text, which go-sdk may word as it likes
// and which can quote client values whole:
//
//   - an error of the server's own handlers (mcpserver's: a -32602 or
//     -32603 whose data holds an automium error, {"error": {"code": …}})
//     passes as it was rendered, cut to MaxErrorMessageBytes;
//   - code 0 (a plain Go error) and -32603 become -32603 with a fixed
//     message, but for initialize, whose params go-sdk refuses so: -32602;
//   - -32601 becomes "Method not found" quoting the method through echo.Quote;
//   - go-sdk's unsupported protocol version keeps its code, and its data is
//     rebuilt: the versions go-sdk supports and the one requested (SEP-2575),
//     which the door bounds;
//   - a -32602 whose data names a URI (go-sdk's resource-not-found, SEP-2164)
//     keeps that URI in its data, through [echo.URI];
//   - every other code keeps its code with a fixed message for it.
//
// go-sdk words its refusals of params that do not decode into its types in
// Go type names, with the params quoted whole: those are -32602 and get the
// fixed message of that code, as a method it does not have gets -32601's
// and a call without the params it needs -32600's.
func SDKError(err error, method string) *jsonrpc.Error {
	wire, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok {
		wire = &jsonrpc.Error{}
	}
	if ownError(wire.Data) {
		return &jsonrpc.Error{Code: wire.Code, Message: CapMessage(wire.Message), Data: wire.Data}
	}
	quoted := echo.Quote(method)
	out := &jsonrpc.Error{Code: wire.Code}
	switch wire.Code {
	case 0:
		if method == "initialize" {
			// go-sdk refuses initialize params it cannot decode into its
			// own type with a plain error; a second initialize, its other
			// plain error, the transports answer before it.
			out.Code = jsonrpc.CodeInvalidParams
			out.Message = "Invalid params: the params of " + quoted + " do not have the shape MCP defines for them"
			break
		}
		fallthrough
	case jsonrpc.CodeInternalError:
		out.Code = jsonrpc.CodeInternalError
		out.Message = "Internal error: the server failed to answer the call of " + quoted + "; this is a bug, please report it"
	case jsonrpc.CodeMethodNotFound:
		out.Message = "Method not found: " + quoted
	case jsonrpc.CodeInvalidParams:
		out.Message = "Invalid params: the params of " + quoted + " do not have the shape MCP defines for them, or name nothing this server has"
		// go-sdk's resource-not-found (SEP-2164) carries the URI asked for in
		// its data, structured; the data is rebuilt from that one member.
		var sent struct {
			URI string `json:"uri"`
		}
		if jsonv2.Unmarshal(wire.Data, &sent, jsonv2.RejectUnknownMembers(false)) == nil && sent.URI != "" {
			out.Message = "Resource not found: no resource has the URI the call of " + quoted + " names"
			out.Data, _ = json.Marshal(struct {
				URI string `json:"uri"`
			}{echo.URI(sent.URI)})
		}
	case jsonrpc.CodeInvalidRequest:
		out.Message = "Invalid Request: the call of " + quoted + " is not one the server can serve in this session; check that it carries the params MCP requires of it"
	case jsonrpc.CodeParseError:
		out.Message = "Parse error: the call of " + quoted + " is not valid JSON"
	case mcp.CodeUnsupportedProtocolVersion:
		out.Message = "Unsupported protocol version: the call of " + quoted + " names a protocol version this server does not speak; retry with one it lists in data.supported"
		// SEP-2575: the data lists the versions supported and echoes the one
		// requested, which the door has bounded to MaxProtocolVersionBytes;
		// it is read from go-sdk's structured data, never its message.
		var sent struct {
			Requested string `json:"requested"`
		}
		_ = jsonv2.Unmarshal(wire.Data, &sent, jsonv2.RejectUnknownMembers(false))
		if len(sent.Requested) > MaxProtocolVersionBytes {
			sent.Requested = echo.Quote(sent.Requested)
		}
		out.Data, _ = json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: mcp.SupportedProtocolVersions(), Requested: sent.Requested})
	default:
		out.Message = "Error: the call of " + quoted + " failed"
	}
	return out
}

// ownError reports whether an error's data is what mcpserver's one renderer
// writes for every error of its handlers: an object whose "error" member is
// an automium error with a code. go-sdk's own errors carry no such data.
// The check reads the data, made by this module, never go-sdk's message.
func ownError(data json.RawMessage) bool {
	if len(data) == 0 {
		return false
	}
	var env struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := jsonv2.Unmarshal(data, &env, jsonv2.RejectUnknownMembers(false)); err != nil {
		return false
	}
	return env.Error != nil && env.Error.Code != "" && jsontext.Value(data).IsValid()
}
