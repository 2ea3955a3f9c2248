package conformancefixture_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/automium/automium/mcpserver/transport"

	"github.com/automium/automium/tools/internal/conformancefixture"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const token = "fixture-test-token-0123456789"

type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestThroughHTTPHandler runs a few fixtures the way the suite does, through
// transport.NewHTTPHandler with the token on, at both protocol revisions: on a
// session (2025-11-25) the server asks the client over the session; sessionless
// (2026-07-28) it answers with input-required results and the client calls
// again; test_reconnection closes its stream, and go-sdk's client resumes it
// with Last-Event-ID (2025-11-25; 2026-07-28 has no resumption, and the answer
// comes on the stream). go test thus covers what conformance/run.sh checks
// with the suite.
func TestThroughHTTPHandler(t *testing.T) {
	server, err := conformancefixture.New(conformancefixture.Options{StateKey: bytes.Repeat([]byte{1}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	// The event store, as the fixture command has it: test_reconnection's
	// answer reaches go-sdk's client only by resuming the stream it closed.
	handler, err := transport.NewHTTPHandler(server, &transport.HTTPOptions{Token: token, EventStoreMaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(handler)
	defer ts.Close()

	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx := context.Background()
			client := mcp.NewClient(&mcp.Implementation{Name: "fixture-test", Version: "v0"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "color": "green", "username": "ada", "email": "ada@example.com"}}, nil
				},
			})
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{}}},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()

			tests := []struct {
				tool string
				args map[string]any
				want string
			}{
				{"test_simple_text", nil, "This is a simple text response for testing."},
				{"test_elicitation", map[string]any{"message": "Who?"}, `Elicitation completed: action=accept, content={"color":"green","email":"ada@example.com","name":"Ada","username":"ada"}`},
				{"test_input_required_result_elicitation", nil, "Hello, Ada!"},
				{"test_input_required_result_multi_round", nil, "state-ok: both rounds completed"},
				{"test_reconnection", nil, "answered after the stream was closed"},
				{"automium_list_apps", nil, ""}, // Automium is on the same server
			}
			for _, tt := range tests {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
				if err != nil {
					t.Errorf("%s: %v", tt.tool, err)
					continue
				}
				if res.IsError || len(res.Content) == 0 {
					t.Errorf("%s: isError %v, %d content blocks", tt.tool, res.IsError, len(res.Content))
					continue
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if tt.want == "" {
					continue
				}
				if diff := cmp.Diff(tt.want, text); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tt.tool, diff)
				}
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"}); err != nil {
				t.Errorf("test_error_handling: %v", err)
			}
		})
	}
}

// TestTamperedStateRefused: a requestState changed by the client is refused
// with an error, not served.
func TestTamperedStateRefused(t *testing.T) {
	server, err := conformancefixture.New(conformancefixture.Options{StateKey: bytes.Repeat([]byte{2}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	handler, err := transport.NewHTTPHandler(server, &transport.HTTPOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(handler)
	defer ts.Close()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	post := func(params string) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_input_required_result_tampered_state",%s%s}}`, meta, params)
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{
			"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "test_input_required_result_tampered_state",
		} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return b.String()
	}
	first := post("")
	i := strings.Index(first, `"requestState":"`)
	if i < 0 {
		t.Fatalf("first answer has no requestState: %s", first)
	}
	state := first[i+len(`"requestState":"`):]
	state = state[:strings.IndexByte(state, '"')]
	tampered := "A" + state[1:]
	if tampered == state {
		tampered = "B" + state[1:]
	}
	answer := `,"inputResponses":{"confirm":{"action":"accept","content":{"answer":"yes"}}}`
	if got := post(answer + `,"requestState":"` + state + `"`); !strings.Contains(got, "state-ok") {
		t.Errorf("with its own state: %s", got)
	}
	if got := post(answer + `,"requestState":"` + tampered + `"`); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, "requestState refused") {
		t.Errorf("with a tampered state: %s, want a -32602 refusal", got)
	}
}
