package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the dispatcher's own client transport. go-sdk's transports
// decode every line before anyone sees it: three passes over each list
// answer (framing, a depth check, the JSON-RPC envelope), which was half of
// a verification's cost. This transport frames the lines itself and offers
// each one to the tap first. A line byte-identical to the answer the tap
// expects for one of its own replayed requests proves that answer unchanged
// and is never decoded. Every other line is decoded by go-sdk's
// jsonrpc.DecodeMessage, as go-sdk's transports decode it, and handed to
// go-sdk's client.
//
// A peer that does not put one JSON object on each line (a value over
// several lines, a batch, trailing bytes, a line past MaxLineLength) is
// handed, from that line on, to go-sdk's own newline-delimited connection,
// so it gets exactly go-sdk's framing and refusals; only the fast path is
// lost.

// IOTransport is a client [mcp.Transport] over a byte stream that carries
// newline-delimited JSON-RPC, as [mcp.IOTransport], whose answers to the
// dispatcher's own replayed list requests are compared as bytes, not
// decoded. Use it (or [NewInMemoryTransports]) with [Dispatcher.Connect]
// for the cheapest verification before each call; go-sdk's transports
// work too, and decode every answer.
//
// For a server in its own process, the program that starts it passes the
// command's stdout as Reader and its stdin as Writer (exec.Cmd's
// StdoutPipe and StdinPipe); Close closes both, and the program waits for
// the command. This package starts no process itself (docs/security.md).
//
// One IOTransport serves one connection, as its streams do: two sessions
// reading one stream take each other's bytes, so the first session ends
// and the second may wait for an answer the first took. Make a transport
// for each Connect.
type IOTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxLineLength bounds one inbound line (one JSON-RPC message), as
	// [mcp.IOTransport]'s does. 0 means [mcp.DefaultMaxLineLength]; a
	// negative value means no bound.
	MaxLineLength int
}

// Connect implements [mcp.Transport].
func (t *IOTransport) Connect(context.Context) (mcp.Connection, error) {
	if t.Reader == nil || t.Writer == nil {
		return nil, errors.New("dispatch: the IOTransport has no Reader or Writer; set both to the server's stream")
	}
	return newWireConn(t.Reader, t.Writer, func() error { return errors.Join(t.Reader.Close(), t.Writer.Close()) }, t.MaxLineLength), nil
}

// NewInMemoryTransports returns two connected transports, as
// [mcp.NewInMemoryTransports]: connect a go-sdk server to server first,
// then the dispatcher to client. client frames lines as [IOTransport].
func NewInMemoryTransports() (server, client mcp.Transport) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	return &mcp.IOTransport{Reader: toServer, Writer: fromServer}, &IOTransport{Reader: toClient, Writer: fromClient}
}

// wireConn is the connection of the dispatcher's transports.
type wireConn struct {
	w       io.Writer
	closeFn func() error
	limit   int // bytes of one line; < 0: none

	tap *tap // set by tapTransport.Connect, before the first Read

	lines chan wireLine // from the reader goroutine
	next  chan bool     // to it: true to go on, false to stop (go-sdk takes over)
	held  bool          // the last line is still in use; next is owed
	last  []byte        // the object of the message Read returned last, while held
	fr    *framer       // read by Read only while the reader waits on next

	// inner is go-sdk's connection once the peer sent a line this
	// connection does not frame itself; wmu guards its switch for Write.
	wmu   sync.Mutex
	inner mcp.Connection
	// writing holds a token while a message is being written: one at a
	// time, and a Write waiting for its turn still ends with its context.
	writing chan struct{}

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// wireLine is one line the reader framed: its bytes without the newline
// (valid until Read asks for the next), or the whole rest of a line past
// the bound (long), or the stream's end.
type wireLine struct {
	b    []byte
	long bool // the line passed the bound, or the stream ended inside it
	err  error
}

func newWireConn(r io.Reader, w io.Writer, closeFn func() error, limit int) *wireConn {
	if limit == 0 {
		limit = mcp.DefaultMaxLineLength
	}
	c := &wireConn{w: w, closeFn: closeFn, limit: limit, lines: make(chan wireLine), next: make(chan bool), closed: make(chan struct{}), writing: make(chan struct{}, 1)}
	c.fr = &framer{r: r, limit: limit}
	go c.readLines()
	return c
}

// readLines frames lines in its own goroutine, so that Read can return when
// the connection closes or its context ends, as go-sdk's does. It hands
// each line over and waits until Read is done with it, so one buffer
// serves every line.
func (c *wireConn) readLines() {
	for {
		line := c.fr.line()
		select {
		case c.lines <- line:
		case <-c.closed:
			return
		}
		if line.err != nil || line.long {
			return
		}
		select {
		case more := <-c.next:
			if !more {
				return
			}
		case <-c.closed:
			return
		}
	}
}

func (c *wireConn) SessionID() string { return "" }

func (c *wireConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		// The streams first: they end a write blocked on a peer that
		// never reads.
		cerr := c.closeFn()
		c.wmu.Lock()
		inner := c.inner
		c.wmu.Unlock()
		var ierr error
		if inner != nil {
			ierr = inner.Close()
		}
		c.closeErr = errors.Join(ierr, cerr)
	})
	return c.closeErr
}

// Write writes msg, or returns when ctx ends or the connection closes,
// whichever comes first: a peer that never reads blocks the stream's
// Write, and the caller's deadline (VerifyTimeout, the dispatch's
// context) must still hold. A write its caller gave up on goes on in
// the background, whole, before the next one; Close ends it.
func (c *wireConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-c.closed:
		return errWireClosed
	default:
	}
	select {
	case c.writing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return errWireClosed
	}
	c.wmu.Lock()
	inner := c.inner
	c.wmu.Unlock()
	done := make(chan error, 1)
	go func() {
		defer func() { <-c.writing }()
		if inner != nil {
			done <- inner.Write(context.WithoutCancel(ctx), msg)
			return
		}
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			done <- fmt.Errorf("marshaling message: %v", err)
			return
		}
		_, err = c.w.Write(append(data, '\n'))
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return errWireClosed
	}
}

// errWireClosed: a Write on a closed connection.
var errWireClosed = errors.New("dispatch: the connection is closed")

// Read returns the next message that is not an answer the tap took as
// byte-identical to one it expected.
func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if c.inner != nil {
			return c.inner.Read(ctx)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if c.held {
			c.held = false
			select {
			case c.next <- true:
			case <-c.closed:
				return nil, io.EOF
			}
		}
		var line wireLine
		select {
		case line = <-c.lines:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
		if line.err != nil {
			return nil, line.err
		}
		c.held, c.last = !line.long, nil
		msg := braced(line.b)
		switch {
		case line.long || msg == nil:
			if err := c.handOver(line); err != nil {
				return nil, err
			}
		case len(msg) == 0:
			// Whitespace between messages.
		case c.tap != nil && c.tap.identical(msg):
			// An answer to the tap's own request, byte for byte the
			// one it expected: consumed here, never decoded (nor
			// validated: the line it equals was).
		case !json.Valid(msg):
			// Not one object: two, or one over several lines.
			if err := c.handOver(line); err != nil {
				return nil, err
			}
		default:
			c.last = msg
			return jsonrpc.DecodeMessage(msg)
		}
	}
}

// braced returns what a line holds between optional leading whitespace
// and an optional carriage return, when it starts with '{' and ends with
// '}': one JSON object if it is valid JSON (see oneObject). It returns an
// empty slice for a line of whitespace, and nil for any other line (go-sdk
// frames it).
func braced(line []byte) []byte {
	b := bytes.TrimLeft(line, " \t\r\n")
	if len(b) == 0 {
		return blank // not b: TrimLeft returns nil for nothing left
	}
	b = bytes.TrimSuffix(b, []byte("\r"))
	if b[0] != '{' || b[len(b)-1] != '}' {
		return nil
	}
	return b
}

// oneObject returns the JSON object a line holds when the line is exactly
// what go-sdk frames as one message: optional leading whitespace, one
// object, an optional carriage return; nil (or blank) otherwise.
func oneObject(line []byte) []byte {
	b := braced(line)
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return b
}

// blank is the object of a line of whitespace: none, and not nil.
var blank = []byte{}

// handOver gives the rest of the stream, from line on, to go-sdk's own
// connection: a peer this connection does not frame (see the file's
// comment) gets go-sdk's framing and refusals.
func (c *wireConn) handOver(line wireLine) error {
	rest := c.fr.rest()
	if !line.long {
		// The reader waits on next: stop it, and take the line back with
		// its newline.
		c.held = false
		select {
		case c.next <- false:
		case <-c.closed:
			return io.EOF
		}
		line.b = append(line.b[:len(line.b):len(line.b)], '\n')
	}
	r := io.MultiReader(bytes.NewReader(bytes.Clone(line.b)), bytes.NewReader(bytes.Clone(rest)), c.fr.r)
	conn, err := (&mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{c.w}, MaxLineLength: c.limit}).Connect(context.Background())
	if err != nil {
		return err
	}
	c.wmu.Lock()
	c.inner = conn
	c.wmu.Unlock()
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// framer splits a stream into lines, holding at most limit bytes of one.
type framer struct {
	r          io.Reader
	limit      int
	buf        []byte
	start, end int // buf[start:end] is read and not yet framed
	scanned    int // buf[start:scanned] holds no newline
	err        error
}

// line returns the next line without its newline. A line longer than the
// bound, or cut by the stream's end, is returned as read so far with long
// set: go-sdk frames it (and refuses it) from there.
func (f *framer) line() wireLine {
	for {
		if i := bytes.IndexByte(f.buf[f.scanned:f.end], '\n'); i >= 0 {
			nl := f.scanned + i
			b := f.buf[f.start:nl]
			f.start, f.scanned = nl+1, nl+1
			return wireLine{b: b}
		}
		f.scanned = f.end
		if f.limit >= 0 && f.end-f.start > f.limit {
			b := f.buf[f.start:f.end]
			f.start, f.scanned = f.end, f.end
			return wireLine{b: b, long: true}
		}
		if f.err != nil {
			if f.start < f.end {
				b := f.buf[f.start:f.end]
				f.start, f.scanned = f.end, f.end
				return wireLine{b: b, long: true}
			}
			return wireLine{err: f.err}
		}
		f.fill()
	}
}

// fill reads more of the stream, making room first.
func (f *framer) fill() {
	if f.start > 0 && (f.start == f.end || f.end == len(f.buf)) {
		n := copy(f.buf, f.buf[f.start:f.end])
		f.scanned -= f.start
		f.start, f.end = 0, n
	}
	if f.end == len(f.buf) {
		size := max(2*len(f.buf), 64<<10)
		if f.limit >= 0 && f.limit < size-1 {
			// One byte past the bound tells a line that passed it.
			// (Compared, not added: limit+2 overflows near MaxInt.)
			size = f.limit + 1 + 1
		}
		if size <= len(f.buf) {
			// A line of limit+1 bytes and no newline: line reports it.
			return
		}
		f.buf = append(f.buf, make([]byte, size-len(f.buf))...)
	}
	n, err := f.r.Read(f.buf[f.end:])
	f.end += n
	if err != nil {
		f.err = err
	}
}

// rest is what the framer read past the last line it returned.
func (f *framer) rest() []byte { return f.buf[f.start:f.end] }
