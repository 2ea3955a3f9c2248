package transport_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/automium/automium/mcpserver/transport"

	"github.com/automium/automium/internal/testsupport"
	"github.com/automium/automium/mcpserver"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testToken = "test-token-0123456789abcdef"

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"http-test","version":"0"}}}`

// syncBuffer is an audit log the handler may write from several goroutines.
type syncBuffer struct{ testsupport.LockedBuffer }

// auditLines parses the audit log, one JSON object a line.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("audit line is not JSON: %v: %s", err, l)
		}
		out = append(out, m)
	}
	return out
}

// fakeClock advances by step at every reading, so durations are exact.
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

type testServer struct {
	url    string
	server *mcp.Server
	audit  *syncBuffer
}

// newTestServer serves mcpserver.New over httptest, which listens on 127.0.0.1.
func newTestServer(t *testing.T, opts transport.HTTPOptions) *testServer {
	t.Helper()
	return newTestServerFor(t, mcpserver.New(nil), opts)
}

// newTestServerFor serves server over httptest.
func newTestServerFor(t *testing.T, server *mcp.Server, opts transport.HTTPOptions) *testServer {
	t.Helper()
	audit := new(syncBuffer)
	if opts.Audit == nil {
		opts.Audit = slog.New(slog.NewJSONHandler(audit, nil))
	}
	if opts.Token == "" && !opts.InsecureNoAuth {
		opts.Token = testToken
	}
	h, err := transport.NewHTTPHandler(server, &opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &testServer{url: srv.URL, server: server, audit: audit}
}

// post sends one MCP POST with the token, the headers MCP requires and extra.
func (s *testServer) post(t *testing.T, body string, extra map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range extra {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestHTTPRefusals: each check in front of the SDK refuses with its status,
// before anything of the body is parsed, and audits the refusal with its reason.
func TestHTTPRefusals(t *testing.T) {
	// Under -short the bodies stay below what net/http drains of a refused
	// body (256 KiB): over it, it closes the connection and waits 500 ms.
	maxBody := 1 << 20
	if testing.Short() {
		maxBody = 64 << 10
	}
	big := strings.Repeat("x", 2*maxBody)
	tests := []struct {
		name       string
		headers    map[string]string
		body       string
		chunked    bool
		wantStatus int
		wantAuth   string // WWW-Authenticate
		wantReason string // audit reason; "" for a served request
	}{
		{"no token", map[string]string{"Authorization": ""}, initializeBody, false, 401, `Bearer realm="automium-mcp"`, "unauthorized"},
		{"wrong token", map[string]string{"Authorization": "Bearer test-token-0123456789abcdeX"}, initializeBody, false, 401, `Bearer realm="automium-mcp", error="invalid_token", error_description="the bearer token is not the one automium-mcp printed at start"`, "unauthorized"},
		{"token prefix", map[string]string{"Authorization": "Bearer " + testToken[:20]}, initializeBody, false, 401, `Bearer realm="automium-mcp", error="invalid_token", error_description="the bearer token is not the one automium-mcp printed at start"`, "unauthorized"},
		{"basic auth", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, initializeBody, false, 401, `Bearer realm="automium-mcp", error="invalid_token", error_description="the bearer token is not the one automium-mcp printed at start"`, "unauthorized"},
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, initializeBody, false, 403, "", "origin"},
		{"null origin", map[string]string{"Origin": "null"}, initializeBody, false, 403, "", "origin"},
		{"other loopback port", map[string]string{"Origin": "http://127.0.0.1:1"}, initializeBody, false, 403, "", "origin"},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, initializeBody, false, 403, "", "origin"},
		{"foreign host", map[string]string{"Host": "evil.example:8080"}, initializeBody, false, 403, "", "host"},
		{"oversized body", nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + big + `"}}`, false, 413, "", "body_too_large"},
		{"oversized chunked body", nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + big + `"}}`, true, 413, "", "body_too_large"},
		{"allowed origin", map[string]string{"Origin": "http://localhost:6274"}, initializeBody, false, 200, "", ""},
		{"same origin", map[string]string{"Origin": "same"}, initializeBody, false, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, transport.HTTPOptions{MaxBodyBytes: int64(maxBody), AllowedOrigins: []string{"http://localhost:6274"}})
			var body io.Reader = strings.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // hides the length: sent chunked
			}
			req, err := http.NewRequest(http.MethodPost, s.url, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+testToken)
			for k, v := range tt.headers {
				switch {
				case k == "Host":
					req.Host = v
				case v == "same":
					req.Header.Set(k, s.url)
				case v == "":
					req.Header.Del(k)
				default:
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tt.wantAuth {
				t.Errorf("WWW-Authenticate %q, want %q", got, tt.wantAuth)
			}
			lines := s.audit.lines(t)
			if len(lines) != 1 {
				t.Fatalf("%d audit lines, want 1: %s", len(lines), s.audit)
			}
			wantOutcome := "refused"
			if tt.wantReason == "" {
				wantOutcome = "ok"
			}
			got := map[string]any{"outcome": lines[0]["outcome"], "reason": lines[0]["reason"], "status": lines[0]["status"]}
			want := map[string]any{"outcome": wantOutcome, "status": float64(tt.wantStatus)}
			if tt.wantReason != "" {
				want["reason"] = tt.wantReason
			} else {
				want["reason"] = nil
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("audit line (-want +got):\n%s", diff)
			}
			if strings.Contains(s.audit.String(), testToken[:20]) {
				t.Errorf("the audit log holds the token: %s", s.audit)
			}
		})
	}
}

// TestHTTPSessionFlood: at MaxSessions, a new session takes the place of the
// least recently used one, so a flood of initializes never holds more than
// the limit and never locks a client out; the sessions used last survive,
// and a closed one answers 404, which tells an MCP client to start again.
func TestHTTPSessionFlood(t *testing.T) {
	const limit, flood = 3, 20
	s := newTestServer(t, transport.HTTPOptions{MaxSessions: limit})
	inSession := func(id string) map[string]string {
		return map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	}
	var sessions []string
	for i := range flood {
		resp := s.post(t, initializeBody, nil)
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize %d: status %d, want 200", i, resp.StatusCode)
		}
		sessions = append(sessions, resp.Header.Get("Mcp-Session-Id"))
		if i == 0 {
			continue
		}
		// The first session stays in use: it is never the least recent.
		resp = s.post(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, inSession(sessions[0]))
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ping on the first session after %d initializes: status %d", i+1, resp.StatusCode)
		}
	}
	open := 0
	for range s.server.Sessions() {
		open++
	}
	if open != limit {
		t.Errorf("%d sessions open on the server, want %d", open, limit)
	}
	var statuses []int
	for _, id := range []string{sessions[0], sessions[1], sessions[flood-2], sessions[flood-1]} {
		resp := s.post(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, inSession(id))
		io.Copy(io.Discard, resp.Body)
		statuses = append(statuses, resp.StatusCode)
	}
	if diff := cmp.Diff([]int{http.StatusOK, http.StatusNotFound, http.StatusOK, http.StatusOK}, statuses); diff != "" {
		t.Errorf("ping on the first, second, second-last and last sessions (-want +got):\n%s", diff)
	}
}

// TestHTTPSessionAdmissionReadsTheDoor: every POST without a session ID is
// counted, whatever its body looks like, because go-sdk creates a session
// for each; bodies the door refuses never reach go-sdk at all.
func TestHTTPSessionAdmissionReadsTheDoor(t *testing.T) {
	const limit = 2
	s := newTestServer(t, transport.HTTPOptions{MaxSessions: limit})
	bodies := []string{
		strings.Replace(initializeBody, `"method"`, `"METHOD"`, 1),
		strings.Replace(initializeBody, `"method":"initialize"`, `"method":"initialize","Method":"ping"`, 1),
		initializeBody + "x",
		initializeBody + " {}",
		"[" + initializeBody + "]",
		strings.Replace(initializeBody, `"params":{`, `"params":{"pad":"`+strings.Repeat("p", 100<<10)+`",`, 1),
		strings.Replace(initializeBody, `"params":{`, `"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`, 1),
		initializeBody,
		initializeBody,
		initializeBody,
	}
	for i, body := range bodies {
		resp := s.post(t, body, nil)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		open := 0
		for range s.server.Sessions() {
			open++
		}
		if open > limit {
			t.Fatalf("after body %d (status %d), %d sessions are open, over the limit of %d", i, resp.StatusCode, open, limit)
		}
	}
}

// TestHTTPIdleSessionsExpire: a session that receives nothing for
// SessionIdleTimeout is closed and gives its place back. The timeout is tiny and
// the wait generous, so the test checks that sessions expire, not how fast.
func TestHTTPIdleSessionsExpire(t *testing.T) {
	s := newTestServer(t, transport.HTTPOptions{MaxSessions: 1, SessionIdleTimeout: time.Millisecond})
	if resp := s.post(t, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: status %d", resp.StatusCode)
	}
	for i := 0; ; i++ {
		open := 0
		for range s.server.Sessions() {
			open++
		}
		if open == 0 {
			break
		}
		if i == 1000 {
			t.Fatal("the idle session is still open after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp := s.post(t, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("initialize after the idle session expired: status %d, want 200", resp.StatusCode)
	}
}

// sseData is the JSON of the first "data:" line of an event stream, or the body
// itself when it is JSON.
func sseData(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return body
	}
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
			return []byte(data)
		}
	}
	t.Fatalf("no data in the event stream: %s", body)
	return nil
}

// TestHTTPAuditLog: one JSON line per request, with the injected clock's times,
// the session hashed, the outcome of each kind of answer, and neither the token
// nor any argument.
func TestHTTPAuditLog(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), step: 1500 * time.Microsecond}
	s := newTestServer(t, transport.HTTPOptions{Now: clock.Now, JSONResponse: true})
	resp := s.post(t, initializeBody, nil)
	session := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	sum := sha256.Sum256([]byte(session))
	hashed := hex.EncodeToString(sum[:8])

	const secretArg = "journey-with-a-secret-argument"
	inSession := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}
	requests := []struct {
		body    string
		headers map[string]string
	}{
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, inSession},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{}}}`, inSession},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"automium_create_run_submission","arguments":{"journeyId":"` + secretArg + `"}}}`, inSession},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"` + strings.Repeat("n", 100) + `","arguments":{}}}`, inSession},
		{`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"automium://apps"}}`, inSession},
		{`{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"draft_journey","arguments":{"appId":"` + secretArg + `"}}}`, inSession},
		// Over 64 KiB: described by the door like any other.
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{"pad":"` + strings.Repeat("g", 100<<10) + `"}}}`, inSession},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, map[string]string{"Authorization": ""}},
	}
	for i, r := range requests {
		// The audit line is written after the answer may have reached the
		// client; waiting for it keeps the clock's readings in order.
		waitForLines(t, s.audit, i+1)
		resp := s.post(t, r.body, r.headers)
		io.Copy(io.Discard, resp.Body)
	}
	waitForLines(t, s.audit, len(requests)+1)

	var got []map[string]any
	for _, l := range s.audit.lines(t) {
		if l["bytes"].(float64) <= 0 && l["status"].(float64) != http.StatusAccepted {
			t.Errorf("line without a response size: %v", l)
		}
		delete(l, "bytes")
		delete(l, "remote")
		got = append(got, l)
	}
	// Each request reads the clock twice, at its start and its end.
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	line := func(i int, status int, session, method, name, outcome string, extra ...any) map[string]any {
		m := map[string]any{
			"time": t0.Add(time.Duration(2*i+1) * clock.step).Format(time.RFC3339Nano), "level": "INFO", "msg": "mcp http request",
			"http": "POST", "status": float64(status), "session": session, "method": method, "name": name,
			"outcome": outcome, "duration_ms": 1.5,
		}
		for j := 0; j < len(extra); j += 2 {
			m[extra[j].(string)] = extra[j+1]
		}
		return m
	}
	want := []map[string]any{
		line(0, 200, hashed, "initialize", "", "ok"),
		line(1, 202, hashed, "notifications/initialized", "", "accepted"),
		line(2, 200, hashed, "tools/call", "automium_list_apps", "ok"),
		line(3, 200, hashed, "tools/call", "automium_create_run_submission", "tool_error"),
		line(4, 200, hashed, "tools/call", `"`+strings.Repeat("n", 40)+`"… (100 bytes)`, "rpc_error", "code", float64(-32602)),
		line(5, 200, hashed, "resources/read", "automium://apps", "ok"),
		line(6, 200, hashed, "prompts/get", "draft_journey", "rpc_error", "code", float64(-32602)),
		line(7, 200, hashed, "tools/call", "automium_list_apps", "tool_error"),
		line(8, 401, "", "", "", "refused", "reason", "unauthorized"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s", diff)
	}
	for _, secret := range []string{testToken, secretArg, session} {
		if strings.Contains(s.audit.String(), secret) {
			t.Errorf("the audit log holds %q:\n%s", secret, s.audit)
		}
	}
}

// waitForLines waits until the audit log has n lines.
func waitForLines(t *testing.T, audit *syncBuffer, n int) {
	t.Helper()
	for i := 0; strings.Count(audit.String(), "\n") < n; i++ {
		if i == 1000 {
			t.Fatalf("fewer than %d audit lines after 10 s: %s", n, audit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHTTPStopEndsStreams: closing Stop ends an open GET event stream, which
// http.Server.Shutdown would otherwise wait for forever.
func TestHTTPStopEndsStreams(t *testing.T) {
	stop := make(chan struct{})
	s := newTestServer(t, transport.HTTPOptions{Stop: stop})
	resp := s.post(t, initializeBody, nil)
	session := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"})

	req, err := http.NewRequest(http.MethodGet, s.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET: status %d, want 200", stream.StatusCode)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, stream.Body)
		ended <- err
	}()
	close(stop)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream is still open 10 s after Stop was closed")
	}
}

func TestNewHTTPHandlerRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts *transport.HTTPOptions
		want string
	}{
		{"nil options", nil, "needs options with a token"},
		{"no token", &transport.HTTPOptions{}, "16 to 1024 characters, not 0"},
		{"short token", &transport.HTTPOptions{Token: "short"}, "16 to 1024 characters, not 5"},
		{"space in token", &transport.HTTPOptions{Token: "0123456789 abcdef"}, `byte 10 is ' '`},
		{"only padding", &transport.HTTPOptions{Token: strings.Repeat("=", 16)}, "cannot be only ="},
		{"token and no auth", &transport.HTTPOptions{Token: testToken, InsecureNoAuth: true}, "choose one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := transport.NewHTTPHandler(mcpserver.New(nil), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := transport.NewHTTPHandler(mcpserver.New(nil), &transport.HTTPOptions{Token: "abc-DEF_123.~+/xyz=="}); err != nil {
		t.Errorf("a token of the whole alphabet: %v", err)
	}
}

// TestHTTPNoAuth: without a token requirement, requests without one are served,
// but the Origin check still applies.
func TestHTTPNoAuth(t *testing.T) {
	s := newTestServer(t, transport.HTTPOptions{InsecureNoAuth: true})
	if resp := s.post(t, initializeBody, map[string]string{"Authorization": ""}); resp.StatusCode != http.StatusOK {
		t.Errorf("initialize without a token: status %d, want 200", resp.StatusCode)
	}
	if resp := s.post(t, initializeBody, map[string]string{"Authorization": "", "Origin": "http://evil.example"}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign origin without a token: status %d, want 403", resp.StatusCode)
	}
}

// TestHTTPSessionlessProtocol: a request at 2026-07-28 is served without a
// session, beside a 2025-11-25 session.
func TestHTTPSessionlessProtocol(t *testing.T) {
	s := newTestServer(t, transport.HTTPOptions{})
	resp := s.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
	data := sseData(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" || !bytes.Contains(data, []byte(`"automium_list_apps"`)) {
		t.Errorf("sessionless tools/list: status %d, session %q, body %.300s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), data)
	}
}

// TestHTTPSessionlessUnknownMethodIs404: SEP-2575 answers an unknown method in
// the sessionless protocol with 404 and -32601; in a session it stays a 400.
func TestHTTPSessionlessUnknownMethodIs404(t *testing.T) {
	s := newTestServer(t, transport.HTTPOptions{})
	resp := s.post(t, `{"jsonrpc":"2.0","id":1,"method":"no/such","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "no/such"})
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNotFound || !bytes.Contains(body, []byte(`"code":-32601`)) {
		t.Errorf("sessionless unknown method: status %d, body %.300s; want 404 with -32601", resp.StatusCode, body)
	}
}

// TestHTTPInFlightLimit: while MaxInFlight requests are being served (here one
// whose body is still arriving), another gets 503, and the held one completes.
func TestHTTPInFlightLimit(t *testing.T) {
	s := newTestServer(t, transport.HTTPOptions{MaxInFlight: 1})
	body, send := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, s.url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	held := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			held <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		held <- resp.StatusCode
	}()
	io.WriteString(send, initializeBody[:20])

	// The held request takes its place once its headers are read, however
	// long the machine takes to get there: the loop paces itself and has no
	// deadline (the test binary's timeout catches a place that never fills).
	for {
		resp := s.post(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode == http.StatusServiceUnavailable {
			if resp.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	io.WriteString(send, initializeBody[20:])
	send.Close()
	if status := <-held; status != http.StatusOK {
		t.Errorf("the held request: status %d, want 200", status)
	}
	if !strings.Contains(s.audit.String(), `"reason":"busy"`) {
		t.Errorf("the refusal is not audited as busy:\n%s", s.audit)
	}
}

// TestHTTPStandardHeadersBounded: at protocol 2026-07-28 the Mcp-Method and
// Mcp-Name headers must match the body; a mismatch is -32020 with both values
// cut by echo.Quote, however long the header or the body's name. go-sdk's
// own check quoted them whole, up to the 4 KiB message cap.
func TestHTTPStandardHeadersBounded(t *testing.T) {
	s := newTestServer(t, transport.HTTPOptions{})
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	long := strings.Repeat("h", 60_000)
	body := strings.Repeat("b", 1<<20)
	tests := []struct {
		name, message, version, method, mcpName string
		wantOK                                  bool
	}{
		{"matching headers", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},` + meta + `}}`, "", "tools/call", "automium_list_apps", true},
		{"long Mcp-Method", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`, "", long, "", false},
		{"long Mcp-Name, long tool name", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + body + `","arguments":{},` + meta + `}}`, "", "tools/call", long, false},
		{"long resource URI", `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"` + body + `",` + meta + `}}`, "", "resources/read", "q", false},
		{"long prompt name", `{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"` + body + `",` + meta + `}}`, "", "prompts/get", "q", false},
		{"long Mcp-Name, empty tool name", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"","arguments":{},` + meta + `}}`, "", "tools/call", long, false},
		{"long Mcp-Name, tool name a number", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5,"arguments":{},` + meta + `}}`, "", "tools/call", long, false},
		{"long Mcp-Method on a notification", `{"jsonrpc":"2.0","method":"notifications/initialized","params":{` + meta + `}}`, "", long, "", false},
		{"long Mcp-Protocol-Version after the date", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{` + meta + `}}`, "2026-07-28" + long, "tools/list", "", false},
		{"long Mcp-Protocol-Version of nines", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{` + meta + `}}`, strings.Repeat("9", 60_000), "tools/list", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version := tt.version
			if version == "" {
				version = "2026-07-28"
			}
			resp := s.post(t, tt.message, map[string]string{"Mcp-Protocol-Version": version, "Mcp-Method": tt.method, "Mcp-Name": tt.mcpName})
			data, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.StatusCode == http.StatusOK; got != tt.wantOK {
				t.Fatalf("status %d, want OK %v: %.300s", resp.StatusCode, tt.wantOK, data)
			}
			if tt.wantOK {
				return
			}
			code := `"code":-32020`
			if strings.Contains(tt.message, `"id"`) != bytes.Contains(data, []byte(code)) {
				// A notification gets the status and no body.
				t.Errorf("want a %s for a call, nothing for a notification: %.300s", code, data)
			}
			if len(data) > 512 || bytes.Contains(data, []byte(strings.Repeat("h", 100))) || bytes.Contains(data, []byte(strings.Repeat("b", 100))) || bytes.Contains(data, []byte(strings.Repeat("9", 100))) {
				t.Errorf("answer of %d bytes quotes a client value beyond the bound: %.300s", len(data), data)
			}
		})
	}
}

// TestHTTPDuplicateIDInFlight: while a call is in flight on a session, another
// call with the same id (as go-sdk compares ids: -0 is 0) gets the -32600 the
// stdio transport writes, with no client value quoted; go-sdk's own refusal
// quoted the id whole. Once the first call is answered, the id is free again.
func TestHTTPDuplicateIDInFlight(t *testing.T) {
	tests := []struct{ name, first, second string }{
		{"string id", `"dup"`, `"dup"`},
		{"1 MiB string id", `"` + strings.Repeat("i", 1<<20) + `"`, `"` + strings.Repeat("i", 1<<20) + `"`},
		{"0 then -0", `0`, `-0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, transport.HTTPOptions{})
			entered, release := make(chan struct{}), make(chan struct{})
			mcp.AddTool(s.server, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				close(entered)
				<-release
				return &mcp.CallToolResult{}, nil, nil
			})
			resp := s.post(t, initializeBody, nil)
			io.Copy(io.Discard, resp.Body)
			session := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
			io.Copy(io.Discard, s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session).Body)

			done := make(chan int)
			go func() {
				req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":`+tt.first+`,"method":"tools/call","params":{"name":"hold","arguments":{}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+testToken)
				for k, v := range session {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					done <- 0
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				done <- resp.StatusCode
			}()
			<-entered
			second := `{"jsonrpc":"2.0","id":` + tt.second + `,"method":"ping"}`
			resp = s.post(t, second, session)
			data, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"jsonrpc":"2.0","id":` + tt.second + `,"error":{"code":-32600,"message":"Invalid Request: id is already used by a request in flight"}}`
			if diff := cmp.Diff(want, string(bytes.TrimSpace(data))); resp.StatusCode != http.StatusBadRequest || diff != "" {
				t.Errorf("second call with the id in flight: status %d (-want +got):\n%.2000s", resp.StatusCode, diff)
			}
			close(release)
			if status := <-done; status != http.StatusOK {
				t.Errorf("first call: status %d, want 200", status)
			}
			resp = s.post(t, second, session)
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("the id again once the first call was answered: status %d, want 200", resp.StatusCode)
			}
		})
	}
}

// TestHTTPSessionlessCallNamingASession: a sessionless call that names an
// initialized session is refused with -32600, as stdio refuses a sessionless
// call in a session begun by initialize, and never runs; one that names no
// open session is served sessionless, and an unsupported version gets go-sdk's
// list of supported ones whatever it names.
func TestHTTPSessionlessCallNamingASession(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`
	const refused = `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: this session began with initialize; a call carrying protocol version \"2026-07-28\" in _meta belongs to a sessionless session: start a new one"}}`
	tests := []struct {
		name       string
		body       string
		headers    map[string]string
		named      string // "open", "closed" or "made-up"
		wantStatus int
		want       string // the whole body, or a part of it with wantPart
		wantPart   bool
	}{
		{"tools/call in an open session", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count","arguments":{},` + meta + `}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "count"}, "open", http.StatusBadRequest, refused, false},
		{"tools/list in an open session", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + meta + `}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, "open", http.StatusBadRequest, refused, false},
		{"the session's own protocol header with a sessionless _meta", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + meta + `}}`,
			map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, "open", http.StatusBadRequest, refused, false},
		{"the sessionless header without _meta", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, "open", http.StatusBadRequest, refused, false},
		{"a session ID that names no session", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + meta + `}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, "made-up", http.StatusOK, `"automium_list_apps"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, transport.HTTPOptions{})
			var ran atomic.Int32
			mcp.AddTool(s.server, &mcp.Tool{Name: "count"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				ran.Add(1)
				return &mcp.CallToolResult{}, nil, nil
			})
			resp := s.post(t, initializeBody, nil)
			io.Copy(io.Discard, resp.Body)
			session := resp.Header.Get("Mcp-Session-Id")
			io.Copy(io.Discard, s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}).Body)
			if tt.named == "made-up" {
				session = "NOSUCHSESSIONNOSUCHSESSION"
			}
			headers := map[string]string{"Mcp-Session-Id": session}
			for k, v := range tt.headers {
				headers[k] = v
			}
			resp = s.post(t, tt.body, headers)
			data := sseData(t, resp)
			got := string(bytes.TrimSpace(data))
			switch {
			case resp.StatusCode != tt.wantStatus:
				t.Errorf("status %d, want %d; body %.500s", resp.StatusCode, tt.wantStatus, got)
			case tt.wantPart && !strings.Contains(got, tt.want):
				t.Errorf("body %.500s, want it to contain %s", got, tt.want)
			case !tt.wantPart:
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			}
			if n := ran.Load(); n != 0 {
				t.Errorf("the tool ran %d times", n)
			}
		})
	}
}

// TestHTTPCancelledCallHasOneOutcome: over HTTP as over stdio, a call
// cancelled while in flight gets no answer, whatever its handler returns
// (here a result, an error, or the context's error), in an event stream and
// in a JSON response; a cancellation that names no call in flight is dropped
// and cannot cancel a later call that reuses the id.
func TestHTTPCancelledCallHasOneOutcome(t *testing.T) {
	returns := map[string]func(context.Context) (*mcp.CallToolResult, any, error){
		"a result":          func(context.Context) (*mcp.CallToolResult, any, error) { return &mcp.CallToolResult{}, nil, nil },
		"an error":          func(context.Context) (*mcp.CallToolResult, any, error) { return nil, nil, errors.New("gave up") },
		"the context error": func(ctx context.Context) (*mcp.CallToolResult, any, error) { return nil, nil, ctx.Err() },
	}
	for _, json := range []bool{false, true} {
		for name, ret := range returns {
			t.Run(fmt.Sprintf("json=%v, handler returns %s", json, name), func(t *testing.T) {
				s := newTestServer(t, transport.HTTPOptions{JSONResponse: json})
				entered := make(chan struct{}, 1)
				mcp.AddTool(s.server, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
					entered <- struct{}{}
					<-ctx.Done()
					return ret(ctx)
				})
				resp := s.post(t, initializeBody, nil)
				io.Copy(io.Discard, resp.Body)
				session := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
				io.Copy(io.Discard, s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session).Body)

				answered := make(chan string, 1)
				go func() {
					resp := s.post(t, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"hold","arguments":{}}}`, session)
					body, _ := io.ReadAll(resp.Body)
					answered <- fmt.Sprintf("status %d: %s", resp.StatusCode, body)
				}()
				<-entered
				cancel := s.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}`, session)
				io.Copy(io.Discard, cancel.Body)
				if cancel.StatusCode != http.StatusAccepted {
					t.Errorf("cancellation: status %d, want 202", cancel.StatusCode)
				}
				if got := <-answered; strings.Contains(got, `"id":"c1"`) {
					t.Errorf("the cancelled call was answered: %.500s", got)
				}

				// A cancellation naming no call in flight is dropped: the
				// next call with that id is answered.
				stale := s.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"p1"}}`, session)
				io.Copy(io.Discard, stale.Body)
				if stale.StatusCode != http.StatusAccepted {
					t.Errorf("stale cancellation: status %d, want 202", stale.StatusCode)
				}
				ping := sseData(t, s.post(t, `{"jsonrpc":"2.0","id":"p1","method":"ping"}`, session))
				if want := `{"jsonrpc":"2.0","id":"p1","result":{}}`; string(bytes.TrimSpace(ping)) != want {
					t.Errorf("ping after a stale cancellation: %s, want %s", ping, want)
				}
			})
		}
	}
}

// TestHTTPRetainedBudget: sessions are charged what go-sdk keeps of their
// initialize, and a new session over MaxRetainedBytes closes the least
// recently used idle ones, by bytes as MaxSessions does by count; one that
// cannot fit by closing idle sessions gets 503.
func TestHTTPRetainedBudget(t *testing.T) {
	const each = 60_000
	s := newTestServer(t, transport.HTTPOptions{MaxRetainedBytes: 3*each + 1000})
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` +
		strings.Repeat("n", each-100) + `","version":"0"}}}`
	open := func() string {
		resp := s.post(t, initialize, nil)
		io.Copy(io.Discard, resp.Body)
		id := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != http.StatusOK || id == "" {
			t.Fatalf("initialize: status %d", resp.StatusCode)
		}
		s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
		return id
	}
	ping := func(id string) int {
		resp := s.post(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	ids := []string{open(), open(), open()}
	ping(ids[0]) // the first is now used more recently than the second
	ids = append(ids, open())
	got := []int{ping(ids[0]), ping(ids[1]), ping(ids[2]), ping(ids[3])}
	if diff := cmp.Diff([]int{http.StatusOK, http.StatusNotFound, http.StatusOK, http.StatusOK}, got); diff != "" {
		t.Errorf("statuses after a fourth session over the byte budget (-want +got):\n%s", diff)
	}
	// Small sessions fit beside them, up to the count.
	if resp := s.post(t, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("a small initialize: status %d", resp.StatusCode)
	}
}
