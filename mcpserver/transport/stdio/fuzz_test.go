package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	jsonv2 "encoding/json/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sentinelLine is a ping sent after the fuzzed input: its answer proves the session
// survived whatever came before.
const sentinelLine = `{"jsonrpc":"2.0","id":"stdio-fuzz-sentinel","method":"ping"}`

// FuzzTransportLines feeds raw client lines to a real server over the transport,
// between an initialize handshake and a sentinel ping, then ends the input. It
// checks that nothing panics or hangs, that every line written back is a
// well-formed JSON-RPC message with a real error code, that every request carrying
// a usable id is answered (exactly once when nothing else on the input mentions
// that id), that nothing answers an id the client never sent, and that the
// sentinel is served. The seed corpus in testdata/fuzz/FuzzTransportLines covers
// each rule of the package documentation.
func FuzzTransportLines(f *testing.F) {
	server := newTestServer(false)
	f.Fuzz(func(t *testing.T, input []byte) {
		stream := initializeLine + "\n" + initializedLine + "\n" + string(input) + "\n" + sentinelLine + "\n"
		var out syncBuffer
		done := make(chan error, 1)
		go func() {
			done <- server.Run(context.Background(), &Transport{Reader: strings.NewReader(stream), Writer: &out, DrainTimeout: 5 * time.Second})
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Run = %v, want nil at end of input", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Run did not return within 20s of end of input")
		}
		checkAnswers(t, strings.Split(stream, "\n"), out.Bytes())
	})
}

// checkAnswers compares what the server wrote with the id-carrying lines it read.
func checkAnswers(t *testing.T, lines []string, output []byte) {
	t.Helper()
	requests, mentions, cancelled := map[string]int{}, map[string]int{}, map[string]bool{}
	for _, l := range lines {
		if id := cancelledID([]byte(l)); id != "" {
			cancelled[id] = true
		}
		requestID, mentioned := classify([]byte(l))
		if requestID != "" {
			requests[requestID]++
		}
		for _, id := range mentioned {
			mentions[id]++
		}
	}

	answers := map[string]int{}
	sentinelServed := false
	for _, l := range bytes.Split(bytes.TrimSuffix(output, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  *string         `json:"method"`
			Result  json.RawMessage `json:"result"`
			Error   *jsonrpc.Error  `json:"error"`
		}
		if err := json.Unmarshal(l, &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("server wrote a line that is not JSON-RPC 2.0 (%v): %s", err, l)
		}
		if m.Method != nil {
			continue // a notification or request of the server's own
		}
		if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
			t.Fatalf("response needs an id and exactly one of result and error: %s", l)
		}
		if m.Error != nil && m.Error.Code == 0 {
			t.Fatalf("error code 0 on the wire: %s", l)
		}
		id := idKey(m.ID)
		answers[id]++
		if id == idKey(json.RawMessage(`"stdio-fuzz-sentinel"`)) && m.Result != nil {
			sentinelServed = true
		}
	}
	if !sentinelServed && mentions[idKey(json.RawMessage(`"stdio-fuzz-sentinel"`))] == 1 {
		t.Fatalf("the sentinel ping after the input was not served; output:\n%s", output)
	}
	for id, n := range answers {
		if id == "null" {
			if n > len(lines) {
				t.Errorf("%d null-id errors for %d lines", n, len(lines))
			}
			continue
		}
		if n > mentions[id] {
			t.Errorf("id %s answered %d times but mentioned %d times", id, n, mentions[id])
		}
	}
	for id, n := range requests {
		switch got := answers[id]; {
		case cancelled[id] && got <= n:
			// A call cancelled while in flight gets no answer.
		case got < n:
			t.Errorf("id %s: %d request(s), %d answer(s)", id, n, got)
		case mentions[id] == n && got != n:
			t.Errorf("id %s: %d request(s), %d answer(s), want exactly one each", id, n, got)
		}
	}
}

// cancelledID is the key of the id a notifications/cancelled line names, or "".
func cancelledID(line []byte) string {
	var m struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "notifications/cancelled" || m.Params.RequestID == nil {
		return ""
	}
	// go-sdk reads a cancellation's number as a float64 truncated to an
	// integer: 1.0 and 1.5 name the call with id 1.
	if f, err := strconv.ParseFloat(string(bytes.TrimSpace(m.Params.RequestID)), 64); err == nil {
		return "n:" + strconv.FormatInt(int64(f), 10)
	}
	return idKey(m.Params.RequestID)
}

// classify reads a line the way a client means it, independently of the transport:
// requestID is the key of the id if the line is a well-formed request that must be
// answered, and mentioned lists the keys of every string or number id on the line,
// including those of batch elements, which the transport may echo in errors.
func classify(line []byte) (requestID string, mentioned []string) {
	line = bytes.TrimSpace(line)
	if len(line) > DefaultMaxLineBytes {
		return "", nil
	}
	if !strictJSON(line) {
		// Refused at the door (invalid UTF-8, names repeated however
		// spelled): answered with the id, or null when the id is unclear.
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) == nil && echoable(m["id"]) {
			return "", []string{idKey(m["id"])}
		}
		return "", nil
	}
	var elems []json.RawMessage
	if json.Unmarshal(line, &elems) == nil {
		for _, e := range elems {
			var m map[string]json.RawMessage
			if json.Unmarshal(e, &m) == nil && echoable(m["id"]) {
				mentioned = append(mentioned, idKey(m["id"]))
			}
		}
		return "", mentioned
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || !echoable(m["id"]) {
		return "", nil
	}
	id := idKey(m["id"])
	var version, method string
	if json.Unmarshal(m["jsonrpc"], &version) == nil && version == "2.0" &&
		json.Unmarshal(m["method"], &method) == nil && m["method"] != nil && string(m["method"]) != "null" &&
		method != listenMethod && isExactID(m["id"]) {
		return id, []string{id}
	}
	return "", []string{id}
}

// isExactID is the MCP rule for ids, written out separately from exactID: a
// string, or an integer literal a float64 holds exactly.
func isExactID(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return true
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return err == nil && n > -(1<<53) && n < 1<<53
}

// idKey identifies an id by value, so that "\u0041" and "A", or -0 and 0, are the
// same id, as they are to a JSON client.
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var s string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "null"
	case json.Unmarshal(raw, &s) == nil:
		return "s:" + strconv.Quote(s)
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return "n:" + strconv.FormatInt(n, 10)
	}
	return "raw:" + string(raw)
}

// echoable reports whether an id is a string or a number, the ids an error
// can carry back.
func echoable(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// strictJSON is the door's rule written out independently: JSON v2's strict
// decode (valid UTF-8, no exact duplicate names, one value), and no object
// with two names equal ignoring case.
func strictJSON(line []byte) bool {
	var v any
	if jsonv2.Unmarshal(line, &v) != nil {
		return false
	}
	var distinct func(any) bool
	distinct = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			names := make([]string, 0, len(v))
			for name, member := range v {
				for _, other := range names {
					if strings.EqualFold(name, other) {
						return false
					}
				}
				names = append(names, name)
				if !distinct(member) {
					return false
				}
			}
		case []any:
			for _, e := range v {
				if !distinct(e) {
					return false
				}
			}
		}
		return true
	}
	return distinct(v)
}
