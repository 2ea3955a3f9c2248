package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/mcpserver/transport/internal/envelope"
	"github.com/automium/automium/mcpserver/transport/internal/session"
)

// Defaults of [HTTPOptions]. They match the stdio transport where the two have
// the same thing to bound: one HTTP request body may be as large as one stdin line.
const (
	// DefaultHTTPMaxBodyBytes bounds one request body: the 16 MiB of one stdio line.
	DefaultHTTPMaxBodyBytes = 16 << 20
	// DefaultHTTPMaxSessions bounds the sessions open at once. A coding agent opens
	// one; 64 leaves room for many clients on one machine while a flood of
	// initialize requests stays a few megabytes.
	DefaultHTTPMaxSessions = 64
	// DefaultHTTPMaxInFlight bounds the POST and DELETE requests served at once, as
	// the stdio transport bounds the requests it holds in flight.
	DefaultHTTPMaxInFlight = 64
	// DefaultHTTPSessionIdleTimeout closes a session that has received no request
	// for this long, so abandoned sessions give their place back.
	DefaultHTTPSessionIdleTimeout = 10 * time.Minute
	// DefaultHTTPMaxInFlightBytes bounds the bodies held at once, all clients
	// together: one body at the body cap. Each body is held twice while
	// go-sdk reads it (the door's copy and go-sdk's), and a handler's work
	// grows with its input (a maximal compile_journey call works through some
	// 20 MiB for its 1.6 MB), so this is what bounds the server's memory
	// under concurrent large calls: about ten maximal calls at once, where
	// stdio's 16 places admit sixteen.
	DefaultHTTPMaxInFlightBytes = DefaultHTTPMaxBodyBytes
	// DefaultHTTPMaxRetainedBytes bounds what all sessions keep for their
	// lives together: the params of each one's initialize, which go-sdk keeps
	// (clientInfo, capabilities), each at most envelope.MaxSessionParamsBytes.
	// It is what the default session cap allows, so the count binds first
	// unless an embedder raises MaxSessions.
	DefaultHTTPMaxRetainedBytes = DefaultHTTPMaxSessions * envelope.MaxSessionParamsBytes
	// DefaultHTTPMaxSessionBytes bounds the bodies one session holds at once.
	// It equals the global budget by default; an embedder that raises the
	// global one keeps each session to this.
	DefaultHTTPMaxSessionBytes = DefaultHTTPMaxBodyBytes
)

// HTTPOptions configures [NewHTTPHandler]. A nil *HTTPOptions is refused, because
// the token cannot have a default.
type HTTPOptions struct {
	// Token is the bearer token every request must carry in
	// "Authorization: Bearer <Token>". It must be 16 to 1024 characters of the
	// RFC 6750 token alphabet (letters, digits and -._~+/ with trailing =).
	// crypto/rand's Text makes a good one.
	Token string
	// InsecureNoAuth serves every request without a token. It exists for test
	// harnesses that cannot send one (the MCP conformance suite); Token must then
	// be empty. Any local process, and any web page the Origin check lets
	// through, can then call the server.
	InsecureNoAuth bool
	// AllowedOrigins lists the browser origins ("http://localhost:6274") allowed
	// besides the server's own. A request with any other Origin header is refused
	// with 403, as a cross-site browser request.
	AllowedOrigins []string
	// MaxBodyBytes bounds one request body; 0 means DefaultHTTPMaxBodyBytes. A
	// larger body is refused with 413 before it is parsed.
	MaxBodyBytes int64
	// MaxSessions bounds the sessions open at once; 0 means
	// DefaultHTTPMaxSessions. Every POST without a session ID takes a place
	// while it is served, because go-sdk creates a session for it whatever it
	// carries. At the limit, the least recently used session with no POST in
	// flight is closed to make room (its client gets 404 and starts a new
	// one, as MCP asks); when every session has a POST in flight, the new one
	// gets 503.
	MaxSessions int
	// MaxInFlightBytes bounds the request bodies held at once, all clients
	// together, and MaxSessionBytes those of one session; 0 means
	// DefaultHTTPMaxInFlightBytes and DefaultHTTPMaxSessionBytes. A body is
	// held from its first byte until its answer is written. Reading stops at
	// the bound: the request gets 503 with Retry-After. A body alone is always
	// admitted.
	MaxInFlightBytes, MaxSessionBytes int64
	// MaxRetainedBytes bounds what the sessions keep for their lives, all
	// together: each is charged the bytes of its initialize's params, which
	// go-sdk keeps; 0 means DefaultHTTPMaxRetainedBytes. A new session over
	// it closes the least recently used sessions with no POST in flight, as
	// MaxSessions does, until it fits; when none can be closed, it gets 503.
	MaxRetainedBytes int64
	// AnswerBound, when set, charges each call the bound of its answer from
	// admission, beside its body, in both MaxInFlightBytes and
	// MaxSessionBytes: a call whose answer could not fit gets 503 with
	// Retry-After before it is served. A call alone is always admitted.
	// cmd/automium-mcp passes mcpserver.AnswerBound.
	AnswerBound session.AnswerBound
	// MaxInFlight bounds the POST and DELETE requests served at once; 0 means
	// DefaultHTTPMaxInFlight. A request over the limit gets 503.
	MaxInFlight int
	// SessionIdleTimeout closes a session idle this long; 0 means
	// DefaultHTTPSessionIdleTimeout.
	SessionIdleTimeout time.Duration
	// JSONResponse answers POSTs with one application/json body instead of a
	// text/event-stream, for clients that prefer plain JSON.
	JSONResponse bool
	// Audit receives one record per HTTP request (see [NewHTTPHandler]). Nil
	// audits nothing.
	Audit *slog.Logger
	// Now is the audit clock, for the record's time and duration. Nil means
	// time.Now; tests inject a fake one.
	Now func() time.Time
	// Logger receives the SDK transport's diagnostics. Nil discards.
	Logger *slog.Logger
	// EventStoreMaxBytes, when positive, makes session event streams
	// resumable: the messages go-sdk writes as server-sent events are kept in
	// memory, at most this many bytes for all sessions together (each stream
	// and event also counts a small fixed cost), and the oldest streams are
	// forgotten whole beyond it or when their session closes. go-sdk then
	// starts each POST's event stream with a priming event that carries an
	// event ID, gives every event an ID, and a client that lost a stream
	// resumes it with a GET carrying Last-Event-ID and gets what it missed
	// (errors as rendered live, the same as on stdio); a request handler may
	// close its stream with RequestExtra.CloseSSEStream (an event carrying
	// retry) and answer later. A stream no longer kept gets 400. Sessionless requests (protocol 2026-07-28, which removed
	// resumption) and JSONResponse answers are not resumable either way.
	//
	// 0 means no event store: no priming event, no event IDs, and a GET with
	// Last-Event-ID gets 400. This suits a server whose answers are written as
	// soon as they are ready, as automium-mcp's are, since the store would
	// keep every answer until the bound pushes it out, for clients that
	// already read it.
	EventStoreMaxBytes int64
	// Stop, when closed, ends every open GET event stream, so that
	// http.Server.Shutdown can drain: it waits for connections to go idle, and
	// a stream never does. POST requests in flight are not affected.
	Stop <-chan struct{}
}

// auditRefHeader carries, from the HTTP layer to the MCP middleware, which audit
// record a JSON-RPC message belongs to: the SDK hands the request's header map to
// the method handlers but no context of the HTTP request. Any value a client
// sends is removed first, so a client cannot write into another request's record.
const auditRefHeader = "Automium-Audit-Ref"

// sessionlessVersion is the first protocol version without sessions. Requests
// that declare it are served by a stateless handler, because the SDK serves that
// protocol over HTTP only without sessions, and earlier ones only with them.
const sessionlessVersion = session.SessionlessFrom

// NewHTTPHandler returns an http.Handler serving server over MCP Streamable HTTP,
// to be mounted at the endpoint path (the binary uses /mcp). It puts the SDK's
// StreamableHTTPHandler behind the checks a network listener needs, in this order:
//
//   - the Host header must name a loopback address (403), against DNS
//     rebinding; the SDK checks this too;
//   - a browser's Origin must be the server's own or allowed (403), and
//     Sec-Fetch-Site must not say cross-site;
//   - the bearer token (401 with WWW-Authenticate);
//   - at most MaxInFlight POST and DELETE requests at once (503);
//   - a body of at most MaxBodyBytes (413);
//   - at most MaxSessions sessions: an initialize beyond them gets 503;
//     sessions idle for SessionIdleTimeout are closed.
//
// Requests at protocol 2026-07-28 or later (by their Mcp-Protocol-Version header)
// are served sessionless, all others with sessions (Mcp-Session-Id).
//
// With Audit set, every request, refused or served, gives one record: remote
// address, HTTP method and status, a hash of the session ID, the JSON-RPC method,
// the tool or prompt name or resource URI, the outcome (ok, tool_error,
// rpc_error with its code, accepted, refused with a reason, or http_error),
// duration and response size. Arguments and the token are never recorded, and
// client-supplied names are cut to a short prefix.
//
// To learn outcomes, NewHTTPHandler adds a receiving middleware to server; it
// only reads results. The session limit counts every session of server, so a
// server given to NewHTTPHandler should serve nothing else.
func NewHTTPHandler(server *mcp.Server, opts *HTTPOptions) (http.Handler, error) {
	if opts == nil {
		return nil, errors.New("transport: NewHTTPHandler needs options with a token")
	}
	o := *opts
	switch {
	case o.InsecureNoAuth && o.Token != "":
		return nil, errors.New("transport: InsecureNoAuth with a token; choose one")
	case !o.InsecureNoAuth:
		if err := CheckBearerToken(o.Token); err != nil {
			return nil, err
		}
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultHTTPMaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultHTTPMaxSessions
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultHTTPMaxInFlight
	}
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = DefaultHTTPSessionIdleTimeout
	}
	if o.MaxInFlightBytes <= 0 {
		o.MaxInFlightBytes = DefaultHTTPMaxInFlightBytes
	}
	if o.MaxSessionBytes <= 0 {
		o.MaxSessionBytes = DefaultHTTPMaxSessionBytes
	}
	if o.MaxRetainedBytes <= 0 {
		o.MaxRetainedBytes = DefaultHTTPMaxRetainedBytes
	}
	if o.EventStoreMaxBytes < 0 {
		return nil, fmt.Errorf("transport: EventStoreMaxBytes is %d; use 0 for no event store or a positive bound", o.EventStoreMaxBytes)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	origins := map[string]bool{}
	for _, origin := range o.AllowedOrigins {
		origins[strings.ToLower(origin)] = true
	}
	getServer := func(*http.Request) *mcp.Server { return server }
	var events mcp.EventStore // a nil *eventStore in it would not be nil
	var store *eventStore
	if o.EventStoreMaxBytes > 0 {
		store = newEventStore(o.EventStoreMaxBytes)
		events = store
	}
	h := &httpHandler{
		opts:     o,
		store:    store,
		server:   server,
		origins:  origins,
		inFlight: make(chan struct{}, o.MaxInFlight),
		table:    session.NewTable(o.MaxSessions, o.MaxRetainedBytes),
		limits:   session.Limits{MaxBytes: o.MaxSessionBytes},
		tokenSum: sha256.Sum256([]byte(o.Token)),
		stateful: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
			JSONResponse:        o.JSONResponse,
			Logger:              o.Logger,
			SessionTimeout:      o.SessionIdleTimeout,
			MaxRequestBodyBytes: o.MaxBodyBytes,
			EventStore:          events,
		}),
		stateless: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
			Stateless:           true,
			JSONResponse:        o.JSONResponse,
			Logger:              o.Logger,
			MaxRequestBodyBytes: o.MaxBodyBytes,
		}),
	}
	server.AddReceivingMiddleware(h.recordOutcomes)
	return h, nil
}

// CheckBearerToken reports whether token is fit to be a bearer token: 16 to 1024
// characters of RFC 6750's b64token alphabet, so that it travels in a header
// unchanged and cannot be guessed by counting.
func CheckBearerToken(token string) error {
	if len(token) < 16 || len(token) > 1024 {
		return fmt.Errorf("transport: a bearer token must be 16 to 1024 characters, not %d", len(token))
	}
	body := strings.TrimRight(token, "=")
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return fmt.Errorf("transport: a bearer token may hold only letters, digits, -._~+/ and trailing =; byte %d is %q", i, c)
		}
	}
	if body == "" {
		return errors.New("transport: a bearer token cannot be only =")
	}
	return nil
}

type httpHandler struct {
	opts      HTTPOptions
	server    *mcp.Server
	origins   map[string]bool
	inFlight  chan struct{}
	tokenSum  [sha256.Size]byte
	stateful  *mcp.StreamableHTTPHandler
	stateless *mcp.StreamableHTTPHandler
	store     *eventStore // nil without EventStoreMaxBytes

	refs    sync.Map // audit reference -> *auditRecord
	nextRef atomic.Uint64

	// table holds the record of each session (package session): its pin,
	// its ordered initialize, the calls in flight and their bytes, what it
	// keeps; limits bounds what one session's requests hold.
	table  *session.Table
	limits session.Limits

	mu   sync.Mutex
	held int64 // body bytes held, all sessions together
}

// auditRecord is what one request's audit line says. The method and the tool
// or prompt name or resource URI come from the envelope door's view of the
// body, the one reading every other part of the server shares; the MCP
// middleware adds the outcome of the call.
type auditRecord struct {
	refusal string

	mu        sync.Mutex
	rpcMethod string
	name      string
	outcomes  []callOutcome
}

type callOutcome struct {
	outcome string // ok, tool_error or rpc_error
	code    int64
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.opts.Now()
	aw := &auditWriter{ResponseWriter: w}
	rec := &auditRecord{}
	requestSession := r.Header.Get("Mcp-Session-Id")
	defer func() { h.audit(r, aw, rec, requestSession, start) }()

	r.Header.Del(auditRefHeader)
	if !isLoopbackHost(r.Host) {
		h.refuse(aw, rec, "host", http.StatusForbidden, "Forbidden: the Host header must name a loopback address, not "+echo.Quote(r.Host))
		return
	}
	if !h.originAllowed(r) {
		h.refuse(aw, rec, "origin", http.StatusForbidden, "Forbidden: cross-origin request from "+echo.Quote(r.Header.Get("Origin")))
		return
	}
	if !h.opts.InsecureNoAuth {
		if presented, ok := h.authorized(r); !ok {
			// RFC 6750 section 3: a request without credentials gets the
			// bare challenge; one with a wrong token also gets the error
			// code and a description, the field clients may show.
			challenge := `Bearer realm="automium-mcp"`
			if presented {
				challenge += `, error="invalid_token", error_description="the bearer token is not the one automium-mcp printed at start"`
			}
			aw.Header().Set("WWW-Authenticate", challenge)
			h.refuse(aw, rec, "unauthorized", http.StatusUnauthorized, "Unauthorized: send the token automium-mcp printed at start as \"Authorization: Bearer <token>\"")
			return
		}
	}

	handler := h.stateful
	if r.Header.Get("Mcp-Protocol-Version") >= sessionlessVersion {
		handler = h.stateless
	}
	switch r.Method {
	case http.MethodGet:
		if ids := r.Header.Values("Last-Event-ID"); len(ids) > 0 && !wellFormedEventID(ids) {
			// go-sdk would answer a malformed one with a 400 that quotes the
			// header back whole; the door renders every refusal itself.
			h.refuse(aw, rec, "last_event_id", http.StatusBadRequest,
				"Bad Request: Last-Event-ID must be one event ID this server sent: a stream ID, an underscore and an index")
			return
		}
		// An event stream lives until the client leaves, its session closes
		// (it expires when idle) or Stop is closed: no read or write timeout
		// of the server applies to it.
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		if h.opts.Stop != nil {
			go func() {
				select {
				case <-h.opts.Stop:
					cancel()
				case <-ctx.Done():
				}
			}()
		}
		// A resumed stream replays what the store rendered, and then what
		// its call answers after the client came back, which go-sdk writes
		// here: that is rendered the same way, with the call's method.
		var out http.ResponseWriter = aw
		if ids := r.Header.Values("Last-Event-ID"); len(ids) == 1 && h.store != nil {
			stream, _, _ := strings.Cut(ids[0], "_")
			out = &rpcWriter{auditWriter: aw, method: h.store.methodOf(r.Header.Get("Mcp-Session-Id"), stream), passRefusals: true}
		}
		handler.ServeHTTP(out, r.WithContext(ctx))
		return
	case http.MethodPost, http.MethodDelete:
		select {
		case h.inFlight <- struct{}{}:
			defer func() { <-h.inFlight }()
		default:
			aw.Header().Set("Retry-After", "1")
			h.refuse(aw, rec, "busy", http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: %d requests in flight, the limit", h.opts.MaxInFlight))
			return
		}
	}
	if r.Method != http.MethodPost {
		handler.ServeHTTP(aw, r)
		return
	}

	body, held, ok := h.readBody(aw, rec, r)
	if !ok {
		return
	}
	defer h.release(held)
	view, problem := envelope.Parse(body, envelope.Limits{})
	if problem != nil && problem.Notification {
		// JSON-RPC answers no notification: the status says it was refused.
		rec.refusal = "invalid_message"
		aw.WriteHeader(http.StatusBadRequest)
		return
	}
	if problem != nil {
		status := http.StatusBadRequest
		if problem.Code == jsonrpc.CodeMethodNotFound && handler == h.stateless {
			// SEP-2575: in the sessionless protocol an unknown method is 404.
			status = http.StatusNotFound
		}
		h.answer(aw, rec, "invalid_message", status, problem.Response())
		return
	}
	rec.setMethod(view.Method, view.Name)
	var answer int64 // the bound of the call's answer, held from here until it is written
	if h.opts.AnswerBound != nil && view.IsCall() {
		answer = h.opts.AnswerBound(view.Method, view.Name, held)
		if !h.takeBeside(answer, held) {
			aw.Header().Set("Retry-After", "1")
			h.refuse(aw, rec, "busy", http.StatusServiceUnavailable,
				fmt.Sprintf("Service Unavailable: %d bytes of requests and their answers are held, the limit; retry", h.opts.MaxInFlightBytes))
			return
		}
		defer h.release(answer)
	}
	r = r.WithContext(withCallMethod(r.Context(), view.Method)) // for the event store
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	if view.ProtocolVersion >= sessionlessVersion {
		// The protocol pin reads the door's view: a call that go-sdk
		// would serve sessionless is never served by the stateful handler,
		// which would keep a session for it.
		handler = h.stateless
	}

	var sess *session.Record // the record of the session the request names, if it is open
	if requestSession != "" && h.sessionOpen(requestSession) {
		// Every session a client can name has been initialized (below).
		sess = h.table.Open(requestSession, h.limits, session.Pin{Kind: session.Handshake})
	}
	version := view.ProtocolVersion // the version the request names, for the session's pin
	if version < sessionlessVersion {
		version = r.Header.Get("Mcp-Protocol-Version")
	}
	if sess != nil && view.IsCall() {
		// The session's pin decides, as on stdio, and before the headers:
		// a sessionless call naming it, whatever its headers say, or a
		// second initialize. A session ID that names no session gets
		// go-sdk's 404, below.
		if _, why := sess.Pin().Admit(view.Method, version); why != "" {
			h.invalid(aw, rec, "invalid_message", view, why)
			return
		}
	}
	// The transport's headers first (go-sdk would refuse them with a
	// plain-text 400 that the answer could not tell from its method
	// check), then the standard headers against the body.
	if problem := transportHeaders(r.Header, view); problem != nil {
		h.refuseMessage(aw, rec, "header", view, problem)
		return
	}
	if problem := standardHeaders(r.Header, view); problem != nil {
		h.refuseMessage(aw, rec, "header_mismatch", view, problem)
		return
	}

	if !view.IsCall() && !view.Response && handler == h.stateful && sess != nil && !sess.Notify(view) {
		// A cancellation naming no call in flight on the session, or a
		// second notifications/initialized: dropped, as stdio drops them
		// (session.Record.Notify).
		aw.WriteHeader(http.StatusAccepted)
		return
	}

	var call *session.Call // the session's record of this request
	switch {
	case handler == h.stateful && requestSession == "" && view.IsCall():
		// No session, so none initialized: an undecided pin refuses what
		// go-sdk would refuse with a plain error (code 0) after creating a
		// session for it. A session it creates so is never named to the
		// client, so every session a client can name has been initialized.
		if _, why := (session.Pin{}).Admit(view.Method, version); why != "" {
			h.invalid(aw, rec, "invalid_message", view, why)
			return
		}
		fallthrough
	case handler == h.stateful && requestSession == "":
		// go-sdk creates a session for every POST without a session ID,
		// whatever it carries, and keeps it if it ends up initialized.
		var keeps int64 // what go-sdk keeps of this session if it ends up initialized
		if view.Method == "initialize" {
			keeps = int64(len(view.Params))
		}
		if !h.admitSession(keeps) {
			aw.Header().Set("Retry-After", "60")
			h.refuse(aw, rec, "session_limit", http.StatusServiceUnavailable,
				fmt.Sprintf("Service Unavailable: %d sessions are open, each with a request in flight, the limit; try again later", h.opts.MaxSessions))
			return
		}
		defer h.table.Unreserve(keeps)
		if view.Method == "initialize" {
			// Ordered from before its answer (and the session's ID) reaches
			// the client until it ends.
			var made *session.Record
			aw.onHeader = func(header http.Header) {
				if id := header.Get("Mcp-Session-Id"); id != "" {
					made = h.table.Begin(id, h.limits, keeps)
				}
			}
			defer func() {
				if made != nil {
					made.End()
				}
			}()
		}
	case handler == h.stateful && sess != nil:
		callID, isCall := envelope.IDOf(view.ID)
		q := session.Request{Method: view.Method, Version: version, ID: callID, IsCall: isCall && view.IsCall(), Size: held, Answer: answer}
		entry := sess.Enter(q)
		for entry.Wait != nil { // an initialize is being served: go-sdk would queue this without bound
			select {
			case <-entry.Wait:
				entry = sess.Enter(q)
			case <-r.Context().Done():
				entry = session.Entry{Busy: true}
			}
		}
		switch {
		case entry.Busy:
			aw.Header().Set("Retry-After", "1")
			h.refuse(aw, rec, "busy", http.StatusServiceUnavailable,
				fmt.Sprintf("Service Unavailable: the session holds %d bytes of requests, the limit; read its answers, then retry", h.opts.MaxSessionBytes))
			return
		case entry.Refusal == session.DuplicateIDReason:
			h.invalid(aw, rec, "duplicate_id", view, entry.Refusal)
			return
		case entry.Refusal != "":
			h.invalid(aw, rec, "invalid_message", view, entry.Refusal)
			return
		}
		call = entry.Call
		defer sess.Release(call)
	}

	ref := strconv.FormatUint(h.nextRef.Add(1), 10)
	h.refs.Store(ref, rec)
	defer h.refs.Delete(ref)
	r.Header.Set(auditRefHeader, ref)
	rw := &rpcWriter{auditWriter: aw, method: view.Method, id: view.ID, params: len(view.Params) > 0}
	if call != nil {
		rw.cancelled = func() bool { return sess.Cancelled(call) }
	}
	handler.ServeHTTP(rw, r)
	rw.finish()
}

// standardHeaders checks the standard headers of protocol 2026-07-28 and
// later against the door's view of the body: Mcp-Protocol-Version must be
// the version params._meta names, if it names one; Mcp-Method must name the method,
// and Mcp-Name the tool, prompt or resource of tools/call, prompts/get and
// resources/read. go-sdk checks the same, but quotes both values whole (the
// header up to the server's header limit, the body's up to the body limit)
// in its -32020, raw; here each is cut by echo.Quote.
func standardHeaders(header http.Header, view *envelope.Message) *envelope.Problem {
	if view.Response {
		return nil
	}
	mismatch := func(msg string) *envelope.Problem {
		return &envelope.Problem{ID: view.ID, Code: mcp.CodeHeaderMismatch, Message: msg}
	}
	version := header.Get("Mcp-Protocol-Version")
	if version != "" && view.ProtocolVersion != "" && version != view.ProtocolVersion {
		return mismatch("Mcp-Protocol-Version header " + echo.Quote(version) + " does not match request " +
			mcp.MetaKeyProtocolVersion + " " + echo.Quote(view.ProtocolVersion))
	}
	if version < sessionlessVersion {
		return nil
	}
	switch method := header.Get("Mcp-Method"); {
	case method == "":
		return mismatch("missing required Mcp-Method header")
	case method != view.Method:
		return mismatch("header mismatch: Mcp-Method header value " + echo.Quote(method) +
			" does not match body value " + echo.Quote(view.Method))
	}
	switch view.Method {
	case "tools/call", "prompts/get", "resources/read":
	default:
		return nil
	}
	switch name := header.Get("Mcp-Name"); {
	case name == "":
		return mismatch("missing required Mcp-Name header for method " + echo.Quote(view.Method))
	case view.Name == "":
		return mismatch("header mismatch: Mcp-Name header value " + echo.Quote(name) +
			" does not match the body, whose " + nameMember(view.Method) + " is not a non-empty string")
	case name != view.Name:
		return mismatch("header mismatch: Mcp-Name header value " + echo.Quote(name) +
			" does not match body value " + echo.Quote(view.Name))
	}
	return nil
}

// transportHeaders checks the headers MCP's Streamable HTTP transport asks of
// every POST, which go-sdk checks before it reads the body and refuses in
// plain text: Accept must admit both application/json and text/event-stream
// (RFC 9110 media ranges: */*, application/*, text/* admit them too), and an
// Mcp-Protocol-Version header of the handshake protocols must name one this
// server speaks. A sessionless version (2026-07-28 and later) go-sdk answers
// itself, in JSON-RPC, with the versions it speaks.
func transportHeaders(header http.Header, view *envelope.Message) *envelope.Problem {
	jsonOK, streamOK := false, false
	for _, value := range header.Values("Accept") {
		for _, part := range strings.Split(value, ",") {
			media, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(media)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	if !jsonOK || !streamOK {
		return &envelope.Problem{ID: view.ID, Code: jsonrpc.CodeInvalidRequest,
			Message: "Invalid Request: send Accept: application/json, text/event-stream; a Streamable HTTP client must accept both"}
	}
	if version := header.Get("Mcp-Protocol-Version"); version != "" && version < sessionlessVersion && !slices.Contains(mcp.SupportedProtocolVersions(), version) {
		return &envelope.Problem{ID: view.ID, Code: jsonrpc.CodeInvalidRequest,
			Message: "Invalid Request: the Mcp-Protocol-Version header " + echo.Quote(version) + " names no protocol this server speaks; send one of " +
				strings.Join(mcp.SupportedProtocolVersions(), ", ") + ", or none"}
	}
	return nil
}

// nameMember is the params member Mcp-Name stands for.
func nameMember(method string) string {
	if method == "resources/read" {
		return "uri"
	}
	return "name"
}

// readBody reads a POST body whole, taking its bytes from the global budget
// as they arrive, so that reading stops at the bound. It answers a body over
// MaxBodyBytes, one that cannot be read and one over the budget itself, and
// reports false for them; otherwise the caller releases held when done.
func (h *httpHandler) readBody(aw *auditWriter, rec *auditRecord, r *http.Request) (body []byte, held int64, ok bool) {
	tooLarge := func(prefix []byte) {
		h.answer(aw, rec, "body_too_large", http.StatusRequestEntityTooLarge, envelope.ErrorResponse(envelope.SniffID(prefix),
			jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: the message exceeds the limit of %d bytes", h.opts.MaxBodyBytes)))
	}
	if r.ContentLength > h.opts.MaxBodyBytes {
		// Refused unread but for its start, where the id usually is.
		prefix := make([]byte, 4<<10)
		n, _ := io.ReadFull(r.Body, prefix)
		tooLarge(prefix[:n])
		return nil, 0, false
	}
	const chunk = 64 << 10
	in := http.MaxBytesReader(aw, r.Body, h.opts.MaxBodyBytes)
	body = make([]byte, 0, min(max(r.ContentLength, 0), h.opts.MaxBodyBytes)+1)
	for {
		if len(body) == cap(body) {
			// Past what Content-Length announced, or without one: grow by
			// half again, at least a chunk, within the cap.
			grown := make([]byte, len(body), min(int64(cap(body))+max(int64(cap(body))/2, chunk), h.opts.MaxBodyBytes+1))
			copy(grown, body)
			body = grown
		}
		free := int64(cap(body) - len(body))
		if held < int64(cap(body)) {
			if !h.take(int64(cap(body)) - held) {
				h.release(held)
				aw.Header().Set("Retry-After", "1")
				h.refuse(aw, rec, "busy", http.StatusServiceUnavailable,
					fmt.Sprintf("Service Unavailable: %d bytes of requests are held, the limit; retry", h.opts.MaxInFlightBytes))
				return nil, 0, false
			}
			held = int64(cap(body))
		}
		n, err := in.Read(body[len(body) : int64(len(body))+free])
		body = body[:len(body)+n]
		var over *http.MaxBytesError
		switch {
		case err == io.EOF:
			return body, held, true
		case errors.As(err, &over):
			h.release(held)
			tooLarge(body[:min(len(body), 4<<10)])
			return nil, 0, false
		case err != nil:
			h.release(held)
			h.refuse(aw, rec, "unreadable_body", http.StatusBadRequest, "Bad Request: the body could not be read")
			return nil, 0, false
		}
	}
}

// take reserves n bytes of the global budget; a request alone always gets them.
func (h *httpHandler) take(n int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held > 0 && h.held+n > h.opts.MaxInFlightBytes {
		return false
	}
	h.held += n
	return true
}

// takeBeside reserves n more bytes for a request that holds own already: it
// gets them when nothing else is held (a request alone is always admitted),
// or when they fit.
func (h *httpHandler) takeBeside(n, own int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held > own && h.held+n > h.opts.MaxInFlightBytes {
		return false
	}
	h.held += n
	return true
}

func (h *httpHandler) release(n int64) {
	h.mu.Lock()
	h.held -= n
	h.mu.Unlock()
}

// sessionOpen reports whether the server has a session with this ID. There
// are at most MaxSessions.
func (h *httpHandler) sessionOpen(id string) bool {
	for s := range h.server.Sessions() {
		if s.ID() == id {
			return true
		}
	}
	return false
}

// answer writes a JSON-RPC error the door or the handler made, as the body of
// an HTTP error.
func (h *httpHandler) answer(w http.ResponseWriter, rec *auditRecord, reason string, status int, body []byte) {
	rec.refusal = reason
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// refuseMessage answers a message its headers refuse: a call with the
// problem as a JSON-RPC error in a 400; a notification or response with the
// 400 alone, since JSON-RPC answers neither.
func (h *httpHandler) refuseMessage(w http.ResponseWriter, rec *auditRecord, reason string, view *envelope.Message, problem *envelope.Problem) {
	if !view.IsCall() {
		rec.refusal = reason
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.answer(w, rec, reason, http.StatusBadRequest, problem.Response())
}

// invalid answers a call a session's record refused: -32600 with its reason.
func (h *httpHandler) invalid(w http.ResponseWriter, rec *auditRecord, reason string, view *envelope.Message, why string) {
	h.answer(w, rec, reason, http.StatusBadRequest, envelope.ErrorResponse(view.ID, jsonrpc.CodeInvalidRequest, "Invalid Request: "+why))
}

// admitSession reserves a place in the table for the session go-sdk may
// create, which will keep retained bytes if it ends up initialized, and
// closes the idle sessions the table chose to make room.
func (h *httpHandler) admitSession(retained int64) bool {
	open := map[string]*mcp.ServerSession{}
	var ids []string
	for s := range h.server.Sessions() {
		if id := s.ID(); id != "" {
			open[id] = s
			ids = append(ids, id)
		}
	}
	victims, ok := h.table.Reserve(retained, ids)
	for _, id := range victims {
		_ = open[id].Close() // ends its event stream; its next request gets 404
	}
	return ok
}

// maxEventIDBytes bounds a Last-Event-ID: go-sdk's event IDs are a 26-letter
// stream ID (or none, on the GET stream), "_" and a decimal index.
const maxEventIDBytes = 128

// wellFormedEventID reports whether ids is one event ID of the form go-sdk
// writes, <stream>_<index> with a base-32 stream ID and a decimal index that
// fits an int, so that nothing else reaches go-sdk's parser, whose refusal
// echoes the header.
func wellFormedEventID(ids []string) bool {
	if len(ids) != 1 || len(ids[0]) > maxEventIDBytes {
		return false
	}
	stream, index, ok := strings.Cut(ids[0], "_")
	if !ok || len(index) == 0 || len(index) > 18 {
		return false
	}
	for _, c := range []byte(stream) {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	for _, c := range []byte(index) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (h *httpHandler) refuse(w http.ResponseWriter, rec *auditRecord, reason string, status int, message string) {
	rec.refusal = reason
	http.Error(w, message, status)
}

// authorized reports whether r carries the token, and whether it carried any.
// The comparison is of SHA-256 sums in constant time, so neither the token's
// bytes nor its length can be learned from timing.
func (h *httpHandler) authorized(r *http.Request) (presented, ok bool) {
	scheme, token, found := strings.Cut(r.Header.Get("Authorization"), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return r.Header.Get("Authorization") != "", false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return true, subtle.ConstantTimeCompare(sum[:], h.tokenSum[:]) == 1
}

// originAllowed refuses what a browser marks as coming from another site. Clients
// that are not browsers send no Origin. A page's Origin must be this server's
// own (the same host and port as the Host header, which is loopback) or listed.
// Unlike http.CrossOriginProtection, it also checks GET, which opens event
// streams.
func (h *httpHandler) originAllowed(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		if o := r.Header.Get("Origin"); o == "" || !h.origins[strings.ToLower(o)] {
			return false
		}
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if h.origins[strings.ToLower(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" && strings.EqualFold(u.Host, r.Host)
}

// isLoopbackHost reports whether a Host header names this machine: localhost or
// a loopback IP, with or without a port.
func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// setMethod records the first method and name the record hears of.
func (rec *auditRecord) setMethod(method, name string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.rpcMethod == "" {
		rec.rpcMethod, rec.name = auditValue(method), auditValue(name)
	}
}

// auditValue keeps a client-supplied value readable when it is short, and cuts it
// with echo.Quote otherwise, so no audit line grows with the input.
func auditValue(s string) string {
	if len(s) <= echo.MaxPrefix && utf8.ValidString(s) {
		return s
	}
	return echo.Quote(s)
}

// recordOutcomes is the receiving middleware that tells the audit record of the
// HTTP request that carried a call how the call ended.
func (h *httpHandler) recordOutcomes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		extra := req.GetExtra()
		if extra == nil || extra.Header == nil || strings.HasPrefix(method, "notifications/") {
			// A notification's request was audited as accepted when the SDK
			// answered it 202, which may be before its handler ran.
			return res, err
		}
		v, ok := h.refs.Load(extra.Header.Get(auditRefHeader))
		if !ok {
			return res, err
		}
		out := callOutcome{outcome: "ok"}
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			out = callOutcome{outcome: "rpc_error", code: rpcErr.Code}
		case err != nil:
			out = callOutcome{outcome: "rpc_error"}
		default:
			if r, isTool := res.(*mcp.CallToolResult); isTool && r != nil && r.IsError {
				out.outcome = "tool_error"
			}
		}
		rec := v.(*auditRecord)
		rec.setMethod(method, requestName(req))
		rec.mu.Lock()
		rec.outcomes = append(rec.outcomes, out)
		rec.mu.Unlock()
		return res, err
	}
}

// audit writes the request's record.
func (h *httpHandler) audit(r *http.Request, aw *auditWriter, rec *auditRecord, requestSession string, start time.Time) {
	if h.opts.Audit == nil {
		return
	}
	session := requestSession
	if session == "" {
		session = aw.Header().Get("Mcp-Session-Id")
	}
	status := int(aw.status.Load())
	if status == 0 {
		status = http.StatusOK
	}
	outcome, code := "", int64(0)
	rec.mu.Lock()
	rpcMethod, name := rec.rpcMethod, rec.name
	for _, o := range rec.outcomes {
		if outcome == "" || outcome == "ok" {
			outcome, code = o.outcome, o.code
		}
	}
	rec.mu.Unlock()
	if rec.refusal == "" && status == http.StatusRequestEntityTooLarge {
		rec.refusal = "body_too_large" // by the SDK, past the part read here
	}
	switch {
	case rec.refusal != "":
		outcome = "refused"
	case status == http.StatusAccepted:
		// Only notifications and responses, which get no answer: the SDK
		// answers 202 before it hands a notification to the middleware, so
		// what the middleware records for one may arrive after this line is
		// written, or before. The outcome must not depend on which.
		outcome = "accepted"
	case outcome != "":
	case status < 300:
		outcome = "ok"
	default:
		outcome = "http_error"
	}
	end := h.opts.Now()
	record := slog.NewRecord(end, slog.LevelInfo, "mcp http request", 0)
	record.AddAttrs(
		slog.String("remote", r.RemoteAddr),
		slog.String("http", r.Method),
		slog.Int("status", status),
		slog.String("session", hashSession(session)),
		slog.String("method", rpcMethod),
		slog.String("name", name),
		slog.String("outcome", outcome),
	)
	if outcome == "rpc_error" {
		record.AddAttrs(slog.Int64("code", code))
	}
	if rec.refusal != "" {
		record.AddAttrs(slog.String("reason", rec.refusal))
	}
	record.AddAttrs(
		slog.Float64("duration_ms", float64(end.Sub(start).Microseconds())/1000),
		slog.Int64("bytes", aw.bytes.Load()),
	)
	_ = h.opts.Audit.Handler().Handle(context.Background(), record)
}

// hashSession names a session in the audit log without giving away its ID, which
// is a credential for the session: the first 16 hex digits of its SHA-256.
func hashSession(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:8])
}

// auditWriter counts what is written and keeps the status. The SDK flushes event
// streams through http.ResponseController, which finds Flush through Unwrap.
type auditWriter struct {
	http.ResponseWriter
	status atomic.Int64
	bytes  atomic.Int64
	// onHeader, if set, sees the header just before it is sent.
	onHeader func(http.Header)
}

func (w *auditWriter) WriteHeader(code int) {
	if w.status.CompareAndSwap(0, int64(code)) && w.onHeader != nil {
		w.onHeader(w.Header())
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *auditWriter) Write(p []byte) (int, error) {
	if w.status.CompareAndSwap(0, http.StatusOK) && w.onHeader != nil {
		w.onHeader(w.Header())
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes.Add(int64(n))
	return n, err
}

func (w *auditWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *auditWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
