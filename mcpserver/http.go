package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// DefaultHTTPMaxSessions. An initialize over the limit gets 503.
	MaxSessions int
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
const sessionlessVersion = "2026-07-28"

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
		return nil, errors.New("mcpserver: NewHTTPHandler needs options with a token")
	}
	o := *opts
	switch {
	case o.InsecureNoAuth && o.Token != "":
		return nil, errors.New("mcpserver: InsecureNoAuth with a token; choose one")
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
	h := &httpHandler{
		opts:     o,
		server:   server,
		origins:  origins,
		inFlight: make(chan struct{}, o.MaxInFlight),
		tokenSum: sha256.Sum256([]byte(o.Token)),
		stateful: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
			JSONResponse:        o.JSONResponse,
			Logger:              o.Logger,
			SessionTimeout:      o.SessionIdleTimeout,
			MaxRequestBodyBytes: o.MaxBodyBytes,
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
		return fmt.Errorf("mcpserver: a bearer token must be 16 to 1024 characters, not %d", len(token))
	}
	body := strings.TrimRight(token, "=")
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return fmt.Errorf("mcpserver: a bearer token may hold only letters, digits, -._~+/ and trailing =; byte %d is %q", i, c)
		}
	}
	if body == "" {
		return errors.New("mcpserver: a bearer token cannot be only =")
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

	refs    sync.Map // audit reference -> *auditRecord
	nextRef atomic.Uint64

	mu       sync.Mutex
	admitted int // initialize requests admitted and not yet finished
}

// auditRecord is what one request's audit line says. The MCP middleware fills
// in the method, name and outcome of each JSON-RPC call the request carried;
// describe fills in the method and name of a small body beforehand, for the
// messages that never reach the middleware before the line is written
// (notifications, answered 202 at once, and messages the SDK refuses).
type auditRecord struct {
	refusal string
	calls   int // JSON-RPC messages in the body, when describe parsed it

	mu        sync.Mutex
	rpcMethod string
	name      string
	outcomes  []callOutcome
}

// describeMaxBytes bounds the bodies describe parses. Larger ones are calls
// with large arguments, which the middleware describes; reading them whole
// here would add a copy and a parse to the largest requests.
const describeMaxBytes = 64 << 10

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
		handler.ServeHTTP(aw, r.WithContext(ctx))
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

	if r.ContentLength > h.opts.MaxBodyBytes {
		h.refuse(aw, rec, "body_too_large", http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: the body is %d bytes, over the %d-byte limit", r.ContentLength, h.opts.MaxBodyBytes))
		return
	}
	// Read the first describeMaxBytes; a body that ends within them is
	// described here, a longer one goes on to the SDK unread, without a copy,
	// still bounded (the SDK answers 413 past the limit).
	body := http.MaxBytesReader(aw, r.Body, h.opts.MaxBodyBytes)
	head := make([]byte, describeMaxBytes+1)
	n, err := io.ReadFull(body, head)
	head = head[:n]
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		rec.describe(head)
		r.Body = io.NopCloser(bytes.NewReader(head))
		r.ContentLength = int64(n)
	case errors.As(err, &tooLarge):
		h.refuse(aw, rec, "body_too_large", http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: the body is over the %d-byte limit", h.opts.MaxBodyBytes))
		return
	case err != nil:
		h.refuse(aw, rec, "unreadable_body", http.StatusBadRequest, "Bad Request: the body could not be read")
		return
	default:
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), body), body}
	}

	if handler == h.stateful && requestSession == "" && rec.rpcMethod == "initialize" {
		if !h.admitSession() {
			aw.Header().Set("Retry-After", "60")
			h.refuse(aw, rec, "session_limit", http.StatusServiceUnavailable,
				fmt.Sprintf("Service Unavailable: %d sessions are open, the limit; end one with DELETE or wait for an idle one to expire", h.opts.MaxSessions))
			return
		}
		defer h.endAdmission()
	}

	ref := strconv.FormatUint(h.nextRef.Add(1), 10)
	h.refs.Store(ref, rec)
	defer h.refs.Delete(ref)
	r.Header.Set(auditRefHeader, ref)
	handler.ServeHTTP(aw, r)
}

// admitSession reserves a place for a new session if there is one. The places
// taken are the server's sessions with an ID plus the initializations still
// being served, which are not yet among them.
func (h *httpHandler) admitSession() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	open := 0
	for s := range h.server.Sessions() {
		if s.ID() != "" {
			open++
		}
	}
	if open+h.admitted >= h.opts.MaxSessions {
		return false
	}
	h.admitted++
	return true
}

func (h *httpHandler) endAdmission() {
	h.mu.Lock()
	h.admitted--
	h.mu.Unlock()
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

// describe notes the JSON-RPC method and the tool or prompt name or resource URI
// of the body's first message; a body that is not JSON-RPC leaves them empty
// (the SDK answers it).
func (rec *auditRecord) describe(body []byte) {
	type message struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	var msgs []message
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return
		}
	} else {
		var m message
		if json.Unmarshal(body, &m) != nil {
			return
		}
		msgs = []message{m}
	}
	rec.calls = len(msgs)
	if len(msgs) == 0 {
		return
	}
	m := msgs[0]
	var name string
	switch m.Method {
	case "tools/call", "prompts/get":
		name = m.Params.Name
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		name = m.Params.URI
	}
	rec.setMethod(m.Method, name)
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
		var name string
		switch p := req.GetParams().(type) {
		case *mcp.CallToolParamsRaw:
			name = p.Name
		case *mcp.GetPromptParams:
			name = p.Name
		case *mcp.ReadResourceParams:
			name = p.URI
		}
		rec.setMethod(method, name)
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
	if rec.calls > 1 {
		record.AddAttrs(slog.Int("calls", rec.calls))
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
}

func (w *auditWriter) WriteHeader(code int) {
	w.status.CompareAndSwap(0, int64(code))
	w.ResponseWriter.WriteHeader(code)
}

func (w *auditWriter) Write(p []byte) (int, error) {
	w.status.CompareAndSwap(0, http.StatusOK)
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
