package safetytest

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/testsupport"
	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lines of the fuzzed session around the fuzzed line. Their ids are strings the
// fuzzer is unlikely to reuse; if it does, the exactness checks are relaxed.
const (
	fuzzInitLine     = `{"jsonrpc":"2.0","id":"fz-init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}`
	fuzzSentinelLine = `{"jsonrpc":"2.0","id":"fz-sentinel","method":"tools/call","params":{"name":"automium_list_apps","arguments":{}}}`
)

// fuzzServer is built once: building a server derives every schema, and one
// server serves any number of sessions.
var fuzzServer = sync.OnceValue(func() *mcp.Server { return mcpserver.New(nil) })

// FuzzServerLines feeds one raw line to the real Automium server (mcpserver.New
// over mcpserver/transport/stdio, what automium-mcp runs) between an initialize handshake
// and a sentinel tools/call, then ends the input. Whatever the line holds:
//
//   - nothing panics, hangs or ends the session early: Run returns nil at end of
//     input and the sentinel gets the same answer as in a clean session;
//   - every line written is one JSON-RPC 2.0 response with an id and exactly one
//     of result and error, and no error has code 0;
//   - a line that is a request with a string or exact-integer id gets exactly one
//     response with that id (a subscriptions/listen call at most one: it is
//     still open when the input ends);
//   - a tool error is a coded automium error, never internal (a recovered panic).
//
// Newlines in the input are replaced by spaces, so it is always exactly one line;
// FuzzTransportLines in mcpserver/transport/stdio covers line splitting. Seeds cover every
// method with good, bad and hostile params (testdata/fuzz/FuzzServerLines).
func FuzzServerLines(f *testing.F) {
	clean := runFuzzSession(f, nil)
	wantSentinel, ok := clean[`"fz-sentinel"`]
	if !ok || len(wantSentinel) != 1 {
		f.Fatalf("clean session: sentinel not answered once: %v", clean)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, line)
		answers := runFuzzSession(t, line)

		requestID := fuzzRequestID(line)
		sentinelReused := requestID == `"fz-sentinel"` || requestID == `"fz-init"`
		if got := answers[`"fz-sentinel"`]; !sentinelReused && (len(got) != 1 || got[0] != wantSentinel[0]) {
			t.Fatalf("the sentinel after the line got %q, want %q", got, wantSentinel)
		}
		if requestID != "" && !sentinelReused && len(answers[requestID]) != 1 {
			t.Fatalf("request with id %s got %d responses, want 1: %q", requestID, len(answers[requestID]), answers[requestID])
		}
	})
}

// runFuzzSession runs one session with line between the handshake and the
// sentinel (no line when nil) and returns the responses by id, each summarized
// as its raw result or its error code.
func runFuzzSession(t testing.TB, line []byte) map[string][]string {
	t.Helper()
	input := fuzzInitLine + "\n" + initializedLine + "\n"
	if line != nil {
		input += string(line) + "\n"
	}
	input += fuzzSentinelLine + "\n"
	var out testsupport.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- fuzzServer().Run(context.Background(), &stdio.Transport{Reader: strings.NewReader(input), Writer: &out, DrainTimeout: 10 * time.Second})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil at end of input", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30s of end of input")
	}
	answers := map[string][]string{}
	for _, l := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  *string         `json:"method"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(l, &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("the server wrote a line that is not JSON-RPC 2.0 (%v): %.300s", err, l)
		}
		if m.Method != nil {
			if m.ID != nil {
				t.Fatalf("the server sent a request of its own: %.300s", l)
			}
			continue // a notification, such as a subscription acknowledgement
		}
		if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
			t.Fatalf("a response needs an id and exactly one of result and error: %.300s", l)
		}
		summary := string(m.Result)
		if m.Error != nil {
			if m.Error.Code == 0 {
				t.Fatalf("error code 0 on the wire: %.300s", l)
			}
			summary = "error " + strconv.FormatInt(m.Error.Code, 10)
		} else {
			var tr toolResult
			if json.Unmarshal(m.Result, &tr) == nil && tr.IsError && tr.errorCode() == string(automium.CodeInternal) {
				t.Fatalf("a tool failed with an internal error (a recovered panic?): %.500s", l)
			}
		}
		id := idKey(m.ID)
		answers[id] = append(answers[id], summary)
	}
	return answers
}

// fuzzRequestID is the canonical id of line when it is a JSON-RPC request that
// must be answered: strict JSON (see strictJSON) and an object with
// "jsonrpc":"2.0", a string method and a string or exact-integer id.
// Otherwise it is "".
func fuzzRequestID(line []byte) string {
	if !strictJSON(bytes.TrimSpace(line)) {
		// Refused at the door, with -32700 or with an id that may be null:
		// not a request that must be served.
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil {
		return ""
	}
	var version, method string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" ||
		json.Unmarshal(m["method"], &method) != nil || m["method"] == nil || string(m["method"]) == "null" {
		return ""
	}
	if method == "subscriptions/listen" {
		// A subscription lasts as long as the session, so it is still open when
		// the input ends; whether its final answer is written before the SDK
		// shuts the session down is the SDK's race, not a promise of ours
		// (mcpserver/transport/stdio documents that it does not wait for listen calls).
		return ""
	}
	raw := bytes.TrimSpace(m["id"])
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return idKey(raw)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n <= -(1<<53) || n >= 1<<53 {
		return ""
	}
	return idKey(raw)
}

// idKey is an id in canonical JSON, so that "\u0041" and "A", or -0 and 0, are
// the same id, as they are to a client.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	if n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	data, _ := json.Marshal(v)
	return string(data)
}
