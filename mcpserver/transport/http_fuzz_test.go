package transport_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/automium/automium/mcpserver/transport"

	"github.com/automium/automium/mcpserver"
)

// fuzzHTTP is one handler for every input of a fuzzing process, as a server
// lives through many requests; its sessions stay bounded by MaxSessions.
var fuzzHTTP = sync.OnceValues(func() (http.Handler, *syncBuffer) {
	audit := new(syncBuffer)
	h, err := transport.NewHTTPHandler(mcpserver.New(nil), &transport.HTTPOptions{
		Token: testToken,
		Audit: slog.New(slog.NewJSONHandler(audit, nil)),
	})
	if err != nil {
		panic(err)
	}
	return h, audit
})

// FuzzHTTPHandler sends one request with a fuzzed body and fuzzed headers to
// the HTTP handler: it must answer with a status, write exactly one audit line
// of bounded size, and never put the token or the session ID in it.
func FuzzHTTPHandler(f *testing.F) {
	f.Add("POST", initializeBody, 1, "", "127.0.0.1", "", "")
	f.Add("POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{}}}`, 1, "", "localhost:8080", "", "2025-11-25")
	f.Add("POST", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, 1, "", "[::1]:1", "", "2025-03-26")
	f.Add("POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, 1, "", "127.0.0.1", "", "2026-07-28")
	f.Add("DELETE", "", 1, "", "127.0.0.1", "some-session", "")
	f.Add("POST", initializeBody, 0, "http://evil.example", "evil.example", "", "")
	f.Add("POST", `{"jsonrpc":"2.0","id":1,"method":"`+strings.Repeat("m", 200)+`"}`, 2, "null", "127.0.0.1", "", "")
	f.Fuzz(func(t *testing.T, method, body string, auth int, origin, host, session, version string) {
		switch method {
		case "POST", "DELETE", "PUT":
		default:
			// GET opens an event stream, which lives as long as its session.
			method = "POST"
		}
		h, audit := fuzzHTTP()
		before := strings.Count(audit.String(), "\n")

		// A safety net for a request the SDK keeps open (subscriptions/listen),
		// not a time limit under test.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		timer := time.AfterFunc(5*time.Second, cancel)
		defer timer.Stop()
		req := httptest.NewRequestWithContext(ctx, method, "/mcp", strings.NewReader(body))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		switch auth % 3 {
		case 1:
			req.Header.Set("Authorization", "Bearer "+testToken)
		case 2:
			req.Header.Set("Authorization", "Bearer "+body)
		}
		for k, v := range map[string]string{"Origin": origin, "Mcp-Session-Id": session, "Mcp-Protocol-Version": version} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		if rec.Code < 200 || rec.Code > 599 {
			t.Errorf("status %d", rec.Code)
		}
		lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
		if got := len(lines) - before; got != 1 {
			t.Fatalf("%d audit lines for one request, want 1", got)
		}
		last := lines[len(lines)-1]
		if len(last) > 1024 {
			t.Errorf("audit line of %d bytes, want at most 1 KiB: %.300s", len(last), last)
		}
		if strings.Contains(last, testToken) {
			t.Errorf("the audit line holds the token: %s", last)
		}
		var fields struct {
			Session string `json:"session"`
		}
		if err := json.Unmarshal([]byte(last), &fields); err != nil {
			t.Fatalf("audit line is not JSON: %v: %s", err, last)
		}
		if session != "" && fields.Session == session {
			t.Errorf("the audit line holds the session ID %q itself, not its hash: %s", session, last)
		}
	})
}
