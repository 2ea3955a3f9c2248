// Package dispatch calls MCP tools only through a [binding.Broker]. It is the
// go-sdk client side of package binding: a [Dispatcher] connects to MCP servers
// over any mcp.Transport, reads each server's identity and computes its live
// tool-catalog-v2 digest after initialize and before every call, and sends a tool call only after the
// broker has authorized it against its grant.
//
// The set of servers is fixed by the program that calls [Dispatcher.Connect];
// a model's decision can only name one of them, so a model cannot add a
// server. Routing is by exact identity, and the broker then checks the
// identity and the catalog digest against the grant, so an identically named
// tool on another server, or on the same server after its contract changed,
// never receives the call.
//
// The dispatcher fails closed. By default it verifies before every dispatch:
// it reads the server's whole catalog again (bounded in pages, items, bytes
// and time) and hands the broker the digest of that fresh read, so a server
// that changed without announcing it is refused as contract drift before
// anything reaches it, and a read that fails or is overtaken by a list_changed
// refuses the call ([binding.CodeCatalogStale]). An unchanged catalog is
// re-read by replaying the last full read's list requests: answers identical
// byte for byte to the verified ones prove the same catalog, and any other
// answer makes the read a full one (see tap). On the dispatcher's own
// transports, [IOTransport] and [NewInMemoryTransports], such an answer is
// compared as the line it came in and is never decoded, which makes a
// verification's cost that of moving the catalog's bytes; go-sdk's
// transports decode every answer first. [Options.TrustNotifications]
// trades that read for trust in the server's notifications, which is weaker.
// A server whose session ended is removed at once, so a call to it sends
// nothing and its identity can connect again; and every error says whether
// the call was sent ([binding.CodeCallFailed] is the only code of a call that
// may have been).
//
// Automium's own MCP server (package mcpserver) never dispatches anything; this
// package is for the programs that will, such as a live run coordinator driving a
// synthetic-UI server.
package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures a [Dispatcher]. A nil *Options means the defaults.
type Options struct {
	// Client is the identity the dispatcher gives servers in initialize.
	// Default: {Name: "automium-dispatch", Version: "v1"}.
	Client *mcp.Implementation
	// MaxCatalogItems bounds the tools, resources and prompts read from one
	// server, and MaxCatalogPages the pages, so a server that pages forever
	// cannot hold the dispatcher. Defaults: 10,000 and 1,000.
	MaxCatalogItems int
	MaxCatalogPages int
	// MaxCatalogBytes bounds the JSON the dispatcher keeps of one read of a
	// server's catalog, all lists together, as go-sdk decoded it. Default:
	// 4 MiB. A single page is bounded by the transport before it gets here.
	MaxCatalogBytes int
	// VerifyTimeout bounds one read of a server's catalog, on top of the
	// caller's context: a server that answers slowly cannot hold a dispatch.
	// Default: 10 seconds.
	VerifyTimeout time.Duration
	// TrustNotifications makes the dispatcher read a server's catalog again
	// only after the server announced a change (list_changed), instead of
	// before every dispatch. It saves one catalog read per call, and it is
	// weaker: a server that changes without notifying, or whose notification
	// is still in flight, receives the call under its old digest. Leave it
	// false unless the server is trusted to notify.
	TrustNotifications bool
}

// Dispatcher routes granted calls to the servers it connected to. It is safe for
// concurrent use; the broker serializes the authorizations themselves.
type Dispatcher struct {
	broker *binding.Broker
	opts   Options

	mu      sync.Mutex
	servers []*Server
}

// New returns a dispatcher that authorizes every call with broker.
func New(broker *binding.Broker, opts *Options) *Dispatcher {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Client == nil {
		o.Client = &mcp.Implementation{Name: "automium-dispatch", Version: "v1"}
	}
	if o.MaxCatalogItems <= 0 {
		o.MaxCatalogItems = 10_000
	}
	if o.MaxCatalogPages <= 0 {
		o.MaxCatalogPages = 1_000
	}
	if o.MaxCatalogBytes <= 0 {
		o.MaxCatalogBytes = 4 << 20
	}
	if o.VerifyTimeout <= 0 {
		o.VerifyTimeout = 10 * time.Second
	}
	return &Dispatcher{broker: broker, opts: o}
}

// Server is one connected MCP server as the dispatcher observed it. Its methods
// are safe for concurrent use.
//
// Its catalog is either current or stale. A list_changed notification makes it
// stale; only a complete, successful re-read makes it current again, and a
// notification that arrives during a re-read leaves it stale. While it is
// stale, every dispatch to the server is refused with [binding.CodeCatalogStale]
// (after trying one re-read), so a call is never authorized against a digest
// the server may no longer match: a re-read that fails (a cancelled context, a
// transport error, too many items) fails closed.
type Server struct {
	session  *mcp.ClientSession
	identity binding.ServerIdentity
	limits   Options
	d        *Dispatcher

	// reading is held by the one catalog read in progress on the session:
	// reads are serialized so that each can clear go-sdk's list cache
	// (see listCatalog). A re-read after a notification never waits for it;
	// a verification waits, bounded by its own context.
	reading chan struct{}
	// tap records a full read's list answers and replays them (see tap);
	// nil for a transport it cannot wrap. rec is the recording of the
	// read that produced digest, or nil; it is used with reading held.
	tap *tap
	rec *recording

	mu      sync.Mutex
	catalog binding.Catalog
	digest  string
	// schemas maps each tool of catalog to its input schema, built once per
	// digest (on the first dispatch that needs it), so a dispatch looks its
	// tool up in O(1) instead of reading every tool again.
	schemas  map[string]json.RawMessage
	changes  uint64        // list_changed notifications received
	readAt   uint64        // the value of changes when the current catalog was read
	readErr  error         // why the last re-read failed, if it did
	replayed uint64        // reads proved by a byte-identical replay
	closed   bool          // the session ended; the server is no longer routable
	ended    chan struct{} // closed when closed is set
	noticed  chan struct{} // signalled, without blocking, on each list_changed
}

// Identity returns the identity the server reported in initialize.
func (s *Server) Identity() binding.ServerIdentity { return s.identity }

// CatalogDigest returns the tool-catalog-v2 digest of the server's catalog as
// last read successfully; see [Server.Stale] for whether it is still current.
func (s *Server) CatalogDigest() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.digest
}

// Stale reports whether the server announced a change that no successful
// re-read has caught up with yet. Dispatches to a stale server are refused.
func (s *Server) Stale() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes != s.readAt
}

// Close ends the session with the server and removes it from its dispatcher,
// so that a server with the same identity can be connected again.
func (s *Server) Close() error {
	s.markClosed()
	return s.session.Close()
}

// markClosed makes the server unroutable and forgets it in the dispatcher.
func (s *Server) markClosed() {
	s.d.remove(s)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.ended)
	}
}

// Connect connects to a server over t, reads its identity, lists its catalog and
// computes the catalog digest. opts may be nil (the SDK's default protocol
// negotiation). It refuses a server that reports no identity, or the identity
// of a server already connected (or one differing only in case): routing must
// name exactly one server. An identity that cannot be bound (see
// [binding.ServerIdentity]) is refused. When
// the session ends, from either side, the server is removed, and the same
// identity may connect again.
func (d *Dispatcher) Connect(ctx context.Context, t mcp.Transport, opts *mcp.ClientSessionOptions) (*Server, error) {
	if err := d.misuse(binding.CodeServerUnknown, echo.Msg("nothing is connected"), ctx); err != nil {
		return nil, err
	}
	if t == nil || isNilPointer(t) {
		return nil, refuse(binding.CodeServerUnknown, "transport", "the transport is nil; pass the mcp.Transport of the server to connect; nothing is connected")
	}
	if it, ok := t.(*IOTransport); ok && (it.Reader == nil || it.Writer == nil) {
		// Refused here, whole: go-sdk's wrapping would cut the hint.
		return nil, refuse(binding.CodeServerUnknown, "transport", "the IOTransport has no Reader or Writer; set Reader to the server's output and Writer to its input (exec.Cmd's StdoutPipe and StdinPipe); nothing is connected")
	}
	srv := &Server{limits: d.opts, d: d, ended: make(chan struct{}), noticed: make(chan struct{}, 1), reading: make(chan struct{}, 1)}
	markChanged := func() {
		srv.mu.Lock()
		srv.changes++
		srv.mu.Unlock()
		select {
		case srv.noticed <- struct{}{}:
		default:
		}
	}
	client := mcp.NewClient(d.opts.Client, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { markChanged() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { markChanged() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { markChanged() },
	})
	if _, streamable := t.(*mcp.StreamableClientTransport); !streamable {
		srv.tap = newTap()
		t = tapTransport{t, srv.tap}
	}
	cs, err := client.Connect(ctx, t, opts)
	if err != nil {
		return nil, refuse(binding.CodeServerUnknown, "server",
			"the connection or its initialize failed, so the server has no identity to bind: %s; connect again", automium.ClientValue(err.Error()))
	}
	srv.session = cs
	init := cs.InitializeResult()
	if init == nil || init.ServerInfo == nil || init.ServerInfo.Name == "" || init.ServerInfo.Version == "" {
		cs.Close()
		return nil, refuse(binding.CodeServerUnknown, "serverInfo", "the server reported no name and version; an unidentified server cannot be bound")
	}
	srv.identity = binding.ServerIdentity{Name: init.ServerInfo.Name, Version: init.ServerInfo.Version}
	if err := binding.CheckIdentity(srv.identity); err != nil {
		cs.Close()
		return nil, err
	}
	if err := srv.refresh(ctx); err != nil {
		cs.Close()
		var aerr *automium.Error
		if errors.As(err, &aerr) {
			return nil, err // an invalid catalog, with its path
		}
		return nil, refuse(binding.CodeCatalogStale, "server",
			"the catalog of server %s could not be read after initialize: %s; nothing is connected", automium.ClientValue(srv.identity.String()), reason(err))
	}
	d.mu.Lock()
	for _, other := range d.servers {
		// Identities that differ only in case are refused too: a plan's
		// reviewer would not tell them apart.
		if strings.EqualFold(other.identity.Name, srv.identity.Name) && strings.EqualFold(other.identity.Version, srv.identity.Version) {
			d.mu.Unlock()
			cs.Close()
			return nil, refuse(binding.CodeServerAmbiguous, "serverInfo",
				"already connected to a server that reports %s; calls could not be routed to exactly one", automium.ClientValue(srv.identity.String()))
		}
	}
	d.servers = append(d.servers, srv)
	d.mu.Unlock()
	// A session the server (or the transport) ends is noticed here, so a dead
	// session is never routed to and its identity can connect again.
	go func() { _ = cs.Wait(); srv.markClosed() }()
	return srv, nil
}

// misuse refuses, with code, a dispatcher not made by [New] or a nil
// context: either would otherwise panic or fail with a message that does
// not say how to fix it. outcome says what did not happen.
func (d *Dispatcher) misuse(code automium.Code, outcome echo.Message, ctx context.Context) error {
	if d == nil || d.opts.Client == nil {
		return refuse(code, "dispatcher", "the dispatcher is nil or was not made by dispatch.New; make it with dispatch.New(broker, opts); %s", outcome)
	}
	if ctx == nil {
		return refuse(code, "ctx", "the context is nil; pass context.Background() or a context with a deadline; %s", outcome)
	}
	return nil
}

// isNilPointer reports whether v holds a nil pointer, such as a nil
// *mcp.CommandTransport, which go-sdk would dereference.
func isNilPointer(v any) bool {
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

func (d *Dispatcher) remove(s *Server) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.servers = slices.DeleteFunc(d.servers, func(o *Server) bool { return o == s })
}

// refresh reads the catalog again and recomputes its digest. The catalog
// becomes current only if no change was announced while it was being read.
//
// Only one re-read runs at a time, and a dispatch never waits for another's:
// that one is bounded by its own caller's context, not this caller's, so
// waiting could outlast this caller's deadline. A dispatch that finds a
// re-read in progress is refused instead (errReadPending).
func (s *Server) refresh(ctx context.Context) error {
	select {
	case s.reading <- struct{}{}:
	default:
		return errReadPending
	}
	defer func() { <-s.reading }()
	_, err := s.read(ctx)
	return err
}

// read reads the catalog and computes its digest; s.reading is held. The
// catalog becomes current only if no change was announced while it was being
// read; it returns the value of the change counter the read started at.
func (s *Server) read(ctx context.Context) (uint64, error) {
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, verifyDeadlineKey{}, verifyDeadline{s.limits.VerifyTimeout}), s.limits.VerifyTimeout)
	defer cancel()
	s.mu.Lock()
	at, prevDigest := s.changes, s.digest
	s.mu.Unlock()
	if s.rec != nil && prevDigest != "" {
		// The catalog of prevDigest was recorded as it was read: an
		// answer byte-identical to its recording proves it again.
		switch err := s.tap.replay(ctx, s.rec); {
		case err == nil:
			s.mu.Lock()
			defer s.mu.Unlock()
			s.readAt, s.readErr = at, nil
			s.replayed++
			return at, nil
		case !errors.Is(err, errReplayDiffers):
			s.mu.Lock()
			defer s.mu.Unlock()
			s.readErr = err
			return at, err
		}
		// An answer differs: read the catalog in full.
	}
	var rec *recording
	if s.tap != nil {
		rec = s.tap.record(s.limits.MaxCatalogBytes)
		ctx = context.WithValue(ctx, recordingKey{}, rec)
	}
	c, err := listCatalog(ctx, s.session, s.limits)
	if rec != nil {
		rec = s.tap.stop(rec)
	}
	s.mu.Lock()
	prev := s.catalog
	s.mu.Unlock()
	var digest string
	same := err == nil && prevDigest != "" && sameCatalog(c, prev)
	switch {
	case same:
		// Byte for byte the catalog whose digest was computed: the
		// digest is a function of these bytes, so it is that digest.
		digest = prevDigest
	case err == nil:
		digest, err = c.DigestV2()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.rec = nil
		s.readErr = err
		return at, err
	}
	s.rec = rec
	if !same {
		s.schemas = nil
	}
	s.catalog, s.digest, s.readAt, s.readErr = c, digest, at, nil
	return at, nil
}

// sameCatalog reports whether a and b hold the same protocol version and the
// same items, byte for byte, in the same order.
func sameCatalog(a, b binding.Catalog) bool {
	if a.ProtocolVersion != b.ProtocolVersion {
		return false
	}
	for _, l := range [][2][]json.RawMessage{{a.Tools, b.Tools}, {a.Resources, b.Resources}, {a.ResourceTemplates, b.ResourceTemplates}, {a.Prompts, b.Prompts}} {
		if !slices.EqualFunc(l[0], l[1], func(x, y json.RawMessage) bool { return string(x) == string(y) }) {
			return false
		}
	}
	return true
}

// inputSchema returns the input schema that c, whose digest is digest, gives
// tool, from the server's lookup table when it was built for that digest (a
// digest pins every schema whole), building it once per digest.
func (s *Server) inputSchema(c binding.Catalog, digest, tool string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.digest != digest {
		// Read again since, with another digest: the broker checks digest,
		// so the schema comes from c, for this call alone.
		schema, _ := c.InputSchema(tool)
		return schema
	}
	if s.schemas == nil {
		s.schemas = s.catalog.InputSchemas()
	}
	return s.schemas[tool]
}

// verify reads the catalog afresh for one dispatch and returns it, its digest
// and the change counter the read started at. A read that fails or is cut by
// a bound is a refusal; one overtaken by a list_changed is refused by
// Dispatch, which compares the counter with at.
func (s *Server) verify(ctx context.Context) (binding.Catalog, string, uint64, error) {
	wait, cancel := context.WithTimeout(ctx, s.limits.VerifyTimeout)
	defer cancel()
	select {
	case s.reading <- struct{}{}:
	case <-wait.Done():
		return binding.Catalog{}, "", 0, s.staleError(echo.Msg("another dispatch's read of it did not end in time (%v)", wait.Err()))
	}
	defer func() { <-s.reading }()
	at, err := s.read(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return binding.Catalog{}, "", 0, closedError(s)
	case err != nil:
		return binding.Catalog{}, "", 0, s.staleError(echo.Msg("it could not be read again to verify it before the call: %s", reason(err)))
	}
	// A change announced during the read is caught by Dispatch's check of
	// the counter at, just before the broker: one check for both windows.
	return s.catalog, s.digest, at, nil
}

// reason is a failed read's error as a message argument: a bound of the
// dispatcher's whole (its name and figure), any other error (a transport's,
// a server's) as a value, cut.
func reason(err error) any {
	var b boundError
	if errors.As(err, &b) {
		return b.msg
	}
	var aerr *automium.Error
	if errors.As(err, &aerr) {
		return aerr.Message
	}
	return automium.ClientValue(err.Error())
}

// staleError is the refusal of a dispatch whose live catalog is not known.
func (s *Server) staleError(why echo.Message) error {
	return refuse(binding.CodeCatalogStale, "server",
		"the catalog of server %s is not verified: %s; nothing was dispatched and the grant is unused; dispatch again once the catalog can be read",
		automium.ClientValue(s.identity.String()), why)
}

// unchangedSince reports whether no list_changed arrived since the read
// whose counter was at.
func (s *Server) unchangedSince(at uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed && s.changes == at
}

// live returns the server's current catalog and digest as the last read left
// them, for [Options.TrustNotifications]. A stale catalog is read again first;
// if it is still stale after that, the dispatch is refused.
func (s *Server) live(ctx context.Context) (binding.Catalog, string, uint64, error) {
	var err error
	if s.Stale() {
		err = s.refresh(ctx) // the state is read below, with any change that raced it
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return binding.Catalog{}, "", 0, closedError(s)
	}
	if s.changes != s.readAt {
		why := echo.Msg("it changed again while it was being read")
		switch {
		case errors.Is(err, errReadPending):
			why = echo.Msg("another dispatch is reading it again now")
		case s.readErr != nil:
			why = echo.Msg("the re-read failed: %s", reason(s.readErr))
		}
		return binding.Catalog{}, "", 0, refuse(binding.CodeCatalogStale, "server",
			"server %s announced a catalog change and %s; nothing was dispatched and the grant is unused; dispatch again once the catalog can be read",
			automium.ClientValue(s.identity.String()), why)
	}
	return s.catalog, s.digest, s.readAt, nil
}

// refuse is the error of a refused dispatch, about the top-level field name
// of the dispatch (the server, the call, the context), made by the root's one
// renderer as binding's refusals are: every client value among args is an
// [automium.ClientValue] or an echo.Message whose values are.
func refuse(code automium.Code, name, format string, args ...any) *automium.Error {
	return automium.NewProblem(code, automium.PathOf(name), nil, format, args...).Err()
}

// errReadPending: another dispatch's re-read of the catalog is in progress.
var errReadPending = errors.New("dispatch: a catalog re-read is in progress")

// closedError is the refusal for a server whose session ended. s.mu is held.
func closedError(s *Server) error {
	return refuse(binding.CodeServerUnknown, "server",
		"the session with server %s has ended; nothing was dispatched and the grant is unused; connect the server again", automium.ClientValue(s.identity.String()))
}

// Dispatch sends the model's choice, call, to the server it names, as
// authorized by grant, and returns the server's result. The choice must be
// exactly one of the grant's candidates (server, tool, and arguments equal in
// canonical form); nothing is sent unless the broker authorizes it against the
// grant and the live server, and what is sent is that candidate's tool and
// granted canonical arguments, never the caller's bytes.
//
// Every error is an *automium.Error whose code says whether the call was sent:
//
//   - [binding.CodeCallFailed]: the call was authorized and handed to the
//     session, which failed (a transport error, a cancelled context, the
//     server's protocol error). It may have reached the server, so its step
//     is consumed and is never retried under the same grant.
//   - any other code: nothing was sent, and this attempt consumed nothing
//     ([binding.CodeGrantConsumed] means an earlier attempt did), except that
//     a [binding.CodeStateUnavailable] from a failed step-store write may
//     have recorded the step.
//
// A result with isError is a call that reached the server and failed; its step
// is consumed too.
func (d *Dispatcher) Dispatch(ctx context.Context, grant binding.Grant, call binding.Call) (*mcp.CallToolResult, error) {
	if err := d.misuse(binding.CodeNotDispatched, echo.Msg("nothing was dispatched and the grant is unused"), ctx); err != nil {
		return nil, err
	}
	if d.broker == nil {
		return nil, refuse(binding.CodeNotDispatched, "broker", "the dispatcher has no broker to authorize the call; make it with dispatch.New and a broker from binding.NewBroker; nothing was dispatched and the grant is unused")
	}
	srv := d.server(call.Server)
	if srv == nil {
		return nil, refuse(binding.CodeServerUnknown, "server",
			"no connected server reports %s; a call can only go to a server the dispatcher was given; nothing was dispatched and the grant is unused", automium.ClientValue(call.Server.String()))
	}
	var (
		catalog binding.Catalog
		digest  string
		at      uint64
		err     error
	)
	if d.opts.TrustNotifications {
		catalog, digest, at, err = srv.live(ctx)
	} else if err = ctx.Err(); err != nil {
		return nil, refuse(binding.CodeNotDispatched, "ctx",
			"the context ended before the call was sent (%v); nothing was dispatched and the grant is unused", err)
	} else {
		catalog, digest, at, err = srv.verify(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, refuse(binding.CodeNotDispatched, "ctx",
			"the context ended before the call was sent (%v); nothing was dispatched and the grant is unused", err)
	}
	if !srv.unchangedSince(at) {
		// A notification (or the session's end) arrived after the read: the
		// digest may be old. Checked before the broker consumes the step.
		return nil, srv.staleError(echo.Msg("it announced a change while or after its catalog was read"))
	}
	schema := srv.inputSchema(catalog, digest, call.Tool)
	auth, err := d.broker.Authorize(grant, binding.LiveCall{
		Server: srv.identity, CatalogDigest: digest, InputSchema: schema, Tool: call.Tool, Arguments: call.Arguments,
	})
	if err != nil {
		return nil, err
	}
	// The chosen candidate's server is srv: the broker matched it to the
	// identity srv reported. What goes out is the candidate, not the call.
	chosen := auth.Candidate
	res, err := srv.session.CallTool(ctx, &mcp.CallToolParams{Name: chosen.Tool, Arguments: json.RawMessage(chosen.Arguments)})
	if err != nil {
		return nil, refuse(binding.CodeCallFailed, "call",
			"the call to %s on %s was handed to the session and failed, so it may have reached the server: %s; its step is consumed and is not retried under this grant",
			automium.ClientValue(chosen.Tool), automium.ClientValue(srv.identity.String()), automium.ClientValue(err.Error()))
	}
	return res, nil
}

func (d *Dispatcher) server(id binding.ServerIdentity) *Server {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.servers {
		if s.identity == id {
			return s
		}
	}
	return nil
}

// ListCatalog reads a session's catalog: every page of tools/list,
// resources/list, resources/templates/list and prompts/list the server's
// capabilities announce, each item as JSON, with the negotiated protocol
// version. It stops with an error past maxItems items or maxPages pages per
// list, or 4 MiB of items in all. The lists are asked for at once, tools
// last.
//
// Every answer is read from the server, never from go-sdk's list cache
// (SEP-2549, protocol 2026-07-28 and later): ListCatalog sets each answer's
// ttlMs to 0 as it reads it, which go-sdk's cache takes as expired, so the
// next list goes to the server. Do not list on the same session from another
// goroutine while ListCatalog runs.
func ListCatalog(ctx context.Context, cs *mcp.ClientSession, maxItems, maxPages int) (binding.Catalog, error) {
	return listCatalog(ctx, cs, Options{MaxCatalogItems: maxItems, MaxCatalogPages: maxPages, MaxCatalogBytes: 4 << 20})
}

// boundError is a read cut by one of the dispatcher's own bounds: its text is
// this package's words and figures, so a refusal shows it whole.
type boundError struct{ msg string }

func (e boundError) Error() string { return e.msg }

// pageHook, when set (by a test), runs before each page is asked for, with
// the context the page is read under.
var pageHook func(ctx context.Context, method string)

// listCatalog asks for the four lists at once, tools last, so that the read
// takes one round trip per page of the longest list rather than the sum of
// all, and the tools (whose schemas the call is checked against) are the
// last answers read. The byte budget is one for all four lists.
func listCatalog(ctx context.Context, cs *mcp.ClientSession, o Options) (binding.Catalog, error) {
	maxItems, maxPages := o.MaxCatalogItems, o.MaxCatalogPages
	var budget atomic.Int64
	budget.Store(int64(o.MaxCatalogBytes))
	b := &byteBudget{left: &budget, total: o.MaxCatalogBytes}
	init := cs.InitializeResult()
	if init == nil {
		return binding.Catalog{}, fmt.Errorf("dispatch: the session is not initialized")
	}
	c := binding.Catalog{ProtocolVersion: init.ProtocolVersion}
	caps := init.Capabilities
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	var wg sync.WaitGroup
	var errs [4]error
	if caps.Resources != nil {
		wg.Go(func() {
			c.Resources, errs[1] = pages(ctx, "resources/list", maxItems, maxPages, b, func(cursor string) ([]*mcp.Resource, string, error) {
				r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
				if err != nil {
					return nil, "", err
				}
				r.TTLMs = 0
				return r.Resources, r.NextCursor, nil
			})
		})
		wg.Go(func() {
			c.ResourceTemplates, errs[2] = pages(ctx, "resources/templates/list", maxItems, maxPages, b, func(cursor string) ([]*mcp.ResourceTemplate, string, error) {
				r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
				if err != nil {
					return nil, "", err
				}
				r.TTLMs = 0
				return r.ResourceTemplates, r.NextCursor, nil
			})
		})
	}
	if caps.Prompts != nil {
		wg.Go(func() {
			c.Prompts, errs[3] = pages(ctx, "prompts/list", maxItems, maxPages, b, func(cursor string) ([]*mcp.Prompt, string, error) {
				r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
				if err != nil {
					return nil, "", err
				}
				r.TTLMs = 0
				return r.Prompts, r.NextCursor, nil
			})
		})
	}
	if caps.Tools != nil {
		c.Tools, errs[0] = pages(ctx, "tools/list", maxItems, maxPages, b, func(cursor string) ([]*mcp.Tool, string, error) {
			r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			r.TTLMs = 0
			return r.Tools, r.NextCursor, nil
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// byteBudget is the bytes left of one read's MaxCatalogBytes, shared by the
// lists read at once.
type byteBudget struct {
	left  *atomic.Int64
	total int
}

// pages reads every page of one list, as JSON items.
func pages[T any](ctx context.Context, method string, maxItems, maxPages int, budget *byteBudget, page func(cursor string) ([]T, string, error)) ([]json.RawMessage, error) {
	var items []json.RawMessage
	cursor := ""
	for n := 0; ; n++ {
		if n == maxPages {
			return nil, boundError{fmt.Sprintf("%s has more than %d pages (MaxCatalogPages)", method, maxPages)}
		}
		if err := ctx.Err(); err != nil {
			return nil, readError(ctx, method, err)
		}
		if pageHook != nil {
			pageHook(ctx, method)
		}
		counted(ctx, method)
		got, next, err := page(cursor)
		if err != nil {
			return nil, readError(ctx, method, err)
		}
		for _, it := range got {
			if len(items) == maxItems {
				return nil, boundError{fmt.Sprintf("%s has more than %d items (MaxCatalogItems)", method, maxItems)}
			}
			raw, err := json.Marshal(it)
			if err != nil {
				return nil, fmt.Errorf("dispatch: %s: %w", method, err)
			}
			if budget.left.Add(-int64(len(raw))) < 0 {
				return nil, boundError{fmt.Sprintf("the catalog's lists together are larger than %d bytes (MaxCatalogBytes), passed in %s", budget.total, method)}
			}
			items = append(items, raw)
		}
		if next == "" {
			return items, nil
		}
		cursor = next
	}
}

// readError is a failed page: a bound of the dispatcher's when the read's
// own deadline (VerifyTimeout) passed, the session's error otherwise.
func readError(ctx context.Context, method string, err error) error {
	if deadline, ok := ctx.Value(verifyDeadlineKey{}).(verifyDeadline); ok && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return boundError{fmt.Sprintf("%s was not read within %v (VerifyTimeout)", method, deadline.timeout)}
	}
	return fmt.Errorf("dispatch: %s: %w", method, err)
}

// verifyDeadline marks a read's context with the VerifyTimeout it runs under.
type (
	verifyDeadlineKey struct{}
	verifyDeadline    struct{ timeout time.Duration }
)
