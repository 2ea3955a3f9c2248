package envelope

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestParseRefuses(t *testing.T) {
	deep := strings.Repeat("[", 70) + strings.Repeat("]", 70)
	many := "[" + strings.Repeat("0,", 200) + "0]"
	tests := []struct {
		name, in string
		want     Problem
	}{
		{"not JSON", `{"jsonrpc":`, Problem{Code: -32700}},
		{"trailing bytes", `{"jsonrpc":"2.0","id":1,"method":"ping"}x`, Problem{Code: -32700}},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, Problem{Code: -32700}},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}", Problem{Code: -32700}},
		{"lone surrogate", `{"jsonrpc":"2.0","id":1,"method":"\ud800"}`, Problem{Code: -32700}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, Problem{Code: -32600, Message: BatchMessage}},
		{"scalar", `7`, Problem{Code: -32600}},
		{"case-variant method", `{"jsonrpc":"2.0","id":1,"method":"tools/call","METHOD":"ping"}`, Problem{ID: []byte("1"), Code: -32600}},
		{"escaped duplicate id", `{"jsonrpc":"2.0","id":1,"\u0069d":2,"method":"ping"}`, Problem{Code: -32600}},
		{"kelvin sign", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","\u212aey":1,"key":2}}`, Problem{ID: []byte("1"), Code: -32600}},
		{"duplicate in _meta", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"a":1,"A":2}}}`, Problem{ID: []byte("1"), Code: -32600}},
		{"duplicate in capabilities", `{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"capabilities":{"roots":{},"Roots":{}}}}`, Problem{ID: []byte(`"x"`), Code: -32600}},
		{"duplicate params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"Params":{}}`, Problem{ID: []byte("1"), Code: -32600}},
		{"too deep", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"x":` + deep + `}}}`, Problem{ID: []byte("3"), Code: -32600}},
		{"too many values", `{"id":4,"jsonrpc":"2.0","method":"ping","params":{"_meta":{"x":` + many + `}}}`, Problem{ID: []byte("4"), Code: -32600}},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, Problem{ID: []byte("1.5"), Code: -32600}},
		{"huge id", `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, Problem{ID: []byte("9007199254740992"), Code: -32600}},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, Problem{Code: -32600}},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, Problem{Code: -32600}},
		{"no version", `{"id":1,"method":"ping"}`, Problem{ID: []byte("1"), Code: -32600}},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, Problem{ID: []byte("1"), Code: -32600}},
		{"long method", `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("m", 200) + `"}`, Problem{ID: []byte("1"), Code: -32601}},
		{"string params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"` + strings.Repeat("p", 1000) + `"}`, Problem{ID: []byte("1"), Code: -32602}},
		{"neither", `{"jsonrpc":"2.0","id":1}`, Problem{ID: []byte("1"), Code: -32600}},
		{"large notification", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{"pad":"` + strings.Repeat("p", MaxNotificationParamsBytes) + `"}}}`,
			Problem{Code: -32602, Notification: true}},
		{"large unknown notification, escaped pad", `{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"` + strings.Repeat(`\u0070`, MaxNotificationParamsBytes/6+1) + `"}}`,
			Problem{Code: -32602, Notification: true}},
		{"METHOD alone", `{"jsonrpc":"2.0","id":1,"METHOD":"ping"}`, Problem{ID: []byte("1"), Code: -32600}},
		{"ID alone", `{"jsonrpc":"2.0","ID":1,"method":"ping"}`, Problem{Code: -32600}},
		{"_META in params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_META":{}}}`, Problem{ID: []byte("1"), Code: -32600}},
		{"Name in params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"x"}}`, Problem{ID: []byte("1"), Code: -32600}},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, Problem{Code: -32600}},
		{"long protocol version in _meta", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + strings.Repeat("9", 33) + `"}}}`, Problem{ID: []byte("1"), Code: -32600}},
		{"long protocol version before the sessionless one", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + strings.Repeat("1", 1000) + `"}}}`, Problem{ID: []byte("1"), Code: -32600}},
		// What a session keeps for its life is bounded whatever member holds the bytes.
		{"long clientInfo.name", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + strings.Repeat("n", MaxSessionParamsBytes) + `","version":"0"}}}`,
			Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: the params of "initialize" hold 65625 bytes; a session keeps them for its whole life, so the limit is 65536: send a shorter clientInfo and fewer capabilities`}},
		{"long capability", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"x":"` + strings.Repeat("c", 70000) + `"}},"clientInfo":{"name":"a","version":"0"}}}`, Problem{ID: []byte("1"), Code: -32602}},
		{"long escaped name", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + strings.Repeat(`\u0041`, 11000) + `","version":"0"}}}`, Problem{ID: []byte("1"), Code: -32602}},
		{"long padding between members", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` + strings.Repeat(" ", 70000) + `"capabilities":{},"clientInfo":{"name":"a","version":"0"}}}`, Problem{ID: []byte("1"), Code: -32602}},
		{"long logging level", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"` + strings.Repeat("d", 70000) + `"}}`,
			Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: the params of "logging/setLevel" hold 70012 bytes; a session keeps them for its whole life, so the limit is 65536: send only a level, one of debug, info, notice, warning, error, critical, alert, emergency`}},
		{"long member beside the logging level", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug","x":"` + strings.Repeat("x", 70000) + `"}}`,
			Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: the params of "logging/setLevel" hold 70024 bytes; a session keeps them for its whole life, so the limit is 65536: send only a level, one of debug, info, notice, warning, error, critical, alert, emergency`}},
	}
	lim := Limits{MaxValues: 100, MaxDepth: 64}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, p := Parse([]byte(tt.in), lim)
			if p == nil {
				t.Fatalf("Parse accepted it: %+v", m)
			}
			if len(p.Message) > 300 {
				t.Errorf("message is %d bytes, want a bounded one: %.100s", len(p.Message), p.Message)
			}
			if tt.want.Message == "" {
				tt.want.Message = p.Message
			}
			if diff := cmp.Diff(tt.want, *p); diff != "" {
				t.Errorf("Parse(%.80s) problem (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseView(t *testing.T) {
	tests := []struct {
		name, in string
		want     Message
	}{
		{"call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"automium_x","arguments":{"a":[1,{"b":2}]}}}`,
			Message{Method: "tools/call", ID: []byte("7"), Params: []byte(`{"name":"automium_x","arguments":{"a":[1,{"b":2}]}}`), Name: "automium_x"}},
		{"escaped names", `{"jsonrpc":"2.0","\u0069d":"a","m\u0065thod":"prompts/get","params":{"n\u0061me":"p"}}`,
			Message{Method: "prompts/get", ID: []byte(`"a"`), Params: []byte(`{"n\u0061me":"p"}`), Name: "p"}},
		{"sessionless", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			Message{Method: "tools/list", ID: []byte("1"), Params: []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`), ProtocolVersion: "2026-07-28"}},
		{"cancelled", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12}}`,
			Message{Method: "notifications/cancelled", Params: []byte(`{"requestId":12}`), CancelledID: []byte("12")}},
		{"resource", ` {"jsonrpc":"2.0","id":-3,"method":"resources/read","params":{"uri":"automium://x"}} `,
			Message{Method: "resources/read", ID: []byte("-3"), Params: []byte(`{"uri":"automium://x"}`), Name: "automium://x"}},
		{"response", `{"jsonrpc":"2.0","id":"s1","result":{}}`, Message{ID: []byte(`"s1"`), Response: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, p := Parse([]byte(tt.in), Limits{})
			if p != nil {
				t.Fatalf("Parse refused it: %+v", p)
			}
			m.raw = nil
			if diff := cmp.Diff(tt.want, *m, cmp.AllowUnexported(Message{})); diff != "" {
				t.Errorf("view (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJSONRPC(t *testing.T) {
	m, p := Parse([]byte(`{"jsonrpc":"2.0","id":"x\u2028","method":"ping","params":{}}`), Limits{})
	if p != nil {
		t.Fatal(p)
	}
	msg, err := m.JSONRPC()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`"x\u2028"`, string(ID(msg.(*jsonrpc.Request).ID))); diff != "" {
		t.Errorf("ID (-want +got):\n%s", diff)
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name          string
		line          string
		values, depth int
		want          *Problem
	}{
		{"small", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 4, 1, nil},
		{"exactly the values", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[1,2,3]}}`, 9, 3, nil},
		{"one value over", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[1,2,3,4]}}`, 9, 3, &Problem{ID: []byte("1"), Code: -32600}},
		{"member names are not values", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"b":2,"c":3}}`, 8, 2, nil},
		{"exactly the depth", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[[{}]]}}`, 10, 5, nil},
		{"one level over", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[[{"b":[]}]]}}`, 10, 5, &Problem{ID: []byte("1"), Code: -32600}},
		{"id after the excess", `{"a":[{},{},{},{},{}],"id":"late"}`, 3, 10, &Problem{ID: []byte(`"late"`), Code: -32600}},
		{"id after the depth", `{"a":[[[[[[]]]]]],"id":"deep"}`, 10, 3, &Problem{ID: []byte(`"deep"`), Code: -32600}},
		{"repeated id after the excess", `{"a":[{},{},{},{},{}],"id":1,"ID":2}`, 3, 10, &Problem{Code: -32600}},
		{"id before the excess, repeated after", `{"id":1,"a":[{},{},{},{},{}],"ID":2}`, 3, 10, &Problem{Code: -32600}},
		{"invalid JSON after the excess", `{"id":1,"a":[{},{},{},{},{}],"b":tru}`, 3, 10, &Problem{Code: -32700}},
		{"trailing bytes after the excess", `{"id":1,"a":[{},{},{},{},{}]}x`, 3, 10, &Problem{Code: -32700}},
		{"nested id does not count", `{"a":{"id":5},"b":[1,2,3,4,5]}`, 3, 10, &Problem{Code: -32600}},
		{"strings with quotes and brackets", `{"jsonrpc":"2.0","method":"ping","id":"a\"[{","x":"\\","y":"[[[["}`, 6, 1, nil},
		{"space around tokens", ` { "jsonrpc" : "2.0" , "id" : 7 , "method" : "ping" } `, 4, 1, nil},
		{"escaped fractional id", `{"jsonrpc":"2.0","i\u0064":1.5,"method":"ping"}`, 4, 1, &Problem{ID: []byte("1.5"), Code: -32600}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := Parse([]byte(tt.line), Limits{MaxValues: tt.values, MaxDepth: tt.depth})
			if p != nil && tt.want != nil {
				tt.want.Message = p.Message
			}
			if diff := cmp.Diff(tt.want, p); diff != "" {
				t.Errorf("Parse(%s) (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestCapMessage(t *testing.T) {
	long := strings.Repeat("é", MaxErrorMessageBytes)
	got := CapMessage(long)
	if len(got) > MaxErrorMessageBytes || !strings.HasSuffix(got, "… ("+strconv.Itoa(len(long))+" bytes)") {
		t.Errorf("CapMessage: %d bytes ending %q", len(got), got[len(got)-30:])
	}
	if short := "short"; CapMessage(short) != short {
		t.Errorf("CapMessage changed a short message")
	}
}

func TestSniffID(t *testing.T) {
	tests := []struct {
		prefix string
		want   string
	}{
		{`{"jsonrpc":"2.0","id":5,"method":"x","params":{"a":"bbbb`, "5"},
		{`{"id":"s","params":`, `"s"`},
		{`{"params":{"id":1,"x":"yyy`, ""}, // nested id does not count
		{`{"params":{"a":1},"id":-3,"x`, "-3"},
		{`{"id":true,"x`, ""},
		{`{"id":12`, ""}, // cut inside the id: it may go on
		{`{"id":1,"ID":2,"x`, ""},
		{`{"id":1.5,"x`, ""},
		{`[{"id":1}`, ""},
		{`garbage`, ""},
	}
	for _, tt := range tests {
		if got := string(SniffID([]byte(tt.prefix))); got != tt.want {
			t.Errorf("SniffID(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
}

// TestSessionParamsValues checks that what a session keeps is bounded by its
// values as well as its bytes, at the default limits: go-sdk keeps those params
// decoded, where a small value costs far more than its bytes.
func TestSessionParamsValues(t *testing.T) {
	values := func(n int) string { return strings.TrimSuffix(strings.Repeat("0,", n), ",") }
	tests := []struct {
		name, in string
		want     *Problem
	}{
		{"many capability values", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"x":[` + strings.Repeat("[[[[[[[0]]]]]]],", 200) + `0]}},"clientInfo":{"name":"a","version":"0"}}}`,
			&Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: the params of "initialize" hold 1608 JSON values; a session keeps them for its whole life, so the limit is 1024: send a shorter clientInfo and fewer capabilities`}},
		{"many values beside the logging level", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug","x":[` + strings.Repeat("0,", 1100) + `0]}}`,
			&Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: the params of "logging/setLevel" hold 1103 JSON values; a session keeps them for its whole life, so the limit is 1024: send only a level, one of debug, info, notice, warning, error, critical, alert, emergency`}},
		{"at the bound", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"x":[` + values(MaxSessionParamsValues-7) + `]}},"clientInfo":{"name":"a","version":"0"}}}`, nil},
		{"a call that keeps nothing", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"x":[` + values(5000) + `]}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := Parse([]byte(tt.in), Limits{})
			if diff := cmp.Diff(tt.want, p); diff != "" {
				t.Errorf("Parse(%.80s) problem (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
