package envelope

import (
	"bytes"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"strings"
	"testing"
)

// FuzzParse: the door never panics; what it accepts is one strict JSON value
// (JSON v2 decodes it) with no two names in an object equal ignoring case,
// whose params and id are valid JSON slices of it; what it refuses gets a
// coded, bounded answer that is valid JSON.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{"a":[1,2,{"b":null}]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","\u0069d":1,"ID":2,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}x`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r"}}`,
		`{"jsonrpc":"2.0","id":"s","result":{}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(bytes.TrimSpace(data)) == 0 {
			return // the transports skip blank lines and bodies before the door
		}
		m, p := Parse(data, Limits{MaxValues: 1000, MaxDepth: 16})
		if p != nil {
			if p.Code == 0 || len(p.Message) > MaxErrorMessageBytes {
				t.Fatalf("problem %+v", p)
			}
			if !jsontext.Value(p.Response()).IsValid() {
				t.Fatalf("answer is not valid JSON: %s", p.Response())
			}
			return
		}
		var v any
		if err := jsonv2.Unmarshal(data, &v); err != nil {
			t.Fatalf("accepted what JSON v2 refuses (%v): %q", err, data)
		}
		if !distinctNames(v) {
			t.Fatalf("accepted names equal ignoring case: %q", data)
		}
		for _, raw := range []jsontext.Value{m.ID, m.Params} {
			if raw != nil && !raw.IsValid() {
				t.Fatalf("view holds invalid JSON %q from %q", raw, data)
			}
		}
		if _, err := m.JSONRPC(); err != nil && !m.Response {
			t.Fatalf("JSONRPC of an accepted request: %v", err)
		}
	})
}

func distinctNames(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		var names []string
		for name, member := range v {
			for _, other := range names {
				if strings.EqualFold(name, other) {
					return false
				}
			}
			names = append(names, name)
			if !distinctNames(member) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !distinctNames(e) {
				return false
			}
		}
	}
	return true
}
