package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/transport"
	"github.com/automium/automium/mcpserver/transport/stdio"
)

// A wire is one raw session with a server over one of the package's
// transports, initialized at 2025-11-25, for tests that hold both
// transports to the same answer for the same bytes.
type wire interface {
	// send sends one message and returns the answer the client reads:
	// the JSON-RPC message, or "" when none comes (a notification).
	send(t *testing.T, message string) string
	// start sends a call without waiting; its result is the answer the
	// client read once the call is over, "" for none (a cancelled call).
	// On stdio, "over" is when a ping sent after it is answered.
	start(t *testing.T, message string) (result func() string)
}

// wires opens a wire over each transport to server.
var wires = []struct {
	name string
	open func(t *testing.T, server *mcp.Server) wire
}{
	{"stdio", openStdioWire},
	{"http", openHTTPWire},
}

type stdioWire struct {
	in io.Writer

	mu      sync.Mutex
	answers map[string]string // by id, every answer read
	others  []string          // lines without an id
	changed chan struct{}
	next    int
}

func openStdioWire(t *testing.T, server *mcp.Server) wire {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.Run(context.Background(), &stdio.Transport{Reader: serverIn, Writer: serverOut})
	}()
	w := &stdioWire{in: clientOut, answers: map[string]string{}, changed: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(clientIn)
		sc.Buffer(nil, 32<<20)
		for sc.Scan() {
			line := sc.Text()
			w.mu.Lock()
			if id := idOf(line); id != "" {
				w.answers[id] = line
			} else {
				w.others = append(w.others, line)
			}
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
		}
		io.Copy(io.Discard, clientIn)
	}()
	t.Cleanup(func() {
		clientOut.Close()
		<-done
		serverOut.Close()
	})
	if got := w.send(t, initializeBody); !strings.Contains(got, `"result"`) {
		t.Fatalf("initialize over stdio: %s", got)
	}
	w.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

// await waits for the answer with id.
func (w *stdioWire) await(t *testing.T, id string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		w.mu.Lock()
		answer, ok := w.answers[id]
		delete(w.answers, id) // an id may be used again once answered
		changed := w.changed
		w.mu.Unlock()
		if ok {
			return answer
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no answer over stdio with id %s", id)
		}
	}
}

// ping sends a ping and waits for its answer: everything the server wrote
// before it has been read.
func (w *stdioWire) ping(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	w.next++
	id := `"sentinel-` + strconv.Itoa(w.next) + `"`
	w.mu.Unlock()
	if _, err := io.WriteString(w.in, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	w.await(t, id)
}

func (w *stdioWire) write(t *testing.T, message string) {
	t.Helper()
	if _, err := io.WriteString(w.in, message+"\n"); err != nil {
		t.Fatal(err)
	}
}

// send writes the message and waits for the answer with its id; a message
// without one is followed by a ping, and whatever came without an id
// before the ping's answer is its answer.
func (w *stdioWire) send(t *testing.T, message string) string {
	t.Helper()
	if id := idOf(message); id != "" {
		w.write(t, message)
		return w.await(t, id)
	}
	w.mu.Lock()
	before := len(w.others)
	w.mu.Unlock()
	w.write(t, message)
	w.ping(t)
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.others[before:], "\n")
}

func (w *stdioWire) start(t *testing.T, message string) func() string {
	t.Helper()
	w.write(t, message)
	id := idOf(message)
	return func() string {
		w.ping(t)
		w.mu.Lock()
		defer w.mu.Unlock()
		answer := w.answers[id]
		delete(w.answers, id)
		return answer
	}
}

// idOf is a message's id as raw JSON, "" when it has none.
func idOf(message string) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal([]byte(message), &m) != nil || m.ID == nil {
		return ""
	}
	return string(m.ID)
}

type httpWire struct {
	s       *testServer
	session string
}

func openHTTPWire(t *testing.T, server *mcp.Server) wire {
	t.Helper()
	s := newTestServerFor(t, server, transport.HTTPOptions{})
	return &httpWire{s: s, session: session(t, s)}
}

func (w *httpWire) start(t *testing.T, message string) func() string {
	t.Helper()
	out := make(chan string, 1)
	go func() { out <- w.send(t, message) }()
	return func() string { return <-out }
}

func (w *httpWire) send(t *testing.T, message string) string {
	t.Helper()
	resp := w.s.post(t, message, map[string]string{"Mcp-Session-Id": w.session, "Mcp-Protocol-Version": "2025-11-25"})
	if resp.StatusCode == http.StatusAccepted {
		return ""
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return strings.TrimSpace(string(body))
	}
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
			return data
		}
	}
	return ""
}

// TestSDKAnswersRendered: what the door leaves to go-sdk (a method it does
// not have, params that do not decode into its types, a call without the
// params it needs) gets the same answer on both transports, rendered from
// its code and the call's method: no Go type name, no echo of the params.
func TestSDKAnswersRendered(t *testing.T) {
	pad := strings.Repeat("<", 1<<16)
	cases := []struct{ name, in, want string }{
		{"unknown method with params", `{"jsonrpc":"2.0","id":1,"method":"no/such/method","params":{"x":"` + pad + `"}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: \"no/such/method\""}}`},
		{"a client method sent to the server", `{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{}}`,
			`{"jsonrpc":"2.0","id":"s","error":{"code":-32601,"message":"Method not found: \"sampling/createMessage\""}}`},
		{"tools/call name a number", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":5,"pad":"` + pad + `"}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: the params of \"tools/call\" do not have the shape MCP defines for them, or name nothing this server has"}}`},
		{"prompts/get arguments a string", `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"x","arguments":"text"}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: the params of \"prompts/get\" do not have the shape MCP defines for them, or name nothing this server has"}}`},
		{"resources/read uri an object", `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":{}}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: the params of \"resources/read\" do not have the shape MCP defines for them, or name nothing this server has"}}`},
		{"tools/list cursor a number", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":7}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: the params of \"tools/list\" do not have the shape MCP defines for them, or name nothing this server has"}}`},
		{"completion/complete ref a string", `{"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":"x","argument":{"name":"a","value":"b"}}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: the params of \"completion/complete\" do not have the shape MCP defines for them, or name nothing this server has"}}`},
		{"tools/call null params", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":null}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: the call of \"tools/call\" is not one the server can serve in this session; check that it carries the params MCP requires of it"}}`},
		{"resources/read without params", `{"jsonrpc":"2.0","id":8,"method":"resources/read"}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"Invalid Request: the call of \"resources/read\" is not one the server can serve in this session; check that it carries the params MCP requires of it"}}`},
		{"notification without params it needs", `{"jsonrpc":"2.0","method":"notifications/progress"}`, ``},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/unknown","params":{"x":1}}`, ``},
		{"a request without an id", `{"jsonrpc":"2.0","method":"tools/list"}`, ``},
	}
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			c := w.open(t, mcpserver.New(nil))
			for _, tc := range cases {
				got := c.send(t, tc.in)
				if got != tc.want {
					t.Errorf("%s:\n got %.400s\nwant %s", tc.name, got, tc.want)
				}
			}
			// go-sdk's HTTP transport refuses an unknown method and a call
			// without the params it needs with plain texts of two kinds;
			// both transports answer each as stdio does (envelope.SDKRefusal).
			for _, tc := range []struct{ name, in, want string }{
				{"unknown method without params", `{"jsonrpc":"2.0","id":9,"method":"no/such/method"}`,
					`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found: \"no/such/method\""}}`},
				{"a case variant of a method without params", `{"jsonrpc":"2.0","id":10,"method":"Tools/List"}`,
					`{"jsonrpc":"2.0","id":10,"error":{"code":-32601,"message":"Method not found: \"Tools/List\""}}`},
				{"a call without the params it needs", `{"jsonrpc":"2.0","id":11,"method":"tools/call"}`,
					`{"jsonrpc":"2.0","id":11,"error":{"code":-32600,"message":"Invalid Request: the call of \"tools/call\" is not one the server can serve in this session; check that it carries the params MCP requires of it"}}`},
			} {
				if got := c.send(t, tc.in); got != tc.want {
					t.Errorf("%s:\n got %.400s\nwant %s", tc.name, got, tc.want)
				}
			}
			if got := c.send(t, `{"jsonrpc":"2.0","id":99,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":99,"result":{}}` {
				t.Errorf("the session did not go on: %s", got)
			}
		})
	}
}
