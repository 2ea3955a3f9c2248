package transport

import (
	"bytes"
	streamlist "container/list"
	"context"
	"errors"
	"iter"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Costs the event store charges besides the bytes of the messages it keeps,
// so that its bound covers what it holds, not only the messages: a stream
// (one per POST answered as an event stream, plus a session's GET stream)
// costs its record, map entries and list element, an event its slice header.
// They round up what a 64-bit Go runtime allocates.
const (
	eventStoreStreamCost = 256
	eventStoreEventCost  = 32
)

// errEventsNotRetained is what the event store says of a stream it does not
// hold (never opened, forgotten to stay within its bound, or of a closed
// session). It names no session or stream: go-sdk answers a resumption it
// cannot replay with its own fixed 400 text and does not log the error, but
// an error that echoed a client's Last-Event-ID would be one header long.
var errEventsNotRetained = errors.New("transport: the event stream is no longer retained")

// eventStore is the mcp.EventStore behind [HTTPOptions].EventStoreMaxBytes: it
// keeps, in memory, the messages of the session streams go-sdk writes as
// server-sent events, so that a client that lost a stream can resume it with
// Last-Event-ID and get what it missed.
//
// What it keeps is what the client would have read on the stream: go-sdk
// stores a message before it writes it, and the handler's rpcWriter renders
// the errors among them only as they are written, so the store renders them
// the same way, with the method of the call whose stream it is (go-sdk opens
// a POST's stream with the request's context, which carries it: see
// [withCallMethod]). A resumed stream thus replays the errors stdio would
// write, never go-sdk's own.
//
// It is go-sdk's MemoryEventStore with two differences that keep it bounded:
// the bound counts what each stream and event costs besides its bytes, and it
// holds after every Append (go-sdk's purges before appending, so one message
// can go over it). Beyond the bound, it forgets the oldest streams whole,
// whichever session they belong to. Forgetting a stream whole keeps go-sdk's
// event numbering right: a stream is numbered from its start, and a stream
// the store no longer knows refuses both Append (the message is still
// delivered live, only not kept) and After (go-sdk answers the resumption
// with 400), so a replay never starts at the wrong event.
type eventStore struct {
	mu       sync.Mutex
	maxBytes int64
	used     int64
	sessions map[string]map[string]*retainedStream // session ID -> stream ID -> stream
	order    streamlist.List                       // of *retainedStream, oldest first
}

type retainedStream struct {
	session, id string
	method      string   // the call the stream answers, "" when unknown
	data        [][]byte // the stream's events from its first, index = event number
	cost        int64
	elem        *streamlist.Element
}

var _ mcp.EventStore = (*eventStore)(nil)

func newEventStore(maxBytes int64) *eventStore {
	return &eventStore{maxBytes: maxBytes, sessions: map[string]map[string]*retainedStream{}}
}

// Open implements mcp.EventStore: go-sdk opens each stream once, when it
// creates it.
func (s *eventStore) Open(ctx context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	streams := s.sessions[sessionID]
	if streams == nil {
		streams = map[string]*retainedStream{}
		s.sessions[sessionID] = streams
	}
	if streams[streamID] != nil {
		return nil
	}
	method, _ := ctx.Value(callMethodKey{}).(string)
	st := &retainedStream{session: sessionID, id: streamID, method: method,
		cost: eventStoreStreamCost + int64(len(sessionID)+len(streamID)+len(method))}
	st.elem = s.order.PushBack(st)
	streams[streamID] = st
	s.used += st.cost
	s.trim()
	return nil
}

// methodOf is the method of the call a stream answers, "" when the store
// does not hold the stream.
func (s *eventStore) methodOf(sessionID, streamID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.sessions[sessionID][streamID]; st != nil {
		return st.method
	}
	return ""
}

// Append implements mcp.EventStore. It keeps a copy of data, an error
// rendered as the client reads it live: go-sdk does not promise not to reuse
// the slice.
func (s *eventStore) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[sessionID][streamID]
	if st == nil {
		return errEventsNotRetained
	}
	var kept []byte
	switch {
	case isErrorResponse(data):
		// render returns data itself unless it renders an error.
		kept = bytes.Clone((&rpcWriter{method: st.method}).render(data))
	case len(data) > 0:
		kept = bytes.Clone(data)
	}
	st.data = append(st.data, kept)
	cost := eventStoreEventCost + int64(len(kept))
	st.cost += cost
	s.used += cost
	s.trim()
	return nil
}

// After implements mcp.EventStore: the events of the stream after index, or
// an error when the store does not hold the stream.
func (s *eventStore) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	s.mu.Lock()
	var events [][]byte
	st := s.sessions[sessionID][streamID]
	if st != nil && index+1 < len(st.data) {
		events = append(events, st.data[index+1:]...)
	}
	s.mu.Unlock()
	return func(yield func([]byte, error) bool) {
		if st == nil {
			yield(nil, errEventsNotRetained)
			return
		}
		for _, data := range events {
			if !yield(data, nil) {
				return
			}
		}
	}
}

// SessionClosed implements mcp.EventStore: a closed session's streams are
// forgotten at once.
func (s *eventStore) SessionClosed(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.sessions[sessionID] {
		s.forget(st)
	}
	return nil
}

// retained reports the bytes the store charges itself for, for tests.
func (s *eventStore) retained() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}

// trim forgets the oldest streams until the store is within its bound. s.mu
// is held.
func (s *eventStore) trim() {
	for s.used > s.maxBytes {
		oldest := s.order.Front()
		if oldest == nil {
			return
		}
		s.forget(oldest.Value.(*retainedStream))
	}
}

// forget drops one stream. s.mu is held.
func (s *eventStore) forget(st *retainedStream) {
	s.order.Remove(st.elem)
	s.used -= st.cost
	streams := s.sessions[st.session]
	delete(streams, st.id)
	if len(streams) == 0 {
		delete(s.sessions, st.session)
	}
}

// callMethodKey is the context key under which the HTTP handler passes the
// JSON-RPC method of a POST (the door's view of it) to go-sdk, which hands
// the request's context to the event store when it opens the POST's stream.
type callMethodKey struct{}

// withCallMethod returns ctx carrying method for the event store.
func withCallMethod(ctx context.Context, method string) context.Context {
	return context.WithValue(ctx, callMethodKey{}, method)
}
