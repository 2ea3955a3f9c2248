package stdio

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/mcpserver/transport/envelope"
)

// sessionlessFrom is the first protocol version that go-sdk v1.8.0 serves
// without a session when a call names it in _meta (SEP-2575). The SDK compares
// versions as strings, and so does the transport.
const sessionlessFrom = "2026-07-28"

// sessionProtocol is the protocol a stdio session has settled on.
type sessionProtocol struct {
	// kind is "" until the first deciding call, then "handshake" or "sessionless".
	kind string
	// version is the sessionless version of a sessionless session.
	version string
}

// admit applies the one-protocol rule of the package documentation to a call. It
// returns the session's protocol once the call is served, or the reason it must
// be refused (without the "Invalid Request: " prefix).
func (p sessionProtocol) admit(req *envelope.Message) (sessionProtocol, string) {
	version := sessionlessVersion(req)
	switch {
	case version != "" && !slices.Contains(mcp.SupportedProtocolVersions(), version):
		// The SDK refuses it with the versions it supports, whatever the
		// session, and the client may retry with one of them: it decides nothing.
		return p, ""
	case version != "" && p.kind == "":
		return sessionProtocol{kind: "sessionless", version: version}, ""
	case version != "" && p.kind == "handshake":
		return p, envelope.SessionlessInSessionReason(version)
	case version != "" && version != p.version:
		return p, "this session speaks protocol " + p.version + "; a call carrying protocol version " + echo.Quote(version) +
			" in _meta belongs to another session"
	case version != "":
		return p, ""
	case req.Method == "initialize" && p.kind == "":
		return sessionProtocol{kind: "handshake"}, ""
	case req.Method == "initialize" && p.kind == "handshake":
		// Answered here rather than by the SDK, which would refuse it with
		// a plain error (code 0) and log it.
		return p, envelope.InitializeAgainReason
	case p.kind == "" && !envelope.AllowedBeforeInitialize(req.Method):
		// Answered here rather than by the SDK, which would also log the
		// method name on stderr, uncut.
		return p, echo.Quote(req.Method) + " was sent before initialize; send initialize first"
	case req.Method == "ping" || p.kind != "sessionless":
		return p, ""
	case req.Method == "initialize":
		return p, "this session speaks the sessionless protocol " + p.version + ", which has no initialize"
	default:
		return p, "this session speaks the sessionless protocol " + p.version +
			"; every call must carry " + mcp.MetaKeyProtocolVersion + " in params._meta"
	}
}

// sessionlessVersion returns the protocol version a call names in params._meta
// when go-sdk v1.8.0 would serve it as a sessionless call, and "" when the SDK
// would serve it in the handshake protocol: the SDK reads a string version of
// at least sessionlessFrom. The door read it, and refused a params with two
// "_meta" members or a _meta with two versions, however spelled.
func sessionlessVersion(view *envelope.Message) string {
	if view.ProtocolVersion < sessionlessFrom {
		return ""
	}
	return view.ProtocolVersion
}
