package stdio

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/echo"
)

// sessionlessFrom is the first protocol version that go-sdk v1.8.0 serves
// without a session when a call names it in _meta (SEP-2575). The SDK compares
// versions as strings, and so does the transport.
const sessionlessFrom = "2026-07-28"

// maxVersionBytes bounds a protocol version named in _meta: versions are dates,
// and the SDK echoes an unsupported one whole in its error.
const maxVersionBytes = 32

// beforeInitialize lists the calls go-sdk v1.8.0 serves before initialize in
// the handshake protocol (ServerSession.handle); it refuses any other.
var beforeInitialize = map[string]bool{
	"initialize":            true,
	"ping":                  true,
	"logging/setLevel":      true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
	"server/discover":       true, // refused by the SDK with its own error
}

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
func (p sessionProtocol) admit(req *jsonrpc.Request) (sessionProtocol, string) {
	version, problem := sessionlessVersion(req.Params)
	if problem != "" {
		return p, problem
	}
	switch {
	case len(version) > maxVersionBytes:
		return p, "protocol version " + echo.Quote(version) + " in _meta is not one this server speaks"
	case version != "" && !slices.Contains(mcp.SupportedProtocolVersions(), version):
		// The SDK refuses it with the versions it supports, whatever the
		// session, and the client may retry with one of them: it decides nothing.
		return p, ""
	case version != "" && p.kind == "":
		return sessionProtocol{kind: "sessionless", version: version}, ""
	case version != "" && p.kind == "handshake":
		return p, "this session began with initialize; a call carrying protocol version " + echo.Quote(version) +
			" in _meta belongs to a sessionless session: start a new one"
	case version != "" && version != p.version:
		return p, "this session speaks protocol " + p.version + "; a call carrying protocol version " + echo.Quote(version) +
			" in _meta belongs to another session"
	case version != "":
		return p, ""
	case req.Method == "initialize" && p.kind == "":
		return sessionProtocol{kind: "handshake"}, ""
	case p.kind == "" && !beforeInitialize[req.Method]:
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
// would serve it in the handshake protocol: the SDK decodes params into a struct
// with an exact-case "_meta" map and reads a string version of at least
// sessionlessFrom, ignoring anything it cannot decode. A params with two "_meta"
// members, or a _meta with two versions, is a problem: which one counts would
// depend on the decoder.
func sessionlessVersion(params json.RawMessage) (version, problem string) {
	params = trimSpace(params)
	if len(params) == 0 || params[0] != '{' {
		return "", ""
	}
	meta, dup := member(params, "_meta")
	if dup {
		return "", `params has more than one "_meta" member`
	}
	if meta = trimSpace(meta); len(meta) == 0 || meta[0] != '{' {
		return "", ""
	}
	raw, dup := member(meta, mcp.MetaKeyProtocolVersion)
	if dup {
		return "", "_meta names " + mcp.MetaKeyProtocolVersion + " more than once"
	}
	if json.Unmarshal(raw, &version) != nil || version < sessionlessFrom {
		return "", ""
	}
	return version, ""
}

// member returns the value of the member of a JSON object named name (compared
// after unescaping, as decoders do), and whether it appears more than once.
func member(object []byte, name string) (value json.RawMessage, duplicate bool) {
	if !bytes.Contains(object, []byte(name)) && bytes.IndexByte(object, '\\') < 0 {
		return nil, false // without an escape, the name can only be spelled plainly
	}
	dec := json.NewDecoder(bytes.NewReader(object))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	found := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if key == name {
			if found {
				return nil, true
			}
			value, found = v, true
		}
	}
	return value, false
}

func trimSpace(b []byte) []byte {
	return bytes.TrimSpace(b)
}
