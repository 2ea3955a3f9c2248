package dispatch_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileWire is a client transport whose connection rewrites the server's
// answers as a hostile server (or a hostile hop) would: around each answer
// it delivers the messages around returns.
type hostileWire struct {
	inner  mcp.Transport
	around func(resp *jsonrpc.Response) []jsonrpc.Message
}

func (w hostileWire) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &hostileConn{Connection: c, around: w.around}, nil
}

type hostileConn struct {
	mcp.Connection
	around func(resp *jsonrpc.Response) []jsonrpc.Message
	mu     sync.Mutex
	queue  []jsonrpc.Message
}

func (c *hostileConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.mu.Lock()
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		c.mu.Unlock()
		return m, nil
	}
	c.mu.Unlock()
	msg, err := c.Connection.Read(ctx)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return msg, err
	}
	out := c.around(resp)
	c.mu.Lock()
	c.queue = append(c.queue, out[1:]...)
	c.mu.Unlock()
	return out[0], nil
}

// isReplay reports whether id is one of the dispatcher's own replayed
// requests (a string ID: go-sdk's are integers).
func isReplay(id jsonrpc.ID) bool {
	_, ok := id.Raw().(string)
	return ok
}

// TestHostileWireAroundTheReplay: answers arranged around the replay that
// no honest server sends: each answer delivered twice, the second time with
// other (drifted) bytes; a forged drifted answer to each replayed request
// before the real one; answers to requests never sent, under the replay's
// ID scheme and go-sdk's; a log notification before every answer. None may
// hang, crash, or end the session, and none may make a drifted answer count:
// an answer the tap did not expect (a second one, or one to no request)
// leaves no recording, so every read is a full one, and an unchanged catalog
// still dispatches (its digest is the pinned one). The answers to the
// grant's checked calls stay exactly the server's.
func TestHostileWireAroundTheReplay(t *testing.T) {
	drifted := json.RawMessage(`{"tools":[{"name":"click","inputSchema":{"type":"object"}}]}`)
	forged := func(id jsonrpc.ID) *jsonrpc.Response { return &jsonrpc.Response{ID: id, Result: drifted} }
	never := func(id any) jsonrpc.ID {
		v, err := jsonrpc.MakeID(id)
		if err != nil {
			panic(err)
		}
		return v
	}
	logged := &jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"x"}`)}
	for _, tt := range []struct {
		name     string
		around   func(resp *jsonrpc.Response) []jsonrpc.Message
		replayed uint64 // verifications proved by a replay, of 2
	}{
		{"every answer twice, the second drifted", func(r *jsonrpc.Response) []jsonrpc.Message {
			return []jsonrpc.Message{r, forged(r.ID)}
		}, 0},
		{"a drifted answer before each replayed one", func(r *jsonrpc.Response) []jsonrpc.Message {
			if isReplay(r.ID) && strings.Contains(string(r.Result), `"tools"`) {
				return []jsonrpc.Message{forged(r.ID), r}
			}
			return []jsonrpc.Message{r}
		}, 0},
		{"answers to requests never sent", func(r *jsonrpc.Response) []jsonrpc.Message {
			return []jsonrpc.Message{forged(never("automium-verify-1000000")), forged(never(float64(1000000))), r}
		}, 0},
		{"a notification before every answer", func(r *jsonrpc.Response) []jsonrpc.Message {
			return []jsonrpc.Message{logged, r}
		}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newPagedFixture()
			g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedOf(t, f)}},
				[]binding.Call{click("button:Sign in")}, []binding.Call{click("button:Next")})
			d := dispatch.New(newBroker(t, issuedAt), nil)
			ctx := context.Background()
			srv := connectOver(t, d, f, func(ct mcp.Transport) mcp.Transport { return hostileWire{ct, tt.around} })
			for i, c := range []binding.Call{click("button:Sign in"), click("button:Next")} {
				if _, err := d.Dispatch(ctx, g[i], c); err != nil {
					t.Fatalf("dispatch %d: %v", i, err)
				}
			}
			if n := dispatch.Replayed(srv); n != tt.replayed {
				t.Errorf("%d verifications were proved by a replay, want %d", n, tt.replayed)
			}
			if got := f.received(); len(got) != 2 {
				t.Errorf("the server received %q, want both calls", got)
			}
		})
	}
}

// TestCancelMidReplayKeepsTheRecording: a dispatch whose context ends in
// the middle of a replay (on a later page of the tools list, with other
// lists' answers in flight) sends nothing, and leaves the recording whole:
// the next dispatch of the unchanged catalog is proved by a replay again,
// and a silent change on that later page is still refused as drift.
func TestCancelMidReplayKeepsTheRecording(t *testing.T) {
	f := newPagedFixture()
	silent := new(atomic.Bool)
	driftOn(f, "tools/list", 2, silent)
	g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedOf(t, f)}},
		[]binding.Call{click("button:Sign in")}, []binding.Call{click("button:Next")}, []binding.Call{click("button:Back")})
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv := connect(t, d, f)
	if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var tools atomic.Int64
	dispatch.SetPageHook(func(_ context.Context, method string) {
		if method == "tools/list" && tools.Add(1) == 2 {
			cancel()
		}
	})
	_, err := d.Dispatch(ctx, g[1], click("button:Next"))
	dispatch.SetPageHook(nil)
	if code := codeOf(err); code == "" || code == binding.CodeCallFailed {
		t.Fatalf("cancelled mid-replay: error %v, want a refusal that sent nothing", err)
	}
	if _, err := d.Dispatch(context.Background(), g[1], click("button:Next")); err != nil {
		t.Fatalf("after the cancelled replay: %v", err)
	}
	if n := dispatch.Replayed(srv); n != 2 {
		t.Errorf("%d verifications were proved by a replay, want 2", n)
	}
	silent.Store(true)
	if _, err := d.Dispatch(context.Background(), g[2], click("button:Back")); codeOf(err) != binding.CodeContractDrift {
		t.Errorf("a silent change on page 2 after a cancelled replay: error %v, want %s", err, binding.CodeContractDrift)
	}
	if got := f.received(); len(got) != 2 {
		t.Errorf("the server received %q, want the two verified calls", got)
	}
}
