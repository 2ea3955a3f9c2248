package transport_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/testsupport"
	"github.com/automium/automium/mcpserver/transport"
	"github.com/automium/automium/mcpserver/transport/stdio"
)

// bearer adds the test token to every request of a go-sdk HTTP client.
type bearer struct{ next http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+testToken)
	return b.next.RoundTrip(r)
}

// clientTransports connects a go-sdk client to server over each transport of
// this package: stdio (over pipes) and Streamable HTTP (over httptest), at
// protocol version (empty: go-sdk's default).
var clientTransports = []struct {
	name    string
	connect func(t *testing.T, server *mcp.Server, version string) *mcp.ClientSession
}{
	{"stdio", func(t *testing.T, server *mcp.Server, version string) *mcp.ClientSession {
		t.Helper()
		clientIn, serverOut := io.Pipe()
		serverIn, clientOut := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- server.Run(context.Background(), &stdio.Transport{Reader: serverIn, Writer: serverOut})
		}()
		t.Cleanup(func() {
			clientOut.Close()
			if err := <-done; err != nil {
				t.Errorf("stdio session ended with %v", err)
			}
		})
		return connectClient(t, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, version)
	}},
	{"http", func(t *testing.T, server *mcp.Server, version string) *mcp.ClientSession {
		t.Helper()
		h, err := transport.NewHTTPHandler(server, &transport.HTTPOptions{Token: testToken})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return connectClient(t, &mcp.StreamableClientTransport{Endpoint: srv.URL,
			HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport}}}, version)
	}},
}

func connectClient(t *testing.T, tr mcp.Transport, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "transport-test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// panickingServer has a tool, a prompt, a resource and a completion handler
// that panic, one tool that does not, and Recover as its one recovery.
func panickingServer(log *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "panics", Version: "v0"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) { panic("boom: completion") },
	})
	type none struct{}
	mcp.AddTool(s, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, none, error) {
		panic("boom: tool")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fine"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, none, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, none{}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "boom", Arguments: []*mcp.PromptArgument{{Name: "x"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		panic("boom: prompt")
	})
	s.AddResource(&mcp.Resource{URI: "test://boom", Name: "boom"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		panic("boom: resource " + strings.Repeat("x", 1<<20))
	})
	s.AddReceivingMiddleware(transport.Recover(log))
	return s
}

// TestRecover: a panic in a tool, prompt, resource or completion handler is
// answered (a failed tool call; -32603 for the rest), logged with a bounded
// panic value and its stack, and the session lives on, over both transports
// and at the handshake and sessionless protocols alike.
func TestRecover(t *testing.T) {
	for _, tr := range clientTransports {
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				var logs testsupport.LockedBuffer
				cs := tr.connect(t, panickingServer(slog.New(slog.NewTextHandler(&logs, nil))), version)
				ctx := context.Background()

				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom"})
				if err != nil {
					t.Fatalf("panicking tool: %v, want a failed tool call", err)
				}
				if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "bug in the server") {
					t.Errorf("panicking tool: %+v, want isError with the bug text", res)
				}
				var codes []int64
				_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "boom"})
				codes = append(codes, rpcErrorCode(t, err))
				_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://boom"})
				codes = append(codes, rpcErrorCode(t, err))
				_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "boom"},
					Argument: mcp.CompleteParamsArgument{Name: "x", Value: "a"}})
				codes = append(codes, rpcErrorCode(t, err))
				want := []int64{jsonrpc.CodeInternalError, jsonrpc.CodeInternalError, jsonrpc.CodeInternalError}
				if diff := cmp.Diff(want, codes); diff != "" {
					t.Errorf("prompt, resource, completion codes (-want +got):\n%s", diff)
				}
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fine"})
				if err != nil || res.IsError {
					t.Fatalf("the session did not survive the panics: %v %+v", err, res)
				}
				got := logs.String()
				for _, w := range []string{"boom: tool", "boom: prompt", "boom: completion", "boom: resource", "recovered panic", "goroutine"} {
					if !strings.Contains(got, w) {
						t.Errorf("the log lacks %q", w)
					}
				}
				if len(got) > 64<<10 {
					t.Errorf("the log holds %d bytes for four panics, one with a 1 MiB value", len(got))
				}
			})
		}
	}
}

func rpcErrorCode(t *testing.T, err error) int64 {
	t.Helper()
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Errorf("got %v, want a JSON-RPC error", err)
		return 0
	}
	if strings.Contains(werr.Message, "boom") {
		t.Errorf("the error %q repeats the panic value", werr.Message)
	}
	return werr.Code
}
