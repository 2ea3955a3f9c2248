package envelope

import (
	"encoding/json"
	"slices"
	"strings"

	segjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/echo"
)

// method is what go-sdk v1.8.0 requires of a message that names a method its
// server handles (serverMethodInfos in mcp/server.go, checkRequest and
// newMethodInfo in mcp/shared.go): whether it is a notification, whether it
// needs params, and the Go type go-sdk decodes its params into.
type method struct {
	notification   bool
	paramsOptional bool
	// decode decodes params as go-sdk does, into the same type with the same
	// decoder, and reports whether they are nil (JSON null).
	decode func(params []byte) (isNil bool, err error)
}

// decodeAs decodes params into a *T with the decoder go-sdk v1.8.0 decodes
// them with (its internal/json: segmentio/encoding/json, matching struct
// field names exactly). Through the door the two cannot disagree: it has
// already refused what that decoder is lenient about (duplicate and
// case-variant names, invalid UTF-8, excess depth), so the same type and the
// same decoder give go-sdk's verdict, without reading go-sdk's error.
func decodeAs[T any](params []byte) (bool, error) {
	// Parse with this flag is what go-sdk's Decoder.Decode does once it has
	// read the one value, without copying it into a buffer first.
	var p *T
	if _, err := segjson.Parse(params, &p, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return false, err
	}
	return p == nil, nil
}

// initializeParams mirrors go-sdk's unexported initializeParamsV2, the type it
// decodes initialize's params into (the workaround for go-sdk issue #607):
// InitializeParams whose capabilities take roots as a pointer.
type initializeParams struct {
	mcp.InitializeParams
	Capabilities *clientCapabilities `json:"capabilities"`
}

// clientCapabilities mirrors go-sdk's unexported clientCapabilitiesV2.
type clientCapabilities struct {
	mcp.ClientCapabilities
	//lint:ignore SA1019 roots are deprecated, not gone: go-sdk still decodes them, and the door must decode what it does
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
}

// methods is go-sdk v1.8.0's serverMethodInfos: every method its server
// accepts from a client, with its flags and params type. mcpserver registers
// no method of its own (go-sdk's HTTP transport would refuse one anyway: it
// checks calls against this same table). TestMethodTableMatchesSDK checks the
// door's verdicts against go-sdk's own on a raw go-sdk server.
var methods = map[string]method{
	"completion/complete":      {decode: decodeAs[mcp.CompleteParams]},
	"server/discover":          {paramsOptional: true, decode: decodeAs[mcp.DiscoverParams]},
	"initialize":               {decode: decodeAs[initializeParams]},
	"ping":                     {paramsOptional: true, decode: decodeAs[mcp.PingParams]},
	"prompts/list":             {paramsOptional: true, decode: decodeAs[mcp.ListPromptsParams]},
	"prompts/get":              {decode: decodeAs[mcp.GetPromptParams]},
	"tools/list":               {paramsOptional: true, decode: decodeAs[mcp.ListToolsParams]},
	"tools/call":               {decode: decodeAs[mcp.CallToolParamsRaw]},
	"resources/list":           {paramsOptional: true, decode: decodeAs[mcp.ListResourcesParams]},
	"resources/templates/list": {paramsOptional: true, decode: decodeAs[mcp.ListResourceTemplatesParams]},
	"resources/read":           {decode: decodeAs[mcp.ReadResourceParams]},
	//lint:ignore SA1019 logging/setLevel is deprecated, not gone: a 2025-11-25 client may send it
	"logging/setLevel":          {decode: decodeAs[mcp.SetLoggingLevelParams]},
	"resources/subscribe":       {decode: decodeAs[mcp.SubscribeParams]},
	"subscriptions/listen":      {decode: decodeAs[mcp.SubscriptionsListenParams]},
	"resources/unsubscribe":     {decode: decodeAs[mcp.UnsubscribeParams]},
	"notifications/cancelled":   {notification: true, paramsOptional: true, decode: decodeAs[mcp.CancelledParams]},
	"notifications/initialized": {notification: true, paramsOptional: true, decode: decodeAs[mcp.InitializedParams]},
	//lint:ignore SA1019 roots are deprecated, not gone: a 2025-11-25 client may send this
	"notifications/roots/list_changed": {notification: true, paramsOptional: true, decode: decodeAs[mcp.RootsListChangedParams]},
	"notifications/progress":           {notification: true, decode: decodeAs[mcp.ProgressNotificationParams]},
}

// beforeInitialize lists the calls go-sdk v1.8.0 serves before initialize in
// the handshake protocol (ServerSession.handle); it refuses any other call
// with a plain error, and logs the method name uncut.
var beforeInitialize = map[string]bool{
	"initialize":            true,
	"ping":                  true,
	"logging/setLevel":      true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
	"server/discover":       true, // answered by go-sdk as not found outside the sessionless protocol
}

// AllowedBeforeInitialize reports whether go-sdk serves a call of method in a
// handshake session before its initialize. Notifications are always let
// through: go-sdk answers none.
func AllowedBeforeInitialize(method string) bool { return beforeInitialize[method] }

// BeforeInitialize is the problem a transport answers a call with that is not
// allowed before initialize in a handshake session, instead of letting go-sdk
// refuse it with a plain error (code 0) and log its method uncut.
func BeforeInitialize(m *Message) *Problem {
	return &Problem{ID: m.ID, Code: jsonrpc.CodeInvalidRequest,
		Message: "Invalid Request: " + echo.Quote(m.Method) + " was sent before initialize; send initialize first"}
}

// InitializeAgainReason is why a transport refuses an initialize in a
// handshake session that has one already (without the "Invalid Request: "
// prefix). go-sdk v1.8.0 refuses it with a plain error (code 0, which reads
// as the server's bug) once any initialize has reached it: the first sets the
// session's state, whatever it carried, and the door lets no initialize
// through without params. The transport knows the session's state; the door
// does not.
const InitializeAgainReason = `"initialize" was sent again; this session is initialized already: to initialize again, start a new session`

// InitializeAgain is the problem a transport answers a second initialize of a
// handshake session with.
func InitializeAgain(m *Message) *Problem {
	return &Problem{ID: m.ID, Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: " + InitializeAgainReason}
}

// SessionlessInSessionReason is why a transport refuses a call that names a
// sessionless protocol version in a session begun by initialize (without the
// "Invalid Request: " prefix): served, it would get an answer of another
// protocol's shape, and over HTTP it would be served beside a session it
// names but does not belong to. version is the client's, and is quoted cut.
func SessionlessInSessionReason(version string) string {
	return "this session began with initialize; a call carrying protocol version " + echo.Quote(version) +
		" in _meta belongs to a sessionless session: start a new one"
}

// checkMethod refuses what go-sdk would refuse of a request or notification
// before any handler or middleware runs: a method it does not handle, a
// notification sent with an id or a request without one, missing params, and
// params that do not decode into the method's params type.
func checkMethod(m *Message, id []byte) *Problem {
	refuse := func(code int64, msg string) *Problem {
		return &Problem{ID: id, Code: code, Message: msg, Notification: m.ID == nil}
	}
	info, ok := methods[m.Method]
	switch {
	case !ok:
		return refuse(jsonrpc.CodeMethodNotFound, "Method not found: "+echo.Quote(m.Method))
	case info.notification && m.ID != nil:
		return refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: "+echo.Quote(m.Method)+" is a notification; send it without an id")
	case !info.notification && m.ID == nil:
		return refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: "+echo.Quote(m.Method)+" is a request; send it with an id")
	}
	missing := len(m.Params) == 0
	if !missing {
		isNil, err := info.decode(m.Params)
		if err != nil {
			return refuse(jsonrpc.CodeInvalidParams,
				"Invalid params: the params of "+echo.Quote(m.Method)+" do not have the shape MCP defines for them")
		}
		missing = isNil
	}
	if missing && !info.paramsOptional {
		return refuse(jsonrpc.CodeInvalidParams, "Invalid params: "+echo.Quote(m.Method)+" requires params")
	}
	// A sessionless call (2026-07-28) keeps no level: there logging/setLevel
	// is a removed method, which go-sdk answers 404 and -32601 (SEP-2575).
	if m.Method == "logging/setLevel" && !missing && m.ProtocolVersion < sessionlessFrom {
		if p := loggingLevelProblem(m.Params); p != "" {
			return refuse(jsonrpc.CodeInvalidParams, p)
		}
	}
	if m.ID != nil && m.ProtocolVersion >= sessionlessFrom && slices.Contains(mcp.SupportedProtocolVersions(), m.ProtocolVersion) &&
		!sessionlessMeta(m.Params) {
		return refuse(jsonrpc.CodeInvalidParams, "Invalid params: a call of protocol "+echo.Quote(m.ProtocolVersion)+
			` must carry "`+mcp.MetaKeyClientCapabilities+`" (an object of client capabilities) in params._meta, and "`+
			mcp.MetaKeyClientInfo+`", if it carries one, must be an object with a string "name" and "version"`)
	}
	return nil
}

// loggingLevels are the levels MCP defines for logging/setLevel, least
// severe first (RFC 5424's, lower case).
var loggingLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// loggingLevelProblem is why params of logging/setLevel name no MCP logging
// level, or "" when they name one. go-sdk v1.8.0 stores whatever string comes
// (a missing level, "", "DEBUG", "LOUD") and answers success, while its
// logger then reads every unknown level as debug: the client's mistake turned
// into the most verbose level, silently. Both transports refuse it here.
func loggingLevelProblem(params []byte) string {
	var p struct {
		Level *string `json:"level"`
	}
	if _, err := segjson.Parse(params, &p, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return "" // the shape check above answers a level that is no string
	}
	fix := "; use one of " + strings.Join(loggingLevels, ", ")
	switch {
	case p.Level == nil:
		return `Invalid params: "logging/setLevel" requires params.level` + fix
	case !slices.Contains(loggingLevels, *p.Level):
		return "Invalid params: " + echo.Quote(*p.Level) + " is not an MCP logging level" + fix
	}
	return ""
}

// sessionlessFrom is the first protocol version go-sdk v1.8.0 serves without
// a session when a call names it in params._meta; it compares versions as
// strings.
const sessionlessFrom = "2026-07-28"

// sessionlessMeta reports whether go-sdk v1.8.0 accepts the _meta of a call
// it serves sessionless (validateRequestMeta in mcp/shared.go): client
// capabilities present, not null, and of their type; client info, if
// present, not null and of its type. go-sdk refuses any other with -32602
// and a message the server does not forward, so the door says what to send.
func sessionlessMeta(params []byte) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if _, err := segjson.Parse(params, &p, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return false
	}
	decodes := func(key string, into func([]byte) (bool, error)) (present, ok bool) {
		raw, present := p.Meta[key]
		if !present {
			return false, false
		}
		isNil, err := into(raw)
		return true, err == nil && !isNil
	}
	if _, ok := decodes(mcp.MetaKeyClientCapabilities, decodeAs[clientCapabilities]); !ok {
		return false
	}
	if present, ok := decodes(mcp.MetaKeyClientInfo, decodeAs[mcp.Implementation]); present && !ok {
		return false
	}
	return true
}
