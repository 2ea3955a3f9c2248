// Package session is the one record of an MCP session that both Automium
// transports keep, stdio for its one session and HTTP for each of its many:
// the protocol the session speaks (its pin), its ordered initialize, the ids
// of its calls in flight and whether each was cancelled, what those calls hold
// (their number and bytes) and what go-sdk keeps of the session for its life
// (retained bytes). A transport parses with the envelope door, asks the record
// and writes what it decides, so that both transports answer alike because
// the same code decides, not because a test checks each.
//
// What stays each transport's own is its flow-control policy: the record says
// a call does not fit, and stdio waits for a place while HTTP answers 503.
//
// A [Table] holds the records of one transport under one mutex, with the
// global retained budget and the session cap, and chooses which idle
// sessions to close, least recently used first, when a new one does not fit
// by count or by bytes. Stdio's table holds its one session.
package session

import (
	"encoding/json"
	"encoding/json/jsontext"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/mcpserver/transport/internal/envelope"
)

// SessionlessFrom is the first protocol version that go-sdk v1.8.0 serves
// without a session when a call names it (SEP-2575). go-sdk compares versions
// as strings, and so does the pin.
const SessionlessFrom = "2026-07-28"

// The kinds of protocol a session speaks; a session's pin is Undecided until
// its first deciding call.
const (
	Undecided   = ""
	Handshake   = "handshake"   // begun by initialize (2025-06-18, 2025-11-25)
	Sessionless = "sessionless" // every call names its version in _meta (2026-07-28)
)

// Pin is the protocol a session has settled on.
type Pin struct {
	Kind    string
	Version string // the sessionless version of a Sessionless session
}

// Refusal texts of the pin (without the "Invalid Request: " prefix), the same
// on both transports.
const (
	// InitializeAgainReason refuses an initialize in a session that has one:
	// go-sdk v1.8.0 would refuse it with a plain error (code 0) and log it.
	InitializeAgainReason = `"initialize" was sent again; this session is initialized already: to initialize again, start a new session`
	// DuplicateIDReason refuses a call that reuses the id of one in flight:
	// go-sdk would answer it without any id, quoting the id whole.
	DuplicateIDReason = "id is already used by a request in flight"
)

// Admit applies the one-protocol rule to a call of method that names version
// (params._meta's protocol version, or over HTTP its header's): it returns the
// session's pin once the call is served, or why it must be refused.
//
//   - The first initialize, or the first call naming a supported sessionless
//     version, fixes the pin.
//   - A Handshake session refuses a sessionless call and a second initialize.
//   - A Sessionless session refuses initialize, a call without the version and
//     a call with another one; a plain ping is served in either kind.
//   - An Undecided session refuses what go-sdk would refuse as premature
//     (anything but ping, logging/setLevel, resources/(un)subscribe,
//     server/discover), so that go-sdk does not log its method, uncut.
//   - A sessionless version go-sdk does not support decides nothing: go-sdk
//     answers it with the versions it supports, whatever the session.
func (p Pin) Admit(method, version string) (Pin, string) {
	if version < SessionlessFrom {
		version = ""
	}
	switch {
	case version != "" && !slices.Contains(mcp.SupportedProtocolVersions(), version):
		return p, ""
	case version != "" && p.Kind == Undecided:
		return Pin{Kind: Sessionless, Version: version}, ""
	case version != "" && p.Kind == Handshake:
		return p, "this session began with initialize; a call carrying protocol version " + echo.Quote(version) +
			" in _meta belongs to a sessionless session: start a new one"
	case version != "" && version != p.Version:
		return p, "this session speaks protocol " + p.Version + "; a call carrying protocol version " + echo.Quote(version) +
			" in _meta belongs to another session"
	case version != "":
		return p, ""
	case method == "initialize" && p.Kind == Undecided:
		return Pin{Kind: Handshake}, ""
	case method == "initialize" && p.Kind == Handshake:
		return p, InitializeAgainReason
	case p.Kind == Undecided && !envelope.AllowedBeforeInitialize(method):
		return p, echo.Quote(method) + " was sent before initialize; send initialize first"
	case method == "ping" || p.Kind != Sessionless:
		return p, ""
	case method == "initialize":
		return p, "this session speaks the sessionless protocol " + p.Version + ", which has no initialize"
	default:
		return p, "this session speaks the sessionless protocol " + p.Version +
			"; every call must carry " + mcp.MetaKeyProtocolVersion + " in params._meta"
	}
}

// AnswerBound is what a transport charges a call's answer at admission:
// the most bytes the answer of method (naming the tool, prompt or resource
// name, "" if none) can have, for a request of requestBytes. A server that
// knows its answers gives it (mcpserver.AnswerBound); a transport without
// one charges an answer only once it is encoded.
type AnswerBound func(method, name string, requestBytes int64) int64

// Limits bound what a session's requests hold at once. A request alone is
// always admitted.
type Limits struct {
	MaxCalls int   // requests holding a place; 0 means no bound by number
	MaxBytes int64 // their summed sizes, and the answers being written
	// MaxUnplaced bounds the requests that take no place (Request.Unplaced).
	MaxUnplaced int
}

// Request is a message a transport asks the record to admit.
type Request struct {
	Method  string
	Version string     // the sessionless version it names, if any
	ID      jsonrpc.ID // a call's id, as go-sdk compares ids
	IsCall  bool       // a call: its id is kept while it is in flight
	Size    int64      // the bytes it holds while in flight
	// Answer is the bound of the call's answer (see AnswerBound), charged
	// with Size from admission, so that calls whose answers could not fit
	// wait before they are served rather than after they are encoded.
	Answer int64
	// Unplaced takes no place and no bytes (stdio's subscriptions/listen,
	// which lasts as long as the session); it is counted apart.
	Unplaced bool
	// Own is the transport's own call (stdio's barrier ping, one at a
	// time): it takes no place, no bytes and no unplaced slot, so that it
	// never waits for a place that only the client can free (a handler
	// awaiting the client's answer holds its place until the answer passes).
	Own bool
	// Keeps is what go-sdk keeps of the session once the request is served
	// (initialize's params): the session's retained bytes.
	Keeps int64
}

// Call is a request the record admitted and that has not yet been released.
type Call struct {
	Method    string
	id        jsonrpc.ID
	isCall    bool
	size      int64 // its bytes and its answer's bound, then more if its answer is larger
	reserved  int64 // what of size was charged for the answer at admission
	place     bool
	own       bool // the transport's own call: counted nowhere
	ordered   bool // initialize: go-sdk handles nothing else until it is answered
	cancelled bool // cancelled in flight: nothing of its answer is written
}

// Entry is what the record decided of a request: exactly one field is set.
type Entry struct {
	Call    *Call           // admitted: release it once answered
	Refusal string          // refused with -32600 and this reason
	Busy    bool            // over the Limits: wait for Changed, or answer 503
	Wait    <-chan struct{} // an initialize is with go-sdk: ask again once closed
}

// Record is one session's bookkeeping, under its table's mutex.
type Record struct {
	t        *Table
	limits   Limits
	pin      Pin
	pending  map[jsonrpc.ID]*Call
	places   int   // admitted requests holding a place
	bytes    int64 // what they hold
	unplaced int   // admitted requests holding none
	ordered  int   // initialize calls with go-sdk
	retained int64 // what go-sdk keeps of the session
	last     uint64
	failed   error // the first failed write: nothing more can be delivered
	// initialized is set by the session's first notifications/initialized.
	initialized bool
	changed     chan struct{}
}

// Enter admits a request, or says why not. Checked in this order: an
// initialize in flight (Wait), a duplicate id, the pin, the Limits (Busy; past
// MaxUnplaced, a refusal). A refused or busy request changes nothing; an
// admitted one fixes the pin, and an initialize orders the session until it
// is released.
func (r *Record) Enter(q Request) Entry {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if r.ordered > 0 {
		return Entry{Wait: r.changed}
	}
	if _, dup := r.pending[q.ID]; dup && q.IsCall {
		return Entry{Refusal: DuplicateIDReason}
	}
	pin := r.pin
	if q.IsCall {
		var why string
		if pin, why = r.pin.Admit(q.Method, q.Version); why != "" {
			return Entry{Refusal: why}
		}
	}
	if q.Own {
		c := &Call{Method: q.Method, id: q.ID, isCall: true, own: true}
		r.pending[q.ID] = c
		return Entry{Call: c}
	}
	if q.Unplaced && r.unplaced >= r.limits.MaxUnplaced {
		return Entry{Refusal: strconv.Itoa(r.limits.MaxUnplaced) + " " + q.Method + " calls are already open"}
	}
	if !q.Unplaced && r.places > 0 && ((r.limits.MaxCalls > 0 && r.places >= r.limits.MaxCalls) || r.bytes+q.Size+q.Answer > r.limits.MaxBytes) {
		return Entry{Busy: true}
	}
	c := &Call{Method: q.Method, id: q.ID, isCall: q.IsCall, size: q.Size + q.Answer, reserved: q.Answer, place: !q.Unplaced, ordered: q.IsCall && q.Method == "initialize"}
	r.pin = pin
	r.t.clock++
	r.last = r.t.clock
	if c.isCall {
		r.pending[q.ID] = c
	}
	if c.place {
		r.places++
		r.bytes += c.size
	} else {
		r.unplaced++
	}
	if c.ordered {
		r.ordered++
		r.t.retained += q.Keeps - r.retained
		r.retained = q.Keeps
	}
	return Entry{Call: c}
}

// Notify reports whether go-sdk should see a notification of the session.
//
// A notifications/cancelled passes only when it names a call in flight, which
// it marks, or names it in a way go-sdk refuses anyway. One that names no call
// in flight is dropped, as MCP allows: go-sdk acts on it in a goroutine of its
// own, so one sent just before its call or just after its answer would cancel
// a later call that reuses the id. The id is read as go-sdk v1.8.0 reads a
// cancellation's requestId: decoded into an any, so a number is a float64,
// truncated to an integer (1.0, 1e0 and 1.5 all name the call with id 1).
//
// A notification carrying the sessionless protocol's version in _meta
// belongs to no session begun by initialize and is dropped there, as the pin
// refuses such a call: over HTTP it never reaches such a session (its headers
// route it away), and over stdio a cancellation so carried cancelled a call.
//
// A notifications/initialized passes once in a session begun by initialize:
// go-sdk logs every later one at ERROR, with no session to rate-limit it by,
// and does nothing else with it. Before that (in an undecided session) each
// passes, so that the one after initialize still reaches go-sdk.
func (r *Record) Notify(view *envelope.Message) bool {
	if view.ProtocolVersion >= SessionlessFrom && r.Pin().Kind == Handshake {
		return false
	}
	if view.Method == "notifications/initialized" {
		r.t.mu.Lock()
		defer r.t.mu.Unlock()
		if r.pin.Kind != Handshake {
			return true
		}
		first := !r.initialized
		r.initialized = true
		return first
	}
	if view.Method != "notifications/cancelled" {
		return true
	}
	id, ok := cancelledID(view.CancelledID)
	if !ok {
		return true
	}
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	c := r.pending[id]
	if c != nil {
		c.cancelled = true
	}
	return c != nil
}

// cancelledID is the id go-sdk reads from a cancellation's requestId, and
// false when it reads none (it then refuses the cancellation itself).
func cancelledID(raw jsontext.Value) (jsonrpc.ID, bool) {
	var v any // MakeID takes a float64 or a string; anything else is an error or no id
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil && id.IsValid()
}

// Cancelled reports whether the client cancelled c while it was in flight:
// then nothing of its answer is written, whatever its handler returned.
func (r *Record) Cancelled(c *Call) bool {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	return c.cancelled
}

// Answered forgets the id of the call go-sdk answers, before the answer's
// bytes go out (the client may reuse the id as soon as it reads them), and
// returns the call, nil if none is in flight with that id. An initialize go-sdk
// refused kept nothing: the session is unpinned and a corrected one may follow.
func (r *Record) Answered(id jsonrpc.ID, refused bool) *Call {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	c := r.pending[id]
	delete(r.pending, id)
	if c != nil && c.ordered && refused && r.pin.Kind == Handshake {
		r.pin = Pin{}
		r.t.retained -= r.retained
		r.retained = 0
	}
	return c
}

// Hold counts the n bytes of c's answer while it is written: a client that
// leaves large answers unread runs out of room sooner. What admission
// charged for the answer (Request.Answer) is counted once: only an answer
// over its bound adds the difference.
func (r *Record) Hold(c *Call, n int64) {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if c.place && n > c.reserved {
		c.size += n - c.reserved
		r.bytes += n - c.reserved
		c.reserved = n
	}
}

// Release frees what c holds once its answer is written or dropped, and
// forgets its id if Answered did not.
func (r *Record) Release(c *Call) {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if c.isCall && r.pending[c.id] == c {
		delete(r.pending, c.id)
	}
	switch {
	case c.own:
	case c.place:
		r.places--
		r.bytes -= c.size
	default:
		r.unplaced--
	}
	if c.ordered {
		r.ordered--
	}
	r.notifyLocked()
}

// Fail records the first failed write to the session's client.
func (r *Record) Fail(err error) {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if r.failed == nil {
		r.failed = err
		r.notifyLocked()
	}
}

// State is a snapshot of a record.
type State struct {
	Places  int   // admitted requests holding a place
	Ordered bool  // an initialize is with go-sdk
	Failed  error // the first failed write
	// Changed is closed at the next change after the snapshot.
	Changed <-chan struct{}
}

// State returns the record's state and the channel of its next change, read
// under one lock, so that no change is missed.
func (r *Record) State() State {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	return State{Places: r.places, Ordered: r.ordered > 0, Failed: r.failed, Changed: r.changed}
}

// Pin returns the session's pin.
func (r *Record) Pin() Pin {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	return r.pin
}

func (r *Record) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}
