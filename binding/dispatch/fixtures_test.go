package dispatch_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fixtures are MCP servers built inside the tests: a synthetic-UI server, a
// second server exposing an identically named tool, and the synthetic-UI server
// after its click schema changed.

const clickSchema = `{"type":"object","properties":{"target":{"type":"string","minLength":1},` +
	`"button":{"type":"string","enum":["left","right"]}},"required":["target"],"additionalProperties":false}`

const looserClickSchema = `{"type":"object","properties":{"target":{"type":"string"},` +
	`"button":{"type":"string"}},"required":["target"],"additionalProperties":false}`

const failSchema = `{"type":"object","properties":{"target":{"type":"string"}},"required":["target"],"additionalProperties":false}`

var (
	uiIdentity    = binding.ServerIdentity{Name: "synthetic-ui", Version: "v1.4.0"}
	otherIdentity = binding.ServerIdentity{Name: "other-ui", Version: "v0.9.0"}
	issuedAt      = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	runID         = "run_4f1c2a"
	vmUUID        = "5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10"
	host          = "vm-host-7"
)

// fixture is a running fixture server and the calls it received.
type fixture struct {
	server  *mcp.Server
	mu      sync.Mutex
	calls   []string      // "tool arguments", in arrival order
	hanging chan struct{} // receives when a hang call has started
}

func (f *fixture) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// newFixture builds a server with the given identity whose click tool has the
// given schema, a fail tool that always reports a tool error, and a hang tool
// that answers only when its call is cancelled.
func newFixture(id binding.ServerIdentity, click string) *fixture {
	f := &fixture{server: mcp.NewServer(&mcp.Implementation{Name: id.Name, Version: id.Version}, nil), hanging: make(chan struct{}, 1)}
	record := func(ctx context.Context, req *mcp.CallToolRequest) string {
		f.mu.Lock()
		defer f.mu.Unlock()
		entry := req.Params.Name + " " + string(req.Params.Arguments)
		f.calls = append(f.calls, entry)
		return entry
	}
	f.server.AddTool(&mcp.Tool{Name: "click", Description: "Click an element of the VM's screen", InputSchema: json.RawMessage(click)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: id.Name + " did " + record(ctx, req)}}}, nil
		})
	f.server.AddTool(&mcp.Tool{Name: "fail", Description: "An action that always fails", InputSchema: json.RawMessage(failSchema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(ctx, req)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "element not found"}}}, nil
		})
	f.server.AddTool(&mcp.Tool{Name: "hang", Description: "An action that never finishes", InputSchema: json.RawMessage(failSchema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(ctx, req)
			f.hanging <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	return f
}

// connect serves f in memory and connects the dispatcher to it over the
// dispatcher's own in-memory transport.
func connect(t *testing.T, d *dispatch.Dispatcher, f *fixture) *dispatch.Server {
	t.Helper()
	return connectOver(t, d, f, func(ct mcp.Transport) mcp.Transport { return ct })
}

// connectOver is connect with the client's transport wrapped by wrap.
func connectOver(t *testing.T, d *dispatch.Dispatcher, f *fixture, wrap func(mcp.Transport) mcp.Transport) *dispatch.Server {
	t.Helper()
	return connectWith(t, d, f, dispatch.NewInMemoryTransports, wrap)
}

// pairs are the in-memory transports a test of the wire runs over: the
// dispatcher's own (answers compared as bytes) and go-sdk's (every answer
// decoded), which must give the same outcomes.
var pairs = []struct {
	name string
	new  func() (server, client mcp.Transport)
}{
	{"own", dispatch.NewInMemoryTransports},
	{"go-sdk", func() (mcp.Transport, mcp.Transport) { return mcp.NewInMemoryTransports() }},
}

// connectWith is connectOver over the transports pair returns.
func connectWith(t *testing.T, d *dispatch.Dispatcher, f *fixture, pair func() (server, client mcp.Transport), wrap func(mcp.Transport) mcp.Transport) *dispatch.Server {
	t.Helper()
	ctx := context.Background()
	st, ct := pair()
	ss, err := f.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	srv, err := d.Connect(ctx, wrap(ct), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// pinned returns the catalog of the unchanged synthetic-UI server, read over a
// session as a planner would before issuing grants.
func pinned(t *testing.T) binding.Catalog { return pinnedOf(t, newFixture(uiIdentity, clickSchema)) }

// pinnedOf reads f's catalog over a session.
func pinnedOf(t *testing.T, f *fixture) binding.Catalog {
	t.Helper()
	ctx := context.Background()
	cs := plannerSession(t, f)
	c, err := dispatch.ListCatalog(ctx, cs, 100, 10)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// plannerSession connects a planner's client session to f's server, both
// closed when tb ends.
func plannerSession(tb testing.TB, f *fixture) *mcp.ClientSession {
	tb.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "planner", Version: "v1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

func policy(t *testing.T) string {
	d, err := binding.Digest(map[string]any{"servers": []string{"synthetic-ui"}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// grants issues a plan for the synthetic-UI server, one candidate a step.
func grants(t *testing.T, calls ...binding.Call) []binding.Grant {
	t.Helper()
	steps := make([][]binding.Call, len(calls))
	for i, c := range calls {
		steps[i] = []binding.Call{c}
	}
	return choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinned(t)}}, steps...)
}

// choices issues a plan over the given servers whose steps each offer the
// given candidates.
func choices(t *testing.T, servers []binding.PinnedServer, steps ...[]binding.Call) []binding.Grant {
	t.Helper()
	g, err := binding.IssuePlan(binding.Plan{
		Servers: servers, RunID: runID, PolicyDigest: policy(t), Host: host, VMUUID: vmUUID,
		IssuedAt: issuedAt, ExpiresAt: issuedAt.Add(10 * time.Minute), Steps: steps,
	}, nil)
	if err != nil {
		t.Fatalf("IssuePlan: %v", err)
	}
	return g
}

func newBroker(t *testing.T, now time.Time) *binding.Broker {
	t.Helper()
	b, err := binding.NewBroker(binding.BrokerOptions{RunID: runID, PolicyDigest: policy(t), Host: host, VMUUID: vmUUID,
		Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func click(target string) binding.Call {
	return binding.Call{Server: uiIdentity, Tool: "click", Arguments: json.RawMessage(`{"target":"` + target + `"}`)}
}
