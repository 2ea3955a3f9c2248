package dispatch_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestListCacheDoesNotHideDrift: under protocol 2026-07-28 go-sdk's client
// caches list answers for the ttlMs the server sets (SEP-2549). A server that
// sets a long TTL and then drifts silently must still be refused: every
// verification reads from the server, not from the cache. (go-sdk v1.8.0
// negotiates at most 2025-11-25 over initialize; the fixture answers
// 2026-07-28 anyway, which go-sdk's client accepts and then caches under.)
func TestListCacheDoesNotHideDrift(t *testing.T) {
	ui := newFixture(uiIdentity, clickSchema)
	calls := countCalls(ui)
	silent := lieSilently(ui)
	var lists atomic.Int64
	ui.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			switch r := res.(type) {
			case *mcp.InitializeResult:
				r.ProtocolVersion = "2026-07-28"
			case *mcp.ListToolsResult:
				lists.Add(1)
				r.TTLMs = 3_600_000
			}
			return res, err
		}
	})
	pin := pinned(t)
	pin.ProtocolVersion = "2026-07-28" // the version this session negotiates
	g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pin}}, []binding.Call{click("button:Sign in")})
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, ui)
	silent.Store(true)
	_, err := d.Dispatch(context.Background(), g[0], click("button:Sign in"))
	if lists := lists.Load(); lists != 3 {
		t.Errorf("the server answered tools/list %d times, want 3 (at connect, the replay that differs, the full read that follows); the rest came from go-sdk's cache", lists)
	}
	if codeOf(err) != binding.CodeContractDrift {
		t.Errorf("silent drift behind a cached tools/list: error %v, want %s", err, binding.CodeContractDrift)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the server received %d tools/call requests", n)
	}
}
