// Package envelope is the one door every JSON-RPC message from an MCP client
// passes before go-sdk sees it, whatever the transport: the stdio transport
// (mcpserver/transport/stdio), the HTTP handler (mcpserver/transport.NewHTTPHandler), and any
// transport an embedding program builds from [Parse] and [Message.JSONRPC].
//
// # The rule
//
// [Parse] reads one message with encoding/json/jsontext, in one pass, and
// refuses it unless:
//
//   - it is exactly one JSON value: nothing but white space after it;
//   - every string, member names included, is valid UTF-8 without lone
//     surrogates;
//   - it holds at most MaxValues values and nests at most MaxDepth deep,
//     counting every level: _meta, capabilities and tool arguments included;
//   - no object, at any level, has two member names that are equal once
//     unescaped and case-folded: "\u0069d" is "id", and "METHOD", "Method" and
//     "method" are one name. A decoder may match names without regard to case
//     and let the last duplicate win (encoding/json does), or match them
//     exactly; with no two such names anywhere, and the members the door
//     reads (JSON-RPC's, and name, uri, requestId and _meta in params)
//     spelled exactly, every reader of the message sees the same members,
//     whatever its rules;
//   - it is a JSON-RPC 2.0 request, notification or response, with an id that
//     is a string or an integer go-sdk keeps exactly, params that are an
//     object, a method name of at most [MaxMethodBytes], and a protocol
//     version in params._meta of at most [MaxProtocolVersionBytes] and not
//     before the sessionless protocol (2026-07-28), the only one that names
//     its version per message;
//   - a call does not carry a notification's name (MCP names every
//     notification notifications/...), logging/setLevel names an MCP level,
//     and a sessionless call carries its client's capabilities (see
//     calls.go). Which methods exist, which need params and what shape they
//     take is go-sdk's to say: the door keeps no copy of its method table and
//     decodes no params into its types. (Before initialize, the transport
//     refuses: it knows the session; see [AllowedBeforeInitialize].)
//
// What it accepts it describes in one [Message]: the method, the id as its
// raw token, the params as raw bytes, the tool or prompt name, the resource
// URI, the sessionless protocol version in params._meta and the request id a
// cancellation names. The audit log, session admission, the protocol pin and
// dispatch all read that view; nothing after the door reads the bytes again
// with a parser whose rules differ. go-sdk decodes params into its own types,
// matching names exactly, and with no duplicate or case-variant names
// anywhere, it and any other decoder see the same members.
//
// No error go-sdk writes is read for its text: [SDKError] renders each from
// its code and the pending call's method, and [SDKRefusal] what its HTTP
// transport refuses in plain text, so no answer names a Go type or quotes the
// params back.
//
// What it refuses it answers with a [Problem]: a JSON-RPC code, a message of
// fixed text in which every client value is cut by echo.Quote, and the
// request's id when it is known exactly, so the client can match the error.
// Both transports write the same error for the same input.
package envelope

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/jsonname"
	"github.com/automium/automium/internal/nesting"
)

// DefaultMaxValues is how many JSON values one message may hold when
// Limits.MaxValues is zero, counting every object, array, string, number,
// true, false and null at any depth (member names are not values). The largest
// valid Automium call holds a few thousand; a 16 MiB message of empty objects
// holds millions, which go-sdk would take seconds and a gigabyte to decode.
const DefaultMaxValues = 100_000

// DefaultMaxDepth is how deeply one message may nest objects and arrays when
// Limits.MaxDepth is zero: the module's one nesting bound (internal/nesting),
// which the argument walker applies to the arguments too.
const DefaultMaxDepth = nesting.MaxDepth

// MaxMethodBytes is the longest method name let through. Every MCP method is a
// few dozen bytes; go-sdk quotes a method it does not know in its error and in
// its log, so a longer one is answered at the door as not found.
const MaxMethodBytes = 128

// MaxProtocolVersionBytes bounds a protocol version named in params._meta.
// Versions are dates; go-sdk routes a call on the version and quotes one it
// does not speak in its errors, over HTTP beside the Mcp-Protocol-Version
// header, so a longer one is refused here, for every transport alike.
const MaxProtocolVersionBytes = 32

// MaxSessionParamsBytes bounds the params of the methods whose params go-sdk
// keeps for the whole life of a session: initialize (its clientInfo and
// capabilities) and logging/setLevel. The body budgets of both transports count
// a message's bytes only until it is answered; what a session keeps afterwards
// is bounded here instead, for every transport alike: at most this much per
// session, and so at most this times the session cap in all. Real clients send
// well under 2 KiB; a 15 MiB clientInfo.name once left about 29 MiB behind in
// every idle session.
const MaxSessionParamsBytes = 64 << 10

// MaxSessionParamsValues bounds the JSON values of the params a session keeps
// (see MaxSessionParamsBytes), counted as MaxValues counts them. go-sdk keeps
// them decoded, as maps and slices of interfaces, and a small value costs it
// far more than its bytes: 64 KiB of capabilities written as
// {"0":[[[[[[[[0]]]]]]]],...} kept about 7 MiB in each session, and 64 such
// HTTP sessions peaked at 588 MiB, over the 560 MiB bound. Real clients send
// a few dozen values.
const MaxSessionParamsValues = 1024

// MaxNotificationParamsBytes bounds the params of a notification from the
// client. go-sdk queues what it reads, without bound, while it handles earlier
// messages one at a time, and a notification takes no place in any budget: no
// answer ever says when go-sdk is done with it. 150 notifications of 1 MiB
// peaked at 186 MiB over stdio on their own, and seeded adversarial sessions
// that sent them behind unread answers drove the process to 555 to 881 MiB,
// over SECURITY.md's 320 MiB (December 2). MCP's client notifications
// (initialized, cancelled, progress, roots/list_changed) carry a few hundred
// bytes, so the bound costs no client anything.
const MaxNotificationParamsBytes = 64 << 10

// keptBySession lists the methods whose params go-sdk keeps for a session's
// life, each with what its refusal tells the client to shorten: a setLevel has
// no clientInfo to send shorter.
var keptBySession = map[string]string{
	"initialize":       "send a shorter clientInfo and fewer capabilities",
	"logging/setLevel": "send only a level, one of debug, info, notice, warning, error, critical, alert, emergency",
}

// MaxErrorMessageBytes is the longest error message a transport writes.
const MaxErrorMessageBytes = 4 << 10

// maxExactID is the largest integer a float64 holds exactly. go-sdk decodes
// numeric ids through float64, so beyond it the answer would carry another id.
const maxExactID = 1<<53 - 1

// Limits bounds the structure of one message. Zero fields take the defaults.
type Limits struct {
	MaxValues, MaxDepth int
}

func (l Limits) withDefaults() Limits {
	if l.MaxValues <= 0 {
		l.MaxValues = DefaultMaxValues
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// Message is the one parsed view of a message that passed the door. Its raw
// fields are slices of the bytes given to Parse, which must not be changed
// while the Message is in use.
type Message struct {
	// Method is the method of a request or notification; "" for a response.
	Method string
	// ID is the id member's raw token ("7", "\"a\""), nil when there is none.
	ID jsontext.Value
	// Params is the raw params value, nil when there is none.
	Params jsontext.Value
	// Response is true for a response (a result or an error, no method).
	Response bool
	// Name is params.name of tools/call, prompts/get and completion-less calls
	// that carry one, and params.uri of the resources/* calls: what the audit
	// log names. "" when absent or not a string.
	Name string
	// ProtocolVersion is params._meta["io.modelcontextprotocol/protocolVersion"]
	// when it is a string, which go-sdk reads to serve a call sessionless.
	ProtocolVersion string
	// CancelledID is params.requestId of a notifications/cancelled, raw.
	CancelledID jsontext.Value

	raw []byte
}

// IsCall reports whether the message is a request that expects an answer.
func (m *Message) IsCall() bool { return !m.Response && m.ID != nil }

// Problem is why a message was refused, as the JSON-RPC error to answer it with.
type Problem struct {
	// ID is the raw id to answer with, nil for null.
	ID      jsontext.Value
	Code    int64
	Message string
	// Notification is true when the message was a request or notification
	// without an id, which JSON-RPC never answers: a transport writes no
	// error line for it (stdio writes nothing; HTTP a 400 without a body).
	// The door sets it only when it refuses what go-sdk would refuse of a
	// message it read whole: its method or its params.
	Notification bool
}

func (p *Problem) Error() string { return p.Message }

// Response is the error response line for the problem, without a line ending.
func (p *Problem) Response() []byte { return ErrorResponse(p.ID, p.Code, p.Message) }

// ErrorResponse encodes a JSON-RPC error response by hand, because
// jsonrpc.EncodeMessage omits an id it considers invalid, and JSON-RPC requires
// "id": null when the request's id is unknown. The message is cut to
// MaxErrorMessageBytes.
func ErrorResponse(id jsontext.Value, code int64, message string) []byte {
	if id == nil {
		id = jsontext.Value("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", json.RawMessage(id), jsonrpc.Error{Code: code, Message: CapMessage(message)}})
	if err != nil { // only if id is not valid JSON, which Parse rules out
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	return data
}

// CapMessage cuts a message to MaxErrorMessageBytes on a rune boundary,
// noting its length.
func CapMessage(msg string) string {
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

// ResponseShapeMessage is the error a response gets that go-sdk cannot
// decode. Only its "error" member can be at fault once the door has checked
// the rest: JSON-RPC 2.0 defines it as an object with an integer code, a
// string message and optional data.
const ResponseShapeMessage = `Invalid Request: a response's "error" must be an object with an integer "code", a string "message" and optional "data"`

// BatchMessage is the error a JSON array (a JSON-RPC batch) gets: MCP removed
// batches in protocol 2025-06-18, and no element of one is executed.
const BatchMessage = "Invalid Request: JSON-RPC batches are not supported; send one message at a time"

// JSONRPC returns the go-sdk message the view describes, built without
// decoding the bytes again. A response is decoded by go-sdk: it carries a
// result or error go-sdk reads itself, and only answers a server request.
func (m *Message) JSONRPC() (jsonrpc.Message, error) {
	if m.Response {
		return jsonrpc.DecodeMessage(m.raw)
	}
	req := &jsonrpc.Request{Method: m.Method, Params: json.RawMessage(m.Params)}
	if m.ID != nil {
		id, err := idOf(m.ID)
		if err != nil {
			return nil, err
		}
		req.ID = id
	}
	return req, nil
}

// idOf is the go-sdk id of a raw id token Parse accepted.
func idOf(raw jsontext.Value) (jsonrpc.ID, error) {
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, err
		}
		return jsonrpc.MakeID(s)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc.ID{}, err
	}
	return jsonrpc.MakeID(float64(n))
}

// parser is the state of one Parse.
type parser struct {
	data   []byte
	lim    Limits
	values int
	// paramValues counts the values inside params, for MaxSessionParamsValues.
	paramValues int

	// Per depth d (the top-level object is depth 1): folded[d] holds the
	// member names of the object open there, and set[d] their case-folded
	// forms once there are many; key[d] is the name of the member being
	// read, start[d] where the value opened.
	folded [][]string
	set    []map[string]struct{}
	key    []string
	start  []int

	version                        string
	hasVersion, hasMethod, hasID   bool
	hasParams, hasResult, hasError bool
	methodIsString                 bool
	method                         string
	id, params, cancelled          jsontext.Value
	idRepeated                     bool
	idEnd                          int
	name, uri, protocol            string

	problem *Problem // the first structure problem found
}

// errStop ends the walk at the first structure problem: what follows is only
// skipped, to check that it is JSON and find a late id, never counted or
// decoded.
var errStop = errors.New("envelope: structure bound")

// Parse passes one message through the door. It returns the message's view,
// or the problem to answer it with.
func Parse(data []byte, lim Limits) (*Message, *Problem) {
	p := &parser{data: data, lim: lim.withDefaults()}
	// Duplicate names are allowed by the tokenizer because the walk refuses
	// them itself, case-folded, which is stricter; UTF-8 stays strict.
	dec := jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true))
	err := p.walk(dec)
	if errors.Is(err, errStop) {
		err = p.finish(dec)
		if err == nil {
			return nil, p.withID(p.problem)
		}
	} else if err == nil {
		if _, end := dec.ReadToken(); end != io.EOF {
			err = errTrailing
		}
	}
	switch {
	case errors.Is(err, errTrailing):
		return nil, &Problem{Code: jsonrpc.CodeParseError, Message: "Parse error: bytes after the message's JSON value; send one JSON value per message"}
	case err != nil:
		return nil, parseError(err)
	}
	switch bytes.TrimLeft(data, " \t\r\n")[0] {
	case '[':
		return nil, &Problem{Code: jsonrpc.CodeInvalidRequest, Message: BatchMessage}
	case '{':
	default:
		return nil, &Problem{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: a message must be a JSON object"}
	}
	if p.problem != nil {
		return nil, p.withID(p.problem)
	}
	return p.message()
}

// finish reads the rest of a message after a structure problem, without
// counting or checking names, so that a message that is not JSON at all is
// still a parse error (id null), as JSON-RPC asks, and the error of one that
// is can carry a top-level id that follows the problem. Nested values are
// skipped whole. A second top-level id, however spelled, makes the id unclear.
func (p *parser) finish(dec *jsontext.Decoder) error {
	for {
		depth := dec.StackDepth()
		if depth == 0 {
			if _, err := dec.ReadToken(); err != io.EOF {
				return errTrailing
			}
			return nil
		}
		kind, n := dec.StackIndex(depth)
		switch next := dec.PeekKind(); {
		case next == 0:
			_, err := dec.ReadToken() // the tokenizer's error
			return err
		case next == '}' || next == ']':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
		case kind == '{' && n%2 == 0:
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if name := tok.String(); depth == 1 && strings.EqualFold(name, "id") {
				if p.hasID || name != "id" {
					p.idRepeated = true
				}
				raw, err := dec.ReadValue()
				if err != nil {
					return err
				}
				if !p.hasID {
					p.hasID, p.id = true, bytes.Clone(raw)
				}
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
	}
}

var errTrailing = errors.New("envelope: bytes after the value")

// withID gives a problem the request's id when it is exactly known.
func (p *parser) withID(pr *Problem) *Problem {
	if !p.idRepeated {
		pr.ID = echoableID(p.id)
	}
	return pr
}

// parseError turns the tokenizer's error into a -32700 whose text holds no
// client value: the tokenizer's own words and the byte offset.
func parseError(err error) *Problem {
	detail := "the message is not valid JSON"
	var serr *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		detail = "the message ends before its JSON value does"
	case errors.As(err, &serr) && serr.Err != nil:
		detail = serr.Err.Error() + " at byte " + strconv.FormatInt(serr.ByteOffset, 10)
	}
	return &Problem{Code: jsonrpc.CodeParseError, Message: CapMessage("Parse error: " + detail)}
}

// walk reads the one top-level value token by token, counting values and
// depth, refusing repeated names, and noting what the view needs.
func (p *parser) walk(dec *jsontext.Decoder) error {
	for {
		depth := dec.StackDepth()
		kind, n := dec.StackIndex(depth)
		if depth == 0 && n > 0 {
			return nil
		}
		isName := kind == '{' && n%2 == 0
		before := int(dec.InputOffset())
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		end := int(dec.InputOffset())
		switch k := tok.Kind(); {
		case k == '}' || k == ']':
			p.closed(depth, end)
		case isName:
			if !p.memberName(depth, tok.String()) {
				return errStop
			}
		default:
			p.values++
			if depth >= 2 && p.key[1] == "params" {
				p.paramValues++
			}
			if p.values > p.lim.MaxValues {
				p.problem = &Problem{Code: jsonrpc.CodeInvalidRequest,
					Message: "Invalid Request: the message holds more than " + strconv.Itoa(p.lim.MaxValues) + " JSON values"}
				return errStop
			}
			if k == '{' || k == '[' {
				if depth+1 > p.lim.MaxDepth {
					p.problem = &Problem{Code: jsonrpc.CodeInvalidRequest,
						Message: "Invalid Request: the message nests objects and arrays more than " + strconv.Itoa(p.lim.MaxDepth) + " levels deep"}
					return errStop
				}
				p.opened(depth, depth+1, end-1)
				continue
			}
			p.scalar(depth, tok, jsontext.Value(p.data[end-len(trimValue(p.data[before:end])):end]))
			if depth == 1 && p.key[1] == "id" {
				p.idEnd = end
			}
		}
	}
}

// trimValue drops what may precede a token: white space, ':' and ','.
func trimValue(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n:,") }

func (p *parser) grow(d int) {
	for len(p.key) <= d {
		p.folded = append(p.folded, nil)
		p.set = append(p.set, nil)
		p.key = append(p.key, "")
		p.start = append(p.start, 0)
	}
}

// opened notes an object or array that opened at offset at, as a value of
// the container at depth parent.
func (p *parser) opened(parent, d, at int) {
	p.grow(d)
	p.folded[d] = p.folded[d][:0]
	p.set[d] = nil
	p.key[d] = ""
	p.start[d] = at
	if parent == 1 {
		switch top := p.key[1]; {
		case top == "id":
			// An object or array id: never exact, never echoed.
			p.hasID, p.id = true, jsontext.Value(p.data[at:at+1])
		case top == "method":
			p.hasMethod, p.methodIsString = true, false
		case top == "result":
			p.hasResult = true
		case top == "error":
			p.hasError = true
		}
	}
}

// closed finishes the object or array open at depth d, which ended at end.
func (p *parser) closed(d, end int) {
	if d == 2 && p.key[1] == "params" {
		p.hasParams, p.params = true, jsontext.Value(p.data[p.start[2]:end])
	}
}

// memberName checks a member name of the object open at depth d against the
// others in it, unescaped and case-folded. It reports false at a repeat.
func (p *parser) memberName(d int, name string) bool {
	p.grow(d)
	p.key[d] = name
	repeated := false
	if p.set[d] != nil {
		f := jsonname.Fold(name)
		_, repeated = p.set[d][f]
		p.set[d][f] = struct{}{}
	} else {
		// Few names: compared in place, without folding a copy of each.
		for _, seen := range p.folded[d] {
			if strings.EqualFold(seen, name) {
				repeated = true
				break
			}
		}
		p.folded[d] = append(p.folded[d], name)
		if len(p.folded[d]) > 16 {
			p.set[d] = make(map[string]struct{}, 2*len(p.folded[d]))
			for _, seen := range p.folded[d] {
				p.set[d][jsonname.Fold(seen)] = struct{}{}
			}
		}
	}
	if !repeated {
		if want := p.misspelled(d, name); want != "" {
			if d == 1 && want == "id" {
				p.idRepeated = true // which id go-sdk would read is unclear
			}
			p.problem = &Problem{Code: jsonrpc.CodeInvalidRequest,
				Message: "Invalid Request: the member name " + echo.Quote(name) + " must be spelled " + strconv.Quote(want) + ", exactly"}
			return false
		}
		return true
	}
	if d == 1 && strings.EqualFold(name, "id") {
		p.idRepeated = true
	}
	p.problem = &Problem{Code: jsonrpc.CodeInvalidRequest,
		Message: "Invalid Request: the member name " + echo.Quote(name) + " appears twice in one object (names are compared unescaped and ignoring case, so that every decoder reads the same members); send each member once"}
	return false
}

// The member names the door reads, by where they are: JSON-RPC's at the top
// level and, in params, the ones the view holds. A decoder may match them
// exactly (go-sdk's HTTP transport does) or ignoring case (encoding/json
// does), so the door accepts them only as spelled here: then every reader
// finds the same members.
var (
	topMembers    = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	paramsMembers = []string{"name", "uri", "requestId", "_meta"}
)

// misspelled returns the spelling a member name at depth d must have when it
// is a case variant of a name the door reads, and "" otherwise.
func (p *parser) misspelled(d int, name string) string {
	var known []string
	switch {
	case d == 1:
		known = topMembers
	case d == 2 && p.key[1] == "params":
		known = paramsMembers
	}
	for _, k := range known {
		if name != k && strings.EqualFold(name, k) {
			return k
		}
	}
	return ""
}

// scalar notes a string, number or literal read at depth d (raw is its token).
func (p *parser) scalar(d int, tok jsontext.Token, raw jsontext.Value) {
	isString := tok.Kind() == '"'
	switch {
	case d == 1:
		switch top := p.key[1]; {
		case top == "jsonrpc":
			p.hasVersion = true
			if isString {
				p.version = tok.String()
			}
		case top == "method":
			p.hasMethod, p.methodIsString = true, isString
			if isString {
				p.method = tok.String()
			}
		case top == "id":
			p.hasID, p.id = true, raw // null included: MCP ids are never null
		case top == "params":
			p.hasParams, p.params = true, raw
		case top == "result":
			p.hasResult = true
		case top == "error":
			p.hasError = true
		}
	case d == 2 && p.key[1] == "params":
		switch k := p.key[2]; {
		case k == "name" && isString:
			p.name = tok.String()
		case k == "uri" && isString:
			p.uri = tok.String()
		case k == "requestId":
			p.cancelled = raw
		}
	case d == 3 && p.key[1] == "params" && p.key[2] == "_meta":
		// go-sdk reads _meta into a map: its keys match exactly.
		if p.key[3] == mcp.MetaKeyProtocolVersion && isString {
			p.protocol = tok.String()
		}
	}
}

// message checks the JSON-RPC shape and builds the view.
func (p *parser) message() (*Message, *Problem) {
	id := echoableID(p.id)
	refuse := func(code int64, msg string) (*Message, *Problem) {
		return nil, &Problem{ID: id, Code: code, Message: msg}
	}
	if !p.hasVersion || p.version != "2.0" {
		return refuse(jsonrpc.CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	m := &Message{raw: p.data}
	switch {
	case p.hasMethod:
		if !p.methodIsString {
			return refuse(jsonrpc.CodeInvalidRequest, `Invalid Request: "method" must be a string`)
		}
		if len(p.method) > MaxMethodBytes {
			return refuse(jsonrpc.CodeMethodNotFound, "Method not found: "+echo.Quote(p.method))
		}
		m.Method = p.method
	case p.hasResult || p.hasError:
		m.Response = true
	default:
		return refuse(jsonrpc.CodeInvalidRequest,
			"Invalid Request: a message needs a method (a request or notification), or a result or error (a response)")
	}
	if p.hasID {
		if !exactID(p.id) {
			return refuse(jsonrpc.CodeInvalidRequest,
				"Invalid Request: id must be a string or an integer between -9007199254740991 and 9007199254740991")
		}
		m.ID = p.id
	} else if m.Response {
		return refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: a response needs the id of the request it answers")
	}
	if m.Response {
		// go-sdk decodes a response itself, on every transport: what it
		// cannot decode (an error whose code is not an integer, whose
		// message is not a string, an error that is not an object) it
		// refuses over HTTP with a plain-text 400 of its own, and stdio
		// could only guess why. The door refuses it, the same on both.
		if _, err := jsonrpc.DecodeMessage(p.data); err != nil {
			return refuse(jsonrpc.CodeInvalidRequest, ResponseShapeMessage)
		}
	}
	if p.hasParams && !m.Response {
		if c := p.params[0]; c != '{' && !bytes.Equal(p.params, []byte("null")) {
			return refuse(jsonrpc.CodeInvalidParams, "Invalid params: the params of "+echo.Quote(p.method)+" must be a JSON object")
		}
		m.Params = p.params
	}
	// A sessionless call keeps nothing, and there initialize and
	// logging/setLevel are removed methods, answered 404 (SEP-2575).
	if fix := keptBySession[m.Method]; fix != "" && len(m.Params) > MaxSessionParamsBytes && p.protocol < sessionlessFrom {
		return refuse(jsonrpc.CodeInvalidParams, "Invalid params: the params of "+strconv.Quote(m.Method)+" hold "+
			strconv.Itoa(len(m.Params))+" bytes; a session keeps them for its whole life, so the limit is "+
			strconv.Itoa(MaxSessionParamsBytes)+": "+fix)
	}
	if fix := keptBySession[m.Method]; fix != "" && p.paramValues > MaxSessionParamsValues && p.protocol < sessionlessFrom {
		return refuse(jsonrpc.CodeInvalidParams, "Invalid params: the params of "+strconv.Quote(m.Method)+" hold "+
			strconv.Itoa(p.paramValues)+" JSON values; a session keeps them for its whole life, so the limit is "+
			strconv.Itoa(MaxSessionParamsValues)+": "+fix)
	}
	if !m.Response && !p.hasID && len(m.Params) > MaxNotificationParamsBytes {
		// JSON-RPC answers no notification: the problem is for the
		// transport's log and, over HTTP, the status.
		return nil, &Problem{Code: jsonrpc.CodeInvalidParams, Notification: true, Message: "Invalid params: the params of notification " +
			echo.Quote(m.Method) + " hold " + strconv.Itoa(len(m.Params)) + " bytes, over the limit of " + strconv.Itoa(MaxNotificationParamsBytes)}
	}
	switch m.Method {
	case "tools/call", "prompts/get":
		m.Name = p.name
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		m.Name = p.uri
	}
	notification := func(code int64, msg string) (*Message, *Problem) {
		if !m.Response && !p.hasID {
			// JSON-RPC answers no notification: the problem is for the
			// transport's log and, over HTTP, the status.
			return nil, &Problem{Code: code, Notification: true, Message: msg}
		}
		return refuse(code, msg)
	}
	if len(p.protocol) > MaxProtocolVersionBytes {
		return notification(jsonrpc.CodeInvalidRequest,
			"Invalid Request: protocol version "+echo.Quote(p.protocol)+" in _meta is not one this server speaks")
	}
	if p.protocol != "" && p.protocol < sessionlessFrom && !m.Response {
		// Only the sessionless protocol names its version per message. go-sdk
		// v1.8.0 disagrees with itself on an earlier one: its server serves
		// the message (stdio), its stateful HTTP handler refuses it with
		// -32022 while listing that very version as supported, and compares
		// it with the header (-32020), notifications included. The door
		// refuses it on both transports, so that both answer alike.
		msg := "Invalid Request: params._meta names protocol version " + echo.Quote(p.protocol) + " as " +
			strconv.Quote(mcp.MetaKeyProtocolVersion) + ", which only protocol " + sessionlessFrom +
			" and later carry per message; under an earlier one the version is named once, by initialize: drop it from _meta"
		return notification(jsonrpc.CodeInvalidRequest, msg)
	}
	m.ProtocolVersion = p.protocol
	if m.Method == "notifications/cancelled" {
		m.CancelledID = p.cancelled
	}
	if !m.Response {
		if pr := checkCall(m, id); pr != nil {
			return nil, pr
		}
	}
	return m, nil
}

// echoableID returns raw when it is a JSON string or number, the only ids a
// client can match an error to, and nil otherwise.
func echoableID(raw jsontext.Value) jsontext.Value {
	if len(raw) == 0 {
		return nil
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return raw
	}
	return nil
}

// exactID reports whether go-sdk answers with the very id the client sent: a
// string, or an integer written without fraction or exponent within
// ±maxExactID.
func exactID(raw jsontext.Value) bool {
	if len(raw) > 0 && raw[0] == '"' {
		return true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= -maxExactID && n <= maxExactID
}

// ID returns the wire form of an id go-sdk holds, encoded as go-sdk encodes
// it (encoding/json without HTML escaping). Transports answer with the token
// the client sent where they have it; this is for the ids they do not.
func ID(id jsonrpc.ID) jsontext.Value {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(id.Raw()); err != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// SniffID looks for the id of a message of which only prefix is known (the
// start of one too long to read), so that its error can still be matched to
// the request. It reads the prefix by the door's rules and gives up (nil, for
// id null) at a repeated name, or when the id is not whole within the prefix.
func SniffID(prefix []byte) jsontext.Value {
	p := &parser{data: prefix, lim: Limits{}.withDefaults()}
	dec := jsontext.NewDecoder(bytes.NewBuffer(prefix), jsontext.AllowDuplicateNames(true))
	err := p.walk(dec)
	if errors.Is(err, errStop) || p.idRepeated || !exactID(p.id) {
		return nil
	}
	if p.id[0] != '"' && p.idEnd >= len(prefix) {
		return nil // a number cut at the end may have had more digits
	}
	return echoableID(p.id)
}

// IDOf is the go-sdk id of a raw id token, as go-sdk decodes it, and whether
// it is one the door accepts (a string or an exact integer).
func IDOf(raw jsontext.Value) (jsonrpc.ID, bool) {
	if len(raw) == 0 || !exactID(raw) {
		return jsonrpc.ID{}, false
	}
	id, err := idOf(raw)
	return id, err == nil
}
