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
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests drive a small real mcp.Server over the transport through pipes, the
// way a client process drives cmd/automium-mcp, and read the raw lines back.

const (
	initializeLine  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stdio-test","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

type sleepInput struct {
	Millis int `json:"millis"`
}

type echoInput struct {
	Text string `json:"text"`
}

type echoOutput struct {
	Text string `json:"text"`
}

// newTestServer returns a server with an echo tool and a sleep tool whose sleep is
// cut short (and reported as an error) if the SDK cancels the call. With blocking,
// it also has a block tool that only returns when cancelled.
func newTestServer(blocking bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, echoOutput, error) {
			return nil, echoOutput(in), nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "sleep"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepInput) (*mcp.CallToolResult, echoOutput, error) {
			select {
			case <-time.After(time.Duration(min(in.Millis, 2000)) * time.Millisecond):
				return nil, echoOutput{Text: "slept"}, nil
			case <-ctx.Done():
				return nil, echoOutput{}, fmt.Errorf("cancelled: %w", context.Cause(ctx))
			}
		})
	if blocking {
		mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "block"},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOutput, error) {
				<-ctx.Done()
				return nil, echoOutput{}, ctx.Err()
			})
	}
	return s
}

// response is a JSON-RPC response line as a client sees it.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc.Error  `json:"error,omitempty"`
}

// session is one server connected to the test through two pipes.
type session struct {
	t     testing.TB
	stdin *io.PipeWriter
	lines chan []byte // every line the server writes; closed when it stops writing
	done  chan error  // Server.Run's result
}

// serve runs a test server on tr, with tr's Reader and Writer replaced by pipes.
func serve(t testing.TB, tr *Transport) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.Reader, tr.Writer = inR, outW
	s := &session{t: t, stdin: inW, lines: make(chan []byte, 10000), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			s.lines <- bytes.Clone(sc.Bytes())
		}
		close(s.lines)
	}()
	go func() {
		err := newTestServer(true).Run(context.Background(), tr)
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
	})
	return s
}

// send writes each line followed by a newline.
func (s *session) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.stdin, l+"\n"); err != nil {
			s.t.Fatalf("writing %.80q: %v", l, err)
		}
	}
}

// next returns the next response line. It waits as long as it takes: no
// unit test here bounds the machine's speed, and a response that never comes
// ends the test binary at its timeout, with every goroutine's stack.
func (s *session) next() response {
	s.t.Helper()
	line, ok := <-s.lines
	if !ok {
		s.t.Fatal("server closed stdout; want another response")
	}
	var r response
	if err := json.Unmarshal(line, &r); err != nil {
		s.t.Fatalf("server wrote a line that is not JSON: %v\n%s", err, line)
	}
	if r.JSONRPC != "2.0" {
		s.t.Fatalf("server wrote a line without jsonrpc 2.0: %s", line)
	}
	return r
}

// initialize performs the 2025-11-25 handshake.
func (s *session) initialize() {
	s.t.Helper()
	s.send(initializeLine, initializedLine)
	if r := s.next(); r.Error != nil || string(r.ID) != "0" {
		s.t.Fatalf("initialize: got %+v", r)
	}
}

// finish closes stdin and returns what the server wrote after that and Run's result.
func (s *session) finish() ([]response, error) {
	s.t.Helper()
	s.stdin.Close()
	var rest []response
	for line := range s.lines {
		var r response
		if err := json.Unmarshal(line, &r); err != nil {
			s.t.Fatalf("server wrote a line that is not JSON: %v\n%s", err, line)
		}
		rest = append(rest, r)
	}
	return rest, <-s.done
}

// summary is what the malformed-input table compares: the id and the error code.
type summary struct {
	ID   string
	Code int64 // 0 for a result
}

func summarize(r response) summary {
	s := summary{ID: string(r.ID)}
	if r.Error != nil {
		s.Code = r.Error.Code
	}
	return s
}

func TestBadLinesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	const ping = `{"jsonrpc":"2.0","id":"after","method":"ping"}`
	tests := []struct {
		name string
		line string
		want []summary
	}{
		{"not JSON", `{not json`, []summary{{"null", jsonrpc.CodeParseError}}},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"ping"`, []summary{{"null", jsonrpc.CodeParseError}}},
		{"two values on one line", `{"jsonrpc":"2.0","id":1,"method":"ping"}{}`, []summary{{"null", jsonrpc.CodeParseError}}},
		{"binary garbage", "\x00\xff\xfe", []summary{{"null", jsonrpc.CodeParseError}}},
		{"JSON scalar", `42`, []summary{{"null", jsonrpc.CodeInvalidRequest}}},
		{"JSON null", `null`, []summary{{"null", jsonrpc.CodeInvalidRequest}}},
		{"object that is not JSON-RPC, string id", `{"foo":1,"id":"abc"}`, []summary{{`"abc"`, jsonrpc.CodeInvalidRequest}}},
		{"request without jsonrpc member", `{"id":7,"method":"ping"}`, []summary{{"7", jsonrpc.CodeInvalidRequest}}},
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, []summary{{"8", jsonrpc.CodeInvalidRequest}}},
		{"id without method, result or error", `{"jsonrpc":"2.0","id":16}`, []summary{{"16", jsonrpc.CodeInvalidRequest}}},
		{"method is not a string", `{"jsonrpc":"2.0","id":9,"method":5}`, []summary{{"9", jsonrpc.CodeInvalidRequest}}},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, []summary{{"null", jsonrpc.CodeInvalidRequest}}},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, []summary{{"null", jsonrpc.CodeInvalidRequest}}},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, []summary{{"1.5", jsonrpc.CodeInvalidRequest}}},
		{"id beyond 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, []summary{{"9007199254740993", jsonrpc.CodeInvalidRequest}}},
		{"id out of float range", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, []summary{{"1e400", jsonrpc.CodeInvalidRequest}}},
		{"largest exact id", `{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, []summary{{"-9007199254740991", 0}}},
		{"unknown method", `{"jsonrpc":"2.0","id":10,"method":"no/such/method"}`, []summary{{"10", jsonrpc.CodeMethodNotFound}}},
		{"empty batch", `[]`, []summary{{"null", jsonrpc.CodeInvalidRequest}}},
		{"batch of scalars", `[1,2,3]`, []summary{{"null", jsonrpc.CodeInvalidRequest}}},
		{
			"batch of a request and a notification",
			`[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
			[]summary{{"null", jsonrpc.CodeInvalidRequest}}, // one error for the batch, as over HTTP
		},
		{
			"batch of two requests and junk",
			`[{"jsonrpc":"2.0","id":"a","method":"ping"},7,{"jsonrpc":"2.0","id":12,"method":"ping"}]`,
			[]summary{{"null", jsonrpc.CodeInvalidRequest}},
		},
		{"blank line", "   \t", nil},
		{"notification of an unknown method", `{"jsonrpc":"2.0","method":"notifications/unknown"}`, nil},
		{"response to no request", `{"jsonrpc":"2.0","id":99,"result":{}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, &Transport{})
			s.initialize()
			s.send(tt.line, ping)
			// MCP does not promise answers in order: collect them all, then
			// compare by id.
			rest, err := s.finish()
			if err != nil {
				t.Fatalf("Run = %v, want nil at end of input", err)
			}
			var got []summary
			pinged := false
			for _, r := range rest {
				if string(r.ID) == `"after"` {
					if r.Error != nil {
						t.Fatalf("ping after the bad line failed: %+v", r.Error)
					}
					pinged = true
					continue
				}
				got = append(got, summarize(r))
			}
			if !pinged {
				t.Error("the ping after the bad line was not answered")
			}
			if diff := cmp.Diff(tt.want, got, bySummary); diff != "" {
				t.Errorf("responses to %q (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// bySummary compares summaries as a multiset: the order of answers is not part
// of MCP.
var bySummary = cmpopts.SortSlices(func(a, b summary) bool {
	return a.ID < b.ID || (a.ID == b.ID && a.Code < b.Code)
})

func TestParseErrorMessageNamesTheProblem(t *testing.T) {
	s := serve(t, &Transport{})
	s.send(`{not json`)
	r := s.next()
	if r.Error == nil || !strings.HasPrefix(r.Error.Message, "Parse error: invalid character 'o'") {
		t.Errorf("got %+v, want a parse error naming the bad character", r.Error)
	}
}

func TestOversizedLine(t *testing.T) {
	const limit = 1024
	pad := strings.Repeat("x", 2*limit)
	tests := []struct {
		name string
		line string
		want summary
	}{
		{"id before the cut", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + pad + `"}}}`, summary{"5", jsonrpc.CodeInvalidRequest}},
		{"string id before the cut", `{"id":"big","jsonrpc":"2.0","method":"ping","params":{"_meta":{"pad":"` + pad + `"}}}`, summary{`"big"`, jsonrpc.CodeInvalidRequest}},
		{"id after the cut", `{"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 2*idSniffBytes) + `"}},"jsonrpc":"2.0","id":6}`, summary{"null", jsonrpc.CodeInvalidRequest}},
		{"id after the limit but within the sniffed start", `{"method":"ping","params":{"_meta":{"pad":"` + pad + `"}},"jsonrpc":"2.0","id":6}`, summary{"6", jsonrpc.CodeInvalidRequest}},
		{"not JSON at all", pad, summary{"null", jsonrpc.CodeInvalidRequest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, &Transport{MaxLineBytes: limit})
			s.initialize()
			s.send(tt.line, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			r := s.next()
			if diff := cmp.Diff(tt.want, summarize(r)); diff != "" {
				t.Errorf("response to the oversized line (-want +got):\n%s", diff)
			}
			if r.Error != nil && !strings.Contains(r.Error.Message, "1024 bytes") {
				t.Errorf("message %q does not state the limit", r.Error.Message)
			}
			if got := summarize(s.next()); got != (summary{`"after"`, 0}) {
				t.Errorf("next request: got %+v, want a result for \"after\"", got)
			}
		})
	}
}

// TestLineLimitBoundary: a line of exactly MaxLineBytes is served, whatever its
// line ending; one byte more is refused; the session lives on.
func TestLineLimitBoundary(t *testing.T) {
	const limit = 1024
	for _, ending := range []string{"\n", "\r\n"} {
		s := serve(t, &Transport{MaxLineBytes: limit})
		io.WriteString(s.stdin, paddedPing(1, limit)+ending)
		if got := summarize(s.next()); got != (summary{"1", 0}) {
			t.Errorf("line of exactly the limit, ending %q: got %+v, want a result", ending, got)
		}
		io.WriteString(s.stdin, paddedPing(2, limit+1)+ending+`{"jsonrpc":"2.0","id":3,"method":"ping"}`+ending)
		got := []summary{summarize(s.next()), summarize(s.next())}
		if diff := cmp.Diff([]summary{{"2", jsonrpc.CodeInvalidRequest}, {"3", 0}}, got); diff != "" {
			t.Errorf("ending %q (-want +got):\n%s", ending, diff)
		}
	}
}

// paddedPing is a ping request of exactly size bytes.
func paddedPing(id, size int) string {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":"`, id)
	const tail = `"}}}`
	return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
}

// TestDefaultLineLimit proves the documented 16 MiB default: one byte more is
// refused and the session lives on. Serving a line of exactly 16 MiB is checked
// too, except under the race detector, which makes decoding it take half a minute.
func TestDefaultLineLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	s := serve(t, &Transport{})
	s.send(paddedPing(1, DefaultMaxLineBytes+1), `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	got := []summary{summarize(s.next()), summarize(s.next())}
	if diff := cmp.Diff([]summary{{"1", jsonrpc.CodeInvalidRequest}, {"2", 0}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if testsupport.RaceEnabled {
		return
	}
	s.send(paddedPing(3, DefaultMaxLineBytes))
	if got := summarize(s.next()); got != (summary{"3", 0}) {
		t.Errorf("line of exactly DefaultMaxLineBytes: got %+v, want a result", got)
	}
}

// TestBurstThenEndOfInput is go-sdk issue 1061: every request written before the
// client closes stdin is answered, none is cancelled, and Run ends cleanly.
func TestBurstThenEndOfInput(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	const runs, burst = 20, 50
	for run := range runs {
		s := serve(t, &Transport{})
		s.send(initializeLine, initializedLine)
		for i := range burst {
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"millis":%d}}}`, i+1, 10+i%5*5))
		}
		rest, err := s.finish()
		if err != nil {
			t.Fatalf("run %d: Run = %v, want nil", run, err)
		}
		if len(rest) != burst+1 {
			t.Fatalf("run %d: got %d responses, want %d", run, len(rest), burst+1)
		}
		seen := map[string]bool{}
		for _, r := range rest {
			if r.Error != nil || bytes.Contains(r.Result, []byte(`"isError":true`)) {
				t.Errorf("run %d: id %s failed: %+v %s", run, r.ID, r.Error, r.Result)
			}
			seen[string(r.ID)] = true
		}
		if len(seen) != burst+1 {
			t.Errorf("run %d: %d distinct ids answered, want %d", run, len(seen), burst+1)
		}
	}
}

func TestFinalLineWithoutNewline(t *testing.T) {
	s := serve(t, &Transport{})
	s.send(initializeLine, initializedLine)
	io.WriteString(s.stdin, `{"jsonrpc":"2.0","id":"last","method":"tools/list"}`)
	rest, err := s.finish()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]summary, len(rest))
	for i, r := range rest {
		got[i] = summarize(r)
	}
	if diff := cmp.Diff([]summary{{"0", 0}, {`"last"`, 0}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCRLFLineEndings(t *testing.T) {
	s := serve(t, &Transport{})
	io.WriteString(s.stdin, initializeLine+"\r\n"+initializedLine+"\r\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\r\n")
	if got := []summary{summarize(s.next()), summarize(s.next())}; !cmp.Equal(got, []summary{{"0", 0}, {"1", 0}}) {
		t.Errorf("got %+v", got)
	}
}

// TestDuplicateInFlightID reuses the id of a call that cannot finish before
// the test lets it (the block tool returns only when cancelled), so the second
// request arrives while the first is in flight however the goroutines are
// scheduled.
func TestDuplicateInFlightID(t *testing.T) {
	s := serve(t, &Transport{})
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if got := summarize(s.next()); got != (summary{"7", jsonrpc.CodeInvalidRequest}) {
		t.Fatalf("the duplicate got %+v, want -32600 with id 7", got)
	}
	// The refusal left the first call alone: it is still in flight, and
	// cancelled it ends without an answer, as MCP asks.
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	// Once answered, an id may be used again.
	for range 2 {
		s.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
		if got := summarize(s.next()); got != (summary{"8", 0}) {
			t.Errorf("reused answered id: got %+v, want a result", got)
		}
	}
	rest, err := s.finish()
	if err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	for _, r := range rest {
		t.Errorf("unexpected answer after the session: %s %s %+v", r.ID, r.Result, r.Error)
	}
}

// TestCancellation: a cancellation naming no call in flight must not cancel a
// later call that reuses the id, which go-sdk's asynchronous cancellation
// otherwise does about one time in five; one naming a call in flight cuts the
// call short, and the call then gets no answer at all, as MCP asks, whatever its
// handler returned.
func TestCancellation(t *testing.T) {
	s := serve(t, &Transport{})
	s.initialize()
	for i := range 50 {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, i),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"millis":5}}}`, i))
		if r := s.next(); !bytes.Contains(r.Result, []byte("slept")) {
			t.Fatalf("call %d was cancelled by a cancellation sent before it: %s", i, r.Result)
		}
	}
	for _, c := range []struct{ tool, args string }{{"sleep", `{"millis":2000}`}, {"block", `{}`}} {
		tool, args := c.tool, c.args
		s.send(`{"jsonrpc":"2.0","id":"long-`+tool+`","method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`,
			`{"jsonrpc":"2.0","id":"p-`+tool+`","method":"ping"}`)
		if r := s.next(); string(r.ID) != `"p-`+tool+`"` { // the SDK has read the long call
			t.Fatalf("got %s, want the ping's answer", r.ID)
		}
		s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long-` + tool + `"}}`)
	}
	// End of input waits for both calls (the drain has no clock), and neither
	// is answered.
	rest, err := s.finish()
	if err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	for _, r := range rest {
		t.Errorf("cancelled call answered: %s %s %+v", r.ID, r.Result, r.Error)
	}
}

// TestRequestBeforeInitialize: the SDK answers a call before initialize with a
// plain Go error, which would reach the wire as code 0; the request is not
// valid at that point of the session, so it is -32600.
func TestRequestBeforeInitialize(t *testing.T) {
	s := serve(t, &Transport{})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r := s.next()
	want := &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: `Invalid Request: "tools/list" was sent before initialize; send initialize first`}
	if diff := cmp.Diff(want, r.Error); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDrainTimeout(t *testing.T) {
	s := serve(t, &Transport{DrainTimeout: 50 * time.Millisecond})
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	_, err := s.finish()
	if err == nil || !strings.Contains(err.Error(), "1 request(s) still unanswered") {
		t.Errorf("Run = %v, want the drain timeout error", err)
	}
}

// TestStopEndsGracefully: closing Stop (as the binary does on SIGTERM) with stdin
// still open answers what is in flight, then ends the session without error.
func TestStopEndsGracefully(t *testing.T) {
	stop := make(chan struct{})
	s := serve(t, &Transport{Stop: stop})
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"millis":200}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	// Once the ping is answered, the SDK has read the call too. MCP does not
	// promise order, so the call's answer may already be there.
	var early *response
	for {
		r := s.next()
		if string(r.ID) == "2" {
			break
		}
		early = &r
	}
	close(stop)
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Stop")
	}
	r := early
	if r == nil {
		next := s.next()
		r = &next
	}
	if summarize(*r) != (summary{"1", 0}) || !bytes.Contains(r.Result, []byte("slept")) {
		t.Errorf("in-flight call: got %+v %s, want its result", r, r.Result)
	}
}

// TestListenDoesNotHoldEndOfInput: a SEP-2575 subscriptions/listen call stays open
// until input ends, so it must not be waited for (DrainTimeout is infinite here).
func TestListenDoesNotHoldEndOfInput(t *testing.T) {
	s := serve(t, &Transport{DrainTimeout: -1})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	rest, err := s.finish()
	if err != nil {
		t.Fatal(err)
	}
	var answered []string
	for _, r := range rest {
		if r.ID != nil {
			answered = append(answered, string(r.ID))
		}
	}
	if diff := cmp.Diff([]string{"2"}, answered); diff != "" {
		t.Errorf("answered ids (-want +got):\n%s", diff)
	}
}

// failingWriter accepts n lines and then fails with err.
type failingWriter struct {
	mu  sync.Mutex
	n   int
	err error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		return 0, w.err
	}
	w.n--
	return len(p), nil
}

// TestBrokenWriter: when responses can no longer be delivered, end of input must
// not wait for them (DrainTimeout is infinite here). A client that closed its end
// of the pipe has ended the session normally; any other write error is reported.
func TestBrokenWriter(t *testing.T) {
	input := strings.Join([]string{
		initializeLine, initializedLine,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"millis":50}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`,
	}, "\n") + "\n"
	diskFull := errors.New("disk full")
	tests := []struct {
		name    string
		err     error
		wantErr error
	}{
		{"closed pipe", io.ErrClosedPipe, nil},
		{"broken pipe", &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}, nil},
		{"other error", diskFull, diskFull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				done <- newTestServer(true).Run(context.Background(), &Transport{
					Reader: strings.NewReader(input), Writer: &failingWriter{n: 1, err: tt.err}, DrainTimeout: -1})
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Errorf("Run = %v, want %v", err, tt.wantErr)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return after the writer failed")
			}
		})
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	c, err := (&Transport{Reader: r, Writer: io.Discard}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		read <- err
	}()
	var wg sync.WaitGroup
	for range 3 { // Close is idempotent and safe to call concurrently
		wg.Go(func() { c.Close() })
	}
	wg.Wait()
	select {
	case err := <-read:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read after Close = %v, want io.EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked 5s after Close")
	}
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: makeID(t, float64(1))}); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("Write after Close = %v, want mcp.ErrConnectionClosed", err)
	}
}

func makeID(t testing.TB, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// syncBuffer is a bytes.Buffer that tolerates concurrent writers.
type syncBuffer = testsupport.LockedBuffer

// TestConcurrentWritesKeepLinesWhole writes large responses from many goroutines;
// every line must decode on its own.
func TestConcurrentWritesKeepLinesWhole(t *testing.T) {
	var out syncBuffer
	c, err := (&Transport{Reader: strings.NewReader(""), Writer: &out}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const writers = 64
	big := json.RawMessage(`"` + strings.Repeat("y", 100<<10) + `"`)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			if err := c.Write(context.Background(), &jsonrpc.Response{ID: makeID(t, float64(i)), Result: big}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != writers {
		t.Fatalf("got %d lines, want %d", len(lines), writers)
	}
	for _, l := range lines {
		if _, err := jsonrpc.DecodeMessage(l); err != nil {
			t.Fatalf("line does not decode: %v", err)
		}
	}
}

func TestEncodeResponse(t *testing.T) {
	tests := []struct {
		name string
		resp *jsonrpc.Response
		want string
	}{
		{"result", &jsonrpc.Response{ID: makeID(t, float64(1)), Result: json.RawMessage(`{}`)},
			`{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"code kept, text not", &jsonrpc.Response{ID: makeID(t, "a"), Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad"}},
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"Invalid params: the params of \"tools/call\" do not have the shape MCP defines for them, or name nothing this server has"}}`},
		{"wrapped code kept", &jsonrpc.Response{ID: makeID(t, float64(2)), Error: fmt.Errorf("calling: %w", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "x"})},
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: the params of \"tools/call\" do not have the shape MCP defines for them, or name nothing this server has"}}`},
		{"plain error gets -32603", &jsonrpc.Response{ID: makeID(t, float64(3)), Error: errors.New("boom")},
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error: the server failed to answer the call of \"tools/call\"; this is a bug, please report it"}}`},
		{"code 0 gets -32603, go-sdk's data dropped", &jsonrpc.Response{ID: makeID(t, float64(4)), Error: &jsonrpc.Error{Message: "zero", Data: json.RawMessage(`{"k":1}`)}},
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error: the server failed to answer the call of \"tools/call\"; this is a bug, please report it"}}`},
		{"the server's own error kept", &jsonrpc.Response{ID: makeID(t, float64(5)), Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unsupported_operation: name: unknown tool", Data: json.RawMessage(`{"error":{"code":"unsupported_operation","message":"unknown tool"}}`)}},
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"unsupported_operation: name: unknown tool","data":{"error":{"code":"unsupported_operation","message":"unknown tool"}}}}`},
		{"missing id becomes null", &jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "dup"}},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the call of \"tools/call\" is not one the server can serve in this session; check that it carries the params MCP requires of it"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeResponse(tt.resp, "tools/call")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSDKClient checks interoperability with the go-sdk client, in both the
// initialize handshake and the SDK's default sessionless protocol.
func TestSDKClient(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		t.Run("protocol="+version, func(t *testing.T) {
			ctx := context.Background()
			clientIn, serverOut := io.Pipe()
			serverIn, clientOut := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- newTestServer(true).Run(ctx, &Transport{Reader: serverIn, Writer: serverOut}) }()

			client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test-client", Version: "v0"}, nil)
			cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != 3 {
				t.Errorf("got %d tools, want 3", len(tools.Tools))
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]any{"text": "hi"}, res.StructuredContent); diff != "" {
				t.Errorf("echo (-want +got):\n%s", diff)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("closing the client: %v", err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run = %v, want nil after the client closed", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("server did not stop after the client closed")
			}
		})
	}
}
