// Package stdio is the MCP transport cmd/automium-mcp serves on: newline-delimited
// JSON-RPC 2.0 over a byte stream, normally the process's stdin and stdout.
//
// It replaces mcp.StdioTransport from go-sdk v1.8.0, which a coding agent cannot
// rely on in two ways:
//
//   - One bad line ends the session. Invalid JSON, JSON that is not JSON-RPC, a
//     batch, or a line over the size cap makes the stock transport return an error
//     from Read, so the process exits without answering, and every request still in
//     flight is dropped with it.
//   - Closing stdin loses answers (go-sdk issue 1061). A client that writes a burst
//     of requests and then closes its end of the pipe is entitled to every response,
//     but the SDK cancels in-flight requests at end of input and refuses to write
//     their responses.
//
// [Transport] answers each bad line with a JSON-RPC error and keeps serving, and on
// end of input it reports EOF to the SDK only once every request it passed on has
// been answered (except SEP-2575 subscriptions/listen calls, which by design last
// as long as the session). The rules, line by line:
//
//   - An empty or all-blank line is skipped.
//   - A line longer than MaxLineBytes (default [DefaultMaxLineBytes], 16 MiB, the
//     stock transport's limit) is discarded as it streams in, so memory stays
//     bounded. It is answered with -32600 (Invalid Request). The error carries the
//     request's id when the id appears in the line's first 4 KiB, which is where
//     the Go and Python SDKs put it; otherwise its id is null.
//   - A line that is not valid JSON, or holds more than one JSON value, is answered
//     with -32700 (Parse error) and id null.
//   - Valid JSON that is not a JSON-RPC 2.0 message is answered with -32600, echoing
//     the id when it is a string or a number, so the client can match the error to
//     its request.
//   - A request whose id is neither a string nor an integer between -(2^53-1) and
//     2^53-1 gets -32600 with that id: MCP requires string or integer ids, and the
//     SDK would otherwise answer 1.5 as 1 and round large integers, so the client
//     could never match the response.
//   - A request that reuses the id of one still in flight gets -32600 with that id
//     (the SDK would send that error without any id).
//   - A notifications/cancelled that names no call in flight is dropped, as MCP
//     allows. go-sdk v1.8.0 acts on cancellations in a goroutine of its own, so
//     one that arrives just before its call, or just after the call's answer,
//     would otherwise cancel a later call that uses the same id (about one time
//     in five in our tests).
//   - A batch (a JSON array; MCP removed batching in 2025-06-18) is not executed:
//     each element that carries a string or number id gets its own -32600 line with
//     that id, and the rest share at most one -32600 line with id null. No error
//     line is an array, so every MCP client can parse it.
//
// Messages span exactly one line, as the MCP stdio transport requires; a JSON value
// pretty-printed over several lines is several malformed lines.
//
// On the way out, an error the SDK would send with code 0, which is not a JSON-RPC
// code (it does so for plain Go errors, such as a request before initialize), is
// sent as -32603 (Internal error) with the same message. A client that closes its
// end of the output pipe has gone away: the failed write ends the session as
// cleanly as end of input does.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineBytes is the longest line, line ending excluded, that [Transport]
// accepts when MaxLineBytes is zero. It matches the stock stdio transport's
// mcp.DefaultMaxLineLength, so switching transports changes no client's limit.
const DefaultMaxLineBytes = 16 << 20

// DefaultDrainTimeout is how long Read waits at end of input for in-flight requests
// when DrainTimeout is zero. Every Automium handler answers in milliseconds, so
// reaching it means a handler is stuck, and the process should not linger after
// its client has gone.
const DefaultDrainTimeout = 10 * time.Second

// idSniffBytes is how much of an oversized line is kept to look for its id.
const idSniffBytes = 4 << 10

// listenMethod is the SEP-2575 subscription call. It stays open until the client
// cancels it or the input ends, and its response only marks the teardown, so
// waiting for it at end of input would wait forever.
const listenMethod = "subscriptions/listen"

// cancelledMethod is the notification by which a client cancels one of its calls.
const cancelledMethod = "notifications/cancelled"

// Transport is an mcp.Transport over newline-delimited JSON-RPC that survives
// malformed input and answers every request before reporting end of input; see the
// package documentation for the exact rules.
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

	// MaxLineBytes bounds one line, "\n" or "\r\n" excluded. Zero means
	// DefaultMaxLineBytes; a negative value is treated as zero, because an
	// unbounded line would let one client message exhaust memory.
	MaxLineBytes int

	// DrainTimeout bounds how long Read waits, at end of input, for requests that
	// are still being handled. Zero means DefaultDrainTimeout; a negative value
	// waits as long as it takes. A handler blocked on a request to the client (such
	// as elicitation) can never be answered once input has ended, so only a timeout
	// ends that wait; the session then ends with an error that counts the
	// unanswered requests.
	DrainTimeout time.Duration

	// Stop, when closed, makes the session end as if input had ended: nothing more
	// is read, requests already read are answered (within DrainTimeout), and then
	// the SDK sees end of input and the session ends without error. Closing it on
	// SIGINT and SIGTERM gives a signal the same graceful ending as closing stdin;
	// cancelling the context passed to Server.Run instead drops in-flight answers.
	// Nil never stops.
	Stop <-chan struct{}
}

// Connect starts reading Reader in the background and returns the connection.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &conn{
		in:        t.Reader,
		out:       t.Writer,
		maxLine:   t.MaxLineBytes,
		drain:     t.DrainTimeout,
		stop:      t.Stop,
		msgs:      make(chan jsonrpc.Message),
		inputDone: make(chan struct{}),
		closed:    make(chan struct{}),
		pending:   map[jsonrpc.ID]bool{},
		changed:   make(chan struct{}),
	}
	if c.in == nil {
		c.in = os.Stdin
	}
	if c.out == nil {
		c.out = os.Stdout
	}
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLineBytes
	}
	if c.drain == 0 {
		c.drain = DefaultDrainTimeout
	}
	go c.readLoop()
	return c, nil
}

// conn is the mcp.Connection returned by Transport.Connect.
type conn struct {
	in      io.Reader
	out     io.Writer
	maxLine int
	drain   time.Duration
	stop    <-chan struct{}

	// msgs is unbuffered so that, once inputDone is closed, no message can still
	// be waiting to be read: end of input is only ever seen after the last message.
	msgs      chan jsonrpc.Message
	inputDone chan struct{}
	inputErr  error // io.EOF or the read error; written before inputDone is closed

	closed    chan struct{}
	closeOnce sync.Once

	wmu sync.Mutex // keeps each line whole on out

	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool // calls passed to the SDK and not yet answered; true if owed at end of input
	writing  int                 // responses being written right now
	writeErr error               // the first failed write: nothing more can be delivered
	changed  chan struct{}       // closed and replaced whenever the three fields above change
}

// SessionID implements mcp.Connection; stdio carries a single unnamed session.
func (c *conn) SessionID() string { return "" }

// Read returns the next message from the client. At end of input, or once Stop is
// closed, it first waits until every call it returned has been answered, so that
// the SDK, which stops writing responses as soon as Read fails, still delivers
// them.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-c.stop:
			return nil, c.waitAnswered(ctx)
		case m := <-c.msgs:
			if c.track(m) {
				return m, nil
			}
		case <-c.inputDone:
			return nil, c.waitAnswered(ctx)
		}
	}
}

// track records a call the SDK is about to receive, so that end of input waits
// for its answer. It reports false for a message the SDK must not see: a call
// reusing the id of one still in flight, which is answered here instead, and a
// cancellation of no call in flight.
func (c *conn) track(m jsonrpc.Message) bool {
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return true
	}
	if !req.IsCall() {
		return req.Method != cancelledMethod || c.cancelsCallInFlight(req)
	}
	c.mu.Lock()
	_, duplicate := c.pending[req.ID]
	if !duplicate {
		c.pending[req.ID] = req.Method != listenMethod
	}
	c.mu.Unlock()
	if duplicate {
		c.reject([]rejection{{
			id:      rawID(req.ID),
			code:    jsonrpc.CodeInvalidRequest,
			message: "Invalid Request: id is already used by a request in flight",
		}})
	}
	return !duplicate
}

// cancelsCallInFlight reports whether a cancellation names a call in flight, or
// names its call in a way the SDK will reject anyway.
func (c *conn) cancelsCallInFlight(req *jsonrpc.Request) bool {
	var params struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &params) != nil {
		return true
	}
	id, err := jsonrpc.MakeID(params.RequestID)
	if err != nil || !id.IsValid() {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, inFlight := c.pending[id]
	return inFlight
}

// waitAnswered blocks until nothing is owed to the client, writing has failed, the
// drain timeout passes or the connection is closed, then reports how input ended.
func (c *conn) waitAnswered(ctx context.Context) error {
	var timeout <-chan time.Time
	if c.drain > 0 {
		timer := time.NewTimer(c.drain)
		defer timer.Stop()
		timeout = timer.C
	}
	for {
		c.mu.Lock()
		owed, writing, werr, changed := 0, c.writing, c.writeErr, c.changed
		for _, counts := range c.pending {
			if counts {
				owed++
			}
		}
		c.mu.Unlock()
		if (owed == 0 && writing == 0) || werr != nil {
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
// which may let a Read waiting at end of input return.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	resp, isResponse := msg.(*jsonrpc.Response)
	if !isResponse {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return fmt.Errorf("stdio: encoding message: %w", err)
		}
		return c.writeLine(data)
	}

	// Settle the call before its bytes go out: the client may reuse the id as soon
	// as it reads the response, and that must not look like a duplicate.
	c.mu.Lock()
	delete(c.pending, resp.ID)
	c.writing++
	c.mu.Unlock()

	data, err := encodeResponse(resp)
	if err == nil {
		err = c.writeLine(data)
	}

	c.mu.Lock()
	c.writing--
	if err != nil && c.writeErr == nil {
		c.writeErr = err
	}
	c.notifyLocked()
	c.mu.Unlock()
	return err
}

// encodeResponse encodes resp, repairing what go-sdk v1.8.0 would get wrong on the
// wire: a plain Go error returned by the SDK (for example for a request before
// initialize, or a tool output that fails its schema) has no JSON-RPC code and
// would be sent as code 0, which is not a JSON-RPC error code; it becomes -32603
// (Internal error) with the same message. A response without a valid id would be
// sent with no id member at all; it gets "id": null.
func encodeResponse(resp *jsonrpc.Response) ([]byte, error) {
	if resp.Error != nil {
		var wire *jsonrpc.Error
		if !errors.As(resp.Error, &wire) || wire.Code == 0 {
			fixed := *resp
			fixed.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
			if wire != nil {
				fixed.Error.(*jsonrpc.Error).Data = wire.Data
			}
			resp = &fixed
		}
	}
	if !resp.ID.IsValid() {
		var wire *jsonrpc.Error
		if !errors.As(resp.Error, &wire) {
			wire = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "response without a request id"}
		}
		return errorLine(nil, wire.Code, wire.Message), nil
	}
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return nil, fmt.Errorf("stdio: encoding response: %w", err)
	}
	return data, nil
}

// notifyLocked wakes every waitAnswered loop; c.mu must be held.
func (c *conn) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// writeLine writes data and a newline in one call, so concurrent writers never
// interleave inside a line.
//
// A broken pipe means the client closed its end and went away, which ends the
// session as normally as end of input does, so the error also matches io.EOF:
// the SDK then ends the session without reporting an error.
func (c *conn) writeLine(data []byte) error {
	line := make([]byte, 0, len(data)+1)
	line = append(append(line, data...), '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(line)
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe) {
		return fmt.Errorf("stdio: the client stopped reading: %w: %w", err, io.EOF)
	}
	return err
}

// reject writes the transport's own error responses. A failed write is recorded
// like a failed response, because it means the client can no longer be answered.
func (c *conn) reject(rs []rejection) {
	for _, r := range rs {
		if err := c.writeLine(errorLine(r.id, r.code, r.message)); err != nil {
			c.mu.Lock()
			if c.writeErr == nil {
				c.writeErr = err
				c.notifyLocked()
			}
			c.mu.Unlock()
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
			c.reject([]rejection{{
				id:      sniffID(line),
				code:    jsonrpc.CodeInvalidRequest,
				message: fmt.Sprintf("Invalid Request: line exceeds the limit of %d bytes", c.maxLine),
			}})
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

// handleLine answers or forwards one complete line. It reports false once the
// connection is closed and nothing more should be read.
func (c *conn) handleLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return true
	}
	msg, rejections := decodeLine(line)
	c.reject(rejections)
	if msg == nil {
		return true
	}
	select {
	case c.msgs <- msg:
		return true
	case <-c.closed:
		return false
	}
}

// rejection is an error response the transport writes on its own.
type rejection struct {
	id      json.RawMessage // nil writes "id": null
	code    int64
	message string
}

// decodeLine turns one trimmed, non-empty line into either a message for the SDK
// or the error responses it deserves.
func decodeLine(line []byte) (jsonrpc.Message, []rejection) {
	if !json.Valid(line) {
		var syntax any
		detail := "invalid JSON"
		if err := json.Unmarshal(line, &syntax); err != nil {
			detail = err.Error()
		}
		return nil, []rejection{{code: jsonrpc.CodeParseError, message: "Parse error: " + detail}}
	}
	switch line[0] {
	case '[':
		return nil, rejectBatch(line)
	case '{':
	default:
		return nil, []rejection{{code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: a message must be a JSON object"}}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return nil, []rejection{{code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: " + err.Error()}}
	}
	rawIDValue, hasID := members["id"]
	id := echoableID(rawIDValue)
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, []rejection{{id: id, code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: " + err.Error()}}
	}
	req, isRequest := msg.(*jsonrpc.Request)
	if !isRequest {
		_, hasResult := members["result"]
		_, hasError := members["error"]
		if !hasResult && !hasError {
			// Neither a request (no method) nor a response: JSON-RPC calls
			// this an invalid request, and the SDK would drop it unanswered.
			return nil, []rejection{{id: id, code: jsonrpc.CodeInvalidRequest,
				message: "Invalid Request: a message needs a method (a request or notification), or a result or error (a response)"}}
		}
	}
	if !isRequest || !hasID {
		return msg, nil // a response to a server request, or a notification
	}
	if !exactID(rawIDValue) {
		return nil, []rejection{{id: id, code: jsonrpc.CodeInvalidRequest,
			message: "Invalid Request: id must be a string or an integer between -9007199254740991 and 9007199254740991"}}
	}
	return req, nil
}

// rejectBatch answers a batch without executing it: one error per element that
// has a string or number id, and one null-id error for all the others together
// (none if they are all notifications, which are never answered).
func rejectBatch(line []byte) []rejection {
	const message = "Invalid Request: JSON-RPC batches are not supported; send one message per line"
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		return []rejection{{code: jsonrpc.CodeInvalidRequest, message: message}}
	}
	var out []rejection
	anonymous := false
	for _, e := range elems {
		var members map[string]json.RawMessage
		if json.Unmarshal(e, &members) != nil {
			anonymous = true
			continue
		}
		if id := echoableID(members["id"]); id != nil {
			out = append(out, rejection{id: id, code: jsonrpc.CodeInvalidRequest, message: message})
			continue
		}
		if _, hasMethod := members["method"]; hasMethod && members["id"] == nil {
			continue // a notification: JSON-RPC never answers those
		}
		anonymous = true
	}
	if anonymous {
		out = append(out, rejection{code: jsonrpc.CodeInvalidRequest, message: message})
	}
	return out
}

// echoableID returns raw when it is a JSON string or number, the only ids a
// client can match an error to, and nil otherwise.
func echoableID(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return raw
	}
	return nil
}

// maxExactID is the largest integer a float64 holds exactly. The SDK decodes
// numeric ids through float64, so beyond it the response would carry another id.
const maxExactID = 1<<53 - 1

// exactID reports whether the SDK will answer with the very id the client sent: a
// string, or an integer written without fraction or exponent within ±maxExactID.
func exactID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		return true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= -maxExactID && n <= maxExactID
}

// rawID is the wire form of an id the SDK accepted.
func rawID(id jsonrpc.ID) json.RawMessage {
	data, err := json.Marshal(id.Raw())
	if err != nil {
		return nil
	}
	return data
}

// sniffID looks for a string or number "id" member among the leading members of
// the start of an oversized line, so its error can still be matched to the
// request. It gives up (returning nil, for id null) at the first thing it cannot
// read, which includes reaching the cut.
func sniffID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if key == "id" {
			if dec.InputOffset() == int64(len(prefix)) {
				return nil // a number cut at the end may have had more digits
			}
			return echoableID(value)
		}
	}
	return nil
}

// errorLine encodes an error response by hand, because jsonrpc.EncodeMessage omits
// an id it considers invalid, and JSON-RPC requires "id": null when the request's
// id is unknown.
func errorLine(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil { // only if id is not valid JSON, which callers rule out
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	return data
}
