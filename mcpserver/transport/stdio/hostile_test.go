package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/mcpserver/transport/internal/envelope"
	sessions "github.com/automium/automium/mcpserver/transport/internal/session"
)

// Lines of the sessionless protocol (2026-07-28), as the go-sdk client sends them.
const (
	sessionlessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	discoverLine    = `{"jsonrpc":"2.0","id":"discover","method":"server/discover","params":{` + sessionlessMeta + `}}`
)

func sessionlessCall(id, method string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":{%s}}`, id, method, sessionlessMeta)
}

// TestStructureBound: a line over the structure bound is refused with -32600 and
// its id, wherever the id sits, and the session goes on.
func TestStructureBound(t *testing.T) {
	many := strings.TrimSuffix(strings.Repeat(`{},`, DefaultMaxValues), ",")
	deep := strings.Repeat(`[`, DefaultMaxDepth) + strings.Repeat(`]`, DefaultMaxDepth)
	tests := []struct {
		name string
		line string
		want summary
	}{
		{"values in _meta of tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"x":[` + many + `]},"arguments":{"text":"a"}}}`,
			summary{"1", jsonrpc.CodeInvalidRequest}},
		{"values before the id", `{"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"x":[` + many + `]}},"id":"late"}`,
			summary{`"late"`, jsonrpc.CodeInvalidRequest}},
		{"values in a notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":[` + many + `]}}`,
			summary{"null", jsonrpc.CodeInvalidRequest}},
		{"depth one level over", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"x":` + deep + `}}}`,
			summary{"2", jsonrpc.CodeInvalidRequest}},
		{"at the bounds is served", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"x":` + deep[3:len(deep)-3] + `}}}`,
			summary{"3", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, &Transport{})
			s.initialize()
			s.send(tt.line, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			rest, err := s.finish()
			if err != nil {
				t.Fatal(err)
			}
			var got []summary
			for _, r := range rest {
				got = append(got, summarize(r))
				if r.Error != nil && len(r.Error.Message) > 200 {
					t.Errorf("error message of %d bytes", len(r.Error.Message))
				}
			}
			if diff := cmp.Diff([]summary{tt.want, {`"after"`, 0}}, got, bySummary); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionlessVersion(t *testing.T) {
	tests := []struct {
		params      string
		wantVersion string
	}{
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, "2026-07-28"},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`, ""},
		{`{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, "2026-07-28"},
		{`{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, "2026-07-28"},
		{`{"_meta":{"IO.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, ""}, // the map's keys match exactly
		{`{"_meta":null}`, ""},
		{`{"_meta":{}}`, ""},
		{`{}`, ""},
	}
	for _, tt := range tests {
		view, problem := envelope.Parse([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+tt.params+`}`), envelope.Limits{})
		if problem != nil {
			t.Fatalf("door refused %s: %v", tt.params, problem)
		}
		version := view.ProtocolVersion
		if version < sessions.SessionlessFrom {
			version = ""
		}
		if version != tt.wantVersion {
			t.Errorf("sessionless version of %s = %q; want %q", tt.params, version, tt.wantVersion)
		}
	}

}

// TestOneProtocolPerSession: the first initialize or sessionless call fixes the
// session's protocol; calls of the other protocol are refused, not served in
// another shape.
func TestOneProtocolPerSession(t *testing.T) {
	listInit := `{"jsonrpc":"2.0","id":"list","method":"tools/list"}`
	tests := []struct {
		name  string
		lines []string
		want  []summary
	}{
		{"handshake, then a sessionless discover and call",
			[]string{initializeLine, initializedLine, discoverLine, sessionlessCall("sl", "tools/list"), listInit},
			[]summary{{"0", 0}, {`"discover"`, jsonrpc.CodeInvalidRequest}, {`"sl"`, jsonrpc.CodeInvalidRequest}, {`"list"`, 0}}},
		{"sessionless, then initialize and a plain call",
			[]string{discoverLine, sessionlessCall("sl", "tools/list"), initializeLine, listInit, `{"jsonrpc":"2.0","id":"p","method":"ping"}`},
			[]summary{{`"discover"`, 0}, {`"sl"`, 0}, {"0", jsonrpc.CodeInvalidRequest}, {`"list"`, jsonrpc.CodeInvalidRequest}, {`"p"`, 0}}},
		{"an unsupported sessionless version decides nothing",
			[]string{strings.ReplaceAll(discoverLine, "2026-07-28", "2099-01-01"), initializeLine, listInit},
			[]summary{{`"discover"`, mcp.CodeUnsupportedProtocolVersion}, {"0", 0}, {`"list"`, 0}}},
		{"a protocol version too long to be one",
			[]string{strings.ReplaceAll(discoverLine, "2026-07-28", "2099-"+strings.Repeat("9", 1<<16))},
			[]summary{{`"discover"`, jsonrpc.CodeInvalidRequest}}},
		{"two _meta members",
			[]string{`{"jsonrpc":"2.0","id":"d","method":"tools/list","params":{"_meta":{},` + sessionlessMeta + `}}`},
			[]summary{{`"d"`, jsonrpc.CodeInvalidRequest}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, &Transport{})
			s.send(tt.lines...)
			rest, err := s.finish()
			if err != nil {
				t.Fatal(err)
			}
			var got []summary
			for _, r := range rest {
				got = append(got, summarize(r))
				if r.Error != nil && len(r.Error.Message) > 300 {
					t.Errorf("error message of %d bytes: %.100s", len(r.Error.Message), r.Error.Message)
				}
			}
			if diff := cmp.Diff(tt.want, got, bySummary); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSDKErrorsArePlain: the SDK's errors for bad params name Go types and quote
// the params whole; they are rendered from their code and the call's method,
// so clients get a plain, stable message instead.
func TestSDKErrorsArePlain(t *testing.T) {
	pad := strings.Repeat("<", 1<<16)
	tests := []struct {
		name string
		line string
		want jsonrpc.Error
	}{
		{"tools/call name of the wrong type", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5,"pad":"` + pad + `"}}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: the params of "tools/call" do not have the shape MCP defines for them, or name nothing this server has`}},
		{"tools/call arguments of the wrong type", `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"x","arguments":"text"}}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: the params of "prompts/get" do not have the shape MCP defines for them, or name nothing this server has`}},
		{"resources/read without params", `{"jsonrpc":"2.0","id":3,"method":"resources/read"}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: `Invalid Request: the call of "resources/read" is not one the server can serve in this session; check that it carries the params MCP requires of it`}},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"no/such/` + strings.Repeat("m", 100) + `"}`,
			jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: `Method not found: "no/such/` + strings.Repeat("m", 32) + `"… (108 bytes)`}},
		{"method longer than any", `{"jsonrpc":"2.0","id":5,"method":"` + strings.Repeat("é", 1<<16) + `"}`,
			jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: `Method not found: "` + strings.Repeat("é", 20) + `"… (131072 bytes)`}},
		{"params a string", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":"x"}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: the params of "tools/list" must be a JSON object`}},
		{"jsonrpc a number", `{"jsonrpc":2,"id":7,"method":"ping"}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: `Invalid Request: "jsonrpc" must be "2.0"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, &Transport{})
			s.initialize()
			s.send(tt.line)
			r := s.next()
			if diff := cmp.Diff(&tt.want, r.Error); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestInitializeParamsErrors: bad initialize params are -32602, never the
// SDK's plain error (code 0) naming *mcp.initializeParamsV2, and leave the
// session open to a corrected initialize.
func TestInitializeParamsErrors(t *testing.T) {
	tests := []struct {
		name string
		line string
		want jsonrpc.Error
	}{
		{"protocolVersion a number", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: the params of "initialize" do not have the shape MCP defines for them`}},
		{"capabilities a list", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":[],"clientInfo":{"name":"x","version":"0"}}}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: the params of "initialize" do not have the shape MCP defines for them`}},
		{"no params", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: `Invalid Request: the call of "initialize" is not one the server can serve in this session; check that it carries the params MCP requires of it`}},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`,
			jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: the params of "initialize" do not have the shape MCP defines for them`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, &Transport{})
			s.send(tt.line)
			if diff := cmp.Diff(&tt.want, s.next().Error); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// go-sdk kept nothing of the refused initialize: the session
			// is not pinned by it, and a corrected one is served.
			s.initialize()
		})
	}
}

// TestPlacesStopTheReading drives the connection directly: with every place
// taken by a call whose answer is not written, the next Read does not return a
// call; writing one answer frees a place and lets it through.
func TestPlacesStopTheReading(t *testing.T) {
	const places = 3
	in := strings.Repeat(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n", 2)
	for i := range places + 2 {
		in += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
	}
	c, err := (&Transport{Reader: strings.NewReader(in), Writer: io.Discard, MaxInFlight: places}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	var calls []*jsonrpc.Request
	for len(calls) < places {
		m, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
			calls = append(calls, r)
		}
	}
	next := make(chan jsonrpc.Message, 1)
	go func() {
		m, _ := c.Read(ctx)
		next <- m
	}()
	select {
	case m := <-next:
		t.Fatalf("Read returned %v with every place taken", m)
	default:
	}
	if err := c.Write(ctx, &jsonrpc.Response{ID: calls[0].ID, Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if m := <-next; m.(*jsonrpc.Request).ID != makeID(t, float64(places)) {
		t.Errorf("after one answer, Read returned %v, want call %d", m, places)
	}
}

// TestByteBudget: a call whose line would take the lines in flight over
// MaxInFlightBytes waits, unless nothing else is in flight.
func TestByteBudget(t *testing.T) {
	big := paddedPing(1, 600)
	in := big + "\n" + strings.Replace(big, `"id":1`, `"id":2`, 1) + "\n"
	c, err := (&Transport{Reader: strings.NewReader(in), Writer: io.Discard, MaxInFlightBytes: 1000}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	first, err := c.Read(ctx) // alone, it is admitted whatever its size
	if err != nil {
		t.Fatal(err)
	}
	next := make(chan jsonrpc.Message, 1)
	go func() {
		m, _ := c.Read(ctx)
		next <- m
	}()
	select {
	case m := <-next:
		t.Fatalf("Read returned %v over the byte budget", m)
	default:
	}
	if err := c.Write(ctx, &jsonrpc.Response{ID: first.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if m := <-next; m.(*jsonrpc.Request).ID != makeID(t, float64(2)) {
		t.Errorf("got %v, want call 2", m)
	}
}

// TestDrainAnswersEverything: far more calls than places, then end of input:
// every one is answered and Run ends cleanly, with no clock involved.
func TestDrainAnswersEverything(t *testing.T) {
	burst := 3000
	if testing.Short() {
		burst = 1000 // still 250 times the places, and over 64 KiB of input
	}
	s := serve(t, &Transport{MaxInFlight: 4})
	s.initialize()
	var b strings.Builder
	for i := range burst {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`+"\n", i+1)
	}
	go io.WriteString(s.stdin, b.String())
	seen := map[string]bool{}
	for len(seen) < burst {
		r := s.next()
		if r.Error != nil {
			t.Fatalf("id %s: %+v", r.ID, r.Error)
		}
		seen[string(r.ID)] = true
	}
	if rest, err := s.finish(); err != nil || len(rest) != 0 {
		t.Errorf("Run = %v, %d extra lines", err, len(rest))
	}
}

// TestListenLimit: subscriptions/listen calls take no place but are bounded.
func TestListenLimit(t *testing.T) {
	s := serve(t, &Transport{})
	var lines []string
	for i := range MaxListens + 1 {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":"l%d","method":"subscriptions/listen","params":{%s,"notifications":{"toolsListChanged":true}}}`, i, sessionlessMeta))
	}
	s.send(lines...)
	s.send(sessionlessCall("after", "tools/list"))
	var got []summary
	for len(got) < 2 {
		r := s.next()
		if r.ID != nil {
			got = append(got, summarize(r))
		}
	}
	want := []summary{{fmt.Sprintf(`"l%d"`, MaxListens), jsonrpc.CodeInvalidRequest}, {`"after"`, 0}}
	if diff := cmp.Diff(want, got, bySummary); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestResultLineIsEncodeMessage: writing a result's bytes as they are gives the
// very line jsonrpc.EncodeMessage gives, for results made as the SDK makes them.
func TestResultLineIsEncodeMessage(t *testing.T) {
	results := []any{
		map[string]any{},
		map[string]any{"text": `<a href="x">&amp;</a> ` + "\u2028\u2029 \x00 \\ \" 日本 😀 \xff"},
		[]any{1.5, 0.0, 1e21, 1e-7, nil, true, "x"},
		map[string]any{"nested": map[string]any{"deep": []any{map[string]any{"k": "v"}}}},
	}
	ids := []jsonrpc.ID{makeID(t, float64(7)), makeID(t, float64(-9007199254740991)), makeID(t, "<&>"), makeID(t, "\u2028"), makeID(t, "é\"")}
	for _, id := range ids {
		for _, r := range results {
			resp := &jsonrpc.Response{ID: id, Result: sdkMarshal(t, r)}
			want, err := jsonrpc.EncodeMessage(resp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(resultLine(json.RawMessage(envelope.ID(id)), resp.Result))); diff != "" {
				t.Errorf("id %v (-EncodeMessage +resultLine):\n%s", id.Raw(), diff)
			}
		}
	}
	resp := &jsonrpc.Response{ID: makeID(t, "big"), Result: largeResult(t)}
	if want, _ := jsonrpc.EncodeMessage(resp); !bytes.Equal(want, resultLine(json.RawMessage(envelope.ID(resp.ID)), resp.Result)) {
		t.Error("large result: resultLine differs from EncodeMessage")
	}
}

// TestCallAfterFailedInitialize: after an initialize the SDK refused, the session
// has begun but is not initialized, so the SDK refuses the next call with a plain
// error (code 0); the client gets -32600 with a stable message. This pins the
// SDK text the rewrite keys on.
func TestCallAfterFailedInitialize(t *testing.T) {
	s := serve(t, &Transport{})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`)
	if r := s.next(); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("bad initialize: got %+v", r)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	want := &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: `Invalid Request: "tools/list" was sent before initialize; send initialize first`}
	if diff := cmp.Diff(want, s.next().Error); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMessagesPassAHeldCall: while a call waits for a place, the notifications
// and responses behind it still reach the SDK: a handler holding a place may be
// waiting for exactly that (a response to its elicitation, or its cancellation).
func TestMessagesPassAHeldCall(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"s1","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	}, "\n") + "\n"
	var out syncBuffer
	c, err := (&Transport{Reader: strings.NewReader(in), Writer: &out, MaxInFlight: 1}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	var got []string
	for range 3 { // call 1, then what passes call 2 while it waits
		m, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *jsonrpc.Request:
			got = append(got, fmt.Sprint(m.Method, " ", m.ID.Raw()))
		case *jsonrpc.Response:
			got = append(got, fmt.Sprint("response ", m.ID.Raw()))
		}
	}
	want := []string{"ping 1", "response s1", "notifications/cancelled <nil>"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The cancelled call's answer is dropped, which frees its place for call 2.
	if err := c.Write(ctx, &jsonrpc.Response{ID: makeID(t, float64(1)), Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if m, err := c.Read(ctx); err != nil || m.(*jsonrpc.Request).ID != makeID(t, float64(2)) {
		t.Errorf("Read = %v, %v; want call 2", m, err)
	}
	if len(out.Bytes()) != 0 {
		t.Errorf("the cancelled call was answered: %s", out.Bytes())
	}
}

// TestInitializeStopsTheReading: go-sdk handles initialize before anything
// else and queues what it is given meanwhile, so while an initialize is with
// the SDK, Read hands out nothing, whatever is waiting; once its answer is
// written, the notifications behind it pass.
func TestInitializeStopsTheReading(t *testing.T) {
	in := initializeLine + "\n" + strings.Repeat(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n", 3)
	c, err := (&Transport{Reader: strings.NewReader(in), Writer: io.Discard}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	first, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A cancelled context and a waiting notification: were the notification
	// offered, Read would return it about half the time.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for range 32 {
		if m, err := c.Read(cancelled); err == nil {
			t.Fatalf("Read returned %v while initialize was unanswered", m)
		}
	}
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: first.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	m, err := c.Read(context.Background())
	if err != nil || m.(*jsonrpc.Request).Method != "notifications/initialized" {
		t.Errorf("after the answer, Read = %v, %v; want the notification", m, err)
	}
}

// blockedWriter is a client that never reads: Write reports that it started,
// then waits for release.
type blockedWriter struct {
	started, release chan struct{}
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	w.started <- struct{}{}
	<-w.release
	return len(p), nil
}

// TestUnwrittenAnswerTakesTheBudget: an answer the client does not read
// counts against MaxInFlightBytes until it is out, so the next call waits.
func TestUnwrittenAnswerTakesTheBudget(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	w := &blockedWriter{started: make(chan struct{}), release: make(chan struct{})}
	c, err := (&Transport{Reader: strings.NewReader(in), Writer: w, MaxInFlightBytes: 1000}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	first, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	big := json.RawMessage(`{"pad":"` + strings.Repeat("x", 2000) + `"}`)
	written := make(chan error, 1)
	go func() {
		written <- c.Write(context.Background(), &jsonrpc.Response{ID: first.(*jsonrpc.Request).ID, Result: big})
	}()
	<-w.started
	second := inbound{msg: &jsonrpc.Request{ID: makeID(t, float64(2)), Method: "ping"}, view: &envelope.Message{Method: "ping", ID: []byte("2")}, size: 40}
	if c.(*conn).admitCall(second) {
		t.Error("a call got a place while a 2 KB answer was unwritten, over a 1000-byte budget")
	}
	close(w.release)
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if !c.(*conn).admitCall(second) {
		t.Error("once the answer was out, the call still got no place")
	}
}
