package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// doorRefusedCases are the calls the door refuses by MCP's rules, the ones
// go-sdk does not keep (calls.go), and the responses go-sdk cannot decode.
var doorRefusedCases = []struct {
	name, in string
	want     Problem
}{
	{"notification with an id", `{"jsonrpc":"2.0","id":16,"method":"notifications/initialized"}`,
		Problem{ID: []byte("16"), Code: -32600, Message: `Invalid Request: "notifications/initialized" is a notification; send it without an id`}},
	{"unknown notification with an id", `{"jsonrpc":"2.0","id":"n","method":"notifications/` + strings.Repeat("n", 100) + `","params":{}}`,
		Problem{ID: []byte(`"n"`), Code: -32600, Message: `Invalid Request: "notifications/nnnnnnnnnnnnnnnnnnnnnnnnnn"… (114 bytes) is a notification; send it without an id`}},
	// A sessionless call whose _meta go-sdk refuses (validateRequestMeta):
	// its -32602 said only that the params were not servable.
	{"sessionless without client capabilities", `{"jsonrpc":"2.0","id":21,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		Problem{ID: []byte("21"), Code: -32602, Message: sessionlessMetaMessage}},
	{"sessionless client capabilities null", `{"jsonrpc":"2.0","id":22,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}}`,
		Problem{ID: []byte("22"), Code: -32602, Message: sessionlessMetaMessage}},
	{"sessionless client capabilities a list", `{"jsonrpc":"2.0","id":23,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}`,
		Problem{ID: []byte("23"), Code: -32602, Message: sessionlessMetaMessage}},
	{"sessionless client info null", `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":null}}}`,
		Problem{ID: []byte("25"), Code: -32602, Message: sessionlessMetaMessage}},
	{"sessionless client info name a number", `{"jsonrpc":"2.0","id":26,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":1}}}}`,
		Problem{ID: []byte("26"), Code: -32602, Message: sessionlessMetaMessage}},
	{"sessionless client info without a version", `{"jsonrpc":"2.0","id":27,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c"}}}}`,
		Problem{ID: []byte("27"), Code: -32602, Message: sessionlessMetaMessage}},
	// A response go-sdk cannot decode: go-sdk's HTTP transport refused it
	// with a plain-text 400, stdio with a message of its own.
	{"error code a string", `{"jsonrpc":"2.0","id":17,"error":{"code":"x","message":"y"}}`,
		Problem{ID: []byte("17"), Code: -32600, Message: ResponseShapeMessage}},
	{"error code a fraction", `{"jsonrpc":"2.0","id":"r","error":{"code":1.5,"message":"y"}}`,
		Problem{ID: []byte(`"r"`), Code: -32600, Message: ResponseShapeMessage}},
	{"error a string", `{"jsonrpc":"2.0","id":18,"error":"` + strings.Repeat("<", 1<<16) + `"}`,
		Problem{ID: []byte("18"), Code: -32600, Message: ResponseShapeMessage}},
	{"error message a number", `{"jsonrpc":"2.0","id":19,"result":{},"error":{"code":1,"message":5}}`,
		Problem{ID: []byte("19"), Code: -32600, Message: ResponseShapeMessage}},
	{"error a list", `{"jsonrpc":"2.0","id":20,"error":[]}`,
		Problem{ID: []byte("20"), Code: -32600, Message: ResponseShapeMessage}},
}

const sessionlessMetaMessage = `Invalid params: a call of protocol "2026-07-28" must carry "io.modelcontextprotocol/clientCapabilities" (an object of client capabilities) in params._meta, and "io.modelcontextprotocol/clientInfo", if it carries one, must be an object with a string "name" and "version"`

// TestDoorRefusesByMCPRules: what the door refuses of a well-formed message,
// with its own bounded message and the request's id.
func TestDoorRefusesByMCPRules(t *testing.T) {
	for _, tt := range doorRefusedCases {
		t.Run(tt.name, func(t *testing.T) {
			m, p := Parse([]byte(tt.in), Limits{})
			if p == nil {
				t.Fatalf("Parse accepted it: %+v", m)
			}
			if diff := cmp.Diff(tt.want, *p); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDoorLeavesMethodsToSDK: the door keeps no method table and decodes no
// params: a method go-sdk does not have, params it cannot decode and params
// it needs but did not get all pass, to be refused by go-sdk and rendered on
// the way out (TestSDKAnswersRendered in package transport checks those
// answers on both transports).
func TestDoorLeavesMethodsToSDK(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":null}]},"_meta":{"progressToken":7},"extra":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5,"pad":"<<<"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`,
		`{"jsonrpc":"2.0","id":1,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`,
		`{"jsonrpc":"2.0","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/unknown"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":"half"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":5}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"r"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"0","x":1}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-1,"message":"m","data":[1]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m","extra":1}}`,
		`{"jsonrpc":"2.0","id":1,"error":null,"result":null}`,
	} {
		if _, p := Parse([]byte(in), Limits{}); p != nil {
			t.Errorf("Parse(%s) = %v, want accepted", in, p)
		}
	}
}

// TestSDKErrorNeverForwardsText: whatever go-sdk sends, with whatever text,
// code and data, the client reads a message made here from the code alone: no
// byte of go-sdk's text, and of its data only the structured echo the spec
// asks for (SEP-2575's requested version, SEP-2164's URI), bounded.
func TestSDKErrorNeverForwardsText(t *testing.T) {
	const secret = "unmarshaling \"SECRET\" into a *mcp.CallToolParamsRaw: missing required \"params\" is invalid during session initialization"
	texts := []string{secret, "", strings.Repeat("<", 1<<20), "\xff\xfe", "JSON RPC not handled: SECRET"}
	codes := []int64{0, -32700, -32600, -32601, -32602, -32603, -32002, -32020, -32021, mcp.CodeUnsupportedProtocolVersion, 1, -1, 1 << 40}
	method := "tools/call"
	for _, text := range texts {
		for _, code := range codes {
			errs := []error{
				&jsonrpc.Error{Code: code, Message: text, Data: json.RawMessage(`{"requested":"2099-01-01","other":"SECRET"}`)},
				fmt.Errorf("wrapped %s: %w", text, &jsonrpc.Error{Code: code, Message: text}),
			}
			if code == 0 {
				errs = append(errs, errors.New(text))
			}
			for _, err := range errs {
				got := SDKError(err, method)
				if text != "" && strings.Contains(got.Message, text) || strings.Contains(got.Message, "SECRET") || strings.Contains(string(got.Data), "SECRET") {
					t.Errorf("SDKError(%d, %.40q) = %+v: forwards go-sdk's text", code, text, got)
				}
				if len(got.Message) > 300 {
					t.Errorf("SDKError(%d) message of %d bytes", code, len(got.Message))
				}
				wantCode := code
				if code == 0 {
					wantCode = jsonrpc.CodeInternalError
				}
				if got.Code != wantCode {
					t.Errorf("SDKError(%d) code = %d, want %d", code, got.Code, wantCode)
				}
				if code == mcp.CodeUnsupportedProtocolVersion {
					var data mcp.UnsupportedProtocolVersionData
					if json.Unmarshal(got.Data, &data) != nil || len(data.Supported) == 0 {
						t.Errorf("SDKError(%d) data %s: want the supported versions", code, got.Data)
					}
				}
				// The same code and data give the same answer, whatever the text.
				var data json.RawMessage
				if wire, ok := errors.AsType[*jsonrpc.Error](err); ok {
					data = wire.Data
				}
				if again := SDKError(&jsonrpc.Error{Code: code, Message: "other", Data: data}, method); !cmp.Equal(again, got) {
					t.Errorf("SDKError(%d) depends on the text: %+v vs %+v", code, again, got)
				}
			}
		}
	}
}

// TestSDKErrorKeepsHandlersErrors: an error whose data is an automium error,
// as mcpserver's renderer writes every error of its handlers, passes as it
// was rendered; nothing else does.
func TestSDKErrorKeepsHandlersErrors(t *testing.T) {
	own := &jsonrpc.Error{Code: -32602, Message: "unsupported_operation: name: unknown tool \"x\"",
		Data: json.RawMessage(`{"error":{"code":"unsupported_operation","message":"unknown tool \"x\""}}`)}
	if diff := cmp.Diff(own, SDKError(own, "tools/call")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, data := range []string{`{"error":{}}`, `{"error":{"code":""}}`, `{"error":"x"}`, `[]`, `{"error":{"code":1}}`} {
		got := SDKError(&jsonrpc.Error{Code: -32602, Message: "SECRET", Data: json.RawMessage(data)}, "tools/call")
		if strings.Contains(got.Message, "SECRET") || got.Data != nil {
			t.Errorf("data %s: %+v, want rendered by code", data, got)
		}
	}
}

// TestSDKErrorEchoesWhatTheSpecAsks: SEP-2575's unsupported-version data
// names the version requested, and SEP-2164's resource-not-found data the URI
// asked for, both bounded; nothing else of go-sdk's data passes.
func TestSDKErrorEchoesWhatTheSpecAsks(t *testing.T) {
	long := strings.Repeat("<", 1<<20)
	tests := []struct {
		name string
		in   *jsonrpc.Error
		want string
	}{
		{"requested version", &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "SECRET", Data: json.RawMessage(`{"supported":["SECRET"],"requested":"2099-01-01"}`)},
			`"requested":"2099-01-01"`},
		{"requested version too long", &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Data: json.RawMessage(`{"requested":"` + long + `"}`)},
			`"requested":"\"\u003c`},
		{"URI", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "SECRET", Data: json.RawMessage(`{"uri":"test://nonexistent","other":"SECRET"}`)},
			`{"uri":"test://nonexistent"}`},
		{"URI too long", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Data: json.RawMessage(`{"uri":"` + long + `"}`)},
			`{"uri":"\"\u003c`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SDKError(tt.in, "resources/read")
			if !strings.Contains(string(got.Data), tt.want) || strings.Contains(got.Message+string(got.Data), "SECRET") || len(got.Data) > 1024 {
				t.Errorf("data %.200s, message %q: want %s, bounded, and nothing else of go-sdk's", got.Data, got.Message, tt.want)
			}
		})
	}
}

// TestDoorRefusesUnknownLoggingLevel: go-sdk answers logging/setLevel with
// success whatever level it names, and then logs at debug for one it does
// not know; the door refuses any level MCP does not define, on both
// transports, with the levels it takes and the client's value cut.
func TestDoorRefusesUnknownLoggingLevel(t *testing.T) {
	const fix = "; use one of debug, info, notice, warning, error, critical, alert, emergency"
	tests := []struct {
		name, params string
		want         *Problem
	}{
		{"debug", `{"level":"debug"}`, nil},
		{"emergency", `{"level":"emergency","_meta":{}}`, nil},
		{"upper case", `{"level":"DEBUG"}`, &Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: "DEBUG" is not an MCP logging level` + fix}},
		{"unknown", `{"level":"loud"}`, &Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: "loud" is not an MCP logging level` + fix}},
		{"empty", `{"level":""}`, &Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: "" is not an MCP logging level` + fix}},
		{"escaped", `{"level":"d\u0065bug "}`, &Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: "debug " is not an MCP logging level` + fix}},
		{"missing", `{}`, &Problem{ID: []byte("1"), Code: -32602, Message: `Invalid params: "logging/setLevel" requires params.level` + fix}},
		{"long", `{"level":"` + strings.Repeat("d", 5000) + `"}`, &Problem{ID: []byte("1"), Code: -32602,
			Message: `Invalid params: "` + strings.Repeat("d", 40) + `"… (5000 bytes) is not an MCP logging level` + fix}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := Parse([]byte(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":`+tt.params+`}`), Limits{})
			if diff := cmp.Diff(tt.want, p); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSessionlessCallsKeepNothing: in the sessionless protocol, logging/setLevel
// and initialize are removed methods that go-sdk answers 404 and -32601
// (SEP-2575), so the door's checks of what a session would keep (the level, the
// 64 KiB bound) leave them alone: the conformance suite's 404 checks hold.
func TestSessionlessCallsKeepNothing(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"LOUD",` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug","x":"` + strings.Repeat("x", MaxSessionParamsBytes) + `",` + meta + `}}`,
	} {
		if _, p := Parse([]byte(line), Limits{}); p != nil {
			t.Errorf("Parse(%.120s) = %+v; want it left to go-sdk's 404", line, p)
		}
	}
	// In a handshake session the same checks hold.
	if _, p := Parse([]byte(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"LOUD"}}`), Limits{}); p == nil || p.Code != -32602 {
		t.Errorf("handshake setLevel LOUD: %+v, want -32602", p)
	}
}
