package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func codeOf(err error) automium.Code {
	var aerr *automium.Error
	if errors.As(err, &aerr) {
		return aerr.Code
	}
	return ""
}

// TestExactServerBoundRouting connects two servers that both expose "click".
// The granted call reaches the granted server only, with the granted canonical
// arguments; the same call aimed at the other server is refused before it
// reaches it.
func TestExactServerBoundRouting(t *testing.T) {
	ui, other := newFixture(uiIdentity, clickSchema), newFixture(otherIdentity, clickSchema)
	g := grants(t, click("button:Sign in"), click("button:Submit"))
	d := dispatch.New(newBroker(t, issuedAt.Add(time.Minute)), nil)
	connect(t, d, ui)
	connect(t, d, other)
	ctx := context.Background()

	call := click("button:Sign in")
	call.Arguments = json.RawMessage(`{ "target" : "button:Sign in" }`)
	res, err := d.Dispatch(ctx, g[0], call)
	if err != nil {
		t.Fatalf("granted call: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != `synthetic-ui did click {"target":"button:Sign in"}` {
		t.Errorf("result = %q", got)
	}

	stolen := click("button:Submit")
	stolen.Server = otherIdentity
	if _, err := d.Dispatch(ctx, g[1], stolen); codeOf(err) != binding.CodeServerSubstituted {
		t.Errorf("call to the other server's click: error %v, want %s", err, binding.CodeServerSubstituted)
	}
	if diff := cmp.Diff([]string{`click {"target":"button:Sign in"}`}, ui.received()); diff != "" {
		t.Errorf("synthetic-ui received (-want +got):\n%s", diff)
	}
	if got := other.received(); len(got) != 0 {
		t.Errorf("other-ui received %q, want nothing", got)
	}
	// Step 1 still goes to the granted server.
	if _, err := d.Dispatch(ctx, g[1], click("button:Submit")); err != nil {
		t.Errorf("step 1 to the granted server: %v", err)
	}
}

// TestContractDrift: a server with the granted identity whose click schema
// changed is refused before dispatch.
func TestContractDrift(t *testing.T) {
	changed := newFixture(uiIdentity, looserClickSchema)
	g := grants(t, click("button:Sign in"))
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, changed)
	if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); codeOf(err) != binding.CodeContractDrift {
		t.Errorf("error %v, want %s", err, binding.CodeContractDrift)
	}
	if got := changed.received(); len(got) != 0 {
		t.Errorf("changed server received %q, want nothing", got)
	}
}

// TestOneShot: a grant is consumed when its call is dispatched, whether the
// call succeeds or fails, and is never retried.
func TestOneShot(t *testing.T) {
	ui := newFixture(uiIdentity, clickSchema)
	failCall := binding.Call{Server: uiIdentity, Tool: "fail", Arguments: json.RawMessage(`{"target":"button:Gone"}`)}
	g := grants(t, click("button:Sign in"), failCall)
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, ui)
	ctx := context.Background()

	if _, err := d.Dispatch(ctx, g[0], click("button:Sign in")); err != nil {
		t.Fatalf("first dispatch: %v", err)
	}
	if _, err := d.Dispatch(ctx, g[0], click("button:Sign in")); codeOf(err) != binding.CodeGrantConsumed {
		t.Errorf("repeat after success: error %v, want %s", err, binding.CodeGrantConsumed)
	}
	res, err := d.Dispatch(ctx, g[1], failCall)
	if err != nil || !res.IsError {
		t.Fatalf("failing call: result %+v, error %v; want a tool error result", res, err)
	}
	if _, err := d.Dispatch(ctx, g[1], failCall); codeOf(err) != binding.CodeGrantConsumed {
		t.Errorf("retry after failure: error %v, want %s", err, binding.CodeGrantConsumed)
	}
	want := []string{`click {"target":"button:Sign in"}`, `fail {"target":"button:Gone"}`}
	if diff := cmp.Diff(want, ui.received()); diff != "" {
		t.Errorf("server received (-want +got):\n%s", diff)
	}
}

// TestDeniedBeforeDispatch: wrong identity, argument, run, VM, time or order is
// refused and the server receives nothing.
func TestDeniedBeforeDispatch(t *testing.T) {
	tests := []struct {
		name   string
		now    time.Time
		grant  func(t *testing.T) binding.Grant
		call   binding.Call
		want   automium.Code
		broker func(t *testing.T, now time.Time) *binding.Broker
	}{
		{name: "unknown server identity", call: binding.Call{Server: binding.ServerIdentity{Name: "synthetic-ui", Version: "v9"}, Tool: "click",
			Arguments: json.RawMessage(`{"target":"button:Sign in"}`)}, want: binding.CodeServerUnknown},
		{name: "altered argument", call: click("button:Delete account"), want: binding.CodeArgumentsAltered},
		{name: "altered tool", call: binding.Call{Server: uiIdentity, Tool: "fail", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)}, want: binding.CodeCallAltered},
		{name: "expired", now: issuedAt.Add(10 * time.Minute), call: click("button:Sign in"), want: binding.CodeGrantStale},
		{name: "wrong run", call: click("button:Sign in"), want: binding.CodeCrossRun, broker: func(t *testing.T, now time.Time) *binding.Broker {
			b, _ := binding.NewBroker(binding.BrokerOptions{RunID: "run_other", PolicyDigest: policy(t), Host: host, VMUUID: vmUUID, Now: func() time.Time { return now }})
			return b
		}},
		{name: "wrong VM", call: click("button:Sign in"), want: binding.CodeWrongTarget, broker: func(t *testing.T, now time.Time) *binding.Broker {
			b, _ := binding.NewBroker(binding.BrokerOptions{RunID: runID, PolicyDigest: policy(t), Host: host, VMUUID: "0d4a1f6e-2b7c-4e8a-9f3d-6c5b4a392817", Now: func() time.Time { return now }})
			return b
		}},
		{name: "skipped step", grant: func(t *testing.T) binding.Grant {
			return grants(t, click("button:Sign in"), click("button:Sign in"))[1]
		}, call: click("button:Sign in"), want: binding.CodeOutOfOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := tt.now
			if now.IsZero() {
				now = issuedAt
			}
			broker := newBroker(t, now)
			if tt.broker != nil {
				broker = tt.broker(t, now)
			}
			g := grants(t, click("button:Sign in"))[0]
			if tt.grant != nil {
				g = tt.grant(t)
			}
			ui := newFixture(uiIdentity, clickSchema)
			d := dispatch.New(broker, nil)
			connect(t, d, ui)
			if _, err := d.Dispatch(context.Background(), g, tt.call); codeOf(err) != tt.want {
				t.Errorf("error %v, want %s", err, tt.want)
			}
			if got := ui.received(); len(got) != 0 {
				t.Errorf("server received %q, want nothing", got)
			}
		})
	}
}

// TestConnectRefusesAmbiguousIdentity: two servers that report one identity
// cannot both be connected, so routing by identity names exactly one.
func TestConnectRefusesAmbiguousIdentity(t *testing.T) {
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, newFixture(uiIdentity, clickSchema))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newFixture(uiIdentity, looserClickSchema).server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	if _, err := d.Connect(context.Background(), ct, nil); codeOf(err) != binding.CodeServerAmbiguous {
		t.Errorf("second server with one identity: error %v, want %s", err, binding.CodeServerAmbiguous)
	}
}

// TestCatalogDigestPerProtocol: the live digest depends on the negotiated
// protocol version, and a grant pinned under one version is drift under another.
func TestCatalogDigestPerProtocol(t *testing.T) {
	ctx := context.Background()
	digests := map[string]string{}
	for _, v := range []string{"2025-11-25", "2025-06-18", ""} {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := newFixture(uiIdentity, clickSchema).server.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := dispatch.New(newBroker(t, issuedAt), nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			t.Fatalf("protocol %q: %v", v, err)
		}
		digests[v] = srv.CatalogDigest()
		srv.Close()
		ss.Close()
	}
	if digests["2025-11-25"] == digests["2025-06-18"] || digests["2025-11-25"] == digests[""] {
		t.Errorf("digests per protocol version = %v, want them all different", digests)
	}
	want, _ := pinned(t).DigestV2()
	if digests["2025-11-25"] != want {
		t.Errorf("live digest %s, pinned %s", digests["2025-11-25"], want)
	}
}

// TestDriftMidSession: a server that changes its tools after the dispatcher
// read its catalog is read again when it announces the change, and the next
// call is refused as drift.
func TestDriftMidSession(t *testing.T) {
	ui := newFixture(uiIdentity, clickSchema)
	g := grants(t, click("button:Sign in"))
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv := connect(t, d, ui)
	before := srv.CatalogDigest()
	ui.server.AddTool(&mcp.Tool{Name: "run_shell", InputSchema: json.RawMessage(failSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	<-dispatch.Noticed(srv) // the server's own list_changed, not a simulated one
	if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); codeOf(err) != binding.CodeContractDrift {
		t.Errorf("error %v, want %s", err, binding.CodeContractDrift)
	}
	if srv.CatalogDigest() == before {
		t.Error("digest unchanged after the server added a tool")
	}
	if got := ui.received(); len(got) != 0 {
		t.Errorf("server received %q, want nothing", got)
	}
}

// TestCatalogBounds: a server that lists more than the dispatcher reads is
// refused at connect, not read without end.
func TestCatalogBounds(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newFixture(uiIdentity, clickSchema).server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	d := dispatch.New(newBroker(t, issuedAt), &dispatch.Options{MaxCatalogItems: 1})
	if _, err := d.Connect(ctx, ct, nil); err == nil {
		t.Error("Connect to a server with 2 tools and MaxCatalogItems 1: nil error")
	}
}

// TestDefaultLimitsDocumented keeps docs/limits.md's dispatcher rows equal to
// the defaults.
func TestDefaultLimitsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	items, pages := dispatch.DefaultLimits()
	for _, row := range []string{
		fmt.Sprintf("| `dispatch.Options.MaxCatalogItems` default: tools, resources or prompts read from one server | %d |", items),
		fmt.Sprintf("| `dispatch.Options.MaxCatalogPages` default: pages of one list | %d |", pages),
	} {
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/limits.md lacks the row %q", row)
		}
	}
}

// TestMisuseIsRefused: a nil dispatcher, one not made by New, one without a
// broker, a nil context or a nil transport is a coded refusal, never a panic.
func TestMisuseIsRefused(t *testing.T) {
	var nilCtx context.Context
	var nilCommand *mcp.CommandTransport
	g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinned(t)}}, []binding.Call{click("button:Sign in")})
	_, ct := mcp.NewInMemoryTransports()
	for _, tt := range []struct {
		name string
		d    *dispatch.Dispatcher
		ctx  context.Context
		t    mcp.Transport
		want automium.Code // of Connect
	}{
		{"nil dispatcher", nil, context.Background(), ct, binding.CodeServerUnknown},
		{"zero dispatcher", &dispatch.Dispatcher{}, context.Background(), ct, binding.CodeServerUnknown},
		{"nil context", dispatch.New(newBroker(t, issuedAt), nil), nilCtx, ct, binding.CodeServerUnknown},
		{"nil transport", dispatch.New(newBroker(t, issuedAt), nil), context.Background(), nil, binding.CodeServerUnknown},
		{"nil *CommandTransport", dispatch.New(newBroker(t, issuedAt), nil), context.Background(), nilCommand, binding.CodeServerUnknown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.d.Connect(tt.ctx, tt.t, nil); codeOf(err) != tt.want {
				t.Errorf("Connect: error %v, want %s", err, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		name string
		d    *dispatch.Dispatcher
		ctx  context.Context
	}{
		{"nil dispatcher", nil, context.Background()},
		{"zero dispatcher", &dispatch.Dispatcher{}, context.Background()},
		{"no broker", dispatch.New(nil, nil), context.Background()},
		{"nil context", dispatch.New(newBroker(t, issuedAt), nil), nilCtx},
	} {
		t.Run("Dispatch "+tt.name, func(t *testing.T) {
			if _, err := tt.d.Dispatch(tt.ctx, g[0], click("button:Sign in")); codeOf(err) != binding.CodeNotDispatched {
				t.Errorf("Dispatch: error %v, want %s", err, binding.CodeNotDispatched)
			}
		})
	}
}
