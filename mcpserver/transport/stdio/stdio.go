// Package stdio is an MCP transport over newline-delimited JSON-RPC 2.0 on a
// byte stream, normally the process's stdin and stdout. cmd/automium-mcp serves
// on it, and a program that embeds an MCP server can too:
//
//	server := mcpserver.New(nil) // or any *mcp.Server
//	err := server.Run(ctx, &stdio.Transport{})
//
// It replaces mcp.StdioTransport from go-sdk v1.8.0, which a coding agent cannot
// rely on, and bounds what a hostile or buggy client can cost. Delete it once
// go-sdk's own transport answers malformed lines and keeps in-flight answers at
// end of input (go-sdk issue 1061), and the bounds below have a home there.
//
// # What the stock transport gets wrong
//
//   - One bad line ends the session. Invalid JSON, JSON that is not JSON-RPC, a
//     batch, or a line over the size cap makes the stock transport return an error
//     from Read, so the process exits without answering, and every request still in
//     flight is dropped with it.
//   - Closing stdin loses answers (go-sdk issue 1061). A client that writes a burst
//     of requests and then closes its end of the pipe is entitled to every response,
//     but the SDK cancels in-flight requests at end of input and refuses to write
//     their responses.
//   - Nothing limits what is read ahead: a client that floods requests and never
//     reads stdout makes the server queue answers in memory without end.
//
// # Flow control
//
// At most MaxInFlight calls (default [DefaultMaxInFlight]) whose lines total at
// most MaxInFlightBytes (default [DefaultMaxInFlightBytes]; one call is always
// admitted) are with the SDK at once. A call holds its place until its answer
// has been written, so when the client stops reading stdout, answers stop being
// written, places stop freeing up, and the transport stops reading stdin: memory
// stays bounded by those two figures and the line cap, whatever the client does.
// With AnswerBound set (cmd/automium-mcp sets mcpserver.AnswerBound), a call
// is charged its answer's bound from admission, beside its line, so a call
// whose answer could not fit waits before it is served, not after it is
// encoded; an answer larger than its charge counts for the difference once
// encoded. Without it, an answer counts once it is being written. Either way
// a client that leaves large answers unread stops the reading sooner.
//
// go-sdk handles initialize in order: it handles nothing after it until its
// answer is written, and queues, without bound, whatever it reads meanwhile.
// So while an initialize is with the SDK, the transport reads nothing at all: a
// second initialize blocked on an unread stdout holds one line, not the
// notifications a client keeps sending behind it.
// SEP-2575 subscriptions/listen calls, which last as long as the session, do not
// take a place; at most [MaxListens] may be open.
//
// Notifications take no place either, and get no answer, yet go-sdk queues
// them without bound too, and handles them more slowly than the door reads
// them. So after each window of 64 notifications or 1 MiB of them, the
// transport gives go-sdk a ping of its own and passes no further notification
// until go-sdk has answered it, that is, until it has handled everything read
// before it; the answer is dropped (barrier.go). That ping takes no place, so
// a window of notifications never waits for the answer of a call whose
// handler awaits the client. A notification's params are at
// most 64 KiB (envelope.MaxNotificationParamsBytes); a larger one is dropped at
// the door.
//
// While a call waits for a place, the notifications and responses behind it
// still pass, so a handler that awaits the client (an elicitation, its own
// cancellation) is not stuck behind it; the call after that one is not read until
// a place frees up. A server whose handlers await the client should make
// MaxInFlight larger than the number of such calls a client may keep open.
//
// At end of input, or once Stop is closed, Read reports EOF to the SDK only when
// every call it passed on has been answered. There is no clock: the backlog is
// bounded, so the wait is too, as long as handlers return (DrainTimeout bounds it
// for handlers that may not).
//
// # Line by line
//
//   - An empty or all-blank line is skipped.
//   - A line longer than MaxLineBytes (default [DefaultMaxLineBytes], 16 MiB, the
//     stock transport's limit) is discarded as it streams in, so memory stays
//     bounded. It is answered with -32600 (Invalid Request). The error carries the
//     request's id when the id appears in the line's first 4 KiB, which is where
//     the Go and Python SDKs put it; otherwise its id is null.
//   - Every other line passes the envelope door (package
//     mcpserver/transport/internal/envelope), the same parse every Automium transport uses: one
//     JSON value, valid UTF-8, at most MaxValues values (default
//     [DefaultMaxValues]) nested at most MaxDepth deep (default
//     [DefaultMaxDepth]), _meta included, no member name twice in one object
//     however escaped or cased, a JSON-RPC 2.0 message with a string or exact
//     integer id, object params and a method of at most [MaxMethodBytes]. A
//     line it refuses is answered with its error: -32700 (Parse error) and id
//     null for what is not one valid JSON value, -32600 (Invalid Request),
//     -32601 (Method not found) or -32602 (Invalid params) with the request's
//     id, wherever it sits on the line, when it is exactly known. The SDK sees
//     the door's parsed view, never the bytes: the transport builds the SDK's
//     message from it instead of decoding the line again.
//   - A batch (a JSON array; MCP removed batching in 2025-06-18) is not
//     executed: it gets one -32600 with id null, the answer HTTP gives too.
//   - A request that reuses the id of one still in flight gets -32600 with that id
//     (the SDK would send that error without any id).
//
// Messages span exactly one line, as the MCP stdio transport requires; a JSON value
// pretty-printed over several lines is several malformed lines.
//
// # One protocol per session
//
// A stdio session speaks one protocol from its first call to its end, so that
// no answer depends on what another request did: go-sdk v1.8.0 serves both
// the initialize handshake (2025-06-18, 2025-11-25) and the sessionless
// protocol (2026-07-28, SEP-2575) on one connection, and one sessionless call
// in a handshake session changes the shape of later results. The session's
// record (package mcpserver/transport/internal/session, whose Pin.Admit states the
// rule, the same over HTTP) pins the protocol at the first initialize or
// sessionless call, and refuses with -32600 a call of the other protocol, a
// second initialize and a call go-sdk would refuse as premature; a plain ping
// is answered in either kind of session; an initialize go-sdk refuses pins
// nothing. The go-sdk client speaks the
// sessionless protocol by default and the handshake when pinned to an older
// version; both work unchanged.
//
// # What clients see
//
//   - A call cancelled while in flight gets no answer at all, as MCP asks,
//     whatever its handler returns; a cancellation that names no call in
//     flight (its answer was written, or it came early) is dropped, as MCP
//     allows (session.Record.Cancel).
//   - Every error the SDK sends (for a method it does not have, params it
//     cannot decode, whose errors name Go types and quote the params whole,
//     missing params) is rendered by envelope.SDKError, as over HTTP, from
//     its code and the call's method, never its text: code 0 becomes -32603
//     (Internal error), or -32602 for initialize. An error of the server's
//     own handlers, whose data is an automium error, is sent as they made it.
//   - Every client value an error repeats (a method name, an unsupported
//     protocol version) is cut by echo.Quote, and no error message is longer
//     than [MaxErrorMessageBytes].
//
// A client that closes its end of the output pipe has gone away: the failed write
// ends the session as cleanly as end of input does.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/mcpserver/transport/internal/envelope"
	sessions "github.com/automium/automium/mcpserver/transport/internal/session"
)

// DefaultMaxLineBytes is the longest line, line ending excluded, that [Transport]
// accepts when MaxLineBytes is zero. It matches the stock stdio transport's
// mcp.DefaultMaxLineLength, so switching transports changes no client's limit.
const DefaultMaxLineBytes = 16 << 20

// DefaultMaxInFlight is how many calls may be with the SDK at once when
// MaxInFlight is zero. Handlers are CPU-bound and answer in milliseconds, so a
// few per core keep every core busy; more would only hold more memory.
const DefaultMaxInFlight = 16

// DefaultMaxInFlightBytes bounds the summed line lengths of the calls with the
// SDK, and of the answers being written, when MaxInFlightBytes is zero. A
// call's memory is a multiple of its line: a maximal compile_journey, 1.6 MB
// of arguments, peaks at about 55 MiB on its own. At 32 MiB, the budget let 16
// of them run at once and a seeded adversary drove the process to 1.1 GiB
// (December 2); at 8 MiB about five run together, which two cores cannot
// outrun anyway. A call alone is always admitted, so a line up to the line cap
// is still served.
const DefaultMaxInFlightBytes = 8 << 20

// MaxListens is how many SEP-2575 subscriptions/listen calls may be open at
// once. They last as long as the session, so they take no in-flight place, and
// this keeps their number bounded instead.
const MaxListens = 4

// MaxMethodBytes is the longest method name passed to the SDK. Every MCP method
// is a few dozen bytes; the SDK quotes a method it does not know in its error and
// in its log, so a longer one is answered here.
const MaxMethodBytes = envelope.MaxMethodBytes

// MaxErrorMessageBytes is the longest error message the transport writes; a
// longer one, which only a handler of an embedding program could produce, is cut
// with its length noted.
const MaxErrorMessageBytes = envelope.MaxErrorMessageBytes

// idSniffBytes is how much of an oversized line is kept to look for its id.
const idSniffBytes = 4 << 10

// copyBelow is the size under which a line is written in one write, with its
// newline appended to a copy; a larger one is written in two, without a copy.
const copyBelow = 64 << 10

var newline = []byte{'\n'}

// listenMethod is the SEP-2575 subscription call. It stays open until the client
// cancels it or the input ends, and its response only marks the teardown, so
// waiting for it at end of input would wait forever.
const listenMethod = "subscriptions/listen"

// Transport is an mcp.Transport over newline-delimited JSON-RPC that survives
// malformed input, bounds what it reads ahead and answers every request before
// reporting end of input; see the package documentation for the exact rules.
//
// The zero value serves os.Stdin and os.Stdout with the default limits. A Transport
// is configuration: it is not modified by Connect, and each Connect starts an
// independent connection. The connection it returns is safe for concurrent use, as
// mcp.Connection requires.
type Transport struct {
	// Reader supplies the client's messages. Nil means os.Stdin. If it is an
	// io.Closer, closing the connection closes it, which unblocks a pending read.
	Reader io.Reader

	// Writer receives the server's messages, one per line. Nil means os.Stdout. It
	// is never closed: it is usually stdout, which outlives the session.
	Writer io.Writer

	// MaxLineBytes bounds one line, "\n" or "\r\n" excluded. Zero or less means
	// DefaultMaxLineBytes, because an unbounded line would let one client message
	// exhaust memory.
	MaxLineBytes int

	// MaxValues and MaxDepth bound the structure of one message. Zero or less
	// means DefaultMaxValues and DefaultMaxDepth.
	MaxValues, MaxDepth int

	// MaxInFlight and MaxInFlightBytes bound the calls with the SDK at once, by
	// number and by the summed length of their lines. Zero or less means
	// DefaultMaxInFlight and DefaultMaxInFlightBytes.
	MaxInFlight, MaxInFlightBytes int

	// AnswerBound, when set, charges each call the bound of its answer from
	// admission, within MaxInFlightBytes: a call whose answer could not fit
	// beside those in flight waits for a place before it is served, rather
	// than its answer being counted only once it is encoded (which still
	// counts what an answer has over its bound). A call alone is always
	// admitted. cmd/automium-mcp passes mcpserver.AnswerBound.
	AnswerBound sessions.AnswerBound

	// DrainTimeout bounds how long Read waits, at end of input, for calls that
	// are still being handled. Zero or less waits for all of them, which is
	// right when every handler returns on its own, as Automium's do. A handler
	// blocked on a request to the client (such as elicitation) can never be
	// answered once input has ended; a timeout ends that wait, and the session
	// then ends with an error that counts the unanswered calls.
	DrainTimeout time.Duration

	// Stop, when closed, makes the session end as if input had ended: nothing more
	// is read, calls already read are answered, and then the SDK sees end of input
	// and the session ends without error. Closing it on SIGINT and SIGTERM gives a
	// signal the same graceful ending as closing stdin; cancelling the context
	// passed to Server.Run instead drops in-flight answers. Nil never stops.
	Stop <-chan struct{}
}

// Connect starts reading Reader in the background and returns the connection.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &conn{
		in:        t.Reader,
		out:       t.Writer,
		maxLine:   orDefault(t.MaxLineBytes, DefaultMaxLineBytes),
		maxValues: orDefault(t.MaxValues, DefaultMaxValues),
		maxDepth:  orDefault(t.MaxDepth, DefaultMaxDepth),
		drain:     t.DrainTimeout,
		stop:      t.Stop,
		answers:   t.AnswerBound,
		calls:     make(chan inbound),
		others:    make(chan inbound),
		inputDone: make(chan struct{}),
		closed:    make(chan struct{}),
	}
	// The one session, in a table of one: it keeps at most what the door
	// lets an initialize carry.
	c.rec = sessions.NewTable(1, envelope.MaxSessionParamsBytes).Open("", sessions.Limits{MaxCalls: orDefault(t.MaxInFlight, DefaultMaxInFlight),
		MaxBytes: int64(orDefault(t.MaxInFlightBytes, DefaultMaxInFlightBytes)), MaxUnplaced: MaxListens}, sessions.Pin{})
	if c.in == nil {
		c.in = os.Stdin
	}
	if c.out == nil {
		c.out = os.Stdout
	}
	go c.readLoop()
	return c, nil
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// inbound is one decoded message on its way from the reader to Read.
type inbound struct {
	msg  jsonrpc.Message
	view *envelope.Message // what the door read
	size int               // length of its line
}

// conn is the mcp.Connection returned by Transport.Connect.
type conn struct {
	in                  io.Reader
	out                 io.Writer
	maxLine             int
	maxValues, maxDepth int
	drain               time.Duration
	stop                <-chan struct{}
	answers             sessions.AnswerBound // nil: answers are charged once encoded

	// calls carries requests that expect an answer, others everything else. Both
	// are unbuffered, so that, once inputDone is closed, no message can still be
	// waiting to be read: end of input is only ever seen after the last message.
	// It also means the reader holds one line ahead of Read and no more, which is
	// what makes a full set of places stop the reading.
	calls, others chan inbound
	inputDone     chan struct{}
	inputErr      error // io.EOF or the read error; written before inputDone is closed

	closed    chan struct{}
	closeOnce sync.Once

	wmu sync.Mutex // keeps each line whole on out

	// rec is the session's record (package session): its pin, ordered
	// initialize, calls in flight and what they hold. held is the call
	// waiting for a place; only Read touches it, one message at a time.
	rec  *sessions.Record
	held *inbound

	// What go-sdk has been given and not yet handled of the notifications
	// (see barrier.go): notes and noteBytes count those passed since the
	// last barrier was answered, heldNote waits for the barrier in flight.
	// Only Read touches them; barrier is cleared by Write, which drops the
	// barrier's answer.
	notes, noteBytes int
	heldNote         *inbound
	barriers         int
	barrier          atomic.Pointer[sessions.Call]
}

// SessionID implements mcp.Connection; stdio carries a single unnamed session.
func (c *conn) SessionID() string { return "" }

// Read returns the next message from the client. A call waits for a free place
// before it is returned, which is what stops the reading while answers cannot
// be written; meanwhile notifications and responses from the client (such as
// the answer to an elicitation a busy handler awaits) still pass. At end of
// input, or once Stop is closed, Read first waits until every call it returned
// has been answered, so that the SDK, which stops writing responses as soon as
// Read fails, still delivers them.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if c.heldNote != nil {
			msg, ok, wait := c.releaseNote()
			if ok {
				return msg, nil
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-c.closed:
				return nil, io.EOF
			case <-wait:
			}
			continue
		}
		if st := c.rec.State(); st.Ordered {
			// go-sdk handles initialize before the next message, in order,
			// and queues, without bound, everything it is given meanwhile:
			// nothing is read until its answer is written.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-c.closed:
				return nil, io.EOF
			case <-st.Changed:
			}
			continue
		}
		if c.held != nil {
			changed := c.rec.State().Changed
			if c.admitCall(*c.held) {
				msg := c.held.msg
				c.held = nil
				return msg, nil
			}
			if c.held == nil {
				continue // refused: the session changed while it waited
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-c.closed:
				return nil, io.EOF
			case <-changed:
			case in := <-c.others:
				if msg, ok := c.admitOther(in); ok {
					return msg, nil
				}
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-c.stop:
			return nil, c.waitAnswered(ctx)
		case in := <-c.calls:
			if c.admitCall(in) {
				return in.msg, nil
			}
		case in := <-c.others:
			if msg, ok := c.admitOther(in); ok {
				return msg, nil
			}
		case <-c.inputDone:
			return nil, c.waitAnswered(ctx)
		}
	}
}

// admitOther returns what the SDK is given for a message that is not a call,
// and false when it is given nothing yet: a response to a request of the
// server's passes; a notification passes when the session's record lets it
// through (session.Record.Notify) and the notifications go-sdk may still be
// handling leave room for it (barrier.go), and is held otherwise.
func (c *conn) admitOther(in inbound) (jsonrpc.Message, bool) {
	if in.view.Response {
		return in.msg, true
	}
	if !c.rec.Notify(in.view) {
		return nil, false
	}
	c.heldNote = &in
	msg, ok, _ := c.releaseNote()
	return msg, ok
}

// admitCall asks the session's record about a call: one it refuses is
// answered here, and one that does not fit is held until a place frees up
// (false both times); one it admits goes to the SDK (true).
func (c *conn) admitCall(in inbound) bool {
	req := in.msg.(*jsonrpc.Request)
	var keeps int64
	if req.Method == "initialize" {
		keeps = int64(len(in.view.Params))
	}
	var answer int64
	if c.answers != nil && req.Method != listenMethod {
		answer = c.answers(req.Method, in.view.Name, int64(in.size))
	}
	entry := c.rec.Enter(sessions.Request{Method: req.Method, Version: in.view.ProtocolVersion, ID: req.ID, IsCall: true,
		Size: int64(in.size), Answer: answer, Unplaced: req.Method == listenMethod, Keeps: keeps})
	switch {
	case entry.Refusal != "":
		c.held = nil
		c.reject(envelope.Problem{ID: in.view.ID, Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: " + entry.Refusal})
		return false
	case entry.Call == nil:
		c.held = &in // busy, or (never, as Read waits first) ordered
		return false
	}
	return true
}

// waitAnswered blocks until nothing is owed to the client, writing has failed, the
// drain timeout passes or the connection is closed, then reports how input ended,
// or the failed write that ended it.
func (c *conn) waitAnswered(ctx context.Context) error {
	var timeout <-chan time.Time
	if c.drain > 0 {
		timer := time.NewTimer(c.drain)
		defer timer.Stop()
		timeout = timer.C
	}
	for {
		st := c.rec.State()
		owed, werr, changed := st.Places, st.Failed, st.Changed
		if werr != nil && !errors.Is(werr, io.EOF) {
			// Reported here as well as to the SDK's write, so that the
			// session ends with it whichever of the two the SDK sees first;
			// a client that stopped reading (io.EOF) ends it cleanly.
			return werr
		}
		if owed == 0 || werr != nil {
			return c.endOfInput()
		}
		select {
		case <-changed:
		case <-c.closed:
			return io.EOF
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return fmt.Errorf("stdio: input ended with %d request(s) still unanswered after %v", owed, c.drain)
		}
	}
}

// endOfInput is what Read reports once input has ended and been drained: io.EOF
// for a normal close, which the SDK treats as a clean end of session. A read that
// failed because Close closed the Reader is a normal close too.
func (c *conn) endOfInput() error {
	select {
	case <-c.inputDone:
	default:
		return io.EOF // stopped before the input ended
	}
	select {
	case <-c.closed:
		return io.EOF
	default:
	}
	if c.inputErr == nil || errors.Is(c.inputErr, io.EOF) {
		return io.EOF
	}
	return fmt.Errorf("stdio: reading input: %w", c.inputErr)
}

// Write sends one message as one line. A response settles the call it answers,
// and frees its place once its bytes are out, which may let a waiting Read go
// on; the answer to a cancelled call is not sent.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, isResponse := msg.(*jsonrpc.Response)
	var cl *sessions.Call
	if isResponse {
		// The id is forgotten before the bytes go out (Answered), the place
		// freed only once they are out, so that a client that does not read
		// makes the places run out instead of answers pile up.
		if cl = c.rec.Answered(resp.ID, resp.Error != nil); cl != nil {
			defer c.rec.Release(cl)
		}
		if cl != nil && c.barrier.CompareAndSwap(cl, nil) {
			return nil // the transport's own ping: the client never sent it
		}
	}
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !isResponse {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return fmt.Errorf("stdio: encoding message: %w", err)
		}
		return c.writeLine(data)
	}
	if cl != nil && c.rec.Cancelled(cl) {
		return nil
	}
	method := ""
	if cl != nil {
		method = cl.Method
	}
	data, err := encodeResponse(resp, method)
	if err == nil {
		if cl != nil {
			// The answer is held until it is out: it counts against the
			// byte budget, so a client that does not read stops the reading.
			c.rec.Hold(cl, int64(len(data)))
		}
		err = c.writeLine(data)
	}
	if err != nil {
		c.rec.Fail(err)
	}
	return err
}

// writeLine writes data and a newline in one call, so concurrent writers never
// interleave inside a line.
//
// A broken pipe means the client closed its end and went away, which ends the
// session as normally as end of input does, so the error also matches io.EOF:
// the SDK then ends the session without reporting an error.
func (c *conn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var err error
	if len(data) < copyBelow {
		line := make([]byte, 0, len(data)+1)
		_, err = c.out.Write(append(append(line, data...), '\n'))
	} else if _, err = c.out.Write(data); err == nil {
		// A large answer is not copied to add its newline: two writes under
		// the lock keep the line whole and the answer's memory single.
		_, err = c.out.Write(newline)
	}
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe) {
		return fmt.Errorf("stdio: the client stopped reading: %w: %w", err, io.EOF)
	}
	return err
}

// reject writes the transport's own error responses. A failed write is recorded
// like a failed response, because it means the client can no longer be answered.
func (c *conn) reject(rs ...envelope.Problem) {
	for _, r := range rs {
		if r.Notification {
			continue // JSON-RPC answers no notification
		}
		if err := c.writeLine(r.Response()); err != nil {
			c.rec.Fail(err)
			return
		}
	}
}

// Close stops the connection and unblocks Read. It is idempotent and safe to call
// concurrently. It closes Reader when Reader is an io.Closer, which lets the
// background read return; Writer is left open.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if closer, ok := c.in.(io.Closer); ok {
			_ = closer.Close() // best effort: the read goroutine also exits on c.closed
		}
	})
	return nil
}

// readLoop splits the input into lines, answers the bad ones itself and hands the
// rest to Read, until input ends or the connection is closed.
func (c *conn) readLoop() {
	defer close(c.inputDone)
	br := bufio.NewReaderSize(c.in, 64<<10)
	var (
		line      []byte
		oversized bool
	)
	for {
		chunk, err := br.ReadSlice('\n')
		content := len(line) + len(bytes.TrimSuffix(bytes.TrimSuffix(chunk, []byte("\n")), []byte("\r")))
		switch {
		case oversized:
			// Still discarding the rest of an oversized line.
		case content > c.maxLine:
			oversized = true
			if keep := idSniffBytes - len(line); keep > 0 {
				line = append(line, chunk[:min(keep, len(chunk))]...)
			}
			line = line[:min(len(line), idSniffBytes)]
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // the same line goes on
		}
		if oversized {
			c.reject(envelope.Problem{ID: envelope.SniffID(line), Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("Invalid Request: the message exceeds the limit of %d bytes", c.maxLine)})
		} else if !c.handleLine(line) {
			return
		}
		line, oversized = nil, false
		if err != nil {
			c.inputErr = err
			return
		}
	}
}

// handleLine answers or forwards one complete line. Every line passes the
// envelope door: what it refuses is answered here with its problem, and what
// it accepts goes on with its one parsed view. It reports false once the
// connection is closed and nothing more should be read.
func (c *conn) handleLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return true
	}
	view, problem := envelope.Parse(line, envelope.Limits{MaxValues: c.maxValues, MaxDepth: c.maxDepth})
	if problem != nil {
		c.reject(*problem)
		return true
	}
	msg, err := view.JSONRPC()
	if err != nil {
		// Unreachable: the door refuses every response go-sdk cannot
		// decode, and builds requests without decoding. Kept so that a
		// go-sdk upgrade that decodes more strictly still gets an answer.
		c.reject(envelope.Problem{ID: view.ID, Code: jsonrpc.CodeInvalidRequest, Message: envelope.ResponseShapeMessage})
		return true
	}
	to := c.others
	if view.IsCall() {
		to = c.calls
	}
	select {
	case to <- inbound{msg, view, len(line)}:
		return true
	case <-c.closed:
		return false
	}
}
