package dispatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tap sits between go-sdk's client session and the transport. It keeps the
// raw bytes of every list answer of a full catalog read (a recording), and
// replays that read's requests later, comparing each answer's bytes with the
// recorded ones, without decoding the catalog they hold. An answer
// byte-identical to one whose decoding was verified proves what that
// verification proved, so an unchanged catalog is re-verified at the cost
// of moving and comparing its bytes: no schema check, no digest, and on the
// dispatcher's own connection (wire.go) no decode either: there the tap
// sees each line before it is decoded (see identical and lineTemplate).
//
// The tap is not used for a *mcp.StreamableClientTransport: go-sdk tells its
// connection about the session through an unexported method that a wrapper
// cannot forward. Those servers are read in full before every call.
//
// The tap refuses every answer it did not expect while it records or
// replays. go-sdk registers a call before it hands the request to the tap,
// so a server that guesses go-sdk's next request ID can answer it in the
// moment between the two: go-sdk would decode that answer, and the tap
// would record the server's second answer to the same ID, which go-sdk
// drops. A recording that saw such an answer is not kept (the next read is
// a full one), and a replay that saw one fails as a changed catalog (the
// read goes on in full). So what the tap keeps is always what go-sdk
// decoded.
type tap struct {
	mu      sync.Mutex
	conn    mcp.Connection
	rec     *recording              // the full read being recorded, if any
	waiting map[jsonrpc.ID]*pending // the tap's own calls in flight
	// expected holds the ID of every call written through the tap whose
	// answer has not arrived: go-sdk's (false) and the tap's own (true).
	// A call abandoned by its caller stays until its late answer comes,
	// so that the answer is not taken for an unexpected one. At most
	// maxExpected; past it, every call but the replay requests still
	// waited on is forgotten (a forgotten call's late answer then only
	// costs a full read).
	expected  map[jsonrpc.ID]bool
	replaying *replayState // the replay in progress, if any
	sent      uint64
	same      uint64        // answers taken as byte-identical lines (see identical)
	closed    chan struct{} // closed once the connection's Read failed
	once      sync.Once
}

// maxExpected bounds the calls the tap waits on, so that a server that
// never answers cannot grow the table.
const maxExpected = 4096

// replayState marks a replay that received an answer it did not expect.
type replayState struct{ unexpected bool }

// pending is one of the tap's own calls waiting for its answer.
type pending struct {
	ch    chan answer // buffered: the answer never blocks the reader
	idRaw []byte      // the call's ID as JSON, as the tap wrote it
	// line, when set, is the answer line the tap expects, byte for byte,
	// less its ID (see lineTemplate); only on the dispatcher's own
	// connection.
	line *lineTemplate
	// learn asks for the answer's line, to learn line from.
	learn bool
}

// answer is what a pending call gets: the decoded answer (and, on the
// dispatcher's own connection, its line, to learn a template from), or
// same when its line was byte for byte the expected one.
type answer struct {
	resp *jsonrpc.Response
	raw  []byte
	same bool
}

// lineTemplate is an answer line of one recorded page less the answer's ID:
// prefix, the ID, suffix. It is learnt from a line whose decoding gave that
// page's recorded result under the tap's ID, and checked by decoding it
// again under another ID (see learnTemplate), so a line equal to it under
// any of the tap's IDs decodes to that ID and that result: comparing the
// bytes is the decoding and comparison of the slow path.
type lineTemplate struct{ prefix, suffix []byte }

// matches reports whether line is the template with idRaw as its ID.
func (l *lineTemplate) matches(line, idRaw []byte) bool {
	n := len(l.prefix)
	return len(line) == n+len(idRaw)+len(l.suffix) &&
		bytes.Equal(line[n:n+len(idRaw)], idRaw) &&
		bytes.Equal(line[:n], l.prefix) &&
		bytes.Equal(line[n+len(idRaw):], l.suffix)
}

// probeID is the ID under which a template is checked: one the tap never
// sends, of the same kind as its own (a string of plain characters).
const probeID = "automium-verify-probe"

// learnTemplate returns the template of line, the answer to the tap's call
// idRaw whose decoded result was result, or nil if line does not make one:
// the ID's bytes must occur once in the line, and the line with another
// ID in their place must decode, as the slow path decodes, to an answer to
// that ID with the same result. The ID's bytes are then the ID's token and
// nothing else, and the rest of the line decodes the same under any ID.
func learnTemplate(line, idRaw, result []byte) *lineTemplate {
	i := bytes.Index(line, idRaw)
	if i < 0 || bytes.Contains(line[i+1:], idRaw) {
		return nil
	}
	probe := append(append(append([]byte(nil), line[:i]...), `"`+probeID+`"`...), line[i+len(idRaw):]...)
	obj := oneObject(probe)
	if len(obj) == 0 {
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(obj)
	resp, ok := msg.(*jsonrpc.Response)
	want, _ := jsonrpc.MakeID(probeID)
	if err != nil || !ok || resp.ID != want || resp.Error != nil || !bytes.Equal(resp.Result, result) {
		return nil
	}
	return &lineTemplate{prefix: bytes.Clone(line[:i]), suffix: bytes.Clone(line[i+len(idRaw):])}
}

// identical takes line when it is, byte for byte, the expected answer to
// one of the tap's own calls: that call gets same, and the line is not
// decoded. Any other line is left to the slow path.
func (t *tap) identical(line []byte) bool {
	t.mu.Lock()
	for id, p := range t.waiting {
		if own := t.expected[id]; own && p.line != nil && p.line.matches(line, p.idRaw) {
			delete(t.waiting, id)
			delete(t.expected, id)
			t.same++
			t.mu.Unlock()
			p.ch <- answer{same: true}
			return true
		}
	}
	t.mu.Unlock()
	return false
}

// writeHook, when set (by a test), runs as go-sdk hands the tap a message,
// before the tap looks at it: where go-sdk has already registered a call
// and the tap has not.
var writeHook func(msg jsonrpc.Message)

func newTap() *tap {
	return &tap{waiting: map[jsonrpc.ID]*pending{}, expected: map[jsonrpc.ID]bool{}, closed: make(chan struct{})}
}

// wire reports whether the tap's connection is the dispatcher's own.
func (t *tap) wire() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.conn.(*wireConn)
	return ok
}

// expect records that an answer to id is due; t.mu is held.
func (t *tap) expect(id jsonrpc.ID, own bool) {
	if len(t.expected) >= maxExpected {
		// A replay waiting on its answer must still get it, or it would
		// wait for its deadline.
		for id := range t.expected {
			if _, waiting := t.waiting[id]; !waiting {
				delete(t.expected, id)
			}
		}
	}
	t.expected[id] = own
}

// unexpectedAnswer spoils the recording or replay in progress; t.mu is
// held.
func (t *tap) unexpectedAnswer() {
	if t.rec != nil {
		t.rec.bad = true
	}
	if t.replaying != nil {
		t.replaying.unexpected = true
	}
}

// listMethods are the methods whose answers make up a catalog.
var listMethods = map[string]bool{"tools/list": true, "resources/list": true, "resources/templates/list": true, "prompts/list": true}

// recording is one full read's list traffic: each request's raw params and
// its answer's raw result, in the order each list was read.
type recording struct {
	asked map[jsonrpc.ID]int // request ID -> index in pages
	left  int                // bytes of answers the recording may still keep
	pages []recorded         // in the order asked
	bad   bool               // an error answer, or answers past the bound
	order map[string][]int   // method -> indexes of its pages, in order

	mu    sync.Mutex
	count map[string]int // pages listCatalog read per method (see counted)
	// lines is the bytes of expected lines (see lineTemplate) the
	// recording may still keep: as many as of answers, so that a server
	// whose envelopes carry more than their results cannot make the
	// dispatcher hold more than twice MaxCatalogBytes between calls.
	lines int
}

// recordingKey marks the context of a recorded read, so that pages counts
// the pages it reads of each list.
type recordingKey struct{}

// counted records that pages read one page of method in the read of ctx.
func counted(ctx context.Context, method string) {
	if r, ok := ctx.Value(recordingKey{}).(*recording); ok {
		r.mu.Lock()
		r.count[method]++
		r.mu.Unlock()
	}
}

type recorded struct {
	method string
	params []byte
	result []byte
	done   bool
	line   *lineTemplate // learnt by the first replay (see lineTemplate)
	tried  bool          // a replay tried to learn line (once a recording)
}

// tapTransport wraps a transport so that its connection goes through t.
type tapTransport struct {
	inner mcp.Transport
	t     *tap
}

func (tt tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := tt.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	tt.t.mu.Lock()
	tt.t.conn = c
	if w, ok := c.(*wireConn); ok {
		// The dispatcher's own connection offers the tap each line
		// before decoding it (see identical).
		w.tap = tt.t
	}
	tt.t.mu.Unlock()
	return tapConn{c, tt.t}, nil
}

type tapConn struct {
	inner mcp.Connection
	t     *tap
}

func (c tapConn) SessionID() string { return c.inner.SessionID() }
func (c tapConn) Close() error      { return c.inner.Close() }

func (c tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if writeHook != nil {
		writeHook(msg)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.t.mu.Lock()
		c.t.expect(req.ID, false)
		if r := c.t.rec; r != nil && listMethods[req.Method] {
			r.asked[req.ID] = len(r.pages)
			r.order[req.Method] = append(r.order[req.Method], len(r.pages))
			r.pages = append(r.pages, recorded{method: req.Method, params: bytes.Clone(req.Params)})
		}
		c.t.mu.Unlock()
	}
	return c.inner.Write(ctx, msg)
}

// Read hands go-sdk every message but the answers to the tap's own replayed
// requests, which go to the replay waiting for them (or are dropped, if
// that replay gave up on them). An answer to no call the tap saw written
// spoils the recording or replay in progress (see tap).
func (c tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.inner.Read(ctx)
		if err != nil {
			c.t.once.Do(func() { close(c.t.closed) })
			return msg, err
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			return msg, nil
		}
		c.t.mu.Lock()
		own, expected := c.t.expected[resp.ID]
		delete(c.t.expected, resp.ID)
		if !expected {
			c.t.unexpectedAnswer()
			c.t.mu.Unlock()
			return msg, nil // go-sdk drops an answer to no pending call
		}
		if own {
			p, waiting := c.t.waiting[resp.ID]
			delete(c.t.waiting, resp.ID)
			c.t.mu.Unlock()
			if waiting {
				a := answer{resp: resp}
				if w, ok := c.inner.(*wireConn); ok && p.learn {
					// The line is the reader's until the next Read.
					a.raw = bytes.Clone(w.last)
				}
				p.ch <- a // buffered: never blocks
			}
			continue
		}
		if r := c.t.rec; r != nil {
			if i, ok := r.asked[resp.ID]; ok {
				delete(r.asked, resp.ID)
				r.left -= len(resp.Result)
				if resp.Error != nil || r.left < 0 {
					// An error, or answers larger than the bound: the
					// next read is a full one.
					r.bad = true
				} else {
					r.pages[i].result = bytes.Clone(resp.Result)
					r.pages[i].done = true
				}
			}
		}
		c.t.mu.Unlock()
		return msg, nil
	}
}

// record starts recording a full read, keeping at most maxBytes of raw
// answers; stop ends it and returns the recording if it holds every page
// listCatalog read and nothing else.
func (t *tap) record(maxBytes int) *recording {
	r := &recording{asked: map[jsonrpc.ID]int{}, order: map[string][]int{}, count: map[string]int{}, left: maxBytes, lines: maxBytes}
	t.mu.Lock()
	t.rec = r
	t.mu.Unlock()
	return r
}

func (t *tap) stop(r *recording) *recording {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rec = nil
	if r.bad || len(r.asked) != 0 {
		return nil
	}
	for m := range listMethods {
		// A page go-sdk answered from its list cache was not asked for:
		// the recording would miss it.
		if len(r.order[m]) != r.count[m] {
			return nil
		}
	}
	for _, p := range r.pages {
		if !p.done {
			return nil
		}
	}
	return r
}

// keepLine reports whether the recording may keep an expected line of n
// bytes, and counts it if so. A line it may not keep costs only its
// decoding at each replay.
func (r *recording) keepLine(n int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > r.lines {
		return false
	}
	r.lines -= n
	return true
}

// errReplayDiffers: an answer of the replay differs from the recorded one.
var errReplayDiffers = errors.New("dispatch: a list answer differs from the verified one")

// replay asks for every recorded page again, the lists at once and tools
// last, and returns nil only if every answer is byte for byte the recorded
// one; errReplayDiffers if one differs; a read error otherwise.
func (t *tap) replay(ctx context.Context, r *recording) error {
	st := &replayState{}
	t.mu.Lock()
	t.replaying = st
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.replaying = nil
		t.mu.Unlock()
	}()
	var wg sync.WaitGroup
	var errs [4]error
	for i, m := range []string{"resources/list", "resources/templates/list", "prompts/list"} {
		if len(r.order[m]) > 0 {
			wg.Go(func() { errs[i+1] = t.replayList(ctx, r, m) })
		}
	}
	if len(r.order["tools/list"]) > 0 {
		errs[0] = t.replayList(ctx, r, "tools/list")
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, errReplayDiffers) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if st.unexpected {
		return errReplayDiffers
	}
	return nil
}

func (t *tap) replayList(ctx context.Context, r *recording, method string) error {
	for _, i := range r.order[method] {
		p := &r.pages[i]
		if err := ctx.Err(); err != nil {
			return readError(ctx, method, err)
		}
		if pageHook != nil {
			pageHook(ctx, method)
		}
		learn := t.wire() && p.line == nil && !p.tried
		a, idRaw, err := t.roundTrip(ctx, method, p.params, p.line, learn)
		if err != nil {
			return readError(ctx, method, err)
		}
		if a.same {
			continue // the expected line, byte for byte
		}
		if a.resp.Error != nil || !bytes.Equal(a.resp.Result, p.result) {
			return errReplayDiffers
		}
		if learn && a.raw != nil {
			// Once: a line that makes no template (or is past the
			// bound) would otherwise cost a second decode each time.
			p.tried = true
			if r.keepLine(len(a.raw)) {
				p.line = learnTemplate(a.raw, idRaw, p.result)
			}
		}
	}
	return nil
}

// roundTrip sends one request on the tap's own ID space and waits for its
// answer, the context, or the connection's end. line is the answer line
// expected, if one was learnt; with learn, the answer carries its line and
// roundTrip returns the ID's bytes, to learn one.
func (t *tap) roundTrip(ctx context.Context, method string, params []byte, line *lineTemplate, learn bool) (answer, []byte, error) {
	t.mu.Lock()
	t.sent++
	name := fmt.Sprintf("automium-verify-%d", t.sent)
	id, err := jsonrpc.MakeID(name)
	if err != nil {
		t.mu.Unlock()
		return answer{}, nil, err
	}
	p := &pending{ch: make(chan answer, 1), idRaw: []byte(`"` + name + `"`), line: line, learn: learn}
	t.waiting[id] = p
	t.expect(id, true)
	conn := t.conn
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.waiting, id)
		t.mu.Unlock()
	}()
	if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		return answer{}, nil, err
	}
	select {
	case a := <-p.ch:
		return a, p.idRaw, nil
	case <-ctx.Done():
		return answer{}, nil, ctx.Err()
	case <-t.closed:
		return answer{}, nil, errors.New("the connection closed")
	}
}
