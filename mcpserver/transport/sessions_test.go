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

	t.Run("cancellation spelling the id otherwise", func(t *testing.T) {
		// A call with id 1 in flight: a cancellation naming "1" names
		// another call and is dropped; one naming 1.0 or 1e0, which go-sdk
		// reads as 1, cancels it as 1 does. Either way the call gets no
		// answer, and the session goes on.
		for _, spelling := range []string{"1.0", "1e0", "1"} {
			for _, w := range wires {
				t.Run(w.name+"/"+spelling, func(t *testing.T) {
					server := mcpserver.New(nil)
					started, returned := make(chan struct{}, 8), make(chan struct{}, 8)
					waitTool(server, started, returned, func(context.Context) (*mcp.CallToolResult, any, error) { return &mcp.CallToolResult{}, nil, nil })
					c := w.open(t, server)
					result := c.start(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
					<-started
					for _, stray := range []string{`"1"`, "2", "-1"} {
						c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+stray+`}}`)
					}
					if got := c.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
						t.Errorf("ping beside the call: %s", got)
					}
					select {
					case <-returned:
						t.Fatal("a cancellation naming another id cancelled the call")
					default:
					}
					if got := c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+spelling+`}}`); got != "" {
						t.Errorf("the cancellation was answered: %s", got)
					}
					<-returned
					if got := result(); got != "" {
						t.Errorf("call 1 cancelled as %s was answered: %s", spelling, got)
					}
					if got := c.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
						t.Errorf("ping after the cancellation: %s", got)
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
			{"the _meta key escaped", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
				refused("5", "2026-07-28")},
			{"the _meta member escaped", `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
				refused("6", "2026-07-28")},
			// go-sdk matches the key exactly: a case variant names no version,
			// and the call is the session's own.
			{"a case-variant key", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"IO.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
				`{"jsonrpc":"2.0","id":7,"result":{}}`},
			{"a sessionless initialize", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{` + meta("2026-07-28") + `}}`, refused("8", "2026-07-28")},
			{"initialize again", `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}`,
				`{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid Request: \"initialize\" was sent again; this session is initialized already: to initialize again, start a new session"}}`},
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

	t.Run("a sessionless cancellation in an initialized session", func(t *testing.T) {
		// The pin holds for notifications too: a cancellation carrying the
		// sessionless protocol's version belongs to no session begun by
		// initialize. Over HTTP it never reaches the session (its headers
		// route it away); over stdio it cancelled the call. Now it is
		// dropped on both, and the call is answered.
		for _, w := range wires {
			t.Run(w.name, func(t *testing.T) {
				server := mcpserver.New(nil)
				started, release := make(chan struct{}, 1), make(chan struct{})
				mcp.AddTool(server, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
					started <- struct{}{}
					select {
					case <-release:
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
					case <-ctx.Done():
						return nil, nil, ctx.Err()
					}
				})
				c := w.open(t, server)
				result := c.start(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
				<-started
				if got := c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`); got != "" {
					t.Errorf("the cancellation was answered: %s", got)
				}
				if got := c.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
					t.Errorf("ping: %s", got)
				}
				close(release)
				// The call is answered after its handler returns, which may be
				// after the ping result() sends: ask again until it is, bounded.
				got := result()
				for deadline := time.Now().Add(10 * time.Second); got == "" && time.Now().Before(deadline); {
					got = result()
				}
				if want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"released"}]}}`; got != want {
					t.Errorf("the call:\n got %.300s\nwant %s", got, want)
				}
			})
		}
	})

	t.Run("an earlier protocol version in _meta", func(t *testing.T) {
		// Only the sessionless protocol names its version per message:
		// go-sdk served such a call over stdio and refused it over HTTP
		// (-32022, listing that very version as supported, or -32020 against
		// the header), notifications included. The door refuses it on both.
		refused := func(id, version string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"Invalid Request: params._meta names protocol version \"` + version +
				`\" as \"io.modelcontextprotocol/protocolVersion\", which only protocol 2026-07-28 and later carry per message; under an earlier one the version is named once, by initialize: drop it from _meta"}}`
		}
		meta := func(version string) string {
			return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `"}`
		}
		cases := []struct{ name, in, want string }{
			{"ping, the session's own version", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta("2025-11-25") + `}}`, refused("1", "2025-11-25")},
			{"tools/list, another handshake version", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta("2025-06-18") + `}}`, refused("2", "2025-06-18")},
			{"a version no protocol has", `{"jsonrpc":"2.0","id":"x","method":"ping","params":{` + meta("1999") + `}}`, refused(`"x"`, "1999")},
			{"a notification: dropped", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{` + meta("2025-11-25") + `}}`, ""},
			// A version over the door's bound: a call is refused, a
			// notification dropped unanswered (stdio answered it, id null).
			{"a notification with a version over 32 bytes", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{` + meta("2026-07-28"+strings.Repeat("x", 40)) + `}}`, ""},
			{"the session goes on", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{}}}`, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		}
		for _, w := range wires {
			t.Run(w.name, func(t *testing.T) {
				c := w.open(t, mcpserver.New(nil))
				for _, tc := range cases {
					if got := c.send(t, tc.in); got != tc.want {
						t.Errorf("%s:\n got %.400s\nwant %s", tc.name, got, tc.want)
					}
				}
			})
		}
	})

	t.Run("initializes racing each other in an initialized session", func(t *testing.T) {
		initialize := func(id int) string {
			return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}`
		}
		for _, w := range wires {
			t.Run(w.name, func(t *testing.T) {
				c := w.open(t, mcpserver.New(nil))
				var results []func() string
				for i := range 4 {
					results = append(results, c.start(t, initialize(20+i)))
				}
				for i, result := range results {
					want := `{"jsonrpc":"2.0","id":` + strconv.Itoa(20+i) + `,"error":{"code":-32600,"message":"Invalid Request: \"initialize\" was sent again; this session is initialized already: to initialize again, start a new session"}}`
					if got := result(); got != want {
						t.Errorf("initialize %d:\n got %.300s\nwant %s", 20+i, got, want)
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
		if testing.Short() {
			name = name[:1<<20] // still 16 times the limit
		}
		escaped := strings.Repeat(`\u0041`, 20_000)
		cases := []struct{ name, params, method string }{
			{"long clientInfo.name", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + name + `","version":"0"}}`, "initialize"},
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
				duplicates, setLevels := 2000, 1000
				if testing.Short() {
					duplicates, setLevels = 200, 100
				}
				for range duplicates {
					if got := c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); got != "" {
						t.Fatalf("a duplicate notifications/initialized was answered: %s", got)
					}
				}
				// The session's record drops the duplicates before go-sdk logs
				// them; a logging/setLevel still logs, at INFO, every time.
				for i := range setLevels {
					id := strconv.Itoa(100 + i)
					if got := c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"logging/setLevel","params":{"level":"debug"}}`); got != `{"jsonrpc":"2.0","id":`+id+`,"result":{}}` {
						t.Fatalf("logging/setLevel %s: %s", id, got)
					}
				}
				if got := c.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
					t.Errorf("ping after the flood: %s", got)
				}
			})
		}
	})
}
