package stdio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/automium/automium/mcpserver/transport/internal/envelope"
)

// BenchmarkRequestRoundTrip measures one tools/call through the transport and a
// real server, from the request line written to the response line read.
func BenchmarkRequestRoundTrip(b *testing.B) {
	s := serve(b, &Transport{})
	s.initialize()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`, i+1))
		if r := s.next(); r.Error != nil {
			b.Fatal(r.Error)
		}
	}
}

// largeResult is a result of about 2 MB, shaped like a compiled journey: text
// with quotes, escapes, CJK and HTML-significant characters, and many small
// objects. It is made as the SDK makes results: encoding/json, no HTML escaping.
func largeResult(tb testing.TB) json.RawMessage {
	type node struct {
		ID, Kind, Label string
	}
	var v struct {
		Content []map[string]string `json:"content"`
		Nodes   []node              `json:"nodes"`
	}
	v.Content = []map[string]string{{"type": "text", "text": strings.Repeat(`step <click> "x" & 日本 😀 \ `, 20000)}}
	for i := range 20000 {
		v.Nodes = append(v.Nodes, node{ID: fmt.Sprint("n", i), Kind: "action", Label: "click the <button>"})
	}
	return sdkMarshal(tb, v)
}

// sdkMarshal encodes v the way go-sdk's jsonrpc2 encodes a result.
func sdkMarshal(tb testing.TB, v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// BenchmarkEncodeResult compares writing a large result's bytes as they are
// (resultLine, what Write does) with re-encoding the whole response
// (jsonrpc.EncodeMessage, what it did before).
func BenchmarkEncodeResult(b *testing.B) {
	resp := &jsonrpc.Response{ID: makeID(b, "id-<7>"), Result: largeResult(b)}
	b.Run("as-is", func(b *testing.B) {
		b.SetBytes(int64(len(resp.Result)))
		for b.Loop() {
			resultLine(json.RawMessage(`"id-<7>"`), resp.Result)
		}
	})
	b.Run("EncodeMessage", func(b *testing.B) {
		b.SetBytes(int64(len(resp.Result)))
		for b.Loop() {
			if _, err := jsonrpc.EncodeMessage(resp); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeLargeLine measures the transport's checks and decode of the
// largest valid Automium call (SECURITY.md's worst valid call is 1.6 MB of
// arguments): 250 values of 2,000 characters with quotes, backslashes, '<', CJK
// and emoji, before the SDK sees the message.
func BenchmarkDecodeLargeLine(b *testing.B) {
	unit := []rune(`"\<日本語テキスト😀🚀`)
	value := make([]rune, 2000)
	for i := range value {
		value[i] = unit[i%len(unit)]
	}
	type step struct {
		Value string `json:"value"`
	}
	steps := make([]step, 250)
	for i := range steps {
		steps[i].Value = string(value)
	}
	args, err := json.Marshal(map[string]any{"steps": steps})
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"automium_compile_journey","arguments":` + string(args) + `}}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		view, problem := envelope.Parse(line, envelope.Limits{})
		if problem != nil {
			b.Fatal(problem)
		}
		if _, err := view.JSONRPC(); err != nil {
			b.Fatal(err)
		}
	}
}
