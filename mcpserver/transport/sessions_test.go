package transport_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/diag"
	"github.com/automium/automium/mcpserver"
)

// blockedStderr is a diagnostics stream nobody reads: a pipe whose reader
// never reads, behind the binary's non-blocking writer and rate limit.
func blockedStderr(t *testing.T) *slog.Logger {
	t.Helper()
	r, w := io.Pipe()
	t.Cleanup(func() { r.Close(); w.Close() })
	out := diag.NewWriter(w, 0)
	return slog.New(diag.RateLimit(slog.NewTextHandler(out, nil), 0, 0, time.Now))
}

// waitTool blocks until its call is cancelled, then returns as ret says.
func waitTool(server *mcp.Server, started, returned chan<- struct{}, ret func(context.Context) (*mcp.CallToolResult, any, error)) {
	mcp.AddTool(server, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		started <- struct{}{}
		<-ctx.Done()
		defer func() { returned <- struct{}{} }()
		return ret(ctx)
	})
}

// TestSessionPromisesBothTransports holds stdio and HTTP to the promises of
// issue 29's four cases, with variants, the same answer on each: a call
// cancelled in flight gets no answer; a sessionless call in an initialized
// session is refused; what a session would keep from initialize or
// logging/setLevel is bounded at the door, whatever member holds the bytes;
// and a flood of duplicate notifications/initialized, logged by go-sdk at
// error to a stderr nobody drains, does not stop the session.
func TestSessionPromisesBothTransports(t *testing.T) {
	t.Run("cancelled call", func(t *testing.T) {
		returns := map[string]func(context.Context) (*mcp.CallToolResult, any, error){
			"a result":          func(context.Context) (*mcp.CallToolResult, any, error) { return &mcp.CallToolResult{}, nil, nil },
			"an error":          func(context.Context) (*mcp.CallToolResult, any, error) { return nil, nil, errors.New("gave up") },
			"the context error": func(ctx context.Context) (*mcp.CallToolResult, any, error) { return nil, nil, ctx.Err() },
		}
		for _, w := range wires {
			for name, ret := range returns {
				t.Run(w.name+"/"+name, func(t *testing.T) {
					server := mcpserver.New(nil)
					started, returned := make(chan struct{}, 8), make(chan struct{}, 8)
					waitTool(server, started, returned, ret)
					c := w.open(t, server)
					for i, id := range []string{"5", `"five"`, "-0"} {
						result := c.start(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
						<-started
						if got := c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"r"}}`); got != "" {
							t.Errorf("cancellation %d was answered: %s", i, got)
						}
						<-returned
						if got := result(); got != "" {
							t.Errorf("cancelled call %s was answered: %s", id, got)
						}
					}
					// A cancellation naming no call in flight is dropped and
					// cancels nothing later.
					c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
					if got := c.send(t, `{"jsonrpc":"2.0","id":7,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":7,"result":{}}` {
						t.Errorf("a call after a stray cancellation: %s", got)
					}
				})
			}
		}
	})

	t.Run("sessionless call in an initialized session", func(t *testing.T) {
		meta := func(version string) string {
			return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{}}`
		}
		refused := func(id, version string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"Invalid Request: this session began with initialize; a call carrying protocol version \"` +
				version + `\" in _meta belongs to a sessionless session: start a new one"}}`
		}
		cases := []struct{ name, in, want string }{
			{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta("2026-07-28") + `}}`, refused("1", "2026-07-28")},
			{"tools/call", `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"automium_list_apps","arguments":{},` + meta("2026-07-28") + `}}`, refused(`"c"`, "2026-07-28")},
			{"ping with the _meta", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{` + meta("2026-07-28") + `}}`, refused("3", "2026-07-28")},
			{"a plain ping", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, `{"jsonrpc":"2.0","id":4,"result":{}}`},
		}
		for _, w := range wires {
			t.Run(w.name, func(t *testing.T) {
				c := w.open(t, mcpserver.New(nil))
				for _, tc := range cases {
					if got := c.send(t, tc.in); got != tc.want {
						t.Errorf("%s:\n got %.300s\nwant %s", tc.name, got, tc.want)
					}
				}
			})
		}
	})

	t.Run("what a session keeps is bounded", func(t *testing.T) {
		// Each refusal says what to shorten for its own method: a setLevel
		// has no clientInfo.
		fixes := map[string]string{
			"initialize":       "send a shorter clientInfo and fewer capabilities",
			"logging/setLevel": "send only a level, one of debug, info, notice, warning, error, critical, alert, emergency",
		}
		over := func(id, method string, n int) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"Invalid params: the params of \"` + method + `\" hold ` + strconv.Itoa(n) +
				` bytes; a session keeps them for its whole life, so the limit is 65536: ` + fixes[method] + `"}}`
		}
		name := strings.Repeat("n", 15<<20)
		escaped := strings.Repeat(`\u0041`, 20_000)
		cases := []struct{ name, params, method string }{
			{"15 MiB clientInfo.name", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + name + `","version":"0"}}`, "initialize"},
			{"capabilities", `{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"x":"` + strings.Repeat("c", 70_000) + `"}},"clientInfo":{"name":"c","version":"0"}}`, "initialize"},
			{"escapes", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + escaped + `","version":"0"}}`, "initialize"},
			{"white space", `{"protocolVersion":"2025-11-25"` + strings.Repeat(" ", 70_000) + `,"capabilities":{},"clientInfo":{"name":"c","version":"0"}}`, "initialize"},
			{"logging/setLevel", `{"level":"debug","x":"` + strings.Repeat("l", 70_000) + `"}`, "logging/setLevel"},
		}
		for _, w := range wires {
			t.Run(w.name, func(t *testing.T) {
				c := w.open(t, mcpserver.New(nil))
				for i, tc := range cases {
					id := strconv.Itoa(10 + i)
					if got, want := c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+tc.method+`","params":`+tc.params+`}`), over(id, tc.method, len(tc.params)); got != want {
						t.Errorf("%s:\n got %.300s\nwant %s", tc.name, got, want)
					}
				}
				if got := c.send(t, `{"jsonrpc":"2.0","id":99,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":99,"result":{}}` {
					t.Errorf("the session did not go on: %s", got)
				}
			})
		}
	})

	t.Run("duplicate notifications/initialized with stderr not drained", func(t *testing.T) {
		for _, w := range wires {
			t.Run(w.name, func(t *testing.T) {
				c := w.open(t, mcpserver.New(&mcpserver.Options{Logger: blockedStderr(t)}))
				for range 2000 {
					if got := c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); got != "" {
						t.Fatalf("a duplicate notifications/initialized was answered: %s", got)
					}
				}
				if got := c.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
					t.Errorf("ping after the flood: %s", got)
				}
			})
		}
	})
}
