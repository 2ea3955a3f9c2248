package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// breakLists makes f's server answer every list request with an error while
// failing is set, as a server whose transport or handler breaks would, and
// pad tools/list with extra tools while flooding is set. Neither changes the
// server's tools, so no real list_changed notification races the test.
func breakLists(f *fixture) (failing, flooding *atomic.Bool) {
	failing, flooding = new(atomic.Bool), new(atomic.Bool)
	f.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if failing.Load() && strings.HasSuffix(method, "/list") {
				return nil, errors.New("list unavailable")
			}
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.ListToolsResult); ok && err == nil && flooding.Load() {
				padded := *r
				for i := range 3 {
					padded.Tools = append(padded.Tools, &mcp.Tool{Name: fmt.Sprintf("extra%d", i), InputSchema: json.RawMessage(failSchema)})
				}
				return &padded, nil
			}
			return res, err
		}
	})
	return failing, flooding
}

// TestStaleCatalogFailsClosed: after a list_changed, a re-read that fails in
// any way leaves the server stale, and every dispatch to it is refused until a
// re-read succeeds. The server receives nothing meanwhile, and once a re-read
// succeeds the unused grant works (or the change is contract drift).
func TestStaleCatalogFailsClosed(t *testing.T) {
	tests := []struct {
		name string
		// breakIt makes the next re-read fail; it returns the context of the
		// first dispatch and a function that lets re-reads succeed again.
		breakIt func(failing, flooding *atomic.Bool) (context.Context, func())
	}{
		{"transport error", func(failing, _ *atomic.Bool) (context.Context, func()) {
			failing.Store(true)
			return context.Background(), func() { failing.Store(false) }
		}},
		{"too many items", func(_, flooding *atomic.Bool) (context.Context, func()) {
			flooding.Store(true)
			return context.Background(), func() { flooding.Store(false) }
		}},
		{"cancelled context", func(_, _ *atomic.Bool) (context.Context, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, func() {}
		}},
	}
	for _, tt := range tests {
		for _, trust := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, TrustNotifications %v", tt.name, trust), func(t *testing.T) {
				ui := newFixture(uiIdentity, clickSchema)
				failing, flooding := breakLists(ui)
				g := grants(t, click("button:Sign in"))
				d := dispatch.New(newBroker(t, issuedAt), &dispatch.Options{MaxCatalogItems: 3, TrustNotifications: trust})
				srv := connect(t, d, ui)
				ctx, repair := tt.breakIt(failing, flooding)
				dispatch.MarkChanged(srv)
				want := binding.CodeCatalogStale
				if tt.name == "cancelled context" && !trust {
					want = binding.CodeNotDispatched // a verification does not even start
				}
				if _, err := d.Dispatch(ctx, g[0], click("button:Sign in")); codeOf(err) != want {
					t.Errorf("first dispatch after the failed re-read: error %v, want %s", err, want)
				}
				if tt.name != "cancelled context" {
					// The re-read still fails: a later dispatch with a live
					// context is refused too, not authorized against the old digest.
					if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); codeOf(err) != binding.CodeCatalogStale {
						t.Errorf("second dispatch, re-read still failing: error %v, want %s", err, binding.CodeCatalogStale)
					}
				}
				if !srv.Stale() {
					t.Error("Stale() = false after a failed re-read")
				}
				if got := ui.received(); len(got) != 0 {
					t.Fatalf("server received %q while its catalog was stale", got)
				}
				repair()
				if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); err != nil {
					t.Errorf("dispatch after a successful re-read: %v (the grant should be unused)", err)
				}
				if diff := cmp.Diff([]string{`click {"target":"button:Sign in"}`}, ui.received()); diff != "" {
					t.Errorf("server received (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestFailedReadDoesNotHideDrift: the server changed its contract and the
// re-read after its notification was cancelled. The next dispatch reads the
// catalog again and refuses the drift; it does not reuse the old digest.
func TestFailedReadDoesNotHideDrift(t *testing.T) {
	ui := newFixture(uiIdentity, clickSchema)
	g := grants(t, click("button:Sign in"))
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv := connect(t, d, ui)
	ui.server.AddTool(&mcp.Tool{Name: "run_shell", InputSchema: json.RawMessage(failSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	<-dispatch.Noticed(srv) // the server's own list_changed
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Dispatch(cancelled, g[0], click("button:Sign in")); err == nil {
		t.Fatal("dispatch with a cancelled context succeeded")
	}
	if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); codeOf(err) != binding.CodeContractDrift {
		t.Errorf("next dispatch: error %v, want %s", err, binding.CodeContractDrift)
	}
	if got := ui.received(); len(got) != 0 {
		t.Errorf("the changed server received %q", got)
	}
}

// TestClosedSessionDeregisters: a session closed by either side removes its
// server. A dispatch to it sends nothing and says so, leaving the grant
// unused; the same identity connects again and the grant then works.
func TestClosedSessionDeregisters(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			ui := newFixture(uiIdentity, clickSchema)
			g := grants(t, click("button:Sign in"))
			d := dispatch.New(newBroker(t, issuedAt), nil)
			ctx := context.Background()
			st, ct := mcp.NewInMemoryTransports()
			ss, err := ui.server.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			srv, err := d.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			if side == "client" {
				srv.Close()
			} else {
				ss.Close()
			}
			<-dispatch.Ended(srv)
			_, err = d.Dispatch(ctx, g[0], click("button:Sign in"))
			if codeOf(err) != binding.CodeServerUnknown || !strings.Contains(err.Error(), "nothing was dispatched and the grant is unused") {
				t.Errorf("dispatch to the closed server: error %v, want %s saying nothing was dispatched", err, binding.CodeServerUnknown)
			}
			connect(t, d, ui) // not server_ambiguous
			if _, err := d.Dispatch(ctx, g[0], click("button:Sign in")); err != nil {
				t.Errorf("the unused grant after reconnecting: %v", err)
			}
			if diff := cmp.Diff([]string{`click {"target":"button:Sign in"}`}, ui.received()); diff != "" {
				t.Errorf("server received (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCallFailedConsumes: a call handed to the session that then fails (here
// its context is cancelled while the server works on it) reached the server;
// the error says so with call_failed, and its step is consumed.
func TestCallFailedConsumes(t *testing.T) {
	ui := newFixture(uiIdentity, clickSchema)
	hang := binding.Call{Server: uiIdentity, Tool: "hang", Arguments: json.RawMessage(`{"target":"button:Slow"}`)}
	g := grants(t, hang)
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, ui)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := d.Dispatch(ctx, g[0], hang); done <- err }()
	<-ui.hanging
	cancel()
	err := <-done
	if codeOf(err) != binding.CodeCallFailed || !strings.Contains(err.Error(), "may have reached the server") {
		t.Errorf("error %v, want %s saying the call may have reached the server", err, binding.CodeCallFailed)
	}
	if _, err := d.Dispatch(context.Background(), g[0], hang); codeOf(err) != binding.CodeGrantConsumed {
		t.Errorf("the same grant again: error %v, want %s", err, binding.CodeGrantConsumed)
	}
}

// TestCancelledBeforeSendConsumesNothing: a context that ended before the
// call could be sent sends nothing, says so, and leaves the grant usable.
func TestCancelledBeforeSendConsumesNothing(t *testing.T) {
	ui := newFixture(uiIdentity, clickSchema)
	g := grants(t, click("button:Sign in"))
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, ui)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Dispatch(ctx, g[0], click("button:Sign in")); codeOf(err) != binding.CodeNotDispatched {
		t.Errorf("error %v, want %s", err, binding.CodeNotDispatched)
	}
	if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); err != nil {
		t.Errorf("the unused grant: %v", err)
	}
}

// TestConnectRefusesUnbindableIdentities: a server whose identity a reviewer
// could not tell from another's (a look-alike letter, a NUL, a case variant
// of a connected one) is not connected.
func TestConnectRefusesUnbindableIdentities(t *testing.T) {
	for name, id := range map[string]binding.ServerIdentity{
		"Cyrillic s":             {Name: "\u0455ynthetic-ui", Version: "v1.4.0"},
		"NUL":                    {Name: "synthetic-ui\x00", Version: "v1.4.0"},
		"zero-width joiner":      {Name: "synthetic\u200d-ui", Version: "v1.4.0"},
		"case variant of a peer": {Name: "Synthetic-UI", Version: "V1.4.0"},
	} {
		t.Run(name, func(t *testing.T) {
			d := dispatch.New(newBroker(t, issuedAt), nil)
			connect(t, d, newFixture(uiIdentity, clickSchema))
			st, ct := mcp.NewInMemoryTransports()
			ss, err := newFixture(id, clickSchema).server.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			if srv, err := d.Connect(context.Background(), ct, nil); err == nil {
				srv.Close()
				t.Errorf("connected %q", id.String())
			}
		})
	}
}

// TestPendingReadRefuses: with TrustNotifications, while one dispatch re-reads a stale catalog (here
// the server holds its tools/list answer), another dispatch to that server is
// refused at once, not made to wait on a read its own context does not bound;
// once the read succeeds, the step runs.
func TestPendingReadRefuses(t *testing.T) {
	ui := newFixture(uiIdentity, clickSchema)
	var hold atomic.Bool
	listing, release := make(chan struct{}, 1), make(chan struct{})
	ui.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && hold.Load() {
				listing <- struct{}{}
				<-release
			}
			return next(ctx, method, req)
		}
	})
	g := grants(t, click("button:Sign in"))
	d := dispatch.New(newBroker(t, issuedAt), &dispatch.Options{TrustNotifications: true})
	srv := connect(t, d, ui)
	hold.Store(true)
	dispatch.MarkChanged(srv)
	first := make(chan error, 1)
	go func() { _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); first <- err }()
	<-listing
	_, err := d.Dispatch(context.Background(), g[0], click("button:Sign in"))
	if codeOf(err) != binding.CodeCatalogStale || !strings.Contains(err.Error(), "reading it again now") {
		t.Errorf("dispatch during the re-read: error %v, want %s saying a re-read is in progress", err, binding.CodeCatalogStale)
	}
	hold.Store(false)
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the dispatch that re-read: %v", err)
	}
	if diff := cmp.Diff([]string{`click {"target":"button:Sign in"}`}, ui.received()); diff != "" {
		t.Errorf("server received (-want +got):\n%s", diff)
	}
}
