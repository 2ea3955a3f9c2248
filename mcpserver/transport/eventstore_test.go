package transport_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium/mcpserver/transport"

	"github.com/automium/automium/mcpserver"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseEvent is one server-sent event as a client reads it.
type sseEvent struct {
	Name, ID, Retry, Data string
}

// readEvents reads an event stream to its end.
func readEvents(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: status %d, body %q; want 200 and an event stream", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, body)
	}
	var events []sseEvent
	for _, block := range strings.Split(string(body), "\n\n") {
		var e sseEvent
		for _, line := range strings.Split(block, "\n") {
			name, value, _ := strings.Cut(line, ": ")
			switch name {
			case "event":
				e.Name = value
			case "id":
				e.ID = value
			case "retry":
				e.Retry = value
			case "data":
				e.Data = value
			}
		}
		if e != (sseEvent{}) {
			events = append(events, e)
		}
	}
	return events
}

// resumableServer serves Automium's server plus one tool, "reconnect", that
// closes its own event stream (asking the client to come back in 250 ms) and
// then answers, so that the answer reaches the client only by resumption, and
// two failing prompts.
func resumableServer(t *testing.T, opts transport.HTTPOptions) (url string, audit *syncBuffer) {
	t.Helper()
	audit = new(syncBuffer)
	opts.Token = testToken
	opts.Audit = slog.New(slog.NewJSONHandler(audit, nil))
	server := mcpserver.New(nil)
	server.AddTool(&mcp.Tool{Name: "reconnect", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 250 * time.Millisecond})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "after the close"}}}, nil
		})
	// A prompt that fails with a plain Go error, which go-sdk sends with
	// code 0 and the handler renders as -32603, once on its stream and once
	// after closing it.
	for _, name := range []string{"fail", "close_and_fail"} {
		server.AddPrompt(&mcp.Prompt{Name: name}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if name == "close_and_fail" {
				req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 250 * time.Millisecond})
			}
			return nil, errors.New("the prompt failed")
		})
	}
	h, err := transport.NewHTTPHandler(server, &opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, audit
}

// session initializes a session at protocol 2025-11-25, the last with
// resumable streams, and returns its ID.
func session(t *testing.T, s *testServer) string {
	t.Helper()
	resp := s.post(t, initializeBody, nil)
	io.Copy(io.Discard, resp.Body)
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize: status %d, no session", resp.StatusCode)
	}
	s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
	return id
}

// resume sends the GET that resumes a stream after lastEventID.
func resume(t *testing.T, url, session, lastEventID string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", lastEventID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const reconnectCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"reconnect","arguments":{}}}`

// TestHTTPEventStoreResumes: with EventStoreMaxBytes, a POST's event stream
// starts with a priming event that carries an ID, a handler that closes the
// stream sends retry, and a GET with Last-Event-ID gets the answer the closed
// stream missed, through the handler's audit and response writer.
func TestHTTPEventStoreResumes(t *testing.T) {
	url, audit := resumableServer(t, transport.HTTPOptions{EventStoreMaxBytes: 1 << 20})
	s := &testServer{url: url, audit: audit}
	id := session(t, s)
	call := s.post(t, reconnectCall, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
	closed := readEvents(t, call)
	if len(closed) != 2 {
		t.Fatalf("the closed stream has %d events, want the priming and the close event: %+v", len(closed), closed)
	}
	priming := closed[0]
	if diff := cmp.Diff([]sseEvent{{Name: "prime", ID: priming.ID}, {Name: "close", Retry: "250"}}, closed); diff != "" || priming.ID == "" {
		t.Errorf("the closed stream (-want +got):\n%s", diff)
	}

	resp := resume(t, url, id, priming.ID)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resume: status %d", resp.StatusCode)
	}
	replayedBytes, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body = io.NopCloser(strings.NewReader(string(replayedBytes)))
	replayed := readEvents(t, resp)
	if len(replayed) != 1 || replayed[0].ID == "" || !strings.Contains(replayed[0].Data, `"id":7`) || !strings.Contains(replayed[0].Data, "after the close") {
		t.Fatalf("resumed stream: %+v, want the answer to id 7", replayed)
	}

	// Resuming after the last event gives nothing more; the audit saw both GETs.
	if again := readEvents(t, resume(t, url, id, replayed[0].ID)); len(again) != 0 {
		t.Errorf("resuming after the answer replayed %+v, want nothing", again)
	}
	var gets []any
	for _, line := range audit.lines(t) {
		if line["http"] == "GET" {
			gets = append(gets, []any{line["status"], line["bytes"]})
		}
	}
	want := []any{[]any{float64(http.StatusOK), float64(len(replayedBytes))}, []any{float64(http.StatusOK), float64(0)}}
	if diff := cmp.Diff(want, gets); diff != "" {
		t.Errorf("audited GETs, [status bytes] (-want +got):\n%s", diff)
	}
}

// TestHTTPEventStoreBound: a stream pushed out by later ones cannot be resumed
// (400, naming nothing the client sent), while the newest one still can.
func TestHTTPEventStoreBound(t *testing.T) {
	url, audit := resumableServer(t, transport.HTTPOptions{EventStoreMaxBytes: 4 << 10})
	s := &testServer{url: url, audit: audit}
	id := session(t, s)
	first := readEvents(t, s.post(t, reconnectCall, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}))
	// tools/list answers with Automium's whole catalog, far over 4 KiB: it
	// is delivered live and pushes the first stream out.
	list := readEvents(t, s.post(t, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}))
	if len(list) != 2 || len(list[1].Data) <= 4<<10 {
		t.Fatalf("tools/list: %d events, want the priming event and an answer over 4 KiB", len(list))
	}
	last := readEvents(t, s.post(t, reconnectCall, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}))

	resp := resume(t, url, id, first[0].ID)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || strings.Contains(string(body), first[0].ID) || strings.Contains(string(body), id) {
		t.Errorf("resuming a forgotten stream: status %d, body %q; want 400 naming neither stream nor session", resp.StatusCode, body)
	}
	replayed := readEvents(t, resume(t, url, id, last[0].ID))
	if len(replayed) != 1 || !strings.Contains(replayed[0].Data, "after the close") {
		t.Errorf("resuming the newest stream: %+v, want its answer", replayed)
	}
}

// TestHTTPNoEventStore: without EventStoreMaxBytes (automium-mcp's choice), no
// event carries an ID, so a client has nothing to resume from, and a GET with
// Last-Event-ID is refused.
func TestHTTPNoEventStore(t *testing.T) {
	s := newTestServer(t, transport.HTTPOptions{})
	id := session(t, s)
	events := readEvents(t, s.post(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}))
	if len(events) != 1 || events[0].ID != "" || events[0].Name != "message" {
		t.Errorf("ping's event stream: %+v, want one message event without an ID", events)
	}
	if resp := resume(t, s.url, id, "abc_0"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET with Last-Event-ID: status %d, want 400", resp.StatusCode)
	}
	if _, err := transport.NewHTTPHandler(mcpserver.New(nil), &transport.HTTPOptions{Token: testToken, EventStoreMaxBytes: -1}); err == nil || !strings.Contains(err.Error(), "EventStoreMaxBytes is -1") {
		t.Errorf("a negative EventStoreMaxBytes: %v, want it refused", err)
	}
}

// TestHTTPEventStoreReplaysRenderedErrors: an error replayed on a resumed
// stream is the one the client reads live (rendered by the handler as stdio
// writes it), not go-sdk's own, which the store receives.
func TestHTTPEventStoreReplaysRenderedErrors(t *testing.T) {
	url, audit := resumableServer(t, transport.HTTPOptions{EventStoreMaxBytes: 1 << 20})
	s := &testServer{url: url, audit: audit}
	id := session(t, s)
	headers := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	live := readEvents(t, s.post(t, `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"fail"}}`, headers))
	closed := readEvents(t, s.post(t, `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"close_and_fail"}}`, headers))
	if len(live) != 2 || len(closed) != 2 {
		t.Fatalf("live stream %+v, closed stream %+v; want a priming event and one more each", live, closed)
	}
	replayed := readEvents(t, resume(t, url, id, closed[0].ID))
	var got []string
	for _, e := range replayed {
		got = append(got, e.Data)
	}
	want := []string{live[1].Data}
	if diff := cmp.Diff(want, got); diff != "" || !strings.Contains(live[1].Data, `"code":-32603`) {
		t.Errorf("replayed error (-live +replayed):\n%s", diff)
	}
}

// TestHTTPMalformedLastEventID: a Last-Event-ID that is not an event ID this
// server could have sent is refused by the handler, naming nothing the client
// sent; go-sdk would have quoted the header back whole. A well-formed one still
// reaches the store.
func TestHTTPMalformedLastEventID(t *testing.T) {
	url, audit := resumableServer(t, transport.HTTPOptions{EventStoreMaxBytes: 1 << 20})
	s := &testServer{url: url, audit: audit}
	id := session(t, s)
	huge := strings.Repeat("<", 60<<10)
	tests := []struct{ name, value string }{
		{"huge", huge},
		{"huge with an index", huge + "_1"},
		{"no index", "ABC"},
		{"two separators", "A_B_1"},
		{"signed index", "ABC_+1"},
		{"negative index", "ABC_-1"},
		{"index past an int", "ABC_" + strings.Repeat("9", 19)},
		{"empty index", "ABC_"},
		{"escape in the stream", "A%42C_1"},
		{"space", "ABC _1"},
		{"non-ASCII letter", "ÅBC_1"},
		{"script", "<script>_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := resume(t, url, id, tt.value)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status %d, want 400", resp.StatusCode)
			}
			if len(body) > 256 || strings.Contains(string(body), tt.value) || strings.Contains(string(body), "<") {
				t.Errorf("body (%d bytes) %.200q: want a short refusal naming nothing sent", len(body), body)
			}
		})
	}
	// Two headers are one too many, even when each is well formed.
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Add("Last-Event-ID", "ABC_1")
	req.Header.Add("Last-Event-ID", "ABC_2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("two Last-Event-ID headers: status %d, want 400", resp.StatusCode)
	}
}
