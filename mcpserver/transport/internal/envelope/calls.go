package envelope

import (
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/echo"
)

// The door keeps no copy of go-sdk's method table and decodes no params into
// go-sdk's types: which methods exist, which need params and what shape
// those take is go-sdk's to say, and what it says is rendered on the way out
// (SDKError, SDKRefusal) from its code and the call's method. What is left
// here are the rules of MCP itself and of a session, which go-sdk v1.8.0
// does not keep: notifications are named notifications/..., a session
// begins with initialize, logging/setLevel names an MCP level, and a
// sessionless call carries its client's capabilities.

// beforeInitialize lists the calls a handshake session serves before its
// initialize: initialize itself and ping (MCP's lifecycle), and the three
// go-sdk also serves then (logging/setLevel, resources/subscribe and
// resources/unsubscribe) and server/discover, which it answers as not found
// outside the sessionless protocol. go-sdk answers any other call then with a
// plain error (code 0) and logs its method.
var beforeInitialize = map[string]bool{
	"initialize":            true,
	"ping":                  true,
	"logging/setLevel":      true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
	"server/discover":       true,
}

// AllowedBeforeInitialize reports whether a handshake session serves a call of
// method before its initialize. Notifications are always let through: JSON-RPC
// answers none.
func AllowedBeforeInitialize(method string) bool { return beforeInitialize[method] }

// checkCall applies the door's MCP rules to a request or notification.
func checkCall(m *Message, id []byte) *Problem {
	refuse := func(code int64, msg string) *Problem {
		return &Problem{ID: id, Code: code, Message: msg, Notification: m.ID == nil}
	}
	if m.ID != nil && strings.HasPrefix(m.Method, "notifications/") {
		// MCP names every notification so; go-sdk's HTTP transport would
		// refuse this one with a plain-text 400 whose reason the answer
		// could not tell.
		return refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: "+echo.Quote(m.Method)+" is a notification; send it without an id")
	}
	// A sessionless call (2026-07-28) keeps no level: there logging/setLevel
	// is a removed method, which go-sdk answers 404 and -32601 (SEP-2575).
	if m.Method == "logging/setLevel" && len(m.Params) > 0 && m.ProtocolVersion < sessionlessFrom {
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
// into the most verbose level, silently. Both transports refuse it here. A
// level that is not a string is go-sdk's to refuse.
func loggingLevelProblem(params []byte) string {
	var p struct {
		Level jsontext.Value `json:"level"`
	}
	if jsonv2.Unmarshal(params, &p, jsonv2.RejectUnknownMembers(false)) != nil {
		return "" // null params: go-sdk's to refuse
	}
	fix := "; use one of " + strings.Join(loggingLevels, ", ")
	if p.Level == nil {
		return `Invalid params: "logging/setLevel" requires params.level` + fix
	}
	var level string
	if p.Level.Kind() != '"' || jsonv2.Unmarshal(p.Level, &level) != nil {
		return ""
	}
	if !slices.Contains(loggingLevels, level) {
		return "Invalid params: " + echo.Quote(level) + " is not an MCP logging level" + fix
	}
	return ""
}

// sessionlessFrom is the first protocol version go-sdk v1.8.0 serves without
// a session when a call names it in params._meta; it compares versions as
// strings.
const sessionlessFrom = "2026-07-28"

// sessionlessMeta reports whether a sessionless call's _meta carries what
// SEP-2575 asks of it: client capabilities, an object, and client info, if
// present, an object with a string name and version. go-sdk refuses any
// other with -32602 and a message that does not say what to send.
func sessionlessMeta(params []byte) bool {
	var p struct {
		Meta map[string]jsontext.Value `json:"_meta"`
	}
	if jsonv2.Unmarshal(params, &p, jsonv2.RejectUnknownMembers(false)) != nil {
		return false
	}
	if caps, ok := p.Meta[mcp.MetaKeyClientCapabilities]; !ok || caps.Kind() != '{' {
		return false
	}
	info, ok := p.Meta[mcp.MetaKeyClientInfo]
	if !ok {
		return true
	}
	var impl struct {
		Name    jsontext.Value `json:"name"`
		Version jsontext.Value `json:"version"`
	}
	if info.Kind() != '{' || jsonv2.Unmarshal(info, &impl, jsonv2.RejectUnknownMembers(false)) != nil {
		return false
	}
	return impl.Name.Kind() == '"' && impl.Version.Kind() == '"'
}
