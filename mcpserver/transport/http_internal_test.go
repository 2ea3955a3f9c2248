package transport

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/automium/automium/mcpserver"
)

// TestHTTPMadeUpSessionIDsLeaveNoState: requests naming sessions that do not
// exist get go-sdk's 404 and leave nothing in the handler's session table, so
// a client cannot grow it by making IDs up.
func TestHTTPMadeUpSessionIDsLeaveNoState(t *testing.T) {
	const token = "test-token-0123456789abcdef"
	handler, err := NewHTTPHandler(mcpserver.New(nil), &HTTPOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	h := handler.(*httpHandler)
	for i := range 200 {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", fmt.Sprintf("made-up-%d", i))
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotFound {
			t.Fatalf("request %d: status %d, want 404", i, rec.Code)
		}
	}
	if n := h.table.Len(); n != 0 {
		t.Errorf("%d sessions tracked after 200 made-up IDs, want 0", n)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held != 0 {
		t.Errorf("%d body bytes still held, want 0", h.held)
	}
}

// TestIsErrorResponse: the outcome is read from the member go-sdk writes
// after jsonrpc and id, never from a result's body, whatever it holds.
func TestIsErrorResponse(t *testing.T) {
	for msg, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":{"text":"\"error\": nothing"}}`:             false,
		`{"jsonrpc":"2.0","id":"\"error\"","result":{}}`:                              false,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}`:              true,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`:                     true,
		`{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"error":1}}`: false,
		`not json`: false,
	} {
		if got := isErrorResponse([]byte(msg)); got != want {
			t.Errorf("isErrorResponse(%s) = %v, want %v", msg, got, want)
		}
	}
}
