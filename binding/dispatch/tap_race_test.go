package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The scripted peer is an MCP server written message by message, with no
// go-sdk server behind it, so a test decides what arrives when: an answer
// to a request not yet sent, an answer held back, a message between two
// others. Its tools/list has two pages: page 1 is click, page 2 is whatever
// page2 holds.
var (
	scriptedPage1 = json.RawMessage(`{"tools":[{"name":"click","inputSchema":` + clickSchema + `}],"nextCursor":"2"}`)
	// scriptedHonest is page 2 as the plan pinned it; scriptedDrifted is
	// page 2 with an oracle tool added.
	scriptedHonest  = json.RawMessage(`{"tools":[{"name":"fail","inputSchema":` + failSchema + `}]}`)
	scriptedDrifted = json.RawMessage(`{"tools":[{"name":"fail","inputSchema":` + failSchema + `},{"name":"read_oracle","inputSchema":{"type":"object"}}]}`)
)

type scriptedPeer struct {
	mu     sync.Mutex
	queue  []jsonrpc.Message
	ready  chan struct{} // signalled, without blocking, when queue grows
	closed chan struct{}
	once   sync.Once
	page2  json.RawMessage
	calls  []string
	// before, when set, runs on each tools/list request before it is
	// answered, with its ID and cursor; the messages it returns arrive
	// first.
	before func(id jsonrpc.ID, cursor string) []jsonrpc.Message
	// withhold, when set, says which tools/list answers go to held
	// instead of the client. Both run with mu held.
	withhold func(id jsonrpc.ID, cursor string) bool
	held     []jsonrpc.Message
	// resources makes the peer announce resources (none), and
	// failResources answer resources/list with an error.
	resources, failResources bool
	// taken is closed at the first Read after the message marked by
	// inject was read: by then go-sdk has handled it.
	mark  jsonrpc.Message
	taken chan struct{}
	fired chan struct{}
}

func newScriptedPeer(page2 json.RawMessage) *scriptedPeer {
	return &scriptedPeer{ready: make(chan struct{}, 1), closed: make(chan struct{}), page2: page2}
}

func (p *scriptedPeer) Connect(context.Context) (mcp.Connection, error) { return p, nil }
func (p *scriptedPeer) SessionID() string                               { return "" }
func (p *scriptedPeer) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

// send queues msgs for the client; p.mu is held.
func (p *scriptedPeer) send(msgs ...jsonrpc.Message) {
	p.queue = append(p.queue, msgs...)
	select {
	case p.ready <- struct{}{}:
	default:
	}
}

// inject delivers msg before anything queued and returns a channel closed
// once the client has handled it (its reader came back for the next
// message).
func (p *scriptedPeer) inject(msg jsonrpc.Message) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mark, p.taken = msg, make(chan struct{})
	p.queue = append([]jsonrpc.Message{msg}, p.queue...)
	select {
	case p.ready <- struct{}{}:
	default:
	}
	return p.taken
}

func (p *scriptedPeer) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		p.mu.Lock()
		if p.fired != nil {
			close(p.fired)
			p.fired = nil
		}
		if len(p.queue) > 0 {
			m := p.queue[0]
			p.queue = p.queue[1:]
			if m == p.mark {
				p.fired, p.mark = p.taken, nil
			}
			p.mu.Unlock()
			return m, nil
		}
		p.mu.Unlock()
		select {
		case <-p.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.closed:
			return nil, io.EOF
		}
	}
}

func (p *scriptedPeer) Write(_ context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	answer := func(result string) { p.send(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(result)}) }
	var params struct{ Cursor string }
	_ = json.Unmarshal(req.Params, &params)
	switch req.Method {
	case "initialize":
		caps := `{"tools":{}}`
		if p.resources {
			caps = `{"tools":{},"resources":{}}`
		}
		answer(`{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"` + uiIdentity.Name + `","version":"` + uiIdentity.Version + `"}}`)
	case "tools/list":
		if p.before != nil {
			p.send(p.before(req.ID, params.Cursor)...)
		}
		page := p.page2
		if params.Cursor == "" {
			page = scriptedPage1
		}
		if p.withhold != nil && p.withhold(req.ID, params.Cursor) {
			p.held = append(p.held, &jsonrpc.Response{ID: req.ID, Result: page})
			return nil
		}
		answer(string(page))
	case "resources/list", "resources/templates/list":
		if p.failResources && req.Method == "resources/list" {
			p.send(&jsonrpc.Response{ID: req.ID, Error: errors.New("resources are unavailable")})
		} else if req.Method == "resources/list" {
			answer(`{"resources":[]}`)
		} else {
			answer(`{"resourceTemplates":[]}`)
		}
	case "tools/call":
		p.calls = append(p.calls, string(req.Params))
		answer(`{"content":[]}`)
	default:
		p.send(&jsonrpc.Response{ID: req.ID, Error: errors.New("method not found")})
	}
	return nil
}

func (p *scriptedPeer) received() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.calls)
}

// scriptedPin is the catalog a planner reads from an honest scripted peer.
func scriptedPin(t *testing.T) binding.Catalog {
	t.Helper()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "planner", Version: "v1"}, nil).Connect(ctx, newScriptedPeer(scriptedHonest), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c, err := dispatch.ListCatalog(ctx, cs, 100, 10)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAnswerInTheWindowBeforeTheTap: go-sdk registers a call before it
// hands the request to the tap. A server that answers go-sdk's next
// tools/list ID in that moment (here: the honest page 2, as pinned) has
// that answer decoded by go-sdk, and its later answer to the same request
// (page 2 with an oracle tool) dropped by go-sdk. Were the tap to record
// the later answer, a replay of the drifted page would match the recording
// and the pinned digest would be reused for a catalog never verified. The
// tap refuses the recording instead: the next verification reads in full,
// finds the oracle tool, and refuses the call as drift. Deterministic: the
// write hook holds go-sdk's request until the early answer was handled.
func TestAnswerInTheWindowBeforeTheTap(t *testing.T) {
	g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: scriptedPin(t)}},
		[]binding.Call{click("button:Sign in")}, []binding.Call{click("button:Next")})
	peer := newScriptedPeer(scriptedDrifted)
	var armed atomic.Bool
	armed.Store(true)
	dispatch.SetWriteHook(func(msg jsonrpc.Message) {
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.Method != "tools/list" || !armed.Load() {
			return
		}
		var params struct{ Cursor string }
		_ = json.Unmarshal(req.Params, &params)
		if params.Cursor == "2" && armed.CompareAndSwap(true, false) {
			<-peer.inject(&jsonrpc.Response{ID: req.ID, Result: scriptedHonest})
		}
	})
	t.Cleanup(func() { dispatch.SetWriteHook(nil) })
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv, err := d.Connect(context.Background(), peer, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if armed.Load() {
		t.Fatal("the early answer was never injected")
	}
	if got, want := srv.CatalogDigest(), g[0].Candidates[0].CatalogDigest; got != want {
		t.Fatalf("go-sdk decoded digest %s at Connect, want the pinned %s (the early answer)", got, want)
	}
	_, err = d.Dispatch(context.Background(), g[0], click("button:Sign in"))
	if codeOf(err) != binding.CodeContractDrift {
		t.Errorf("dispatch after an answer in the window: error %v, want %s", err, binding.CodeContractDrift)
	}
	if n := peer.received(); n != 0 {
		t.Errorf("the server received %d calls, want none", n)
	}
}

// TestUnexpectedAnswersSpoilTheTap: an answer to a request the tap did not
// see written, while it records or replays, leaves no recording and fails
// the replay, so the read after it is a full one: an answer to go-sdk's
// next ID before go-sdk asked, and an answer to an ID never used during a
// replay. An answer the tap gave up waiting for (a replay cancelled
// mid-page) is not unexpected when it comes late: the next replay still
// proves the catalog. Each dispatch of the unchanged catalog succeeds.
func TestUnexpectedAnswersSpoilTheTap(t *testing.T) {
	g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: scriptedPin(t)}},
		[]binding.Call{click("button:Sign in")}, []binding.Call{click("button:Next")})
	for _, tt := range []struct {
		name     string
		before   func(id jsonrpc.ID, cursor string) []jsonrpc.Message
		replayed uint64 // of the two verifications
	}{
		{"none", nil, 2},
		{"go-sdk's next ID answered before it is asked", func(id jsonrpc.ID, cursor string) []jsonrpc.Message {
			n, ok := id.Raw().(int64)
			if !ok || cursor != "" {
				return nil
			}
			return []jsonrpc.Message{&jsonrpc.Response{ID: mustID(t, float64(n+1)), Result: scriptedHonest}}
		}, 0},
		{"an ID never used answered during a replay", func(id jsonrpc.ID, cursor string) []jsonrpc.Message {
			if _, replay := id.Raw().(string); !replay || cursor != "" {
				return nil
			}
			return []jsonrpc.Message{&jsonrpc.Response{ID: mustID(t, float64(1_000_000)), Result: scriptedHonest}}
		}, 0},
		{"the replay's next ID answered before it is asked", func(id jsonrpc.ID, cursor string) []jsonrpc.Message {
			if _, replay := id.Raw().(string); !replay || cursor != "" {
				return nil
			}
			return []jsonrpc.Message{&jsonrpc.Response{ID: mustID(t, "automium-verify-1000000"), Result: scriptedHonest}}
		}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			peer := newScriptedPeer(scriptedHonest)
			peer.before = tt.before
			d := dispatch.New(newBroker(t, issuedAt), nil)
			srv, err := d.Connect(context.Background(), peer, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			for i, c := range []binding.Call{click("button:Sign in"), click("button:Next")} {
				if _, err := d.Dispatch(context.Background(), g[i], c); err != nil {
					t.Fatalf("dispatch %d: %v", i, err)
				}
			}
			if n := dispatch.Replayed(srv); n != tt.replayed {
				t.Errorf("%d verifications were proved by a replay, want %d", n, tt.replayed)
			}
		})
	}
	t.Run("a late answer to a cancelled replay", func(t *testing.T) {
		peer := newScriptedPeer(scriptedHonest)
		d := dispatch.New(newBroker(t, issuedAt), nil)
		srv, err := d.Connect(context.Background(), peer, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		// The first replay's page 2 is held back and its dispatch
		// cancelled; the held answer arrives in the middle of the next
		// replay, before that replay's page 1.
		ctx, cancel := context.WithCancel(context.Background())
		peer.withhold = func(id jsonrpc.ID, cursor string) bool {
			_, replay := id.Raw().(string)
			if replay && cursor == "2" && ctx.Err() == nil {
				cancel()
				return true
			}
			return false
		}
		peer.before = func(id jsonrpc.ID, cursor string) []jsonrpc.Message {
			if _, replay := id.Raw().(string); replay && cursor == "" {
				late := peer.held
				peer.held = nil
				return late
			}
			return nil
		}
		if _, err := d.Dispatch(ctx, g[0], click("button:Sign in")); err == nil || codeOf(err) == binding.CodeCallFailed {
			t.Fatalf("cancelled mid-replay: error %v, want a refusal that sent nothing", err)
		}
		if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); err != nil {
			t.Fatal(err)
		}
		if n := dispatch.Replayed(srv); n != 1 {
			t.Errorf("%d verifications were proved by a replay, want 1 (the late answer is not unexpected)", n)
		}
		if n := peer.received(); n != 1 {
			t.Errorf("the server received %d calls, want 1", n)
		}
	})
}

// TestFailedListOfAnyKindFailsClosed: a server whose resources/list starts
// failing (its templates list does not), with its tools unchanged, is not
// verified: the dispatch is catalog_stale and nothing is sent. An empty
// resources list changes no digest, so only the failure can refuse it.
func TestFailedListOfAnyKindFailsClosed(t *testing.T) {
	g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: scriptedPin(t)}},
		[]binding.Call{click("button:Sign in")}, []binding.Call{click("button:Next")})
	peer := newScriptedPeer(scriptedHonest)
	peer.resources = true
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv, err := d.Connect(context.Background(), peer, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); err != nil {
		t.Fatal(err)
	}
	peer.mu.Lock()
	peer.failResources = true
	peer.mu.Unlock()
	if _, err := d.Dispatch(context.Background(), g[1], click("button:Next")); codeOf(err) != binding.CodeCatalogStale {
		t.Errorf("resources/list failing: error %v, want %s", err, binding.CodeCatalogStale)
	}
	if n := peer.received(); n != 1 {
		t.Errorf("the server received %d calls, want the first only", n)
	}
}
