package stdio

import (
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	sessions "github.com/automium/automium/mcpserver/transport/internal/session"
)

// Notifications take no place and get no answer, so nothing says when go-sdk
// is done with one, and go-sdk v1.8.0 queues what it reads without bound
// while it handles earlier messages one at a time. It handles a notification
// several times more slowly than the door reads one (decoding its params
// twice), so a flood of them, each within the door's bound, grew the queue
// without end: 20,000 notifications of 60 KiB peaked at 1.47 GiB (December 2).
//
// So the transport asks. After noteWindow notifications or noteWindowBytes of
// them, before the next one, it gives go-sdk a ping of its own, which go-sdk
// answers only once it has handled every message read before it (its handler
// queue is in order), and it passes no further notification until that answer
// comes back. The answer is the transport's: Write drops it. What go-sdk holds
// of notifications is so bounded by the window, whatever the client sends.
const (
	noteWindow      = 64
	noteWindowBytes = 1 << 20
)

// barrierPrefix starts the ids of the transport's pings. A client that sends
// the same id while one is in flight gets the duplicate-id refusal, as for any
// id in flight; the next barrier takes the next number.
const barrierPrefix = "\x00automium-stdio-barrier-"

// releaseNote tries to pass the held notification: it returns it (true) when
// the window has room, or the transport's ping (true) when the window is full
// and no ping is in flight, or false with the channel of the record's next
// change to wait for.
func (c *conn) releaseNote() (jsonrpc.Message, bool, <-chan struct{}) {
	in := *c.heldNote
	changed := c.rec.State().Changed
	if c.barrier.Load() != nil {
		return nil, false, changed // go-sdk is still handling the window
	}
	if c.notes < noteWindow && c.noteBytes+in.size <= noteWindowBytes || c.notes == 0 {
		c.heldNote = nil
		c.notes++
		c.noteBytes += in.size
		return in.msg, true, nil
	}
	for {
		c.barriers++
		id, err := jsonrpc.MakeID(barrierPrefix + strconv.Itoa(c.barriers))
		if err != nil {
			panic(err) // unreachable: a string is always an id
		}
		// It takes no place (Own): every place may be held by a handler
		// that awaits the client's answer, which waits behind the window.
		entry := c.rec.Enter(sessions.Request{Method: "ping", ID: id, IsCall: true, Own: true})
		switch {
		case entry.Refusal != "":
			continue // a client's call holds this id: take the next
		case entry.Call == nil:
			return nil, false, changed // an initialize is with go-sdk
		}
		c.barrier.Store(entry.Call)
		c.notes, c.noteBytes = 0, 0
		return &jsonrpc.Request{ID: id, Method: "ping", Params: []byte("{}")}, true, nil
	}
}
